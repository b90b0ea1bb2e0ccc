"""What a timed call reads: the largest input rewritten in place, every other input its set's own array.

Why: the timing run gives every call fresh inputs. The array the outputs are linear in that is largest (GEMV's A)
is scaled by 2^e in place before every call, so a suggestion that caches something derived from it keyed on its
pointer (a transposed matrix) serves stale values; every other pure input (GEMV's x) is handed to the call as its
set's own array, swapped in, never copied: calls on one set read x at one address, calls on the other set at
another, and no copy is made for the call. These kernels (correct GEMVs, as an LLM would write them, plus a line
that appends the addresses of A and x to a file in the job's folder) show it through the whole pipeline, in C++,
Fortran and Python.
"""

from __future__ import annotations

import textwrap

import pytest

import hpceval.checks.timing as timing_check
from hpceval.contracts import Verdict
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog as load_catalog

KERNELS = {
    "cpp-openmp": """\
        #include <cstdio>
        #include <cstdint>
        void gemv(int m, int n, const double *A, const double *x, double *y) {
          if (FILE *f = std::fopen("addr.txt", "a")) { std::fprintf(f, "%llu %llu\\n", (unsigned long long)(uintptr_t)A, (unsigned long long)(uintptr_t)x); std::fclose(f); }
        #pragma omp parallel for
          for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
            y[i] = s;
          }
        }
        """,
    "fortran-openmp": """\
        subroutine gemv(m, n, A, x, y)
          implicit none
          integer, intent(in) :: m, n
          real(8), intent(in) :: A(m, n), x(n)
          real(8), intent(out) :: y(m)
          integer :: i, j, u
          open(newunit=u, file='addr.txt', position='append', action='write')
          write(u, '(i0,1x,i0)') loc(A), loc(x)
          close(u)
          !$omp parallel do private(j)
          do i = 1, m
            y(i) = 0.0d0
            do j = 1, n
              y(i) = y(i) + A(i, j) * x(j)
            end do
          end do
          !$omp end parallel do
        end subroutine gemv
        """,
    "python-numpy": """\
        import numpy as np

        def gemv(m, n, A, x, y):
            with open("addr.txt", "a") as f:
                f.write(f"{A.ctypes.data} {x.ctypes.data}\\n")
            np.dot(A, x, out=y)
        """,
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.mark.parametrize("model", sorted(KERNELS))
def test_a_is_rewritten_in_place_and_x_is_each_sets_own_array(catalog, model, monkeypatch):
    seen = {}
    read = timing_check.read_record

    def spy(workdir, plan):
        lines = (workdir / "addr.txt").read_text().splitlines()[-len(plan.calls):]
        seen["addresses"] = [line.split() for line in lines]
        seen["sets"] = [call.set for call in plan.calls]
        seen["scaled"] = plan.scaled
        return read(workdir, plan)

    monkeypatch.setattr(timing_check, "read_record", spy)
    spec, mod = catalog.kernels["gemv"], catalog.models[model]
    evaluation = Evaluator(catalog, LocalExecutor(), timing=True).evaluate(textwrap.dedent(KERNELS[model]), spec, mod)
    if evaluation.verdict is Verdict.infra_error:
        pytest.skip(f"{model}: {evaluation.evidence}")
    assert evaluation.verdict is Verdict.correct, evaluation.evidence
    assert evaluation.time_median_s and evaluation.time_median_s > 0
    assert seen["scaled"] == ("A",), "A, the largest input, is the one rewritten before every call"
    addresses, sets = seen["addresses"], seen["sets"]
    assert len(addresses) == len(sets) and len(set(sets)) >= 2
    assert len({a for a, _x in addresses}) == 1, f"A is rewritten in place, never moved: {addresses}"
    by_set = {}
    for (_a, x), s in zip(addresses, sets, strict=True):
        by_set.setdefault(s, set()).add(x)
    assert all(len(found) == 1 for found in by_set.values()), f"a set's x moved between calls: {by_set}"
    assert len({next(iter(found)) for found in by_set.values()}) == len(by_set), f"two sets share x: {by_set}"


# ---------------------------------------------------------------------------------------------- code layout


@pytest.mark.parametrize("model", ["cpp-openmp", "cpp-openmp-offload", "cpp-openacc", "cpp-kokkos", "cpp-sycl",
                                   "fortran-openmp", "fortran-openmp-offload", "fortran-openacc"])
def test_every_cpu_build_lays_the_kernel_out_by_its_own_code(catalog, model):
    """The C++ OpenMP GEMM reference ran 18.5 ms with its inner loop at 16 mod 32 and 10.2 ms at 0 mod 32, moved
    there by one function more in the driver: every build of host code that is timed aligns functions and loops."""
    from hpceval.toolchains import LAYOUT_FLAGS, get_toolchain
    from hpceval.toolchains.kokkos import Kokkos

    mod = catalog.models[model]
    toolchain = get_toolchain(mod.toolchain)
    if isinstance(toolchain, Kokkos) and toolchain.backend == "cuda":
        pytest.skip("the Kokkos build here has the CUDA backend: its kernels are timed on the GPU")
    try:
        steps = toolchain.build_steps(mod)
    except Exception as exc:  # noqa: BLE001 - a toolchain that is not installed here (Kokkos, SYCL) cannot say
        pytest.skip(f"{model}: {exc}")
    argv = [arg for step in steps for arg in step]
    assert all(flag in argv for flag in LAYOUT_FLAGS), argv


def test_the_layout_flags_fix_the_hot_loop_whatever_precedes_it(tmp_path):
    """g++ with the layout flags puts a kernel's inner loop at the same offset mod 32 whatever code comes before it
    in the unit (without them, a driver function more or less moves it)."""
    import re
    import shutil
    import subprocess

    from hpceval.toolchains import LAYOUT_FLAGS

    if not (shutil.which("g++") and shutil.which("objdump")):
        pytest.skip("g++ and objdump needed")
    kernel = ("void kernel(int n, const double *b, double *c) {\n"
              "  for (int j = 0; j < n; ++j) c[j] += 2.0 * b[j];\n}\n")
    offsets = {}
    for flags in ((), LAYOUT_FLAGS):
        found = set()
        for pad in range(6):  # 0..5 filler functions before the kernel, of different sizes
            filler = "".join(f"int filler{i}(int x) {{ return x * {i + 3} + (x >> {i + 1}); }}\n" for i in range(pad))
            src = tmp_path / f"unit{pad}.cpp"
            src.write_text(filler + kernel)
            obj = tmp_path / f"unit{pad}.o"
            subprocess.run(["g++", "-O2", "-fno-tree-vectorize", *flags, "-c", str(src), "-o", str(obj)], check=True)
            dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(obj)], capture_output=True,
                                  text=True, check=True).stdout
            body = dump[dump.index("<_Z6kerneliPKdPd>:"):]
            heads = [int(m.group(2), 16) for m in re.finditer(r"^\s*([0-9a-f]+):\s+j\w+\s+([0-9a-f]+) ", body, re.MULTILINE)
                     if int(m.group(2), 16) < int(m.group(1), 16)]  # backward jumps: their targets head loops
            assert heads, body
            found.add(min(heads) % 32)
        offsets[bool(flags)] = found
    assert len(offsets[False]) > 1, f"without the flags the loop should move with the code before it: {offsets}"
    assert len(offsets[True]) == 1, offsets



def test_a_write_past_a_swapped_in_inputs_end_is_caught(catalog):
    """Each set's own x has its own guard: a kernel that writes past x's end only at the timing size and only on
    the set that is not the first call's (its x swapped in or out) is still reported."""
    code = textwrap.dedent("""\
        static const double *first_x = nullptr;
        void gemv(int m, int n, const double *A, const double *x, double *y) {
          if (n > 1000 && !first_x) first_x = x;
          if (n > 1000 && x != first_x) const_cast<double *>(x)[n] = 0.0;  // a stray store, on the other set only
        #pragma omp parallel for
          for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
            y[i] = s;
          }
        }
        """)
    spec, mod = catalog.kernels["gemv"], catalog.models["cpp-openmp"]
    evaluation = Evaluator(catalog, LocalExecutor(), timing=True).evaluate(code, spec, mod)
    assert evaluation.verdict is not Verdict.correct, evaluation.evidence
    assert "past the end of x" in evaluation.evidence, evaluation.evidence
