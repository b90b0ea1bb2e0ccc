"""GPU programming models on a machine without a GPU (CI), and the machinery they share.

* every CUDA, Thrust, HIP (HIP-on-CUDA header) and Kokkos-CUDA reference builds with nvcc through the sandbox;
* Kokkos OpenMP references pass (Kokkos 3.4.01 built once into $HPCEVAL_CACHE from the pykokkos-base sdist);
* numba.cuda references (solutions/python-numba.cuda.py) pass under Numba's CUDA simulator;
* without a GPU, GPU models are infra_error ("builds here but cannot run"), never a verdict on the suggestion;
* the GPU probe's records are parsed and split into calls; the CUPTI probe library and the Kokkos tool build.
The real-GPU run is bench/gpu_selftest.sh (results/gpu-*/).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hpceval.contracts import Verdict
from hpceval.executors.local import LocalExecutor
from hpceval.toolchains import SecondRun, get_toolchain
from hpceval.toolchains.cuda import (
    MEMCHECK_EXIT,
    PROBE_FILE,
    CudaToolchain,
    ProbeData,
    build_only,
    memcheck_argv,
    memcheck_problem,
    memcheck_run,
    nvcc_path,
    nvidia_gpu,
    probe_library,
    probe_verdict,
    read_probe,
    split_calls,
)
from hpceval.toolchains.kokkos import Kokkos, read_tool, tool_library

KERNELS = ["axpy", "gemv", "gemm", "spmv", "jacobi", "cg"]
NVCC_MODELS = ["cpp-cuda", "cpp-thrust", "cpp-hip", "cpp-kokkos"]
# What CI builds with nvcc (2 cores, each build ~13 s): every CUDA reference, and for the other nvcc models the
# simplest and the most involved kernel. The GPU self-test (bench/gpu_selftest.sh) builds and runs all of them.
CI_BUILDS = {(m, k) for m in NVCC_MODELS for k in KERNELS if m == "cpp-cuda" or k in ("axpy", "cg")}
needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason="nvcc not installed")
no_gpu = pytest.mark.skipif(nvidia_gpu() is not None, reason="a GPU is present: these check the no-GPU paths")


def _reference(catalog, kernel: str, model: str, variant: str = "") -> tuple:
    spec = catalog.kernels[kernel]
    m = catalog.models[model]
    path = spec.solution_path(m, catalog)
    if variant:
        path = path.with_name(f"{m.id}.{variant}.{catalog.languages[m.language].extension}")
    if not path.is_file():
        pytest.skip(f"no reference {path.name} for {kernel}")
    return spec, m, path.read_text()


# ---------------------------------------------------------------------------------------------- nvcc builds


@pytest.fixture(scope="module")
def nvcc_builds(catalog):
    """Every reference of the nvcc models built through the sandbox, two at a time (Kokkos CUDA built first)."""
    executor = LocalExecutor()
    kokkos_cuda = Kokkos("cuda")
    kokkos_cuda.prefix()
    todo = [(k, m) for k in KERNELS for m in NVCC_MODELS if k in catalog.kernels and (m, k) in CI_BUILDS
            and catalog.kernels[k].solution_path(catalog.models[m], catalog).is_file()]

    def one(item):
        kernel, model = item
        spec, m = catalog.kernels[kernel], catalog.models[model]
        toolchain = kokkos_cuda if model == "cpp-kokkos" else None
        return item, build_only(spec.solution_path(m, catalog).read_text(), spec, m, executor, toolchain=toolchain)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, todo))


@needs_nvcc
@pytest.mark.parametrize("model,kernel", sorted(CI_BUILDS))
def test_reference_builds_with_nvcc(nvcc_builds, catalog, kernel, model):
    _reference(catalog, kernel, model)
    result = nvcc_builds[(kernel, model)]
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-2000:]


@needs_nvcc
def test_build_error_is_reported(catalog):
    spec, model, code = _reference(catalog, "axpy", "cpp-cuda")
    result = build_only(code.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + undefined_name;"), spec, model,
                        LocalExecutor())
    assert result.returncode != 0 and "undefined_name" in (result.stderr + result.stdout)


@needs_nvcc
def test_nvcc_arch_and_hip_header():
    cuda = CudaToolchain()
    flags = cuda.nvcc_flags()
    assert any(f.startswith("-arch=sm_") for f in flags)
    include = next(f[2:] for f in flags if f.startswith("-I"))
    assert (Path(include) / "hip" / "hip_runtime.h").is_file()


# ---------------------------------------------------------------------------------------------- CPU routes


@pytest.mark.parametrize("kernel", KERNELS)
def test_kokkos_openmp_reference_passes(catalog, evaluator, kernel, monkeypatch):
    if nvidia_gpu() is not None:
        pytest.skip("the Kokkos toolchain uses its CUDA backend on this machine")
    spec, model, code = _reference(catalog, kernel, "cpp-kokkos")
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.correct, evaluation.evidence
    assert "Kokkos parallel dispatches (" in evaluation.evidence and "openmp backend" in evaluation.evidence


@pytest.mark.parametrize("kernel", KERNELS)
def test_numba_cuda_reference_passes_under_the_simulator(catalog, evaluator, kernel):
    if nvidia_gpu() is not None:
        pytest.skip("with a GPU numba.cuda runs on it")
    spec, model, code = _reference(catalog, kernel, "python-numba", variant="cuda")
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.correct, evaluation.evidence
    assert "CUDA simulator" in evaluation.evidence and "GPU kernels ran" in evaluation.evidence


def test_numba_cuda_that_never_launches_is_wrong_model(catalog, evaluator):
    """numba.cuda imported and a kernel defined, but the work done on the host: the dynamic check catches it."""
    if nvidia_gpu() is not None:
        pytest.skip("checked under the simulator")
    spec, model, _ = _reference(catalog, "axpy", "python-numba", variant="cuda")
    code = ("from numba import cuda\n\n\n@cuda.jit\ndef _k(n, a, x, y):\n    i = cuda.grid(1)\n    if i < n:\n"
            "        y[i] = a * x[i] + y[i]\n\n\ndef saxpy(n, a, x, y):\n    y[:n] = a * x[:n] + y[:n]\n")
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.wrong_model, evaluation.evidence
    # the static rule (checks/where_work_ran.py) names the host statement before the run's probe is read
    assert "no GPU kernel ran" in evaluation.evidence or "y is computed on the host" in evaluation.evidence


def test_numba_cpu_code_is_unchanged(catalog):
    spec, model, code = _reference(catalog, "axpy", "python-numba")
    assert get_toolchain("python").job_adjustments(spec, model, code) is None


# ---------------------------------------------------------------------------------------------- no GPU


@no_gpu
@needs_nvcc
@pytest.mark.parametrize("model", ["cpp-cuda", "cpp-thrust", "cpp-hip"])
def test_gpu_model_without_gpu_is_infra_error(catalog, evaluator, model):
    spec, m, code = _reference(catalog, "axpy", model)
    evaluation = evaluator.evaluate(code, spec, m)
    assert evaluation.verdict == Verdict.infra_error
    assert "cannot run" in evaluation.evidence and "no NVIDIA GPU" in evaluation.evidence


@no_gpu
@pytest.mark.parametrize("model", ["python-cupy", "python-pycuda"])
def test_python_gpu_model_without_gpu_or_package_is_infra_error(catalog, evaluator, model):
    spec, m, code = _reference(catalog, "axpy", model)
    evaluation = evaluator.evaluate(code, spec, m)
    assert evaluation.verdict == Verdict.infra_error, evaluation.evidence


# ---------------------------------------------------------------------------------------------- the probe


def test_probe_records_and_call_split(tmp_path):
    (tmp_path / PROBE_FILE).write_text(
        "hpceval-probe 1\nC 0 5 800 1\nK 10 20 _Z6kernelv\nS 21 22 100\nK 30 40 other kernel(int)\nC 50 60 800 2\n"
        "C 100 105 800 1\nK 110 130 _Z6kernelv\nK 140 150 other kernel(int)\nC 160 170 800 2\n")
    data = read_probe(tmp_path, remove=False)
    assert len(data.kernels) == 4 and len(data.copies) == 4
    assert split_calls(data) == pytest.approx([20e-9, 30e-9])
    problem, evidence = probe_verdict(data, 2)
    assert problem is None and "4 GPU kernels ran in 2 calls" in evidence


def test_probe_verdict_without_kernels():
    assert "never initialised CUDA" in probe_verdict(None, 3)[0]
    assert "no kernel was launched" in probe_verdict(ProbeData(), 3)[0]


def test_kernel_times_split_by_copies(tmp_path, monkeypatch):
    toolchain = CudaToolchain()
    monkeypatch.setattr(type(toolchain), "probe_active", lambda self, model, code="": True)
    (tmp_path / PROBE_FILE).write_text(
        "hpceval-probe 1\n" + "".join(f"C {100 * c} {100 * c + 1} 8 1\nK {100 * c + 10} {100 * c + 10 + c + 1} k\n"
                                      f"C {100 * c + 50} {100 * c + 51} 8 2\n" for c in range(4)))
    times, how = toolchain.kernel_times(tmp_path, None, calls=4, warmup=1)
    assert times == pytest.approx([2e-9, 3e-9, 4e-9]) and "copies" in how


@pytest.mark.skipif(nvcc_path() is None, reason="no CUDA toolkit")
def test_cupti_probe_library_builds():
    if not any(Path(d).glob("cupti.h") for d in ("/usr/local/cuda/include", "/usr/local/cuda/extras/CUPTI/include")):
        pytest.skip("CUPTI headers not in the toolkit")
    lib = probe_library()
    assert lib is not None and lib.is_file()


def test_kokkos_tool_builds_and_parses(tmp_path):
    assert tool_library() is not None
    (tmp_path / "kokkos_probe.txt").write_text("hpceval-kokkos-probe 1\nthreads 2\nD for 0 saxpy\nuser 1 internal 4\n")
    info = read_tool(tmp_path)
    assert info == {"threads": 2, "user": 1, "internal": 4, "names": ["saxpy"], "spaces": {"Serial": 1}}  # device id 0


def test_gpu_jobs_get_the_sandbox_they_need():
    from hpceval.toolchains.cuda import GPU_ADDRESS_SPACE_MB, gpu_adjust

    adjust = gpu_adjust()
    assert adjust.env["HPCEVAL_SANDBOX_GPU"] == "1" and adjust.address_space_mb == GPU_ADDRESS_SPACE_MB
    from hpceval.executors import Limits
    from hpceval.executors.local import _jail_argv

    argv = _jail_argv(Path("/tmp"), {"HPCEVAL_SANDBOX_GPU": "1", "A": "b"}, Limits(), False)
    assert "--proc_rw" in argv and not any("HPCEVAL_SANDBOX_GPU" in a for a in argv)
    assert "--proc_rw" not in _jail_argv(Path("/tmp"), {"A": "b"}, Limits(), False)


def test_env_cache_dir(monkeypatch, tmp_path):
    from hpceval.toolchains.cuda import cache_dir

    monkeypatch.setenv("HPCEVAL_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" and os.path.isdir(tmp_path / "c")


@pytest.mark.skipif(__import__("shutil").which("hipcc") is None, reason="hipcc not installed (apt-get install hipcc)")
@pytest.mark.parametrize("kernel", KERNELS)
def test_hip_reference_builds_for_amd_with_hipcc(catalog, kernel, monkeypatch):
    """The AMD route: Debian's hipcc compiles every HIP reference for gfx90a (nothing runs without an AMD GPU)."""
    from hpceval.toolchains.hip import Hip

    monkeypatch.setenv("HPCEVAL_HIP_PLATFORM", "amd")
    spec, model, code = _reference(catalog, kernel, "cpp-hip")
    result = build_only(code, spec, model, LocalExecutor(), toolchain=Hip())
    assert result.returncode == 0, (result.stderr or result.stdout)[-2000:]


# ---------------------------------------------------------------------------------------------- memcheck
SANITIZER_FINDING = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 8 bytes
=========     at gemv_kernel(int, int, const double *, const double *, double *)+0x1f0 in gemv.cu:22
=========     by thread (31,0,0) in block (0,0,0)
=========     Address 0x7f3a00000208 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f3a00000200 of size 8 bytes
========= ERROR SUMMARY: 1 error
"""


def test_memcheck_finding_is_parsed():
    problem = memcheck_problem(MEMCHECK_EXIT, SANITIZER_FINDING)
    assert problem.startswith("compute-sanitizer memcheck: Invalid __global__ read of size 8 bytes; at gemv_kernel")
    assert "is out of bounds" in problem
    assert memcheck_problem(0, "========= ERROR SUMMARY: 0 errors") is None
    assert memcheck_problem(1, SANITIZER_FINDING) is None  # the program's own failure is not a memcheck finding


def test_memcheck_run_drops_the_probe_and_wraps_the_command(monkeypatch, tmp_path):
    fake = tmp_path / "compute-sanitizer"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr("hpceval.toolchains.cuda.sanitizer", lambda: fake)
    run = memcheck_run(["./prog", "cases.txt"])
    assert run.argv[0] == str(fake) and run.argv[-2:] == ["./prog", "cases.txt"]
    assert "--error-exitcode" in run.argv and str(MEMCHECK_EXIT) in run.argv
    assert set(run.drop_env) == {"CUDA_INJECTION64_PATH", "HPCEVAL_PROBE_OUT"}
    monkeypatch.setenv("HPCEVAL_NO_MEMCHECK", "1")
    assert memcheck_argv(["./prog"]) is None and memcheck_run(["./prog"]) is None


@pytest.mark.parametrize(("script", "verdict", "evidence"), [
    # the real program under a pass-through "sanitizer": the verdict stands, with the note
    ('exec "$@"', Verdict.correct, "compute-sanitizer memcheck clean"),
    # a finding is a wrong result
    (f"cat <<'OUT'\n{SANITIZER_FINDING}OUT\nexit {MEMCHECK_EXIT}", Verdict.wrong_result,
     "memory check: compute-sanitizer memcheck: Invalid __global__ read"),
    # a sanitizer that cannot run says nothing against the kernel
    ("echo 'cannot start' >&2; exit 3", Verdict.correct, "memcheck inconclusive (exit 3)"),
])
def test_evaluator_acts_on_the_memcheck_run(catalog, evaluator, monkeypatch, tmp_path, script, verdict, evidence):
    """The evaluator's second run under the sanitizer, exercised with a stand-in sanitizer on a CPU model."""
    spec, model, code = _reference(catalog, "axpy", "cpp-openmp")
    toolchain = get_toolchain(model.toolchain)
    monkeypatch.setattr(type(toolchain), "second_run", lambda self, m, code="": SecondRun(
        "compute-sanitizer memcheck", ["sh", "-c", script, "sanitizer", *self.run_argv(m)], memcheck_problem),
        raising=False)
    result = evaluator.evaluate(code, spec, model)
    assert result.verdict == verdict, result.evidence
    assert evidence in result.evidence


def test_kokkos_cuda_jobs_get_the_gpu_sandbox(catalog, monkeypatch):
    """Kokkos' CUDA backend on a GPU runs in the sandbox a CUDA job needs (its own job adjustments, for code that
    names the CUDA spaces, must not drop it: Kokkos::initialize then failed with cudaErrorOperatingSystem on every
    job); without a GPU, or on the OpenMP backend, nothing changes."""
    from hpceval.toolchains.cuda import GPU_ADDRESS_SPACE_MB

    model, spec = catalog.models["cpp-kokkos"], catalog.kernels["axpy"]
    cuda = Kokkos("cuda")
    monkeypatch.setattr(Kokkos, "runs_on_gpu", lambda self, m: True)
    for code in ("void f() {}", "Kokkos::View<float *, Kokkos::Cuda> x;"):
        adjust = cuda.job_adjustments(spec, model, code)
        assert adjust is not None and adjust.address_space_mb == GPU_ADDRESS_SPACE_MB, code
    monkeypatch.setattr(Kokkos, "runs_on_gpu", lambda self, m: False)
    assert cuda.job_adjustments(spec, model, "void f() {}") is None
    assert Kokkos("openmp").job_adjustments(spec, model, "void f() {}") is None
