"""GPU kernel time per timed call from the drivers' marks in the CUPTI probe's record.

Why: telling calls apart by their copies (toolchains/cuda.split_calls) is a guess that a suggestion can steer
(one call that copies nothing, work left on another stream); the drivers now mark each call's start and end in
the probe's own clock (hpceval_probe_mark), so every kernel is attributed to the call whose window it overlaps,
on whatever stream or context it ran, and kernel time outside every window is work that continued after a call
returned (checks/timing.py makes it `wrong_model`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpceval.toolchains.cuda import ProbeData


# CUPTI_ACTIVITY_MEMCPY_KIND_DTOH; a copy may end this long after the return mark and still be the call's own
# (the probe's host timestamp and the GPU's are the same clock up to a few microseconds)
COPY_DTOH = 2
RETURN_SLACK_NS = 100_000


def marked_calls(data: ProbeData, calls: int, warmup: int) -> tuple[list[float], str] | None:
    """Kernel seconds per call from the driver's start/end marks; kernel time after the first mark and outside
    every call's window means device work continued after a call returned. None when not every call is marked.

    Phase 2 marks the moment the call returned, before the driver synchronises the device: a device-to-host copy
    started within the call that lands after that moment wrote the call's host outputs after it returned (a
    caller would read them before they arrive; the harness's device-wide sync would otherwise hide it)."""
    windows: dict[int, list[int]] = {}
    for call, phase, ts in data.marks:
        if phase in (0, 1, 2):
            windows.setdefault(call, [0, 0, 0])[phase] = ts
    spans = [tuple(windows[c][:2]) for c in range(calls) if c in windows and windows[c][1] >= windows[c][0] > 0]
    if len(spans) != calls:
        return None
    late = _late_copy(data, [windows[c] for c in range(calls)])
    if late:
        return [], f"outside calls: {late}"
    per_call = [0.0] * calls
    outside = 0.0
    first = spans[0][0]
    for start, end, _name in data.kernels:
        inside = 0
        for c, (lo, hi) in enumerate(spans):
            overlap = min(end, hi) - max(start, lo)
            if overlap > 0:
                per_call[c] += overlap / 1e9
                inside += overlap
        if end > first:
            outside += max(0, (end - max(start, first)) - inside) / 1e9
    total = sum(per_call)
    if outside > max(1e-6, 0.01 * total):
        return [], (f"outside calls: GPU kernels ran {outside:.3e} s outside the timed calls (after a call "
                    f"returned), {total:.3e} s inside them")
    return per_call[warmup:], "kernels attributed to calls by the driver's marks"


def _late_copy(data: ProbeData, windows: list[list[int]]) -> str | None:
    """The first device-to-host copy of a call that landed after the call had returned (phase-2 mark), or None."""
    for c, (lo, hi, returned) in enumerate(windows):
        if not returned:
            continue
        for start, end, nbytes, kind in data.copies:
            if kind == COPY_DTOH and lo <= start <= hi and end > returned + RETURN_SLACK_NS:
                return (f"a device-to-host copy of {nbytes} bytes started by call {c} finished "
                        f"{(end - returned) / 1e6:.3f} ms after the call returned: its outputs reached host memory "
                        f"after the return")
    return None
