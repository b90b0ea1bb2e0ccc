"""CUDA / HIP C++: does a host loop write the outputs from the kernel's inputs (the sweep done on the host)?

The usage patterns ask for a `__global__` and a launch; a one-thread kernel launched beside a host loop nest that
computes the whole result passed. Here the host functions of the suggestion (the bound function and the plain
functions it calls with the outputs, never `__global__`/`__device__` code) are read for loops writing an output
element from the kernel's input arrays, directly or through host scalars computed from them (`s += A[i*n+j]*x[j];
y[i] = s`). Writes that copy a staging buffer filled from the device (`y[i] = h[i]`), sum per-block partial results
copied back, or fill a literal are not the kernel's work. A loop starting at a computed index (`for (i = n4; ...)`,
a remainder after the device did the bulk) is allowed. Code whose braces do not balance is left to the build.
"""

from __future__ import annotations

import re

from hpceval.analysis.datamap import _balanced
from hpceval.analysis.parallel_work import _c_loops, _function_span, _local_arrays, _writes

_DEVICE_QUALIFIER = re.compile(r"__(global|device)__")
_ASSIGN = re.compile(r"(?<![\w.>\[])([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*([-+*/]?=)(?!=)\s*([^;]*);")


def host_sweep_problem(code: str, function: str, outputs: set[str], inputs: set[str], depth: int = 0) -> str | None:
    """None when no host loop writes an output from the inputs; else the evidence of `wrong_model`."""
    if code.count("{") != code.count("}") or code.count("(") != code.count(")"):
        return None
    name = function.split("::")[-1]
    span = _function_span(code, name, False)
    if span is None or _device_function(code, span, name):
        return None
    body = code[span[0]:span[1]]
    tainted = _host_computed(body, inputs, outputs)
    loops = _c_loops(code, span)
    locals_ = _local_arrays(body, False)
    for out in sorted(outputs):
        for write in _writes(code, span, out, False, locals_):
            enclosing = sorted((lo, hi) for lo, hi in loops if lo <= write.pos < hi)
            if not enclosing or not write.work:
                continue
            rhs = write.text.split("=", 1)[1] if "=" in write.text else write.text
            if not _mentions(rhs, tainted | inputs) and not (_compound(write.text) and _mentions(rhs, inputs)):
                continue
            if _remainder(code, enclosing[0][0]):
                continue
            where = f" in {name}()" if depth else ""
            return (f"the loop nest writing {out} runs on the host{where} (`{write.text.strip()[:70]}`, "
                    f"{len(enclosing)} loop{'s' if len(enclosing) > 1 else ''} deep, from the host inputs): a GPU "
                    f"kernel beside it does not make the outputs device work")
    if depth < 2:
        return _through_helpers(code, body, name, outputs, inputs, depth)
    return None


def _device_function(code: str, span: tuple[int, int], name: str) -> bool:
    head = code.rfind("\n", 0, code.rfind(name, 0, span[0]))
    return bool(_DEVICE_QUALIFIER.search(code[max(head, 0):span[0]]))


def _host_computed(body: str, inputs: set[str], outputs: set[str]) -> set[str]:
    """Host variables whose value is computed from the inputs (to a fixed point)."""
    found: set[str] = set()
    assigns = [(m.group(1), m.group(3)) for m in _ASSIGN.finditer(body)]
    for _ in range(4):
        before = len(found)
        found |= {lhs for lhs, rhs in assigns if lhs not in outputs and _mentions(rhs, inputs | found)}
        if len(found) == before:
            break
    return found


def _mentions(text: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b", text) for n in names)


def _compound(text: str) -> bool:
    return bool(re.search(r"[-+*/]=", text))


def _remainder(code: str, loop_start: int) -> bool:
    """`for (int i = n4; ...)`: a loop starting at a computed index (a remainder), not at a literal."""
    head = re.match(r"for\s*\(\s*(?:[\w:<>]+\s+)?\w+\s*=\s*([^;]+);", code[loop_start:])
    return bool(head) and not re.fullmatch(r"\s*[-+]?\d+[uUlL]*\s*", head.group(1))


def _through_helpers(code: str, body: str, name: str, outputs: set[str], inputs: set[str], depth: int) -> str | None:
    """Plain helpers called with an output: their parameters at those positions are the outputs and inputs."""
    for call in re.finditer(r"(?<![\w.>:])([A-Za-z_]\w*)\s*\(", body):
        callee = call.group(1)
        if callee == name or callee in ("for", "while", "if", "switch", "return", "sizeof"):
            continue
        params = _parameters(code, callee)
        if not params:
            continue
        close = _balanced(body, call.end() - 1)
        args = _split(body[call.end():close - 1])
        outs = {params[i] for i, a in enumerate(args[:len(params)]) if a.strip() in outputs}
        if not outs:
            continue
        ins = {params[i] for i, a in enumerate(args[:len(params)]) if _mentions(a, inputs)} - outs
        problem = host_sweep_problem(code, callee, outs, ins, depth + 1)
        if problem:
            return problem
    return None


def _parameters(code: str, name: str) -> list[str]:
    """Parameter names of a host function defined in the code (empty if none, or a __global__/__device__ one)."""
    for m in re.finditer(rf"(?<![\w.>:]){re.escape(name)}\s*\(", code):
        close = _balanced(code, m.end() - 1)
        if not re.match(r"\s*(?:const\b\s*)?\{", code[close:]):
            continue
        line = code[code.rfind("\n", 0, m.start()) + 1:m.start()]
        if _DEVICE_QUALIFIER.search(line) or not re.search(r"[\w*&>]\s*$", line):
            continue
        names = [re.findall(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$", p.split("=")[0].strip()) for p in
                 _split(code[m.end():close - 1])]
        return [n[0] if n else "" for n in names]
    return []


def _split(args: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts
