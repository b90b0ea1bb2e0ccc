"""A peer grader: ParEval's own verdicts on ParEval's outputs, from an independent implementation of its contract.

Why: agreement with a second harness on real outputs is the cheapest check that hpceval's verdicts are right, and
ParEval (Nichols et al., HPDC'24, arXiv 2401.12554; github.com/parallelcodefoundry/ParEval, drivers/) published
both the outputs and the contract that graded them. This file re-implements that contract for the three problems
hpceval shares with it (02_dense_la_gemm, 03_dense_la_axpy, 04_dense_la_gemv) under omp, kokkos, cuda and hip;
no ParEval code is copied: the drivers below are written here from the contract, which is (ParEval drivers/cpp:
benchmarks/dense_la/<problem>/{cpu.cc,kokkos.cc,gpu.cu,baseline.hpp}, utilities.hpp, models/*-driver.*,
cpp_driver_wrapper.py, driver_wrapper.py, parallel_validation.py, launch-configs.json):

* source: prompt + "\\n" + output in a header the driver includes after <algorithm> <cmath> <numeric> <random>
  <vector> (and the utilities header's <cassert> <climits> <cfloat> <string> <complex> <queue> <type_traits>,
  <omp.h> / Kokkos' headers / the CUDA or HIP runtime); the prompt's last line gets NO_INLINE after its first word.
* validation: 2 tries (MAX_VALIDATION_ATTEMPTS) at TEST_SIZE = 1024 (square: GEMV 1024x1024, GEMM M=K=N=1024),
  inputs from rand() (never seeded) uniform in [-1, 1] (AXPY, GEMM; GEMM on the GPU [0, 1]) or [-10, 10] (GEMV);
  alpha = 2; the sequential baseline (AXPY loop; GEMV zeroing y[i] then accumulating; GEMM accumulating into a C
  zeroed before each try); compared element-wise by absolute difference, 1e-6 (AXPY) or 1e-4 (GEMV, GEMM). The
  output vector of AXPY and GEMV is zero-initialised once and reused by the second try; GEMM's C is zeroed per try.
* GPU launch: AXPY and GEMV 1024-thread blocks, ceil(n/1024) of them (n = N, resp. M); GEMM 32x32 blocks on a
  ceil(M/32) x ceil(N/32) grid.
* runs: omp at 1, 2, 4, 8, 16, 32, 64 threads (omp_set_num_threads), kokkos at 1..32 (--kokkos-num-threads), one
  run for cuda/hip; each run first calls the function at the benchmark size (AXPY 2^18, GEMV 2048x2048, GEMM
  1024x512x1024; ParEval calls it 50 times for timing, once here: only a crash or hang there changes a verdict),
  then validates, and prints "Validation: PASS|FAIL". Run timeout 180 s.
* verdict: does_not_build (compile fails) / does_not_run (a run exits non-zero or times out) / invalid (a run
  prints FAIL, or, for omp, the output lacks "#pragma omp") / valid (every run PASSes).

Compilers: g++ -std=c++17 -O3 -fopenmp (omp; kokkos adds hpceval's Kokkos 3.4.01 OpenMP build, where ParEval used
Kokkos 4 through CMake), nvcc -std=c++17 -O3 for the device's arch (cuda; ParEval: sm_80), and for hip the same
nvcc through hpceval's HIP-on-CUDA header (ParEval: hipcc on AMD GPUs).

    python3 bench/pareval_peer.py --out runs/pareval/peer --models omp,kokkos --per 20 [--per-kokkos 5]
    python3 bench/pareval_peer.py --replay .gpu-carry/pareval --out $OUT/peer --models cuda,hip --jobs 16  (GPU)
    python3 bench/pareval_peer.py --out DIR --models cuda,hip --build-only         (sources + nvcc verdicts here)

Writes DIR/peer_verdicts.csv (one row per output) and DIR/src/<sha>/ (the generated sources); results are cached by
program in DIR/cache.json, so a rerun resumes.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import hashlib
import json
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout, or ../../shared from a git worktree one folder deeper
CORPUS = next((p / "shared" / "corpus" / "pareval-sample" for p in (ROOT.parent, ROOT.parent.parent)
               if (p / "shared" / "corpus" / "pareval-sample").is_dir()), ROOT.parent / "shared" / "corpus" / "pareval-sample")
PROBLEMS = ("03_dense_la_axpy", "04_dense_la_gemv", "02_dense_la_gemm")
THREADS = {"omp": (1, 2, 4, 8, 16, 32, 64), "kokkos": (1, 2, 4, 8, 16, 32), "cuda": (0,), "hip": (0,)}
RUN_TIMEOUT_S = 180
GEMM_N = 1024  # --gemm-size
BENCH_ONCE = False  # the benchmark-size call in every run (the contract) or in the first only (--threads)
KOKKOS = Path(os.environ.get("HPCEVAL_CACHE", Path.home() / ".cache" / "hpceval")) / "kokkos-3.4.01-openmp-serial"
HIP_INCLUDE = ROOT / "harness" / "hpceval" / "toolchains" / "include"

PRELUDE = r"""// peer driver (bench/pareval_peer.py): the names ParEval's driver makes visible to the generated code
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>
#include <cassert>
#include <climits>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <complex>
#include <queue>
#include <type_traits>
#if defined(PEER_OMP)
#include <omp.h>
#elif defined(PEER_KOKKOS)
#include <Kokkos_Core.hpp>
#if __has_include(<Kokkos_Sort.hpp>)
#include <Kokkos_Sort.hpp>
#endif
#if __has_include(<Kokkos_Complex.hpp>)
#include <Kokkos_Complex.hpp>
#endif
#if __has_include(<Kokkos_Random.hpp>)
#include <Kokkos_Random.hpp>
#endif
#if __has_include(<Kokkos_StdAlgorithms.hpp>)
#include <Kokkos_StdAlgorithms.hpp>
#endif
#elif defined(PEER_HIP)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
#if defined(PEER_HIP)
#define PEER_MALLOC(p, n) hipMalloc(&(p), (n))
#define PEER_TO_DEV(d, h, n) hipMemcpy((d), (h), (n), hipMemcpyHostToDevice)
#define PEER_TO_HOST(h, d, n) hipMemcpy((h), (d), (n), hipMemcpyDeviceToHost)
#define PEER_SYNC() hipDeviceSynchronize()
#define PEER_FREE(p) hipFree(p)
#define GRID_STRIDE_LOOP(i, n) for (int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x; i < (n); i += hipBlockDim_x * hipGridDim_x)
#elif defined(PEER_CUDA)
#define PEER_MALLOC(p, n) cudaMalloc(&(p), (n))
#define PEER_TO_DEV(d, h, n) cudaMemcpy((d), (h), (n), cudaMemcpyHostToDevice)
#define PEER_TO_HOST(h, d, n) cudaMemcpy((h), (d), (n), cudaMemcpyDeviceToHost)
#define PEER_SYNC() cudaDeviceSynchronize()
#define PEER_FREE(p) cudaFree(p)
#define GRID_STRIDE_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#endif
#if !defined(PEER_GEMM_N)
#define PEER_GEMM_N 1024  // the contract's TEST_SIZE (and the benchmark's M; K = M/2, N = M)
#endif
#define NO_OPTIMIZE __attribute__((optimize("O0")))
#define NO_INLINE __attribute__((noinline)) __attribute__((optimize("O3")))

// uniform values from rand(), never seeded, as the contract draws them
static void peer_uniform(std::vector<double> &v, double lo, double hi) {
    for (double &e : v) e = (rand() / (double)RAND_MAX) * (hi - lo) + lo;
}
// every element within eps (absolute), the contract's comparison
static bool peer_close(std::vector<double> const &want, std::vector<double> const &got, double eps) {
    for (size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(want[i] - got[i]) <= eps)) return false;
    return true;
}
static void peer_axpy(double a, std::vector<double> const &x, std::vector<double> const &y, std::vector<double> &z) {
    for (size_t i = 0; i < x.size(); ++i) z[i] = a * x[i] + y[i];
}
static void peer_gemv(std::vector<double> const &A, std::vector<double> const &x, std::vector<double> &y, size_t M, size_t N) {
    for (size_t r = 0; r < M; ++r) {
        double s = 0;
        for (size_t c = 0; c < N; ++c) s += A[r * N + c] * x[c];
        y[r] = s;
    }
}
static void peer_gemm(std::vector<double> const &A, std::vector<double> const &B, std::vector<double> &C, size_t M, size_t K, size_t N) {
    for (size_t r = 0; r < M; ++r)
        for (size_t k = 0; k < K; ++k)
            for (size_t c = 0; c < N; ++c) C[r * N + c] += A[r * K + k] * B[k * N + c];
}
"""

# the part after the generated code: bench(n...) calls the function once at the benchmark size, check() validates;
# {call} is how each family hands its arrays to the LLM's function
CPU_BODY = {
    "03_dense_la_axpy": r"""
static void bench() {
    std::vector<double> x(1 << 18), y(1 << 18), z(1 << 18);
    peer_uniform(x, -1, 1); peer_uniform(y, -1, 1);
    axpy(2.0, x, y, z);
}
static bool check() {
    const size_t n = 1024;
    std::vector<double> x(n), y(n), want(n), got(n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(x, -1, 1); peer_uniform(y, -1, 1);
        peer_axpy(2.0, x, y, want);
        axpy(2.0, x, y, got);
        if (!peer_close(want, got, 1e-6)) return false;
    }
    return true;
}
""",
    "04_dense_la_gemv": r"""
static void bench() {
    const size_t M = 2048, N = 2048;
    std::vector<double> A(M * N), x(N), y(M);
    peer_uniform(A, -10, 10); peer_uniform(x, -10, 10);
    gemv(A, x, y, M, N);
}
static bool check() {
    const size_t n = 1024;
    std::vector<double> A(n * n), x(n), want(n), got(n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(A, -10, 10); peer_uniform(x, -10, 10);
        peer_gemv(A, x, want, n, n);
        gemv(A, x, got, n, n);
        if (!peer_close(want, got, 1e-4)) return false;
    }
    return true;
}
""",
    "02_dense_la_gemm": r"""
static void bench() {
    const size_t M = PEER_GEMM_N, K = PEER_GEMM_N / 2, N = PEER_GEMM_N;
    std::vector<double> A(M * K), B(K * N), C(M * N, 0.0);
    peer_uniform(A, -1, 1); peer_uniform(B, -1, 1);
    gemm(A, B, C, M, K, N);
}
static bool check() {
    const size_t n = PEER_GEMM_N;
    std::vector<double> A(n * n), B(n * n), want(n * n), got(n * n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(A, -1, 1); peer_uniform(B, -1, 1);
        std::fill(want.begin(), want.end(), 0.0); std::fill(got.begin(), got.end(), 0.0);
        peer_gemm(A, B, want, n, n, n);
        gemm(A, B, got, n, n, n);
        if (!peer_close(want, got, 1e-4)) return false;
    }
    return true;
}
""",
}

KOKKOS_BODY = {
    "03_dense_la_axpy": r"""
using V1 = Kokkos::View<double*>;
using C1 = Kokkos::View<const double*>;
static void to_view(std::vector<double> const &h, V1 v) { for (size_t i = 0; i < h.size(); ++i) v(i) = h[i]; }
static void bench() {
    const size_t n = 1 << 18;
    std::vector<double> xh(n), yh(n);
    peer_uniform(xh, -1, 1); peer_uniform(yh, -1, 1);
    V1 x("x", n), y("y", n), z("z", n);
    to_view(xh, x); to_view(yh, y);
    C1 xc = x, yc = y;
    axpy(2.0, xc, yc, z);
    Kokkos::fence();
}
static bool check() {
    const size_t n = 1024;
    std::vector<double> xh(n), yh(n), want(n), got(n);
    V1 x("x", n), y("y", n), z("z", n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(xh, -1, 1); peer_uniform(yh, -1, 1);
        to_view(xh, x); to_view(yh, y);
        C1 xc = x, yc = y;
        peer_axpy(2.0, xh, yh, want);
        axpy(2.0, xc, yc, z);
        Kokkos::fence();
        for (size_t i = 0; i < n; ++i) got[i] = z(i);
        if (!peer_close(want, got, 1e-6)) return false;
    }
    return true;
}
""",
    "04_dense_la_gemv": r"""
using V1 = Kokkos::View<double*>;
using V2 = Kokkos::View<double**>;
static void fill(V2 A, V1 x, std::vector<double> const &Ah, std::vector<double> const &xh) {
    for (size_t i = 0; i < A.extent(0); ++i)
        for (size_t j = 0; j < A.extent(1); ++j) A(i, j) = Ah[i * A.extent(1) + j];
    for (size_t j = 0; j < xh.size(); ++j) x(j) = xh[j];
}
static void bench() {
    const size_t M = 2048, N = 2048;
    std::vector<double> Ah(M * N), xh(N);
    peer_uniform(Ah, -10, 10); peer_uniform(xh, -10, 10);
    V2 A("A", M, N); V1 x("x", N), y("y", M);
    fill(A, x, Ah, xh);
    Kokkos::View<const double**> Ac = A; Kokkos::View<const double*> xc = x;
    gemv(Ac, xc, y, M, N);
    Kokkos::fence();
}
static bool check() {
    const size_t n = 1024;
    std::vector<double> Ah(n * n), xh(n), want(n), got(n);
    V2 A("A", n, n); V1 x("x", n), y("y", n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(Ah, -10, 10); peer_uniform(xh, -10, 10);
        fill(A, x, Ah, xh);
        peer_gemv(Ah, xh, want, n, n);
        Kokkos::View<const double**> Ac = A; Kokkos::View<const double*> xc = x;
        gemv(Ac, xc, y, n, n);
        Kokkos::fence();
        for (size_t i = 0; i < n; ++i) got[i] = y(i);
        if (!peer_close(want, got, 1e-4)) return false;
    }
    return true;
}
""",
    "02_dense_la_gemm": r"""
using V2 = Kokkos::View<double**>;
static void to_view(std::vector<double> const &h, V2 v) {
    for (size_t i = 0; i < v.extent(0); ++i)
        for (size_t j = 0; j < v.extent(1); ++j) v(i, j) = h[i * v.extent(1) + j];
}
static void bench() {
    const size_t M = PEER_GEMM_N, K = PEER_GEMM_N / 2, N = PEER_GEMM_N;
    std::vector<double> Ah(M * K), Bh(K * N), Ch(M * N, 0.0);
    peer_uniform(Ah, -1, 1); peer_uniform(Bh, -1, 1);
    V2 A("A", M, K), B("B", K, N), C("C", M, N);
    to_view(Ah, A); to_view(Bh, B); to_view(Ch, C);
    Kokkos::View<const double**> Ac = A, Bc = B;
    gemm(Ac, Bc, C, M, K, N);
    Kokkos::fence();
}
static bool check() {
    const size_t n = PEER_GEMM_N;
    std::vector<double> Ah(n * n), Bh(n * n), zero(n * n, 0.0), want(n * n), got(n * n);
    V2 A("A", n, n), B("B", n, n), C("C", n, n);
    for (int t = 0; t < 2; ++t) {
        peer_uniform(Ah, -1, 1); peer_uniform(Bh, -1, 1);
        std::fill(want.begin(), want.end(), 0.0);
        to_view(Ah, A); to_view(Bh, B); to_view(zero, C);
        Kokkos::View<const double**> Ac = A, Bc = B;
        peer_gemm(Ah, Bh, want, n, n, n);
        gemm(Ac, Bc, C, n, n, n);
        Kokkos::fence();
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) got[i * n + j] = C(i, j);
        if (!peer_close(want, got, 1e-4)) return false;
    }
    return true;
}
""",
}

GPU_BODY = {
    "03_dense_la_axpy": r"""
static bool run_axpy(size_t n, bool compare) {
    std::vector<double> xh(n), yh(n), want(n), got(n);
    double *x, *y, *z;
    PEER_MALLOC(x, n * sizeof(double)); PEER_MALLOC(y, n * sizeof(double)); PEER_MALLOC(z, n * sizeof(double));
    bool ok = true;
    for (int t = 0; t < (compare ? 2 : 1) && ok; ++t) {
        peer_uniform(xh, -1, 1); peer_uniform(yh, -1, 1);
        PEER_TO_DEV(x, xh.data(), n * sizeof(double)); PEER_TO_DEV(y, yh.data(), n * sizeof(double));
        peer_axpy(2.0, xh, yh, want);
        axpy<<<dim3((n + 1023) / 1024), dim3(1024)>>>(2.0, x, y, z, n);
        PEER_SYNC();
        PEER_TO_HOST(got.data(), z, n * sizeof(double));
        ok = !compare || peer_close(want, got, 1e-6);
    }
    PEER_FREE(x); PEER_FREE(y); PEER_FREE(z);
    return ok;
}
static void bench() { run_axpy(1 << 18, false); }
static bool check() { return run_axpy(1024, true); }
""",
    "04_dense_la_gemv": r"""
static bool run_gemv(size_t M, size_t N, bool compare) {
    std::vector<double> Ah(M * N), xh(N), want(M), got(M);
    double *A, *x, *y;
    PEER_MALLOC(A, M * N * sizeof(double)); PEER_MALLOC(x, N * sizeof(double)); PEER_MALLOC(y, M * sizeof(double));
    bool ok = true;
    for (int t = 0; t < (compare ? 2 : 1) && ok; ++t) {
        peer_uniform(Ah, -10, 10); peer_uniform(xh, -10, 10);
        PEER_TO_DEV(A, Ah.data(), M * N * sizeof(double)); PEER_TO_DEV(x, xh.data(), N * sizeof(double));
        peer_gemv(Ah, xh, want, M, N);
        gemv<<<dim3((M + 1023) / 1024), dim3(1024)>>>(A, x, y, M, N);
        PEER_SYNC();
        PEER_TO_HOST(got.data(), y, M * sizeof(double));
        ok = !compare || peer_close(want, got, 1e-4);
    }
    PEER_FREE(A); PEER_FREE(x); PEER_FREE(y);
    return ok;
}
static void bench() { run_gemv(2048, 2048, false); }
static bool check() { return run_gemv(1024, 1024, true); }
""",
    "02_dense_la_gemm": r"""
static bool run_gemm(size_t M, size_t K, size_t N, bool compare, double lo) {
    std::vector<double> Ah(M * K), Bh(K * N), want(M * N), got(M * N);
    double *A, *B, *C;
    PEER_MALLOC(A, M * K * sizeof(double)); PEER_MALLOC(B, K * N * sizeof(double)); PEER_MALLOC(C, M * N * sizeof(double));
    bool ok = true;
    for (int t = 0; t < (compare ? 2 : 1) && ok; ++t) {
        peer_uniform(Ah, lo, 1); peer_uniform(Bh, lo, 1);
        std::fill(want.begin(), want.end(), 0.0);
        PEER_TO_DEV(A, Ah.data(), M * K * sizeof(double)); PEER_TO_DEV(B, Bh.data(), K * N * sizeof(double));
        PEER_TO_DEV(C, want.data(), M * N * sizeof(double));
        peer_gemm(Ah, Bh, want, M, K, N);
        gemm<<<dim3((M + 31) / 32, (N + 31) / 32), dim3(32, 32)>>>(A, B, C, M, K, N);
        PEER_SYNC();
        PEER_TO_HOST(got.data(), C, M * N * sizeof(double));
        ok = !compare || peer_close(want, got, 1e-4);
    }
    PEER_FREE(A); PEER_FREE(B); PEER_FREE(C);
    return ok;
}
static void bench() { run_gemm(PEER_GEMM_N, PEER_GEMM_N / 2, PEER_GEMM_N, false, -1); }
static bool check() { return run_gemm(PEER_GEMM_N, PEER_GEMM_N, PEER_GEMM_N, true, 0); }
""",
}

MAIN = {
    "omp": r"""
int main(int argc, char **argv) {
    omp_set_num_threads(argc > 1 ? atoi(argv[1]) : 1);
    if (!getenv("PEER_NO_BENCH")) bench();
    printf("Validation: %s\n", check() ? "PASS" : "FAIL");
    return 0;
}
""",
    "kokkos": r"""
int main(int argc, char **argv) {
    Kokkos::initialize(argc, argv);
    bool ok;
    { if (!getenv("PEER_NO_BENCH")) bench(); ok = check(); }
    printf("Validation: %s\n", ok ? "PASS" : "FAIL");
    Kokkos::finalize();
    return 0;
}
""",
    "gpu": r"""
int main() {
    bench();
    printf("Validation: %s\n", check() ? "PASS" : "FAIL");
    return 0;
}
""",
}


def family(model: str) -> str:
    return {"omp": "omp", "kokkos": "kokkos"}.get(model, "gpu")


def patch_prompt(prompt: str) -> str:
    """The contract's one edit of the prompt: NO_INLINE after the first word of its last line (the signature)."""
    head, _, last = prompt.rpartition("\n")
    words = last.split(" ")
    words.insert(1, "NO_INLINE")
    return (head + "\n" if head else "") + " ".join(words)


def driver_source(problem: str, model: str) -> str:
    fam = family(model)
    body = {"omp": CPU_BODY, "kokkos": KOKKOS_BODY, "gpu": GPU_BODY}[fam][problem]
    macro = {"omp": "PEER_OMP", "kokkos": "PEER_KOKKOS", "cuda": "PEER_CUDA", "hip": "PEER_HIP"}[model]
    return f"#define {macro} 1\n" + PRELUDE + '#include "generated-code.hpp"\n' + body + MAIN[fam]


@dataclass(frozen=True)
class Job:
    file: str
    problem: str
    model: str
    sample: int
    prompt: str
    output: str

    @property
    def code(self) -> str:
        return patch_prompt(self.prompt) + "\n" + self.output

    @property
    def sha(self) -> str:
        """The program's key: its text, and GEMM's validation size where --gemm-size changed it."""
        key = hashlib.sha256(f"{self.problem}\0{self.model}\0{self.code}".encode()).hexdigest()[:16]
        return key + (f"-n{GEMM_N}" if self.problem == "02_dense_la_gemm" and GEMM_N != 1024 else "")


def nvcc() -> str:
    """nvcc on PATH, else the usual toolkit places (a GPU machine's shell may not have it on PATH)."""
    return shutil.which("nvcc") or next((c for c in ("/usr/local/cuda/bin/nvcc", "/opt/cuda/bin/nvcc")
                                         if os.access(c, os.X_OK)), "nvcc")


def nvcc_arch() -> str:
    try:
        cap = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout.split()[0]
        return "sm_" + cap.replace(".", "")
    except (OSError, IndexError, subprocess.SubprocessError):
        return "sm_80"


def compile_cmd(model: str, arch: str) -> list[str]:
    size = [f"-DPEER_GEMM_N={GEMM_N}"]
    if model == "omp":
        return ["g++", "-std=c++17", "-O3", "-fopenmp", *size, "-I.", "driver.cc", "-o", "a.out"]
    if model == "kokkos":
        return ["g++", "-std=c++17", "-O3", "-fopenmp", *size, "-I.", f"-I{KOKKOS / 'include'}", "driver.cc",
                str(KOKKOS / "lib" / "libkokkoscore.a"), "-ldl", "-o", "a.out"]
    extra = [f"-I{HIP_INCLUDE}"] if model == "hip" else []
    return [nvcc(), "-std=c++17", "-O3", f"-arch={arch}", *size, *extra, "-I.", "-x", "cu", "driver.cc", "-o",
            "a.out"]


def grade(job: Job, src_root: Path, arch: str, build_only: bool) -> dict[str, str]:
    """Build and run one program as the contract does; the verdict and a one-line detail."""
    work = src_root / job.sha
    work.mkdir(parents=True, exist_ok=True)
    (work / "generated-code.hpp").write_text(job.code)
    (work / "driver.cc").write_text(driver_source(job.problem, job.model))
    try:
        b = subprocess.run(compile_cmd(job.model, arch), cwd=work, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"verdict": "does_not_build", "detail": "compile timeout"}
    if b.returncode != 0:
        first = next((ln for ln in b.stderr.splitlines() if "error" in ln), b.stderr.strip()[:200])
        return {"verdict": "does_not_build", "detail": first.replace(str(work) + "/", "")[:300]}
    if build_only:
        return {"verdict": "built", "detail": ""}
    env = dict(os.environ, OMP_PROC_BIND="false")
    for i, n in enumerate(THREADS[job.model]):
        args = ["./a.out"] + ([str(n)] if job.model == "omp" else [f"--kokkos-num-threads={n}"] if n else [])
        run_env = env | ({"PEER_NO_BENCH": "1"} if BENCH_ONCE and i else {})
        try:
            r = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=run_env)
        except subprocess.TimeoutExpired:
            return {"verdict": "does_not_run", "detail": f"timeout at {n} threads"}
        if r.returncode != 0:
            return {"verdict": "does_not_run", "detail": f"exit {r.returncode} at {n} threads"}
        if "Validation: PASS" not in r.stdout:
            return {"verdict": "invalid", "detail": f"FAIL at {n} threads"}
    if job.model == "omp" and "#pragma omp" not in job.output:
        return {"verdict": "invalid", "detail": "output has no #pragma omp"}
    return {"verdict": "valid", "detail": ""}


def jobs_from(corpus: Path, models: set[str], per: dict[str, int]) -> list[Job]:
    out = []
    for path in sorted(corpus.glob("output_*.json")):
        for p in json.loads(path.read_text()):
            if p["name"] in PROBLEMS and p["parallelism_model"] in models:
                for i, o in enumerate(p["outputs"][: per[p["parallelism_model"]]]):
                    out.append(Job(path.name, p["name"], p["parallelism_model"], i, p["prompt"], o))
    return out


def jobs_from_replay(folder: Path, models: set[str], per: dict[str, int]) -> list[Job]:
    """The same outputs from hpceval's replay files (on a machine without the corpus): each record's text is
    ParEval's prompt + output verbatim, and its metadata names the ParEval file, problem, model and sample."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.open():
            record = json.loads(line)
            m = record["meta"] | {"text": record["text"]}
            model, prompt = m.get("pareval_model"), m.get("pareval_prompt", "")
            if m.get("pareval_problem") in PROBLEMS and model in models and m["sample"] < per[model]:
                assert m["text"].startswith(prompt), f"{path}: a record whose text does not start with its prompt"
                out.append(Job(m["file"], m["pareval_problem"], model, m["sample"], prompt, m["text"][len(prompt):]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--replay", type=Path, help="read hpceval's replay files (FOLDER/*.jsonl) instead of --corpus")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--models", default="omp,kokkos")
    ap.add_argument("--per", type=int, default=20, help="outputs per prompt (first N samples)")
    ap.add_argument("--per-kokkos", type=int, default=None, help="outputs per Kokkos prompt (default --per)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--threads", default=None,
                    help="thread counts for omp and kokkos instead of the contract's 1..64 / 1..32 (a 2-core machine: "
                         "1,2,8; say so where you report); the benchmark-size call then runs in the first run only")
    ap.add_argument("--build-only", action="store_true", help="compile only (GPU sources on a machine without one)")
    ap.add_argument("--gemm-size", type=int, default=1024,
                    help="GEMM's validation size (the contract: 1024; smaller on a small machine, say so)")
    ap.add_argument("--report-only", action="store_true", help="grade nothing: write the CSV from the cache")
    args = ap.parse_args()
    models = set(args.models.split(","))
    global GEMM_N, BENCH_ONCE  # noqa: PLW0603
    GEMM_N = args.gemm_size
    if args.threads:
        THREADS["omp"] = THREADS["kokkos"] = tuple(int(n) for n in args.threads.split(","))
        BENCH_ONCE = True
    per = {m: args.per for m in THREADS} | {"kokkos": args.per_kokkos or args.per}
    todo = jobs_from_replay(args.replay, models, per) if args.replay else jobs_from(args.corpus, models, per)
    args.out.mkdir(parents=True, exist_ok=True)
    cache_path = args.out / ("cache-build.json" if args.build_only else "cache.json")
    cache: dict[str, dict[str, str]] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    lock = threading.Lock()
    arch = nvcc_arch() if models & {"cuda", "hip"} and shutil.which("nvidia-smi") else "sm_80"
    distinct = {} if args.report_only else {j.sha: j for j in todo if j.sha not in cache}
    print(f"{len(todo)} outputs, {len(distinct)} distinct programs to grade")

    def one(job: Job) -> None:
        res = grade(job, args.out / "src", arch, args.build_only)
        with lock:
            cache[job.sha] = res
            cache_path.write_text(json.dumps(cache, indent=0))
            print(f"{len(cache)} {job.problem} {job.model} {job.file[:30]} #{job.sample}: {res['verdict']} {res['detail']}",
                  flush=True)

    with cf.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(one, distinct.values()))
    name = "peer_build.csv" if args.build_only else "peer_verdicts.csv"
    with (args.out / name).open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "problem", "model", "sample", "sha", "verdict", "detail"])
        for j in (j for j in todo if j.sha in cache):
            w.writerow([j.file, j.problem, j.model, j.sample, j.sha, cache[j.sha]["verdict"], cache[j.sha]["detail"]])
    print(f"wrote {args.out / name}")


if __name__ == "__main__":
    main()
