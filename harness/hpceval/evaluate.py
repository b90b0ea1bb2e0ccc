"""Evaluate one suggestion: bind, then the ordered checks (build, validation, model checks, timing).

Returns exactly one Verdict with evidence. Faults of the harness or missing toolchains become infra_error,
never a verdict against the LLM. The checks themselves live in `hpceval.checks`, one module each; this module
only says which run, in which order, and turns the last one's silence into `correct`.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from hpceval import scratch
from hpceval.analysis.completeness import (
    drop_local_headers,
    incomplete_reason,
    local_headers,
    module_attribute_calls,
    parse_recovered,
)
from hpceval.bind import BindError, canonical_binding, render_unit
from hpceval.bind.adapt.cpp import FIXED_EXTENT
from hpceval.bind.glue.launch import harness_launched
from hpceval.bind.graded import graded_spec
from hpceval.bind.signature import CLOSED
from hpceval.canary import Canaries
from hpceval.cases.feasible import feasible_timing
from hpceval.checks.array_sections import covers_footprint
from hpceval.checks.base import STARTUP_FAILURE, Check, Job, adjusted_limits, first_errors
from hpceval.checks.build import builds
from hpceval.checks.builds_alone import (
    Alone,
    AloneCache,
    alone_files,
    alone_steps,
    decide,
    declared_never_defined,
    from_result,
    glue_fault_lines,
    missing_names,
)
from hpceval.checks.data_mapping import graded_as_mapped, maps_data
from hpceval.checks.data_sharing import shares_correctly
from hpceval.checks.driver_access import reaches_no_driver
from hpceval.checks.dynamic_usage import ran_with_model
from hpceval.checks.interposition import defines_no_timer
from hpceval.checks.model_usage import uses_model
from hpceval.checks.numpy_loops import vectorised
from hpceval.checks.outputs import validates
from hpceval.checks.python_import import missing_library
from hpceval.checks.second_run import second_run_clean
from hpceval.checks.threads import threads_at_timing_size, threads_at_validation
from hpceval.checks.timing import prepare as prepare_timing
from hpceval.checks.timing import timed
from hpceval.checks.where_work_ran import work_where_the_model_runs
from hpceval.checks.work_in_construct import work_in_construct
from hpceval.contracts import Binding, Evaluation, ProcResult, Verdict
from hpceval.executors import Executor, Limits, SandboxError
from hpceval.paths import DRIVERS_DIR
from hpceval.redact import redacted
from hpceval.spec import Catalog, KernelSpec, ProgrammingModel
from hpceval.toolchains import Toolchain, ToolInfo, build_with_standards, get_toolchain

# The checks every suggestion goes through, in order; the first that returns a verdict ends the evaluation.
# Checks that do not apply to a model (data mapping for a non-offload model) return None at once.
CHECKS: tuple[Check, ...] = (
    builds,                  # build_error / timeout
    reaches_no_driver,       # no route into the driver: its names, frames, modules, code (wrong_result)
    defines_no_timer,        # compiled: no clock/I-O/exit function of the C library defined (wrong_result)
    validates,               # runtime_error / timeout / wrong_result at the validation sizes
    maps_data,               # offload models: unmapped pointers, results not copied back (wrong_result)
    covers_footprint,        # offload models: array sections that miss what the kernel touches (wrong_result)
    shares_correctly,        # OpenMP/OpenACC: races, mismatched reductions (wrong_result)
    uses_model,              # the model's construct is in the code (wrong_model)
    work_in_construct,       # directive models: the loop nest writing the outputs is in a parallel construct
    vectorised,              # NumPy: no Python-level loops doing element work (wrong_model)
    work_where_the_model_runs,  # Numba/GPU models: the outputs are written by jitted/device work (wrong_model)
    ran_with_model,          # the toolchain's probe: a GPU kernel ran, a Kokkos dispatch (wrong_model)
    second_run_clean,        # memcheck / shared-memory rerun (wrong_result)
    threads_at_validation,   # CPU threading models: threads seen at the validation sizes
    timed,                   # the timing run (its failure is the suggestion's verdict)
    threads_at_timing_size,  # one thread at every size, the timing size included (wrong_model)
)

EVALUATOR_VERSION = "30"  # part of every cache key: bump when a verdict can change without a driver file changing (toolchain env)


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
    # CUDA code that calls cuBLAS/cuSPARSE instead of writing a kernel counts as CUDA (rubric.toml's
    # vendor_library_counts; None: read it from the default rubric)
    vendor_library_counts: bool | None = None
    alone_cache: AloneCache = field(default_factory=AloneCache)  # units built alone (checks.builds_alone)
    # environment canaries (hpceval.canary): the model's reference solution runs here once before its suggestions;
    # on for runs (cli), off where the references themselves are graded (selftest) and in verdict tests
    canaries: bool = False
    _canaries: Canaries = field(default_factory=Canaries, repr=False, compare=False)

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

    def evaluate(self, code: str, spec: KernelSpec, model: ProgrammingModel, binding: Binding | None = None,
                 graded: KernelSpec | None = None) -> Evaluation:
        """graded: the spec to grade against instead of the binding's own (hpceval.probe: one small case)."""
        if self.canaries:
            broken = self._canaries.check(self, spec, model)
            if broken is not None:
                return broken
        if binding is not None and binding.alternatives and not binding.error and graded is None:
            from hpceval.probe import probe  # near-tied mappings: keep the one that validates on a small case

            binding, note = probe(self, code, spec, model, binding)
            e = self._evaluate(code, spec, model, binding, None)
            return redacted(e.model_copy(update={"evidence": f"{e.evidence}; {note}"}))
        return redacted(self._evaluate(code, spec, model, binding, graded))  # no host user or host name in evidence

    def evaluate_reference(self, code: str, spec: KernelSpec, model: ProgrammingModel) -> Evaluation:
        """The model's reference solution, canonically bound and untimed (the environment canary's run)."""
        return redacted(self._evaluate(code, spec, model, None))

    def _evaluate(self, code: str, spec: KernelSpec, model: ProgrammingModel, binding: Binding | None,
                  graded: KernelSpec | None = None) -> Evaluation:
        lang = self.catalog.languages[model.language]
        toolchain = get_toolchain(model.toolchain)
        info = _model_info(toolchain, model, self.executor.toolchain_info(toolchain), self.executor)
        base = {"toolchain": toolchain.name, "toolchain_version": info.version,
                "image": self.executor.image_digest(toolchain.name), "device": toolchain.device(model, code)}
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
            if "harness fault" in binding.error:  # the binder crashed: not the suggestion's fault
                return Evaluation(verdict=Verdict.infra_error, evidence=binding.error, **base)
            return self._unbound(code, spec, model, binding.error, base)
        missing = self._missing_names(binding.source or code, spec, model)
        if missing:  # a complete-looking function that calls what nobody defines, and the compiler agrees
            return Evaluation(verdict=Verdict.incomplete, evidence=missing, **base)
        spec = graded or graded_spec(spec, binding)  # a variant at random extra values, in the precision graded
        spec, feasible_note = feasible_timing(spec, self.run_limits)  # a dense CG is timed where it fits
        spec, mapped_note = graded_as_mapped(spec, code, lang, model, binding.mapping)  # copyout of a kept output
        feasible_note = "; ".join(n for n in (feasible_note, mapped_note) if n)
        try:
            files = binding.files or render_unit(code, spec, lang, binding, toolchain.unit_hooks(model, code),
                                                        toolchain.driver_ext)
        except BindError as exc:
            return self._unbound(code, spec, model, str(exc), base)
        prefix = f"hpceval-{spec.id}-{model.id}-"  # in the scratch root: removed with the run however it ends
        workdir = Path(tempfile.mkdtemp(prefix=prefix)) if self.keep_dirs else scratch.new_dir(prefix)
        try:
            e = self._run_checks(workdir, files, spec, model, toolchain, _checked_code(code, binding), base,
                                 binding.mapping, binding.function, code, feasible_note,
                                 harness_synced=harness_launched(binding.call))
            if mapped_note and e.verdict == Verdict.wrong_result:  # why its kept elements came back undefined
                e = e.model_copy(update={"evidence": f"{e.evidence}; data mapping: {mapped_note}"})
            return self._build_failed(e, code, binding.source or code, spec, model) \
                if e.verdict == Verdict.build_error else e
        except SandboxError as exc:
            return Evaluation(verdict=Verdict.infra_error, evidence=f"sandbox failure: {exc}", **base)
        finally:
            if not self.keep_dirs:
                scratch.remove_later(workdir)

    def _run_checks(self, workdir: Path, files: dict[str, str], spec: KernelSpec, model: ProgrammingModel,
                    toolchain: Toolchain, code: str, base: dict, mapping: dict[str, str],
                    function: str = "", suggestion: str = "", note: str = "", harness_synced: bool = False) -> Evaluation:
        for name, text in {**toolchain.unit_files(model), **files}.items():
            (workdir / name).write_text(text)
        adjust = toolchain.job_adjustments(spec, model, code)
        env = toolchain.env(model)
        job = Job(workdir=workdir, spec=spec, model=model, lang=self.catalog.languages[model.language],
                  toolchain=toolchain, code=code, mapping=mapping, env={**env, **adjust.env} if adjust else env,
                  build_limits=self.build_limits, run_limits=adjusted_limits(self.run_limits, adjust), seed=self.seed,
                  timing_wanted=self.timing, runner=self._runner(toolchain), base=base, adjust=adjust,
                  function=function, suggestion=suggestion, harness_synced=harness_synced)
        job.note(adjust.note if adjust else "")
        job.note(note)
        prepare_timing(job)
        vendor = _vendor_libraries(model, code)
        for step in CHECKS:
            verdict = step(job)
            if verdict is not None and vendor and verdict.verdict == Verdict.wrong_model \
                    and step in (uses_model, ran_with_model):
                if not self._vendor_counts():
                    return job.verdict(Verdict.wrong_model, f"vendor library ({', '.join(vendor)}) instead of a "
                                       f"{model.name} kernel (rubric vendor_library_counts = false)")
                continue  # the library's kernels did the work: counted as the model ("vendor library" note)
            if verdict is not None:
                return verdict
        evidence = "; ".join([f"{len(job.cases)} sizes within tolerance (max rel error {job.worst:.2e})", *job.notes,
                              *([job.timing_note] if job.timing_note else [])])
        return job.verdict(Verdict.correct, evidence, **job.timing)

    def _unbound(self, code: str, spec: KernelSpec, model: ProgrammingModel, error: str, base: dict) -> Evaluation:
        """No binding. Compile first (checks.builds_alone): no complete kernel is `incomplete`, code that does not
        build alone `build_error` (both the LLM's fault, whatever the signature); then a function without one of
        the kernel's data inputs is `wrong_result` (another operation); only code that builds alone and that the
        harness could not map is `unbindable` (the harness's shortfall, outside the score)."""
        lang = model.language
        reason = _completeness(code, lang)
        names = missing_names(reason)
        recovered = parse_recovered(code, lang)
        alone = self._alone(code, spec, model, whole=True) if (reason is None or names or recovered) else Alone(None)
        decision = decide(reason, names, alone, lang, recovered)
        if decision.verdict == "incomplete":
            return Evaluation(verdict=Verdict.incomplete, evidence=f"{decision.evidence}; {error}", **base)
        environment = missing_library(alone.evidence, model) if decision.verdict == "build_error" else None
        if environment:  # a library of the model the sandbox lacks: the environment's fault (checks.python_import)
            return Evaluation(verdict=Verdict.infra_error, evidence=f"{environment}; binding: {error}", **base)
        if decision.verdict == "build_error":
            return Evaluation(verdict=Verdict.build_error, evidence=f"{decision.evidence} (the suggestion built alone, "
                              f"before binding; binding: {error})", **base)
        if FIXED_EXTENT in error:  # a std::array<T, N> kernel array: one size only (bind.adapt.cpp.fixed_extent)
            return Evaluation(verdict=Verdict.wrong_result, evidence=f"{error} (the harness grades {spec.name} over "
                              f"several sizes)", **base)
        missing = _missing_data_inputs(error, spec)
        if missing and reason and CUT_OFF in reason:  # the kernel was where the answer was cut: no other operation
            return Evaluation(verdict=Verdict.incomplete, evidence=f"{reason}: cut off before the kernel (its complete "
                              f"functions are helpers, none with {', '.join(missing)}); {error}", **base)
        if missing:
            return Evaluation(verdict=Verdict.wrong_result,
                              evidence=f"{error}: a function without {', '.join(missing)} cannot compute {spec.name} "
                                       f"for the {', '.join(missing)} it is given (another operation, or a fixed value)",
                              **base)
        built = " (the suggestion builds alone)" if alone.built else ""
        return Evaluation(verdict=Verdict.unbindable, evidence=error + built, **base)

    def _build_failed(self, e: Evaluation, code: str, bound: str, spec: KernelSpec,
                      model: ProgrammingModel) -> Evaluation:
        """A bound build that failed: a function cut off where the answer ends (a Python `for` with no body, which
        the binder could still read) is `incomplete` (precedence incomplete > build_error); else the glue's fault
        or the build_error as it is."""
        reason = _completeness(code, model.language)
        if reason and CUT_OFF in reason and not missing_names(reason):
            return e.model_copy(update={"verdict": Verdict.incomplete, "evidence": f"{reason}; the build: {e.evidence}"})
        declared = declared_never_defined(code, model.language, e.evidence)
        if declared:  # a prototype and no body: the helper is missing, as one called without any declaration
            return e.model_copy(update={"verdict": Verdict.incomplete, "evidence": "incomplete: calls helpers it "
                                        f"declares but never defines: {', '.join(f'`{n}`' for n in declared)} (the "
                                        f"linker: undefined reference); the build: {e.evidence}"})
        return self._glue_fault(e, bound, spec, model)

    def _glue_fault(self, e: Evaluation, code: str, spec: KernelSpec, model: ProgrammingModel) -> Evaluation:
        """A bound build that failed only in the driver's text, around a suggestion that builds alone, failed in the
        harness's glue (a type it could not build, a call that does not match): `unbindable`, the harness's
        shortfall, never the LLM's build_error."""
        lines = glue_fault_lines(e.evidence)
        if not lines or not self._alone(code, spec, model).built:
            return e
        return e.model_copy(update={"verdict": Verdict.unbindable, "evidence": "unbindable: the harness's glue "
                                    "around the suggestion did not compile (the suggestion builds alone): " + "; ".join(lines)})

    def _missing_names(self, code: str, spec: KernelSpec, model: ProgrammingModel) -> str | None:
        """Before the build of a bound function: `incomplete` only for names the analysis finds undefined and the
        compiler confirms; a typo or any other failure is left for the bound build to report (build_error)."""
        reason = _completeness(code, model.language)
        names = missing_names(reason)
        if not names and not (model.language == "python" and module_attribute_calls(code)):
            return None
        decision = decide(reason, names, self._alone(code, spec, model), model.language)
        return decision.evidence if decision.verdict == "incomplete" else None

    def _alone(self, code: str, spec: KernelSpec, model: ProgrammingModel, whole: bool = False) -> Alone:
        """The unit built alone (cached): `whole`: the suggestion's unit (every function but a test driver), else
        `code` as it is (a bound function's pruned unit)."""
        from hpceval.bind.prune import unit_alone

        toolchain = get_toolchain(model.toolchain)
        lang = self.catalog.languages[model.language]
        info = _model_info(toolchain, model, self.executor.toolchain_info(toolchain), self.executor)
        unit = unit_alone(code, lang.id, model.id) if whole else code
        key = AloneCache.key(unit, model.id, toolchain.name, info.version, model.flags)
        known = self.alone_cache.get(key)
        if known is not None:
            return known
        files, source = alone_files(unit, spec, lang, toolchain.unit_hooks(model, unit), toolchain.driver_ext)
        steps = alone_steps(toolchain.build_steps(model), lang.id, source)
        if not steps or not info.available:
            return self.alone_cache.put(key, Alone(None))
        workdir = scratch.new_dir(f"hpceval-alone-{model.id}-")
        try:
            for name, text in {**toolchain.unit_files(model), **files}.items():
                (workdir / name).write_text(text)
            adjust = toolchain.job_adjustments(spec, model, code)
            env = {**toolchain.env(model), **(adjust.env if adjust else {})}
            run = self._runner(toolchain)
            # the job's own adjustments (a GPU job's address space and threads): a Python unit's import runs its
            # module-level code, and `import pycuda.autoinit` under a CPU job's RLIMIT_AS fails in cuInit ("out of
            # memory"), the environment's failure, which was charged to the suggestion as a build_error
            limits = adjusted_limits(self.build_limits, adjust)
            result = build_with_standards(toolchain, steps, lambda step: run(step, workdir, env, limits)).result
        except SandboxError:
            return Alone(None)  # the sandbox failed, not the code: decide as without a compiler
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return self.alone_cache.put(key, from_result(result, first_errors, lang.id))

    def _vendor_counts(self) -> bool:
        if self.vendor_library_counts is None:
            from hpceval.metrics import Rubric

            self.vendor_library_counts = Rubric.load().vendor_library_counts
        return self.vendor_library_counts

    def _runner(self, toolchain: Toolchain):
        """One sandboxed command in the toolchain's image; an interpreter that dies while starting up (before any
        suggested code runs, e.g. "Fatal Python error: init_import_site" under heavy load) is retried once, then
        it is the harness's fault."""
        image = self.executor.image_for(toolchain.name)

        def run(argv: list[str], workdir: Path, env: dict[str, str], limits: Limits) -> ProcResult:
            for _ in range(2):
                result = self.executor.run(argv, workdir, env, limits, image=image)
                startup = STARTUP_FAILURE.search(result.stderr or "") if result.returncode != 0 else None
                if startup is None:
                    return result
            raise SandboxError(f"the interpreter failed to start twice ({startup.group(0)})")

        return run


def _model_info(toolchain: Toolchain, model: ProgrammingModel, info: ToolInfo, executor: Executor) -> ToolInfo:
    """A toolchain that serves several models may refine availability per model (python_gpu: CuPy or pyCUDA)."""
    if not info.available or executor.name != "local":
        return info
    return toolchain.model_info(model, info)


def _completeness(code: str, lang: str) -> str | None:
    """incomplete_reason of the code as the build unit will hold it: missing project headers dropped and named."""
    headers = local_headers(code) if lang == "cpp" else []
    reason = incomplete_reason(drop_local_headers(code) if headers else code, lang)
    if reason and headers:
        reason += " (after dropping " + ", ".join(f'#include "{h}"' for h in headers) + ": no such header)"
    return reason


# Inputs a kernel function may fix itself without computing something else: a solver's stopping rule.
CONTROL_INPUTS = frozenset({"tol", "max_iter"})


CUT_OFF = "incomplete: cut off"  # analysis.completeness's reason for a text cut before its end


def _missing_data_inputs(error: str, spec: KernelSpec) -> list[str]:
    """The kernel's data inputs the binder found no parameter for: input arrays and real scalars of the formula
    (AXPY's a). Outputs (a demo that makes its own data has nowhere to put a result either: `gemv_cupy(n)`
    drawing A and x at random), sizes and control inputs may be missing besides; a name that is no parameter of
    the kernel leaves the function `unbindable`."""
    found = re.search(r": no parameter for ([\w, ]+?)" + re.escape(CLOSED), error)
    if not found:
        return []
    names = [n.strip() for n in found.group(1).split(",")]
    params = {p.name: p for p in spec.params}
    if any(n not in params for n in names):
        return []
    return [n for n in names if not params[n].is_output and n not in CONTROL_INPUTS
            and (params[n].is_array or params[n].kind == "real")]


def _vendor_libraries(model: ProgrammingModel, code: str) -> list[str]:
    if model.toolchain != "cuda":
        return []
    from hpceval.toolchains.cuda import vendor_libraries

    return vendor_libraries(code)


def _checked_code(code: str, binding: Binding) -> str:
    """What the model checks read: the bound function and what it uses (not unused sibling functions), plus the
    suggestion's imports and includes (`import numpy as np` says which library `a * x + y` works with)."""
    if not binding.source:
        return code
    header = [line for line in code.splitlines() if re.match(r"\s*(import\s|from\s+\S+\s+import\s|#\s*include\b)", line)]
    launch = [binding.call] if harness_launched(binding.call) else []  # the launch the suggestion's main made
    return "\n".join(header + [binding.source] + launch)
