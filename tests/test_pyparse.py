"""The harness parses Python from many evaluation threads at once; CPython 3.11's parse-tree conversion keeps one
recursion counter for all threads, so concurrent parses interleaved by a garbage collection fail with a
SystemError that would land in a suggestion's verdict. Every parse goes through one lock."""

from __future__ import annotations

import concurrent.futures as cf
import gc
import re
import time
from pathlib import Path

from hpceval.analysis.pyparse import parse_python

SOURCE = "\n".join(
    f"def f{i}(a, b):\n    return [[x * y for x in a if x] for y in b if (y and (x or (a and b)))]" for i in range(100)
)


class _SlowFinaliser:
    """Garbage in a cycle whose finaliser gives up the interpreter lock: what lets another thread run mid-parse."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0)


def _stress(parse) -> int:
    def work(_: int) -> int:
        failures = 0
        for _ in range(25):
            [_SlowFinaliser() for _ in range(30)]
            try:
                parse(SOURCE)
            except SystemError:
                failures += 1
        return failures

    old = gc.get_threshold()
    gc.set_threshold(1000, 1, 1)
    try:
        with cf.ThreadPoolExecutor(8) as pool:
            return sum(pool.map(work, range(8)))
    finally:
        gc.set_threshold(*old)


def test_parses_from_many_threads_never_fail():
    assert _stress(parse_python) == 0


def test_the_harness_parses_python_only_through_the_lock():
    harness = Path(__file__).resolve().parents[1] / "harness" / "hpceval"
    direct = [
        f"{p.relative_to(harness)}:{n}"
        for p in harness.rglob("*.py")
        if p.name != "pyparse.py"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"(?<![\w.])ast\.parse\(", line) and "open('kernel.py')" not in line  # that one runs sandboxed
    ]
    assert direct == []
