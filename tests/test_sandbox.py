"""Hostile suggestions: each gets a verdict (never an exception), in bounded time, and the host is unharmed.

The suggestions try the network, write and delete outside their work dir, fork without end, exhaust memory,
print without end, loop forever and leave processes behind. Where a suggestion can tell whether its attack
worked, it writes the right result only if the attack failed, so `correct` proves the sandbox held.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import textwrap
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.executors import Limits
from hpceval.executors.local import cgroups_usable

REPO = Path(__file__).resolve().parents[1]
SHORT = Limits(wall_s=3)  # for suggestions that are meant to hang


@pytest.fixture
def marker() -> str:
    return f"hpceval_test_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def run(evaluator, catalog):
    """run(kernel, model, code, limits=None) -> (Evaluation, seconds)."""

    def evaluate(kernel: str, model: str, code: str, limits: Limits | None = None) -> tuple[Evaluation, float]:
        ev = dataclasses.replace(evaluator, run_limits=limits) if limits else evaluator
        start = time.monotonic()
        e = ev.evaluate(textwrap.dedent(code), catalog.kernels[kernel], catalog.models[model])
        return e, time.monotonic() - start

    return evaluate


@pytest.fixture
def victim_dir(marker):
    """A directory with a file outside /tmp (in $HOME, else beside the repo), removed afterwards."""
    for parent in (Path.home(), REPO.parent):
        try:
            folder = parent / f".{marker}-victim"
            folder.mkdir()
            break
        except OSError:
            continue
    else:
        pytest.skip("no writable directory outside /tmp for a victim file")
    (folder / "precious.txt").write_text("precious\n")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def leftovers(marker: str, settle_s: float = 5.0) -> list[str]:
    """Command lines of processes that still carry the marker, after giving the kernel settle_s to reap them."""
    deadline = time.monotonic() + settle_s
    while True:
        out = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout.splitlines()
        if not out or time.monotonic() > deadline:
            return out
        time.sleep(0.2)


PY_SAXPY_BODY = "    y += np.float32(a) * x\n"

CPP_FORK_BOMB = r"""
#include <unistd.h>
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < 1; ++i) {}
  for (;;) {
    if (fork() == 0) {  // every child becomes a shell that carries the marker, or forks on
      execl("/bin/sh", "sh", "-c", "sleep 1000; echo MARKER", (char *)0);
      for (;;) fork();
    }
  }
}
"""


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
      static int net = connected("1.1.1.1", 53) || connected("8.8.8.8", 53);
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


def escape_paths(marker: str, tmp_path: Path) -> list[Path]:
    return [tmp_path / f"{marker}-tmp_path", Path("/tmp/../tmp") / f"{marker}-tmp", Path.home() / f"{marker}-home",
            Path("/w/..") / f"{marker}-root", REPO / f"{marker}-repo", Path("/var/tmp") / f"{marker}-vartmp"]


def assert_untouched(paths: list[Path], victim: Path) -> None:
    try:
        for path in paths:
            assert not path.exists(), f"the suggestion wrote {path} on the host"
        assert (victim / "precious.txt").read_text() == "precious\n", "the suggestion changed a host file"
        assert not (victim / "planted.txt").exists()
    finally:
        for path in paths:
            if path.is_file():
                path.unlink()


def test_python_writes_outside_workdir(run, marker, tmp_path, victim_dir):
    paths = escape_paths(marker, tmp_path)
    code = f"""
    import os

    import numpy as np

    TARGETS = {[str(p) for p in paths]!r}
    VICTIM = {str(victim_dir)!r}


    def saxpy(n, a, x, y):
        for path in TARGETS + [VICTIM + "/planted.txt", os.path.expanduser("~/{marker}-home")]:
            try:
                with open(path, "w") as f:
                    f.write("escaped")
            except OSError:
                pass
        try:
            with open(VICTIM + "/precious.txt", "a") as f:
                f.write("changed")
        except OSError:
            pass
        y += np.float32(a) * x
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, e.evidence
    assert_untouched(paths, victim_dir)


def test_cpp_writes_outside_workdir(run, marker, tmp_path, victim_dir):
    paths = escape_paths(marker, tmp_path) + [victim_dir / "planted.txt"]
    targets = ", ".join(f'"{p}"' for p in paths)
    code = f"""
    #include <cstdio>

    void saxpy(int n, float a, const float *x, float *y) {{
      const char *targets[] = {{{targets}}};
      for (const char *path : targets) {{
        if (FILE *f = std::fopen(path, "w")) {{ std::fputs("escaped", f); std::fclose(f); }}
      }}
      if (FILE *f = std::fopen("{victim_dir}/precious.txt", "a")) {{ std::fputs("changed", f); std::fclose(f); }}
    #pragma omp parallel for
      for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    }}
    """
    e, _ = run("axpy", "cpp-openmp", code)
    assert e.verdict == Verdict.correct, e.evidence
    assert_untouched(paths, victim_dir)


def test_python_deletes_everything_it_can(run, marker, victim_dir):
    code = f"""
    import os
    import shutil

    import numpy as np

    os.system("rm -rf ~ 2>/dev/null")
    shutil.rmtree({str(victim_dir)!r}, ignore_errors=True)
    shutil.rmtree({str(REPO / "kernels_spec")!r}, ignore_errors=True)


    def saxpy(n, a, x, y):
        for name in os.listdir("."):
            shutil.rmtree(name, ignore_errors=True) if os.path.isdir(name) else os.remove(name)
        y += np.float32(a) * x
    """
    e, seconds = run("axpy", "python-numpy", code)
    assert isinstance(e.verdict, Verdict)
    assert e.verdict == Verdict.runtime_error, e.evidence  # it deleted the driver's case files
    assert (victim_dir / "precious.txt").read_text() == "precious\n"
    assert (REPO / "kernels_spec" / "axpy" / "spec.toml").is_file()
    assert Path.home().is_dir() and any(Path.home().iterdir())


def test_dev_shm_is_private(run, marker):
    host_victim = Path("/dev/shm") / f"{marker}-victim"
    planted = Path("/dev/shm") / f"{marker}-planted"
    host_victim.write_text("precious\n")
    code = f"""
    import os

    import numpy as np


    def saxpy(n, a, x, y):
        try:
            os.remove({str(host_victim)!r})
        except OSError:
            pass
        try:
            with open({str(planted)!r}, "w") as f:
                f.write("escaped")
        except OSError:
            pass
        y += np.float32(a) * x
    """
    try:
        e, _ = run("axpy", "python-numpy", code)
        assert e.verdict == Verdict.correct, e.evidence
        assert not planted.exists(), "the suggestion left a file in the host's /dev/shm"
        assert host_victim.exists(), "the suggestion deleted a file of the host's /dev/shm"
    finally:
        planted.unlink(missing_ok=True)
        host_victim.unlink(missing_ok=True)


def test_dev_is_read_only(run, marker):
    planted = Path("/dev") / f"{marker}-planted"
    code = f"""
    import numpy as np


    def saxpy(n, a, x, y):
        try:
            with open({str(planted)!r}, "w") as f:
                f.write("escaped")
        except OSError:
            pass
        y += np.float32(a) * x
    """
    try:
        e, _ = run("axpy", "python-numpy", code)
        assert e.verdict == Verdict.correct, e.evidence
        assert not planted.exists(), "the suggestion created a file in the host's /dev"
    finally:
        planted.unlink(missing_ok=True)


@pytest.mark.skipif(not cgroups_usable(), reason="no cgroup limits on this host")
def test_cannot_leave_its_cgroup(run):
    code = """
    import os

    import numpy as np


    def escaped():
        for controller in ("pids", "memory"):
            try:
                with open(f"/sys/fs/cgroup/{controller}/cgroup.procs", "w") as f:
                    f.write(str(os.getpid()))
            except OSError:
                pass
        with open("/proc/self/cgroup") as f:
            return any(line.rstrip().endswith(":/") for line in f if ":pids:" in line or ":memory:" in line)


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if not escaped() else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, f"the suggestion left its cgroup: {e.verdict} {e.evidence}"


# ---------------------------------------------------------------------------------------------- processes


def test_fork_bomb_is_contained(run, marker):
    e, seconds = run("axpy", "cpp-openmp", CPP_FORK_BOMB.replace("MARKER", marker), SHORT)
    assert e.verdict in (Verdict.timeout, Verdict.runtime_error), e.evidence
    assert seconds < 60, f"a fork bomb took {seconds:.0f} s to settle"
    assert not leftovers(marker), "processes of the fork bomb survived the evaluation"


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
    good = "void saxpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel for\n" \
           "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n"

    def good_while_bomb_runs() -> list[Evaluation]:
        deadline = time.monotonic() + 30
        while not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout:
            if time.monotonic() > deadline:
                raise AssertionError("the fork bomb never started")
            time.sleep(0.1)
        return [run("axpy", "python-numpy", "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n" + PY_SAXPY_BODY)[0],
                run("axpy", "cpp-openmp", good)[0]]

    with ThreadPoolExecutor(max_workers=2) as pool:
        bomb = pool.submit(run, "axpy", "cpp-openmp", CPP_FORK_BOMB.replace("MARKER", marker), Limits(wall_s=6))
        goods = pool.submit(good_while_bomb_runs)
        for e in goods.result():
            assert e.verdict == Verdict.correct, f"beside a fork bomb: {e.verdict} {e.evidence}"
        assert bomb.result()[0].verdict in (Verdict.timeout, Verdict.runtime_error)
    assert not leftovers(marker)


# ------------------------------------------------------------------------------------ memory, output, time


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
    # A 1 GiB memory cgroup (the default is 4 GiB) keeps the test fast; the address-space rlimit (16 GiB) stops
    # the allocation where there are no cgroups, and test_python_allocates_50_gb checks that rlimit alone.
    e, seconds = run("axpy", "cpp-openmp", code, Limits(wall_s=60, memory_mb=1024))
    assert e.verdict == Verdict.runtime_error, e.evidence
    if cgroups_usable():
        assert "SIGKILL" in e.evidence, e.evidence  # the kernel's OOM killer, inside the job's memory cgroup
        assert "memory limit (1024 MiB)" in e.evidence, e.evidence
    else:
        assert "signal" in e.evidence, e.evidence  # abort() on a failed malloc (shows as SIGABRT or SIGSEGV)
    assert seconds < 60


def test_python_allocates_50_gb(run):
    code = "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    big = np.ones(50 * 2**30 // 8)\n" + PY_SAXPY_BODY
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.runtime_error
    assert "MemoryError" in e.evidence


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
    assert e.verdict == Verdict.timeout
    assert "killed after 3 s" in e.evidence
    assert seconds < SHORT.wall_s + 30


class _FlakyStartExecutor:
    """A local executor whose first `failures` commands die like a Python interpreter that could not start."""

    def __init__(self, failures: int):
        from hpceval.executors.local import LocalExecutor

        self.inner, self.failures = LocalExecutor(), failures

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, argv, workdir, env, limits, image=None):
        if self.failures > 0:
            self.failures -= 1
            from hpceval.contracts import ProcResult

            return ProcResult(argv=argv, returncode=1, stdout="", seconds=0.1,
                              stderr="Fatal Python error: init_import_site: Failed to import the site module\n")
        return self.inner.run(argv, workdir, env, limits, image=image)


@pytest.mark.parametrize(("failures", "verdict"), [(1, Verdict.correct), (2, Verdict.infra_error)])
def test_interpreter_start_failure_is_retried_then_harness_fault(catalog, failures, verdict):
    """An interpreter dying before any suggested code ran is never the suggestion's build_error."""
    from hpceval.evaluate import Evaluator

    spec, model = catalog.kernels["axpy"], catalog.models["python-numpy"]
    code = spec.solution_path(model, catalog).read_text()
    result = Evaluator(catalog, _FlakyStartExecutor(failures), timing=False).evaluate(code, spec, model)
    assert result.verdict == verdict, result.evidence
    if verdict == Verdict.infra_error:
        assert "interpreter failed to start twice" in result.evidence


# --------------------------------------------------------------------------------- what a job sees of the host


def test_home_is_empty_in_the_jail(run, tmp_path):
    """/home is a private tmpfs: a job cannot list or read users' files (here a planted one, when root can plant)."""
    planted = Path("/home/hpceval-test-user/secret.txt")
    try:
        planted.parent.mkdir(exist_ok=True)
        planted.write_text("secret")
        planted.parent.chmod(0o755)
        planted.chmod(0o644)
    except OSError:
        planted = None
    code = """
    import os

    import numpy as np

    SEEN = os.listdir("/home") if os.path.isdir("/home") else []
    READ = os.path.exists("/home/hpceval-test-user/secret.txt")


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if not SEEN and not READ else np.float32(1e30)
    """
    try:
        e, _ = run("axpy", "python-numpy", code)
    finally:
        if planted is not None:
            planted.unlink()
            planted.parent.rmdir()
    assert e.verdict == Verdict.correct, f"the job saw /home: {e.evidence}"


def test_etc_shows_only_the_sandbox_user(run):
    """/etc in the jail is synthetic: passwd and group know only the sandbox user, the host name is `sandbox`, and
    the linker cache is there (the code runs at all)."""
    code = """
    import os
    import socket

    import numpy as np

    with open("/etc/passwd") as f:
        USERS = [line.split(":")[0] for line in f if line.strip()]
    with open("/etc/group") as f:
        GROUPS = [line.split(":")[0] for line in f if line.strip()]
    with open("/etc/hostname") as f:
        NAME = f.read().strip()
    MACHINE_ID = os.path.exists("/etc/machine-id")
    PRINTED = print(open("/etc/passwd").read(), USERS, GROUPS, NAME, socket.gethostname(), MACHINE_ID)


    def saxpy(n, a, x, y):
        ok = USERS == ["nobody"] and GROUPS == ["nogroup"] and NAME == "sandbox" and not MACHINE_ID
        y += np.float32(a) * x if ok else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, f"the job saw more of /etc than the sandbox user: {e.evidence}"


def test_etc_passwd_printed_into_evidence_names_no_host_account(run):
    """A job that prints /etc/passwd and fails puts only the sandbox user into the evidence."""
    import pwd

    from hpceval.redact import host_identifiers

    code = "import sys\n\nsys.stderr.write(open('/etc/passwd').read() + open('/etc/group').read())\n\n\n" \
           "def saxpy(n, a, x, y):\n    raise RuntimeError('boom')\n"
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "nobody:x:65534" in e.evidence, e.evidence
    host_accounts = {p.pw_name for p in pwd.getpwall()} - {"nobody"}
    assert not [name for name in host_accounts if f"{name}:x:" in e.evidence], e.evidence
    assert not [word for word in host_identifiers() if word in e.evidence.split()], e.evidence


PLANT_BETWEEN_CASES = r"""
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {  // declared again: the completeness check does not know POSIX names (it would say `incomplete`)
int unlink(const char *) noexcept;
int symlink(const char *, const char *) noexcept;
int link(const char *, const char *) noexcept;
int mkfifo(const char *, mode_t) noexcept;
int mkdir(const char *, mode_t) noexcept;
}

static void plant(int done) {  // the outputs of the cases done so far: swap each out_y.bin for something else
  for (int i = 0; i < done; ++i) {
    char path[64];
    std::snprintf(path, sizeof path, "c%d/out_y.bin", i);
    if (unlink(path) == 0) { PLANT; }
  }
}

void saxpy(int n, float a, const float *x, float *y) {
  static int calls = 0;
  plant(calls++);  // the driver exits without running atexit handlers: plant while the next case runs
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""


@pytest.mark.parametrize(("plant", "what"), [
    ('symlink("/etc/hostname", path)', "is a symlink, not a file"),
    ('symlink("../driver.cpp", path)', "is a symlink, not a file"),
    ("mkfifo(path, 0644)", "is a FIFO, not a file"),
    ("mkdir(path, 0755)", "is a directory, not a file"),
    ('link("cases.txt", path)', "hard links, not a file of its own"),
], ids=["host-file-link", "inside-link", "fifo", "dir", "hardlink"])
def test_output_that_is_not_a_plain_file_is_a_runtime_error_and_never_read(run, plant, what):
    """The harness runs as root and reads outputs after the job: what the job put in their place is not followed."""
    e, seconds = run("axpy", "cpp-openmp", PLANT_BETWEEN_CASES.replace("PLANT", plant))
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "output c0/out_y.bin " in e.evidence and what in e.evidence, e.evidence
    assert seconds < 60  # a FIFO opened for reading would have blocked


def test_case_folder_swapped_for_a_link_to_a_host_dir_is_not_followed(run):
    code = PLANT_BETWEEN_CASES.replace('std::snprintf(path, sizeof path, "c%d/out_y.bin", i);',
                                 'std::snprintf(path, sizeof path, "c%d", i);') \
        .replace("if (unlink(path) == 0) { PLANT; }",
                 'char moved[64]; std::snprintf(moved, sizeof moved, "m%d", i);'
                 ' if (std::rename(path, moved) == 0) symlink("/etc", path);')
    e, _ = run("axpy", "cpp-openmp", code)
    assert e.verdict == Verdict.runtime_error, e.evidence
    assert "output c0/out_x.bin: c0 is a symlink, not a directory" in e.evidence, e.evidence


def test_case_files_are_never_written_through_a_link(catalog, victim_dir, tmp_path):
    """The harness (root) rewrites case folders between runs: a link the job left there is replaced, not followed."""
    from hpceval.cases.generate import validation_cases
    from hpceval.cases.io import remove_case_dirs, write_cases

    spec, lang = catalog.kernels["axpy"], catalog.languages["cpp"]
    (tmp_path / "c0").symlink_to(victim_dir)
    (tmp_path / "cases.txt").symlink_to(victim_dir / "precious.txt")
    (tmp_path / "c1").symlink_to(victim_dir / "precious.txt")
    write_cases(tmp_path, spec, lang, validation_cases(spec, 1)[:1])
    assert sorted(p.name for p in victim_dir.iterdir()) == ["precious.txt"]
    assert (victim_dir / "precious.txt").read_text() == "precious\n"
    assert (tmp_path / "c0").is_dir() and not (tmp_path / "c0").is_symlink()
    assert not (tmp_path / "cases.txt").is_symlink() and (tmp_path / "cases.txt").read_text().startswith("c0 ")
    remove_case_dirs(tmp_path)
    assert not (tmp_path / "c0").exists() and not os.path.lexists(tmp_path / "c1")
    assert (victim_dir / "precious.txt").read_text() == "precious\n"


def test_jobs_run_without_address_space_randomisation(run):
    """A kernel that reads past an array must get the same verdict in every run: with randomised addresses a GEMV
    mutant was a segfault in one run and garbage output in the next. The jail sets ADDR_NO_RANDOMIZE."""
    code = """
    import numpy as np

    with open("/proc/self/personality") as f:
        FLAGS = int(f.read().strip(), 16)


    def saxpy(n, a, x, y):
        y += np.float32(a) * x if FLAGS & 0x0040000 else np.float32(1e30)
    """
    e, _ = run("axpy", "python-numpy", code)
    assert e.verdict == Verdict.correct, f"the job ran with randomised addresses: {e.evidence}"
