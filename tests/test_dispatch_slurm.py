"""`--cluster slurm` on a real single-node Slurm cluster (Debian's slurm-wlm and munge), no mocks.

Why real: dask-jobqueue talks to sbatch/squeue/scancel, and only a real slurmctld + slurmd shows that worker
jobs are submitted, take evaluations and are released. The cluster is started by .ci/slurm-up.sh (also usable by
hand) unless $SLURM_CONF already points at a running one; it keeps no accounting database, so the evidence of
the worker jobs is Slurm's jobcomp text file (JobCompType=jobcomp/filetxt). Skips when Slurm is not installed
or this is not root (slurmd runs jobs as their user and needs root to start).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (shutil.which("slurmctld") and shutil.which("slurmd") and shutil.which("sbatch")
                                     and shutil.which("munged") and os.geteuid() == 0),
                                reason="Slurm (slurm-wlm, munge) not installed, or not root")
pytest.importorskip("dask_jobqueue")

COMMAND = ["--llm", "reference", "--models", "cpp-openmp,python-numpy", "--kernels", "axpy,gemv", "--no-timing"]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory):
    """SLURM_CONF of a running cluster and its jobcomp file; a cluster started here is stopped afterwards."""
    folder = tmp_path_factory.mktemp("slurm")
    up = subprocess.run(["bash", str(ROOT / ".ci" / "slurm-up.sh"), str(folder)], capture_output=True, text=True,
                        timeout=120)
    if up.returncode != 0:
        pytest.fail(f"slurm-up.sh failed: {up.stdout}{up.stderr}")
    try:
        yield folder / "slurm.conf", folder / "jobcomp.txt"
    finally:
        subprocess.run(["bash", str(ROOT / ".ci" / "slurm-up.sh"), "--down", str(folder)], timeout=60)


def verdicts(out: Path) -> dict[tuple[str, str, int], str]:
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT p.kernel, p.model, g.rank, e.verdict FROM generations g "
                          "JOIN prompts p USING(run_id, prompt_id) JOIN evaluations e USING(cache_key)").fetchall()
    return {(k, m, r): v for k, m, r, v in rows}


def test_reference_run_on_slurm_workers(slurm, tmp_path: Path) -> None:
    conf, jobcomp = slurm
    env = {**os.environ, "SLURM_CONF": str(conf)}
    config = tmp_path / "cluster.toml"
    config.write_text(f"""[cluster]
queue = "debug"
walltime = "00:30:00"
cores = 1
memory = "2GB"
max_jobs = 2
log_directory = "{tmp_path / 'logs'}"
local_directory = "{tmp_path / 'dask'}"
""")
    before = jobcomp.read_text() if jobcomp.exists() else ""
    hpceval = [sys.executable, "-m", "hpceval.cli", "run", *COMMAND]
    local = subprocess.run([*hpceval, "--executor", "local", "--out", str(tmp_path / "local")], capture_output=True,
                           text=True, timeout=600, env=env)
    assert local.returncode == 0, local.stdout + local.stderr
    run = subprocess.run([*hpceval, "--executor", "dask", "--cluster", "slurm", "--cluster-config", str(config),
                          "--out", str(tmp_path / "slurm")], capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Dask (slurm): dashboard" in run.stdout
    expected = verdicts(tmp_path / "local")
    assert len(expected) == 4 and set(expected.values()) == {"correct"}
    assert verdicts(tmp_path / "slurm") == expected
    # Slurm's own record: worker jobs named hpceval-worker ran (and were released: none left in the queue)
    records = [line for line in jobcomp.read_text()[len(before):].splitlines() if "Name=hpceval-worker" in line]
    print("\n".join(records))
    assert records, f"no hpceval-worker job in {jobcomp}"
    for _ in range(60):  # scancel is asynchronous: a loaded machine takes seconds to end the worker jobs
        queue = subprocess.run(["squeue", "-h", "-n", "hpceval-worker", "-t", "PENDING,RUNNING"], capture_output=True,
                               text=True, env=env)
        if not queue.stdout.strip():
            break
        time.sleep(0.5)
    assert queue.stdout.strip() == "", queue.stdout
    with sqlite3.connect(tmp_path / "slurm" / "results.sqlite") as db:
        environment = db.execute("SELECT environment FROM runs").fetchone()[0]
    assert '"cluster": "slurm"' in environment
