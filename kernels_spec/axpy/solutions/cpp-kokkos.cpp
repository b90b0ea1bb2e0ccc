#include <Kokkos_Core.hpp>

void saxpy(int n, float a, const float *x, float *y) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<const float *, Kokkos::HostSpace, Unmanaged> h_x(x, n);
  Kokkos::View<float *, Kokkos::HostSpace, Unmanaged> h_y(y, n);
  Kokkos::View<float *> d_x("x", n);
  Kokkos::View<float *> d_y("y", n);
  Kokkos::deep_copy(d_x, h_x);
  Kokkos::deep_copy(d_y, h_y);
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
    d_y(i) = a * d_x(i) + d_y(i);
  });
  Kokkos::deep_copy(h_y, d_y);
}
