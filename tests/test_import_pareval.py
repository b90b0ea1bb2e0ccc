"""`hpceval import pareval`: ParEval's published outputs into replay JSONL, one file per LLM; its prelude; labels.

Synthetic files exercise the mapping (problems and models that are hpceval's, those that are not, and why); the
real outputs (../shared/corpus/pareval-sample, when present) are imported and checked byte for byte against the
JSON. The prelude (the standard headers ParEval compiles a suggestion after) reaches the built unit and the
evidence, never the suggestion's text. A replayed LLM is named by its records, never by the replay file's path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from hpceval.cli import _run_label, app
from hpceval.importers.pareval import PRELUDE, import_pareval, llm_name, records
from hpceval.prelude import with_prelude

AXPY_PROMPT = ("#include <omp.h>\n\n/* Compute z = alpha*x+y where x and y are vectors. Store the result in z. */\n"
               "void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, "
               "std::vector<double> &z) {")
CUDA_PROMPT = "__global__ void axpy(double alpha, const double *x, const double *y, double *z, size_t N) {"


def entry(name, model, prompt="void f() {", outputs=("\n}\n", "  return;\n}"), **extra):
    return {"problem_type": name.split("_")[1] if "_" in name else "x", "language": "cpp", "name": name,
            "parallelism_model": model, "prompt": prompt, "temperature": 0.2, "top_p": 0.95, "do_sample": True,
            "max_new_tokens": 1024, "outputs": list(outputs), **extra}


SYNTHETIC = [
    entry("03_dense_la_axpy", "omp", AXPY_PROMPT, ("\n#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); ++i)"
                                                   " z[i] = alpha*x[i] + y[i];\n}", "\n    /* ----- */\n}\n")),
    entry("03_dense_la_axpy", "cuda", CUDA_PROMPT, ("\n  size_t i = blockIdx.x*blockDim.x + threadIdx.x;\n"
                                                    "  if (i < N) z[i] = alpha*x[i] + y[i];\n}",)),
    entry("04_dense_la_gemv", "kokkos"), entry("02_dense_la_gemm", "hip"),
    entry("03_dense_la_axpy", "serial"), entry("03_dense_la_axpy", "mpi"), entry("04_dense_la_gemv", "mpi+omp"),
    entry("47_sparse_la_spmv", "omp"), entry("53_stencil_2d_jacobi_5-point_stencil", "cuda"),
    entry("05_fft_inverse_fft", "kokkos"),
]


def write(tmp_path, name="output_a8724ee8_codellama--CodeLlama-13b-hf_prompted_temp0.2.json", data=SYNTHETIC):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_mapping_and_records(tmp_path):
    recs, skipped = records(write(tmp_path))
    assert [(r["prompt_id"], r["rank"]) for r in recs] == [
        ("axpy/cpp-openmp/paper/none", 1), ("axpy/cpp-openmp/paper/none", 2), ("axpy/cpp-cuda/paper/none", 1),
        ("gemv/cpp-kokkos/paper/none", 1), ("gemv/cpp-kokkos/paper/none", 2), ("gemm/cpp-hip/paper/none", 1),
        ("gemm/cpp-hip/paper/none", 2)]
    for r in recs:
        assert r["schema"] == "hpceval.replay/1" and r["llm"] == "codellama/CodeLlama-13b-hf"
        m = r["meta"]
        source = next(e for e in SYNTHETIC if e["name"] == m["pareval_problem"] and e["parallelism_model"] ==
                      m["pareval_model"])
        assert r["text"] == source["prompt"] + "\n" + source["outputs"][m["sample"]]  # ParEval's join, marker-like lines too
        assert m["complete"] is True and m["prelude"] == PRELUDE and "ParEval" in m["prelude_source"]
        assert m["params"] == {"temperature": 0.2, "top_p": 0.95, "max_new_tokens": 1024, "do_sample": True}
        assert m["pareval_prompt"] == source["prompt"] and m["source"] == "pareval"
    reasons = {where: why for where, why, _n in skipped}
    assert set(reasons) == {"03_dense_la_axpy/serial", "03_dense_la_axpy/mpi", "04_dense_la_gemv/mpi+omp",
                            "47_sparse_la_spmv/omp", "53_stencil_2d_jacobi_5-point_stencil/cuda",
                            "05_fft_inverse_fft/kokkos"}
    assert "no hpceval programming model" in reasons["03_dense_la_axpy/serial"]
    assert "MPI" in reasons["03_dense_la_axpy/mpi"] and "MPI+OpenMP" in reasons["04_dense_la_gemv/mpi+omp"]
    assert "COO" in reasons["47_sparse_la_spmv/omp"] and "CSR" in reasons["47_sparse_la_spmv/omp"]
    assert "2-D" in reasons["53_stencil_2d_jacobi_5-point_stencil/cuda"]
    assert "no hpceval kernel" in reasons["05_fft_inverse_fft/kokkos"]
    assert all(n == 2 for _w, _y, n in skipped)


@pytest.mark.parametrize("name, llm", [
    ("output_a8724ee8_gpt-3.5_temp0.2.json", "gpt-3.5"),
    ("output_a8724ee8_codellama--CodeLlama-34b-hf_prompted_temp0.2.json", "codellama/CodeLlama-34b-hf"),
    ("output_015cff6f_gemini-pro.json", "gemini-pro"),
    ("my-outputs.json", "my-outputs"),
])
def test_llm_names(name, llm):
    assert llm_name(Path(name)) == llm


@pytest.mark.parametrize("data, message", [("{not json", "not a ParEval output file"),
                                           ('{"a": 1}', "JSON list of prompts"),
                                           ('[{"name": "x"}]', "lacks parallelism_model, prompt, outputs")])
def test_bad_files_are_refused_with_one_line(tmp_path, data, message):
    path = tmp_path / "output_0_x.json"
    path.write_text(data)
    proc = subprocess.run([sys.executable, "-m", "hpceval.cli", "import", "pareval", str(path), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_cli_one_file_per_llm_and_skipped_lines(tmp_path):
    a = write(tmp_path)
    b = write(tmp_path, "output_015cff6f_gemini-pro.json", SYNTHETIC[:2])
    proc = subprocess.run([sys.executable, "-m", "hpceval.cli", "import", "pareval", str(a), str(b), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["CodeLlama-13b-hf.jsonl", "gemini-pro.jsonl"]
    assert len((tmp_path / "out" / "gemini-pro.jsonl").read_text().splitlines()) == 3
    skipped = [line for line in proc.stdout.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 6 and "6 prompts skipped" in proc.stdout


def test_real_outputs(tmp_path):
    from conftest import SHARED

    src = SHARED / "corpus" / "pareval-sample"
    if not src.is_dir():
        pytest.skip("../shared/corpus/pareval-sample not present")
    files = sorted(src.glob("*.json"))
    written, _table, skipped = import_pareval(files, tmp_path / "out")
    assert sorted(written) == ["codellama/CodeLlama-13b-hf", "codellama/CodeLlama-34b-hf", "gemini-pro", "gpt-3.5"]
    for path in files:
        data = json.loads(path.read_text())
        by = {(e["name"], e["parallelism_model"]): e for e in data}
        recs = [json.loads(line) for line in written[llm_name(path)].read_text().splitlines()]
        assert len(recs) == 3 * 4 * 20  # AXPY, GEMV, GEMM x OpenMP, Kokkos, CUDA, HIP x 20 samples
        for r in recs:
            e = by[(r["meta"]["pareval_problem"], r["meta"]["pareval_model"])]
            assert r["text"] == e["prompt"] + "\n" + e["outputs"][r["meta"]["sample"]]  # as ParEval joins them
        assert {r["prompt_id"].split("/")[0] for r in recs} == {"axpy", "gemv", "gemm"}
    assert len(skipped) == 420 - 12  # every other problem x model, listed once with its reason
    assert sum(int(why.split("(")[-1].split(" files")[0]) for _w, why in skipped) == 4 * 408


# ------------------------------------------------------------------------------------------------ the prelude
def test_with_prelude_adds_before_and_names_it():
    code, note = with_prelude("void f() {}\n", {"prelude": "#include <vector>\n#include <numeric>",
                                                "prelude_source": "its benchmark"})
    assert code == "#include <vector>\n#include <numeric>\nvoid f() {}\n"
    assert "its benchmark" in note and "#include <vector>, #include <numeric>" in note
    assert with_prelude("void f() {}", {}) == ("void f() {}", "")
    assert with_prelude("   \n", {"prelude": "#include <vector>\n"}) == ("   \n", "")  # no code stays no code
    assert with_prelude("x", {"prelude": 3}) == ("x", "")


GEMV_NUMERIC = ("#include <omp.h>\n\nvoid gemv(int m, int n, const double *A, const double *x, double *y) {\n"
                "#pragma omp parallel for\n  for (int i = 0; i < m; ++i)\n"
                "    y[i] = std::inner_product(A + (long)i * n, A + (long)(i + 1) * n, x, 0.0);\n}\n")


def _replay(tmp_path, records, *extra):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "--llm", f"replay:{path}", "--models", "cpp-openmp", "--kernels", "gemv",
                                      "--style", "paper", "-n", "2", "--no-timing", "--jobs", "2", "--out", str(out),
                                      *extra])
    assert result.exit_code == 0, result.output
    return pd.read_csv(out / "evaluations.csv"), result.output


def test_prelude_reaches_the_build_not_the_text(tmp_path):
    """The same suggestion (std::inner_product without <numeric>) is correct after ParEval's prelude and a build
    error without it: the prelude is what ParEval compiled it with, and the evidence says it was added."""
    base = {"prompt_id": "gemv/cpp-openmp/paper/none", "language": "cpp", "text": GEMV_NUMERIC, "llm": "some-llm"}
    frame, _ = _replay(tmp_path, [
        {**base, "rank": 1, "meta": {"complete": True, "prelude": PRELUDE, "prelude_source": "ParEval"}},
        {**base, "rank": 2, "meta": {"complete": True}}])
    by_rank = frame.set_index("rank")
    assert by_rank.loc[1, "verdict"] == "correct", by_rank.loc[1, "evidence"]
    assert "#include <numeric>" in by_rank.loc[1, "evidence"] and "ParEval" in by_rank.loc[1, "evidence"]
    assert by_rank.loc[2, "verdict"] == "build_error", by_rank.loc[2, "evidence"]
    from hpceval.store import Store

    store = Store(tmp_path / "run", readonly=True)
    try:
        texts = [g["text"] for g in store.generations(store.run_ids()[0])]
    finally:
        store.close()
    assert texts == [GEMV_NUMERIC, GEMV_NUMERIC]  # the stored suggestion is the LLM's bytes


# ------------------------------------------------------------------------------------------------ labels
class _Replay:
    def __init__(self, *llms):
        self.llms = set(llms)


@pytest.mark.parametrize("spec, backend, label, expected, noted", [
    ("replay:/home/someone/data/gpt.jsonl", _Replay("gpt-3.5"), None, "gpt-3.5", False),
    ("replay:/home/someone/data/gpt.jsonl", _Replay("gpt-3.5"), "GPT-3.5 (ParEval)", "GPT-3.5 (ParEval)", False),
    ("replay:/home/someone/data/gpt.jsonl", _Replay(), None, "gpt", True),
    ("replay:/home/someone/data/mixed.jsonl", _Replay("a", "b"), None, "mixed", True),
    ("reference", object(), None, "reference", False),
    ("openai:gpt-4o-mini", object(), "mine", "mine", False),
])
def test_run_label_never_a_path(spec, backend, label, expected, noted):
    got, note = _run_label(spec, backend, label)
    assert got == expected and "/" not in got and bool(note) == noted


def test_replayed_run_named_by_its_records(tmp_path):
    rec = {"prompt_id": "gemv/cpp-openmp/paper/none", "language": "cpp", "rank": 1, "text": GEMV_NUMERIC,
           "llm": "codellama/CodeLlama-13b-hf", "meta": {"complete": True, "prelude": PRELUDE}}
    frame, _output = _replay(tmp_path, [rec])
    assert set(frame["llm"]) == {"codellama/CodeLlama-13b-hf"}
    assert str(tmp_path) not in frame.to_csv() and "replay:" not in frame.to_csv()
