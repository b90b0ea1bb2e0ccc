"""The Docker executor and the image recipes: one-line errors without an engine, recipe hashing, the container's
settings, image digests in results and cache keys, and the same verdicts as the local executor.

Tests marked `docker` need a running engine and the offline images (`hpceval images build --offline`); they skip
cleanly when either is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pytest

from hpceval.contracts import Verdict
from hpceval.evaluate import Evaluator
from hpceval.executors import ExecutorUnavailable, Limits, get_executor
from hpceval.images import (
    OFFLINE_PARENTS,
    containers_dir,
    debian_mirrors,
    offline_toolchains,
    plan,
    toolchains_with_recipes,
)

REPO = Path(__file__).resolve().parents[1]
CPU_TOOLCHAINS = ["clang_offload", "gcc", "gfortran", "python"]
# One programming model per CPU toolchain, for the tests that compare executors.
ONE_MODEL_PER_TOOLCHAIN = ["cpp-openmp", "cpp-openmp-offload", "fortran-openmp", "python-numpy"]


@cache
def docker_status() -> tuple[object | None, str]:
    """(DockerExecutor, '') when an engine answers and the CPU images exist, else (None, why)."""
    try:
        ex = get_executor("docker")
    except ExecutorUnavailable as exc:
        return None, str(exc)
    missing = [t for t in CPU_TOOLCHAINS if ex.resolve(t) is None]
    if missing:
        return None, f"no images for {', '.join(missing)}: run `hpceval images build --offline`"
    return ex, ""


def docker_executor():
    ex, why = docker_status()
    if ex is None:
        pytest.skip(why)
    return ex


@pytest.fixture(scope="module")
def docker_evaluator(catalog) -> Evaluator:
    return Evaluator(catalog, docker_executor(), timing=False)


def reference(catalog, kernel: str, model: str) -> str:
    spec, m = catalog.kernels[kernel], catalog.models[model]
    return spec.solution_path(m, catalog).read_text()


# ------------------------------------------------------------------ no engine: one line, no traceback


def test_no_engine_is_a_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with pytest.raises(ExecutorUnavailable) as err:
        get_executor("docker")
    message = str(err.value)
    assert "no Docker engine answers" in message and "\n" not in message

    cli = [sys.executable, "-c", "from hpceval.cli import main; main()", "run", "--executor", "docker", "--llm",
           "reference", "--models", "cpp-openmp", "--kernels", "axpy", "-n", "1", "--out", str(tmp_path / "out")]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=120,
                          env={**_env(), "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock", "COLUMNS": "400"})
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: no Docker engine answers"), done.stderr
    assert "Traceback" not in done.stderr


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


# ------------------------------------------------------------------ recipes


def test_every_toolchain_has_a_recipe(catalog):
    toolchains = {m.toolchain for m in catalog.models.values()}
    assert toolchains <= set(toolchains_with_recipes()), toolchains - set(toolchains_with_recipes())
    # kokkos and sycl build from source into the cache (no offline image yet); julia has no offline route
    cpu = {m.toolchain for m in catalog.models.values() if m.device == "cpu"} - {"kokkos", "julia", "sycl"}
    assert cpu == set(CPU_TOOLCHAINS)
    assert set(offline_toolchains()) == set(CPU_TOOLCHAINS) == set(OFFLINE_PARENTS)


@pytest.mark.parametrize("toolchain", sorted({*toolchains_with_recipes(), *offline_toolchains()}))
def test_recipes_run_unprivileged_and_pin_their_bases(toolchain):
    folder = containers_dir() / toolchain
    for name in ("Dockerfile", "offline.Dockerfile"):
        path = folder / name
        if not path.is_file():
            continue
        text = path.read_text()
        assert "org.hpceval.probe=" in text, f"{path}: no probe label"
        assert re.findall(r"^USER (\S+)", text, re.M)[-1] == "65534:65534", f"{path}: last USER is not 65534"
        for base in re.findall(r"^FROM (\S+)", text, re.M):
            if base.startswith("${"):
                continue  # an ARG: the default below or the offline parent
            if "/" not in base and ":" not in base:
                continue  # an earlier stage
            assert re.search(r":[\w.-]+(@sha256:[0-9a-f]{64})?$", base), f"{path}: {base} has no tag"
            assert "@sha256:" in base, f"{path}: {base} is not pinned by digest"
        for default in re.findall(r"^ARG \w+_IMAGE=(\S+)", text, re.M):
            assert re.search(r":[\w.-]+$", default), f"{path}: {default} has no tag"


def test_recipe_hash_follows_the_recipe(tmp_path, monkeypatch):
    copy = tmp_path / "containers"
    shutil.copytree(containers_dir(), copy)
    before = {t: plan(t, offline=True).recipe for t in offline_toolchains()}
    assert before == {t: plan(t, offline=True).recipe for t in offline_toolchains()}  # stable
    monkeypatch.setenv("HPCEVAL_CONTAINERS", str(copy))
    assert before == {t: plan(t, offline=True).recipe for t in offline_toolchains()}  # location-independent
    with (copy / "gcc" / "offline.Dockerfile").open("a") as f:
        f.write("# changed\n")
    after = {t: plan(t, offline=True).recipe for t in offline_toolchains()}
    changed = {t for t in before if before[t] != after[t]}
    assert changed == {"gcc", "gfortran", "clang_offload"}  # gcc and the images built on it, not python
    online_before = plan("python", offline=False).recipe
    (copy / "python" / "offline.Dockerfile").write_text("# only the offline recipe changed\n")
    assert plan("python", offline=False).recipe == online_before


def test_debian_mirrors_from_apt_sources(tmp_path):
    deb822 = tmp_path / "debian.sources"
    deb822.write_text(textwrap.dedent("""\
        Types: deb
        URIs: http://mirror.example/debian
        Suites: bookworm bookworm-updates
        Components: main
        Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

        Types: deb
        URIs: http://mirror.example/debian-security
        Suites: bookworm-security
        Components: main
        """))
    other = tmp_path / "nodesource.list"
    other.write_text("deb [signed-by=/x.gpg] https://deb.nodesource.com/node_20.x nodistro main\n")
    assert debian_mirrors([other, deb822]) == ("http://mirror.example/debian", "http://mirror.example/debian-security")
    legacy = tmp_path / "sources.list"
    legacy.write_text("# comment\ndeb http://deb.example/debian/ bookworm main contrib\n")
    assert debian_mirrors([legacy]) == ("http://deb.example/debian", None)


# ------------------------------------------------------------------ against the engine


@pytest.mark.docker
def test_images_build_is_cached():
    docker_executor()
    from hpceval.images import build_images

    lines = list(build_images(offline=True, toolchains=CPU_TOOLCHAINS))
    assert any(line.startswith("base: cached") for line in lines), lines
    assert not any(" built " in line for line in lines), lines
    for toolchain in CPU_TOOLCHAINS:
        assert any(line.startswith(f"{toolchain}: cached") for line in lines), lines


@pytest.mark.docker
def test_the_container_is_locked_down(tmp_path):
    ex = docker_executor()
    script = textwrap.dedent("""\
        set -u
        echo "uid=$(id -u) gid=$(id -g)"
        grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status
        touch /rootfs-write 2>/dev/null && echo "root=rw" || echo "root=ro"
        grep -E ' /w | /tmp ' /proc/mounts | cut -d' ' -f2,3,4
        echo "ifaces=$(ls /sys/class/net | tr '\\n' ' ')"
        echo "pids=$(cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max)"
        echo "mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"
        echo "quota=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cut -d' ' -f1 /sys/fs/cgroup/cpu.max)"
        echo "fsize=$(ulimit -f) nofile=$(ulimit -n) cpu=$(ulimit -t) vmem=$(ulimit -v)"
        echo "in=$(cat input.txt)"
        echo made > output.txt
        """)
    (tmp_path / "input.txt").write_text("given\n")
    limits = Limits(wall_s=30, pids=64, memory_mb=512, open_files=100, cpu_s=20, file_size_mb=8)
    r = ex.run(["/bin/sh", "-c", script], tmp_path, {"OMP_NUM_THREADS": "1"}, limits, image=ex.image_for("gcc"))
    assert r.returncode == 0, r
    out = r.stdout
    assert "uid=65534 gid=65534" in out
    assert re.search(r"CapEff:\s+0+\n", out) and re.search(r"CapBnd:\s+0+\n", out)
    assert re.search(r"NoNewPrivs:\s+1", out) and re.search(r"Seccomp:\s+2", out)
    assert "root=ro" in out
    assert re.search(r"^/w tmpfs \S*size=1048576k,nr_inodes=65536", out, re.M), out
    assert re.search(r"^/tmp tmpfs \S*size=524288k", out, re.M), out
    assert "ifaces=lo " in out
    assert "pids=64" in out and f"mem={512 * 2**20}" in out
    assert "quota=200000" in out  # OMP_NUM_THREADS=1 plus one core of headroom, per 100 ms period
    assert f"fsize={8 * 1024 * 2}" in out and "nofile=100" in out and "cpu=20" in out  # fsize in 512-byte blocks
    assert f"vmem={Limits().address_space_mb * 1024}" in out  # prlimit --as
    assert "in=given" in out
    assert (tmp_path / "output.txt").read_text() == "made\n"


@pytest.mark.docker
def test_results_name_the_image_and_key_on_it(catalog, docker_evaluator, evaluator, monkeypatch):
    ex = docker_evaluator.executor
    spec, model = catalog.kernels["axpy"], catalog.models["cpp-openmp"]
    code = reference(catalog, "axpy", "cpp-openmp")
    e = docker_evaluator.evaluate(code, spec, model)
    assert e.verdict == Verdict.correct, e.evidence
    assert re.fullmatch(r"hpceval/gcc:[0-9a-f]{12}@sha256:[0-9a-f]{64}", e.image), e.image
    assert e.image == ex.image_digest("gcc") and e.toolchain_version.startswith("g++ ")
    key = docker_evaluator.cache_key(code, spec, model, None)
    assert key != evaluator.cache_key(code, spec, model, None)
    monkeypatch.setattr(ex, "image_digest", lambda toolchain: "hpceval/gcc:other@sha256:" + "0" * 64)
    assert docker_evaluator.cache_key(code, spec, model, None) != key


@pytest.mark.docker
def test_a_missing_image_is_infra_error(catalog):
    from hpceval.executors.docker import DockerExecutor

    docker_executor()
    ex = DockerExecutor(images={"gcc": "hpceval/no-such-image:latest"})
    ev = Evaluator(catalog, ex, timing=False)
    e = ev.evaluate(reference(catalog, "axpy", "cpp-openmp"), catalog.kernels["axpy"], catalog.models["cpp-openmp"])
    assert e.verdict == Verdict.infra_error
    assert "no image hpceval/no-such-image:latest" in e.evidence and "images build" in e.evidence
    assert e.image == ""


WRONG = {"cpp": ("y[i] = sum;", "y[i] = sum + 1.0;"), "fortran": ("y(i) = 0.0d0", "y(i) = 1.0d0"),
         "python": ("out=y[:m])", "out=y[:m]); y[0] += 1.0")}
# A complete text that does not build (a cut-off text is `incomplete`, not a build error).
BROKEN = {"cpp": ("y[i] = sum;", "y[i] = sum + undeclared_name;"),
          "python": ("import numpy as np", "import numpy as np\nscale = = 1.0")}


def _wrong(code: str, language: str, edits: dict = WRONG) -> str:
    old, new = edits[language]
    assert old in code, f"the gemv reference changed; update WRONG[{language!r}]"
    return code.replace(old, new)


@pytest.mark.docker
@pytest.mark.parametrize("model", ONE_MODEL_PER_TOOLCHAIN)
def test_same_verdicts_as_local(catalog, docker_evaluator, evaluator, model):
    spec, m = catalog.kernels["gemv"], catalog.models[model]
    good = reference(catalog, "gemv", model)
    cases = {"reference": good, "wrong result": _wrong(good, m.language)}
    if model in ("cpp-openmp", "python-numpy"):
        cases["build error"] = _wrong(good, m.language, BROKEN)
    expected = {"reference": Verdict.correct, "wrong result": Verdict.wrong_result, "build error": Verdict.build_error}
    for label, code in cases.items():
        local = evaluator.evaluate(code, spec, m)
        docker = docker_evaluator.evaluate(code, spec, m)
        assert docker.verdict == local.verdict, f"{label}: docker {docker.verdict} ({docker.evidence}) vs local " \
                                                f"{local.verdict} ({local.evidence})"
        assert docker.verdict == expected[label], f"{label}: {docker.verdict} {docker.evidence}"
        assert docker.max_rel_error == local.max_rel_error


@pytest.mark.docker
def test_gpu_images_get_the_gpu():
    from hpceval.executors.docker import ResolvedImage

    ex = docker_executor()
    nvidia = ResolvedImage("cuda", "hpceval/cuda:x", "sha256:" + "1" * 64, "/usr/bin:/bin", "nvidia", "nvcc --version")
    config = ex._host_config(nvidia, {"OMP_NUM_THREADS": "1"}, Limits())
    (request,) = config["device_requests"]
    assert request["Count"] == -1 and request["Capabilities"] == [["gpu"]]
    cpu = ResolvedImage("gcc", "hpceval/gcc:x", "sha256:" + "2" * 64, "/usr/bin:/bin", "", "g++ --version")
    assert "device_requests" not in ex._host_config(cpu, {}, Limits()) and "devices" not in ex._host_config(cpu, {}, Limits())
    can_run, note = ex._can_run(nvidia)
    assert can_run == ex._nvidia() and (can_run or "NVIDIA Container Toolkit" in note)
    auto = ResolvedImage("julia", "hpceval/julia:x", "sha256:" + "3" * 64, "/usr/bin:/bin", "auto", "julia -v")
    assert ex.accelerator(auto) in ("nvidia", "amd", "")
