"""The interventions log and its two deterministic counters (``lets-observability``).

The log is ``~/.claude/.harness/interventions/*.jsonl``: one JSON object a line with a
``ts`` (or ``date``), a ``type``, an optional ``model`` and an optional ``false_positive``.
The reader folds the records into per-day counts; the counters are pure functions of them.

- ``model_tag_count``: records that carry a non-empty ``model`` field.
- ``rejection_rate``: ``type == "rejection"`` records among all records dated inside the
  period that ends on ``today`` (a record dated ``today`` is 0 days old; a 30-day period
  holds ages 0 to 29). Records with no readable date (no ``date`` or ``ts`` text, or a
  ``ts`` that is an epoch number) are not counted in any period.
- ``false_positive_rate``: the same, counting records labelled ``false_positive: true``;
  None when no record of the period carries the label (the summary then keeps the proxy).

Standard library only, and no import of the rest of the summary: the command stays small.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from lets_hooks import files

#: No single input file of the summary is read past this size; a larger one is reported
#: and skipped (project files and the user's files alike).
MAX_FILE_BYTES = 32 * 1024 * 1024

INTERVENTIONS_DIR = (".claude", ".harness", "interventions")
INTERVENTIONS_LABEL = "~/.claude/.harness/interventions"


@dataclass(frozen=True)
class DayCount:
    """How many records fell on one day (``day`` is None for records with no date)."""

    day: dt.date | None
    total: int
    rejections: int
    tagged: int
    labelled: int = 0  # records that carry a ``false_positive`` field at all
    false_positives: int = 0  # records with ``false_positive: true``


@dataclass(frozen=True)
class InterventionLog:
    """Everything the counters need from the interventions folder."""

    days: tuple[DayCount, ...]  # sorted by day; the undated bucket, if any, first


@dataclass(frozen=True)
class Rate:
    """``part`` out of ``whole``; ``text`` is the percentage with one decimal, or N/A."""

    part: int
    whole: int

    @property
    def text(self) -> str:
        return percent(self.part, self.whole)

    def above(self, threshold_percent: int) -> bool:
        """Strictly above ``threshold_percent``, judged on the figure that is printed (one
        decimal, halves up): 5.04% prints as 5.0% and is not above 5."""
        value = rounded_percent(self.part, self.whole)
        return value is not None and value > threshold_percent


def rounded_percent(part: int, whole: int) -> Decimal | None:
    """``part / whole`` as a percentage with one decimal, halves rounded up; None on zero."""
    if whole <= 0:
        return None
    return (Decimal(part) * 100 / Decimal(whole)).quantize(Decimal("0.1"), ROUND_HALF_UP)


def percent(part: int, whole: int) -> str:
    """``rounded_percent`` as text (``12.5%``), or N/A on a zero ``whole``."""
    value = rounded_percent(part, whole)
    return "N/A" if value is None else f"{value}%"


# --------------------------------------------------------------------------- pure counters


def model_tag_count(log: InterventionLog) -> int:
    return sum(day.tagged for day in log.days)


def _in_period(log: InterventionLog, today: dt.date, period_days: int) -> list[DayCount]:
    return [day for day in log.days
            if day.day is not None and 0 <= (today - day.day).days < period_days]


def rejection_rate(log: InterventionLog, today: dt.date, period_days: int) -> Rate:
    days = _in_period(log, today, period_days)
    return Rate(sum(day.rejections for day in days), sum(day.total for day in days))


def false_positive_rate(log: InterventionLog, today: dt.date, period_days: int
                        ) -> Rate | None:
    days = _in_period(log, today, period_days)
    if not any(day.labelled for day in days):
        return None
    return Rate(sum(day.false_positives for day in days), sum(day.total for day in days))


def tagged_after(log: InterventionLog, after: dt.date) -> int:
    """Tagged records dated strictly after ``after``."""
    return sum(day.tagged for day in log.days if day.day is not None and day.day > after)


def earliest_tagged(log: InterventionLog) -> dt.date | None:
    return next((day.day for day in log.days if day.day is not None and day.tagged), None)


def parse_period(text: str) -> int | None:
    """``30d`` → 30; anything else (or zero days) → None."""
    body = text.strip().lower()
    if not body.endswith("d") or not body[:-1].isdigit():
        return None
    days = int(body[:-1])
    return days if days > 0 else None


# --------------------------------------------------------------------------- record dates


def record_date(record: dict[str, object]) -> dt.date | None:
    """A record's date: its ``date`` field, else the date part of a text ``ts`` (an epoch
    number has none)."""
    for key in ("date", "ts"):
        value = record.get(key)
        found = iso_date(value[:10]) if isinstance(value, str) else None
        if found is not None:
            return found
    return None


def iso_date(text: str) -> dt.date | None:
    """Exactly ``YYYY-MM-DD`` → a date; anything else (or an impossible date) → None.
    Stricter than ``date.fromisoformat``, which from Python 3.11 also takes week dates and
    the basic format: the same input must mean the same on every supported Python."""
    if (len(text) != 10 or text[4] != "-" or text[7] != "-"
            or not (text[:4] + text[5:7] + text[8:]).isdigit() or not text.isascii()):
        return None
    with suppress(ValueError):
        return dt.date(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    return None


# --------------------------------------------------------------------------- reader


@dataclass(frozen=True)
class LogRead:
    """The reader's answer: None when the folder does not exist (the phase is skipped)."""

    log: InterventionLog | None
    warnings: tuple[str, ...]


def read_interventions(home: Path) -> LogRead:
    """Read every ``*.jsonl`` file of the interventions folder, in name order. Never
    raises: a file that cannot be read whole, and its lines that are not JSON objects,
    give one warning each per file; every readable record is still counted."""
    folder = home.joinpath(*INTERVENTIONS_DIR)
    try:
        entries = sorted(entry.name for entry in os.scandir(folder))
    except FileNotFoundError:
        return LogRead(None, ())
    except NotADirectoryError:
        return LogRead(None, (f"{INTERVENTIONS_LABEL}: not a folder; not read",))
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return LogRead(None, (f"{INTERVENTIONS_LABEL}: cannot list ({reason})",))

    # Counted per raw ``ts`` date prefix while reading; turned into dates once at the end.
    by_key: dict[object, list[int]] = {}
    warnings: list[str] = []
    for name in entries:
        if not name.endswith(".jsonl"):
            continue
        label = f"{INTERVENTIONS_LABEL}/{name}"
        data, problem = read_user_bytes(folder / name, label)
        if data is not None:
            text, problem = decode(data, label)
        if problem:
            warnings.append(problem)
        if data is None:
            continue
        bad_lines = _fold(text, by_key)
        if bad_lines:
            warnings.append(f"{label}: {line_numbers(bad_lines)} not a JSON object; skipped")

    counts: dict[dt.date | None, list[int]] = {}
    for key, bucket in by_key.items():
        day = key if key is None or isinstance(key, dt.date) else iso_date(str(key)[:10])
        counts[day] = [a + b for a, b in zip(counts.get(day, [0] * len(bucket)), bucket)]
    days = tuple(
        DayCount(day, *counts[day])
        for day in sorted(counts, key=lambda d: (d is not None, d or dt.date.min))
    )
    return LogRead(InterventionLog(days), tuple(warnings))


def _fold(text: str, by_key: dict[object, list[int]]) -> list[int]:
    """Count one file's records into ``by_key``: [total, rejections, tagged, labelled,
    false positives] per day key (a string ``ts``'s first ten characters, else the
    record's date, or None). Returns the numbers of the lines that are not exactly one
    JSON object.
    """
    import json

    decoder = json.JSONDecoder()
    bad: list[int] = []
    for number, line in enumerate(text.split("\n"), 1):
        value: object = None
        try:
            if line.startswith("{"):
                value, end = decoder.raw_decode(line)
                if line[end:].strip():
                    raise ValueError("the line holds more than the object")
            elif not line.strip():
                continue
            else:
                value = json.loads(line)
        except (ValueError, RecursionError):
            bad.append(number)
            continue
        if not isinstance(value, dict):
            bad.append(number)
            continue
        ts = value.get("ts")
        key: object = (ts[:10] if "date" not in value and isinstance(ts, str)
                       else record_date(value))
        bucket = by_key.setdefault(key, [0, 0, 0, 0, 0])
        bucket[0] += 1
        if value.get("type") == "rejection":
            bucket[1] += 1
        model = value.get("model")
        if model is not None and model != "":
            bucket[2] += 1
        if "false_positive" in value:
            bucket[3] += 1
            if value["false_positive"] is True:
                bucket[4] += 1
    return bad


def line_numbers(numbers: Sequence[int]) -> str:
    """``line 4`` / ``lines 4, 9, 12 and 2 more``."""
    more = f" and {len(numbers) - 3} more" if len(numbers) > 3 else ""
    noun = "line" if len(numbers) == 1 else "lines"
    return f"{noun} {', '.join(str(n) for n in numbers[:3])}{more}"


def read_user_bytes(path: Path, label: str) -> tuple[bytes | None, str | None]:
    """A user file's bytes (at most ``MAX_FILE_BYTES``) and at most one warning: missing
    → (None, None); refused by ``files.read_outside_git`` (a link into a git directory, a
    folder, a pipe or a device), larger or unreadable → (None, warning)."""
    data, problem = files.read_outside_git(str(path), MAX_FILE_BYTES, name=label)
    return data, problem_line(label, problem)


def problem_line(label: str, problem: str | None) -> str | None:
    """A refusal from ``files`` (``<label> is ...``) as a summary warning (``<label>: ...``)."""
    if problem is None:
        return None
    if problem.startswith(label + " "):
        return f"{label}: {problem[len(label) + 1:]}"
    return f"{label}: {problem.replace(' ' + label, '')}"


def decode(data: bytes, label: str) -> tuple[str, str | None]:
    """Bytes as text, bad UTF-8 replaced (U+FFFD) with one warning; a leading BOM dropped."""
    problem: str | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        problem = (f"{label}: not valid UTF-8 (first bad byte at offset {exc.start});"
                   " bad bytes replaced")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, problem
