"""Python records whose fields are mapped one by one: the suggestion's own dataclass, NamedTuple (class or
`namedtuple(...)`) or plain class with an `__init__`, as a parameter of the function (adapt.common).

adapt.python already hands a record whose fields are named like the kernel's parameters (a CSR class with
`indptr, indices, data`, a `Matrix(rows, cols, data)` holding the one input array of those sizes). Records that
carry their own sizes beside several arrays (a GEMM of three `Matrix(rows, cols, data)`: m, n and k each the extent
of two matrices; two `Vec(n, buf)` of an AXPY, one of them the output) or name their fields as they like (`ptr`,
`idx`, `val`) need the fields' roles decided by what the function does with them, as for C++ structs and Fortran
derived types. So the function is flattened: `A.rows` becomes a parameter `rows`, `C.data[...] = ...` a write of
`C_data`, and the mapping decides the fields' roles with the evidence it uses for parameters.

The flat function exists only for the mapping; the driver calls the suggestion's own function with records built
from the mapped arrays: by the constructor (a dataclass's or NamedTuple's fields in order, a plain class's
`__init__` parameters, each of which sets one field), or, where the constructor takes something else, an instance
made without `__init__` whose fields are set one by one. An output field is read back from the record after the
call, so a function that rebinds it (`C.data = A.data @ B.data`) is graded on what it left there, as one that
writes in place.

Flattening is the fallback: a function that maps as written (with adapt.python's record roles) keeps that mapping
and its evidence.
"""

from __future__ import annotations

import ast
import re
import textwrap

from hpceval.analysis.pyparse import parse_python as parse_ast
from hpceval.analysis.source import python_field, python_fields_as_names
from hpceval.bind.adapt.common import Field, Group, Record
from hpceval.bind.parse import SFunction, SParam, parse_python


class PythonRecords:
    lang = "python"
    sep = "."
    first = False  # flattened only where the function as written does not map (see the module's docstring)

    def records(self, code: str) -> dict[str, Record]:
        try:
            tree = parse_ast(code)
        except (SyntaxError, ValueError):
            return {}
        out: dict[str, Record] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and (rec := _class_record(node)) is not None:
                out[node.name] = rec
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and (fields := _namedtuple_call(node.value)):
                out[node.targets[0].id] = Record(node.targets[0].id, [Field(f, "{name}") for f in fields], fields)
        return out

    def record_of(self, p: SParam, records: dict[str, Record]) -> Record | None:
        """The record a parameter is: its annotation names one (`A: Matrix`, `"Matrix"`, `Optional[Matrix]`)."""
        names = re.findall(r"\w+", p.type_text)
        found = [records[n] for n in names if n in records]
        return found[0] if len(found) == 1 else None

    def member(self, param: str, f: Field) -> re.Pattern[str]:
        return python_field(param, f.name)

    def flat_source(self, fn: SFunction, groups: list[Group], rewrite) -> str:
        try:
            node = parse_ast(textwrap.dedent(fn.text)).body[0]
        except (SyntaxError, ValueError, IndexError):
            return fn.text
        if not isinstance(node, ast.FunctionDef):
            return fn.text
        by_name = {g.param.name: g for g in groups}
        args = node.args
        defaulted = len(args.args) - len(args.defaults)
        if any(a.arg in by_name for a in args.args[defaulted:]) or any(a.arg in by_name for a in args.kwonlyargs):
            return fn.text  # a record with a default value: its fields would need defaults of their own
        params: list[str] = []
        for i, a in enumerate(args.args):
            g = by_name.get(a.arg)
            if g is None:
                default = args.defaults[i - defaulted] if i >= defaulted else None
                params.append(ast.unparse(a) + (f" = {ast.unparse(default)}" if default is not None else ""))
                continue
            params += [f.decl.format(name=g.flat[f.name]) for f in g.record.fields]
        if args.vararg is not None or args.kwonlyargs:
            params.append(f"*{ast.unparse(args.vararg)}" if args.vararg is not None else "*")
        for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            params.append(ast.unparse(a) + (f" = {ast.unparse(default)}" if default is not None else ""))
        if args.kwarg is not None:
            params.append(f"**{ast.unparse(args.kwarg)}")
        head = f"def {node.name}({', '.join(params)}):"
        lines = textwrap.dedent(fn.text).split("\n")
        body = "\n".join(lines[node.body[0].lineno - 1:node.end_lineno])
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            body = "\n".join(lines[node.body[0].end_lineno:node.end_lineno]) or "    pass"
        for g in groups:  # the record handed back (`return C`): its output fields are read back from it either way
            body = re.sub(rf"^(\s*)return\s+{re.escape(g.param.name)}\s*$", r"\g<1>return", body, flags=re.MULTILINE)
        # the fields as their flat names, a rebound field as a write (the `rewrite` of adapt.common, plus that)
        return head + "\n" + python_fields_as_names(
            body, {(g.param.name, f.name): g.flat[f.name] for g in groups for f in g.record.fields})

    def parse_flat(self, code: str, flat_source: str, name: str) -> SFunction | None:
        from hpceval.bind.adapt.python import infer_parameter_types

        whole = code + "\n\n" + flat_source + "\n"
        found = [f for f in parse_python(whole).functions if f.name == name]
        if not found:
            return None
        found[-1].types = infer_parameter_types(whole, name)
        return found[-1]

    def build(self, glue, group: Group, args: dict[str, str], outputs: set[str], pointer: bool) -> str:
        rec, var = group.record, f"hp_rec_{group.param.name}"
        values = {f: re.sub(r"^\w+\s*=\s*", "", a) for f, a in args.items()}  # keyword arguments of the flat call
        cls = f"_module.{rec.name}"
        if rec.ctor is not None:
            glue.setup.append(f"{var} = {cls}({', '.join(values.get(f, 'None') for f in rec.ctor)})")
        else:  # its __init__ takes something else: made without it, its fields set one by one
            glue.setup.append(f"{var} = {cls}.__new__({cls})")
            glue.setup.extend(f"object.__setattr__({var}, {f!r}, {v})" for f, v in values.items())
        for f in sorted(outputs & set(values)):
            glue.teardown.insert(0, f"take_back({values[f]}, host_value({var}.{f}), {f'{group.param.name}.{f}'!r})")
        return var


def _class_record(node: ast.ClassDef) -> Record | None:
    """A dataclass or NamedTuple class (its annotated fields, in order: the constructor takes them so), or a plain
    class whose `__init__` sets fields from its parameters (`self.nr = n_rows`, `self.vals = np.asarray(values)`);
    None for a class that is neither."""
    typed = {s.target.id: ast.unparse(s.annotation) for s in node.body if isinstance(s, ast.AnnAssign)
             and isinstance(s.target, ast.Name) and "ClassVar" not in ast.unparse(s.annotation)}
    annotated = list(typed)
    decorators = " ".join(ast.unparse(d) for d in node.decorator_list)
    bases = " ".join(ast.unparse(b) for b in node.bases)
    init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if annotated and init is None and ("dataclass" in decorators or "NamedTuple" in bases):
        return Record(node.name, [_field(f, typed) for f in annotated], annotated)
    if init is None or init.args.vararg or init.args.kwarg:
        return Record(node.name, [_field(f, typed) for f in annotated], None) if annotated else None
    params = [a.arg for a in init.args.args[1:]]
    sets: dict[str, str] = {}  # init parameter -> the field it alone sets
    fields: list[str] = list(annotated)
    for st in ast.walk(init):
        if not isinstance(st, (ast.Assign, ast.AnnAssign)):
            continue
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                if t.attr not in fields:
                    fields.append(t.attr)
                used = {n.id for n in ast.walk(st.value) if isinstance(n, ast.Name)} if st.value else set()
                if len(used & set(params)) == 1:
                    sets.setdefault((used & set(params)).pop(), t.attr)
    if not fields:
        return None
    ctor = [sets[p] for p in params] if params and all(p in sets for p in params) and \
        len(set(sets.values())) == len(params) else None
    return Record(node.name, [_field(f, typed) for f in fields], ctor)


def _field(name: str, typed: dict[str, str]) -> Field:
    """A field as a flat parameter: its annotation kept (`rows: int` is a size, `data: np.ndarray` an array)."""
    return Field(name, "{name}: " + typed[name] if name in typed else "{name}")


def _namedtuple_call(value: ast.AST) -> list[str]:
    """The fields of `namedtuple("Csr", "n ptr idx val")` / `NamedTuple("Csr", [("n", int), ...])`, else []."""
    if not (isinstance(value, ast.Call) and len(value.args) >= 2):
        return []
    func = ast.unparse(value.func)
    spec = value.args[1]
    if func.endswith("namedtuple"):
        if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
            return spec.value.replace(",", " ").split()
        if isinstance(spec, (ast.List, ast.Tuple)):
            return [e.value for e in spec.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if func.endswith("NamedTuple") and isinstance(spec, (ast.List, ast.Tuple)):
        return [e.elts[0].value for e in spec.elts if isinstance(e, ast.Tuple) and e.elts
                and isinstance(e.elts[0], ast.Constant)]
    return []


RECORDS = PythonRecords()
