"""The GPU timing run's liveness finding on a call the harness itself synchronises is the harness's, not the LLM's.

A bare `__global__` kernel (ParEval's CUDA answers, the study's Copilot kernels) is launched by the harness, and
the call ends with a device-wide synchronise (bind.glue.launch). On an H100 at the timing sizes, the probe still
placed some kernel time, or the harness's own copy-back, outside the call windows (host and GPU timestamps a few
microseconds apart, summed over the calls), and 13 textbook kernels of ParEval's outputs became `wrong_model`
("work continued after the call returned"). Nothing the suggestion starts can outlive that synchronise, so the
finding is only charged where the suggestion's own host code made the call."""

from __future__ import annotations

from types import SimpleNamespace

from hpceval.checks.timing import _call_times
from hpceval.contracts import Verdict

OUTSIDE = "outside calls: GPU kernels ran 1.433e-04 s outside the timed calls (after a call returned), 6.628e-03 s inside them"


def _job(synced: bool, how: str = OUTSIDE):
    return SimpleNamespace(
        harness_synced=synced, model=None, workdir=None, code="",
        toolchain=SimpleNamespace(kernel_times=lambda *a, **k: ([], how)),
        verdict=lambda verdict, evidence, **fields: SimpleNamespace(verdict=verdict, evidence=evidence))


PLAN = SimpleNamespace(timed=[1, 2, 3], warmup=1, calls=[0, 1, 2, 3], nonce="n", label="n=33554432")
HOST = [0.9, 1.0, 1.1, 1.2]


def test_the_suggestions_own_call_is_still_charged():
    times, _ = _call_times(_job(synced=False), PLAN, HOST, None)
    assert times.verdict == Verdict.wrong_model and "work continued after the call returned" in times.evidence


def test_a_call_the_harness_synchronises_is_timed_on_the_host_clock_instead():
    times, note = _call_times(_job(synced=True), PLAN, HOST, None)
    assert times == [1.0, 1.1, 1.2]
    assert "calls the harness synchronises itself" in note and "6.628e-03" in note


def test_tampering_is_still_caught_on_a_synchronised_call():
    times, _ = _call_times(_job(synced=True, how="outside calls: tampering with the probe"), PLAN, HOST, None)
    assert times.verdict == Verdict.wrong_result


def test_a_bare_kernel_binds_to_the_harness_launch(catalog):
    """What sets the flag: a `__global__` kernel with no host function binds to the harness's own launch."""
    from hpceval.bind import choose_binding
    from hpceval.bind.glue.launch import harness_launched

    code = """__global__ void axpy(double alpha, const double *x, const double *y, double *z, size_t N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) z[idx] = alpha * x[idx] + y[idx];
}
"""
    m = catalog.models["cpp-cuda"]
    b = choose_binding(code, catalog.kernels["axpy"], catalog.languages["cpp"], "paper", m)
    assert harness_launched(b.call) and "DeviceSynchronize" in b.call
