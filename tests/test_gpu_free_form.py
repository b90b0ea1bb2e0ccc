"""Free-form GPU answers in every GPU model, written as unseen LLM output (tests/data/gpu_free_form: kernel, model,
expected verdict and a slug in each file name): right but unusual (a kernel launched only from the file's main with
32x8 blocks, a wrapper over `thrust::device_vector&`, a CuPy RawKernel returning a new array, numba.cuda kernels
driven by a host loop that returns its iteration count, Triton over Torch tensors), subtly wrong (a capped grid, a
grid from the wrong extent, swapped pyCUDA grid axes, a thread index capped below the grid, a CG ignoring its
initial guess), wrong model (host loops beside token kernels, a host overwrite after a Triton launch, Thrust on host
vectors) and code that must stay `build_error`.

On a CUDA GPU every file is graded end to end (device log: results/gpu-verdicts-h200x2-2026-11-28/). Without one,
every file that must build is shown to bind (none would be left outside the score as `unbindable`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hpceval.bind import choose_binding
from hpceval.contracts import Verdict
from hpceval.toolchains.cuda import nvidia_gpu

CASES = sorted((Path(__file__).parent / "data" / "gpu_free_form").iterdir())


def _parts(path: Path) -> tuple[str, str, Verdict]:
    kernel, model, verdict, _slug = path.name.split("__", 3)
    return kernel, model, Verdict(verdict)


@pytest.mark.gpu
@pytest.mark.skipif(nvidia_gpu() is None, reason="needs a CUDA GPU")
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_free_form_gpu_answer_on_the_device(path: Path, paper_verdict):
    kernel, model, verdict = _parts(path)
    paper_verdict(path.read_text(), kernel, model, verdict)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_free_form_gpu_answer_binds(path: Path, catalog):
    """Every answer that must build is mapped to the kernel (none left outside the score as unbindable)."""
    kernel, model, verdict = _parts(path)
    if verdict == Verdict.build_error:
        pytest.skip("graded by its build (on the device)")
    spec, m = catalog.kernels[kernel], catalog.models[model]
    binding = choose_binding(path.read_text(), spec, catalog.languages[m.language], "paper", m)
    assert not binding.error, binding.error
