"""Kernel specs and the programming-model catalog, loaded from kernels_spec/.

A kernel is one folder: spec.toml (canonical parameters, sizes, tolerances, FLOP/byte counts, the study's words),
reference.py (NumPy reference and seeded input generator) and solutions/<model-id>.<ext> (known-correct code).
Programming models and languages are entries of kernels_spec/models.toml. Everything here is pydantic so that a
broken spec fails at load time with a message naming the file and field, not deep inside a run: a spec that
would make every suggestion pass (no validation sizes), or fail for a reason that is not the LLM's (a shape that
names no parameter, a parameter defined twice, a FLOP count that does not evaluate), is refused when loading.
A user kernels folder (`--kernels-dir DIR` or HPCEVAL_KERNELS_SPEC=DIR) adds its kernel folders to the built-in
ones, and its optional models.toml adds (or replaces, by id) languages and programming models: a newcomer's kernel
or model is three files in a folder of their own, never an edit of the installed tree (docs/extending.md).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import importlib.util
import math
import os
import tomllib
from collections.abc import Callable, Iterable
from functools import cache, cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hpceval.analysis.pyparse import parse_python
from hpceval.paths import kernels_dir


class SpecError(ValueError):
    """A kernel spec or the model catalog is malformed; the message names the file and what to fix."""


class UnknownNameError(ValueError):
    """A user named a kernel, model or language that does not exist; the message lists the valid ones."""


def eval_expr(expr: str | int, values: dict[str, Any]) -> int | float:
    """Evaluate a size expression such as "m*n" or "n+1" with the scalar parameters in `values`."""
    if isinstance(expr, int | float):
        return expr
    # Spec files are part of the harness (trusted); builtins stay available so numpy methods such as .max() work.
    return eval(expr, {"math": math, "np": np}, dict(values))  # noqa: S307


_BUILTINS = set(dir(builtins))


def expr_names(expr: str, what: str) -> set[str]:
    """The free names an expression of a spec reads (ValueError naming `what` when it does not parse)."""
    try:
        tree = parse_python(str(expr).strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{what} {expr!r} is not an expression ({exc.msg})") from None
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return loaded - bound - {"math", "np"} - (called & _BUILTINS)  # a builtin counts only where it is called


class Param(BaseModel):
    """One canonical parameter of a kernel's function."""

    model_config = ConfigDict(extra="forbid")
    name: str
    kind: Literal["int", "real", "index"]
    intent: Literal["in", "out", "inout"] = "in"
    shape: list[str] = Field(default_factory=list, description="size expressions; empty for scalars")
    doc: str = ""
    # Which elements the kernel must read / write, as a NumPy boolean expression over `idx` (np.indices of the
    # shape) and `shape`; None = every element (reads for in/inout, writes for out/inout). The offload section
    # check (datamap.section_problem) compares the data clauses' array sections with these footprints.
    reads: str | None = None
    writes: str | None = None
    # A scalar result the kernel's function returns (DOT): declared as a scalar `out` parameter with returned =
    # true; the harness holds it as a one-element array (shape ["1"]), so validation, timing and the drivers treat
    # it like any output, and the binder maps a function's return value to it (or a pointer/intent(out) argument).
    returned: bool = False

    @property
    def is_array(self) -> bool:
        return bool(self.shape)

    @property
    def is_output(self) -> bool:
        return self.intent in ("out", "inout")

    def footprint(self, access: Literal["reads", "writes"], shape: tuple[int, ...]) -> np.ndarray:
        """Boolean mask of the elements the kernel must read or write, over the canonical shape."""
        expr = getattr(self, access)
        if expr is None:
            touched = self.intent != "out" if access == "reads" else self.is_output
            return np.full(shape, touched, dtype=bool)
        mask = eval_expr(expr, {"idx": tuple(np.indices(shape)), "shape": shape})
        return np.broadcast_to(np.asarray(mask, dtype=bool), shape)


class Sizes(BaseModel):
    model_config = ConfigDict(extra="forbid")
    validation: list[dict[str, int]]
    timing: dict[str, int]
    timing_reps: int = Field(5, ge=1)
    # GPU models' timing size (checks/timing.py): a working set of at least 4x a data-centre GPU's L2 for the
    # memory-bound kernels, a GEMM where the vendor library nears its peak. Same keys as `timing`.
    gpu_timing: dict[str, int] | None = None

    @field_validator("validation")
    @classmethod
    def _some_sizes(cls, sizes: list[dict[str, int]]) -> list[dict[str, int]]:
        if not sizes:
            raise ValueError("needs at least one validation size: with none, every suggestion (even one that does "
                             "nothing) would be correct")
        empty = [i for i, size in enumerate(sizes, 1) if not size]
        if empty:
            raise ValueError(f"validation size {empty[0]} is empty")
        return sizes

    @field_validator("timing")
    @classmethod
    def _timing_size(cls, size: dict[str, int]) -> dict[str, int]:
        if not size:
            raise ValueError("the timing size is empty (FLOP and byte counts are evaluated at it)")
        return size

    @model_validator(mode="after")
    def _gpu_timing_keys(self) -> Sizes:
        if self.gpu_timing is not None and set(self.gpu_timing) != set(self.timing):
            raise ValueError(f"gpu_timing {self.gpu_timing} must have the keys of timing ({', '.join(self.timing)}): "
                             "the FLOP and byte counts are evaluated with them")
        return self


class Structure(BaseModel):
    """A named structure that real inputs of the kernel have and random inputs rarely draw (SpMV's empty rows, a
    GEMV of one column, a CG on a diagonal system): its cases are validated like every size, and a kernel that
    fails on one is told which structure it skipped.

    `sizes` are size dicts for the kernel's make_inputs (reference.py), which must honour the keys they use;
    `holds` is a Python expression over the case's inputs (the canonical parameters) that is true when the
    structure is there: the case generator evaluates it on every case it draws, so a generator that ignores a
    structure fails loudly (SpecError) instead of validating nothing.
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    doc: str = Field(min_length=1, description="what the structure is and what a kernel must still do on it")
    sizes: list[dict[str, int]] = Field(min_length=1)
    holds: str = Field(min_length=1)


class Tolerance(BaseModel):
    """Error bound: |out - ref| <= factor * eps(dtype) * reduction * scale, scale = the kernel on |inputs|.

    That is the classical forward-error bound of sums of products, so it grows with the reduction length
    (a dot product of length n) and with the precision, and never rejects a correct reordering of a sum.
    """

    model_config = ConfigDict(extra="forbid")
    factor: float = 2.0
    reduction: str = "1"
    floor: float = 0.0


class KernelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    function: str
    summary: str
    words: str = Field(description="the kernel's name in the study's prompts, e.g. 'saxpy'")
    aliases: list[str] = Field(default_factory=list)
    dtype: Literal["float32", "float64"]
    params: list[Param]
    sizes: Sizes
    tolerance: Tolerance = Tolerance()
    flops: str
    bytes: str
    layout: str = ""
    check: Literal["compare", "custom"] = "compare"
    structures: list[Structure] = Field(default_factory=list, description="named structural edge cases")
    folder: Path = Field(exclude=True)

    @field_validator("params")
    @classmethod
    def _has_output(cls, params: list[Param]) -> list[Param]:
        names = [p.name for p in params]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"parameter {twice[0]!r} is defined twice")
        if not any(p.is_output for p in params):
            raise ValueError("a kernel needs at least one out/inout parameter")
        returned = [p for p in params if p.returned]
        if len(returned) > 1:
            raise ValueError(f"params: {', '.join(p.name for p in returned)} are all returned; a function returns one")
        for p in returned:
            if p.intent != "out" or p.shape not in ([], ["1"]):
                raise ValueError(f"params.{p.name}: returned = true needs a scalar (no shape) with intent = \"out\"")
        return [p.model_copy(update={"shape": ["1"]}) if p.returned else p for p in params]

    @model_validator(mode="after")
    def _expressions(self) -> KernelSpec:
        """Every expression must parse and name only what it is evaluated with (see where each is evaluated)."""
        integers = {p.name for p in self.params if not p.is_array and p.kind in ("int", "index")}
        for p in self.params:
            for expr in p.shape:  # evaluated with the scalar parameters of a case (cases/io.py)
                unknown = expr_names(expr, f"params.{p.name}.shape:")
                unknown -= integers
                if unknown:
                    raise ValueError(f"params.{p.name}.shape: {expr!r} names {', '.join(sorted(unknown))}, which is "
                                     f"not an integer scalar parameter (have: {', '.join(sorted(integers)) or 'none'})")
            for access in ("reads", "writes"):  # evaluated with idx and shape (Param.footprint)
                expr = getattr(p, access)
                unknown = expr_names(expr, f"params.{p.name}.{access}:") - {"idx", "shape"} if expr else set()
                if unknown:
                    raise ValueError(f"params.{p.name}.{access}: {expr!r} names {', '.join(sorted(unknown))}; "
                                     "only idx and shape are defined there")
        names = {p.name for p in self.params}
        seen: set[str] = set()
        for st in self.structures:  # evaluated with a case's inputs (cases/generate.py)
            if st.name in seen:
                raise ValueError(f"structures: {st.name!r} is declared twice")
            seen.add(st.name)
            unknown = expr_names(st.holds, f"structures.{st.name}.holds:") - names
            if unknown:
                raise ValueError(f"structures.{st.name}.holds: {st.holds!r} names {', '.join(sorted(unknown))}, "
                                 "which is not a parameter")
        unknown = expr_names(self.tolerance.reduction, "tolerance.reduction:") - names
        if unknown:
            raise ValueError(f"tolerance.reduction: {self.tolerance.reduction!r} names {', '.join(sorted(unknown))}, "
                             "which is not a parameter")
        timing = self.sizes.timing
        for what in ("flops", "bytes"):  # evaluated with the timing size's keys only
            expr = getattr(self, what)
            unknown = expr_names(expr, f"{what}:") - set(timing)
            if unknown:
                raise ValueError(f"{what}: {expr!r} names {', '.join(sorted(unknown))}, which is not a key of "
                                 f"sizes.timing ({', '.join(timing)}): counts are evaluated at the timing size")
            try:
                value = eval_expr(expr, timing)
            except Exception as exc:  # noqa: BLE001 - any failure is the spec's
                raise ValueError(f"{what}: {expr!r} fails at the timing size ({type(exc).__name__}: {exc})") from None
            if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not math.isfinite(value) \
                    or value < 0:
                raise ValueError(f"{what}: {expr!r} is {value!r} at the timing size; it must be a count >= 0")
        return self

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    @property
    def returned(self) -> Param | None:
        """The scalar result the kernel's function returns, if the spec declares one."""
        return next((p for p in self.params if p.returned), None)

    @property
    def outputs(self) -> list[Param]:
        return [p for p in self.params if p.is_output]

    @cached_property
    def module(self) -> ModuleType:
        """The kernel's reference.py, imported once."""
        path = self.folder / "reference.py"
        spec = importlib.util.spec_from_file_location(f"hpceval_kernel_{self.id}", path)
        if spec is None or spec.loader is None:
            raise SpecError(f"{path}: cannot import")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for required in ("make_inputs", "reference"):
            if not hasattr(module, required):
                raise SpecError(f"{path}: missing function {required}()")
        return module

    def make_inputs(self, size: dict[str, int], rng: np.random.Generator) -> dict[str, Any]:
        """All canonical parameters for one case: scalars, input arrays, and output arrays' initial values."""
        values = self.module.make_inputs(dict(size), rng, self.np_dtype)
        missing = [p.name for p in self.params if p.name not in values]
        if missing:
            raise SpecError(f"{self.folder}/reference.py make_inputs() did not return {missing}")
        return values

    def reference(self, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
        return self.module.reference(inputs)

    @property
    def custom_check(self) -> Callable[..., tuple[bool, float, str]] | None:
        return getattr(self.module, "check", None) if self.check == "custom" else None

    def metric(self, expr: str, size: dict[str, int]) -> float:
        return float(eval_expr(expr, size))

    def solution_path(self, model: ProgrammingModel, catalog: Catalog) -> Path:
        ext = catalog.languages[model.language].extension
        return self.folder / "solutions" / f"{model.id}.{ext}"


class Language(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    extension: str
    line_comment: str
    block_comment: tuple[str, str] | None = None
    array_order: Literal["C", "F"]
    index_base: int
    keyword: str | None = Field(None, description="the study's keyword hint, e.g. 'function'")
    keyword_placement: Literal["same_line", "next_line"] | None = None
    keyword_is_syntax: bool = Field(True, description="the keyword is the language's own (Fortran `subroutine`, "
                                    "Python `def`); false where it is only the study's word (C++ `function`), so "
                                    "a chat prompt asks for a free function instead of a keyword that does not exist")
    fence: str = Field(description="Markdown fence tag for chat answers")
    class_indices: bool = Field(False, description="the timing run hands the driver each set's scale classes as "
                                "index files (cases/timing.write_plan): for drivers in which a pass per element "
                                "over every set costs more than reading them (Python)")


class ProgrammingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    language: str
    words: str = Field(description="the model's name as the study wrote it in prompts")
    name: str
    toolchain: str
    device: Literal["cpu", "gpu"]
    aliases: list[str] = Field(default_factory=list)
    usage: list[str] = Field(default_factory=list, description="regexes; each must match comment-free code")
    chat_hint: str = ""
    flags: list[str] = Field(default_factory=list, description="compiler flags the toolchain adds for this model")
    libs: list[str] = Field(default_factory=list, description="libraries linked after the sources (-lNAME), e.g. "
                            "['openblas'] for a model whose suggestions call CBLAS")
    mapping_check: bool = Field(False, description="statically check offload data clauses (see datamap.py)")


class Catalog(BaseModel):
    """Everything the plan stage may combine: kernels, languages and programming models."""

    model_config = ConfigDict(extra="forbid")
    kernels: dict[str, KernelSpec]
    languages: dict[str, Language]
    models: dict[str, ProgrammingModel]

    def select_kernels(self, names: Iterable[str] | None) -> list[KernelSpec]:
        """Resolve kernel ids and the spec's aliases (`saxpy` is AXPY)."""
        aliases: dict[str, list[str]] = {}
        for kernel in self.kernels.values():
            for alias in kernel.aliases:
                if alias.lower() != kernel.id:
                    aliases.setdefault(alias.lower(), []).append(kernel.id)
        return [self.kernels[k] for k in _select(names, self.kernels, aliases, "kernel")]

    def select_models(self, names: Iterable[str] | None, languages: Iterable[str] | None = None) -> list[ProgrammingModel]:
        """Resolve model ids and bare names ('openmp' selects it in every language), narrowed by languages."""
        aliases: dict[str, list[str]] = {}
        for model in self.models.values():
            for alias in model.aliases:
                aliases.setdefault(alias, []).append(model.id)
        chosen = _select(names, self.models, aliases, "programming model")
        if languages:
            langs = _select(languages, self.languages, {}, "language")
            chosen = [m for m in chosen if self.models[m].language in langs]
        return [self.models[m] for m in chosen]


def _select(names: Iterable[str] | None, known: dict[str, Any], aliases: dict[str, list[str]], what: str) -> list[str]:
    """Expand user names (ids, aliases or 'all') into ids in catalog order; unknown names raise one clear error."""
    wanted = [n.strip() for n in (names or ["all"]) if n.strip()]
    if not wanted or "all" in wanted:
        return list(known)
    picked: list[str] = []
    for name in wanted:
        ids = [name] if name in known else ([name.lower()] if name.lower() in known else aliases.get(name.lower()))
        if not ids:
            raise UnknownNameError(unknown_name(what, name, list(known) + sorted(aliases)))
        picked.extend(i for i in ids if i not in picked)
    return [k for k in known if k in picked]


def unknown_name(what: str, name: str, valid: Iterable[str]) -> str:
    """The one line for a name that does not exist: the closest valid names first, then all of them."""
    valid = list(dict.fromkeys(valid))
    close = difflib.get_close_matches(name.lower(), valid, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return f"unknown {what} {name!r}; {hint}valid: {', '.join(valid)}"


def _reason(exc: Exception) -> str:
    """One line for a load error: the first field and what is wrong with it."""
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return (f"{where}: {message}" if where and not message.startswith(f"{where}") else message) + more
    return " ".join(str(exc).split())


def load_kernel(folder: Path) -> KernelSpec:
    path = folder / "spec.toml"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        return KernelSpec(folder=folder, **raw)
    except (tomllib.TOMLDecodeError, ValidationError, TypeError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: {_reason(exc)}") from None


def _load_models(models_path: Path, required: bool) -> tuple[dict[str, Language], dict[str, ProgrammingModel]]:
    """The [languages] and [models] tables of one models.toml (a user folder may have either, or no file)."""
    try:
        raw = tomllib.loads(models_path.read_text())
        if required:
            raw["languages"], raw["models"]  # noqa: B018 - the installed catalog needs both tables
        languages = {k: Language(id=k, **v) for k, v in raw.get("languages", {}).items()}
        models = {k: ProgrammingModel(id=k, **v) for k, v in raw.get("models", {}).items()}
    except (tomllib.TOMLDecodeError, ValidationError, KeyError, TypeError, AttributeError,
            UnicodeDecodeError) as exc:
        raise SpecError(f"{models_path}: {_reason(exc)}") from None
    except FileNotFoundError:
        if not required:
            return {}, {}
        raise SpecError(f"{models_path} not found: a kernels_spec folder needs models.toml") from None
    return languages, models


def _load_kernels(root: Path) -> dict[str, KernelSpec]:
    if not root.is_dir():
        raise SpecError(f"kernels folder {root} is not a directory")
    kernels = {}
    for folder in sorted(p for p in root.iterdir() if (p / "spec.toml").is_file()):
        spec = load_kernel(folder)
        kernels[spec.id] = spec
    return kernels


def load_catalog(root: Path | None = None, extra: Path | None = None) -> Catalog:
    """The catalog of `root` (default: the installed kernels_spec), plus a user folder `extra` whose kernels,
    languages and models are added to it (an id that exists already is replaced by the user's)."""
    root = root or kernels_dir()
    languages, models = _load_models(root / "models.toml", required=True)
    kernels = _load_kernels(root)
    if extra is not None:
        more_languages, more_models = _load_models(extra / "models.toml", required=False)
        languages |= more_languages
        models |= more_models
        kernels |= _load_kernels(extra)
    models_path = (extra or root) / "models.toml"
    for model in models.values():
        if model.language not in languages:
            raise SpecError(f"{models_path}: model {model.id} names unknown language {model.language!r}")
    order = ["axpy", "gemv", "gemm", "spmv", "jacobi", "cg"]
    kernels = dict(sorted(kernels.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    return Catalog(kernels=kernels, languages=languages, models=models)


KERNELS_ENV = "HPCEVAL_KERNELS_SPEC"


def catalog() -> Catalog:
    """The installed catalog plus the user kernels folder HPCEVAL_KERNELS_SPEC names, loaded once per folder."""
    return _catalog(os.environ.get(KERNELS_ENV) or None)


@cache
def _catalog(extra: str | None) -> Catalog:
    return load_catalog(None, Path(extra).expanduser().resolve() if extra else None)
