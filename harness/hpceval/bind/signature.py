"""Signature inference: bind a free-form suggestion (paper-style prompts fix no signature) to the kernel's driver.

    binding = infer_binding(code, spec, lang)        # hpceval.contracts.Binding

Steps (each recorded in the binding's evidence):

1. repair the stitched completion: a keyword the completion did not continue (`def`/`subroutine` alone on its
   line), a header without a name (`subroutine (n, a, x, y)`), a body-only completion whose header the prompt
   should have opened (the header is synthesized from the body's free variables, matched by name only);
2. parse with tree-sitter (C/C++, Fortran, Python, Julia) and list the functions; a main program, methods and
   device kernels (`__global__`, `@kernel`) are not candidates;
3. map each candidate's parameters to the kernel's roles (hpceval.bind.mapping: names, types, intent, position,
   the body's loops and subscripts), including the kernel's variants (kernels_spec/<kernel>/variants.toml);
4. pick the candidate that implements the kernel: bindable, named like the kernel, complete (no parse error), not
   a helper or an empty stub, using a parallel construct of the programming model, earliest;
5. prune the build unit to that function and what it needs (includes, imports, types, constants, helpers it
   calls): repeated definitions, a test main, trailing truncated code and unused imports of unavailable modules
   do not break the build of a function that is fine on its own;
6. generate the glue (hpceval.bind.glue) and return the Binding: function, argument expressions, setup/teardown,
   variant, mapping and evidence. No consistent mapping: Binding.error says why (verdict `unbindable`).

A mapping never contradicts the suggestion's own parameter names (only conventional size names like m/n may be
reassigned when the suggestion's own loops say so), and the mapping used is part of the evidence.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap

from hpceval.bind.adapt import Flat, collapse, flatten_records, record_language
from hpceval.bind.adapt.cpp import fixed_extent
from hpceval.bind.canonical import canonical_binding
from hpceval.bind.functor import LAUNCHER_SUFFIX, find_functors, launcher_source, operator_facts
from hpceval.bind.functor import policy as functor_policy
from hpceval.bind.glue import make_glue, qualified
from hpceval.bind.glue.launch import host_launches, launch_glue, launchable, takes_device_pointers
from hpceval.bind.graded import PRECISION_KEY
from hpceval.bind.launches.embedded import Embedded, embedded_launch
from hpceval.bind.launches.python import PREFIX, script_launcher
from hpceval.bind.mapping import Mapping, NoMapping, describe, find_mapping
from hpceval.bind.parse import SFunction, Unit, parse
from hpceval.bind.prune import called_helpers, prune_cpp, prune_fortran, prune_julia, prune_python, without_repeats
from hpceval.bind.roles import KernelRoles, kernel_roles
from hpceval.contracts import Binding
from hpceval.spec import KernelSpec, Language, ProgrammingModel, catalog

HELPER_NAME = re.compile(r"^(main|init\w*|initialize\w*|print\w*|show\w*|display\w*|check\w*|verify\w*|validate\w*|"
                         r"fill\w*|rand\w*|random\w*|time\w*|timer\w*|test\w*|bench\w*|benchmark\w*|setup\w*|alloc\w*|"
                         r"free\w*|compare\w*|error\w*|norm\w*|usage|read\w*|write\w*|dump\w*|cleanup|finalize\w*|"
                         r"get_\w*|set_\w*|parse\w*|report\w*|run_\w*|wall\w*|elapsed\w*|mysecond|seconds?)$",
                         re.IGNORECASE)
KEYWORDS = {"python": "def", "fortran": "subroutine", "julia": "function", "cpp": None}
PARALLEL = {
    "cpp": r"#\s*pragma\s+(omp|acc)\b|Kokkos::|parallel_for|<<<|std::execution|thrust::|sycl::",
    "fortran": r"(?i)!\$(omp|acc)\b|do\s+concurrent",
    "python": r"@\s*(numba\.)?(njit|jit|vectorize|guvectorize|stencil)\b|prange|\bnp\.|numpy\.|cupy|cp\.",
    "julia": r"@threads|@cuda|@roc|@kernel|Threads\.",
}


# --------------------------------------------------------------------------------------------------- repair


def repair(code: str, spec: KernelSpec, lang: str) -> tuple[str, list[str]]:
    """Fix what stitching a completion to its prompt leaves broken; returns (code, notes)."""
    notes = []
    keyword = KEYWORDS.get(lang)
    if keyword:
        lines = code.split("\n")
        kept = [ln for ln in lines if ln.strip() not in (keyword, "\\n" + keyword, "\\" + keyword)]
        if len(kept) != len(lines):
            notes.append(f"dropped a bare `{keyword}` line the completion did not continue")
        code = "\n".join(kept)
        pattern = {"python": r"^(\s*def)(\s*\()", "fortran": r"^(\s*subroutine)(\s*\()", "julia": r"^(\s*function)(\s*\()"}
        new = re.sub(pattern[lang], rf"\1 {spec.function}\2", code, count=1, flags=re.MULTILINE | re.IGNORECASE)
        if new != code:
            notes.append(f"named the unnamed header {spec.function}")
            code = new
    if lang in ("python", "julia"):
        lines = [ln for ln in code.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
        if lines and all(ln[:1] in (" ", "\t") for ln in lines):
            code = textwrap.dedent(code)
    return code, notes


# --------------------------------------------------------------------------------------------------- selection


def _empty_body(fn: SFunction) -> bool:
    text = fn.text
    if fn.lang == "cpp":
        body = text[text.find("{") + 1:text.rfind("}")] if "{" in text else ""
        body = re.sub(r"//[^\n]*|/\*.*?\*/", "", body, flags=re.DOTALL)
        return not body.strip()
    if fn.lang == "python":
        lines = [ln.strip() for ln in text.split("\n")[1:] if ln.strip() and not ln.strip().startswith("#")]
        lines = [ln for ln in lines if not ln.startswith(('"""', "'''"))]
        return not lines or lines == ["pass"]
    if fn.lang == "fortran":
        lines = [ln.strip().lower() for ln in text.split("\n")[1:] if ln.strip() and not ln.strip().startswith("!")]
        return all(ln.startswith(("end", "implicit", "integer", "real", "double", "use ")) or "::" in ln for ln in lines)
    return False


def _cut_off(fn: SFunction) -> bool:
    """A definition that tree-sitter closed for us: C/C++ braces that do not balance or lack the last brace; Python
    that does not compile (an expression cut off mid-line)."""
    if fn.lang == "python" and fn.error:
        try:
            compile(textwrap.dedent(fn.text), "<suggestion>", "exec")
        except SyntaxError:
            return True
        return False
    if fn.lang != "cpp" or not fn.error:
        return False
    text = re.sub(r"//[^\n]*|/\*.*?\*/|\"(\\.|[^\"\\])*\"|'(\\.|[^'\\])*'", "", fn.text, flags=re.DOTALL)
    return text.count("{") != text.count("}") or not text.rstrip().endswith("}")


def _kernel_words(spec: KernelSpec) -> list[str]:
    words = {spec.function.lower(), spec.id.lower()}
    for a in spec.aliases:
        if " " not in a:
            words.add(a.lower())
    return sorted(words, key=len, reverse=True)


def _candidate_score(fn: SFunction, m: Mapping | None, spec: KernelSpec, unit: Unit, model: ProgrammingModel | None
                     ) -> float:
    # bindable is what matters; the mapping's own score (which grows with the number of parameters and
    # subscripts) only breaks ties
    score = 10.0 + 0.1 * min(m.score / max(1, len(fn.params)), 10.0) if m is not None else -50.0
    name = fn.name.lower().split("::")[-1]
    words = _kernel_words(spec)
    if name == spec.function.lower():
        score += 6
    elif any(w in name for w in words):
        score += 4
    if HELPER_NAME.match(name):
        score -= 8
    if fn.error:
        score -= 12
    if _empty_body(fn):
        score -= 15
    text = fn.text + "".join(h.text for h in called_helpers(unit, fn))
    if model is not None and model.usage:
        from hpceval.analysis.source import usage_text

        lang = catalog().languages[model.language]
        clean = usage_text(text, lang)
        if all(re.search(u, clean) for u in model.usage):
            score += 5
    elif re.search(PARALLEL.get(fn.lang, "$^"), text):
        score += 2
    return score - 0.01 * fn.index


# --------------------------------------------------------------------------------------------------- body-only


def synthesize_header(code: str, unit: Unit, kr: KernelRoles, lang: str) -> tuple[str, str] | None:
    """A body-only completion (no function at all, but statements that use the kernel's parameters by name):
    wrap it in a header whose parameters are the body's free names that match canonical parameters by name."""
    spec = kr.spec
    if lang == "python":
        lines = [ln for ln in code.split("\n")]
        body_lines = [ln for ln in lines if ln.strip() and not ln.strip().startswith("#")]
        if not body_lines:
            return None
        # free names: read before anything assigns them (a script that creates x and y is not a body)
        assigned: set[str] = set()
        free: list[str] = []
        for ln in body_lines:
            m = re.match(r"\s*([A-Za-z_][\w, ]*?)\s*(?<![=!<>])=(?!=)(.*)", ln)
            rhs = m.group(2) if m else ln
            for name in re.findall(r"(?<![.\w])[A-Za-z_]\w*", rhs):
                if name not in assigned and name not in free:
                    free.append(name)
            if m:
                assigned |= {t.strip() for t in m.group(1).split(",")}
            for t in re.findall(r"^\s*(?:for|import|from)\s+([A-Za-z_]\w*)", ln):
                assigned.add(t)
        names = set(free)
        params = [r.name for r in kr.canonical if r.name in names]
        params += [n for n in free if n not in params and any(n in r.names for r in kr.extras if not r.tuning)]
        if not params or not any(r.is_array for r in kr.canonical if r.name in params):
            return None
        if not re.search(r"^\s*(return|for|while|[\w\[\], .:]+\s*[-+*/]?=)", "\n".join(body_lines), re.MULTILINE):
            return None
        body = textwrap.indent(textwrap.dedent("\n".join(lines)), "    ")
        return f"def {spec.function}({', '.join(params)}):\n{body}\n", ", ".join(params)
    if lang == "fortran":
        low = code.lower()
        if re.search(r"^\s*(subroutine|function|program)\b", low, re.MULTILINE):
            return None
        decl = re.findall(r"^\s*(?:integer|real|double\s+precision)[^\n]*", code, re.IGNORECASE | re.MULTILINE)
        if not decl or not re.search(r"^\s*(do\b|[\w(),: ]+=)", low, re.MULTILINE):
            return None
        declared = []
        for line in decl:
            tail = line.split("::", 1)[-1] if "::" in line else re.sub(r"^\s*(integer|real(\*\d+|\(\w+\))?|double\s+precision)",
                                                                        "", line, flags=re.IGNORECASE)
            for name in re.findall(r"([A-Za-z_]\w*)\s*(?:\([^)]*\))?", tail):
                declared.append(name.lower())
        known = {r.name.lower() for r in kr.canonical} | {n.lower() for r in kr.all if not r.tuning for n in r.names}
        params = [n for n in dict.fromkeys(declared) if n in known]
        if not params:
            return None
        body = re.sub(r"^\s*end\s*(subroutine\b.*)?$", "", code, flags=re.IGNORECASE | re.MULTILINE)
        return (f"subroutine {spec.function}({', '.join(params)})\n{body.rstrip()}\nend subroutine {spec.function}\n",
                ", ".join(params))
    return None


# --------------------------------------------------------------------------------------------------- entry


def _exact_canonical(fn: SFunction, m: Mapping, kr: KernelRoles, lang: str) -> bool:
    norm = (lambda s: s.lower()) if lang == "fortran" else (lambda s: s)
    if norm(fn.name) != norm(kr.spec.function) or len(fn.params) != len(kr.canonical):
        return False
    for p, r in zip(fn.params, kr.canonical, strict=True):
        role = m.assign.get(p.position)
        if role is None or role.name != r.name or norm(p.name) != norm(r.name):
            return False
    return True


def infer_binding(code: str, spec: KernelSpec, lang: Language | str, model: ProgrammingModel | None = None) -> Binding:
    """The binding of a free-form suggestion (Binding.error set when none is consistent)."""
    lang_id = lang if isinstance(lang, str) else lang.id
    try:
        return _infer(code, spec, lang_id, model)
    except Exception as exc:  # noqa: BLE001 - a fault of the binder must not stop a run; it is reported as such
        reason = f"signature inference failed (harness fault, please report): {type(exc).__name__}: {exc}"
        return Binding(function=spec.function, args=[], error=f"unbindable: {reason}", evidence=reason)


def _infer(code: str, spec: KernelSpec, lang_id: str, model: ProgrammingModel | None) -> Binding:
    kr = kernel_roles(spec)
    code, notes = repair(code, spec, lang_id)
    try:
        unit = parse(code, lang_id)
    except ValueError as exc:
        return _error(spec, str(exc))
    candidates = [f for f in unit.functions if not f.is_main and f.kind not in ("method",) and "::" not in f.name
                  and not any(re.fullmatch(r"_\d+", p.name) for p in f.params)]
    if lang_id == "python" and isinstance(emb := embedded_launch(code, kr), Embedded):
        return _embedded(code, emb, kr, notes, model)
    synthesized = ""
    if not candidates:
        made = synthesize_header(code, unit, kr, lang_id)
        if made is not None:
            code, params = made
            unit = parse(code, lang_id)
            candidates = [f for f in unit.functions if not f.is_main]
            synthesized = f"body-only completion: header {spec.function}({params}) synthesized from the body's names"
            notes.append(synthesized)
    if lang_id == "cpp" and re.search(r"\bKokkos|\bKOKKOS_", code) and not any(
            re.search(r"\bparallel_(?:for|reduce|scan)\b", f.text) for f in candidates):
        # no function dispatches anything (only main does, or helpers that print or check): launch the functors
        code, unit, launchers = _launch_functors(code, unit, notes)
        candidates = [*(f for f in unit.functions if f.name in {c.name for c in candidates}), *launchers]
    if not candidates:
        return _error(spec, _why_no_function(code, unit, lang_id))
    if lang_id == "python":  # what each parameter must be handed (device arrays, records): bind.adapt.python
        from hpceval.bind.adapt.python import infer_parameter_types

        for fn in candidates:
            fn.types = infer_parameter_types(code, fn.name)
    results: list[tuple[float, SFunction, Mapping | None, str]] = []
    kernels: list[tuple[float, SFunction, Mapping | None, str]] = []
    flats: dict[int, Flat] = {}  # a function with record parameters: its flattened form -> how to rebuild them
    for fn in candidates:
        if fn.kind == "device_kernel":
            reason = "a device kernel (launched by a host function), not callable from the driver"
            if launchable(model.id if model else None) and not _cut_off(fn) and fn.params:
                try:  # launched by the harness when no host function binds
                    m = find_mapping(fn, kr, lang_id)
                    kernels.append((_candidate_score(fn, m, spec, unit, model), fn, m, ""))
                except NoMapping as exc:  # the kernel the harness would launch does not fit: that is the reason
                    reason = str(exc)
            results.append((-100.0, fn, None, reason))
            continue
        if _cut_off(fn):
            results.append((-80.0, fn, None, "the definition is cut off (the suggestion ends mid-function)"))
            continue
        if not fn.params:
            results.append((-60.0 + _candidate_score(fn, None, spec, unit, model) + 50, fn, None, "takes no parameters"))
            continue
        flat = flatten_records(fn, code, lang_id)  # its records' fields are mapped one by one (bind.adapt)
        if flat is not None and record_language(lang_id).first:
            flats[id(flat.fn)] = flat
            fn = flat.fn
        try:
            m = find_mapping(fn, kr, lang_id)
        except NoMapping as exc:
            m = _flat_mapping(flat, kr, lang_id) if flat is not None and fn is not flat.fn else None
            if m is None:
                results.append((_candidate_score(fn, None, spec, unit, model), fn, None, str(exc)))
                continue
            flats[id(flat.fn)] = flat
            fn = flat.fn
        results.append((_candidate_score(fn, m, spec, unit, model), fn, m, ""))
    bound = [r for r in results if r[2] is not None]
    launching = [r for r in bound if host_launches([r[1].text, *(h.text for h in called_helpers(unit, r[1]))])]
    launch = bool(kernels) and not launching
    if launch:  # no host function launches anything: the harness launches the suggestion's kernel (glue.launch)
        bound = kernels
    elif kernels:  # a CPU reference beside the GPU code is not the suggested kernel
        bound = launching
    if not bound:
        best = max(results, key=lambda r: (_name_rank(r[1], spec), r[0]))
        fn = best[1]
        sig = f"{fn.name}({', '.join(p.name for p in fn.params)})"
        others = len(results) - 1
        more = f" ({others} other function{'s' if others != 1 else ''} unbindable too)" if others else ""
        reason = best[3]
        if reason.startswith("no parameter for") and not synthesized and _closed(fn, unit, lang_id):
            reason += CLOSED
        return _error(spec, f"{sig}: {reason}{more}", function=fn.name)
    score, fn, m, _ = max(bound, key=lambda r: r[0])
    if _empty_body(fn):  # a signature with declarations only: no kernel to run (the evaluator says `incomplete`)
        return _error(spec, f"{fn.name}: signature and declarations only, no statements", function=fn.name)
    if lang_id == "cpp" and (fixed := fixed_extent(fn, m)) is not None:  # std::array<T, N> (bind.adapt.cpp)
        return _error(spec, f"{fn.name}: {fixed[0]}", function=fn.name)
    flat = flats.get(id(fn))
    if lang_id == "python" and not _cut_off(fn):
        unit, fn, m = _script_launch(code, unit, fn, m, notes)
    binding = _binding(unit, fn, m, kr, lang_id, notes, len(unit.functions), model, launch, flat)
    for alt in m.alternatives:  # near ties the evaluator probes by execution (hpceval.probe)
        alt.base = m.base
        binding.alternatives.append(_binding(unit, fn, alt, kr, lang_id, notes, len(unit.functions), model, launch,
                                             flat))
    if binding.alternatives:
        binding.evidence += f"; {len(binding.alternatives) + 1} mappings equally plausible: probed by execution"
    return binding


def _name_rank(fn: SFunction, spec: KernelSpec) -> int:
    name = fn.name.lower()
    if name == spec.function.lower():
        return 2
    return 1 if any(w in name for w in _kernel_words(spec)) else 0


def _why_no_function(code: str, unit: Unit, lang: str) -> str:
    from hpceval.importers.copilot import is_comment_only

    if is_comment_only(code, lang):
        return "no code: the suggestion has only comments"
    if any(f.is_main for f in unit.functions) or (lang == "fortran" and re.search(r"^\s*program\b", code, re.I | re.M)):
        return "no kernel function: only a main program that computes inline"
    return "no function definition found (statements only, or a definition cut off before its body)"


def _error(spec: KernelSpec, reason: str, function: str | None = None) -> Binding:
    return Binding(function=function or spec.function, args=[], error=f"unbindable: {reason}",
                   evidence=f"signature inference: {reason}")


_PRECISION_WORD = {"float32": "single", "float64": "double"}


def _precision(fn: SFunction, kr: KernelRoles) -> str:
    """The precision to grade in: the spec's where the prompt pins it (variants.toml precision.pinned, e.g. saxpy),
    else the one precision the suggestion declares for all its real parameters (float, real(4), np.float32)."""
    if kr.pinned_precision:
        return kr.spec.dtype
    declared = {p.dtype for p in fn.params if p.kind == "real" and p.dtype}
    return declared.pop() if len(declared) == 1 and declared <= set(_PRECISION_WORD) else kr.spec.dtype


def _script_launch(code: str, unit: Unit, fn: SFunction, m: Mapping, notes: list[str]
                   ) -> tuple[Unit, SFunction, Mapping]:
    """A numba.cuda or Triton kernel is bound through a launcher appended to the unit (bind.launches.python),
    which launches it the way the suggestion's script does; the launcher takes the kernel's mapped parameters."""
    made = script_launcher(unit, fn, m)
    if made is None:
        return unit, fn, m
    source, note = made
    unit = parse(code.rstrip("\n") + "\n" + source, "python")
    launcher = next(f for f in unit.functions if f.name == PREFIX + fn.name)
    mapped = [p for p in fn.params if m.assign.get(p.position) is not None]
    launcher.params = [dataclasses.replace(p, position=j) for j, p in enumerate(mapped)]
    from hpceval.bind.adapt.python import infer_parameter_types

    launcher.types = infer_parameter_types(unit.code, launcher.name)  # what the kernel takes: device arrays
    assign = {j: m.assign[p.position] for j, p in enumerate(mapped)}
    notes.append(note)
    return unit, launcher, dataclasses.replace(m, fn=launcher, assign=assign, alternatives=[])


def _embedded(code: str, e: Embedded, kr: KernelRoles, notes: list[str], model: ProgrammingModel | None) -> Binding:
    """A CUDA kernel in a Python string that only the script launches, bound through its launcher
    (bind.launches.embedded): the launcher takes the kernel's parameters, mapped as the kernel's."""
    unit = parse(code.rstrip("\n") + "\n" + e.source, "python")
    launcher = next(f for f in unit.functions if f.name == PREFIX + e.obj)
    launcher.params = [dataclasses.replace(p, position=j) for j, p in enumerate(e.kernel.params)]
    launcher.types = {}
    m = dataclasses.replace(e.mapping, fn=launcher, alternatives=[])
    notes.append(e.note)
    return _binding(unit, launcher, m, kr, "python", notes, len(unit.functions), model)


def _launch_functors(code: str, unit: Unit, notes: list[str]) -> tuple[str, Unit, list[SFunction]]:
    """Kokkos functors that only `main` launches get a host launcher each (bind.functor), whose facts are the
    functor's operator body; the launchers are the candidates."""
    functors = find_functors(code)
    if not functors:
        return code, unit, []
    code = code.rstrip("\n") + "\n" + "".join(launcher_source(f) for f in functors)
    unit = parse(code, "cpp")
    by_name = {f.name + LAUNCHER_SUFFIX: f for f in functors}
    launchers = [fn for fn in unit.functions if fn.name in by_name]
    for fn in launchers:
        f = by_name[fn.name]
        fn.facts = operator_facts(f)
        notes.append(f"Kokkos functor {f.name} (launched only from the suggestion's main): launched by the harness "
                     f"over {functor_policy(f)} from a host function of its members")
    return code, unit, launchers


# Said of a function that lacks a kernel input and has nowhere else to take it from: every parameter is a plain
# number or array mapped to another input, and no class or struct could carry it. The evaluator calls such a
# function another operation (`wrong_result`), not a binding failure of the harness.
CLOSED = " (every parameter is another input: nothing else could carry it)"
_PLAIN_KINDS = frozenset({"real", "int", "index", "char", "bool"})


def _closed(fn: SFunction, unit: Unit, lang: str) -> bool:
    """No parameter and no enclosing object of the function could hold a missing input (a struct or class
    parameter, an untyped C/Fortran parameter, a Python/Julia class or struct the unit defines)."""
    if not fn.params or fn.kind not in ("function", "subroutine", "device_kernel"):
        return False
    if lang in ("cpp", "fortran"):
        return all(p.kind in _PLAIN_KINDS for p in fn.params)
    return not any(it.kind in ("class_definition", "struct_definition") for it in unit.items)


def _flat_mapping(flat: Flat, kr: KernelRoles, lang: str) -> Mapping | None:
    """The mapping of a function's records flattened, where the function as written did not map (a language whose
    records are flattened only as a fallback, adapt.python_records); None where that does not map either."""
    try:
        return find_mapping(flat.fn, kr, lang)
    except NoMapping:
        return None


def _binding(unit: Unit, fn: SFunction, m: Mapping, kr: KernelRoles, lang: str, notes: list[str], nfuncs: int,
             model: ProgrammingModel | None = None, launch: bool = False, flat: Flat | None = None) -> Binding:
    base_dtype = kr.spec.dtype
    precision = _precision(fn, kr)
    if precision != kr.spec.dtype:  # the glue and the driver then work in the suggestion's own precision
        kr = dataclasses.replace(kr, spec=kr.spec.model_copy(update={"dtype": precision}))
    spec = kr.spec
    glue = make_glue(m, kr, lang)
    rl = record_language(lang)
    if flat is not None and rl is not None:  # the records rebuilt from their fields' glue; the rest on the original
        collapse(glue, flat, m.assign, rl)
        fn = flat.origin
    if model is not None and launchable(model.id) and (launch or takes_device_pointers(fn.text)):
        glue = launch_glue(glue, m, kr, model.id, launch, unit)
    exact = _exact_canonical(fn, m, kr, lang) and not (glue.setup or glue.teardown or glue.call and lang != "python")
    exact = exact and precision == base_dtype
    module = None
    if lang == "cpp":
        source, dropped = prune_cpp(unit, fn, uses=glue.uses)
    elif lang == "python":
        source, dropped = prune_python(unit, fn, model.id if model else None)
    elif lang == "fortran":
        source, module, dropped = prune_fortran(unit, fn)
    else:
        source, dropped = prune_julia(unit, fn)
    names = [f.name for f in unit.functions]
    clean = (not fn.error and not notes and not any(it.error for it in unit.items) and len(set(names)) == len(names)
             and not any(f.is_main or f.error for f in unit.functions))
    if lang == "python" and any(it.kind == "statement" for it in unit.items):
        clean = False
    if lang == "cpp" and clean:  # a definition repeated word for word: the pruned unit builds it once
        clean = without_repeats(unit.code, unit) == unit.code
    mapping = {}
    for p in m.fn.params:
        r = m.assign.get(p.position)
        mapping[flat.key(p.name, rl.sep) if flat is not None and rl is not None else p.name] = ("default" if r is None else "=".join(r.merged) if r.merged
                           else f"{r.name}={r.canonical}" if r.extra and not r.graded else r.name)
    if m.returned:
        mapping["<return>"] = m.returned
    if precision != base_dtype:
        mapping[PRECISION_KEY] = precision
    sig = f"{fn.name}({', '.join(p.name for p in fn.params)})"
    parts = [f"bound {sig} as {describe(m, lang)}", f"variant {m.variant}"]
    if m.implied:
        parts.append(f"{', '.join(m.implied)} implied by the arrays")
    parts += glue.notes
    graded = [r.name for r in m.assign.values() if r is not None and r.graded]
    reads = sorted({n for r in m.assign.values() if r is not None and r.graded for n in r.reads} | m.zero
                   | {n for v in m.variant.split("+") for n in kr.variants.get(v, {}).get("inout", [])})
    if graded:
        parts.append(f"graded at random {', '.join(graded)} per case (the variant's own reference)")
    if reads:
        parts.append(f"{', '.join(reads)} random on entry (read by the variant), never zero-filled")
    if precision != spec.dtype:
        parts.append(f"graded in {_PRECISION_WORD[precision]} precision: the prompt does not pin it "
                     f"and the suggestion declares {precision}")
    precisions = sorted({p.dtype for p in fn.params if p.dtype and p.kind == "real" and p.dtype != precision})
    if precisions:
        parts.append(f"declares {'/'.join(precisions)} where the kernel is graded in {precision}: data converted, "
                     f"validated at {precision} tolerance")
    if m.ambiguous:
        parts.append(f"equally plausible: {m.ambiguous}")
    parts += notes
    if m.notes:
        parts.append("evidence against: " + "; ".join(m.notes[:3]))
    added = [d for d in dropped if d.startswith("added `")]
    if added and clean:  # an import the prompt's file had: said even when nothing was pruned
        parts.append(f"conventional imports {', '.join(added)}")
    if dropped and not clean:
        parts.append(f"build unit pruned to {fn.name} and what it uses (dropped: {', '.join(dropped[:6])}"
                     f"{', ...' if len(dropped) > 6 else ''})")
    returns = glue.returns
    binding = Binding(function=qualified(m) if lang == "cpp" else fn.name, args=glue.args, returns=returns,
                      variant=m.variant, evidence="; ".join(parts), mapping=mapping,
                      call=glue.call if (glue.call and not (lang == "python" and glue.call == f"kernel({', '.join(glue.args)})")) else None,
                      setup=glue.setup, teardown=glue.teardown, decls=glue.decls,
                      source=None if (exact and clean and not added) else source, module=module if not (exact and clean) else None)
    # a returned result taken as an argument: the glue's call; scalars a Triton kernel takes as Python scalars too
    native = any(getattr(t, "native", "") for t in (fn.types or {}).values())
    if exact and clean and precision == base_dtype and spec.returned is None and not native:
        lang_obj = catalog().languages[lang]
        canon = canonical_binding(spec, lang_obj)
        binding.args, binding.returns, binding.call = canon.args, canon.returns, None
        binding.evidence = f"canonical signature {sig}; " + binding.evidence
    return binding
