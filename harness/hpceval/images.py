"""Per-toolchain container images: build them online from upstream bases or offline from Debian's mirror.

Every toolchain has a folder containers/<toolchain>/ with

* `Dockerfile`: the recipe for engines that can pull (upstream bases pinned by tag and, where known, digest);
* `offline.Dockerfile` (CPU toolchains only): the recipe on top of a Debian bookworm base image that is made here
  with debootstrap from the Debian mirror apt is configured with, so no container registry is needed. It starts
  with `ARG BASE` / `FROM ${BASE}`; BASE is the parent image (the debootstrap base or another toolchain's image,
  see OFFLINE_PARENTS).

Each image is tagged `hpceval/<toolchain>:<recipe hash>` and `hpceval/<toolchain>:latest`. The recipe hash covers
the recipe files, the parent's hash and the base recipe, so `images build` skips an image whose recipe is unchanged
and rebuilds everything above a changed one. The Docker executor runs `hpceval/<toolchain>:latest` (pinned to its
image ID when the executor starts) and records that ID with every result.

Images carry labels: org.hpceval.toolchain, org.hpceval.recipe (hash), org.hpceval.flavor (online/offline),
org.hpceval.probe (a shell command printing the toolchain version line) and, for GPU images,
org.hpceval.accelerator (nvidia, amd or intel).
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hpceval.executors.base import ExecutorUnavailable
from hpceval.paths import PACKAGE_DIR

REPOSITORY_PREFIX = os.environ.get("HPCEVAL_IMAGE_PREFIX", "hpceval/")
BASE_NAME = "base"
# The debootstrap base of the offline images; bump BASE_RECIPE_VERSION when the steps in _make_base change.
BASE_RECIPE_VERSION = "2"
SUITE = "bookworm"
# g++ goes into the debootstrap itself: every CPU image but python needs it, and one debootstrap is faster than
# a debootstrap plus an apt-get in a container (no second package index download).
BASE_INCLUDE: tuple[str, ...] = ("g++", "libc6-dev")
# Offline images stack: base -> gcc -> {gfortran, clang_offload}; base -> python.
OFFLINE_PARENTS = {"gcc": BASE_NAME, "gfortran": "gcc", "clang_offload": "gcc", "python": BASE_NAME}
# Python packages of an offline recipe (its requirements.txt, pinned) are installed by the host's pip into the build
# context (`pip install --target --platform --python-version`, wheels only) and copied into the image: PyPI is
# reached through the host's pip configuration (index, proxy, CA certificates) that a build container lacks, and
# the image build itself needs only Debian's mirror. The byte code pip compiles is valid for the image's CPython
# (same minor version, same magic number).
WHEEL_PYTHON = "3.11"
WHEEL_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
DOCKER_HINT = ("start a Docker engine (Debian: apt-get install docker.io; dockerd --iptables=false --bridge=none &) "
               "or set DOCKER_HOST")


class ImageBuildError(ExecutorUnavailable):
    """An image could not be built, so the Docker executor cannot run that toolchain."""


def containers_dir() -> Path:
    """containers/ of the checkout (HPCEVAL_CONTAINERS overrides)."""
    override = os.environ.get("HPCEVAL_CONTAINERS")
    if override:
        return Path(override)
    for candidate in (PACKAGE_DIR.parent.parent / "containers", PACKAGE_DIR / "data" / "containers"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("containers/ not found: run from a checkout (pip install -e .) or set HPCEVAL_CONTAINERS")


def repository(toolchain: str) -> str:
    return f"{REPOSITORY_PREFIX}{toolchain}"


def latest_tag(toolchain: str) -> str:
    return f"{repository(toolchain)}:latest"


def docker_client(timeout: int = 600):
    """A Docker SDK client whose engine answered a ping; ExecutorUnavailable (one line) otherwise."""
    try:
        import docker  # type: ignore[import-untyped]
    except ImportError:
        raise ExecutorUnavailable("the Docker executor needs the Docker SDK: pip install 'hpceval[docker]' "
                                  "(or pip install docker)") from None
    where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    try:
        client = docker.from_env(timeout=timeout, max_pool_size=32)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the engine means the same to the user
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise ExecutorUnavailable(f"no Docker engine answers at {where} ({reason}); {DOCKER_HINT}") from None
    return client


def toolchains_with_recipes() -> list[str]:
    """Toolchains with an online recipe (containers/<toolchain>/Dockerfile)."""
    return sorted(p.name for p in containers_dir().iterdir() if (p / "Dockerfile").is_file())


def offline_toolchains() -> list[str]:
    """Toolchains with an offline recipe (containers/<toolchain>/offline.Dockerfile): the CPU ones."""
    return sorted(p.name for p in containers_dir().iterdir() if (p / "offline.Dockerfile").is_file())


@dataclass(frozen=True)
class Plan:
    toolchain: str
    dockerfile: str
    parent: str | None
    recipe: str
    parent_tag: str | None = None

    @property
    def tag(self) -> str:
        return f"{repository(self.toolchain)}:{self.recipe[:12]}"


def _files_hash(folder: Path, skip: str) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != skip and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def base_recipe() -> str:
    payload = f"{BASE_RECIPE_VERSION}|{SUITE}|minbase|{','.join(BASE_INCLUDE)}|{_base_setup_script()}"
    return hashlib.sha256(payload.encode()).hexdigest()


def plan(toolchain: str, offline: bool) -> Plan:
    """The recipe hash of a toolchain image (offline: over its parents down to the debootstrap base)."""
    folder = containers_dir() / toolchain
    if offline:
        if not (folder / "offline.Dockerfile").is_file():
            raise ImageBuildError(f"toolchain {toolchain!r} has no offline recipe (containers/{toolchain}/"
                                  f"offline.Dockerfile); offline images: {', '.join(offline_toolchains())}")
        parent = OFFLINE_PARENTS.get(toolchain, BASE_NAME)
        parent_recipe = base_recipe() if parent == BASE_NAME else plan(parent, True).recipe
        recipe = hashlib.sha256(f"offline|{parent_recipe}|{_files_hash(folder, 'Dockerfile')}".encode()).hexdigest()
        parent_tag = f"{repository(parent)}:{parent_recipe[:12]}"
        return Plan(toolchain, "offline.Dockerfile", parent, recipe, parent_tag)
    if not (folder / "Dockerfile").is_file():
        raise ImageBuildError(f"no recipe containers/{toolchain}/Dockerfile; toolchains with recipes: "
                              f"{', '.join(toolchains_with_recipes())}")
    recipe = hashlib.sha256(f"online|{_files_hash(folder, 'offline.Dockerfile')}".encode()).hexdigest()
    return Plan(toolchain, "Dockerfile", None, recipe)


def _order(toolchains: list[str]) -> list[str]:
    """Parents before children."""
    ordered: list[str] = []

    def visit(t: str) -> None:
        parent = OFFLINE_PARENTS.get(t, BASE_NAME)
        if parent != BASE_NAME:
            visit(parent)
        if t not in ordered:
            ordered.append(t)

    for t in toolchains:
        visit(t)
    return ordered


def _has_image(client, ref: str):
    import docker  # type: ignore[import-untyped]

    try:
        return client.images.get(ref)
    except docker.errors.ImageNotFound:
        return None


# ------------------------------------------------------------------ the debootstrap base


def debian_mirrors(sources: list[Path] | None = None) -> tuple[str, str | None]:
    """(main mirror, security mirror or None) from apt's configuration; HPCEVAL_DEBIAN_MIRROR overrides."""
    override = os.environ.get("HPCEVAL_DEBIAN_MIRROR")
    if sources is None:
        sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list")),
                   *sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))]
    main: str | None = None
    security: str | None = None
    for path in sources:
        try:
            text = path.read_text()
        except OSError:
            continue
        entries: list[tuple[str, list[str]]] = []
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                if fields.get("Enabled", "yes").lower() == "no" or "deb" not in fields.get("Types", "").split():
                    continue
                for uri in fields.get("URIs", "").split():
                    entries.append((uri, fields.get("Suites", "").split()))
        else:
            for line in text.splitlines():
                m = re.match(r"^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
                if m:
                    entries.append((m.group(1), [m.group(2)]))
        for uri, suites in entries:
            if not uri.startswith(("http://", "https://")):
                continue
            if any(s.endswith("-security") for s in suites):
                security = security or uri.rstrip("/")
            elif SUITE in suites or any(s.startswith(f"{SUITE}-") for s in suites) or "stable" in suites:
                main = main or uri.rstrip("/")
    main = override or main
    if not main:
        raise ImageBuildError("no Debian mirror in apt's sources (/etc/apt/sources.list*); set HPCEVAL_DEBIAN_MIRROR")
    return main, security


def _base_setup_script() -> str:
    """Shell run on the debootstrap rootfs (as root, on the host) before it is imported."""
    return r"""
set -e
cd "$ROOT"
cat > etc/apt/apt.conf.d/90hpceval <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
EOF
cat > etc/dpkg/dpkg.cfg.d/90hpceval-unsafe-io <<'EOF'
force-unsafe-io
EOF
cat > etc/dpkg/dpkg.cfg.d/90hpceval-nodoc <<'EOF'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
EOF
rm -rf usr/share/doc/* usr/share/man/* usr/share/info/* var/cache/apt/archives/*.deb var/lib/apt/lists/* \
       var/log/* debootstrap etc/resolv.conf etc/hostname
"""


def _make_base(client, tag: str, recipe: str, workdir: Path) -> Iterator[str]:
    if os.geteuid() != 0:
        raise ImageBuildError("the offline base image needs debootstrap as root (run `hpceval images build "
                              "--offline` as root, e.g. in CI)")
    if not shutil.which("debootstrap"):
        raise ImageBuildError("debootstrap not found: apt-get install --no-install-recommends debootstrap")
    mirror, security = debian_mirrors()
    rootfs = workdir / "rootfs"
    argv = ["debootstrap", "--variant=minbase", "--merged-usr"]
    if BASE_INCLUDE:
        argv.append(f"--include={','.join(BASE_INCLUDE)}")
    argv += [SUITE, str(rootfs), mirror]
    yield f"base: debootstrap {SUITE} (minbase) from {mirror}"
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        log = rootfs / "debootstrap" / "debootstrap.log"
        detail = log.read_text()[-600:] if log.exists() else (done.stderr or done.stdout)[-600:]
        raise ImageBuildError(f"debootstrap failed (exit {done.returncode}): {detail.strip()}")
    sources = [f"deb {mirror} {SUITE} main", f"deb {mirror} {SUITE}-updates main"]
    if security:
        sources.append(f"deb {security} {SUITE}-security main")
    (rootfs / "etc/apt/sources.list").write_text("\n".join(sources) + "\n")
    subprocess.run(["sh", "-c", _base_setup_script()], env={**os.environ, "ROOT": str(rootfs)}, check=True)
    yield f"base: rootfs ready in {time.monotonic() - start:.0f} s"
    tarball = workdir / "rootfs.tar"
    subprocess.run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball), "."], check=True)
    shutil.rmtree(rootfs, ignore_errors=True)
    repo, version = tag.split(":", 1)
    changes = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "ENV LANG=C.UTF-8",
               f"LABEL org.hpceval.recipe={recipe} org.hpceval.toolchain={BASE_NAME} org.hpceval.flavor=offline",
               'CMD ["/bin/bash"]']
    client.api.import_image_from_file(str(tarball), repository=repo, tag=version, changes=changes)
    client.images.get(tag).tag(repo, "latest")
    size = tarball.stat().st_size / 2**20
    tarball.unlink()
    yield f"base: imported {tag} ({size:.0f} MiB) in {time.monotonic() - start:.0f} s"


# ------------------------------------------------------------------ toolchain images


def _prepare_context(folder: Path, context: Path, offline: bool) -> None:
    """Copy the recipe folder; for an offline recipe with requirements.txt, install the pinned wheels into
    site-packages/ of the context with the host's pip (see WHEEL_PYTHON)."""
    shutil.copytree(folder, context, ignore=shutil.ignore_patterns("__pycache__"))
    requirements = context / "requirements.txt"
    if offline and requirements.is_file():
        target = context / "site-packages"
        argv = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                "--only-binary=:all:", "--python-version", WHEEL_PYTHON, "--implementation", "cp", "--abi",
                f"cp{WHEEL_PYTHON.replace('.', '')}", "--target", str(target), "-r", str(requirements)]
        for platform in WHEEL_PLATFORMS:
            argv += ["--platform", platform]
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            raise ImageBuildError(f"pip install --target for {folder.name} failed: "
                                  f"{(done.stderr or done.stdout).strip()[-600:]}")
        shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts with the host's interpreter path


def _docker_build(client, context: Path, p: Plan, flavor: str) -> Iterator[str]:
    import docker  # type: ignore[import-untyped]

    buildargs = {"BASE": p.parent_tag} if p.parent_tag else {}
    labels = {"org.hpceval.toolchain": p.toolchain, "org.hpceval.recipe": p.recipe, "org.hpceval.flavor": flavor}
    tail: list[str] = []
    hint = "" if flavor == "offline" else "; if no registry is reachable, build with `hpceval images build --offline`"
    try:
        stream = client.api.build(path=str(context), dockerfile=p.dockerfile, tag=p.tag, buildargs=buildargs,
                                  labels=labels, network_mode="host", rm=True, forcerm=True, decode=True)
        for chunk in stream:
            if "error" in chunk:
                raise ImageBuildError(f"building {p.tag} failed: {chunk['error'].strip()}; last output: "
                                      + " | ".join(tail[-3:])[-400:] + hint)
            line = chunk.get("stream", "").rstrip()
            if line:
                tail.append(line)
                if line.startswith("Step ") and (" : RUN " in line or " : COPY " in line or " : FROM " in line):
                    yield f"{p.toolchain}: {line[:110]}"
    except docker.errors.APIError as exc:
        raise ImageBuildError(f"building {p.tag} failed: {exc.explanation or exc}{hint}") from None


def build_images(offline: bool = False, toolchains: list[str] | None = None, force: bool = False) -> Iterator[str]:
    """Build (or find cached) toolchain images and tag them :latest; yields progress lines for the CLI.

    Independent work runs concurrently: the debootstrap base, the host-side preparation of build contexts (pip),
    and images whose parents are ready (offline: python beside gcc, then clang_offload beside gfortran).
    """
    client = docker_client()
    known = offline_toolchains() if offline else toolchains_with_recipes()
    wanted = toolchains or known
    unknown = [t for t in wanted if t not in known]
    if unknown:
        kind = "offline recipe (containers/<toolchain>/offline.Dockerfile)" if offline else "recipe"
        raise ImageBuildError(f"no {kind} for {', '.join(unknown)}; choose from: {', '.join(known)}")
    order = _order(wanted) if offline else list(wanted)
    total_start = time.monotonic()
    lines: queue.Queue[str] = queue.Queue()
    tmpdir = "/var/tmp" if Path("/var/tmp").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="hpceval-images-", dir=tmpdir) as tmp, \
            ThreadPoolExecutor(max_workers=len(order) + 1, thread_name_prefix="hpceval-image") as pool:

        def base_job() -> None:
            recipe = base_recipe()
            base_tag = f"{repository(BASE_NAME)}:{recipe[:12]}"
            if _has_image(client, base_tag) and not force:
                lines.put(f"base: cached {base_tag}")
                return
            for line in _make_base(client, base_tag, recipe, Path(tmp)):
                lines.put(line)

        def image_job(toolchain: str) -> None:
            p = plan(toolchain, offline)
            image = None if force else _has_image(client, p.tag)
            if image is None:
                context = Path(tmp) / toolchain
                _prepare_context(containers_dir() / toolchain, context, offline)
                parent = jobs.get(p.parent or "", base) if offline else None
                if parent is not None:
                    parent.result()  # raises the parent's error, so this image is not built on a stale parent
                start = time.monotonic()
                for line in _docker_build(client, context, p, "offline" if offline else "online"):
                    lines.put(line)
                image = client.images.get(p.tag)
                size = image.attrs.get("Size", 0) / 2**20
                lines.put(f"{toolchain}: built {p.tag} ({image.id[:19]}, {size:.0f} MiB) in "
                          f"{time.monotonic() - start:.0f} s")
            else:
                lines.put(f"{toolchain}: cached {p.tag} ({image.id[:19]})")
            image.tag(repository(toolchain), "latest")

        base: Future | None = pool.submit(base_job) if offline else None
        jobs: dict[str, Future] = {}
        for toolchain in order:
            jobs[toolchain] = pool.submit(image_job, toolchain)
        pending = [f for f in [base, *jobs.values()] if f is not None]
        while pending:
            try:
                yield lines.get(timeout=0.5)
            except queue.Empty:
                pass
            for future in [f for f in pending if f.done()]:
                pending.remove(future)
                while not lines.empty():
                    yield lines.get()
                error = future.exception()
                if error is not None:
                    for other in pending:
                        other.cancel()
                    raise error
        while not lines.empty():
            yield lines.get()
    yield f"images ready in {time.monotonic() - total_start:.0f} s: " + ", ".join(latest_tag(t) for t in order)
