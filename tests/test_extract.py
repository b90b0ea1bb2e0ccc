"""Extract stage: the corpus of realistic raw answers (tests/data/extraction/*.case) and unit checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpceval.extract import (
    balanced,
    defines,
    extract,
    extract_details,
    fenced_blocks,
    has_code,
    stitch_completion,
    strip_thinking,
)
from hpceval.prompts import render
from hpceval.spec import catalog

CORPUS = Path(__file__).parent / "data" / "extraction"
CASES = sorted(CORPUS.glob("*.case"))


def load_case(path: Path) -> dict:
    with path.open(newline="") as f:
        text = f.read()
    head, rest = text.split("@@@ raw\n", 1)
    raw, expected = rest.split("@@@ expected\n", 1)
    case = {"raw": raw, "expected": expected}
    for line in head.splitlines():
        if line.strip():
            key, _, value = line.partition(":")
            case[key.strip()] = value.strip()
    return case


def make_prompt(prompt_id: str):
    cat = catalog()
    kernel, model, style, hint = prompt_id.split("/")
    m = cat.models[model]
    return render(cat.kernels[kernel], m, cat.languages[m.language], style, hint), cat.kernels[kernel].function


def test_corpus_size_and_variety():
    cases = [load_case(p) for p in CASES]
    assert len(cases) >= 40
    styles = {c["prompt"].split("/")[2] for c in cases}
    languages = {c["prompt"].split("/")[1].split("-")[0] for c in cases}
    assert styles == {"chat", "paper"}
    assert languages == {"cpp", "fortran", "python", "julia"}
    assert sum(1 for c in cases if not c["expected"].strip()) >= 5, "no-code cases"
    assert sum(1 for c in cases if c.get("truncated") == "yes") >= 5, "truncated cases"
    assert sum(1 for c in cases if "<think>" in c["raw"] or "</think>" in c["raw"]) >= 3, "thinking models"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_corpus_case(path: Path):
    case = load_case(path)
    prompt, function = make_prompt(case["prompt"])
    result = extract_details(case["raw"], prompt, function)
    assert result.code.strip("\n") == case["expected"].strip("\n"), case.get("note")
    assert result.status == ("ok" if case["expected"].strip() else "no_code")
    if "truncated" in case:
        assert result.truncated is (case["truncated"] == "yes"), result.record()
    if "source" in case:
        assert result.source == case["source"], result.record()
    assert extract(case["raw"], prompt, function) == result.code
    assert result.record()["status"] == result.status


def test_fenced_blocks_unterminated_counts():
    blocks = fenced_blocks("a\n```cpp\nint x;\n```\ntext\n```\nvoid f() {\n")
    assert blocks == [("cpp", "int x;"), ("", "void f() {\n")]


def test_strip_thinking_variants():
    assert strip_thinking("<think>x</think>code") == ("code", False)
    assert strip_thinking("<THINKING>x</THINKING>\ncode") == ("\ncode", False)
    assert strip_thinking("reasoning only\n</think>\ncode") == ("\ncode", False)
    assert strip_thinking("before <think> cut while thinking") == ("before ", True)


def test_defines_not_calls_or_declarations():
    assert defines("void saxpy(int n) {\n}", "saxpy", "cpp")
    assert not defines("saxpy(n, a, x, y);", "saxpy", "cpp")
    assert not defines("void saxpy(int n, float a, const float *x, float *y);", "saxpy", "cpp")
    assert defines("auto saxpy = [](int n) {};", "saxpy", "cpp")
    assert defines("  subroutine saxpy(n)\n  end subroutine saxpy", "saxpy", "fortran")
    assert not defines("  call saxpy(n)\nend subroutine saxpy", "saxpy", "fortran")
    assert defines("@njit\ndef saxpy(a, x, y):\n    pass", "saxpy", "python")
    assert defines("saxpy(a, x, y) = a .* x .+ y", "saxpy", "julia")
    assert defines("function saxpy(n, a, x, y)\nend", "saxpy", "julia")


def test_balanced_and_has_code():
    assert balanced("void f() { if (x) { y(); } }", "cpp")
    assert not balanced("void f() { if (x) {", "cpp")
    assert not balanced("subroutine f(x)\n x = 1\n", "fortran")
    assert balanced("subroutine f(x)\n x = 1\nend subroutine f\n", "fortran")
    assert not balanced("function f(x)\n  for i in 1:3\n  end\n", "julia")
    assert not balanced("def f(x):\n    return g(x,\n", "python")
    assert has_code("int x = 1;", "cpp")
    assert not has_code("// only a comment\n/* and another */", "cpp")
    assert not has_code("! saxpy OpenMP\nsubroutine", "fortran", "! saxpy OpenMP\nsubroutine")
    assert not has_code('"""just a docstring"""', "python")


def test_stitch_completion():
    assert stitch_completion("// saxpy OpenMP\n", "void f() {}") == "// saxpy OpenMP\nvoid f() {}"
    assert stitch_completion("# saxpy numpy\ndef", " saxpy(a, x, y):") == "# saxpy numpy\ndef saxpy(a, x, y):"
    assert stitch_completion("# saxpy numpy\ndef", "saxpy(a, x, y):") == "# saxpy numpy\ndef saxpy(a, x, y):"
    assert stitch_completion("! s\nsubroutine", "subroutine s(x)") == "! s\nsubroutine s(x)"
    assert stitch_completion("// p\n", "// p\nint x;") == "// p\nint x;"


# ---------------------------------------------------------------- prose after a panel indented as a whole
def _indent(code: str, width: int) -> str:
    return "\n".join(" " * width + ln if ln.strip() else ln for ln in code.split("\n"))


_FUNCTOR = """struct Axpy {
  double a; const double *x; double *y;
  void operator()(int i) const {
    y[i] += a * x[i];
  }
};
void axpy(int n, double a, const double *x, double *y) {
  Axpy f{a, x, y};
  for (int i = 0; i < n; ++i) f(i);
}
"""


@pytest.mark.parametrize("width", [0, 2, 8, 74])
def test_prose_after_indented_cpp_dropped_code_bytes_kept(width: int):
    from hpceval.extract import _drop_trailing_prose
    code = _indent(_FUNCTOR, width)
    prose = _indent("\nI am trying to run the code on the following machine:\n$ uname -a\n", width)
    notes: list[str] = []
    out = _drop_trailing_prose(code + prose, "cpp", notes)
    assert notes == ["dropped the prose after the code"]
    assert out == code.rstrip("\n") + "\n"  # the kept code is byte for byte the panel's own


@pytest.mark.parametrize("width", [0, 4, 74])
def test_indented_complete_kernel_without_prose_unchanged(width: int):
    from hpceval.extract import _drop_trailing_prose
    code = _indent(_FUNCTOR, width)
    notes: list[str] = []
    assert _drop_trailing_prose(code, "cpp", notes) == code
    assert notes == []


def test_indented_cut_declaration_not_taken_for_prose():
    from hpceval.extract import _drop_trailing_prose
    code = _indent(_FUNCTOR + "void other(int n,\n", 6)
    notes: list[str] = []
    assert _drop_trailing_prose(code, "cpp", notes) == code
    assert notes == []


@pytest.mark.parametrize("width", [4, 74])
@pytest.mark.parametrize("prose", [True, False])
def test_completion_indented_under_the_prompts_comment(width: int, prose: bool, catalog):
    """Through extract, as the pipeline reads a completion: the prompt's comment is stitched at column 0 above the
    indented panel (the study's axpy/cpp-kokkos/paper/keyword r9); the panel's prose is still dropped."""
    from hpceval.extract import extract_details
    from hpceval.prompts import plan

    prompt = next(p for p in plan(catalog, [catalog.kernels["axpy"]], [catalog.models["cpp-kokkos"]], ["paper"],
                                  ["keyword"]))
    panel = _indent(_FUNCTOR, width) + (_indent("\nI am trying to run the code on the following machine:\n", width)
                                        if prose else "")
    x = extract_details(panel, prompt, "axpy")
    assert x.code.rstrip().endswith("}") and "machine" not in x.code
    assert x.notes == (["dropped the prose after the code"] if prose else [])


def test_indented_top_level_items_split_at_common_indent():
    from hpceval.extract import _top_level_items
    code = _indent(_FUNCTOR, 10)
    items = _top_level_items(code, "cpp")
    assert len(items) == 2 and "".join(items).rstrip() == code.rstrip()
    assert items[1].lstrip().startswith("void axpy")


def test_python_items_unaffected_by_indent_rule():
    from hpceval.extract import _drop_trailing_prose, _top_level_items
    py = "def f(x):\n    return x\n\ndef g(y):\n    return y\n"
    assert [i.strip() for i in _top_level_items(py, "python")] == ["def f(x):\n    return x", "def g(y):\n    return y"]
    assert len(_top_level_items("    " + py.replace("\n", "\n    "), "python")) == 1  # column 0 stays its top level
    text = py + "I am trying to run this\n"
    assert _drop_trailing_prose(text, "python", []) == text
