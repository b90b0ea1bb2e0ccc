"""Is there a complete kernel in the suggestion? The `incomplete` verdict's analysis (C/C++, Fortran, Python, Julia).

Why: `unbindable` used to mix two faults. A suggestion with no complete kernel (cut off mid-function, a bare
signature, declarations only, calls to helpers or types it never defines) is the LLM's fault, the study's level 0;
a complete function the harness could not map is the harness's. The evaluator asks `incomplete_reason` wherever a
suggestion would become `unbindable` and before building it: a reason makes the verdict `incomplete` with the
missing names in the evidence, None leaves the verdict as it was.

Undefined names are judged conservatively: a name that the language, its runtime or a known library provides
(analysis.known_names) is never missing, a near miss of a known or defined name is a typo (left to the build:
`build_error`), and a suggestion that pulls names from somewhere the analysis cannot see (an unknown package,
`using namespace Foo`, `from x import *`) is never called incomplete for a missing name.
"""

from __future__ import annotations

import ast
import re
import sys

from hpceval.analysis.known_names import (
    C_FUNCTIONS,
    C_HEADER_PREFIXES,
    C_PREFIXES,
    C_STD_HEADERS,
    C_TYPES,
    FORTRAN_INTRINSICS,
    FORTRAN_MODULES,
    FORTRAN_PREFIXES,
    FORTRAN_TYPES,
    JULIA_FUNCTIONS,
    JULIA_PACKAGES,
    JULIA_TYPES,
    PYTHON_BUILTINS,
    c_runtime_exports,
    close_to,
)
from hpceval.analysis.pyparse import parse_python
from hpceval.analysis.source import python_imports
from hpceval.importers.copilot import strip_comments

LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$', re.MULTILINE)


def local_headers(code: str) -> list[str]:
    """Quoted includes of project headers that no build unit provides (`#include "spmv.h"`)."""
    return [h for h in LOCAL_INCLUDE.findall(code) if not _known_header(h)]


def drop_local_headers(code: str) -> str:
    """The code without includes of project headers that do not exist (the line is kept blank: lines stay)."""
    return LOCAL_INCLUDE.sub(lambda m: "" if not _known_header(m.group(1)) else m.group(0), code)


def _known_header(name: str) -> bool:
    return name in C_STD_HEADERS or name.startswith(C_HEADER_PREFIXES)


def incomplete_reason(code: str, lang: str) -> str | None:
    """None when the suggestion holds a complete kernel (as far as this analysis can tell), else why not."""
    if lang == "cpp":
        return _cpp(code)
    if lang == "fortran":
        return _fortran(code)
    if lang == "python":
        return _python(code)
    if lang == "julia":
        return _julia(code)
    return None


def parse_recovered(code: str, lang: str) -> bool:
    """Whether the parser the analysis reads had to recover from syntax it did not understand (C/C++: tree-sitter
    error nodes; a misread macro, lambda or functor call). Its structural findings are then no evidence against
    code the compiler accepts (checks.builds_alone decides)."""
    if lang != "cpp":
        return False
    from hpceval.bind.parse import c_sanitize, parser

    src = c_sanitize(re.sub(r"<<<.*?>>>", lambda m: " " * len(m.group(0)), _strip_c(code), flags=re.DOTALL))
    return bool(parser("cpp").parse(src.encode()).root_node.has_error)


def _missing(kind: str, names: list[str], extra: str = "") -> str:
    shown = ", ".join(f"`{n}`" for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return f"incomplete: calls {kind} it never defines: {shown}{extra}"


def _undefined(used: set[str], defined: set[str], known: set[str], prefixes: tuple[str, ...] = ()) -> list[str]:
    """Used names neither defined, known, of a known library family, nor a typo of a defined or known name."""
    out = []
    for name in sorted(used):
        if name in defined or name in known or (prefixes and name.startswith(prefixes)):
            continue
        if known is not None and known & C_FUNCTIONS and c_runtime_exports(name):
            continue  # C/C++: a function of the C runtime (POSIX, GNU extensions)
        if close_to(name, defined | known):
            continue  # a typo of a real name: the build says so (build_error), nothing is missing
        out.append(name)
    return out


# ---------------------------------------------------------------------------------------------------- C / C++
def _strip_c(code: str) -> str:
    code = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', code)
    code = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", code)
    return strip_comments(code, "cpp")


def _cpp(code: str) -> str | None:
    from hpceval.bind.parse import c_sanitize, parser, text_of, walk

    bare = _strip_c(code)
    if not bare.strip():
        return "incomplete: comments only"
    opened, closed = bare.count("{"), bare.count("}")
    if opened > closed:
        return f"incomplete: cut off ({opened - closed} unclosed brace{'s' if opened - closed > 1 else ''})"
    parens = bare.count("(") - bare.count(")")
    if parens > 0:  # cut inside a parameter list or a call: every brace may be closed (`double cg(int n, double *A`)
        return f"incomplete: cut off ({parens} unclosed parenthes{'e' if parens > 1 else 'i'}s)"
    src = c_sanitize(re.sub(r"<<<.*?>>>", lambda m: " " * len(m.group(0)), bare, flags=re.DOTALL))
    tree = parser("cpp").parse(src.encode())
    defs = [n for n in walk(tree.root_node) if n.type == "function_definition"]
    bodies = [n for n in defs if n.child_by_field_name("body") is not None and text_of(n.child_by_field_name("body")).strip("{} \n\t;")]
    non_main = [n for n in bodies if "main" != _c_name(n)]
    if not non_main:
        protos = [text_of(d.child_by_field_name("declarator")).split("(")[0].split()[-1:] for d in walk(tree.root_node)
                  if d.type in ("declaration", "field_declaration")
                  and any(c.type == "function_declarator" for c in walk(d))]
        names = [p[0].lstrip("*&") for p in protos if p]
        if names:
            return f"incomplete: signature only (`{names[0]}` is declared, never defined)"
        if bodies and all(_c_name(n) == "main" for n in defs):
            return "incomplete: only a main program, no kernel function"
        if defs:
            return "incomplete: the function has an empty body"
        return "incomplete: declarations only, no function definition"
    if re.search(r"^\s*using\s+namespace\s+(?!std\b)\w+", bare, re.MULTILINE):
        return None  # names from a namespace this analysis does not list
    includes = re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', code, re.MULTILINE)
    if any(not _known_header(h) for h in includes if f'"{h}"' not in code):
        return None  # an unknown library header may provide any name
    defined: set[str] = set(re.findall(r"^\s*#\s*define\s+(\w+)", code, re.MULTILINE))
    types_defined: set[str] = set()
    calls: set[str] = set()
    types_used: set[str] = set()
    for n in walk(tree.root_node):
        t = n.type
        if t in ("identifier", "field_identifier") and n.parent is not None and n.parent.type in (
                "function_declarator", "init_declarator", "pointer_declarator", "reference_declarator",
                "array_declarator", "parameter_declaration", "declaration", "optional_parameter_declaration",
                "field_declaration", "enumerator", "for_range_loop", "lambda_capture_specifier"):
            defined.add(text_of(n))
        elif t in ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier", "type_definition",
                   "alias_declaration", "type_parameter_declaration", "optional_type_parameter_declaration"):
            for c in n.children:
                if c.type in ("type_identifier", "identifier"):
                    types_defined.add(text_of(c))
            if t == "type_definition":
                last = [c for c in walk(n) if c.type == "type_identifier"]
                if last:
                    types_defined.add(text_of(last[-1]))
        elif t == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "identifier":
                calls.add(text_of(f))
        elif t == "type_identifier" and not _qualified(n):
            types_used.add(text_of(n))
    defined |= types_defined
    for d in defs:
        defined.add(_c_name(d))
    missing_calls = _undefined(calls, defined, C_FUNCTIONS | C_TYPES, C_PREFIXES)
    missing_types = _undefined(types_used, defined, C_TYPES | C_FUNCTIONS, C_PREFIXES)
    missing_types = [n for n in missing_types if not n.endswith("_t") and not re.fullmatch(r"[A-Z0-9_]+", n)]
    if missing_types:
        return _missing("types", missing_types, "" if not missing_calls else
                        "; and helpers " + ", ".join(f"`{n}`" for n in missing_calls)).replace(
                            "calls types", "uses types")
    if missing_calls:
        return _missing("helpers", missing_calls)
    return None


def _c_name(node) -> str:
    from hpceval.bind.parse import text_of, walk

    decl = node.child_by_field_name("declarator")
    for n in walk(decl) if decl is not None else []:
        if n.type == "function_declarator":
            inner = n.child_by_field_name("declarator")
            return text_of(inner).split("::")[-1]
    return ""


def _qualified(node) -> bool:
    p = node.parent
    while p is not None and p.type in ("template_type", "template_argument_list", "type_descriptor",
                                       "qualified_identifier"):
        if p.type == "qualified_identifier":
            return True
        p = p.parent
    return False


# ---------------------------------------------------------------------------------------------------- Fortran
_F_UNIT = re.compile(r"^\s*(?:(?:pure|elemental|recursive|module|impure|attributes\s*\(\s*\w+\s*\))\s+|"
                     r"(?:real|integer|double\s+precision|logical|complex)(?:\s*\(\s*[\w=]+\s*\)|\*\d+)?\s+)*"
                     r"(subroutine|function|program|module)\s+(?!procedure\b)(\w+)", re.IGNORECASE | re.MULTILINE)
_F_END = re.compile(r"^\s*end\s*(?:(subroutine|function|program|module)\b.*)?$", re.IGNORECASE | re.MULTILINE)
_F_DECL = re.compile(r"^\s*(implicit\b|use\b|integer\b|real\b|double\s+precision\b|logical\b|complex\b|character\b|"
                     r"type\s*\(|class\s*\(|dimension\b|parameter\b|intent\b|external\b|intrinsic\b|save\b|"
                     r"contains\b|interface\b|end\s*interface\b|private\b|public\b|include\b|!\$\s*acc\s+routine)",
                     re.IGNORECASE)


def _fortran(code: str) -> str | None:
    bare = strip_comments(code, "fortran")
    bare = re.sub(r"&\s*\n\s*&?", " ", bare)
    if not bare.strip():
        return "incomplete: comments only"
    units = [m for m in _F_UNIT.finditer(bare)]
    procs = [m for m in units if m.group(1).lower() in ("subroutine", "function")]
    if not procs:
        return "incomplete: declarations only, no subroutine or function"
    ends = len(_F_END.findall(bare))
    if len(units) > ends:
        kind, name = procs[-1].group(1).lower(), procs[-1].group(2)
        return f"incomplete: cut off (`end {kind}` of `{name}` missing)"
    body_lines = []
    for line in bare.split("\n"):
        s = line.strip()
        if not s or _F_UNIT.match(line) or _F_END.match(line) or _F_DECL.match(s):
            continue
        if re.match(r"^(real|integer|logical|double|complex|character)\b.*::", s, re.IGNORECASE):
            continue
        body_lines.append(s)
    if not body_lines:
        return f"incomplete: signature and declarations only (`{procs[0].group(2)}` has no statements)"
    low = bare.lower()
    defined_units = {m.group(2).lower() for m in units}
    used_modules = set(re.findall(r"^\s*use\s*(?:,\s*\w+\s*::)?\s*(\w+)", low, re.MULTILINE))
    missing_modules = sorted(m for m in used_modules if m not in defined_units and m not in FORTRAN_MODULES)
    if missing_modules:
        return "incomplete: uses modules it never defines: " + ", ".join(f"`{m}`" for m in missing_modules)
    types_defined = set(re.findall(r"^\s*type\s*(?:,[^:]*)?(?:::)?\s*(\w+)\s*$", low, re.MULTILINE))
    types_used = set(re.findall(r"\btype\s*\(\s*(\w+)\s*\)", low))
    missing_types = _undefined(types_used, types_defined, FORTRAN_TYPES)
    calls = set(re.findall(r"\bcall\s+(\w+)", low))
    interfaces = set(re.findall(r"^\s*(?:subroutine|function)\s+(\w+)", low, re.MULTILINE))
    externals = set(re.findall(r"\bexternal\s*(?:::)?\s*([\w, ]+)", low))
    ext_names = {e.strip() for group in externals for e in group.split(",")}
    missing_calls = _undefined(calls, defined_units | interfaces | ext_names, FORTRAN_INTRINSICS, FORTRAN_PREFIXES)
    if missing_types:
        return "incomplete: uses derived types it never defines: " + ", ".join(f"`{n}`" for n in missing_types)
    if missing_calls:
        return _missing("subroutines", missing_calls)
    return None


# ---------------------------------------------------------------------------------------------------- Python
_CAN_DEFINE = re.compile(r"\b(?:def|lambda)\b")  # what could make a function, read without a parse


def _open_to_the_end(code: str, lineno: int | None) -> bool:
    """Whether a bracket left open at `lineno` runs to the end of the text (every later line is a continuation,
    indented deeper): the text was cut off inside it. A statement after it at the bracket line's indentation or
    less (`a = rs / (p @ ap` followed by the rest of the loop and a `return`) makes it a syntax error mid-body."""
    lines = code.split("\n")
    if not lineno or lineno > len(lines):
        return True
    depth = len(lines[lineno - 1]) - len(lines[lineno - 1].lstrip())
    return all(len(t) - len(t.lstrip()) > depth for t in lines[lineno:] if t.strip() and not t.lstrip().startswith("#"))


def _python(code: str) -> str | None:
    if not strip_comments(code, "python").strip():
        return "incomplete: comments only"
    try:
        tree = parse_python(code)
    except SyntaxError as exc:
        last = len(code.rstrip().split("\n"))
        msg = (exc.msg or "").lower()
        # cut off where the text ends: the parser stops at its last line (`for ...:` with no body, `y = x +`, an
        # unclosed bracket or string); an error with lines after it (`def f(x)` missing its colon) is a syntax error
        if (exc.lineno or 0) >= last or "eof" in msg or ("never closed" in msg and _open_to_the_end(code, exc.lineno)):
            return f"incomplete: cut off ({exc.msg} at line {exc.lineno})"
        if not _CAN_DEFINE.search(strip_comments(code, "python")):  # no kernel whatever the parser says (the
            # precedence: incomplete before build_error); `def` even inside a string leaves it to the import
            return f"incomplete: no function definition, only top-level statements (and a syntax error: {exc.msg} " \
                   f"at line {exc.lineno})"
        return None  # a syntax error mid-file in complete code: the run says so
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if not funcs:
        return "incomplete: declarations only, no function definition"
    if all(_stub(f) for f in funcs):
        return f"incomplete: signature only (`{funcs[0].name}` has no body)"
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree)):
        return None
    defined: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            defined.add(n.id)
        elif isinstance(n, ast.arg):
            defined.add(n.arg)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            defined.add(n.name)
        elif isinstance(n, ast.Global | ast.Nonlocal):
            defined |= set(n.names)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    missing = _undefined(calls, defined, PYTHON_BUILTINS)
    return _missing("helpers", missing) if missing else None


def module_attribute_calls(code: str) -> list[str]:
    """Python calls `M.attr(...)` where M is bound by `import pkg [as M]` and may lack `attr`: the module is not
    loaded in this process (its import in the sandbox decides, checks.builds_alone), or is and lacks it. A cheap
    filter before that import; never itself a claim that a name is missing."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return []
    modules = python_imports(tree, from_imports=False)
    out = []
    for n in ast.walk(tree):
        f = n.func if isinstance(n, ast.Call) else None
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
            loaded = sys.modules.get(modules[f.value.id])
            if loaded is None or not hasattr(loaded, f.attr):
                out.append(f"{f.value.id}.{f.attr}")
    return out


def _stub(f) -> bool:
    body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in body)


# ---------------------------------------------------------------------------------------------------- Julia
_J_OPEN = re.compile(r"\b(function|for|while|if|begin|let|quote|struct|module|baremodule|macro|do|try)\b|"
                     r"\b(?:abstract|primitive)\s+type\b")


def _julia(code: str) -> str | None:
    bare = re.sub(r'"""(?:.|\n)*?(?:"""|$)', '""', code)
    bare = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', bare)
    bare = strip_comments(bare, "julia")
    if not bare.strip():
        return "incomplete: comments only"
    flat = bare
    for _ in range(6):  # `end` inside indexing and generators inside brackets are not blocks
        flat = re.sub(r"\[[^\[\]]*\]", "_", flat)
        flat = re.sub(r"\([^()]*\)", "_", flat)
    opened = len(_J_OPEN.findall(re.sub(r"\bfunction\s+\w+\s+end\b", "", flat)))
    opened += len(re.findall(r"\bfunction\s+\w+\s+end\b", flat))
    closed = len(re.findall(r"\bend\b", flat))
    long_defs = re.findall(r"^\s*(?:@\w+\s+)*function\s+([\w.!]+)\s*(\(|$|\s+end\b)", bare, re.MULTILINE)
    short_defs = re.findall(r"^\s*(?:@\w+\s+)*([\w.!]+)\s*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)\s*(?:::\s*\w+\s*)?"
                            r"(?:where\s*[^=\n]*)?=(?!=)", bare, re.MULTILINE)
    if opened > closed:
        name = long_defs[-1][0] if long_defs else "a block"
        return f"incomplete: cut off (`end` of `{name}` missing)"
    if not long_defs and not short_defs:
        return "incomplete: declarations only, no function definition"
    real = [d for d in long_defs if d[1] != " end" and not d[1].strip() == "end"]
    if not real and not short_defs:
        return f"incomplete: signature only (`{long_defs[0][0]}` has no method)"
    packages = {p.strip().split(":")[0].strip() for group in re.findall(r"^\s*(?:using|import)\s+([^\n]+)", bare,
                                                                         re.MULTILINE) for p in group.split(",")}
    if any(p and p not in JULIA_PACKAGES for p in packages):
        return None
    defined = {d[0] for d in long_defs} | set(short_defs)
    defined |= set(re.findall(r"\b(\w+!?)\s*(?:::[^,()=]+)?\s*(?=[,)=])", bare))  # arguments and assignments
    defined |= set(re.findall(r"\bfor\s+\(?([\w, ]+)\)?\s+(?:in|=|∈)", bare)) | set(
        re.findall(r"^\s*(?:mutable\s+)?struct\s+(\w+)", bare, re.MULTILINE))
    defined |= set(re.findall(r"^\s*(?:const\s+)?(\w+)\s*=", bare, re.MULTILINE))
    calls = set(re.findall(r"(?<![\w.@:])([A-Za-z_]\w*!?)\s*\(", bare)) - {"function", "if", "for", "while",
                                                                          "elseif", "return", "in", "end", "do"}
    missing = _undefined(calls, defined, JULIA_FUNCTIONS | JULIA_TYPES)
    return _missing("helpers", missing) if missing else None
