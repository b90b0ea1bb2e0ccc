"""Evaluate one suggestion: bind -> build -> run -> validate -> time, in a fresh sandboxed work dir.

Returns exactly one Verdict with evidence. Faults of the harness or missing toolchains become infra_error,
never a verdict against the LLM.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
import statistics
import tempfile
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from hpceval.bind import BindError, canonical_binding, render_unit
from hpceval.caseio import MissingOutput, read_arrays, read_times, write_cases
from hpceval.contracts import Binding, Evaluation, ProcResult, Verdict
from hpceval.datamap import data_mapping_problem, section_problem
from hpceval.executors import Executor, Limits, SandboxError
from hpceval.paths import DRIVERS_DIR
from hpceval.sharing import sharing_problem
from hpceval.spec import Catalog, KernelSpec, ProgrammingModel
from hpceval.toolchains import get_toolchain
from hpceval.validate import (
    compare,
    make_case,
    size_label,
    strip_comments,
    timing_case,
    usage_problem,
    validation_cases,
)

EVALUATOR_VERSION = "2"
# One timing run at a time per process: concurrent builds still load the machine, but two timed kernels never
# compete for the same cores.
_TIMING_LOCK = threading.Lock()
_STARTUP_FAILURE = re.compile(r"Fatal Python error: (init_\w+|_?Py_Initialize\w*|_PyInterpreter\w*)[^\n]*")


def normalize_code(code: str) -> str:
    lines = [line.rstrip() for line in code.strip().splitlines()]
    return "\n".join(line for line in lines if line)


@dataclass
class Evaluator:
    """Holds what stays fixed across a run: catalog, executor, seed, limits, whether to time."""

    catalog: Catalog
    executor: Executor
    seed: int = 20230615
    build_limits: Limits = field(default_factory=lambda: Limits(wall_s=120))
    run_limits: Limits = field(default_factory=lambda: Limits(wall_s=60))
    timing: bool = True
    keep_dirs: bool = False

    @cached_property
    def _harness_hash(self) -> str:
        h = hashlib.sha256(EVALUATOR_VERSION.encode())
        for path in sorted(DRIVERS_DIR.iterdir()):
            h.update(path.read_bytes())
        return h.hexdigest()[:16]

    def kernel_hash(self, spec: KernelSpec) -> str:
        h = hashlib.sha256()
        for name in ("spec.toml", "reference.py"):
            h.update((spec.folder / name).read_bytes())
        return h.hexdigest()[:16]

    def cache_key(self, code: str, spec: KernelSpec, model: ProgrammingModel, binding: Binding | None) -> str:
        toolchain = get_toolchain(model.toolchain)
        info = _model_info(toolchain, model, self.executor.toolchain_info(toolchain), self.executor)
        payload = {
            "code": normalize_code(code), "kernel": spec.id, "kernel_hash": self.kernel_hash(spec),
            "model": model.id, "toolchain": toolchain.name, "version": info.version, "flags": model.flags,
            "usage": model.usage, "binding": binding.model_dump() if binding else None, "seed": self.seed,
            "executor": self.executor.name, "image": self.executor.image_digest(toolchain.name),
            "harness": self._harness_hash, "timing": self.timing,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def evaluate(self, code: str, spec: KernelSpec, model: ProgrammingModel, binding: Binding | None = None) -> Evaluation:
        lang = self.catalog.languages[model.language]
        toolchain = get_toolchain(model.toolchain)
        info = _model_info(toolchain, model, self.executor.toolchain_info(toolchain), self.executor)
        base = {"toolchain": toolchain.name, "toolchain_version": info.version,
                "image": self.executor.image_digest(toolchain.name), "device": model.device}
        if not code.strip():
            return Evaluation(verdict=Verdict.no_code, evidence="no code in the suggestion", **base)
        if not info.available:
            return Evaluation(verdict=Verdict.infra_error,
                              evidence=f"toolchain unavailable: {toolchain.name}; {info.how_to_get}", **base)
        if not info.can_run:
            return Evaluation(verdict=Verdict.infra_error,
                              evidence=f"toolchain {toolchain.name} builds here but cannot run: {info.note or info.how_to_get}",
                              **base)
        binding = binding or canonical_binding(spec, lang)
        base["variant"] = binding.variant
        if binding.error:
            fault = "harness fault" in binding.error  # the binder crashed: not the suggestion's fault
            return Evaluation(verdict=Verdict.infra_error if fault else Verdict.unbindable, evidence=binding.error,
                              **base)
        try:
            files = binding.files or render_unit(code, spec, lang, binding, toolchain.hooks(model), toolchain.driver_ext)
        except BindError as exc:
            return Evaluation(verdict=Verdict.unbindable, evidence=str(exc), **base)
        workdir = Path(tempfile.mkdtemp(prefix=f"hpceval-{spec.id}-{model.id}-"))
        try:
            return self._build_and_run(workdir, files, spec, model, toolchain, _checked_code(code, binding), base,
                                       binding.mapping)
        except SandboxError as exc:
            return Evaluation(verdict=Verdict.infra_error, evidence=f"sandbox failure: {exc}", **base)
        finally:
            if not self.keep_dirs:
                shutil.rmtree(workdir, ignore_errors=True)

    def _build_and_run(self, workdir: Path, files: dict[str, str], spec: KernelSpec, model: ProgrammingModel,
                       toolchain, code: str, base: dict, mapping: dict[str, str] | None = None) -> Evaluation:
        lang = self.catalog.languages[model.language]
        for name, text in files.items():
            (workdir / name).write_text(text)
        env = toolchain.env(model)
        adjust = _adjustments(toolchain, spec, model, code)
        env = {**env, **adjust.env} if adjust else env
        run_limits = _adjusted_limits(self.run_limits, adjust)
        build_s = 0.0
        for step in toolchain.build_steps(model):
            result = self._exec(toolchain, step, workdir, env, self.build_limits)
            build_s += result.seconds
            if result.timed_out:
                return Evaluation(verdict=Verdict.timeout, evidence=f"build exceeded {self.build_limits.wall_s:.0f} s",
                                  build_s=build_s, **base)
            if result.returncode != 0:
                return Evaluation(verdict=Verdict.build_error, evidence=_first_errors(result), build_s=build_s, **base)

        cases = validation_cases(spec, self.seed)
        if adjust and adjust.sizes is not None:
            cases = [make_case(spec, size, self.seed) for size in adjust.sizes]
        write_cases(workdir, spec, lang, cases)
        result = self._exec(toolchain, toolchain.run_argv(model), workdir, env, run_limits)
        run_s = result.seconds
        failure = self._run_failure(result, len(cases), "validation", base, build_s)
        if failure:
            return failure
        bad, worst = self._check_outputs(workdir, spec, lang, cases)
        if bad:
            verdict, case, detail, error = bad
            return Evaluation(verdict=verdict, evidence=f"size {case.label}: {detail}", max_rel_error=error,
                              failed_size=case.label, build_s=build_s, run_s=run_s, **base)
        stripped = strip_comments(code, lang)
        unmapped = None
        if model.mapping_check:
            unmapped = data_mapping_problem(stripped, lang) or section_problem(stripped, lang, spec, cases, mapping)
        if unmapped:
            return Evaluation(verdict=Verdict.wrong_result, evidence=f"data mapping: {unmapped}", max_rel_error=worst,
                              build_s=build_s, run_s=run_s, **base)
        sharing = sharing_problem(stripped, lang) if lang.id in ("cpp", "fortran") else None
        if sharing:
            return Evaluation(verdict=Verdict.wrong_result, evidence=f"data sharing: {sharing}", max_rel_error=worst,
                              build_s=build_s, run_s=run_s, **base)
        problem = usage_problem(code, model, lang)
        if problem:
            return Evaluation(verdict=Verdict.wrong_model, evidence=problem, max_rel_error=worst, build_s=build_s,
                              run_s=run_s, **base)
        notes = [adjust.note] if adjust and adjust.note else []
        dynamic = getattr(toolchain, "dynamic_check", None)
        if dynamic is not None:
            problem, seen = dynamic(workdir, model, len(cases), code)
            if problem:
                return Evaluation(verdict=Verdict.wrong_model, evidence=f"dynamic check: {problem}", max_rel_error=worst,
                                  build_s=build_s, run_s=run_s, **base)
            notes += [seen] if seen else []
        problem, seen = self._second_run(workdir, spec, model, toolchain, env, run_limits, code, cases)
        if problem:
            return Evaluation(verdict=Verdict.wrong_result, evidence=f"memory check: {problem}", max_rel_error=worst,
                              build_s=build_s, run_s=run_s, **base)
        notes += [seen] if seen else []
        # CPU threading models (toolchains.ThreadCheck): one thread at the validation sizes is not yet a verdict, as a
        # kernel may stay serial below a size threshold of its own; the run at the timing size decides.
        thread_check = getattr(toolchain, "thread_check", None)
        serial = None
        if thread_check is not None:
            serial, seen = thread_check(workdir, model, [case.label for case in cases], code)
            notes += [seen] if seen else []
        can_time = adjust is None or adjust.timing
        timed = self.timing and can_time
        timing = self._time(workdir, spec, model, toolchain, env, base, build_s, code, run_limits) if timed else {}
        if isinstance(timing, Evaluation):
            return timing
        if serial and can_time:  # the timing run's evidence, or (no timing) one untimed call at the timing size
            failure = None if timed else self._run_timing_size(workdir, spec, model, toolchain, env, base, build_s,
                                                               run_limits)
            if failure:
                return failure
            serial, seen = thread_check(workdir, model, [size_label(spec.sizes.timing)], code, earlier=len(cases))
            notes += [seen] if seen else []
        if serial:
            return Evaluation(verdict=Verdict.wrong_model, evidence=f"dynamic check: {serial}", max_rel_error=worst,
                              build_s=build_s, run_s=run_s, **base)
        notes += [timing.pop("_note")] if timing.get("_note") else []
        evidence = "; ".join([f"{len(cases)} sizes within tolerance (max rel error {worst:.2e})", *notes])
        return Evaluation(verdict=Verdict.correct, evidence=evidence, max_rel_error=worst, build_s=build_s,
                          run_s=run_s, **timing, **base)

    def _check_outputs(self, workdir: Path, spec: KernelSpec, lang, cases) -> tuple[tuple | None, float]:
        """((verdict, case, detail, error) of the first bad case, or None; the worst relative error seen)."""
        worst = 0.0
        for i, case in enumerate(cases):
            try:
                outputs = read_arrays(workdir, i, spec, lang, case)
            except MissingOutput as exc:
                return (Verdict.runtime_error, case, str(exc), None), worst
            check = compare(spec, case, outputs)
            worst = max(worst, check.max_rel_error)
            if not check.ok:
                return (Verdict.wrong_result, case, check.detail, check.max_rel_error), worst
        return None, worst

    def _second_run(self, workdir: Path, spec: KernelSpec, model: ProgrammingModel, toolchain, env: dict[str, str],
                    limits: Limits, code: str, cases) -> tuple[str | None, str]:
        """The toolchain's second validation run (toolchains.SecondRun): (finding or None, note)."""
        hook = getattr(toolchain, "second_run", None)
        run = hook(model, code) if hook is not None else None
        if run is None:
            return None, ""
        run_env = {k: v for k, v in env.items() if k not in run.drop_env}
        result = self._exec(toolchain, run.argv, workdir, run_env, limits)
        problem = run.finding(result.returncode, result.stdout + "\n" + result.stderr)
        if problem:
            return problem, ""
        if result.returncode != 0:
            why = "timed out" if result.timed_out else f"exit {result.returncode}"
            return None, f"{run.what} inconclusive ({why})"
        bad, _ = self._check_outputs(workdir, spec, self.catalog.languages[model.language], cases) if run.validate \
            else (None, 0.0)
        if bad:
            _, case, detail, _ = bad
            return f"{run.what}: size {case.label}: {detail}", ""
        return None, f"{run.what} clean"

    def _exec(self, toolchain, argv: list[str], workdir: Path, env: dict[str, str], limits: Limits) -> ProcResult:
        """One sandboxed command; an interpreter that dies while starting up (before any suggested code runs, e.g.
        "Fatal Python error: init_import_site" under heavy load) is retried once, then it is the harness's fault."""
        image = self.executor.image_for(toolchain.name)
        for _ in range(2):
            result = self.executor.run(argv, workdir, env, limits, image=image)
            startup = _STARTUP_FAILURE.search(result.stderr or "") if result.returncode != 0 else None
            if startup is None:
                return result
        raise SandboxError(f"the interpreter failed to start twice ({startup.group(0)})")

    def _run_failure(self, result: ProcResult, n_cases: int, phase: str, base: dict, build_s: float) -> Evaluation | None:
        done = result.stdout.count("hpceval case ")
        where = f"{phase}: {done}/{n_cases} cases finished"
        if result.timed_out:
            return Evaluation(verdict=Verdict.timeout, evidence=f"{where}; killed after {self.run_limits.wall_s:.0f} s",
                              build_s=build_s, run_s=result.seconds, **base)
        if result.returncode != 0:
            signal = f" (signal {result.killed_by})" if result.killed_by else ""
            if result.killed_by == "SIGKILL":  # the kernel's memory cgroup kills with SIGKILL, without a message
                signal += (f": most likely the sandbox's memory limit ({self.run_limits.memory_mb} MiB) or process "
                           f"limit ({self.run_limits.pids}) was hit")
            return Evaluation(verdict=Verdict.runtime_error,
                              evidence=f"{where}; exit {result.returncode}{signal}: {result.tail[-600:]}",
                              build_s=build_s, run_s=result.seconds, **base)
        return None

    def _only_case(self, workdir: Path, spec: KernelSpec, model: ProgrammingModel, case) -> None:
        """Replace the work dir's cases with this one (the validation cases' folders are removed)."""
        for stale in workdir.glob("c*/"):
            shutil.rmtree(stale, ignore_errors=True)
        write_cases(workdir, spec, self.catalog.languages[model.language], [case])

    def _run_timing_size(self, workdir: Path, spec: KernelSpec, model: ProgrammingModel, toolchain, env, base,
                         build_s, run_limits: Limits) -> Evaluation | None:
        """One untimed call at the timing size (for the thread check when timing is off); a failure, or None."""
        case = make_case(spec, spec.sizes.timing, self.seed, write_outputs=False)
        self._only_case(workdir, spec, model, case)
        result = self._exec(toolchain, toolchain.run_argv(model), workdir, env, run_limits)
        return self._run_failure(result, 1, f"run at the timing size {case.label}", base, build_s)

    def _time(self, workdir: Path, spec: KernelSpec, model: ProgrammingModel, toolchain, env, base, build_s,
              code: str = "", run_limits: Limits | None = None):
        case = timing_case(spec, self.seed)
        self._only_case(workdir, spec, model, case)
        with _TIMING_LOCK:
            result = self._exec(toolchain, toolchain.run_argv(model), workdir, env, run_limits or self.run_limits)
        failure = self._run_failure(result, 1, f"timing at {case.label}", base, build_s)
        if failure:
            return failure
        times = read_times(workdir, 0)
        if not times:
            return {}
        note = ""
        kernel_times = getattr(toolchain, "kernel_times", None)
        if kernel_times is not None:  # GPU: the kernels' own device time per call, not allocation and copies
            per_call, how = kernel_times(workdir, model, case.warmup + case.reps, case.warmup, code)
            if per_call:
                note = (f"timed: GPU kernels only ({how}); whole call incl. transfers median "
                        f"{statistics.median(times):.3e} s")
                times = list(per_call)
        times.sort()
        median = statistics.median(times)
        q = statistics.quantiles(times, n=4) if len(times) >= 2 else [median, median, median]
        scalars = {p.name: case.inputs[p.name] for p in spec.params if not p.is_array}
        flops = spec.metric(spec.flops, {**case.size, **scalars})
        nbytes = spec.metric(spec.bytes, {**case.size, **scalars})
        return {"time_median_s": median, "time_min_s": times[0], "time_iqr_s": q[2] - q[0],
                "gflops": flops / median / 1e9 if median > 0 else None,
                "gbytes_per_s": nbytes / median / 1e9 if median > 0 else None, **({"_note": note} if note else {})}


def _model_info(toolchain, model: ProgrammingModel, info, executor: Executor):
    """A toolchain that serves several models may refine availability per model (python_gpu: CuPy or pyCUDA)."""
    refine = getattr(toolchain, "model_info", None)
    if refine is None or not info.available or executor.name != "local":
        return info
    return refine(model, info)


def _adjusted_limits(limits: Limits, adjust) -> Limits:
    """Raise the pids / address-space limits where a toolchain needs it (CUDA reserves a large address space)."""
    changes = {name: max(getattr(limits, name), getattr(adjust, name)) for name in ("pids", "address_space_mb")
               if adjust is not None and getattr(adjust, name, None)}
    return dataclasses.replace(limits, **changes) if changes else limits


def _adjustments(toolchain, spec: KernelSpec, model: ProgrammingModel, code: str):
    """A toolchain's per-suggestion changes (sizes, env, limits, timing), e.g. numba.cuda under the simulator."""
    adjust = getattr(toolchain, "job_adjustments", None)
    return adjust(spec, model, code) if adjust is not None else None


def _checked_code(code: str, binding: Binding) -> str:
    """What the model checks read: the bound function and what it uses (not unused sibling functions), plus the
    suggestion's imports and includes (`import numpy as np` says which library `a * x + y` works with)."""
    if not binding.source:
        return code
    header = [line for line in code.splitlines() if re.match(r"\s*(import\s|from\s+\S+\s+import\s|#\s*include\b)", line)]
    return "\n".join(header) + "\n" + binding.source


def _first_errors(result: ProcResult) -> str:
    """The compiler lines that matter: the first few 'error' lines, else the tail."""
    text = result.stderr or result.stdout
    errors = [line for line in text.splitlines() if "error" in line.lower()]
    return ("\n".join(errors[:6]) if errors else text[-800:]).strip()[:1500]
