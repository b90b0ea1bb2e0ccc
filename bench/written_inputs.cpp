// Does an input the driver has just written slow the next call? The C++ OpenMP GEMV reference at its CPU timing
// size (4096 x 4096: A is 128 MB) timed after the inputs were (a) left as they were (the old timing run repeated
// one input set), (b) rewritten by the main thread with ordinary stores, as the validated run's driver scales a
// fresh set into them (the lines stay dirty in the caches and are written back while the kernel streams A),
// (c) rewritten the same way and then flushed (clflushopt: clean, in memory), (d) rewritten with non-temporal
// stores (straight to memory). Median of 15 calls each, interleaved twice. Build and run: bash
// bench/written_inputs.sh [threads ...]
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../kernels_spec/gemv/solutions/cpp-openmp.cpp"

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__attribute__((target("clflushopt"))) static void flush(const double *p, size_t n) {
  for (size_t i = 0; i < n; i += 8) _mm_clflushopt((void *)(p + i));
  _mm_sfence();
}

int main() {
  const int m = 4096, n = 4096;
  const size_t na = (size_t)m * n;
  double *A = (double *)aligned_alloc(64, na * sizeof(double));
  std::vector<double> x(n), y(m), set[2];
  for (int s = 0; s < 2; ++s) {
    set[s].resize(na);
    for (size_t i = 0; i < na; ++i) set[s][i] = std::sin(1.0 + (double)i + s);
  }
  for (int j = 0; j < n; ++j) x[j] = std::cos(0.5 * j);
  std::copy(set[0].begin(), set[0].end(), A);
  const char *names[4] = {"same data repeated", "fresh, ordinary stores (as the driver)", "fresh, then flushed",
                          "fresh, non-temporal stores"};
  std::printf("| way (%d OpenMP threads) | median ms | min ms |\n|---|---:|---:|\n", omp_get_max_threads());
  for (int rep = 0; rep < 2; ++rep)
    for (int way = 0; way < 4; ++way) {
      std::vector<double> t;
      for (int c = 0; c < 17; ++c) {
        const double f = (c % 2) ? 2.0 : 0.5;
        const double *src = set[c % 2].data();
        if (way == 1 || way == 2) {
          for (size_t i = 0; i < na; ++i) A[i] = src[i] * f;
          if (way == 2) flush(A, na);
        } else if (way == 3) {
          for (size_t i = 0; i < na; i += 2) _mm_stream_pd(A + i, _mm_mul_pd(_mm_loadu_pd(src + i), _mm_set1_pd(f)));
          _mm_sfence();
        }
        const double t0 = now();
        gemv(m, n, A, x.data(), y.data());
        if (c >= 2) t.push_back(now() - t0);
      }
      std::sort(t.begin(), t.end());
      std::printf("| %s | %.2f | %.2f |\n", names[way], 1e3 * t[t.size() / 2], 1e3 * t[0]);
    }
  return 0;
}
