"""A one-sentence prose answer is no code, in every language, whatever punctuation the sentence happens to hold.

The study's Copilot answered a Fortran SpMV prompt with one sentence ("2.2.2.2. CSR SpMV OpenMP The CSR SpMV OpenMP
kernel is ... available at:"); the old test (three tokens and one of `(){}=;:[]`) took the final colon for code,
and the completeness check then called the sentence "declarations only" (`incomplete`). Prose is told from code
by its words: a run of plain words, none of them the language's keywords, does not occur in code. Cases written
as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.extract import extract_details, has_code
from hpceval.prompts import render
from hpceval.spec import catalog

CASES = [
    # prose, each with code punctuation somewhere in it
    ("fortran-sentence-ending-in-colon", "fortran",
     "2.2.2.2. CSR SpMV OpenMP The CSR SpMV OpenMP kernel is a parallel implementation of the CSR SpMV kernel. "
     "It uses OpenMP to parallelize the loop over the row indices. The OpenMP kernel is available at:", False),
    ("cpp-sentence-with-parentheses", "cpp", "Here is the implementation of the kernel (using OpenMP):", False),
    ("python-sentence-with-formula", "python", "This function computes y = a*x + y for every element of x.", False),
    ("python-sentence-with-brackets", "python", "The result is stored in y[i] for each row; see the docs.", False),
    ("fortran-note-with-colon", "fortran", "Note: the subroutine below is parallelized with OpenMP.", False),
    ("cpp-two-prose-lines", "cpp", "The kernel is:\nvery simple; it loops over all elements once.", False),
    # code, including lines with several plain words in a row
    ("cpp-one-line-kernel", "cpp",
     "void axpy(int n, float a, const float *x, float *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }", True),
    ("cpp-kokkos-functor-line", "cpp",
     "KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) += a * x(i); }", True),
    ("fortran-typed-function", "fortran",
     "double precision function ddot(n, x, y)\n  integer :: n\n  double precision :: x(n), y(n)\n"
     "  ddot = sum(x * y)\nend function ddot", True),
    ("python-loop", "python", "for i in range(n):\n    y[i] += a * x[i]", True),
    ("python-import-and-return", "python", "import numpy as np\nreturn np.dot(A, x)", True),
    ("code-then-prose", "cpp", "y[i] = a * x[i] + y[i];\nThis line is the whole kernel of the function above.", True),
    ("julia-loop", "julia", "for i in 1:n\n    y[i] += a * x[i]\nend", True),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_prose_is_not_code(case):
    _, language, text, expected = case
    assert has_code(text, language) is expected


def test_a_prose_completion_is_no_code():
    """The study's row end to end: a completion after a Fortran prompt that is one sentence gives no code."""
    cat = catalog()
    m = cat.models["fortran-openmp"]
    prompt = render(cat.kernels["spmv"], m, cat.languages[m.language], "paper", "none")
    text = "\n\n2.2.2.2. CSR SpMV OpenMP The CSR SpMV OpenMP kernel is a parallel implementation of the CSR SpMV " \
           "kernel. It uses OpenMP to parallelize the loop over the row indices. The OpenMP kernel is available at:"
    result = extract_details(text, prompt, "spmv")
    assert result.code == "" and result.status == "no_code", result.code
