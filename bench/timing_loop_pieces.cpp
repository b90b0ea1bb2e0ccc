// The C++ driver's validated timing loop rebuilt around the C++ OpenMP GEMM reference (384^3, the CPU timing
// size), one piece at a time, in one process: the same data back to back (the old timing run); fresh inputs and
// poisoned outputs before every call; plus the liveness check's thread snapshot before the call and its check
// after it (hpceval_runtime.c, included as the driver includes it); the check without the snapshot; the snapshot
// alone. Each way twice, interleaved, 20 timed calls each. Why: the GEMM reference measured up to 1.8x slower
// under the validated run (results/timing-cost/README.md) while the reference alone is not; this tells which
// piece of the driver's loop does it. Build and run: bash bench/timing_loop_pieces.sh [threads ...]
#define HPCEVAL_RT static
#include "../harness/hpceval/bind/drivers/hpceval_runtime.c"
#include <omp.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>
#include "../kernels_spec/gemm/solutions/cpp-openmp.cpp"
int main() {
  const int m = 384, n = 384, k = 384;
  std::vector<double> A(m * k), B(k * n), C(m * n), SA[3], SB[3];
  for (int s = 0; s < 3; ++s) {
    SA[s].resize(m * k); SB[s].resize(k * n);
    for (int i = 0; i < m * k; ++i) SA[s][i] = std::sin(1.0 + i + s);
    for (int i = 0; i < k * n; ++i) SB[s][i] = std::cos(2.0 + i + s);
  }
  const char *names[] = {"back to back, same data", "fresh data + poison", "fresh + snapshot + liveness",
                         "fresh + liveness (no snapshot)", "fresh + snapshot only"};
  std::printf("| way (%d OpenMP threads) | median ms | min ms | max ms |\n|---|---:|---:|---:|\n",
              omp_get_max_threads());
  for (int rep = 0; rep < 2; ++rep)
  for (int way = 0; way < 5; ++way) {
    std::vector<double> t;
    for (int c = 0; c < 24; ++c) {
      const int s = c % 3;
      if (way >= 1) {
        for (int i = 0; i < m * k; ++i) A[i] = SA[s][i] * 2.0;
        for (int i = 0; i < k * n; ++i) B[i] = SB[s][i] * 0.5;
        std::fill(C.begin(), C.end(), std::numeric_limits<double>::quiet_NaN());
      }
      if (way == 2 || way == 4) hpceval_rt_before_call();
      const long long t0 = hpceval_rt_now_ns();
      gemm(m, n, k, A.data(), B.data(), C.data());
      const long long t1 = hpceval_rt_now_ns();
      volatile double fp = hpceval_rt_fp64(C.data(), (long long)C.size()); (void)fp;
      char why[256];
      if (way == 2 || way == 3) hpceval_rt_after_call(why, sizeof why);
      if (c >= 4) t.push_back((t1 - t0) * 1e-6);
    }
    std::sort(t.begin(), t.end());
    std::printf("| %s | %.2f | %.2f | %.2f |\n", names[way], t[t.size() / 2], t[0], t.back());
  }
}
