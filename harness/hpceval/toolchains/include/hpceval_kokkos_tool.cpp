// hpceval Kokkos probe: a Kokkos profiling-interface tool (KOKKOS_PROFILE_LIBRARY / KOKKOS_TOOLS_LIBS), loaded
// by Kokkos::initialize. It counts the parallel dispatches that ran (parallel_for / parallel_reduce /
// parallel_scan), separating the user's from Kokkos' own (View initialisation, deep_copy fills: names that start
// with "Kokkos::"), the execution space each user dispatch ran on (the top 8 bits of Kokkos' device id:
// 0 Serial, 1 OpenMP, 2 Cuda, 3 HIP, 4 OpenMPTarget, 5 HPX, 6 Threads, 7 SYCL), and the OpenMP threads available
// to the OpenMP backend. Written at finalize to $HPCEVAL_KOKKOS_PROBE_OUT (default kokkos_probe.txt):
//
//   hpceval-kokkos-probe 1
//   threads <omp_get_max_threads() or 1>
//   D <for|reduce|scan> <device id> <name>      one line per user dispatch (first 2000)
//   space <space id> <count>                    user dispatches per execution space (all of them)
//   user <count> internal <count>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {
std::mutex g_lock;
std::vector<std::string> g_lines;
uint64_t g_user = 0, g_internal = 0, g_next = 0;
uint64_t g_space[256] = {0};

void record(const char *kind, const char *name, uint32_t dev, uint64_t *kid) {
  std::lock_guard<std::mutex> guard(g_lock);
  *kid = g_next++;
  std::string n = name ? name : "?";
  if (n.rfind("Kokkos::", 0) == 0) {
    ++g_internal;
    return;
  }
  ++g_user;
  ++g_space[(dev >> 24) & 0xffu];
  if (g_lines.size() < 2000) {
    if (n.size() > 120) n.resize(120);
    for (char &c : n)
      if (c == '\n') c = ' ';
    g_lines.push_back(std::string("D ") + kind + " " + std::to_string(dev) + " " + n);
  }
}
}  // namespace

extern "C" {
struct KokkosPDeviceInfo {
  uint32_t deviceID;
};

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void *) {}

void kokkosp_finalize_library() {
  const char *path = std::getenv("HPCEVAL_KOKKOS_PROBE_OUT");
  FILE *out = std::fopen(path && *path ? path : "kokkos_probe.txt", "a");
  if (!out) return;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::lock_guard<std::mutex> guard(g_lock);
  std::fprintf(out, "hpceval-kokkos-probe 1\nthreads %d\n", threads);
  for (const std::string &line : g_lines) std::fprintf(out, "%s\n", line.c_str());
  for (int s = 0; s < 256; ++s)
    if (g_space[s]) std::fprintf(out, "space %d %llu\n", s, (unsigned long long)g_space[s]);
  std::fprintf(out, "user %llu internal %llu\n", (unsigned long long)g_user, (unsigned long long)g_internal);
  std::fclose(out);
}

void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *kid) { record("for", name, dev, kid); }
void kokkosp_end_parallel_for(const uint64_t) {}
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *kid) {
  record("reduce", name, dev, kid);
}
void kokkosp_end_parallel_reduce(const uint64_t) {}
void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *kid) { record("scan", name, dev, kid); }
void kokkosp_end_parallel_scan(const uint64_t) {}
}
