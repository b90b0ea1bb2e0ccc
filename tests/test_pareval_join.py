"""ParEval compiles a suggestion as prompt + "\\n" + output (its driver wrapper's test_single_output), so the
importer composes the same text: an output that begins right at the signature's `{` (CodeLlama's often do) with a
preprocessor directive (`#pragma omp parallel for`) would otherwise be glued onto the signature line, a stray `#`
that ParEval never saw. Cases as if from an LLM we have never seen: directives and statements glued to the `{`
for every imported model, outputs that already start with a newline, an empty body; and by execution, through a
replay run: right (glued pragma), subtly wrong, no parallel work, and a real syntax error that stays build_error.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from hpceval.cli import app
from hpceval.importers.pareval import records

AXPY_OMP = ("#include <omp.h>\n\n/* Compute z = alpha*x+y where x and y are vectors. Store the result in z.\n"
            "   Use OpenMP to compute in parallel. */\n"
            "void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, "
            "std::vector<double> &z) {")
GEMV_KOKKOS = ("#include <Kokkos_Core.hpp>\n\n/* Multiply the matrix A by the vector x. */\n"
               "void gemv(Kokkos::View<const double**> &A, Kokkos::View<const double*> &x, Kokkos::View<double*> &y, "
               "size_t M, size_t N) {")
GEMM_CUDA = ("/* Multiply A by B into C, row-major. */\n"
             "__global__ void gemm(const double *A, const double *B, double *C, size_t M, size_t K, size_t N) {")
AXPY_HIP = "__global__ void axpy(double alpha, const double *x, const double *y, double *z, size_t N) {"


def entry(name, model, prompt, output):
    return {"problem_type": "dense_la", "language": "cpp", "name": name, "parallelism_model": model,
            "prompt": prompt, "temperature": 0.2, "top_p": 0.95, "max_new_tokens": 1024, "outputs": [output]}


# (problem, model, prompt, output, the line that must stand on its own after the signature)
CASES = [
    ("03_dense_la_axpy", "omp", AXPY_OMP,
     "#pragma omp parallel for\n    for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] + y[i];\n}",
     "#pragma omp parallel for"),
    ("03_dense_la_axpy", "omp", AXPY_OMP,
     "#pragma omp parallel for schedule(static)\nfor (size_t i = 0; i < z.size(); i++) {\nz[i] = alpha*x[i]+y[i];\n}\n}",
     "#pragma omp parallel for schedule(static)"),
    ("03_dense_la_axpy", "omp", AXPY_OMP, "\n#pragma omp parallel for\n  for (size_t i = 0; i < x.size(); ++i)"
     " z[i] = alpha * x[i] + y[i];\n}", ""),
    ("03_dense_la_axpy", "omp", AXPY_OMP, "// one thread per chunk\n#pragma omp parallel for\n"
     "for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] + y[i];\n}", "// one thread per chunk"),
    ("04_dense_la_gemv", "kokkos", GEMV_KOKKOS,
     "Kokkos::parallel_for(M, KOKKOS_LAMBDA(const int i) {\n  double s = 0;\n  for (size_t j = 0; j < N; ++j) "
     "s += A(i, j) * x(j);\n  y(i) = s;\n});\n}", "Kokkos::parallel_for(M, KOKKOS_LAMBDA(const int i) {"),
    ("02_dense_la_gemm", "cuda", GEMM_CUDA,
     "#pragma unroll\n  for (int u = 0; u < 1; ++u) {}\n  size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n}",
     "#pragma unroll"),
    ("03_dense_la_axpy", "hip", AXPY_HIP, "#if 1\n  size_t i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n"
     "  if (i < N) z[i] = alpha * x[i] + y[i];\n#endif\n}", "#if 1"),
    ("03_dense_la_axpy", "omp", AXPY_OMP, "}", "}"),
]


@pytest.mark.parametrize("problem, model, prompt, output, own_line", CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_output_joins_the_prompt_as_pareval_compiles_it(tmp_path, problem, model, prompt, output, own_line):
    path = tmp_path / "output_x_some-new-llm.json"
    path.write_text(json.dumps([entry(problem, model, prompt, output)]))
    (rec,), _ = records(path)
    assert rec["text"] == prompt + "\n" + output  # ParEval's join, byte for byte otherwise
    assert rec["text"].splitlines()[prompt.count("\n") + 1] == own_line  # the output starts its own line
    assert rec["meta"]["pareval_prompt"] == prompt


# ------------------------------------------------------------------ by execution: the verdict follows the join
AXPY_BODIES = {
    1: ("#pragma omp parallel for\n    for (size_t i = 0; i < x.size(); ++i) {\n        z[i] = alpha * x[i] + y[i];\n"
        "    }\n}", "correct"),
    2: ("#pragma omp parallel for\n    for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] - y[i];\n}",
        "wrong_result"),
    3: ("#pragma omp single\n    for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] + y[i];\n}",
        "wrong_model"),
    4: ("#pragma omp parallel for\n    for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] + y[i]\n}",
        "build_error"),
}


@pytest.fixture(scope="module")
def glued_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("glued")
    src = tmp / "output_x_some-new-llm.json"
    data = [entry("03_dense_la_axpy", "omp", AXPY_OMP, body) for body, _ in AXPY_BODIES.values()]
    src.write_text(json.dumps(data))
    recs, _ = records(src)
    replay = tmp / "r.jsonl"
    replay.write_text("".join(json.dumps({**r, "rank": i + 1}) + "\n" for i, r in enumerate(recs)))
    result = CliRunner().invoke(app, ["run", "--llm", f"replay:{replay}", "--models", "cpp-openmp", "--kernels",
                                      "axpy", "--style", "paper", "-n", str(len(recs)), "--no-timing", "--jobs", "2",
                                      "--out", str(tmp / "run")])
    assert result.exit_code == 0, result.output
    return pd.read_csv(tmp / "run" / "evaluations.csv").set_index("rank")


@pytest.mark.parametrize("rank", sorted(AXPY_BODIES))
def test_glued_directive_is_graded_as_pareval_compiles_it(glued_run, rank):
    row = glued_run.loc[rank]
    assert row["verdict"] == AXPY_BODIES[rank][1], row["evidence"]
    assert "stray" not in str(row["evidence"])  # never the join's fault
