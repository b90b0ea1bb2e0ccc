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


def marked_calls(data: ProbeData, calls: int, warmup: int) -> tuple[list[float], str] | None:
    """Kernel seconds per call from the driver's start/end marks; kernel time after the first mark and outside
    every call's window means device work continued after a call returned. None when not every call is marked."""
    windows: dict[int, list[int]] = {}
    for call, phase, ts in data.marks:
        windows.setdefault(call, [0, 0])[phase] = ts
    spans = [tuple(windows[c]) for c in range(calls) if c in windows and windows[c][1] >= windows[c][0] > 0]
    if len(spans) != calls:
        return None
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
