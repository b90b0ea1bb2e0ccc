// Where the C++ SpMV and GEMV references' data sits when a timed call starts, and what that does to their time.
// The two references (kernels_spec/{spmv,gemv}/solutions/cpp-openmp.cpp, included) at their CPU timing sizes
// (SpMV: the 3D Poisson matrix of 100^3 rows, 103 MB of arrays; GEMV: 4096 x 4096, 128 MB), 12 calls per way,
// each call's time printed, in these ways (interleaved, the order rotated per repeat):
//   repeated   the call repeated on the same arrays, back to back (the old timing run)
//   gap        the same, with the driver's between-call work: the main thread reads the output (fingerprint) and
//              sleeps 2 ms (the liveness check's window), so the OpenMP workers sleep (passive policy)
//   rewritten  before each call the main thread rewrites the largest input from its source scaled by 2^e (SpMV:
//              the values, GEMV: A) and poisons the output, as the validated run's driver does; one input set
//   rotated    the same with two input sets used in turn (the driver's rotation: the other set's smaller inputs
//              swapped in, the scaled input rewritten from that set's source): the validated run
//   cold       the same arrays as `repeated`, with a sweep that writes max(2 x LLC, 512 MB) before each call, so
//              every call reads its data from memory: the regime of a working set larger than the caches
// On a machine whose last-level cache holds the repeated working set, `repeated` is cache-resident while `rotated`
// touches about twice it per pair of calls. Build and run: bash bench/cache_regime.sh [threads] [repeats]
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "../kernels_spec/gemv/solutions/cpp-openmp.cpp"
#include "../kernels_spec/spmv/solutions/cpp-openmp.cpp"

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static size_t llc_bytes() {
  long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (bytes > 0) return (size_t)bytes;
  FILE *f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
  size_t kib = 0;
  if (f) {
    if (std::fscanf(f, "%zuK", &kib) != 1) kib = 0;
    std::fclose(f);
  }
  return kib * 1024;
}

// One input set of a kernel: the arrays the call reads, and the source of the scaled (largest) input.
struct Set {
  std::vector<int> row_ptr, col_idx;
  std::vector<double> big, big_src, x;  // big: SpMV values / GEMV A
};

struct Kernel {
  const char *name;
  int n = 0, nnz = 0;  // SpMV rows and nonzeros; GEMV: n x n
  Set sets[2];
  std::vector<double> y;
  void call(const Set &s) {
    if (nnz) spmv(n, nnz, s.row_ptr.data(), s.col_idx.data(), s.big.data(), s.x.data(), y.data());
    else gemv(n, n, s.big.data(), s.x.data(), y.data());
  }
};

static void make_spmv(Kernel &k, int side) {
  k.name = "spmv";
  k.n = side * side * side;
  for (int s = 0; s < 2; ++s) {
    Set &set = k.sets[s];
    set.row_ptr.assign(1, 0);
    for (int i = 0; i < side; ++i)
      for (int j = 0; j < side; ++j)
        for (int l = 0; l < side; ++l) {
          const int r = (i * side + j) * side + l;
          const int nb[7] = {r - side * side, r - side, r - 1, r, r + 1, r + side, r + side * side};
          const bool ok[7] = {i > 0, j > 0, l > 0, true, l < side - 1, j < side - 1, i < side - 1};
          for (int q = 0; q < 7; ++q)
            if (ok[q]) {
              set.col_idx.push_back(nb[q]);
              set.big_src.push_back(q == 3 ? 6.0 + 0.1 * s : -1.0 + 1e-3 * ((r + q + s) % 7));
            }
          set.row_ptr.push_back((int)set.col_idx.size());
        }
    set.big = set.big_src;
    set.x.resize((size_t)k.n);
    for (size_t i = 0; i < set.x.size(); ++i) set.x[i] = std::sin(1.0 + (double)i + s);
  }
  k.nnz = (int)k.sets[0].col_idx.size();
  k.y.resize((size_t)k.n);
}

static void make_gemv(Kernel &k, int n) {
  k.name = "gemv";
  k.n = n;
  for (int s = 0; s < 2; ++s) {
    Set &set = k.sets[s];
    set.big_src.resize((size_t)n * n);
    for (size_t i = 0; i < set.big_src.size(); ++i) set.big_src[i] = std::sin(0.5 + (double)i + s);
    set.big = set.big_src;
    set.x.resize((size_t)n);
    for (size_t i = 0; i < set.x.size(); ++i) set.x[i] = std::cos(2.0 + (double)i + s);
  }
  k.y.resize((size_t)n);
}

static const int WAYS = 5, CALLS = 12;
static const char *WAY_NAMES[WAYS] = {"repeated", "gap", "rewritten", "rotated", "cold"};

static volatile double sink;

static void run_way(Kernel &k, int way, std::vector<char> &sweep, double *times) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int c = 0; c < CALLS; ++c) {
    const int s = way == 3 ? c % 2 : 0;
    Set &set = k.sets[s];
    if (way >= 2 && way <= 3) {
      const double f = std::ldexp(1.0, (c * 7) % 5 - 2);
      for (size_t i = 0; i < set.big.size(); ++i) set.big[i] = set.big_src[i] * f;
      std::fill(k.y.begin(), k.y.end(), nan);
    }
    if (way == 4) {
      std::memset(sweep.data(), c & 0xff, sweep.size());
      sink = sweep[(size_t)c * 4097 % sweep.size()];
    }
    const double t0 = now();
    k.call(set);
    times[c] = now() - t0;
    if (way == 1) {
      double fp = 0;
      for (double v : k.y) fp += v;
      sink = fp;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  // the data back as `repeated` expects it (rewritten/rotated scaled it)
  for (Set &set : k.sets) set.big = set.big_src;
}

int main(int argc, char **argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const size_t llc = llc_bytes();
  std::vector<char> sweep(std::max<size_t>(2 * llc, (size_t)512 << 20), 1);
  Kernel kernels[2];
  make_spmv(kernels[0], 100);
  make_gemv(kernels[1], 4096);
  std::printf("threads %d, LLC %.0f MiB, sweep %.0f MiB, %d calls per way, %d repeats\n", omp_get_max_threads(),
              llc / 1048576.0, sweep.size() / 1048576.0, CALLS, repeats);
  std::vector<double> med[2][WAYS];
  for (int r = 0; r < repeats; ++r)
    for (Kernel &k : kernels)
      for (int w0 = 0; w0 < WAYS; ++w0) {
        const int way = (w0 + r) % WAYS;
        double times[CALLS];
        run_way(k, way, sweep, times);
        std::printf("%s %-9s repeat %d calls (ms):", k.name, WAY_NAMES[way], r);
        for (double t : times) std::printf(" %.2f", t * 1e3);
        std::printf("\n");
        std::vector<double> timed(times + 2, times + CALLS);
        std::sort(timed.begin(), timed.end());
        med[&k - kernels][way].push_back(timed[timed.size() / 2]);
      }
  std::printf("\nMedian of calls 3-12 per repeat; median of the repeats (range), ratio to `repeated`.\n\n");
  std::printf("| kernel | way | median (ms) | range | / repeated |\n|---|---|---:|---|---:|\n");
  for (int i = 0; i < 2; ++i) {
    auto middle = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    const double base = middle(med[i][0]);
    for (int w = 0; w < WAYS; ++w) {
      const auto &v = med[i][w];
      std::printf("| %s | %s | %.2f | %.2f-%.2f | %.2f |\n", kernels[i].name, WAY_NAMES[w], middle(v) * 1e3,
                  *std::min_element(v.begin(), v.end()) * 1e3, *std::max_element(v.begin(), v.end()) * 1e3,
                  middle(v) / base);
    }
  }
  return 0;
}
