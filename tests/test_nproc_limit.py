"""RLIMIT_NPROC counts the processes of every sandbox on the host (one uid): without a pids cgroup, the limit is a
job's share times one job per core, so that parallel jobs on a many-core host do not make each other fail to
fork (a harness fault that was read as the suggestion's build_error)."""

from __future__ import annotations

import os
from pathlib import Path

from hpceval.executors import Limits
from hpceval.executors.local import _jail_argv, nproc_limit


def _nproc(argv: list[str]) -> int:
    return int(argv[argv.index("--rlimit_nproc") + 1])


def test_without_cgroups_the_limit_scales_with_the_host(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    limits = Limits()
    assert nproc_limit(limits, cgroups=False) == limits.pids * 64
    assert _nproc(_jail_argv(Path("/tmp"), {}, limits, cgroups=False, argv=["/bin/true"])) == limits.pids * 64


def test_with_cgroups_the_limit_is_a_backstop(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    limits = Limits()
    assert nproc_limit(limits, cgroups=True) >= 4096
    assert nproc_limit(limits, cgroups=False) == limits.pids * 2
