#include <Kokkos_Core.hpp>

void gemv(int m, int n, const double *A, const double *x, double *y) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Matrix = Kokkos::View<double **, Kokkos::LayoutRight>;
  using TeamPolicy = Kokkos::TeamPolicy<>;
  Kokkos::View<const double **, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> h_A(A, m, n);
  Kokkos::View<const double *, Kokkos::HostSpace, Unmanaged> h_x(x, n);
  Kokkos::View<double *, Kokkos::HostSpace, Unmanaged> h_y(y, m);
  Matrix d_A("A", m, n);
  Kokkos::View<double *> d_x("x", n);
  Kokkos::View<double *> d_y("y", m);
  Kokkos::deep_copy(d_A, h_A);
  Kokkos::deep_copy(d_x, h_x);
  // one team per row; the team's threads share the row's dot product
  Kokkos::parallel_for("gemv", TeamPolicy(m, Kokkos::AUTO), KOKKOS_LAMBDA(const TeamPolicy::member_type &team) {
    const int i = team.league_rank();
    double sum;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, n), [&](const int j, double &partial) {
      partial += d_A(i, j) * d_x(j);
    }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { d_y(i) = sum; });
  });
  Kokkos::deep_copy(h_y, d_y);
}
