"""The timing run's shared sets are prepared ahead again after they were evicted.

The process keeps the input sets of the last few (kernel, size) pairs (cases.timing._SHARED_KEEP) and remembers what
it started making ahead for them (checks.timing.prepare: references, layouts, fingerprint sums). It remembered a key
for good while the sets were evicted and made anew: in a run over more kernels than are kept (every run over all
six), or a Dask worker serving several runs, the new sets' references were then computed in the first timing check's
comparison, on the evaluation's path (measured on a 16-core host: the warm repeat of bench/overhead.py compared for
7.2 s instead of 2.0 s). What was prepared is now forgotten with the sets it was made for.
"""

from __future__ import annotations

from hpceval.cases import timing


def test_an_evicted_key_is_prepared_again(catalog):
    spec = catalog.kernels["axpy"]
    first = timing.shared_key(spec, {"n": 17}, 5)
    timing.shared_plan(spec, {"n": 17}, 5)
    with timing.PREPARED_LOCK:
        timing.PREPARED.update({first, (first, "C", 0, False)})
    for n in range(18, 18 + timing._SHARED_KEEP):  # other sizes push the first out
        timing.shared_plan(spec, {"n": n}, 5)
    assert first not in timing._SHARED
    assert first not in timing.PREPARED and (first, "C", 0, False) not in timing.PREPARED


def test_a_kept_key_stays_prepared(catalog):
    spec = catalog.kernels["gemv"]
    key = timing.shared_key(spec, {"m": 5, "n": 7}, 5)
    plan = timing.shared_plan(spec, {"m": 5, "n": 7}, 5)
    with timing.PREPARED_LOCK:
        timing.PREPARED.add(key)
    again = timing.shared_plan(spec, {"m": 5, "n": 7}, 5)
    assert again.sets is plan.sets and key in timing.PREPARED
