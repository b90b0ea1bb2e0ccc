"""`hpceval import copilot`: the study's Copilot panel dumps into replay JSONL, robust to the format's irregularities.

Synthetic dumps exercise every irregularity the format is known for; the real sample (../shared, when present) is
parsed under its own names and again under made-up names and folders, which must give the same suggestions.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from hpceval.importers.copilot import import_copilot, parse_dump, records

CPP_DUMP = """\
// Prompt: saxpy

// saxpy: y = a*x + y
void saxpy(float *y, const float *x, const float a, const int n) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}


  // saxpy Kokkos

Synthesizing 2/10 solutions (Duplicates hidden)

=======

// saxpy Kokkos
void saxpy(int n, float a, float *x, float *y) { Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) { y[i] += a * x[i]; }); }

=======

// saxpy Kokkos version

          // Prompt:
          // saxpy
          // CUDA
          // function
          Synthesizing 10 /
              10 solutions

=======

__global__ void saxpy(int n, float a, float *x, float *y) {}
  int i =
      0; // Prompt: saxpy OpenMP offload function
Synthesizing 1/10 solutions

=======

void saxpy(int n, float a, float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

// Prompt: gemv HIP function                  // Prompt: gemv HIP function
Synthesizing 1/10 solutions

== == ==
   =

// nothing but a comment

// Prompt: saxpy SyCL
No synthesized solutions found.
"""

FORTRAN_DUMP = """\
! PROMPT: saxpy OpenACC\\nsubroutine
### Beginning of output
Synthesizing 3/10 solutions

=======

subroutine saxpy(n, a, x, y)
  integer :: n
  real :: a, x(n), y(n)
  y = a * x + y
end subroutine saxpy

=======

! saxpy OpenACC 1.0

! saxpy OpenACC 2.0

=======

subroutine saxpy_acc(n, a, x, y)
"""

PYTHON_DUMP = """\

# Prompt: gemv numpy\\ndef
Synthesizing 2/10 solutions

=======

def gemv(A, x):
    return A @ x

=======

def gemv_np(A, x, y):
    y[:] = A.dot(x)

# gemv cuPy\\def
Synthesizing 1/10 solutions

=======

def gemv_cupy(A, x):
    return cp.dot(A, x)

#Prompt: numpy vector addition

x = np.ones(3)
y = 2.0 * x + x
"""

OTHER_KERNELS = """\
// Prompt: CSR SpMV OpenMP
Synthesizing 1/10 solutions

=======

void spmv(int n, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {}

// Prompt: 3D Jacobi OpenACC function
Synthesizing 1/10 solutions

=======

void jacobi(int nx, int ny, int nz, const double *u, double *unew) {}

// Prompt: gemm OpenMP target
Synthesizing 1/10 solutions

=======

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {}

// Prompt: Conjugate Gradients OpenMP
Synthesizing 1/10 solutions

=======

void cg(int n) {}
"""


def test_cpp_irregularities(catalog):
    panels = parse_dump(CPP_DUMP, "cpp", "x.cpp", catalog)
    got = [(p.kernel, p.model, p.hint, p.declared_n, len(p.blocks), p.header) for p in panels]
    assert got == [
        ("axpy", None, "none", None, 1, False),  # inline completion: no header
        ("axpy", "cpp-kokkos", "none", 2, 2, True),  # no "Prompt:" marker, indented
        ("axpy", "cpp-cuda", "keyword", 10, 1, True),  # prompt split over lines, header split over lines
        ("axpy", "cpp-openmp-offload", "keyword", 1, 1, True),  # prompt glued to the previous suggestion
        ("gemv", "cpp-hip", "keyword", 1, 1, True),  # the marker twice on one line, a separator split over lines
        ("axpy", "cpp-sycl", "none", 0, 0, True),  # empty panel; SyCL spelling
    ]
    # the previous suggestion ends where the next prompt starts (also mid-line)
    assert panels[2].blocks[0].rstrip().endswith("0;")
    assert "Prompt" not in panels[1].blocks[-1]


def test_fortran_and_python_irregularities(catalog):
    fortran = parse_dump(FORTRAN_DUMP, "fortran", "x.f90", catalog)
    assert [(p.kernel, p.model, p.hint, len(p.blocks)) for p in fortran] == [("axpy", "fortran-openacc", "keyword", 3)]
    python = parse_dump(PYTHON_DUMP, "python", "x.py", catalog)
    assert [(p.kernel, p.model, p.hint, len(p.blocks), p.header) for p in python] == [
        ("gemv", "python-numpy", "keyword", 2, True), ("gemv", "python-cupy", "keyword", 1, True),  # "\\def" typo
        ("axpy", "python-numpy", "none", 1, False)]  # "#Prompt:" without space, no header


def test_other_kernels_of_the_study(catalog):
    panels = parse_dump(OTHER_KERNELS, "cpp", "any.cpp", catalog)
    assert [(p.kernel, p.model) for p in panels] == [
        ("spmv", "cpp-openmp"), ("jacobi", "cpp-openacc"), ("gemm", "cpp-openmp-offload"), ("cg", "cpp-openmp")]


def test_records_and_replay_schema(tmp_path):
    src = tmp_path / "dumps"
    (src / "k1").mkdir(parents=True)
    (src / "k1" / "whatever.cpp").write_text(CPP_DUMP)
    (src / "k1" / "other.f90").write_text(FORTRAN_DUMP)
    (src / "k1" / "third.py").write_text(PYTHON_DUMP)
    out = tmp_path / "out.jsonl"
    table = import_copilot(src, out)
    assert table.row_count > 3
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    for r in recs:
        assert {"prompt_id", "language", "model", "kernel", "style", "hint", "rank", "text", "meta"} <= set(r)
        assert r["style"] == "paper" and r["hint"] in ("keyword", "none") and r["rank"] >= 1
        assert r["prompt_id"] == f"{r['kernel']}/{r['model']}/paper/{r['hint']}"
        assert {"file", "panel", "panel_rank", "key", "sha", "study_prompt", "declared_n", "comment_only",
                "has_function", "block"} <= set(r["meta"])
    by_key = {r["meta"]["key"]: r for r in recs}
    fortran = [r for r in recs if r["language"] == "fortran"]
    assert [r["meta"]["comment_only"] for r in fortran] == [False, True, False]
    assert [r["meta"]["has_function"] for r in fortran] == [True, False, False]  # the third is cut off
    # keyword prompts: the text completes the harness's own prompt ("...\nsubroutine" + " saxpy(n, a, x, y)")
    assert fortran[0]["text"].startswith(" saxpy(n, a, x, y)")
    py = [r for r in recs if r["language"] == "python" and r["model"] == "python-numpy" and r["hint"] == "keyword"]
    assert py[0]["text"].startswith(" gemv(A, x):")
    assert all(k.startswith("k1/") for k in by_key)


def test_retried_prompts_continue_the_ranks(tmp_path):
    dump = "// Prompt: saxpy OpenMP\nSynthesizing 2/10 solutions\n\n=======\n\nvoid a() {}\n\n=======\n\nvoid b() {}\n\n" \
           "// Prompt: saxpy OpenMP\nSynthesizing 1/10 solutions\n\n=======\n\nvoid c() {}\n"
    (tmp_path / "d.cpp").write_text(dump)
    recs = records(tmp_path)
    assert [(r["rank"], r["meta"]["panel"], r["meta"]["panel_rank"]) for r in recs] == [(1, 1, 1), (2, 1, 2), (3, 2, 1)]


def test_cli_import(tmp_path):
    (tmp_path / "d.py").write_text(PYTHON_DUMP)
    out = tmp_path / "r.jsonl"
    proc = subprocess.run([sys.executable, "-m", "hpceval.cli", "import", "copilot", str(tmp_path), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "python-numpy" in proc.stdout and out.is_file()
    missing = subprocess.run([sys.executable, "-m", "hpceval.cli", "import", "copilot", str(tmp_path / "nope")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_sample(copilot_sample, tmp_path):
    recs = [r for r in records(copilot_sample) if not r["meta"].get("empty_panel")]
    assert len(recs) > 400
    panels = {(r["meta"]["file"], r["meta"]["panel"]) for r in recs}
    assert len(panels) > 55
    assert {r["language"] for r in recs} == {"cpp", "fortran", "python", "julia"}
    assert {r["kernel"] for r in recs} == {"axpy", "gemv"}
    for r in recs:
        assert not re.search(r"^\s*={5,}\s*$|Synthesizing \d+", r["meta"]["block"], re.MULTILINE)
        assert r["meta"]["declared_n"] is None or 0 <= r["meta"]["declared_n"] <= 10
    comment_only = sum(r["meta"]["comment_only"] for r in recs)
    assert 0.15 < comment_only / len(recs) < 0.5  # "about a third of them comments only" in the whole study
    # renamed files and folders: the same suggestions (nothing depends on the sample's names)
    renamed = tmp_path / "renamed"
    for i, path in enumerate(sorted(p for p in copilot_sample.rglob("*") if p.is_file() and p.suffix != ".md")):
        target = renamed / f"dir{i}" / f"dump{i}{path.suffix}"
        target.parent.mkdir(parents=True)
        shutil.copy(path, target)
    again = [r for r in records(renamed) if not r["meta"].get("empty_panel")]
    assert sorted(r["meta"]["sha"] for r in again) == sorted(r["meta"]["sha"] for r in recs)
    assert sorted((r["kernel"], r["model"], r["hint"]) for r in again) == sorted(
        (r["kernel"], r["model"], r["hint"]) for r in recs)


def test_sample_bind_rate(copilot_sample, catalog):
    """Of the suggestions with a function definition for a CPU model, at least 90% bind; every refusal says why."""
    from hpceval.bind import choose_binding
    from hpceval.extract import extract
    from hpceval.prompts import render

    bound = total = 0
    for r in records(copilot_sample):
        model = catalog.models.get(r["model"])
        if model is None or model.device != "cpu" or not r["meta"]["has_function"]:
            continue
        spec, lang = catalog.kernels[r["kernel"]], catalog.languages[model.language]
        code = extract(r["text"], render(spec, model, lang, "paper", r["hint"]), spec.function)
        b = choose_binding(code, spec, lang, "paper", model)
        total += 1
        if b.error is None:
            bound += 1
        else:
            assert b.error.startswith("unbindable: ") and len(b.error) > len("unbindable: ") + 10
    assert total > 100
    assert bound / total >= 0.9, f"{bound}/{total}"



# ------------------------------------------------------------------------------------- byte identity, skipped files
# What the importer removes (author markers, banners) is only ever outside code: lines inside a docstring, a string
# literal or a block comment are the LLM's, whatever they look like.
CODE_IN_LITERALS = {
    "python": ('# Prompt: gemv numpy\nSynthesizing 1/10 solutions\n=======\n'
               'def gemv(A, x):\n    """Matrix-vector product.\n\n    Parameters\n    ----------\n    A : ndarray\n\n'
               '    Returns\n    -------\n    ndarray\n    ###\n    """\n    s = \'\'\'\n~~~~~~\n\'\'\'\n'
               '    return A @ x   \n### End of Output\n'),
    "julia": ('# Prompt: gemv Threads\nSynthesizing 1/10 solutions\n=======\n'
              '"""\n    gemv(A, x)\n\n# Arguments\n-----------\n```julia\ny = gemv(A, x)\n```\n"""\n'
              'function gemv(A, x)\n    #= a note\n    ----------\n    =#\n    return A * x\nend\n```\n'),
    "cpp": ('// Prompt: gemv OpenMP\nSynthesizing 1/10 solutions\n=======\n'
            '/* gemv\n * -------\n-----------\n### not a marker here\n*/\n'
            'const char *banner = R"(\n==========\n-----\n)";\n'
            'void gemv(int m, int n, const double *A, const double *x, double *y) {\n'
            '        for (int i = 0; i < m; i++) { y[i] = 0; }\n}\n#### end of output\n'),
}


def _source_of(text: str, meta: dict) -> str:
    """The dump's own characters at the record's span, less the marker lines it lists."""
    start, end = meta["span"]
    first = text.count("\n", 0, start) + 1
    lines = text[start:end].split("\n")
    return "\n".join(line for k, line in enumerate(lines) if first + k not in meta["removed_lines"])


@pytest.mark.parametrize("lang", sorted(CODE_IN_LITERALS))
def test_code_inside_literals_is_kept_byte_for_byte(tmp_path, lang):
    dump = CODE_IN_LITERALS[lang]
    (tmp_path / f"d.{ {'python': 'py', 'julia': 'jl', 'cpp': 'cpp'}[lang] }").write_text(dump)
    recs = [r for r in records(tmp_path) if not r["meta"].get("empty_panel")]
    assert len(recs) == 1
    block = recs[0]["meta"]["block"]
    body = dump.split("=======\n", 1)[1]
    expected = "\n".join(line for line in body.rstrip("\n").split("\n")[:-1])  # the last line is a marker
    assert block == expected  # docstring underlines, comment banners, raw strings, indentation, trailing blanks
    assert recs[0]["meta"]["markers_removed"] and len(recs[0]["meta"]["removed_lines"]) == 1
    assert _source_of(dump, recs[0]["meta"]) == block


def test_markers_outside_code_still_removed():
    from hpceval.importers.markers import strip_markers

    block = '### Beginning of output\ndef f(y):\n    """doc\n    -----\n    """\n-----\n    y[0] = 1\n### End of Output'
    cleaned, removed = strip_markers(block, "python")
    assert cleaned == 'def f(y):\n    """doc\n    -----\n    """\n    y[0] = 1'
    assert removed == ["### Beginning of output", "-----", "### End of Output"]
    # an unterminated docstring keeps every line after it (too much kept, never code edited)
    assert strip_markers('def f():\n    """doc\n-----\n', "python")[0] == 'def f():\n    """doc\n-----\n'


REAL_DUMPS = ["copilot-2023", "copilot-sample", "llama2-sample"]


def _real(name):
    from conftest import SHARED

    path = SHARED / "corpus" / name
    if not path.is_dir():
        pytest.skip(f"../shared/corpus/{name} not present")
    return path


@pytest.mark.parametrize("name", REAL_DUMPS)
def test_real_dumps_byte_identical(name):
    """Every imported suggestion of a real dump is the dump's text at its span, less only the listed marker lines,
    and the replay text is that block (after the prompt's keyword, for keyword-hinted Copilot prompts)."""
    import ast

    from hpceval.importers import import_records
    from hpceval.importers.literals import protected_lines

    src = _real(name)
    recs, _skipped = import_records(src)
    assert recs
    for r in recs:
        meta = r["meta"]
        text = (src / meta["file"]).read_text(encoding="utf-8", errors="replace")
        assert _source_of(text, meta) == meta["block"], meta["key"]
        assert r["text"] in (meta["block"] + "\n", "\n" + meta["block"]) or meta["block"].endswith(r["text"]), meta["key"]
        start, end = meta["span"]
        first = text.count("\n", 0, start) + 1
        raw = text[start:end]
        inside = protected_lines(raw, r["language"])
        assert not {line - first for line in meta["removed_lines"] if first <= line} & inside, meta["key"]
        if r["language"] == "python":  # removing markers never changes the program: same AST, docstrings included
            try:
                before = ast.dump(ast.parse(raw))
            except SyntaxError:
                continue
            assert ast.dump(ast.parse(meta["block"])) == before, meta["key"]


def test_real_docstring_underlines_survive():
    src = _real("copilot-2023")
    recs = [r for r in records(src / "CG" / "Python") if not r["meta"].get("empty_panel")]
    documented = [r for r in recs if "Returns\n    -------\n" in r["meta"]["block"]]
    assert documented, "the numpydoc docstrings of CG_outputs.py lost their underlines"
    assert all("-------" not in "".join(r["meta"]["markers_removed"]) for r in documented)


PROMPT_FILES = {"K/CXX/K.cpp": "\n\n// saxpy CUDA function\n", "K/Fortran/K.f90": "", "K/Python/K.py": "\n\n\n# GEMM \n",
                "README.md": "# data\n", "K/Julia/notes.txt": "hello\n"}


def test_tree_as_published_skips_what_is_no_dump(tmp_path):
    """Dumps beside the files their authors typed prompts into: the dumps are imported, every other file is
    listed with the reason, and nothing is invented from a prompt file."""
    from hpceval.importers import import_dumps

    for rel, body in {**PROMPT_FILES, "K/Python/K_outputs.py": PYTHON_DUMP}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(body)
    out = tmp_path / "o.jsonl"
    fmt, _table, skipped = import_dumps(tmp_path, out)
    assert fmt == "copilot"
    assert sorted(s for s, _ in skipped) == sorted(PROMPT_FILES)
    reasons = dict(skipped)
    assert "empty" in reasons["K/Fortran/K.f90"] and "no suggestion" in reasons["K/CXX/K.cpp"]
    assert "not a source file" in reasons["README.md"]
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert recs and {r["meta"]["file"] for r in recs} == {"K/Python/K_outputs.py"}


def test_cli_imports_the_whole_2023_study(tmp_path):
    src = _real("copilot-2023")
    out = tmp_path / "c.jsonl"
    proc = subprocess.run([sys.executable, "-m", "hpceval.cli", "import", "copilot", str(src), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["kernel"] for r in recs} == {"axpy", "gemv", "gemm", "spmv", "jacobi", "cg"}
    assert {r["language"] for r in recs} == {"cpp", "fortran", "python", "julia"}
    assert 1300 <= len(recs) <= 1500  # "about 1,390 suggestion blocks"
    assert len({(r["meta"]["file"], r["meta"]["panel"]) for r in recs}) >= 170  # "177 panels" (some empty)
    skipped = [line for line in proc.stdout.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 16, proc.stdout  # 15 prompt files and the README, one line each
    assert any("SAXPY/CXX/SAXPY.cpp" in line and "no suggestion" in line for line in skipped)
    assert any("GEMV/CXX/GEMV.cpp" in line and "empty" in line for line in skipped)
    assert re.search(r"16 files skipped", proc.stdout), proc.stdout
    assert not any(r["meta"]["file"] in {"SAXPY/CXX/SAXPY.cpp", "CG/Julia/CG.jl"} for r in recs)
