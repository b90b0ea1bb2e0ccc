"""The hostile suggestions of tests/test_sandbox.py, evaluated by the Docker executor.

Network, the host's files, fork bombs, memory, disk, endless output, endless loops, leftover processes, /dev/shm,
cgroups and privileges: each suggestion gets a verdict (never an exception), in bounded time, and the host is
unharmed. Where a suggestion can tell whether its attack worked, it writes the right result only if the attack
failed, so `correct` proves the container held. Needs an engine and the offline images; skips cleanly otherwise.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.evaluate import Evaluator
from hpceval.executors import Limits
from test_docker import docker_executor

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[1]
SHORT = Limits(wall_s=3)  # for suggestions that are meant to hang

PY_SAXPY = "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    y += np.float32(a) * x\n"
CPP_SAXPY = "void saxpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel for\n" \
            "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n"
CPP_FORK_BOMB = r"""
#include <unistd.h>
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < 1; ++i) {}
  for (;;) {
    if (fork() == 0) {
      execl("/bin/sh", "sh", "-c", "sleep 1000; echo MARKER", (char *)0);
      for (;;) fork();
    }
  }
}
"""


@pytest.fixture(scope="module")
def run(catalog):
    """run(kernel, model, code, limits=None) -> (Evaluation, seconds), under the Docker executor."""
    evaluator = Evaluator(catalog, docker_executor(), timing=False)

    def evaluate(kernel: str, model: str, code: str, limits: Limits | None = None) -> tuple[Evaluation, float]:
        ev = dataclasses.replace(evaluator, run_limits=limits) if limits else evaluator
        start = time.monotonic()
        e = ev.evaluate(textwrap.dedent(code), catalog.kernels[kernel], catalog.models[model])
        return e, time.monotonic() - start

    return evaluate


@pytest.fixture
def marker() -> str:
    return f"hpceval_test_{uuid.uuid4().hex[:12]}"


def leftovers(marker: str, settle_s: float = 5.0) -> list[str]:
    """Host processes (containers' included: they share the host's pid view) that still carry the marker."""
    deadline = time.monotonic() + settle_s
    while True:
        out = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout.splitlines()
        if not out or time.monotonic() > deadline:
            return out
        time.sleep(0.2)


def no_job_containers(within_s: float = 15.0) -> bool:
    """No container of a finished job is left (warm, never-used ones, hpceval-warm-*, may wait for the next), at
    the latest `within_s` after the job (the engine removes a killed container asynchronously; a loaded machine
    takes seconds)."""
    deadline = time.monotonic() + within_s
    while True:
        out = subprocess.run(["docker", "ps", "-a", "--format", "{{.Names}}", "--filter", "label=org.hpceval.job"],
                             capture_output=True, text=True).stdout
        if not [name for name in out.split() if name.startswith("hpceval-job-")]:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


# ------------------------------------------------------------------------------------------------ network


def test_cpp_cannot_connect(run):
    code = r"""
    #include <arpa/inet.h>
    #include <netinet/in.h>
    #include <sys/socket.h>
    #include <unistd.h>

    static int connected(const char *ip, int port) {
      int s = socket(AF_INET, SOCK_STREAM, 0);
      if (s < 0) return 0;
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(port);
      inet_pton(AF_INET, ip, &addr.sin_addr);
      int rc = connect(s, (sockaddr *)&addr, sizeof addr);
      close(s);
      return rc == 0;
    }

    void saxpy(int n, float a, const float *x, float *y) {
      static int net = connected("1.1.1.1", 53) || connected("8.8.8.8", 53) || connected("172.17.0.1", 2375);
    #pragma omp parallel for
      for (int i = 0; i < n; ++i) y[i] = net ? 1e30f : a * x[i] + y[i];
    }
    """
    e, _ = run("axpy", "cpp-openmp", code)
    assert e.verdict == Verdict.correct, f"the suggestion reached the network: {e.verdict} {e.evidence}"


def test_python_sees_no_network(run):
    code = """
    import socket

    import numpy as np

    IFACES = sorted(name for _, name in socket.if_nameindex())


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if IFACES == ["lo"] else np.float32(1e30)
        socket.create_connection(("1.1.1.1", 53), timeout=3).close()
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "OSError" in e.evidence or "unreachable" in e.evidence, e.evidence


# ------------------------------------------------------------------------------------- the file system


def test_writes_outside_the_work_dir_go_nowhere(run, marker, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("precious\n")
    targets = [str(tmp_path / f"{marker}-tmp_path"), f"/tmp/{marker}", f"/{marker}-root", f"/etc/{marker}",
               str(REPO / f"{marker}-repo"), f"/var/tmp/{marker}", f"/dev/{marker}", str(victim)]
    code = f"""
    import os

    import numpy as np

    TARGETS = {targets!r}


    def saxpy(n, a, x, y):
        escaped = []
        for path in TARGETS:
            try:
                with open(path, "a") as f:
                    f.write("escaped")
                escaped.append(path)
            except OSError:
                pass
        # only /tmp (the container's own tmpfs) may take the write
        y += np.float32(a) * x if escaped == ["/tmp/{marker}"] else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, e.evidence
    assert victim.read_text() == "precious\n"
    for path in targets[:-1]:
        assert not Path(path).exists(), f"the suggestion wrote {path} on the host"


def test_deleting_everything_harms_only_the_job(run, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("precious\n")
    code = f"""
    import os
    import shutil

    import numpy as np

    os.system("rm -rf ~ / 2>/dev/null")
    shutil.rmtree({str(tmp_path)!r}, ignore_errors=True)
    shutil.rmtree({str(REPO / "kernels_spec")!r}, ignore_errors=True)


    def saxpy(n, a, x, y):
        for name in os.listdir("."):
            shutil.rmtree(name, ignore_errors=True) if os.path.isdir(name) else os.remove(name)
        y += np.float32(a) * x
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.runtime_error, e.evidence  # it deleted the driver's case files
    assert victim.read_text() == "precious\n"
    assert (REPO / "kernels_spec" / "axpy" / "spec.toml").is_file()


def test_dev_shm_is_private(run, marker):
    host_victim = Path("/dev/shm") / f"{marker}-victim"
    planted = Path("/dev/shm") / f"{marker}-planted"
    host_victim.write_text("precious\n")
    code = f"""
    import os

    import numpy as np


    def saxpy(n, a, x, y):
        seen = os.path.exists({str(host_victim)!r})
        try:
            with open({str(planted)!r}, "w") as f:
                f.write("escaped")
        except OSError:
            pass
        y += np.float32(a) * x if not seen else np.float32(1e30)
    """
    try:
        e, _ = run("axpy", "python-numpy", code)
        assert e.verdict == Verdict.correct, e.evidence
        assert not planted.exists(), "the suggestion left a file in the host's /dev/shm"
        assert host_victim.read_text() == "precious\n"
    finally:
        planted.unlink(missing_ok=True)
        host_victim.unlink(missing_ok=True)


def test_cannot_leave_its_cgroup_or_gain_privileges(run):
    code = """
    import os

    import numpy as np


    def escaped():
        moved = False
        for controller in ("pids", "memory"):
            try:
                with open(f"/sys/fs/cgroup/{controller}/cgroup.procs", "w") as f:
                    f.write(str(os.getpid()))
                moved = True
            except OSError:
                pass
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        privileged = (os.getuid() == 0 or int(status["CapEff"], 16) != 0 or status["NoNewPrivs"].strip() != "1"
                      or int(status["CapBnd"], 16) != 0)
        try:
            os.setuid(0)
            privileged = True
        except OSError:
            pass
        return moved or privileged


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if not escaped() else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, f"the suggestion escaped its limits: {e.verdict} {e.evidence}"


# ---------------------------------------------------------------------------------------------- processes


def test_fork_bomb_is_contained(run, marker):
    e, seconds = run("axpy", "cpp-openmp", CPP_FORK_BOMB.replace("MARKER", marker), SHORT)
    assert e.verdict in (Verdict.timeout, Verdict.runtime_error), e.evidence
    assert seconds < 60, f"a fork bomb took {seconds:.0f} s to settle"
    assert not leftovers(marker), "processes of the fork bomb survived the evaluation"
    assert no_job_containers()


def test_background_process_does_not_survive(run, marker):
    code = f"""
    import subprocess

    import numpy as np


    def saxpy(n, a, x, y):
        subprocess.Popen(["/bin/sh", "-c", "sleep 600; echo {marker}"], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        y += np.float32(a) * x
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, e.evidence
    assert not leftovers(marker), "a daemon started by the suggestion outlived the evaluation"


def test_fork_bomb_does_not_disturb_a_concurrent_evaluation(run, marker):
    def good_while_bomb_runs() -> list[Evaluation]:
        deadline = time.monotonic() + 60
        while not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout:
            if time.monotonic() > deadline:
                raise AssertionError("the fork bomb never started")
            time.sleep(0.1)
        return [run("axpy", "python-numpy", PY_SAXPY)[0], run("axpy", "cpp-openmp", CPP_SAXPY)[0]]

    with ThreadPoolExecutor(max_workers=2) as pool:
        bomb = pool.submit(run, "axpy", "cpp-openmp", CPP_FORK_BOMB.replace("MARKER", marker), Limits(wall_s=20))
        goods = pool.submit(good_while_bomb_runs)
        for e in goods.result():
            assert e.verdict == Verdict.correct, f"beside a fork bomb: {e.verdict} {e.evidence}"
        assert bomb.result()[0].verdict in (Verdict.timeout, Verdict.runtime_error)
    assert not leftovers(marker)


# ------------------------------------------------------------------------------------ memory and disk


def test_cpp_touches_50_gb(run):
    code = """
    #include <cstdlib>
    #include <cstring>

    void saxpy(int n, float a, const float *x, float *y) {
    #pragma omp parallel
      {}
      for (int chunk = 0; chunk < 100; ++chunk) {  // 100 x 512 MiB, every page touched
        char *p = (char *)std::malloc(512ul << 20);
        if (!p) std::abort();
        std::memset(p, chunk + 1, 512ul << 20);
      }
      for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    }
    """
    e, seconds = run("axpy", "cpp-openmp", code, Limits(wall_s=60, memory_mb=1024))
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "SIGKILL" in e.evidence, e.evidence  # the OOM killer of the container's memory cgroup
    assert seconds < 90


def test_python_allocates_50_gb(run):
    code = "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    big = np.ones(50 * 2**30 // 8)\n" \
           "    y += np.float32(a) * x\n"
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.runtime_error
    assert "MemoryError" in e.evidence, e.evidence  # the address-space limit (prlimit --as)


def test_cpp_fills_one_huge_file(run):
    code = """
    #include <cstdio>
    #include <vector>

    void saxpy(int n, float a, const float *x, float *y) {
    #pragma omp parallel
      {}
      std::vector<char> block(1 << 20, 'x');
      FILE *f = std::fopen("huge.bin", "wb");
      for (int i = 0; i < 8192; ++i) std::fwrite(block.data(), 1, block.size(), f);  // 8 GiB
      std::fclose(f);
      for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    }
    """
    e, seconds = run("axpy", "cpp-openmp", code, Limits(wall_s=60, file_size_mb=64))
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "SIGXFSZ" in e.evidence, e.evidence  # the file-size rlimit
    assert seconds < 90


def test_python_fills_the_work_dir(run):
    # Many files, each below the file-size limit: the tmpfs work dir's size stops them (ENOSPC), and nothing
    # reaches the host's disk. The suggestion writes the right result only if it was stopped.
    code = """
    import errno

    import numpy as np

    BLOCK = b"x" * (1 << 20)


    def filled_mb():
        written = 0
        for i in range(4096):  # up to 4 GiB in 16 MiB files
            try:
                with open(f"fill{i}.bin", "wb") as f:
                    for _ in range(16):
                        f.write(BLOCK)
                        written += 1
            except OSError as exc:
                return written if exc.errno == errno.ENOSPC else -1
        return written


    def saxpy(n, a, x, y):
        mb = filled_mb()
        for i in range(4096):
            try:
                import os
                os.remove(f"fill{i}.bin")
            except OSError:
                break
        y += np.float32(a) * x if 0 < mb <= 256 else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code, Limits(wall_s=60, disk_mb=256))
    assert e.verdict == Verdict.correct, e.evidence


# ------------------------------------------------------------------------------------ output and time


@pytest.mark.parametrize(("model", "code"), [
    ("cpp-openmp", "#include <cstdio>\nvoid saxpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel\n"
                   "  {}\n  for (;;) std::puts(\"spam spam spam spam spam spam spam spam spam spam spam spam\");\n}\n"),
    ("python-numpy", "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    while True:\n        print('spam' * 50)\n"),
], ids=["cpp", "python"])
def test_output_without_end(run, model, code):
    e, seconds = run("axpy", model, code, SHORT)
    assert e.verdict in (Verdict.timeout, Verdict.runtime_error), e.evidence
    assert len(e.evidence.encode()) < 100_000
    assert len(e.model_dump_json().encode()) < 100_000
    assert seconds < 60


def test_loop_forever(run):
    code = "void saxpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel\n  {}\n" \
           "  for (volatile int k = 0;; ++k) {}\n}\n"
    e, seconds = run("axpy", "cpp-openmp", code, SHORT)
    assert e.verdict == Verdict.timeout, e.evidence
    assert "killed after 3 s" in e.evidence
    assert seconds < SHORT.wall_s + 30
    assert no_job_containers()


# ---------------------------------------------------------------------- accounts, owner labels, lifetime


def test_container_shows_only_the_sandbox_user(run):
    code = """
    import numpy as np

    with open("/etc/passwd") as f:
        USERS = [line.split(":")[0] for line in f if line.strip()]


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if USERS == ["nobody"] else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, f"the container listed other accounts: {e.evidence}"


def test_containers_of_a_killed_harness_are_removed(tmp_path):
    """SIGKILL of a harness whose Docker job spins: its reaper removes the container (owner label) at once."""
    docker_executor()
    script = (
        "import textwrap\nfrom hpceval.evaluate import Evaluator\nfrom hpceval.executors import Limits\n"
        "from hpceval.executors.docker import DockerExecutor\nfrom hpceval.spec import catalog\n"
        "cat = catalog()\nev = Evaluator(cat, DockerExecutor(), timing=False, run_limits=Limits(wall_s=600))\n"
        "code = 'import numpy as np\\n\\n\\ndef saxpy(n, a, x, y):\\n    while True:\\n        pass\\n'\n"
        "ev.evaluate(code, cat.kernels['axpy'], cat.models['python-numpy'])\n")
    env = {**os.environ, "TMPDIR": str(tmp_path), "HPCEVAL_DOCKER_WARM": "0"}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    deadline = time.monotonic() + 180
    owner = tmp_path / "hpceval-scratch"
    while not (owner.is_dir() and list(owner.glob("*/docker-owner"))):
        assert time.monotonic() < deadline and proc.poll() is None, "the harness never started a container"
        time.sleep(0.2)
    label = next(owner.glob("*/docker-owner")).read_text().strip()
    time.sleep(8)  # the job is running (or at least its container is)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(5)
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=org.hpceval.owner={label}"],
                          capture_output=True, text=True).stdout.split()
    assert not left, "the killed harness's containers are still there"
    assert not list(owner.iterdir())
