"""Unit tests of the validated timing run's parts that need no sandbox and no GPU.

The plan (secret inputs, scaling, the trap call, random warm-ups, full calls), the fingerprint check against the
reference, the driver record's nonce, the timer-interposition symbol list, the plausibility bound, and the GPU
probe's attribution of kernels to calls by the drivers' marks (tested on synthetic probe records, so the GPU
timing logic is covered on machines without a GPU).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from hpceval.cases import timing as T
from hpceval.cases import timing_check as C
from hpceval.cases.generate import make_case
from hpceval.ceilings import lower_bound
from hpceval.checks.interposition import defined_symbols, forbidden
from hpceval.spec import catalog as load_catalog
from hpceval.toolchains.cuda import ProbeData, read_probe
from hpceval.toolchains.probe_calls import marked_calls


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


# the largest array that does it (the driver rewrites it before every call, so a cache derived from it goes stale)
@pytest.mark.parametrize("kernel, scaled", [("axpy", ("x", "y")), ("gemv", ("A",)), ("gemm", ("A",)),
                                            ("spmv", ("values",)), ("jacobi", ("u", "unew")), ("cg", ("b", "x"))])
def test_the_arrays_the_outputs_are_linear_in_are_found(catalog, kernel, scaled):
    assert T.scalable(catalog.kernels[kernel]) == scaled


def test_plan_calls_differ_warmups_random_and_one_trap(catalog):
    spec = catalog.kernels["gemv"]
    size = {"m": 64, "n": 48}
    warmups = set()
    for seed in range(12):
        plan = T.make_plan(spec, size, 5, rng=random.Random(seed))
        warmups.add(plan.warmup)
        assert 1 <= plan.warmup <= 3 and len(plan.calls) == 5 + 1
        pairs = [(c.set, c.exps) for c in plan.calls]
        repeats = [k for k in range(1, len(pairs)) if pairs[k] == pairs[k - 1]]
        assert len(repeats) == 1 and repeats[0] > plan.warmup  # the trap: one timed call repeats its predecessor
        assert len(set(pairs)) == len(pairs) - 1  # otherwise every call's inputs are new
        assert all(pairs[k][0] != pairs[k - 1][0] for k in range(1, len(pairs)) if k not in repeats)
        assert any(c.full for c in plan.calls[plan.warmup:])
    assert len(warmups) > 1


def test_timing_inputs_are_not_the_default_seeds(catalog):
    spec = catalog.kernels["axpy"]
    size = {"n": 1000}
    plan = T.make_plan(spec, size, 5)
    default = make_case(spec, size, 20230615).inputs
    assert not np.array_equal(plan.sets[0]["x"], default["x"])
    assert not np.array_equal(plan.sets[1]["x"], plan.sets[0]["x"])
    k = plan.warmup
    base, got = plan.sets[plan.calls[k].set]["x"], plan.inputs(k)["x"]
    assert got.dtype == base.dtype == np.float32
    key = plan.keys[plan.calls[k].set]
    classes = T.element_classes(base, key, plan.classes)
    for i in range(0, base.size, 97):  # each element times 2^(its class's exponent), its class from its own bits
        assert got[i] == base[i] * np.float32(2.0 ** plan.calls[k].exps[classes[i]])
    assert len(np.unique(got / base)) == plan.classes


def test_runs_share_their_secret_sets_and_each_language_its_fingerprints(catalog, tmp_path):
    spec = catalog.kernels["gemv"]
    size = {"m": 30, "n": 20}
    first, second = T.make_plan(spec, size, 5), T.make_plan(spec, size, 5)
    assert first.sets is second.sets and first.nonce != second.nonce
    for plan in (first, second):
        plan.calls = [T.Call(c.set, c.exps, False) for c in plan.calls]  # fingerprints only
    for lang_id in ("cpp", "fortran", "cpp"):
        lang = catalog.languages[lang_id]
        for plan in (first, second):
            def right(k, plan=plan):
                return {"y": spec.reference(plan.inputs(k))["y"]}

            assert C.check_calls(tmp_path, spec, lang, plan, _record(spec, lang, plan, right)).ok, lang_id


def _record(spec, lang, plan, outputs_of):
    """A driver record with each call's fingerprints computed from outputs_of(k)."""
    rec = T.TimingRecord()
    for k in range(len(plan.calls)):
        rec.times.append(1e-3)
        rec.fingerprints.append([C.fingerprint(outputs_of(k)[p.name], lang.array_order)
                                 for p in spec.outputs if p.is_array])
    return rec


@pytest.mark.parametrize("lang_id", ["cpp", "fortran"])
def test_fingerprints_pass_the_reference_and_catch_a_stale_call(catalog, tmp_path, lang_id):
    spec, lang = catalog.kernels["gemv"], catalog.languages[lang_id]
    plan = T.make_plan(spec, {"m": 300, "n": 200}, 5, rng=random.Random(3))
    plan.calls = [T.Call(c.set, c.exps, False) for c in plan.calls]  # fingerprints only

    def right(k):
        return {"y": spec.reference(plan.inputs(k))["y"]}

    assert C.check_calls(tmp_path, spec, lang, plan, _record(spec, lang, plan, right)).ok

    stale = plan.warmup + 2

    def lazy(k):  # the stale call returns the previous call's result
        return right(k - 1 if k == stale else k)

    result = C.check_calls(tmp_path, spec, lang, plan, _record(spec, lang, plan, lazy))
    assert not result.ok and result.call == stale
    assert "call" in result.detail and "fingerprint" in result.detail and "timing size m=300,n=200" in result.detail


def test_float_accumulation_at_the_timing_size_fails_the_full_comparison(catalog, tmp_path):
    spec, lang = catalog.kernels["gemv"], catalog.languages["cpp"]
    plan = T.make_plan(spec, {"m": 64, "n": 4096}, 5, rng=random.Random(5))
    k = next(i for i, c in enumerate(plan.calls) if c.full)
    inputs = plan.inputs(k)
    single = (inputs["A"].astype(np.float32) @ inputs["x"].astype(np.float32)).astype(np.float64)
    folder = tmp_path / "c0"
    folder.mkdir()
    single.tofile(folder / f"out_y.{k}.bin")
    got = T.read_call_outputs(tmp_path, spec, lang, plan, k)
    assert not C._full_check(spec, plan, k, got).ok
    exact = spec.reference(inputs)["y"]
    exact.tofile(folder / f"out_y.{k}.bin", )
    assert C._full_check(spec, plan, k, T.read_call_outputs(tmp_path, spec, lang, plan, k)).ok


def test_a_record_without_the_nonce_or_a_times_file_is_tampering(catalog, tmp_path):
    spec = catalog.kernels["axpy"]
    plan = T.make_plan(spec, {"n": 100}, 5, rng=random.Random(1))
    (tmp_path / "c0").mkdir()
    lines = ["hpceval-timing forged"] + [f"call {k} 1e-9 0.0" for k in range(len(plan.calls))] + ["end forged"]
    (tmp_path / "c0" / "timing.txt").write_text("\n".join(lines) + "\n")
    assert "nonce" in T.read_record(tmp_path, plan).problem
    lines[0], lines[-1] = f"hpceval-timing {plan.nonce}", f"end {plan.nonce}"
    (tmp_path / "c0" / "timing.txt").write_text("\n".join(lines) + "\n")
    assert T.read_record(tmp_path, plan).problem is None
    (tmp_path / "c0" / "times.txt").write_text("1e-9\n")
    assert "times.txt" in T.read_record(tmp_path, plan).problem


def test_timer_interposition_symbols():
    nm = """0000000000001139 T main
0000000000001200 T clock_gettime
0000000000004010 B time
0000000000001300 W _ZNSt6vectorIdSaIdEE9push_backERKd
0000000000001400 T libcudart_static_0056bd
0000000000001500 T cudaDeviceSynchronize
0000000000001600 T hpceval_rt_now_ns
"""
    symbols = defined_symbols(nm)
    assert forbidden(symbols) == "clock_gettime"  # the data symbol `time` is no function: not listed
    assert forbidden([s for s in symbols if s[1] != "clock_gettime"], own=frozenset({"hpceval_rt_now_ns"})) is None
    assert forbidden([("T", "omp_get_wtime"), ("T", "cuptiActivityGetNextRecord")]) == "omp_get_wtime"


def test_the_lower_bound_uses_bytes_and_flops(monkeypatch):
    from hpceval import ceilings

    monkeypatch.setattr(ceilings, "cpu_ceilings", lambda: ceilings.Ceilings(100.0, 1000.0, "test"))
    bound = lower_bound(flops=2e9, nbytes=1e9, dtype="float64", device="cpu")
    assert bound.seconds == pytest.approx(max(1e9 / 100e9, 2e9 / 1000e9) / ceilings.SAFETY["cpu"])
    assert lower_bound(2e9, 1e3, "float32", "cpu").seconds == pytest.approx(2e9 / 2000e9 / ceilings.SAFETY["cpu"])


def _probe(marks, kernels, nonce="n1"):
    data = ProbeData()
    data.nonces = [nonce]
    data.marks = [(c, p, t) for c, (a, b) in enumerate(marks) for p, t in ((0, a), (1, b))]
    data.kernels = [(a, b, "k") for a, b in kernels]
    return data


def test_gpu_kernels_are_attributed_to_calls_by_the_marks():
    data = _probe([(100, 200), (300, 400), (500, 600)], [(110, 150), (310, 330), (340, 360), (510, 590)])
    times, how = marked_calls(data, calls=3, warmup=1)
    assert times == pytest.approx([40e-9, 80e-9]) and "marks" in how
    assert marked_calls(_probe([(100, 200)], []), calls=2, warmup=1) is None  # a call not marked: not this way


def test_gpu_work_after_a_call_returned_is_seen():
    data = _probe([(100, 200), (300, 400)], [(110, 150), (150, 20_000)])  # the second kernel outlives call 0
    times, how = marked_calls(data, calls=2, warmup=1)
    assert times == [] and how.startswith("outside calls:")


def test_gpu_probe_record_nonce_and_default_name(tmp_path):
    from hpceval.toolchains.cuda import CudaToolchain

    tool = CudaToolchain()
    tool.probe_active = lambda model, code="": True
    (tmp_path / "gpu_probe-x.txt").write_text("hpceval-probe 1 right\nM 0 0 100\nM 0 1 200\nK 110 150 k\n")
    assert read_probe(tmp_path, remove=False, name="gpu_probe-x.txt").marks == [(0, 0, 100), (0, 1, 200)]
    times, how = tool.kernel_times(tmp_path, None, 1, 0, probe_file="gpu_probe-x.txt", nonce="other")
    assert times == [] and "nonce" in how and "tampering" in how
    (tmp_path / "gpu_probe-x.txt").write_text("hpceval-probe 1 right\nM 0 0 100\nM 0 1 200\nK 110 150 k\n")
    times, how = tool.kernel_times(tmp_path, None, 1, 0, probe_file="gpu_probe-x.txt", nonce="right")
    assert times == pytest.approx([40e-9])
    (tmp_path / "gpu_probe.txt").write_text("hpceval-probe 1\nK 1 2 k\n")  # written by the job itself
    (tmp_path / "gpu_probe-x.txt").write_text("hpceval-probe 1 right\nM 0 0 100\nM 0 1 200\nK 110 150 k\n")
    times, how = tool.kernel_times(tmp_path, None, 1, 0, probe_file="gpu_probe-x.txt", nonce="right")
    assert times == [] and "tampering" in how


def test_a_device_to_host_copy_that_lands_after_the_call_returned_is_seen():
    """The returned mark (phase 2, before the driver's device sync): a pinned cudaMemcpyAsync left in flight."""
    data = _probe([(100, 10_000_000), (10_000_100, 20_000_000)], [(200, 300), (10_000_200, 10_000_300)])
    data.marks += [(0, 2, 400), (1, 2, 10_000_400)]
    data.copies = [(350, 9_000_000, 4096, 2)]  # device-to-host, 9 ms after call 0 returned
    times, how = marked_calls(data, calls=2, warmup=1)
    assert times == [] and how.startswith("outside calls:") and "after the call returned" in how
    data.copies = [(350, 390, 4096, 2), (10_000_500, 10_000_900, 4096, 2)]  # in time; the driver's own copy later
    times, how = marked_calls(data, calls=2, warmup=1)
    assert times == pytest.approx([100e-9]), how
    data.copies = [(350, 9_000_000, 4096, 1)]  # host-to-device in flight: no output reached the host late
    assert marked_calls(data, calls=2, warmup=1)[0] == pytest.approx([100e-9])


# ------------------------------------------------------------------ per-element scale classes


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_element_classes_follow_the_bits_and_fill_every_class(dtype):
    values = np.random.default_rng(4).uniform(-2, 2, 4000).astype(dtype)
    key, classes = 0x2F0F_1234_ABCD_0042, 3
    got = T.element_classes(values, key, classes)
    width = np.uint64 if dtype == np.float64 else np.uint32

    def cls(bits):  # popcount p of the zero-extended bits XOR key; p mod 4K if below K, else 0
        p = bin(int(bits) ^ key).count("1")
        return p % (4 * classes) if p % (4 * classes) < classes else 0

    assert got.tolist() == [cls(b) for b in values.view(width)]
    counts = np.bincount(got, minlength=classes)
    assert counts[0] > 4000 / 2 and counts[1:].min() > 4000 / (4 * classes) / 4  # class 0 most, each other some


@pytest.mark.parametrize("kernel, size", [("axpy", {"n": 3000}), ("gemv", {"m": 70, "n": 50}),
                                          ("gemm", {"m": 20, "n": 24, "k": 18}),
                                          ("spmv", {"nx": 9, "ny": 8, "nz": 7}),
                                          ("jacobi", {"nx": 12, "ny": 10, "nz": 9})])
def test_each_calls_expected_outputs_are_its_own_inputs_reference(catalog, tmp_path, kernel, size):
    """The classes' references combined (what every call is checked against) are the reference of the call's own
    inputs, in full and by fingerprint, in both storage orders."""
    spec = catalog.kernels[kernel]
    plan = T.make_plan(spec, size, 5, rng=random.Random(11))
    assert plan.classes >= 2 and plan.scaled
    for k in range(len(plan.calls)):
        got = {name: np.asarray(v) for name, v in spec.reference(plan.inputs(k)).items()}
        result = C._full_check(spec, plan, k, got)
        assert result.ok, (k, result.detail)
    for lang_id in ("cpp", "fortran"):
        lang = catalog.languages[lang_id]
        flat = [T.Call(c.set, c.exps, False) for c in plan.calls]
        plan.calls, full = flat, plan.calls
        assert C.check_calls(tmp_path, spec, lang, plan,
                             _record(spec, lang, plan, lambda k: spec.reference(plan.inputs(k)))).ok, lang_id
        plan.calls = full


def test_no_call_is_a_rescaled_or_combined_earlier_call(catalog):
    """Calls on one set: the element-wise ratio of their scaled array is never one power of two, and their
    classes' factor vectors are linearly independent as far as the classes allow (only the last call on a set
    can follow from earlier calls' outputs)."""
    spec = catalog.kernels["gemv"]
    for seed in range(8):
        plan = T.make_plan(spec, {"m": 40, "n": 30}, 5, rng=random.Random(seed))
        for s in range(len(plan.sets)):
            distinct = list(dict.fromkeys(c.exps for c in plan.calls if c.set == s))
            rank = np.linalg.matrix_rank(np.ldexp(1.0, np.array(distinct)))
            assert rank == min(len(distinct), plan.classes) and len(distinct) <= plan.classes + 1
            ks = [next(k for k, c in enumerate(plan.calls) if c.exps == e and c.set == s) for e in distinct]
            for a in ks:
                for b in ks:
                    if a < b:
                        ratio = plan.inputs(b)["A"] / plan.inputs(a)["A"]
                        assert np.unique(ratio).size > 1


def test_a_cache_that_rescales_an_earlier_result_fails(catalog, tmp_path):
    """The exploit the classes stop: return an earlier call's outputs on the same set times the ratio read off
    the first element (right under a uniform 2^e scaling)."""
    spec, lang = catalog.kernels["gemv"], catalog.languages["cpp"]
    plan = T.make_plan(spec, {"m": 300, "n": 200}, 5, rng=random.Random(7))
    first = {}

    def cached(k):
        s = plan.calls[k].set
        a = plan.inputs(k)["A"]
        if s not in first:
            first[s] = (a.flat[0], spec.reference(plan.inputs(k))["y"])
            return {"y": first[s][1]}
        return {"y": first[s][1] * (a.flat[0] / first[s][0])}

    result = C.check_calls(tmp_path, spec, lang, plan, _record(spec, lang, plan, cached))
    assert not result.ok and "timing size" in result.detail


def test_the_drivers_c_runtime_scales_as_the_plan_says(catalog, tmp_path):
    """hpceval_rt_scale64/32 (the C++ and Fortran drivers) against TimingPlan.inputs, compiled here as a library."""
    import ctypes
    import shutil
    import subprocess
    from pathlib import Path

    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    source = Path(T.__file__).parent.parent / "bind" / "drivers" / "hpceval_runtime.c"
    lib = tmp_path / "librt.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(source)], check=True)
    rt = ctypes.CDLL(str(lib))
    for kernel, size, name in [("gemv", {"m": 50, "n": 40}, "A"), ("axpy", {"n": 2000}, "x")]:
        spec = catalog.kernels[kernel]
        plan = T.make_plan(spec, size, 5, rng=random.Random(2))
        k = plan.warmup
        base = np.ascontiguousarray(plan.sets[plan.calls[k].set][name])
        dst = np.empty_like(base)
        exps = (ctypes.c_int * plan.classes)(*plan.calls[k].exps)
        scale = rt.hpceval_rt_scale64 if base.dtype == np.float64 else rt.hpceval_rt_scale32
        scale(dst.ctypes.data_as(ctypes.c_void_p), base.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(base.size),
              ctypes.c_longlong(plan.keys[plan.calls[k].set]), ctypes.c_int(plan.classes), exps)
        np.testing.assert_array_equal(dst, plan.inputs(k)[name])


@pytest.mark.parametrize("kernel, size", [("gemv", {"m": 50, "n": 40}), ("jacobi", {"nx": 9, "ny": 8, "nz": 7}),
                                          ("axpy", {"n": 3000})])
def test_the_class_index_files_rebuild_every_calls_inputs(catalog, tmp_path, kernel, size):
    """Python's driver scales a whole array by class 0's factor and fixes up the elements the harness's index
    files list (the other drivers work the classes out per element): that rebuilds each call's inputs exactly,
    from the files alone; languages that do not ask for them get none."""
    from hpceval.cases.io import array_shape

    spec = catalog.kernels[kernel]
    plan = T.make_plan(spec, size, 5, rng=random.Random(4))
    for lang_id in ("python", "cpp"):
        lang = catalog.languages[lang_id]
        workdir = tmp_path / lang_id
        workdir.mkdir()
        T.write_plan(workdir, spec, lang, plan)
        files = sorted(p.relative_to(workdir / "c0").as_posix() for p in (workdir / "c0").rglob("*.class*"))
        if not lang.class_indices:
            assert files == []
            continue
        assert files == sorted(f"{f's{j}/' if j else ''}{name}.class{c}" for j in range(len(plan.sets))
                               for name in plan.scaled for c in range(1, plan.classes))
        for k, call in enumerate(plan.calls):
            factors = plan.factors(k)
            for name in plan.scaled:
                p = spec.param(name)
                stored = np.asarray(plan.sets[call.set][name]).reshape(array_shape(p, plan.sets[call.set]))
                flat = (stored * factors[0]).ravel(order=lang.array_order)
                folder = workdir / "c0" / (f"s{call.set}" if call.set else "")
                for c in range(1, plan.classes):
                    where = np.fromfile(folder / f"{name}.class{c}", dtype=np.int32)
                    flat[where] = stored.ravel(order=lang.array_order)[where] * factors[c]
                want = np.asarray(plan.inputs(k)[name]).reshape(stored.shape).ravel(order=lang.array_order)
                np.testing.assert_array_equal(flat, want)
