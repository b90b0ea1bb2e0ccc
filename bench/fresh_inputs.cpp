// Why a cache-resident kernel is slower under the validated timing run: the same C++ OpenMP GEMM reference
// (kernels_spec/gemm/solutions/cpp-openmp.cpp, included) timed at the GEMM timing size 384^3 in three ways, median
// of 30 calls each: (warm) the call repeated on the same data, as the old timing run did; (fresh) the main thread
// writes a fresh input set into A and B and poisons C before each call, as the validated run's driver does;
// (fresh, threads write) the same, but the fresh data is written by the OpenMP threads in the rows they compute;
// (fresh, then idle) as the driver does, with the main thread asleep before the call for as long as the liveness
// check waits after the previous one (4 ms: its 1 ms settle and 3 ms window; 30 ms: its second look) while the
// OpenMP workers sleep (OMP_WAIT_POLICY=passive, as the harness sets) and their cores idle; (fresh, then 4 ms with
// the cores busy) the same gap, but the OpenMP threads spin through it, so their cores do not idle before the call.
// Build and run: bash bench/fresh_inputs.sh
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

#include "../kernels_spec/gemm/solutions/cpp-openmp.cpp"

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
  const int m = 384, n = 384, k = 384, calls = 30;
  std::vector<double> A(m * k), B(k * n), C(m * n), sets[2][2];
  for (int s = 0; s < 2; ++s) {
    sets[s][0].resize(m * k);
    sets[s][1].resize(k * n);
    for (size_t i = 0; i < sets[s][0].size(); ++i) sets[s][0][i] = std::sin(1.0 + i + s);
    for (size_t i = 0; i < sets[s][1].size(); ++i) sets[s][1][i] = std::cos(2.0 + i + s);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int ways = 7;
  const char *names[ways] = {"warm: same data repeated", "fresh: main thread writes inputs",
                             "fresh: the threads write inputs", "fresh, then 1 ms idle before the call",
                             "fresh, then 4 ms idle before the call", "fresh, then 30 ms idle before the call",
                             "fresh, then 4 ms with the OpenMP threads spinning"};
  const int idle_ms[ways] = {0, 0, 0, 1, 4, 30, 0};
  std::printf("| way (%d OpenMP threads) | median ms | min ms |\n|---|---:|---:|\n", omp_get_max_threads());
  for (int way = 0; way < ways; ++way) {
    std::copy(sets[0][0].begin(), sets[0][0].end(), A.begin());
    std::copy(sets[0][1].begin(), sets[0][1].end(), B.begin());
    std::vector<double> t;
    for (int c = 0; c < calls + 2; ++c) {
      const int s = c % 2;
      if (way == 1 || way >= 3) {
        std::copy(sets[s][0].begin(), sets[s][0].end(), A.begin());
        std::copy(sets[s][1].begin(), sets[s][1].end(), B.begin());
        std::fill(C.begin(), C.end(), nan);
      } else if (way == 2) {
#pragma omp parallel for
        for (int i = 0; i < m; ++i) {
          std::copy(&sets[s][0][(size_t)i * k], &sets[s][0][(size_t)i * k] + k, &A[(size_t)i * k]);
          std::fill(&C[(size_t)i * n], &C[(size_t)i * n] + n, nan);
        }
#pragma omp parallel for
        for (int p = 0; p < k; ++p) std::copy(&sets[s][1][(size_t)p * n], &sets[s][1][(size_t)p * n] + n, &B[(size_t)p * n]);
      }
      if (idle_ms[way]) std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms[way]));
      if (way == 6) {
#pragma omp parallel
        {
          const double end = now() + 4e-3;
          while (now() < end) {
          }
        }
      }
      const double t0 = now();
      gemm(m, n, k, A.data(), B.data(), C.data());
      if (c >= 2) t.push_back(now() - t0);
    }
    std::sort(t.begin(), t.end());
    std::printf("| %s | %.2f | %.2f |\n", names[way], 1e3 * t[t.size() / 2], 1e3 * t[0]);
  }
  return 0;
}
