"""A harness process pinned to some GPUs of a multi-GPU node (one run per GPU, a Slurm job given one GPU) must
build and run every suggestion on those GPUs: the sandbox starts each run with a fresh environment, and without
the selection variables every run used the node's first GPU, so runs meant for four GPUs were all timed on one."""

from __future__ import annotations

import pytest

from hpceval.spec import catalog
from hpceval.toolchains import DEVICE_SELECTION, get_toolchain

MODELS = sorted(catalog().models)


@pytest.mark.parametrize("model_id", MODELS)
def test_every_toolchain_passes_the_process_gpu_selection_to_its_runs(model_id, monkeypatch):
    model = catalog().models[model_id]
    toolchain = get_toolchain(model.toolchain)
    for key in DEVICE_SELECTION:
        monkeypatch.delenv(key, raising=False)
    unpinned = toolchain.env(model)
    assert not set(DEVICE_SELECTION) & set(unpinned)  # nothing invented when the process is not pinned
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2")
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")
    pinned = toolchain.env(model)
    assert pinned["CUDA_VISIBLE_DEVICES"] == "2" and pinned["HIP_VISIBLE_DEVICES"] == "1"
