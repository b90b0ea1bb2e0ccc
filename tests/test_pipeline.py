"""End-to-end runs through the CLI: reference run all correct, kill mid-way and resume, one-line errors."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import CPU_MODELS

HPCEVAL = [sys.executable, "-m", "hpceval.cli"]


def hpceval(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    return subprocess.run([*HPCEVAL, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_reference_run_is_correct_for_every_cpu_model_and_kernel(tmp_path):
    """Paper style: the references go through signature inference, the path an LLM's completion takes (chat style
    binds the canonical signature; CI's Docker step runs every CPU reference that way)."""
    out = tmp_path / "ref"
    result = hpceval("run", "--llm", "reference", "--models", ",".join(CPU_MODELS), "--kernels", "all",
                     "--style", "paper", "--hints", "none", "--no-timing", "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    frame = pd.read_csv(out / "evaluations.csv")
    assert len(frame) == 6 * len(CPU_MODELS)
    assert set(frame["style"]) == {"paper"}
    wrong = frame[frame["verdict"] != "correct"]
    assert wrong.empty, wrong[["prompt_id", "verdict", "evidence"]].to_string()
    required = {"llm", "language", "model", "kernel", "style", "hint", "prompt_id", "rank", "verdict", "evidence",
                "max_rel_error", "time_median_s"}
    assert required <= set(frame.columns)


def _evaluated(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_run_resumes_without_duplicates_or_losses(tmp_path):
    out = tmp_path / "killed"
    args = ["run", "--llm", "reference", "--models", "cpp-openmp,fortran-openmp,python-numpy", "--kernels",
            "axpy,gemv,gemm,jacobi", "--style", "chat", "--jobs", "1", "--out", str(out)]
    proc = subprocess.Popen([*HPCEVAL, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    while _evaluated(out / "results.sqlite") < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = _evaluated(out / "results.sqlite")
    assert 3 <= partial < 12
    result = hpceval(*args)
    assert result.returncode == 0, result.stderr[-2000:]
    frame = pd.read_csv(out / "evaluations.csv")
    assert len(frame) == 12
    assert not frame.duplicated(["prompt_id", "rank"]).any()
    assert (frame["verdict"] == "correct").all(), frame[["prompt_id", "verdict", "evidence"]]
    with sqlite3.connect(out / "results.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert conn.execute("SELECT COUNT(*) FROM generations").fetchone()[0] == 12
        assert conn.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0] == 12


def test_rerun_is_answered_from_the_store(tmp_path):
    out = tmp_path / "again"
    args = ["run", "--llm", "reference", "--models", "cpp-openmp", "--kernels", "axpy", "--no-timing", "--out", str(out)]
    assert hpceval(*args).returncode == 0
    with sqlite3.connect(out / "results.sqlite") as conn:
        first = conn.execute("SELECT created FROM evaluations").fetchall()
    assert hpceval(*args).returncode == 0
    with sqlite3.connect(out / "results.sqlite") as conn:
        assert conn.execute("SELECT created FROM evaluations").fetchall() == first


@pytest.mark.parametrize("args, message", [
    (["run", "--llm", "reference", "--models", "opnemp"],
     "unknown programming model 'opnemp'; did you mean 'openmp' or 'cpp-openmp'? valid: cpp-openmp,"),
    (["run", "--llm", "reference", "--kernels", "saxpyy"], "unknown kernel 'saxpyy'; did you mean 'saxpy' or 'axpy' or 'daxpy'? valid: axpy,"),
    (["run", "--llm", "gpt5", "--kernels", "axpy"], "unknown LLM backend 'gpt5'"),
    (["run", "--llm", "reference", "--style", "poem"], "unknown style 'poem'"),
    (["run", "--llm", "reference", "--executor", "cloud"], "unknown executor 'cloud'"),
    (["list", "gpus"], "unknown list 'gpus'"),
])
def test_bad_input_gives_one_line_error(tmp_path, args, message):
    result = hpceval(*args, "--out", str(tmp_path / "x")) if args[0] == "run" else hpceval(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert message in " ".join(lines)
    assert lines[0].startswith("error:")


def test_list_prompts_counts_the_matrix():
    result = hpceval("list", "prompts", "--models", "openmp,numpy,julia-threads", "--kernels", "axpy,cg",
                     "--style", "all", "--hints", "all")
    assert result.returncode == 0
    # 2 kernels x (3 models with a keyword variant x 2 styles x 2 hints + julia 2 styles x 1 hint) = 2 x 14
    assert "28 prompts" in result.stdout
    # without --style/--hints `list prompts` lists what `run` would ask: its defaults (chat, no hint)
    result = hpceval("list", "prompts", "--models", "openmp,numpy,julia-threads", "--kernels", "axpy,cg")
    assert "8 prompts" in result.stdout and "/chat/none" in result.stdout and "/paper/" not in result.stdout
    text = hpceval("list", "prompts", "--models", "cpp-openmp", "--kernels", "axpy", "--style", "paper",
                   "--hints", "keyword", "--text").stdout
    assert "// saxpy OpenMP function" in text
    text = hpceval("list", "prompts", "--models", "fortran-openacc", "--kernels", "axpy", "--style", "paper",
                   "--hints", "keyword", "--text").stdout
    assert "! saxpy OpenACC\nsubroutine" in text
