"""The growth check itself: a square fails it on every try, a one-off spike does not."""

from __future__ import annotations

import pytest
from growth import TRIES, assert_linear

BLOCK = "x" * 4096


def _square(n: int) -> None:
    """n scans of n bytes, in C: work that grows with the square of n."""
    line = "x" * n
    for _ in range(n):
        line.count("y")


def _linear(n: int) -> None:
    for _ in range(n):
        BLOCK.count("y")


def test_work_that_grows_as_a_square_fails() -> None:
    with pytest.raises(AssertionError, match=f"on each of {TRIES} tries"):
        assert_linear(_square, 1_000, 16_000, "a square")


def test_linear_work_passes() -> None:
    assert_linear(_linear, 1_000, 16_000, "linear")


def test_a_spike_on_one_big_run_is_measured_again() -> None:
    """The first big run also does a square's work, as a page fault storm or a collection
    of someone else's garbage would add; the next try is the work alone."""
    big_runs: list[int] = []

    def spiked(n: int) -> None:
        _linear(n)
        if n == 16_000:
            big_runs.append(n)
            if len(big_runs) == 1:
                _square(32_000)

    assert_linear(spiked, 1_000, 16_000, "spiked")
    assert len(big_runs) == 2
