#include <Kokkos_Core.hpp>

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Matrix = Kokkos::View<double **, Kokkos::LayoutRight>;
  Kokkos::View<const double **, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_A(A, m, k);
  Kokkos::View<const double **, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_B(B, k, n);
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_C(C, m, n);
  Matrix d_A("A", m, k);
  Matrix d_B("B", k, n);
  Matrix d_C("C", m, n);
  Kokkos::deep_copy(d_A, h_A);
  Kokkos::deep_copy(d_B, h_B);
  Kokkos::parallel_for("gemm", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {m, n}),
                       KOKKOS_LAMBDA(const int i, const int j) {
    double sum = 0.0;
    for (int p = 0; p < k; ++p) {
      sum += d_A(i, p) * d_B(p, j);
    }
    d_C(i, j) = sum;
  });
  Kokkos::deep_copy(h_C, d_C);
}
