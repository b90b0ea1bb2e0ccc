#include <Kokkos_Core.hpp>
#include <cmath>

void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Vector = Kokkos::View<double *>;
  using Range = Kokkos::RangePolicy<>;
  Kokkos::View<const int *, Kokkos::HostSpace, Unmanaged> h_row_ptr(row_ptr, n + 1);
  Kokkos::View<const int *, Kokkos::HostSpace, Unmanaged> h_col_idx(col_idx, nnz);
  Kokkos::View<const double *, Kokkos::HostSpace, Unmanaged> h_values(values, nnz);
  Kokkos::View<const double *, Kokkos::HostSpace, Unmanaged> h_b(b, n);
  Kokkos::View<double *, Kokkos::HostSpace, Unmanaged> h_x(x, n);
  Kokkos::View<int *> rp("row_ptr", n + 1);
  Kokkos::View<int *> ci("col_idx", nnz);
  Vector va("values", nnz), d_b("b", n), d_x("x", n), r("r", n), p("p", n), Ap("Ap", n);
  Kokkos::deep_copy(rp, h_row_ptr);
  Kokkos::deep_copy(ci, h_col_idx);
  Kokkos::deep_copy(va, h_values);
  Kokkos::deep_copy(d_b, h_b);
  Kokkos::deep_copy(d_x, h_x);

  double rr, bb;
  // r = b - A*x, p = r
  Kokkos::parallel_reduce("cg_init", Range(0, n), KOKKOS_LAMBDA(const int i, double &acc) {
    double s = 0.0;
    for (int k = rp(i); k < rp(i + 1); ++k) s += va(k) * d_x(ci(k));
    r(i) = d_b(i) - s;
    p(i) = r(i);
    acc += r(i) * r(i);
  }, rr);
  Kokkos::parallel_reduce("cg_bnorm", Range(0, n), KOKKOS_LAMBDA(const int i, double &acc) {
    acc += d_b(i) * d_b(i);
  }, bb);
  const double bnorm = std::sqrt(bb);
  if (bnorm == 0.0) {
    Kokkos::deep_copy(d_x, 0.0);
  }
  for (int it = 0; it < max_iter && bnorm > 0.0 && std::sqrt(rr) > tol * bnorm; ++it) {
    double pAp;
    Kokkos::parallel_reduce("cg_matvec", Range(0, n), KOKKOS_LAMBDA(const int i, double &acc) {
      double s = 0.0;
      for (int k = rp(i); k < rp(i + 1); ++k) s += va(k) * p(ci(k));
      Ap(i) = s;
      acc += p(i) * s;
    }, pAp);
    const double alpha = rr / pAp;
    double rr_new;
    Kokkos::parallel_reduce("cg_update", Range(0, n), KOKKOS_LAMBDA(const int i, double &acc) {
      d_x(i) += alpha * p(i);
      r(i) -= alpha * Ap(i);
      acc += r(i) * r(i);
    }, rr_new);
    const double beta = rr_new / rr;
    rr = rr_new;
    Kokkos::parallel_for("cg_direction", Range(0, n), KOKKOS_LAMBDA(const int i) { p(i) = r(i) + beta * p(i); });
  }
  Kokkos::deep_copy(h_x, d_x);
}
