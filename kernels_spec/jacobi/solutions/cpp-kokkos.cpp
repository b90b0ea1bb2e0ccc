#include <Kokkos_Core.hpp>

void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  if (nx < 3 || ny < 3 || nz < 3) {
    return;  // no interior point
  }
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Grid = Kokkos::View<double ***, Kokkos::LayoutRight>;
  Kokkos::View<const double ***, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_u(u, nx, ny, nz);
  Kokkos::View<double ***, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_unew(unew, nx, ny, nz);
  Grid d_u("u", nx, ny, nz);
  Grid d_unew("unew", nx, ny, nz);
  Kokkos::deep_copy(d_u, h_u);
  Kokkos::deep_copy(d_unew, h_unew);
  Kokkos::parallel_for("jacobi", Kokkos::MDRangePolicy<Kokkos::Rank<3>>({1, 1, 1}, {nx - 1, ny - 1, nz - 1}),
                       KOKKOS_LAMBDA(const int i, const int j, const int k) {
    d_unew(i, j, k) = (d_u(i - 1, j, k) + d_u(i + 1, j, k) + d_u(i, j - 1, k) + d_u(i, j + 1, k) +
                       d_u(i, j, k - 1) + d_u(i, j, k + 1)) / 6.0;
  });
  Kokkos::deep_copy(h_unew, d_unew);
}
