"""How a cost grows with the input, without a time budget: the same work at two sizes,
compared with each other.

``growth(run, small, big)`` runs ``run(small)`` once to warm up (imports, caches), then
``run(small)`` and ``run(big)``, and returns the ratio of the processor time each took
(this process's own time, ``time.process_time``: other programs on a loaded machine do
not count). Linear work at sizes ``big = 16 * small`` gives a ratio of at most 16 (less
where a fixed cost dominates the small run); quadratic work gives 256. The tests assert
``growth(...) < LINEAR_MARGIN * big / small``: four times what linear work can reach, a
sixteenth of what a square reaches. No test compares a time with a number of seconds;
those belong to ``benchmarks/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

LINEAR_MARGIN = 4  # x the size ratio: linear stays far under it, a square far over it
FLOOR = 1e-4  # seconds: a small run too quick to measure counts as this long


def growth(run: Callable[[int], object], small: int, big: int) -> float:
    """The ratio of processor time ``run(big)`` takes to what ``run(small)`` takes."""
    run(small)
    began = time.process_time()
    run(small)
    little = max(time.process_time() - began, FLOOR)
    began = time.process_time()
    run(big)
    return (time.process_time() - began) / little


def assert_linear(run: Callable[[int], object], small: int, big: int, what: str = "") -> None:
    ratio = growth(run, small, big)
    limit = LINEAR_MARGIN * big / small
    assert ratio < limit, (f"{what}: {big / small:.0f} times the input cost {ratio:.0f} "
                           f"times the processor time (linear stays under {limit:.0f})")
