"""python-triton: @triton.jit kernels from NumPy arguments, on an NVIDIA GPU or in Triton's interpreter.

* without a GPU and without the interpreter (no torch, or HPCEVAL_TRITON_INTERPRET=0) every job is infra_error,
  never a verdict on the suggestion;
* with torch (CPU) and triton installed and no GPU, the six references pass under TRITON_INTERPRET=1 at reduced
  sizes, marked as such (no timing, no kernel-ran check); CI installs neither (2 GB), so these skip there;
* with a GPU the six references pass with the CUPTI kernel-ran check (bench/gpu_selftest.sh runs the mutants).
"""

from __future__ import annotations

import importlib.util

import pytest

from hpceval.contracts import Verdict
from hpceval.toolchains import python_triton
from hpceval.toolchains.cuda import nvidia_gpu

KERNELS = ["axpy", "gemv", "gemm", "spmv", "jacobi", "cg"]
HAVE_TRITON = all(importlib.util.find_spec(m) is not None for m in ("triton", "torch"))


@pytest.fixture
def fresh_detect(monkeypatch):
    detect = python_triton.PythonTriton.detect.__wrapped__.__get__(python_triton.TOOLCHAIN)
    monkeypatch.setattr(python_triton.TOOLCHAIN, "detect", detect)


def _reference(catalog, kernel):
    spec, model = catalog.kernels[kernel], catalog.models["python-triton"]
    return spec, model, spec.solution_path(model, catalog).read_text()


@pytest.mark.skipif(nvidia_gpu() is not None, reason="a GPU is present: this checks the no-GPU path")
def test_without_gpu_or_interpreter_is_infra_error(catalog, evaluator, monkeypatch, fresh_detect):
    monkeypatch.setenv("HPCEVAL_TRITON_INTERPRET", "0")
    spec, model, code = _reference(catalog, "axpy")
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.infra_error, evaluation.evidence
    assert "needs a GPU" in evaluation.evidence or "pip install triton" in evaluation.evidence


def test_catalog_and_prompts(catalog):
    model = catalog.models["python-triton"]
    assert model.toolchain == "python_triton" and model.words == "Triton"
    for kernel in KERNELS:
        assert "@triton.jit" in _reference(catalog, kernel)[2]


@pytest.mark.skipif(not HAVE_TRITON or nvidia_gpu() is not None, reason="needs torch + triton and no GPU")
@pytest.mark.parametrize("kernel", KERNELS)
def test_references_pass_in_the_interpreter(catalog, evaluator, kernel):
    spec, model, code = _reference(catalog, kernel)
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.correct, evaluation.evidence
    assert "Triton's interpreter" in evaluation.evidence


@pytest.mark.skipif(not HAVE_TRITON or nvidia_gpu() is None, reason="needs an NVIDIA GPU with torch + triton")
@pytest.mark.parametrize("kernel", KERNELS)
def test_references_pass_on_the_gpu(catalog, evaluator, kernel):
    spec, model, code = _reference(catalog, kernel)
    evaluation = evaluator.evaluate(code, spec, model)
    assert evaluation.verdict == Verdict.correct, evaluation.evidence
    assert "GPU kernels ran" in evaluation.evidence
