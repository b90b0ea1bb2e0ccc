"""Importers: author markers never stay in a suggestion, the Llama-2 dumps get their own importer, and a dump of an
unknown (or the other) format is refused with a one-line error instead of being mis-parsed."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from hpceval.importers import UnknownFormat, detect_format
from hpceval.importers.copilot import parse_dump
from hpceval.importers.llama2 import records as llama_records
from hpceval.importers.markers import is_marker, strip_markers

MARKERS = ["### End of Output", "=== End of Output ===", "// ---- Beginning of output ----", "# Start of suggestion",
           "Suggestion 3", "// SUGGESTION 1 // ------", "! SUGGESTION 2 ! ---", "#### Suggestion #4:",
           "### Beginning of output", "==== END OF OUTPUT ====", "```", "```fortran", "-----", "* * * * *"]


@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize("lang", ["cpp", "fortran", "python", "julia"])
def test_marker_variants_removed(marker, lang):
    code = {"cpp": "void f(int n, float *y) {\n  y[0] = 1;\n}", "fortran": "subroutine f(y)\n  y = 1\nend subroutine",
            "python": "def f(y):\n    y[0] = 1", "julia": "function f(y)\n    y[1] = 1\nend"}[lang]
    block = f"{marker}\n{code}\n{marker}\n\n{marker}"
    cleaned, removed = strip_markers(block, lang)
    assert cleaned == code and len(removed) == 3


def test_markers_in_the_middle_and_code_kept():
    cleaned, removed = strip_markers("###\nsubroutine f(y)\n### End of Output\ny = 1\nend subroutine\n####", "fortran")
    assert "###" not in cleaned and len(removed) == 3
    for line in ("// ------", "! ====", "# ----- helpers -----", "output = 1", "# end of output loop", "x = a - b",
                 "#= block comment", "Any suggestions would be appreciated."):
        assert not is_marker(line, "python" if line.startswith(("#", "output", "x")) else "cpp"), line
    # an inner comment banner is the model's own and stays
    assert "// ======" in strip_markers("void f() {\n// ======\n}\n", "cpp")[0]


def test_copilot_panels_drop_markers():
    dump = ("// saxpy OpenMP\n### Beginning of output\nSynthesizing 2/10 solutions\n=======\n"
            "void saxpy(int n, float a, float *x, float *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }\n"
            "### End of Output\n=======\n=== End of Output ===\nvoid saxpy2(int n) {}\n####\n")
    panels = parse_dump(dump, "cpp", "x.cpp")
    blocks = [b for p in panels for b in p.blocks]
    assert blocks and all(not re.search(r"#{2,}|End of Output", b) for b in blocks)
    assert sum(len(m) for p in panels for m in p.markers) >= 3


def test_copilot_sample_has_no_markers(copilot_sample):
    from hpceval.importers.copilot import records

    recs = [r for r in records(copilot_sample) if not r["meta"].get("empty_panel")]
    for r in recs:
        for line in r["meta"]["block"].split("\n"):
            assert not is_marker(line, r["language"]), (r["meta"]["key"], line)
    assert sum(len(r["meta"]["markers_removed"]) for r in recs) > 0


LLAMA_CPP = """//=====================================================================
//               OpenMP Programming Model
//=====================================================================

// Prompt: "Create 3 code suggestions using the following parameters: C++ OpenMP AXPY function."

// SUGGESTION 1 // ----------------------------------

#include <omp.h>
// This uses the OpenMP programming model
void axpy(int n, float a, float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

// SUGGESTION 2 // ----------------------------------

void axpy(int n, float a, float *x, float *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }

//=====================================================================
//               OpenMP(offload) Programming Model
//=====================================================================

// Prompt: "Create 3 code suggestions using the following parameters: C++ OpenMP(offload) AXPY function."

// SUGGESTION 1 // ----------------------------------

void axpy(int n, float a, float *x, float *y) {}

// ---------------------------------------------------------------------------------
"""
LLAMA_PY = """# =====================================================================
#               Numba Programming Model
# =====================================================================

# Prompt: "Create 3 code suggestions using the following parameters: Python Numba AXPY def."

# SUGGESTION 1 # ----------------------------------

from numba import njit
@njit
def axpy(a, x, y):
    return a * x + y
"""


def _write(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_llama2_synthetic(tmp_path):
    src = _write(tmp_path / "d", {"AXPY/C++/GeneratedCode.cpp": LLAMA_CPP, "AXPY/Python/GeneratedCode.py": LLAMA_PY})
    recs = llama_records(src)
    assert [(r["prompt_id"], r["rank"]) for r in recs] == [
        ("axpy/cpp-openmp/paper/none", 1), ("axpy/cpp-openmp/paper/none", 2),
        ("axpy/cpp-openmp-offload/paper/none", 1), ("axpy/python-numba/paper/none", 1)]
    assert all(r["schema"] == "hpceval.replay/1" and r["meta"]["study_hint"] == "keyword" for r in recs)
    assert "programming model" in recs[0]["text"]  # an answer's own comment does not start a section
    for r in recs:
        assert not re.search(r"SUGGESTION|={5,}|^// -{10,}", r["text"], re.MULTILINE), r["text"]
    assert detect_format(src) == "llama2"


def test_llama2_sample(tmp_path):
    from conftest import SHARED

    sample = SHARED / "corpus" / "llama2-sample"
    if not sample.is_dir():
        pytest.skip("../shared/corpus/llama2-sample not present")
    recs = llama_records(sample)
    assert len(recs) == 48 and len({r["prompt_id"] for r in recs}) == 16
    assert {r["language"] for r in recs} == {"cpp", "fortran", "python", "julia"}
    assert all(r["kernel"] == "axpy" and not r["model"].endswith("unspecified") for r in recs)
    assert detect_format(sample) == "llama2"
    with pytest.raises(UnknownFormat):
        detect_format(sample, "copilot")


def test_unknown_and_mismatched_formats(tmp_path):
    unknown = _write(tmp_path / "u", {"a.cpp": "int main() { return 0; }\n"})
    with pytest.raises(UnknownFormat):
        detect_format(unknown)
    llama = _write(tmp_path / "l", {"AXPY/C++/GeneratedCode.cpp": LLAMA_CPP})
    for argv, rc in ((["import", "copilot", str(llama)], 2), (["import", str(unknown)], 2),
                     (["import", "nope", str(llama)], 2), (["import", str(llama), "--format", "llama2", "--out",
                                                           str(tmp_path / "o.jsonl")], 0)):
        proc = subprocess.run([sys.executable, "-m", "hpceval.cli", *argv], capture_output=True, text=True, timeout=120)
        assert proc.returncode == rc, (argv, proc.stdout, proc.stderr)
        if rc == 2:
            assert len(proc.stderr.strip().splitlines()) == 1 and "error" in proc.stderr
    assert (tmp_path / "o.jsonl").read_text().count("\n") == 3
