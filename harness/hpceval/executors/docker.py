"""Docker executor: every build and run command of a suggestion runs in its toolchain's container.

One fresh container per command, from the toolchain's image `hpceval/<toolchain>:latest` (pinned to its image ID
the first time the executor resolves it, so a run never mixes images; the ID is recorded with every result and is
part of the cache key). The container has no network (`network_mode=none`), a memory limit with no swap, a CPU
quota, a pids limit, rlimits (CPU time, file size, open files, stack, no core dumps; address space through
`prlimit` where the image has it), a read-only root file system, all capabilities dropped, no-new-privileges, the
default seccomp profile, and runs as uid/gid 65534. GPU images (label org.hpceval.accelerator) get the GPU through
a device request (NVIDIA) or the /dev/kfd and /dev/dri devices (AMD, Intel).

The work dir is a size-limited tmpfs at /w (a second one at /tmp); nothing the suggestion writes touches the host's
disk. The job's files go in as a tar stream through `docker exec tar -x`, the command runs with `docker exec`
(its output is streamed back and only a tail is kept, so endless output costs neither memory nor disk), and what
the command created or changed in /w comes back as a tar stream that is unpacked into the host's work dir with
tarfile's `data` filter (no absolute paths, no links out, no device files). The container's PID 1 is docker-init
running `sleep`, so it reaps orphans and the container ends by itself even if the harness dies; at the wall-clock
limit the whole container is killed, which ends every process the suggestion forked. While a command runs, the
next container of the same image and limits is started in the background (a warm, never-used one; see _WarmPool).
Containers are labelled with their harness process and removed when it stops, dies or starts again
(executors/docker_owner.py), and see a passwd/group that know only the sandbox user.

Why tmpfs + copy instead of a bind mount of the host's work dir: with a bind mount a suggestion writes straight
into the host's file system (a disk-filling suggestion fills the host's disk up to the file-size rlimit per file,
without bound in number of files), and Docker's archive API cannot reach a tmpfs or a read-only root. The copy
costs about 0.1 s per command for the small build units and case files here.
"""

from __future__ import annotations

import atexit
import io
import os
import signal
import socket
import sys
import tarfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hpceval import lifecycle
from hpceval.contracts import ProcResult
from hpceval.executors import docker_owner
from hpceval.executors.base import Executor, ExecutorUnavailable, Limits, SandboxError

if TYPE_CHECKING:
    from hpceval.toolchains import Toolchain, ToolInfo

SANDBOX_USER = "65534:65534"
SANDBOX_UID = 65534
WORKDIR = "/w"
KEEPALIVE_S = 300  # PID 1 sleeps wall_s + this, so a container outlives its command but never the harness by long
LABEL = "org.hpceval.job"
MAX_FILES = 65536  # files and directories per tmpfs (/w, /tmp)


@dataclass(frozen=True)
class ResolvedImage:
    """A toolchain's image as the executor uses it: pinned ID, name for the record, PATH, accelerator, probe."""

    toolchain: str
    ref: str
    id: str
    path: str
    accelerator: str
    probe: str

    @property
    def digest(self) -> str:
        return f"{self.ref}@{self.id}"


class ContainerError(RuntimeError):
    """The engine failed a job (not the suggestion): the evaluation becomes infra_error, never a verdict."""


class _Tail:
    """The last `limit` bytes of a stream (a bounded buffer, whatever the stream's length)."""

    def __init__(self, limit: int):
        self.limit = max(1024, limit)
        self.buf = bytearray()
        self.total = 0

    def add(self, chunk: bytes | None) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        self.buf += chunk
        if len(self.buf) > 2 * self.limit:
            del self.buf[:-self.limit]

    def text(self) -> str:
        return bytes(self.buf[-self.limit:]).decode("utf-8", "replace")


class _SocketWriter(io.RawIOBase):
    """A write-only file over a hijacked exec socket (for tarfile's stream mode)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.sock.sendall(data)
        return len(data)


class _ChunkReader(io.RawIOBase):
    """A read-only file over an iterator of byte chunks (for tarfile's stream mode)."""

    def __init__(self, chunks):
        self.chunks = iter(chunks)
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            try:
                self.pending = next(self.chunks)
            except StopIteration:
                return 0
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


def _signal_name(code: int) -> str | None:
    sig = -code if code < 0 else code - 128 if 128 < code < 192 else 0
    try:
        return signal.Signals(sig).name if sig else None
    except ValueError:
        return None


class _WarmPool:
    """One started, never-used container per configuration, made ready in the background while a job runs.

    Creating and starting a container is about half of the executor's fixed cost per command. A warm container is
    as fresh as a new one (nothing has run in it; files and environment come with each command), it is used once,
    and it ends by itself after its keep-alive if nobody takes it.
    """

    def __init__(self, remove) -> None:
        self.ready: dict[tuple, tuple[object, float]] = {}
        self.pending: set[tuple] = set()
        self.lock = threading.Lock()
        self.remove = remove

    def take(self, key: tuple):
        with self.lock:
            entry = self.ready.pop(key, None)
        if entry is None:
            return None
        container, made = entry
        try:
            container.reload()
            if container.status == "running" and time.monotonic() - made < KEEPALIVE_S / 2:
                return container
        except Exception:  # noqa: BLE001 - gone already: make a new one
            return None
        self.remove(container)
        return None

    def refill(self, key: tuple, make) -> None:
        with self.lock:
            if key in self.ready or key in self.pending:
                return
            self.pending.add(key)

        def work() -> None:
            try:
                container = make("warm")
            except Exception:  # noqa: BLE001 - the next command makes its own container
                container = None
            with self.lock:
                self.pending.discard(key)
                if container is not None and key not in self.ready:
                    self.ready[key] = (container, time.monotonic())
                    container = None
            if container is not None:
                self.remove(container)

        threading.Thread(target=work, name="hpceval-docker-warm", daemon=True).start()

    def close(self) -> None:
        with self.lock:
            entries = list(self.ready.values())
            self.ready.clear()
        for container, _ in entries:
            self.remove(container)


class DockerExecutor(Executor):
    name = "docker"

    def __init__(self, images: dict[str, str] | None = None, warm: bool | None = None) -> None:
        from hpceval.images import docker_client

        self.client = docker_client()
        docker_owner.adopt(self.client)  # containers of dead runs go; ours go on Ctrl-C and at exit
        self.warm = os.environ.get("HPCEVAL_DOCKER_WARM", "1") != "0" if warm is None else warm
        self._pool = _WarmPool(self._remove)
        atexit.register(self._pool.close)
        self.overrides = dict(images or {})
        self._resolved: dict[str, ResolvedImage] = {}
        self._probes: dict[str, tuple[str, bool]] = {}
        self._lock = threading.Lock()
        info = self.client.info()
        self.engine = f"Docker {info.get('ServerVersion', '?')} ({info.get('Driver', '?')}, cgroup v{info.get('CgroupVersion', '1')})"
        self.runtimes = set(info.get("Runtimes", {}))

    def describe(self) -> str:
        return f"docker: one container per command on {self.engine}"

    # ------------------------------------------------------------------ images

    def _ref(self, toolchain: str) -> str:
        from hpceval.images import latest_tag

        return self.overrides.get(toolchain) or os.environ.get(f"HPCEVAL_IMAGE_{toolchain.upper()}") or latest_tag(toolchain)

    def resolve(self, toolchain: str) -> ResolvedImage | None:
        """The toolchain's image, pinned at first use (None while there is no such image)."""
        import docker  # type: ignore[import-untyped]

        with self._lock:
            if toolchain in self._resolved:
                return self._resolved[toolchain]
        ref = self._ref(toolchain)
        try:
            image = self.client.images.get(ref)
        except docker.errors.ImageNotFound:
            return None
        config = image.attrs.get("Config") or {}
        env = dict(e.split("=", 1) for e in config.get("Env") or [] if "=" in e)
        labels = config.get("Labels") or {}
        name = ref.rsplit(":", 1)[0] if ":" in ref.rsplit("/", 1)[-1] else ref
        recipe = labels.get("org.hpceval.recipe", "")
        resolved = ResolvedImage(toolchain=toolchain, ref=f"{name}:{recipe[:12]}" if recipe else ref, id=image.id,
                                 path=env.get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
                                 accelerator=labels.get("org.hpceval.accelerator", ""),
                                 probe=labels.get("org.hpceval.probe", ""))
        with self._lock:
            return self._resolved.setdefault(toolchain, resolved)

    def image_for(self, toolchain: str) -> str | None:
        resolved = self.resolve(toolchain)
        return resolved.id if resolved else None

    def image_digest(self, toolchain: str) -> str:
        resolved = self.resolve(toolchain)
        return resolved.digest if resolved else ""

    def _by_id(self, image: str) -> ResolvedImage:
        with self._lock:
            for resolved in self._resolved.values():
                if image in (resolved.id, resolved.ref):
                    return resolved
        # an image given directly (tests, debugging): resolve it under a pseudo toolchain name
        self.overrides.setdefault(f"_image_{image}", image)
        resolved = self.resolve(f"_image_{image}")
        if resolved is None:
            raise ExecutorUnavailable(f"no Docker image {image!r}; build the images: hpceval images build --offline")
        return resolved

    def _probe(self, resolved: ResolvedImage) -> tuple[str, bool]:
        """(version line, image has prlimit), from one short container per image."""
        with self._lock:
            if resolved.id in self._probes:
                return self._probes[resolved.id]
        script = f"{resolved.probe or 'true'}; echo; command -v prlimit || true"
        result = self._run_in(resolved, ["/bin/sh", "-c", script], None, {}, Limits(wall_s=60), probing=True)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        has_prlimit = bool(lines) and lines[-1].endswith("/prlimit")
        if has_prlimit:
            lines = lines[:-1]
        version = lines[0].strip() if result.returncode == 0 and lines and resolved.probe else ""
        if result.returncode != 0:
            version = ""
        with self._lock:
            self._probes[resolved.id] = (version, has_prlimit)
        return version, has_prlimit

    def toolchain_info(self, toolchain: Toolchain) -> ToolInfo:
        from hpceval.images import latest_tag, offline_toolchains
        from hpceval.toolchains import MissingToolchain, ToolInfo

        if isinstance(toolchain, MissingToolchain):
            return toolchain.detect()  # no toolchain module: nothing to build or run, whatever the image
        resolved = self.resolve(toolchain.name)
        if resolved is None:
            offline = "--offline " if toolchain.name in offline_toolchains() else ""
            return ToolInfo(False, how_to_get=f"no image {self._ref(toolchain.name)}: hpceval images build {offline}"
                                              f"--toolchains {toolchain.name}")
        version, _ = self._probe(resolved)
        if resolved.probe and not version:
            return ToolInfo(False, how_to_get=f"the image {latest_tag(toolchain.name)} ({resolved.id[:19]}) fails its "
                                              f"probe `{resolved.probe}`; rebuild it: hpceval images build")
        can_run, note = self._can_run(resolved)
        return ToolInfo(True, version or resolved.digest, can_run=can_run, note=note)

    def _nvidia(self) -> bool:
        return "nvidia" in self.runtimes or Path("/dev/nvidiactl").exists()

    def accelerator(self, resolved: ResolvedImage) -> str:
        """The GPU kind a container of this image gets: its label, or for `auto` whatever the host has."""
        if resolved.accelerator != "auto":
            return resolved.accelerator
        return "nvidia" if self._nvidia() else "amd" if Path("/dev/kfd").exists() else ""

    def _can_run(self, resolved: ResolvedImage) -> tuple[bool, str]:
        kind = self.accelerator(resolved)
        if kind == "nvidia" and not self._nvidia():
            return False, "the image needs an NVIDIA GPU and the NVIDIA Container Toolkit on the Docker host"
        if kind == "amd" and not Path("/dev/kfd").exists():
            return False, "the image needs an AMD GPU (/dev/kfd) on the Docker host"
        if kind == "intel" and not Path("/dev/dri").exists():
            return False, "the image needs an Intel GPU (/dev/dri) on the Docker host"
        return True, ""

    # ------------------------------------------------------------------ running

    def run(self, argv: list[str], workdir: Path, env: dict[str, str], limits: Limits,
            image: str | None = None) -> ProcResult:
        if image is None:
            raise ExecutorUnavailable("the Docker executor needs the toolchain's image (Executor.image_for)")
        return self._run_in(self._by_id(image), argv, workdir, env, limits)

    def _host_config(self, resolved: ResolvedImage, env: dict[str, str], limits: Limits) -> dict:
        import docker  # type: ignore[import-untyped]

        # CPU: a CFS quota of the job's thread count plus one core of headroom. An exact quota throttles OpenMP
        # threads that spin at barriers (measured: CG in Fortran 7.6 s instead of 4.7 s with 2 threads on 2 cores).
        cpus = min(os.cpu_count() or 1, max(1, int(env.get("OMP_NUM_THREADS", os.cpu_count() or 1))))
        disk_mb = getattr(limits, "disk_mb", max(1024, 4 * limits.file_size_mb))
        # nr_inodes bounds the number of files too (each one is copied back to the host's work dir)
        tmpfs_opts = f"rw,exec,nosuid,nodev,uid={SANDBOX_UID},gid={SANDBOX_UID},mode=0755,nr_inodes={MAX_FILES}"
        mb = 1024 * 1024
        config = dict(
            network_mode="none", read_only=True, user=SANDBOX_USER, init=True, ipc_mode="private",
            cap_drop=["ALL"], security_opt=["no-new-privileges"], pids_limit=limits.pids,
            mem_limit=limits.memory_mb * mb, memswap_limit=limits.memory_mb * mb,
            cpu_period=100_000, cpu_quota=(cpus + 1) * 100_000,
            tmpfs={WORKDIR: f"{tmpfs_opts},size={disk_mb}m", "/tmp": f"{tmpfs_opts},size={max(64, disk_mb // 2)}m"},
            ulimits=[docker.types.Ulimit(name=name, soft=value, hard=value) for name, value in (
                ("cpu", limits.cpu_s), ("fsize", limits.file_size_mb * mb), ("nofile", limits.open_files),
                ("stack", limits.stack_mb * mb), ("core", 0))],
            log_config=docker.types.LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
            mounts=docker_owner.etc_mounts(),  # the sandbox user only, not the image's accounts
        )
        kind = self.accelerator(resolved)
        if kind == "nvidia":
            config["device_requests"] = [docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])]
        elif kind in ("amd", "intel"):
            devices = ["/dev/kfd", "/dev/dri"] if kind == "amd" else ["/dev/dri"]
            present = [d for d in devices if Path(d).exists()]
            config["devices"] = [f"{d}:{d}:rwm" for d in present]
            groups = set()
            for d in present:
                for sub in [Path(d), *Path(d).glob("*")] if Path(d).is_dir() else [Path(d)]:
                    groups.add(sub.stat().st_gid)
            config["group_add"] = [str(g) for g in sorted(groups)]
        return config

    def _run_in(self, resolved: ResolvedImage, argv: list[str], workdir: Path | None, env: dict[str, str],
                limits: Limits, probing: bool = False) -> ProcResult:
        import docker  # type: ignore[import-untyped]

        argv = list(argv)
        if argv and argv[0] in {sys.executable, os.path.realpath(sys.executable)}:
            argv[0] = "python3"  # the toolchain's interpreter is the host's; in the image it is python3 on PATH
        job_env = {k: v for k, v in env.items() if k != "PATH"}
        job_env["PATH"] = resolved.path
        command = argv
        if not probing and not resolved.accelerator and self._probe(resolved)[1]:
            command = ["prlimit", f"--as={limits.address_space_mb * 1024 * 1024}", "--", *argv]
        config = self._host_config(resolved, env, limits)
        keepalive = int(limits.wall_s) + KEEPALIVE_S

        def make(kind: str):
            def create(settings: dict):
                return self.client.containers.create(
                    resolved.id, ["sleep", str(keepalive)], working_dir=WORKDIR, environment={"PATH": resolved.path},
                    hostname="sandbox", labels=docker_owner.labels(), auto_remove=True,
                    name=f"hpceval-{kind}-{uuid.uuid4().hex[:12]}", **settings)

            try:
                container = create(config)
            except docker.errors.APIError as exc:  # an engine that cannot see our files: the image's /etc stays
                if not docker_owner.drop_etc_mounts(config, exc):
                    raise
                container = create(config)
            try:
                container.start()
            except BaseException:
                self._remove(container)
                raise
            return container

        key = (resolved.id, keepalive, repr(sorted(config.items())))
        container = None
        try:
            if lifecycle.stopping():
                raise SandboxError("the harness is stopping (interrupted)")
            try:
                if self.warm and not probing:
                    container = self._pool.take(key)
                    if container is not None:
                        try:
                            container.rename(f"hpceval-job-{uuid.uuid4().hex[:12]}")
                        except docker.errors.APIError:
                            pass  # only the name says it is in use
                if container is None:
                    container = make("job")
                if self.warm and not probing:
                    self._pool.refill(key, make)  # the next command of this configuration finds one started
                if workdir is not None:
                    self._put(container, workdir)
            except docker.errors.APIError as exc:
                raise ContainerError(f"docker: {exc.explanation or exc}") from None
            started = time.time()
            result = self._exec(container, command, job_env, limits)
            if lifecycle.stopping():  # its container was removed by the stop hook: never a verdict
                raise SandboxError("the harness is stopping (interrupted)")
            result.argv = argv
            if workdir is not None and not result.timed_out:
                self._get(container, workdir, since=started - 0.05)
            return result
        finally:
            if container is not None:
                self._remove(container)

    def _remove(self, container) -> None:
        """Remove the container and return only once it is gone (auto_remove may be removing it already)."""
        import docker  # type: ignore[import-untyped]

        deadline = time.monotonic() + 30
        while True:
            try:
                container.remove(force=True)
                return
            except docker.errors.NotFound:
                return
            except docker.errors.APIError:
                if time.monotonic() > deadline:
                    return  # labelled org.hpceval.job; `docker container prune` finds it
                time.sleep(0.1)

    def _put(self, container, workdir: Path) -> None:
        """Copy the host work dir into /w (a tar stream into `tar -x` in the container)."""
        api = self.client.api
        exec_id = api.exec_create(container.id, ["tar", "-x", "-f", "-", "-C", WORKDIR], stdin=True, stdout=True,
                                  stderr=True, user=SANDBOX_USER)["Id"]
        sock = api.exec_start(exec_id, socket=True)
        raw = getattr(sock, "_sock", sock)
        try:
            with tarfile.open(fileobj=_SocketWriter(raw), mode="w|", format=tarfile.GNU_FORMAT) as tar:
                for path in sorted(workdir.iterdir()):
                    tar.add(path, arcname=path.name, filter=_owned_by_sandbox)
            raw.shutdown(socket.SHUT_WR)
            reply = _Tail(4096)
            while True:
                chunk = raw.recv(65536)
                if not chunk:
                    break
                reply.add(chunk)
        finally:
            sock.close()
        code = api.exec_inspect(exec_id).get("ExitCode")
        if code not in (0, None):
            raise ContainerError(f"copying the job into the container failed (tar exit {code}): {reply.text()[-300:]}")

    def _exec(self, container, argv: list[str], env: dict[str, str], limits: Limits) -> ProcResult:
        api = self.client.api
        start = time.monotonic()
        exec_id = api.exec_create(container.id, argv, stdout=True, stderr=True, workdir=WORKDIR, user=SANDBOX_USER,
                                  environment=env)["Id"]
        out, err = _Tail(limits.output_kb * 1024), _Tail(limits.output_kb * 1024)
        failure: list[BaseException] = []

        def pump() -> None:
            try:
                for stdout, stderr in api.exec_start(exec_id, stream=True, demux=True):
                    out.add(stdout)
                    err.add(stderr)
            except Exception as exc:  # noqa: BLE001 - the stream ends with an error when the container is killed
                failure.append(exc)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        reader.join(limits.wall_s)
        timed_out = reader.is_alive()
        if timed_out:
            try:
                container.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass
            reader.join(30)
        seconds = time.monotonic() - start
        code = api.exec_inspect(exec_id).get("ExitCode") if not timed_out else None
        if timed_out:
            code = 137
        elif code is None:
            raise ContainerError(f"docker: the command's output stream broke without an exit code: {failure[:1]}")
        return ProcResult(argv=argv, returncode=code, stdout=out.text(), stderr=err.text(), seconds=seconds,
                          timed_out=timed_out, killed_by="SIGKILL" if timed_out else _signal_name(code))

    def _get(self, container, workdir: Path, since: float) -> None:
        """Copy what the command created or changed in /w back to the host work dir (tar stream, data filter)."""
        api = self.client.api
        exec_id = api.exec_create(container.id, ["tar", "-c", "-f", "-", f"--newer-mtime=@{since:.3f}", "-C",
                                                 WORKDIR, "."], stdout=True, stderr=False, user=SANDBOX_USER)["Id"]
        stream = api.exec_start(exec_id, stream=True)
        try:
            with tarfile.open(fileobj=io.BufferedReader(_ChunkReader(stream)), mode="r|") as tar:
                for member in tar:
                    if member.name in (".", "./"):
                        continue
                    _extract(tar, member, workdir)
        except tarfile.ReadError:
            pass  # empty or truncated (tar could not read what the suggestion left unreadable): keep what came


def _owned_by_sandbox(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = SANDBOX_UID
    info.uname = info.gname = ""
    return info


def _extract(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    """Extract one member of an untrusted archive inside dest, or skip it."""
    if hasattr(tarfile, "data_filter"):
        try:
            tar.extract(member, dest, filter="data")
        except (tarfile.FilterError, OSError):
            pass
        return
    name = Path(member.name)
    if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
        return
    try:
        tar.extract(member, dest, set_attrs=False)
    except OSError:
        pass
