"""SYCL 2020 through AdaptiveCpp, built once per machine from its 24.06.0 release source (like Kokkos).

No registry route installs a SYCL compiler (TOOLCHAINS.md §3), so the harness builds AdaptiveCpp itself:

    python -m hpceval.toolchains.sycl build

configures it with the system LLVM/clang 16 (apt: clang-16 llvm-16-dev libclang-16-dev libomp-16-dev
libboost-context-dev libboost-fiber-dev; install.sh) and installs it under $HPCEVAL_CACHE as adaptivecpp-24.06.0
(about 7 MB). The source is $HPCEVAL_ACPP_TARBALL, ../shared/third_party/AdaptiveCpp-24.06.0.tar.gz (the CI route,
no network), the cache, or the upstream release tarball (a user's machine). Where the apt parts are there but the
build is not, the first job builds it (a file lock makes concurrent jobs wait for one build).

Jobs compile with `acpp --acpp-targets=omp` (ahead-of-time OpenMP host flow: no JIT at run time, no kernel-cache
warnings on stderr); HPCEVAL_SYCL_TARGETS overrides it (e.g. "generic" or "cuda:sm_90" with a CUDA-enabled
AdaptiveCpp). Another SYCL compiler on PATH (acpp, icpx -fsycl, clang++ -fsycl) or HPCEVAL_SYCL_CXX is used where
the cached build is absent; a probe compile of a tiny SYCL program (cached) decides whether it really works. Where
none works, every job is infra_error "toolchain unavailable: sycl; <what to install>", never a verdict on the LLM.

Dynamic usage check: AdaptiveCpp's omp backend runs each parallel_for as an OpenMP parallel region of LLVM's
libomp. An OMPT tool (include/hpceval_ompt_tool.c, loaded through OMP_TOOL_LIBRARIES) records whether parallel
regions ran and the largest team; a kernel whose work never ran in a team of more than one thread (a single_task
with a loop, host code beside the queue) is wrong_model. The process's thread count (the OpenMP thread probe) cannot tell: the
SYCL runtime keeps worker threads of its own.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import replace
from functools import cache
from pathlib import Path

from hpceval import scratch
from hpceval.bind import DriverHooks
from hpceval.cases.io import read_optional_text
from hpceval.spec import ProgrammingModel
from hpceval.toolchains import CompiledToolchain, JobAdjust, SecondRun, ToolInfo, model_libs, threads, tool_version
from hpceval.toolchains.cuda import INCLUDE_DIR, FileLock, cache_dir, cached_library, nvidia_gpu
from hpceval.toolchains.source_build import SourceBuildError, finish_install, is_complete, run_steps

ACPP_VERSION = "24.06.0"
TARBALL_NAME = f"AdaptiveCpp-{ACPP_VERSION}.tar.gz"
TARBALL_SHA256 = "4d45432a85313e9c2bc4355b9d5817b0052ddc1bc5df9f3e7a651b722a03c5bd"
UPSTREAM_URL = f"https://github.com/AdaptiveCpp/AdaptiveCpp/archive/refs/tags/v{ACPP_VERSION}.tar.gz"
SHARED_TARBALL = Path(__file__).resolve().parents[3].parent / "shared" / "third_party" / TARBALL_NAME
LLVM_VERSION = "16"
APT_DEPS = (f"clang-{LLVM_VERSION} llvm-{LLVM_VERSION}-dev libclang-{LLVM_VERSION}-dev libomp-{LLVM_VERSION}-dev "
            "libboost-context-dev libboost-fiber-dev")
DEFAULT_TARGETS = "omp"
# "minimal": the runtime, the OpenMP host backend and the clang plugin, without the generic SSCP JIT compiler, the
# stdpar compiler and the CPU kernel compiler (CBS), which are most of the build's time (LLVM passes). Jobs use
# --acpp-targets=omp, whose kernels then run as OpenMP parallel loops (omp.library-only).
FEATURE_PROFILE = os.environ.get("HPCEVAL_ACPP_PROFILE", "minimal")
OMPT_SOURCE = INCLUDE_DIR / "hpceval_ompt_tool.c"
PROBE_FILE = "sycl_ompt.txt"
INSTALL_HINT = (f"AdaptiveCpp: apt-get install {APT_DEPS} cmake, then python -m hpceval.toolchains.sycl build "
                "(or put another SYCL compiler on PATH: icpx -fsycl)")
PROBE = """#include <sycl/sycl.hpp>
int main() {
  sycl::queue q;
  int *v = sycl::malloc_shared<int>(4, q);
  q.parallel_for(sycl::range<1>(4), [=](sycl::id<1> i) { v[i] = (int)i[0]; }).wait();
  int ok = v[3] == 3;
  sycl::free(v, q);
  return ok ? 0 : 1;
}
"""


class AcppBuildError(SourceBuildError):
    pass


def install_dir() -> Path:
    return cache_dir() / f"adaptivecpp-{ACPP_VERSION}-{FEATURE_PROFILE}"


def cached_acpp() -> Path | None:
    return install_dir() / "bin" / "acpp" if is_complete(install_dir()) else None


def missing_build_deps() -> list[str]:
    """What the AdaptiveCpp build needs and this machine lacks (empty: it can build)."""
    llvm = Path(f"/usr/lib/llvm-{LLVM_VERSION}")
    needs = {"cmake": shutil.which("cmake"), f"clang++-{LLVM_VERSION}": shutil.which(f"clang++-{LLVM_VERSION}"),
             f"llvm-{LLVM_VERSION}-dev": (llvm / "lib" / "cmake" / "llvm" / "LLVMConfig.cmake").is_file(),
             f"libclang-{LLVM_VERSION}-dev": (llvm / "include" / "clang" / "Basic" / "Version.h").is_file(),
             f"libomp-{LLVM_VERSION}-dev": (llvm / "include" / "omp.h").is_file()
             or Path(f"/usr/lib/llvm-{LLVM_VERSION}/lib/clang/{LLVM_VERSION}/include/omp.h").is_file(),
             "libboost-fiber-dev": Path("/usr/include/boost/fiber/all.hpp").is_file(),
             "libboost-context-dev": Path("/usr/include/boost/context/fiber.hpp").is_file()}
    return [name for name, ok in needs.items() if not ok]


def buildable() -> bool:
    """Whether a job may build AdaptiveCpp into the cache: not built yet, no forced compiler, the apt parts here."""
    return not os.environ.get("HPCEVAL_SYCL_CXX") and not cached_acpp() and not missing_build_deps()


def tarball_path(download: bool = True) -> Path:
    """The release source: $HPCEVAL_ACPP_TARBALL, ../shared (CI), the cache, else the upstream release (checked)."""
    given = os.environ.get("HPCEVAL_ACPP_TARBALL")
    if given and Path(given).is_file():
        return Path(given)
    if SHARED_TARBALL.is_file():
        return SHARED_TARBALL
    cached = cache_dir() / "src" / TARBALL_NAME
    if cached.is_file():
        return cached
    if not download:
        raise AcppBuildError(f"no {TARBALL_NAME}: set HPCEVAL_ACPP_TARBALL or allow the download of {UPSTREAM_URL}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".part")
    try:
        with urllib.request.urlopen(UPSTREAM_URL, timeout=120) as response, tmp.open("wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as exc:
        raise AcppBuildError(f"cannot download {UPSTREAM_URL}: {exc}") from exc
    digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
    if digest != TARBALL_SHA256:
        tmp.unlink()
        raise AcppBuildError(f"{UPSTREAM_URL}: sha256 {digest}, expected {TARBALL_SHA256}")
    tmp.rename(cached)
    return cached


def build_acpp(jobs: int | None = None, log=None) -> Path:
    """Configure, build and install AdaptiveCpp (OpenMP host backend) into the cache; no-op when it is there."""
    target = install_dir()
    if is_complete(target):
        return target
    with FileLock(cache_dir() / ".adaptivecpp.lock"):
        if is_complete(target):
            return target
        missing = missing_build_deps()
        if missing:
            raise AcppBuildError(f"the AdaptiveCpp build needs: apt-get install {' '.join(missing)}")
        source = tarball_path()
        jobs = jobs or os.cpu_count() or 2
        with tempfile.TemporaryDirectory(prefix="hpceval-acpp-", dir=cache_dir()) as tmp:
            work = Path(tmp)
            with tarfile.open(source) as tar:
                tar.extractall(work, filter="data")
            src = next(p for p in work.iterdir() if p.is_dir())
            if target.exists():
                shutil.rmtree(target)
            llvm = f"/usr/lib/llvm-{LLVM_VERSION}"
            configure = ["cmake", "-S", str(src), "-B", str(work / "build"), "-DCMAKE_BUILD_TYPE=Release",
                         f"-DCMAKE_INSTALL_PREFIX={target}", f"-DLLVM_DIR={llvm}/lib/cmake/llvm",
                         f"-DCLANG_EXECUTABLE_PATH=/usr/bin/clang++-{LLVM_VERSION}",
                         f"-DCMAKE_C_COMPILER=clang-{LLVM_VERSION}", f"-DCMAKE_CXX_COMPILER=clang++-{LLVM_VERSION}",
                         "-DWITH_CUDA_BACKEND=OFF", "-DWITH_ROCM_BACKEND=OFF", "-DWITH_OPENCL_BACKEND=OFF",
                         "-DWITH_LEVEL_ZERO_BACKEND=OFF", f"-DACPP_COMPILER_FEATURE_PROFILE={FEATURE_PROFILE}"]
            run_steps([configure, ["cmake", "--build", str(work / "build"), "-j", str(jobs)],
                       ["cmake", "--install", str(work / "build")]], f"AdaptiveCpp {ACPP_VERSION}", log=log,
                      error=AcppBuildError)
        finish_install(target, ACPP_VERSION)
    return target


def _candidates() -> list[list[str]]:
    forced = os.environ.get("HPCEVAL_SYCL_CXX")
    if forced:
        return [shlex.split(forced)]
    acpp = cached_acpp()
    out = [[str(acpp)]] if acpp else []
    for exe in ("acpp", "syclcc", "icpx", "clang++"):
        if shutil.which(exe):
            out.append([exe] if exe in ("acpp", "syclcc") else [exe, "-fsycl"])
    return out


def _is_acpp(command: list[str] | tuple[str, ...]) -> bool:
    return Path(command[0]).name in ("acpp", "syclcc")


def _target_flags(command: list[str] | tuple[str, ...]) -> list[str]:
    targets = os.environ.get("HPCEVAL_SYCL_TARGETS", DEFAULT_TARGETS)
    return [f"--acpp-targets={targets}"] if targets and _is_acpp(command) else []


@cache
def _probe(command: tuple[str, ...]) -> tuple[bool, bool, str]:
    """(compiles, runs, message) for a tiny SYCL program built with `command`; also whether the OMPT tool recorded
    its parallel_for (`tool_verified`)."""
    with tempfile.TemporaryDirectory(prefix="hpceval-sycl-", dir=scratch.root()) as tmp:
        src = Path(tmp) / "probe.cpp"
        src.write_text(PROBE)
        try:
            built = subprocess.run([*command, *_target_flags(command), "-O1", str(src), "-o", str(Path(tmp) / "probe")],
                                   capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, False, str(exc)
        if built.returncode != 0:
            text = (built.stderr or built.stdout).strip()
            return False, False, text.splitlines()[0][:200] if text else "probe compile failed"
        tool = ompt_tool()
        env = {**os.environ, "OMP_NUM_THREADS": "2", "HPCEVAL_SYCL_PROBE_OUT": str(Path(tmp) / PROBE_FILE)}
        if tool:
            env["OMP_TOOL_LIBRARIES"] = str(tool)
        try:
            ran = subprocess.run([str(Path(tmp) / "probe")], capture_output=True, text=True, timeout=120, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return True, False, str(exc)
        record = read_ompt(Path(tmp))
        _TOOL_VERIFIED[command] = bool(tool and record and record["regions"] > 0)
        return True, ran.returncode == 0, (ran.stderr.strip().splitlines() or [""])[-1][:200]


_TOOL_VERIFIED: dict[tuple[str, ...], bool] = {}


def tool_verified() -> bool:
    """Whether the OMPT tool recorded the probe program's parallel_for: only then is a job without a record a
    job whose OpenMP runtime never started (rather than a tool that did not load)."""
    found = sycl_compiler()
    return bool(found and _TOOL_VERIFIED.get(tuple(found[0])))


@cache
def sycl_compiler() -> tuple[list[str], str, bool, str] | None:
    """(command, version, can run, note) of the first working SYCL compiler, or None."""
    for command in _candidates():
        compiles, runs, message = _probe(tuple(command))
        if not compiles:
            continue
        if _is_acpp(command):
            version = tool_version([command[0], "--acpp-version"], r"version: *(\S+)").replace(command[0], "AdaptiveCpp")
        else:
            version = tool_version([command[0], "--version"]) or command[0]
        return command, version, runs, "" if runs else f"the probe program did not run: {message}"
    return None


@cache
def ompt_tool() -> Path | None:
    """The OMPT tool of the dynamic check, built once into the cache with clang (None without clang or omp-tools.h)."""
    compiler = shutil.which(f"clang-{LLVM_VERSION}") or shutil.which("clang")
    if not compiler:
        return None
    return cached_library("ompt-tool", "libhpceval_ompt_tool.so", OMPT_SOURCE,
                          [compiler, "-O2", "-shared", "-fPIC"])


def read_ompt(workdir: Path) -> dict[str, int] | None:
    """The OMPT tool's record of the run (None: no record), removed once read."""
    text = read_optional_text(workdir, PROBE_FILE)  # never follows a link the job planted
    (workdir / PROBE_FILE).unlink(missing_ok=True)
    if text is None:
        return None
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return {"regions": 0, **out}  # created when libomp started, no parallel region since


_SYCL_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:sycl/sycl|CL/sycl|SYCL/sycl|sycl|hipSYCL/sycl/sycl)\.hpp[>"]',
                           re.MULTILINE)
_CL_SYCL = re.compile(r"\bcl\s*::\s*sycl\b")


def missing_header(code: str) -> str | None:
    """The SYCL header a suggestion that includes none is written against (None where it includes one): SYCL 1.2.1's
    <CL/sycl.hpp> where it spells `cl::sycl`, else SYCL 2020's <sycl/sycl.hpp>. The harness adds it, as the Kokkos
    toolchain adds Kokkos_Core.hpp: which header a SYCL compiler wants is the toolchain's business, and its
    omission is no fault of the kernel's (one that fails for another reason still fails)."""
    if _SYCL_INCLUDE.search(code):
        return None
    return "<CL/sycl.hpp>" if _CL_SYCL.search(code) else "<sycl/sycl.hpp>"


class Sycl(CompiledToolchain):
    name = "sycl"
    language = "cpp"
    base_flags = ("-O2", "-std=c++17", "-w")
    sources = ("driver.cpp",)
    install_hint = INSTALL_HINT

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        found = sycl_compiler()
        if found is None:
            if buildable():
                return ToolInfo(True, f"AdaptiveCpp {ACPP_VERSION} (builds on first use, about 5-20 min)")
            if nvidia_gpu() is not None and missing_build_deps():
                return ToolInfo(False, how_to_get=f"no SYCL here: AdaptiveCpp (OpenMP host or CUDA flow) needs "
                                f"{' '.join(missing_build_deps())} to build; the CPU machine's cpp-sycl is the answer")
            tried = ", ".join(" ".join(c) for c in _candidates())
            extra = f" (found {tried}, but a SYCL probe program does not compile with it)" if tried else ""
            return ToolInfo(False, how_to_get=INSTALL_HINT + extra)
        command, version, runs, note = found
        targets = " ".join(_target_flags(command))
        if not runs:
            return ToolInfo(True, version, can_run=False, note=note or "no SYCL device here",
                            how_to_get="a SYCL device/runtime backend (OpenMP host for acpp, an OpenCL/Level Zero/CUDA runtime for DPC++)")
        note = ""
        if _is_acpp(command) and "omp" in targets and nvidia_gpu() is not None:
            note = ("the SYCL route is the CPU: this AdaptiveCpp has only its OpenMP host backend (the CUDA flow "
                    "needs an AdaptiveCpp built with WITH_CUDA_BACKEND and a clang that supports this CUDA)")
        return ToolInfo(True, f"{version} {targets}".strip(), note=note)

    def compiler_command(self) -> list[str]:
        """The SYCL compiler; builds AdaptiveCpp into the cache first where nothing else is there but it can."""
        found = sycl_compiler()
        if found is None and buildable():
            build_acpp()
            sycl_compiler.cache_clear()
            found = sycl_compiler()
        return found[0] if found else ["acpp"]

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        command = self.compiler_command()
        return [[*command, *self.base_flags, *self.layout_flags, *_target_flags(command), *model.flags, *self.sources,
                 "-o", "prog", *model_libs(model)]]

    def unit_hooks(self, model: ProgrammingModel, code: str) -> DriverHooks:
        hooks = super().unit_hooks(model, code)
        header = missing_header(code)
        return replace(hooks, includes=[*hooks.includes, f"#include {header}"]) if header else hooks

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        adjust = super().job_adjustments(spec, model, code)
        header = missing_header(code)
        if not header:
            return adjust
        note = f"#include {header} added by the harness (the suggestion includes no SYCL header)"
        return replace(adjust, note="; ".join(n for n in (adjust.note, note) if n)) if adjust else JobAdjust(note=note)

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = {**super().env(model), "OMP_PROC_BIND": "false"}
        for key in ("ACPP_VISIBILITY_MASK", "ONEAPI_DEVICE_SELECTOR", "SYCL_DEVICE_FILTER", "LD_LIBRARY_PATH"):
            if os.environ.get(key):
                env[key] = os.environ[key]
        found = sycl_compiler()
        if found and _is_acpp(found[0]) and Path(found[0][0]).is_absolute():
            # the whole install (its etc/ configuration, headers, runtime libraries), not only bin/acpp, must be
            # visible in the sandbox, which shows the paths named in a job's argv and environment
            env["HPCEVAL_ACPP_ROOT"] = str(Path(found[0][0]).parent.parent)
        tool = ompt_tool() if self._omp_flow() else None
        if tool:
            env["OMP_TOOL_LIBRARIES"] = str(tool)
            env["HPCEVAL_SYCL_PROBE_OUT"] = PROBE_FILE
        return env

    def _omp_flow(self) -> bool:
        found = sycl_compiler()
        return found is None or (_is_acpp(found[0]) and "omp" in " ".join(_target_flags(found[0])))

    def second_run(self, model: ProgrammingModel, code: str = "") -> SecondRun | None:
        """The same code rebuilt with AddressSanitizer and validated again (omp flow): a kernel that reads one
        element past a `malloc_device` or buffer allocation reads the device copy's heap neighbour, which the
        driver's guards never see, and usually gets a harmless value (a GEMV `j <= n` mutant survived that way)."""
        found = sycl_compiler()
        if found is None or not _is_acpp(found[0]) or not self._omp_flow() or os.environ.get("HPCEVAL_NO_ASAN"):
            return None
        command = [*found[0], *self.base_flags, *_target_flags(found[0]), *model.flags, "-fsanitize=address",
                   "-fno-omit-frame-pointer", *self.sources, "-o", "prog_asan"]
        build = f"{' '.join(shlex.quote(c) for c in command)} >/dev/null 2>&1 || exit {NO_ASAN_BUILD}"
        return SecondRun(ASAN_RUN, ["sh", "-c", f"{build}; exec ./prog_asan cases.txt"], asan_finding,
                         drop_env=("OMP_TOOL_LIBRARIES", "HPCEVAL_SYCL_PROBE_OUT"),
                         env={"ASAN_OPTIONS": f"detect_leaks=0:exitcode={ASAN_EXIT}:allocator_may_return_null=1"},
                         address_space_mb=1 << 30, wall_s=300, validate=True)

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        """Did the SYCL runtime run the kernel in an OpenMP team of more than one thread (omp flow only)?"""
        record = read_ompt(workdir)
        tool = ompt_tool() if self._omp_flow() else None
        if tool is None:
            return None, ""
        if record is None and not tool_verified():
            return None, ""
        if record is None:  # the tool opens its record when libomp starts: no record, no OpenMP runtime ran
            return (f"no SYCL kernel ran on the OpenMP backend in {calls} validation calls (AdaptiveCpp's omp "
                    "backend was never started: the work was done on the host outside the queue)"), ""
        if record["regions"] == 0:
            return (f"no SYCL parallel_for ran on the OpenMP backend in {calls} validation calls (a single_task, "
                    "or the work done on the host outside the queue)"), ""
        team = record.get("max_team", 0)
        if team < 2 <= threads():
            return (f"the SYCL kernel ran on 1 thread: every OpenMP parallel region of the omp backend had a team of "
                    f"{team} (OMP_NUM_THREADS={threads()})"), ""
        return None, f"SYCL omp backend: parallel regions ran, largest team {team} threads"


ASAN_RUN = "AddressSanitizer run (the same code rebuilt with -fsanitize=address)"
ASAN_EXIT = 88
NO_ASAN_BUILD = 87  # no sanitizer runtime (libclang-rt-16-dev): inconclusive, never held against the kernel


def asan_finding(returncode: int, output: str) -> str | None:
    """What AddressSanitizer reported (kind, access, where relative to which allocation), or None."""
    if returncode != ASAN_EXIT or "ERROR: AddressSanitizer" not in output:
        return None
    lines = [ln.strip() for ln in output.splitlines()]
    kind = next((ln.split("AddressSanitizer:", 1)[1].split(" on address")[0].strip() for ln in lines
                 if "ERROR: AddressSanitizer:" in ln), "error")
    access = next((ln.split(" at 0x")[0].split(" thread")[0] for ln in lines if re.match(r"(READ|WRITE) of size", ln)), "")
    where = next((re.sub(r"0x[0-9a-f]+ is located", "located", ln) for ln in lines if " is located " in ln), "")
    return f"{ASAN_RUN}: {kind}" + "".join(f"; {part}" for part in (access, where) if part)


TOOLCHAIN = Sycl()


def main(argv: list[str]) -> int:
    if argv[:1] != ["build"]:
        print("usage: python -m hpceval.toolchains.sycl build [-jN]")
        return 2
    jobs = next((int(a[2:]) for a in argv[1:] if a.startswith("-j") and a[2:].isdigit()), None)
    path = build_acpp(jobs=jobs, log=sys.stdout if "-v" in argv else None)
    print(f"AdaptiveCpp {ACPP_VERSION}: {path}")
    tool = ompt_tool()
    print(f"OMPT tool: {tool}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
