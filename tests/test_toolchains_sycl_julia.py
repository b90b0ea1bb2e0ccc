"""SYCL and Julia: toolchain modules that find their compilers when installed; where absent, every job is
infra_error "toolchain unavailable: <toolchain>; <what to install>", never a verdict against the LLM.
Also the Julia driver renders, and `hpceval doctor` lists every programming model."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hpceval.bind import DriverHooks, canonical_binding, render_unit
from hpceval.cli import app
from hpceval.contracts import Verdict
from hpceval.toolchains import julia as julia_mod
from hpceval.toolchains import sycl as sycl_mod

KERNELS = ["axpy", "gemv", "gemm", "spmv", "jacobi", "cg"]
JULIA_MODELS = ["julia-threads", "julia-cuda", "julia-amdgpu", "julia-kernelabstractions"]


@pytest.fixture
def no_sycl(monkeypatch):
    """No SYCL compiler: a forced compiler command that does not exist, and fresh detection caches."""
    monkeypatch.setenv("HPCEVAL_SYCL_CXX", "hpceval-no-such-sycl-compiler")
    sycl_mod.sycl_compiler.cache_clear()
    monkeypatch.setattr(sycl_mod.TOOLCHAIN, "detect", sycl_mod.Sycl.detect.__wrapped__.__get__(sycl_mod.TOOLCHAIN))
    yield
    sycl_mod.sycl_compiler.cache_clear()


@pytest.fixture
def no_julia(monkeypatch):
    monkeypatch.setenv("HPCEVAL_JULIA", "/nonexistent/julia")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    julia_mod.julia_path.cache_clear()
    monkeypatch.setattr(julia_mod.TOOLCHAIN, "detect", julia_mod.Julia.detect.__wrapped__.__get__(julia_mod.TOOLCHAIN))
    yield
    julia_mod.julia_path.cache_clear()


@pytest.mark.parametrize("kernel", KERNELS)
def test_sycl_unavailable_is_infra_error(catalog, evaluator, no_sycl, kernel):
    spec, model = catalog.kernels[kernel], catalog.models["cpp-sycl"]
    path = spec.solution_path(model, catalog)
    assert path.is_file(), f"missing SYCL reference {path}"
    evaluation = evaluator.evaluate(path.read_text(), spec, model)
    assert evaluation.verdict == Verdict.infra_error
    assert evaluation.evidence.startswith("toolchain unavailable: sycl;") and "AdaptiveCpp" in evaluation.evidence


@pytest.mark.parametrize("model", JULIA_MODELS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_julia_unavailable_is_infra_error(catalog, evaluator, no_julia, kernel, model):
    spec, m = catalog.kernels[kernel], catalog.models[model]
    path = spec.solution_path(m, catalog)
    assert path.is_file(), f"missing Julia reference {path}"
    evaluation = evaluator.evaluate(path.read_text(), spec, m)
    assert evaluation.verdict == Verdict.infra_error
    assert evaluation.evidence.startswith("toolchain unavailable: julia;") and "install Julia" in evaluation.evidence


def test_sycl_probe_reports_a_broken_compiler(no_sycl):
    assert sycl_mod.sycl_compiler() is None
    info = sycl_mod.TOOLCHAIN.detect()
    assert not info.available and "hpceval-no-such-sycl-compiler" in info.how_to_get


@pytest.mark.parametrize("kernel", KERNELS)
def test_julia_driver_renders(catalog, kernel):
    spec, lang = catalog.kernels[kernel], catalog.languages["julia"]
    files = render_unit("function f() end", spec, lang, canonical_binding(spec, lang), DriverHooks())
    driver = files["driver.jl"]
    assert 'include("kernel.jl")' in driver and f"{spec.function}(" in driver
    for p in spec.params:
        assert p.name in driver


def test_doctor_lists_every_model(catalog):
    result = CliRunner().invoke(app, ["doctor", "--markdown"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| ") and not line.startswith("| model")]
    assert sorted(r.split("|")[1].strip() for r in rows) == sorted(catalog.models)
    assert "GPU devices:" in result.output
    assert "GPU memory checker:" in result.output
