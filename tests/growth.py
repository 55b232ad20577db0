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

A loaded machine still lends a single run its own costs: a page fault storm while memory
is reclaimed, a collection of another test's garbage. Both only ever add time, so a
ratio over the limit is measured again (``TRIES`` in all) and each size keeps its
quickest run. A pattern that backtracks is slow on every try and still fails; a spike
passes on the next one.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

LINEAR_MARGIN = 4  # x the size ratio: linear stays far under it, a square far over it
FLOOR = 1e-4  # seconds: a small run too quick to measure counts as this long
TRIES = 3  # measurements before a ratio over the limit fails


def _timed(run: Callable[[int], object], size: int) -> float:
    """The processor time one ``run(size)`` takes, the garbage of earlier work collected."""
    gc.collect()
    began = time.process_time()
    run(size)
    return time.process_time() - began


def growth(run: Callable[[int], object], small: int, big: int, tries: int = 1,
           limit: float = float("inf")) -> float:
    """The ratio of processor time ``run(big)`` takes to what ``run(small)`` takes.

    Measured up to ``tries`` times while the ratio stays at or over ``limit``; each size
    keeps its quickest run.
    """
    run(small)
    little = lot = float("inf")
    ratio = float("inf")
    for _ in range(tries):
        little = min(little, max(_timed(run, small), FLOOR))
        lot = min(lot, _timed(run, big))
        ratio = lot / little
        if ratio < limit:
            break
    return ratio


def assert_linear(run: Callable[[int], object], small: int, big: int, what: str = "") -> None:
    limit = LINEAR_MARGIN * big / small
    ratio = growth(run, small, big, TRIES, limit)
    assert ratio < limit, (f"{what}: {big / small:.0f} times the input cost {ratio:.0f} "
                           f"times the processor time on each of {TRIES} tries "
                           f"(linear stays under {limit:.0f})")
