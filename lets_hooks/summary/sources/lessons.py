"""The lessons file, ``tasks/lessons.md``: a ``## Graduated Gates`` table (columns id,
trigger, check) and lessons as ``### [YYYY-MM-DD] title`` headers, each with an optional
metadata line ``> conf: 0.7 · seen: 2026-11-20 · obs: 3`` as its first line (writers may
append ``· model: NAME``; a ``model:`` tag may also stand on a line of its own).

Metadata anywhere but the first line of a lesson, and a ``###`` header without a date,
are said in one warning each, never silently read another way.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from pathlib import Path

from lets_hooks.summary.interventions import iso_date
from lets_hooks.summary.records import Gate, Lesson, LessonsFile, Read
from lets_hooks.summary.sources.text import lines_of, lines_phrase, read_project_text, unfenced

LESSONS = "tasks/lessons.md"

_LESSON = re.compile(r"###[ \t]+\[(\d{4}-\d{2}-\d{2})\][ \t]*(.*)$")
_META_KEYS = ("conf", "seen", "obs", "model")
_LIST_MARK = re.compile(r"(?:[-*+]|\d+[.)])\s+")
_META_HINT = re.compile(r"(?<![\w-])(?:conf|seen|obs)\s*:")


def is_gates_heading(line: str) -> bool:
    """``## ... Graduated Gates ...`` (any case), a level-2 heading only."""
    return (line.startswith("##") and line[2:3] in (" ", "\t")
            and "graduated gates" in line[3:].lower())


def model_tag(line: str) -> str | None:
    """The value of a ``model: NAME`` line (after an optional ``-``, ``*`` or ``>``)."""
    text = line.strip()
    if text[:1] in ("-", "*", ">"):
        text = text[1:].lstrip(" \t")
    if text[:6].lower() != "model:":
        return None
    return text[6:].strip() or None


# What could not be read as written, by kind: the warning's words after the line numbers.
_PROBLEMS = {
    "bad_meta": "metadata that cannot be read; read as legacy lessons",
    "misplaced_meta": ("a metadata line that is not the first line of its lesson; ignored"
                       " (move it up)"),
    "bad_dates": "a lesson header with an impossible date; skipped",
    "undated": "a ### lesson header without a [YYYY-MM-DD] date; not read as a lesson",
}


def read_lessons(root: Path, git_dir: str | None = None) -> Read[LessonsFile]:
    raw = read_project_text(root, LESSONS, git_dir)
    if raw.value is None:
        return Read(None, raw.warnings)
    lines = lines_of(raw.value)

    has_gates = False
    gate_rows: list[tuple[int, str]] = []
    lessons: list[Lesson] = []
    problems: dict[str, list[int]] = {kind: [] for kind in _PROBLEMS}
    in_gates = False
    current: _LessonDraft | None = None

    # code inside a lesson is neither its summary nor its metadata
    for number, line in ((index + 1, line) for index, line in unfenced(lines)):
        if line[:1] != "#":
            if in_gates and line.lstrip().startswith("|"):
                gate_rows.append((number, line))
            elif current is not None:
                current.add(line, number, problems)
            continue
        # any heading ends the current lesson and the gates section
        if current is not None:
            lessons.append(current.done())
            current = None
        in_gates = False
        if is_gates_heading(line):
            in_gates = has_gates = True
            continue
        match = _LESSON.match(line)
        if match:
            day = iso_date(match.group(1))
            if day is None:
                problems["bad_dates"].append(number)
                continue
            current = _LessonDraft(day, match.group(2).strip())
        elif line.startswith("###") and line[3:4] in (" ", "\t"):
            problems["undated"].append(number)
    if current is not None:
        lessons.append(current.done())

    warnings = list(raw.warnings)
    gates: tuple[Gate, ...] | None = None
    if has_gates:
        found, problem = _gate_table(gate_rows)
        gates = tuple(found)
        if problem:
            warnings.append(f"{LESSONS}: Graduated Gates {problem}")
    warnings.extend(f"{LESSONS}: {lines_phrase(numbers)} {_PROBLEMS[kind]}"
                    for kind, numbers in problems.items() if numbers)
    return Read(LessonsFile(gates, tuple(lessons)), tuple(warnings))


class _LessonDraft:
    """A lesson being read, line by line."""

    def __init__(self, day: dt.date, title: str) -> None:
        self.day, self.title = day, title
        self.meta: dict[str, object] = {}
        self.has_meta = False
        self.model: str | None = None
        self.summary: str | None = None
        self.body_lines = 0

    def add(self, line: str, number: int, problems: dict[str, list[int]]) -> None:
        stripped = line.strip()
        if not stripped:
            return
        self.body_lines += 1
        if stripped.startswith(">") and _META_HINT.search(stripped):
            if self.body_lines > 1:
                problems["misplaced_meta"].append(number)
                return
            meta = _parse_meta(stripped.lstrip(">").strip())
            if meta is None:
                problems["bad_meta"].append(number)
            else:
                self.meta, self.has_meta = meta, True
            return
        model = model_tag(line) if ":" in line else None
        if model:
            self.model = model
            return
        if self.summary is None:
            text = stripped.lstrip(">").strip()
            mark = _LIST_MARK.match(text)
            if mark:
                text = text[mark.end():]
            self.summary = text or None

    def done(self) -> Lesson:
        conf, seen, obs, model = (self.meta.get(key) for key in _META_KEYS)
        return Lesson(
            date=self.day, title=self.title,
            conf=conf if isinstance(conf, float) else None,
            seen=seen if isinstance(seen, dt.date) else None,
            obs=obs if isinstance(obs, int) else None,
            model=self.model or (model if isinstance(model, str) else None),
            summary=self.summary, has_meta=self.has_meta,
        )


def _parse_meta(text: str) -> dict[str, object] | None:
    """``conf: 0.7 · seen: 2026-11-20 · obs: 3 [· model: NAME]`` → fields; None if bad."""
    found: dict[str, object] = {}
    for part in text.replace("|", "·").split("·"):
        key, colon, value = part.partition(":")
        key, value = key.strip().lower(), value.strip()
        if not key and not colon:
            continue
        if not colon or not value:
            return None
        try:
            if key == "conf":
                conf = float(value)
                if not 0.0 <= conf <= 1.0:
                    return None
                found["conf"] = conf
            elif key == "seen":
                seen = iso_date(value[:10])
                if seen is None:
                    return None
                found["seen"] = seen
            elif key == "obs":
                obs = int(value)
                if obs < 0:
                    return None
                found["obs"] = obs
            elif key == "model":
                found["model"] = value
        except ValueError:
            return None
    return found


def _split_row(line: str) -> list[str]:
    body = line.strip().removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _gate_table(rows: Sequence[tuple[int, str]]) -> tuple[list[Gate], str | None]:
    if not rows:
        return [], "section has no table"
    header = [cell.strip("*_` ").lower() for cell in _split_row(rows[0][1])]
    try:
        columns = [header.index(name) for name in ("id", "trigger", "check")]
    except ValueError:
        return [], "table needs id, trigger and check columns"
    gates: list[Gate] = []
    short: list[int] = []
    for number, line in rows[1:]:
        cells = _split_row(line)
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells if cell):
            continue  # the separator row
        if max(columns) >= len(cells):
            short.append(number)
            continue
        gate_id, trigger, check = (cells[i] for i in columns)
        if gate_id or trigger or check:
            gates.append(Gate(gate_id, trigger, check))
    if short:
        return gates, f"table: {lines_phrase(short)} too few cells; skipped"
    return gates, None
