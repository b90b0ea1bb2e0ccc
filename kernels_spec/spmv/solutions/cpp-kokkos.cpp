#include <Kokkos_Core.hpp>

void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<const int *, Kokkos::HostSpace, Unmanaged> h_row_ptr(row_ptr, n + 1);
  Kokkos::View<const int *, Kokkos::HostSpace, Unmanaged> h_col_idx(col_idx, nnz);
  Kokkos::View<const double *, Kokkos::HostSpace, Unmanaged> h_values(values, nnz);
  Kokkos::View<const double *, Kokkos::HostSpace, Unmanaged> h_x(x, n);
  Kokkos::View<double *, Kokkos::HostSpace, Unmanaged> h_y(y, n);
  Kokkos::View<int *> d_row_ptr("row_ptr", n + 1);
  Kokkos::View<int *> d_col_idx("col_idx", nnz);
  Kokkos::View<double *> d_values("values", nnz);
  Kokkos::View<double *> d_x("x", n);
  Kokkos::View<double *> d_y("y", n);
  Kokkos::deep_copy(d_row_ptr, h_row_ptr);
  Kokkos::deep_copy(d_col_idx, h_col_idx);
  Kokkos::deep_copy(d_values, h_values);
  Kokkos::deep_copy(d_x, h_x);
  Kokkos::parallel_for("spmv", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
    double sum = 0.0;
    for (int k = d_row_ptr(i); k < d_row_ptr(i + 1); ++k) {
      sum += d_values(k) * d_x(d_col_idx(k));
    }
    d_y(i) = sum;
  });
  Kokkos::deep_copy(h_y, d_y);
}
