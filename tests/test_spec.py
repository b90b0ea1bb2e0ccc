"""Kernel specs and the model catalog load, are complete, and reject broken input with a clear message."""

import numpy as np
import pytest

from hpceval.spec import SpecError, UnknownNameError, load_catalog, load_kernel

REQUIRED_MODELS = [
    "cpp-openmp", "cpp-openmp-offload", "cpp-openacc", "cpp-kokkos", "cpp-sycl", "cpp-cuda", "cpp-hip", "cpp-thrust",
    "fortran-openmp", "fortran-openmp-offload", "fortran-openacc", "python-numpy", "python-numba", "python-cupy",
    "python-pycuda", "python-triton", "julia-threads", "julia-cuda", "julia-amdgpu", "julia-kernelabstractions",
]
CPU_MODELS = ["cpp-openmp", "cpp-openmp-offload", "cpp-openacc", "fortran-openmp", "fortran-openmp-offload",
              "fortran-openacc", "python-numpy", "python-numba"]
KERNELS = ["axpy", "gemv", "gemm", "spmv", "jacobi", "cg"]


def test_catalog_has_every_model_and_kernel(catalog):
    assert list(catalog.models) == REQUIRED_MODELS
    assert list(catalog.kernels) == KERNELS


@pytest.mark.parametrize("kernel", KERNELS)
def test_reference_solutions_exist_for_cpu_models(catalog, kernel):
    spec = catalog.kernels[kernel]
    for model in CPU_MODELS:
        assert spec.solution_path(catalog.models[model], catalog).is_file(), (kernel, model)


@pytest.mark.parametrize("kernel", KERNELS)
def test_validation_sizes_include_awkward_ones(catalog, kernel):
    spec = catalog.kernels[kernel]
    sizes = spec.sizes.validation + [size for st in spec.structures for size in st.sizes]  # structures are validated too
    values = {v for size in sizes for v in size.values()}
    assert any(v <= 1 or v in (2, 3) for v in values), "a degenerate size"
    primes = [v for v in values if v > 3 and all(v % d for d in range(2, int(v**0.5) + 1))]
    assert primes, "a prime size"
    assert any(v % 4 for v in values if v > 4), "a size that is no multiple of 4"


@pytest.mark.parametrize("kernel", KERNELS)
def test_inputs_are_seeded_and_fresh(catalog, kernel):
    spec = catalog.kernels[kernel]
    size = spec.sizes.validation[-1]
    a = spec.make_inputs(size, np.random.default_rng(1))
    b = spec.make_inputs(size, np.random.default_rng(1))
    c = spec.make_inputs(size, np.random.default_rng(2))
    arrays = [p.name for p in spec.params if p.is_array and p.kind == "real" and p.intent != "out"]
    assert all(np.array_equal(a[n], b[n], equal_nan=True) for n in arrays)
    assert any(not np.array_equal(a[n], c[n], equal_nan=True) for n in arrays)


def test_bare_names_select_every_language(catalog):
    assert [m.id for m in catalog.select_models(["openmp"])] == ["cpp-openmp", "fortran-openmp"]
    assert [m.id for m in catalog.select_models(["cuda"])] == ["cpp-cuda", "julia-cuda"]
    assert [m.id for m in catalog.select_models(["openmp", "numba"], ["fortran"])] == ["fortran-openmp"]


def test_unknown_names_list_valid_ones(catalog):
    with pytest.raises(UnknownNameError, match="valid: .*cpp-openmp"):
        catalog.select_models(["opnemp"])
    with pytest.raises(UnknownNameError, match="valid: axpy"):
        catalog.select_kernels(["saxpyy"])


def test_broken_spec_names_file_and_field(tmp_path, catalog):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "spec.toml").write_text('id = "bad"\nname = "x"\n')
    with pytest.raises(SpecError, match=r"bad/spec.toml: .*function"):
        load_kernel(folder)
    (folder / "spec.toml").write_text("id = [unclosed")
    with pytest.raises(SpecError, match="spec.toml"):
        load_kernel(folder)


def test_models_toml_with_unknown_language(tmp_path):
    (tmp_path / "models.toml").write_text(
        '[languages.cpp]\nname="C++"\nextension="cpp"\nline_comment="//"\narray_order="C"\nindex_base=0\nfence="cpp"\n'
        '[models.x]\nlanguage="cobol"\nname="X"\nwords="X"\ntoolchain="gcc"\ndevice="cpu"\n')
    with pytest.raises(SpecError, match="unknown language 'cobol'"):
        load_catalog(tmp_path)
