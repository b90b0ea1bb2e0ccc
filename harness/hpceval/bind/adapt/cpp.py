"""C++ type adapters: the suggestion's structs and classes, context parameters, std::vector outputs.

* records: `struct CSR {int n; int *row_ptr; ...}`, `typedef struct {...} csr_t`, a `class Matrix` with public
  fields or a constructor that sets them (`Matrix(int r, int c, const double *d) : rows(r), cols(c), data(d)`,
  `ptr_(std::move(ptr))`, a member derived from the arguments as `n_(ptr.size() - 1)`), taken by value, by
  reference or by pointer; built by the constructor where one sets every field it takes, else value-initialised
  and assigned field by field. A private member is read through its accessor (`A.ptr()` for a member function
  `ptr()` that returns `ptr_`): for the mapping the call is the member, and an output member goes back through it;
* context parameters: a `sycl::queue` (created once by the driver, on the default device), a CUDA/HIP stream
  (the default stream);
* a separate std::vector output (ParEval's `std::vector<double> &z`): the function gets a vector, not a pointer,
  and the read-back checks the size it left (a function that resizes it gets no silent partial copy);
* Thrust containers (`thrust::device_vector<T>&`, `const&`, `thrust::host_vector<T>`): built from the driver's
  std::vector before the clock starts, copied back after it stops where the function may write them, as the
  other GPU glue does; a library handle (`cublasHandle_t`, `cusparseHandle_t`) created once by the driver;
* `std::array<T, N>`: see fixed_extent (a compile-time extent cannot take the case's sizes).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from hpceval.bind.adapt.common import Field, Group, Record, split_top
from hpceval.bind.parse import SFunction, SParam, c_sanitize, parse_cpp, parser, text_of, walk
from hpceval.bind.parse.cpp import THRUST_VECTORS

# ------------------------------------------------------------------------------------------------ context parameters

_CONTEXTS = {
    "queue": re.compile(r"^(?:::)?(?:sycl::|cl::sycl::)?queue$"),
    "stream": re.compile(r"^(?:cuda|hip)Stream_t$"),
    "handle": re.compile(r"^(cublas|cusparse|cusolverDn|hipblas|hipsparse)Handle_t$"),
}


def _base_type(p: SParam) -> str:
    return " ".join(re.sub(r"\b(const|volatile|struct|class|typename)\b", " ", p.type_text).split())


def context_kind(p: SParam) -> str | None:
    """Which context a parameter is (queue, stream), or None."""
    base = _base_type(p)
    return next((k for k, pat in _CONTEXTS.items() if pat.match(base)), None)


def context_arg(g, p: SParam) -> str | None:
    """The argument for a context parameter (its setup added to g), or None when p is none."""
    kind = context_kind(p)
    if kind == "queue":
        var = f"hp_ctx_{p.name}"
        g.setup.append(f"static sycl::queue {var};")  # once per run: a queue per call would be timed set-up cost
        g.notes.append(f"{p.name}: a sycl::queue on the default device, created by the driver")
        return f"&{var}" if p.container == "pointer" else var
    if kind == "stream":
        g.notes.append(f"{p.name}: the default stream")
        return f"({_base_type(p)})0"
    if kind == "handle":  # created once per run (a handle per call would time its creation), destroyed at exit
        base = _base_type(p)
        lib = _CONTEXTS["handle"].match(base).group(1)
        var = f"hp_ctx_{p.name}"
        g.setup.append(f"static struct {var}_t {{ {base} h; {var}_t() {{ {lib}Create(&h); }} "
                       f"~{var}_t() {{ {lib}Destroy(h); }} }} {var};")
        g.notes.append(f"{p.name}: a {base} created by the driver ({lib}Create, {lib}Destroy at exit)")
        return f"&{var}.h" if p.container == "pointer" else f"{var}.h"
    return None


# ------------------------------------------------------------------------------------------------ container outputs


def vector_output(g, late: list[str], p: SParam, elem: str, size: str, target: str, tmp: str) -> str | None:
    """A separate output the function takes as a std::vector (by reference, or by value: then nothing comes back,
    and validation says so): the vector itself, sized and NaN-poisoned; read back into `target` after every other
    copy (appended to `late`). None when p is no vector."""
    if p.container in THRUST_VECTORS:  # read back through a host copy (one bulk transfer, not element by element)
        g.setup.append(f"{thrust_type(p, elem)} {tmp}((size_t)({size}), ({elem})NAN);")
        late.append(f"{{ std::vector<{elem}> hp_h({tmp}.size()); thrust::copy({tmp}.begin(), {tmp}.end(), "
                    f"hp_h.begin()); hpceval_take_back(hp_h, {target}, (size_t)({size}), \"{p.name}\"); }}")
        g.notes.append(f"{p.name}: a {thrust_type(p, elem)} of the output's size, read back after the call")
        return tmp
    if p.container != "vector":
        return None
    g.setup.append(f"std::vector<{elem}> {tmp}((size_t)({size}), ({elem})NAN);")
    late.append(f"hpceval_take_back({tmp}, {target}, (size_t)({size}), \"{p.name}\");")
    return tmp


# ------------------------------------------------------------------------------------------------ Thrust containers


def thrust_type(p: SParam, elem: str) -> str:
    """The Thrust container type a parameter declares, of element `elem`."""
    return f"thrust::{p.container}<{elem}>"


def thrust_container(g, p: SParam, elem: str, host: str) -> str:
    """A Thrust container of the parameter's type built from the driver's std::vector `host` (outside the timed
    call); copied back into `host` after the call unless the parameter is const (Thrust converts the element type
    both ways where the function declares another precision). A function that resized it leaves NaN, never a
    partial copy."""
    var = f"hp_tv_{p.name}"
    g.setup.append(f"{thrust_type(p, elem)} {var}({host}.begin(), {host}.end());")
    if p.intent != "in":
        g.teardown.append(f"if ({var}.size() == {host}.size()) thrust::copy({var}.begin(), {var}.end(), "
                          f"{host}.begin()); else std::fill({host}.begin(), {host}.end(), NAN);")
    g.notes.append(f"{p.name}: a {thrust_type(p, elem)} built from the host array"
                   + ("" if p.intent == "in" else ", copied back after the call"))
    return var


# ------------------------------------------------------------------------------------------------ std::array

# The wording by which a binding error says that the suggestion, not the harness, cannot take the case's sizes
# (the evaluator grades it `wrong_result`, evaluate.Evaluator._unbound).
FIXED_EXTENT = "a compile-time extent, so the function cannot compute the kernel for the sizes it is given"
_ARRAY_EXTENT = re.compile(r"\barray\s*<(.*)>", re.DOTALL)


def fixed_extent(fn: SFunction, m) -> tuple[str, bool] | None:
    """Why a function whose kernel arrays are `std::array<T, N>` parameters cannot be handed the case's arrays, and
    whether that is the suggestion's fault; None when no mapped array is a std::array.

    N is part of the type, fixed when the suggestion is compiled. The harness grades every kernel over several
    sizes (and a timing size), all run-time values of one driver binary; no adapter can build a std::array whose
    extent matches them, and padding or truncating would grade another computation. So:

    * N a literal, macro or constant (`std::array<double, 1024>`): the suggestion computes the kernel for that one
      size only. That is a wrong answer to a kernel over n elements, as a hard-coded size is: `wrong_result` (the
      message carries FIXED_EXTENT), never `unbindable`, which would leave it out of the score;
    * N a template parameter of the function (`template <size_t N>`): the suggestion is generic, and only the
      harness's one-binary driver cannot instantiate it per size: `unbindable`, the harness's shortfall, said as
      such."""
    templ = set(re.findall(r"\b(?:size_t|std::size_t|int|unsigned|long|auto|std::uint\w*|uint\w*)\s+(\w+)\s*[,>=]",
                           fn.text[:fn.text.find(fn.name)] if fn.name in fn.text else ""))
    head = fn.text[:fn.text.find("{")] if "{" in fn.text else fn.text
    for pos, role in m.assign.items():
        p = fn.params[pos]
        if role is None or not role.is_array:
            continue
        inner = re.search(rf"(?:\(\s*\*\s*{re.escape(p.name)}\s*\)|\b{re.escape(p.name)}\s*\[[^\]]*\])\s*\[\s*(\w+)\s*\]",
                          head)
        if inner and inner.group(1) in templ:  # `const double (*A)[N]` with `template <int N>`: as std::array's N
            return (f"{p.name} has the row length {inner.group(1)}, a template parameter: the driver, one binary over "
                    f"run-time sizes, cannot instantiate it per size"), False
        if p.container != "array":
            continue
        mm = _ARRAY_EXTENT.search(p.type_text)
        extent = split_top(mm.group(1), "(<)>")[-1].strip() if mm else "N"
        if set(re.findall(r"[A-Za-z_]\w*", extent)) & templ:
            return (f"{p.name} is a {p.type_text.replace('const ', '')} whose extent {extent} is a template "
                    f"parameter: the driver, one binary over run-time sizes, cannot instantiate it per size"), False
        return f"{p.name} is a {p.type_text.replace('const ', '')}: {role.name} has {FIXED_EXTENT}", True
    return None


# ------------------------------------------------------------------------------------------------ records

_INT_TYPES = r"int|long|long long|unsigned|unsigned int|size_t|std::size_t|std::int64_t|int64_t|std::int32_t|int32_t"


class CppRecords:
    lang = "cpp"
    sep = "."
    first = True

    def records(self, code: str) -> dict[str, Record]:
        root = parser("cpp").parse(c_sanitize(code).encode()).root_node
        out: dict[str, Record] = {}
        for n in walk(root):
            if n.type not in ("struct_specifier", "class_specifier") or n.child_by_field_name("body") is None:
                continue
            name = text_of(n.child_by_field_name("name"))
            if not name and n.parent is not None and n.parent.type == "type_definition":
                name = text_of(n.parent.child_by_field_name("declarator"))
            rec = _record(n, name, n.type == "struct_specifier")
            if name and rec.fields:
                out[name] = rec
                if n.parent is not None and n.parent.type == "type_definition":  # typedef struct X {...} Y;
                    out.setdefault(text_of(n.parent.child_by_field_name("declarator")), rec)
        return out

    def record_of(self, p: SParam, records: dict[str, Record]) -> Record | None:
        rec = records.get(_base_type(p))
        if rec is None or (p.container not in ("value", "ref", "pointer") or (p.rank or 0) > 1):
            return None
        if not all(f.settable for f in rec.fields) and rec.ctor is None:
            return None  # private fields and no constructor that sets them: the driver cannot build it
        return rec

    def size_tuple(self, p: SParam, fn: SFunction, code: str = "") -> Record | None:
        """A parameter that holds the kernel's sizes by position (`const std::array<int, 3>& dims`, `const int
        *shape`, `int n[3]`) read only as `dims[0]`, `dims[1]`, ...: a record of fields 0, 1, ... (each an int),
        mapped like any record's; built as a std::array or an int array of those sizes."""
        base = _base_type(p)
        alias = re.search(rf"\busing\s+{re.escape(base)}\s*=\s*([^;]+);|\btypedef\s+([^;]+?)\s+{re.escape(base)}\s*;",
                          code) if re.fullmatch(r"\w+", base) else None
        if alias:  # `using Dims = std::array<int, 3>;`
            base = " ".join((alias.group(1) or alias.group(2)).split())
        fixed = re.fullmatch(rf"(?:std::)?array\s*<\s*({_INT_TYPES})\s*,\s*(\d+)\s*>", base)
        if fixed is None and not (p.kind == "int" and p.container in ("pointer", "array") and (p.rank or 1) == 1):
            return None
        body = fn.text[fn.text.find("{"):] if "{" in fn.text else ""
        # each use an element at a constant index, or the whole handed on to a call (`sweep(dims, src, dst)`)
        uses = re.findall(rf"(?<![\w.>]){re.escape(p.name)}\b(\s*\[\s*[^\]]*\]|\s*[,)])?", body)
        indexed = [u for u in uses if "[" in u]
        if not indexed or any(not re.fullmatch(r"\s*\[\s*\d+\s*\]", u) for u in indexed) or any(
                not u.strip() for u in uses):
            return None  # used at a computed index, or otherwise whole: no tuple of sizes
        count = int(fixed.group(2)) if fixed else 1 + max(int(re.search(r"\d+", u).group()) for u in indexed)
        if not 2 <= count <= 4:
            return None
        elem = fixed.group(1) if fixed else "int"
        kind = f"std::array<{elem}, {count}>" if fixed else f"{elem}[{count}]"
        fields = [Field(str(i), f"{elem} {{name}}") for i in range(count)]
        return Record(kind, fields, [f.name for f in fields])

    def member(self, param: str, f: Field) -> re.Pattern[str]:
        if f.name.isdigit():  # a size tuple's element (size_tuple)
            return re.compile(rf"(?<![\w.>]){re.escape(param)}\s*\[\s*{f.name}\s*\]")
        names = "|".join([rf"{re.escape(f.name)}\b(?!\s*\()", *(rf"{re.escape(a)}\s*\(\s*\)" for a in f.accessors)])
        return re.compile(rf"(?<![\w.>]){re.escape(param)}\s*(?:\.|->)\s*(?:{names})")

    def flat_source(self, fn: SFunction, groups: list[Group], rewrite) -> str:
        text = fn.text
        start = text.find("(", text.find(fn.name.split("::")[-1]))
        end = _matching(text, start)
        chunks = split_top(text[start + 1:end], "(<[)>]")
        by_name = {g.param.name: g for g in groups}
        params = []
        for chunk in chunks:
            name = (re.findall(r"\w+", re.sub(r"=.*$", "", chunk, flags=re.DOTALL)) or [""])[-1]
            g = by_name.get(name)
            if g is None:
                params.append(chunk.strip())
                continue
            const = g.param.const or bool(re.search(r"\bconst\b", chunk.split(name)[0]))
            for f in g.record.fields:
                decl = f.decl.format(name=g.flat[f.name])
                params.append(f"const {decl}" if const and f.container else decl)
        return text[:start] + "(" + ", ".join(params) + ")" + rewrite(text[end + 1:])

    def parse_flat(self, code: str, flat_source: str, name: str) -> SFunction | None:
        unit = parse_cpp(code + "\n" + flat_source)
        found = [f for f in unit.functions if f.name == name]
        return found[-1] if found else None

    def build(self, glue, group: Group, args: dict[str, str], outputs: set[str], pointer: bool) -> str:
        rec, var = group.record, f"hp_r_{group.param.name}"
        if rec.fields and rec.fields[0].name.isdigit():  # a size tuple: the sizes in order, braced
            values = ", ".join(args.get(f.name, "0") for f in rec.fields)
            if rec.name.endswith("]"):
                glue.setup.append(f"{rec.name.split('[')[0]} {var}[{len(rec.fields)}] = {{{values}}};")
            else:
                glue.setup.append(f"{rec.name} {var}{{{{{values}}}}};")
            return var
        if rec.ctor is not None and all(f in args for f in rec.ctor):
            glue.setup.append(f"{rec.name} {var}({', '.join(args[f] for f in rec.ctor)});")
        else:
            glue.setup.append(f"{rec.name} {var}{{}};")
            glue.setup.extend(f"{var}.{f} = {a};" for f, a in args.items())
        for f in rec.fields:  # a field holding its elements (a std::vector) goes back to the output it carries
            if f.name in outputs and f.container:
                if f.settable:
                    member = f".{f.name}"
                elif whole := [a for a in f.accessors if a not in f.elements]:
                    member = f".{whole[0]}()"  # private: its accessor (one that returns the member itself)
                else:
                    member = private_member(glue, rec.name, f)
                glue.teardown.insert(0, f"hpceval_assign({args[f.name]}, {var}{member});")
        return f"&{var}" if pointer else var


# Reading a private member without an accessor (a class that exposes its elements only through `operator()(i, j)`):
# an explicit template instantiation may name a private member (C++ [temp.spec]), so a pointer to the member is
# taken there and handed out by a friend function. Standard C++, no `#define private public`, which would change
# the class the suggestion compiles.
MEMBER_OF = ("template <typename Tag, typename Tag::type M> struct hpceval_member_of {\n"
             "  friend typename Tag::type hpceval_member(Tag) { return M; }\n};")


def private_member(glue, record: str, f: Field) -> str:
    """`.*hpceval_member(tag{})`: the expression after an object of `record` that reaches its private field f, with
    the namespace-scope declarations it needs added to the glue (once each)."""
    tag = f"hpceval_tag_{record}_{f.name}"
    ftype = f.decl.replace("{name}", "").strip()
    for line in (MEMBER_OF, f"struct {tag} {{ typedef {ftype} {record}::*type; friend type hpceval_member({tag}); }};",
                 f"template struct hpceval_member_of<{tag}, &{record}::{f.name}>;"):
        if line not in glue.decls:
            glue.decls.append(line)
    return f".*hpceval_member({tag}{{}})"


def _record(node: ts.Node, name: str, public: bool) -> Record:
    fields: list[Field] = []
    inits: dict[str, tuple[list[str], set[str]]] = {}  # per constructor: the fields its parameters set, and derived
    getters: dict[str, list[str]] = {}  # member -> the accessors that return it
    elements: dict[str, list[str]] = {}  # member -> those that return its elements (`data_.data()`)
    body = node.child_by_field_name("body")
    for c in body.named_children:
        if c.type == "access_specifier":
            public = text_of(c).strip().startswith("public")
        elif c.type == "field_declaration":
            decls = c.children_by_field_name("declarator")
            if any(d.type == "function_declarator" for d in decls) or any(x.type == "storage_class_specifier"
                                                                           for x in c.children):
                continue
            type_text = " ".join(text_of(x) for x in c.children if x.type in ("type_qualifier",)) + " " + \
                text_of(c.child_by_field_name("type"))
            for d in decls:
                fname = _declared_name(d)
                if fname:
                    decl = text_of(d).replace(fname, "{name}", 1)
                    fields.append(Field(fname, f"{type_text.strip()} {decl}", public,
                                        bool(re.search(r"\b(vector|valarray)\s*<", type_text)) and "*" not in decl))
        elif c.type == "function_definition" and _declared_name(c.child_by_field_name("declarator")) == name:
            inits[text_of(c)] = _ctor_fields(c)
        elif c.type == "function_definition" and (got := _accessor(c)) is not None:
            getters.setdefault(got[1], []).append(got[0])
            if got[2]:
                elements.setdefault(got[1], []).append(got[0])
    names = {f.name for f in fields}
    for f in fields:
        f.accessors = list(dict.fromkeys(getters.get(f.name, [])))
        f.elements = list(dict.fromkeys(elements.get(f.name, [])))
    ctor, derived = next(((fs, ds) for fs, ds in inits.values()
                          if fs and all(f in names for f in fs) and len(set(fs)) == len(fs)), (None, set()))
    if ctor is not None and not all(f.settable or f.name in derived for f in fields if f.name not in ctor):
        ctor = None
    return Record(name, fields, ctor)


def _accessor(fn: ts.Node) -> tuple[str, str, bool] | None:
    """(accessor, member, elements) for a member function without parameters whose body only returns a member
    (`const std::vector<int>& ptr() const { return ptr_; }`, `return this->n;`) or its elements (`double* data()
    { return data_.data(); }`: elements True; the mapping reads it as the member, the read-back cannot), else
    None."""
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
    if d is None:
        return None
    plist = d.child_by_field_name("parameters")
    if plist is None or any(p.type != "comment" and text_of(p).strip() != "void" for p in plist.named_children):
        return None
    # `return member;`, or the member's elements (`return data_.data();`, `&data_[0]`): the same storage
    m = re.fullmatch(r"\{\s*return\s+(?P<address>&)?\s*(?:this\s*->\s*|\(\s*\*this\s*\)\s*\.\s*)?(?P<member>\w+)"
                     r"(?P<elements>\s*\.\s*data\s*\(\s*\)|\s*\[\s*0\s*\])?\s*;\s*\}",
                     text_of(fn.child_by_field_name("body")))
    name = _declared_name(d)
    return (name, m["member"], bool(m["address"] or m["elements"])) if m and name else None


# an initialiser that hands one argument on: `(p)`, `{p}`, `(std::move(p))`, `(std::forward<T>(p))`
_PASSED_ON = re.compile(r"^[({]\s*(?:std\s*::\s*(?:move|forward\s*<[^>]*>)\s*\(\s*(\w+)\s*\)|(\w+))\s*[)}]$")


def _ctor_fields(fn: ts.Node) -> tuple[list[str], set[str]]:
    """The fields a constructor sets, in its parameters' order (`: rows(r)`, `ptr_(std::move(ptr))` or `rows = r;`
    / `this->rows = r;`), empty where some parameter sets no field; and the fields it derives from its parameters
    (`n_(ptr.size() - 1)`: set by the constructor, given no argument of their own)."""
    decl = fn.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    params = [_declared_name(p.child_by_field_name("declarator")) for p in (plist.named_children if plist else [])]
    sets: dict[str, str] = {}
    derived: set[str] = set()
    for n in walk(fn):
        if n.type == "field_initializer" and len(n.named_children) > 1:
            target, arg = text_of(n.named_children[0]), text_of(n.named_children[-1]).strip()
            m = _PASSED_ON.match(arg)
            src = (m.group(1) or m.group(2)) if m else None
            if src in params:
                sets.setdefault(src, target)
            elif set(re.findall(r"\w+", arg)) & set(params):
                derived.add(target)
    body = text_of(fn.child_by_field_name("body"))
    for target, src in re.findall(r"(?:this\s*->\s*)?(\w+)\s*=\s*(\w+)\s*;", body):
        sets.setdefault(src, target)
    if not all(p in sets for p in params):
        return [], set()
    return [sets[p] for p in params], derived - set(sets.values())


def _declared_name(d: ts.Node | None) -> str:
    for _ in range(8):
        if d is None:
            return ""
        if d.type in ("identifier", "field_identifier", "type_identifier"):
            return text_of(d)
        d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
    return ""


def _matching(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text) - 1


RECORDS = CppRecords()
