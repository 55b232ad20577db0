"""One reader per input file of the session-start summary.

Each reader takes the folder it reads from and returns a ``Read``: the file's content as
plain records (``None`` when the file does not exist, so its phase is skipped) and a
tuple of one-line warnings. Readers never raise on bad input: an unreadable, oversized,
non-UTF-8 or malformed file becomes a warning, and whatever could be read is still
returned. Readers parse; they do not decide anything (that is ``phases``).

Files are named in warnings the way the user knows them (``memory/MEMORY.md``,
``~/.claude/settings.json``), never by absolute path, so the output does not depend on
where the project lives.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

from lets_hooks.observability import LogRead, iso_date, read_capped, read_interventions

T = TypeVar("T")

HANDOFF = "memory/session-handoff-LATEST.md"
LESSONS = "tasks/lessons.md"
CONTEXT_LOG = "memory/context-log.md"
MEMORY_INDEX = "memory/MEMORY.md"
STATE = ".claude/STATE.md"
SETTINGS = ".claude/settings.json"
LOCAL_SETTINGS = ".claude/settings.local.json"
MODEL_LEDGER = ".claude/memory/model-diff-ledger.md"

__all__ = [
    "CONTEXT_LOG", "HANDOFF", "LESSONS", "MEMORY_INDEX", "STATE", "AllowList", "ContextLog",
    "Gate", "Handoff", "Lesson", "LessonsFile", "LogEntry", "LogRead", "MemoryIndex",
    "MemorySection", "ModelLedger", "ModelSetting", "Read", "Section", "StateFile",
    "check_paths", "home_label", "read_context_log", "read_handoff", "read_interventions",
    "read_lessons", "read_local_settings", "read_memory_index", "read_model_ledger",
    "read_settings", "read_state", "read_text",
]


@dataclass(frozen=True)
class Read(Generic[T]):
    """A reader's answer: the records (None when the file is absent) and its warnings."""

    value: T | None
    warnings: tuple[str, ...] = ()


def home_label(relative: str) -> str:
    return "~/" + relative


# --------------------------------------------------------------------------- raw text


def read_text(path: Path, label: str, within: Path | None = None) -> Read[str]:
    """A file's text, bounded: at most ``MAX_FILE_BYTES`` are ever read.

    Missing → ``Read(None)`` silently. Larger than the limit, not a regular file (a
    folder, a named pipe), or unreadable → ``Read(None, (warning,))``. Not valid UTF-8 →
    the text with the bad bytes replaced (U+FFFD) and a warning. A leading byte-order
    mark is dropped. With ``within`` (a project's files), a symbolic link that leads out
    of that folder is refused: a cloned repository must not make the summary print, say,
    a key from the user's home.
    """
    if within is not None and os.path.lexists(path):
        real, fence = os.path.realpath(path), os.path.realpath(within)
        if real != fence and not real.startswith(fence.rstrip(os.sep) + os.sep):
            return Read(None, (f"{label}: a symbolic link to a file outside the project;"
                               " not read",))
    data, problem = read_capped(path, label)
    if data is None:
        return Read(None, (problem,) if problem else ())
    warnings: tuple[str, ...] = ()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        warnings = (f"{label}: not valid UTF-8 (first bad byte at offset {exc.start});"
                    " bad bytes replaced",)
    if text.startswith("\ufeff"):
        text = text[1:]
    return Read(text, warnings)


def _lines(text: str) -> list[str]:
    """Split on newlines only (``str.splitlines`` also splits on form feeds and U+2028)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _fence(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("```") or stripped.startswith("~~~")


# --------------------------------------------------------------------------- markdown sections

# An ATX heading; a closing run of "#" is dropped only after a space ("## C#" keeps it).
_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


@dataclass(frozen=True)
class Section:
    """A markdown heading and the lines up to the next heading (fenced code kept whole)."""

    heading: str
    level: int
    lines: tuple[str, ...]


def _sections(lines: Sequence[str]) -> tuple[Section, ...]:
    """Split at every heading outside fenced code; text before the first heading is a
    level-0 section with an empty heading."""
    found: list[Section] = []
    heading, level = "", 0
    body: list[str] = []
    in_fence = False
    for line in lines:
        if _fence(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            match = _HEADING.match(line)
            if match:
                if heading or any(part.strip() for part in body):
                    found.append(Section(heading, level, tuple(body)))
                heading, level, body = match.group(2), len(match.group(1)), []
                continue
        body.append(line)
    if heading or any(part.strip() for part in body):
        found.append(Section(heading, level, tuple(body)))
    return tuple(found)


# --------------------------------------------------------------------------- YAML


def _load_yaml(text: str) -> object:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # a safe loader, chosen above


def _yaml_problem(exc: Exception, first_line: int) -> str:
    """One line about a YAML failure, with the file's line number when known."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if not isinstance(problem, str) or not problem:
        message = str(exc).strip()
        problem = message.splitlines()[0] if message else type(exc).__name__
    where = ""
    if mark is not None and isinstance(getattr(mark, "line", None), int):
        where = f" at line {first_line + mark.line}"
    detail = f": {problem}" if problem else ""
    return f"not valid YAML{where}{detail}"


def _too_big(value: object, budget: int = 20_000) -> bool:
    """True when walking ``value`` visits more than ``budget`` nodes (YAML aliases can
    make a small document expand without end when converted)."""
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > budget:
            return True
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


def _parse_yaml(text: str, label: str, what: str, first_line: int
                ) -> tuple[object, str | None]:
    try:
        value = _load_yaml(text)
    except Exception as exc:  # yaml.YAMLError, and ValueError for impossible dates
        return None, f"{label}: {what} {_yaml_problem(exc, first_line)}; ignored"
    if _too_big(value):
        return None, f"{label}: {what} is too large once its aliases are expanded; ignored"
    return value, None


# --------------------------------------------------------------------------- handoff

_SNAPSHOT_MARKER = re.compile(r"\s*<!--\s*state-snapshot\s+v1\s*-->\s*$")


@dataclass(frozen=True)
class Handoff:
    """The handoff: frontmatter, the state-snapshot mapping (None when there is no usable
    block) and the prose sections. ``empty`` when nothing but whitespace (and perhaps a
    frontmatter) is in the file. ``text`` is the body (snapshot and prose) as written."""

    frontmatter: Mapping[str, object] | None
    snapshot: Mapping[str, object] | None
    sections: tuple[Section, ...]
    text: str
    empty: bool


def _frontmatter(lines: Sequence[str], label: str
                 ) -> tuple[Mapping[str, object] | None, int, list[str]]:
    """(frontmatter mapping, index of the first body line, warnings)."""
    if not lines or lines[0].strip() != "---":
        return None, 0, []
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            value, problem = _parse_yaml("\n".join(lines[1:index]), label, "frontmatter", 2)
            if problem:
                return None, index + 1, [problem]
            if value is None:
                return {}, index + 1, []
            if not isinstance(value, Mapping):
                return None, index + 1, [f"{label}: frontmatter is not a mapping; ignored"]
            return dict(value), index + 1, []
    return None, 0, [f"{label}: frontmatter has no closing '---'; read as prose"]


def read_handoff(root: Path) -> Read[Handoff]:
    label = HANDOFF
    raw = read_text(root / HANDOFF, label, within=root)
    if raw.value is None:
        return Read(None, raw.warnings)
    warnings = list(raw.warnings)
    lines = _lines(raw.value)
    frontmatter, start, problems = _frontmatter(lines, label)
    warnings.extend(problems)

    body = list(lines[start:])
    snapshot: Mapping[str, object] | None = None
    prose = body
    marker = next((i for i, line in enumerate(body) if _SNAPSHOT_MARKER.match(line)), None)
    if marker is not None:
        block, after, problem = _snapshot_block(body, marker)
        if problem:
            warnings.append(f"{label}: {problem}")
        if block is not None:
            first, yaml_lines = block
            value, yaml_problem = _parse_yaml("\n".join(yaml_lines), label,
                                              "state-snapshot block", start + first + 1)
            if yaml_problem:
                warnings.append(yaml_problem)
            elif not isinstance(value, Mapping):
                warnings.append(f"{label}: state-snapshot block is not a mapping; ignored")
            else:
                snapshot = dict(value)
                if "next" not in snapshot:
                    warnings.append(f"{label}: state-snapshot block has no 'next'")
        prose = body[:marker] + body[after:]

    text = "\n".join(body)
    empty = not text.strip()
    return Read(Handoff(frontmatter, snapshot, _sections(prose), text, empty), tuple(warnings))


def _snapshot_block(body: Sequence[str], marker: int
                    ) -> tuple[tuple[int, list[str]] | None, int, str | None]:
    """The YAML lines after the marker: a fenced block, or bare lines up to a blank one.

    Returns ((index of the first YAML line, the YAML lines) or None, index of the first
    line after the block, problem).
    """
    index = marker + 1
    while index < len(body) and not body[index].strip():
        index += 1
    if index >= len(body):
        return None, index, "state-snapshot marker with no block after it"
    opener = body[index].strip()
    if opener.startswith("```") or opener.startswith("~~~"):
        fence = opener[:3]
        for end in range(index + 1, len(body)):
            closer = body[end].strip()
            if closer.startswith(fence) and not closer[3:].strip():
                return (index + 1, list(body[index + 1:end])), end + 1, None
        return None, len(body), "state-snapshot block has no closing fence; ignored"
    end = index
    while end < len(body) and body[end].strip():
        end += 1
    return (index, list(body[index:end])), end, None


# --------------------------------------------------------------------------- lessons

_LESSON = re.compile(r"###[ \t]+\[(\d{4}-\d{2}-\d{2})\][ \t]*(.*)$")
_GATES = re.compile(r"##[ \t]+.*graduated gates", re.IGNORECASE)
_META_KEYS = ("conf", "seen", "obs", "model")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_MODEL_LINE = re.compile(r"\s*(?:[-*>][ \t]*)?model:[ \t]*(\S.*?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Gate:
    id: str
    trigger: str
    check: str


@dataclass  # not frozen, like LogEntry: there may be thousands
class Lesson:
    """One ``### [YYYY-MM-DD] title`` lesson. ``has_meta`` is False for a legacy lesson
    (no readable metadata line); ``summary`` is the first line of its body."""

    date: dt.date
    title: str
    conf: float | None
    seen: dt.date | None
    obs: int | None
    model: str | None
    summary: str | None
    has_meta: bool
    line: int


@dataclass(frozen=True)
class LessonsFile:
    gates: tuple[Gate, ...] | None  # None: no Graduated Gates section
    lessons: tuple[Lesson, ...]


def read_lessons(root: Path) -> Read[LessonsFile]:
    label = LESSONS
    raw = read_text(root / LESSONS, label, within=root)
    if raw.value is None:
        return Read(None, raw.warnings)
    warnings = list(raw.warnings)
    lines = _lines(raw.value)

    gates: list[Gate] | None = None
    gate_rows: list[tuple[int, str]] = []
    lessons: list[Lesson] = []
    bad_meta: list[int] = []
    bad_dates: list[int] = []
    in_gates = in_fence = False
    current: _LessonDraft | None = None

    for number, line in enumerate(lines, 1):
        first = line[:1]
        if first and first in "`~ \t" and _fence(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue  # code inside a lesson is neither its summary nor its metadata
        if first != "#":
            if in_gates and line.lstrip().startswith("|"):
                gate_rows.append((number, line))
            elif current is not None:
                current.add(line, number, bad_meta)
            continue
        # any heading ends the current lesson and the gates section
        if current is not None:
            lessons.append(current.done())
            current = None
        in_gates = False
        if _GATES.match(line):
            in_gates = True
            gates = gates or []
            continue
        match = _LESSON.match(line)
        if match:
            day = iso_date(match.group(1))
            if day is None:
                bad_dates.append(number)
                continue
            current = _LessonDraft(day, match.group(2).strip(), number)
    if current is not None:
        lessons.append(current.done())

    if gates is not None:
        parsed, problem = _gate_table(gate_rows)
        gates = parsed
        if problem:
            warnings.append(f"{label}: Graduated Gates {problem}")
    if bad_meta:
        warnings.append(f"{label}: {_lines_phrase(bad_meta)} metadata that cannot be read;"
                        " read as legacy lessons")
    if bad_dates:
        warnings.append(f"{label}: {_lines_phrase(bad_dates)} a lesson header with an"
                        " impossible date; skipped")
    return Read(LessonsFile(None if gates is None else tuple(gates), tuple(lessons)),
                tuple(warnings))


class _LessonDraft:
    """A lesson being read, line by line."""

    def __init__(self, day: dt.date, title: str, line: int) -> None:
        self.day, self.title, self.line = day, title, line
        self.meta: dict[str, object] = {}
        self.has_meta = False
        self.model: str | None = None
        self.summary: str | None = None
        self.body_lines = 0

    def add(self, line: str, number: int, bad_meta: list[int]) -> None:
        stripped = line.strip()
        if not stripped:
            return
        self.body_lines += 1
        if self.body_lines == 1 and stripped.startswith(">") and _looks_like_meta(stripped):
            meta = _parse_meta(stripped.lstrip(">").strip())
            if meta is None:
                bad_meta.append(number)
            else:
                self.meta, self.has_meta = meta, True
            return
        model = _MODEL_LINE.match(line) if ":" in line else None
        if model:
            self.model = model.group(1)
            return
        if self.summary is None:
            text = _LIST_MARK.sub("", stripped.lstrip(">").strip())
            self.summary = text or None

    def done(self) -> Lesson:
        conf, seen, obs, model = (self.meta.get(key) for key in _META_KEYS)
        return Lesson(
            date=self.day, title=self.title,
            conf=conf if isinstance(conf, float) else None,
            seen=seen if isinstance(seen, dt.date) else None,
            obs=obs if isinstance(obs, int) else None,
            model=self.model or (model if isinstance(model, str) else None),
            summary=self.summary, has_meta=self.has_meta, line=self.line,
        )


def _lines_phrase(numbers: Sequence[int]) -> str:
    """``line 4 has`` / ``lines 4, 9 and 2 more have``."""
    shown = ", ".join(str(n) for n in numbers[:3])
    more = f" and {len(numbers) - 3} more" if len(numbers) > 3 else ""
    if len(numbers) == 1:
        return f"line {shown} has"
    return f"lines {shown}{more} have"


_META_HINT = re.compile(r"(?<![\w-])(?:conf|seen|obs)\s*:")
_META_SPLIT = re.compile(r"\s*[·|]\s*")


def _looks_like_meta(line: str) -> bool:
    return _META_HINT.search(line) is not None


def _parse_meta(text: str) -> dict[str, object] | None:
    """``conf: 0.7 · seen: 2026-11-20 · obs: 3 [· model: NAME]`` → fields; None if bad."""
    found: dict[str, object] = {}
    for part in _META_SPLIT.split(text):
        if not part:
            continue
        key, colon, value = part.partition(":")
        key, value = key.strip().lower(), value.strip()
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
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
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
        return gates, f"table: {_lines_phrase(short)} too few cells; skipped"
    return gates, None


# --------------------------------------------------------------------------- context log

_LOG_HEADER = re.compile(r"##[ \t]*\[(\d{4}-\d{2}-\d{2})\][ \t]*((?:\[[^\]\n]*\][ \t]*)*)(.*)$")
# The form the usual writer produces, parsed in one step; anything else takes the
# general path above (spaces between tags, extra tags, tags in another order).
_LOG_CANONICAL = re.compile(
    r"## \[(\d{4}-\d{2}-\d{2})\]\[([^\]\[:\n]+)\]\[ttl:(\d+)d\]\[ref:(\d+)\] (.*)$")
_TAG = re.compile(r"\[([^\]\n]*)\]")
_REF = re.compile(r"ref[ \t]*:[ \t]*(\d+)$", re.IGNORECASE)
_TTL = re.compile(r"ttl[ \t]*:[ \t]*(\d+)[ \t]*d?$", re.IGNORECASE)


@dataclass  # not frozen: a log holds thousands, and a frozen __init__ is 4x slower
class LogEntry:
    date: dt.date
    type: str | None
    ttl_days: int | None
    ref: int
    title: str
    summary: str | None  # first body line; kept only for entries with ref >= 3
    line: int


@dataclass(frozen=True)
class ContextLog:
    headers: int  # every level-2 heading, readable or not
    entries: tuple[LogEntry, ...]


def read_context_log(root: Path, keep_summary_from_ref: int = 3) -> Read[ContextLog]:
    label = CONTEXT_LOG
    raw = read_text(root / CONTEXT_LOG, label, within=root)
    if raw.value is None:
        return Read(None, raw.warnings)
    text = raw.value
    if "```" in text or "~~~" in text:
        headers, entries, bad = _log_by_lines(text, keep_summary_from_ref)
    else:  # no fenced code to step over: let the regex engine find the headers
        headers, entries, bad = _log_by_headers(text, keep_summary_from_ref)
    warnings = list(raw.warnings)
    if bad:
        warnings.append(f"{label}: {_lines_phrase(bad)} an entry header without a readable"
                        " [YYYY-MM-DD] date and [ref:N]; not counted as entries")
    return Read(ContextLog(headers, tuple(entries)), tuple(warnings))


def _log_by_lines(text: str, keep: int) -> tuple[int, list[LogEntry], list[int]]:
    """Every ``##`` line outside fenced code is an entry header (``#`` and ``###`` lines
    are titles and sub-headings); an entry kept with a summary gets its first body line."""
    headers = 0
    entries: list[LogEntry] = []
    bad: list[int] = []
    in_fence = False
    pending: LogEntry | None = None  # an entry whose summary line is still to come
    dates: dict[str, dt.date | None] = {}
    for number, line in enumerate(_lines(text), 1):
        first = line[:1]
        if first and first in "`~ \t" and _fence(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if first == "#":
            if not line.startswith("##") or line.startswith("###"):
                continue  # a title, or a sub-heading inside an entry
            headers += 1
            if pending is not None:
                entries.append(pending)
                pending = None
            entry = _log_entry(line, number, dates)
            if entry is None:
                bad.append(number)
            elif entry.ref >= keep:
                pending = entry
            else:
                entries.append(entry)
            continue
        if pending is not None and line.strip():
            entries.append(replace(pending, summary=line.strip()))
            pending = None
    if pending is not None:
        entries.append(pending)
    return headers, entries, bad


_LOG_HEADER_LINE = re.compile(r"^##(?!#)[^\n]*", re.MULTILINE)


def _log_by_headers(text: str, keep: int) -> tuple[int, list[LogEntry], list[int]]:
    """``_log_by_lines`` for a log without fenced code, visiting only the header lines
    (a large log is mostly body text). The two agree on every such log (tested)."""
    matches = list(_LOG_HEADER_LINE.finditer(text))
    entries: list[LogEntry] = []
    bad: list[int] = []
    dates: dict[str, dt.date | None] = {}
    number, counted_to = 1, 0
    for index, match in enumerate(matches):
        number += text.count("\n", counted_to, match.start())
        counted_to = match.start()
        line = match.group()
        entry = _log_entry(line[:-1] if line.endswith("\r") else line, number, dates)
        if entry is None:
            bad.append(number)
            continue
        if entry.ref >= keep:
            end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
            summary = _first_body_line(text[match.end():end])
            if summary is not None:
                entry = replace(entry, summary=summary)
        entries.append(entry)
    return len(matches), entries, bad


def _first_body_line(body: str) -> str | None:
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped and not line.startswith("#"):
            return stripped
    return None


def _day(text: str, dates: dict[str, dt.date | None]) -> dt.date | None:
    """``YYYY-MM-DD`` → date (None when impossible), through a per-file cache."""
    if text in dates:
        return dates[text]
    day = dates[text] = iso_date(text)
    return day


def _log_entry(line: str, number: int, dates: dict[str, dt.date | None]) -> LogEntry | None:
    canonical = _LOG_CANONICAL.match(line)
    if canonical is not None:
        date_text, kind_text, ttl_text, ref_text, title = canonical.groups()
        day = dates[date_text] if date_text in dates else _day(date_text, dates)
        if day is None:
            return None
        return LogEntry(day, kind_text.strip(), int(ttl_text), int(ref_text), title.strip(),
                        None, number)
    match = _LOG_HEADER.match(line)
    if match is None:
        return None
    day = _day(match.group(1), dates)
    if day is None:
        return None
    kind: str | None = None
    ttl: int | None = None
    ref: int | None = None
    for tag in _TAG.findall(match.group(2)):
        tag = tag.strip()
        ref_match = _REF.match(tag)
        if ref_match:
            ref = int(ref_match.group(1))
            continue
        ttl_match = _TTL.match(tag)
        if ttl_match:
            ttl = int(ttl_match.group(1))
            continue
        if kind is None and tag and ":" not in tag:
            kind = tag
    if ref is None:
        return None
    return LogEntry(day, kind, ttl, ref, match.group(3).strip(), None, number)


# --------------------------------------------------------------------------- MEMORY.md

_MEMORY_TAG = re.compile(r"<!--\s*#(always|on-demand)\s*-->", re.IGNORECASE)


@dataclass(frozen=True)
class MemorySection:
    title: str  # the heading text without its tag
    level: int
    tag: str  # "always", "on-demand" or "" (untagged)
    text: str  # the heading line and body as written, trailing blank lines dropped


@dataclass(frozen=True)
class MemoryIndex:
    text: str
    sections: tuple[MemorySection, ...]
    tagged: bool  # any section carries a tag


def read_memory_index(root: Path) -> Read[MemoryIndex]:
    raw = read_text(root / MEMORY_INDEX, MEMORY_INDEX, within=root)
    if raw.value is None:
        return Read(None, raw.warnings)
    return Read(parse_memory_index(raw.value), raw.warnings)


def parse_memory_index(text: str) -> MemoryIndex:
    """Sections that begin at a heading; a tagged section runs to the next heading of the
    same or a higher level, or to the next tagged heading."""
    lines = _lines(text)
    starts: list[tuple[int, int, str, str]] = []  # (index, level, tag, title)
    in_fence = False
    for index, line in enumerate(lines):
        if _fence(line):
            in_fence = not in_fence
            continue
        if in_fence or not line.startswith("#"):
            continue
        match = _HEADING.match(line)
        if not match:
            continue
        tag_match = _MEMORY_TAG.search(match.group(2))
        tag = tag_match.group(1).lower() if tag_match else ""
        title = _MEMORY_TAG.sub("", match.group(2)).strip()
        starts.append((index, len(match.group(1)), tag, title))
    sections: list[MemorySection] = []
    for position, (index, level, tag, title) in enumerate(starts):
        end = len(lines)
        for later_index, later_level, later_tag, _ in starts[position + 1:]:
            if later_level <= level or (tag and later_tag):
                end = later_index
                break
        body = list(lines[index:end])
        while body and not body[-1].strip():
            body.pop()
        sections.append(MemorySection(title, level, tag, "\n".join(body)))
    return MemoryIndex(text, tuple(sections), any(s.tag for s in sections))


# --------------------------------------------------------------------------- ~/.claude files


@dataclass(frozen=True)
class StateFile:
    sections: tuple[Section, ...]


def read_state(home: Path) -> Read[StateFile]:
    label = home_label(STATE)
    raw = read_text(home / STATE, label)
    if raw.value is None:
        return Read(None, raw.warnings)
    lines = _lines(raw.value)
    if lines and lines[0].strip() == "---":  # a frontmatter is not part of the state
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                lines = lines[index + 1:]
                break
    return Read(StateFile(_sections(lines)), raw.warnings)


@dataclass(frozen=True)
class ModelSetting:
    present: bool  # the settings file has a "model" key
    value: object  # as parsed from JSON


@dataclass(frozen=True)
class AllowList:
    count: int  # entries in permissions.allow (0 when there is none)


def _read_json_object(path: Path, label: str) -> tuple[dict[str, object] | None, list[str]]:
    raw = read_text(path, label)
    if raw.value is None:
        return None, list(raw.warnings)
    import json

    warnings = list(raw.warnings)
    try:
        value = json.loads(raw.value)
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            where = f" at line {exc.lineno} column {exc.colno}: {exc.msg}"
        warnings.append(f"{label}: not valid JSON{where}; check skipped")
        return None, warnings
    except RecursionError:
        warnings.append(f"{label}: nested too deeply to read; check skipped")
        return None, warnings
    if not isinstance(value, dict):
        warnings.append(f"{label}: top level is not a JSON object; check skipped")
        return None, warnings
    return value, warnings


def read_settings(home: Path) -> Read[ModelSetting]:
    data, warnings = _read_json_object(home / SETTINGS, home_label(SETTINGS))
    if data is None:
        return Read(None, tuple(warnings))
    return Read(ModelSetting("model" in data, data.get("model")), tuple(warnings))


def read_local_settings(home: Path) -> Read[AllowList]:
    label = home_label(LOCAL_SETTINGS)
    data, warnings = _read_json_object(home / LOCAL_SETTINGS, label)
    if data is None:
        return Read(None, tuple(warnings))
    permissions = data.get("permissions")
    allow: object = permissions.get("allow") if isinstance(permissions, dict) else None
    if allow is None:
        return Read(AllowList(0), tuple(warnings))
    if not isinstance(allow, list):
        warnings.append(f"{label}: permissions.allow is not a list; check skipped")
        return Read(None, tuple(warnings))
    return Read(AllowList(len(allow)), tuple(warnings))


@dataclass(frozen=True)
class ModelLedger:
    last_analysis: dt.date | None


def read_model_ledger(home: Path) -> Read[ModelLedger]:
    label = home_label(MODEL_LEDGER)
    raw = read_text(home / MODEL_LEDGER, label)
    if raw.value is None:
        return Read(None, raw.warnings)
    for number, line in enumerate(_lines(raw.value), 1):
        if line.startswith("last-analysis:"):
            value = line.partition(":")[2].strip().strip("'\"")
            last = iso_date(value[:10])
            if last is not None:
                return Read(ModelLedger(last), raw.warnings)
            return Read(ModelLedger(None), (*raw.warnings, (
                f"{label}: line {number}: last-analysis is not a YYYY-MM-DD date; ignored")))
    return Read(ModelLedger(None), raw.warnings)


# --------------------------------------------------------------------------- the tree


@dataclass(frozen=True)
class PathCheck:
    """Which referenced paths exist (``~/`` paths under home, the rest under root)."""

    exists: Mapping[str, bool] = field(default_factory=dict)


def check_paths(root: Path, home: Path, references: Iterable[str]) -> PathCheck:
    found: dict[str, bool] = {}
    for reference in references:
        base, rest = (home, reference[2:]) if reference.startswith("~/") else (root, reference)
        try:
            found[reference] = os.path.lexists(base / rest)
        except (OSError, ValueError):
            found[reference] = True  # cannot tell: do not raise an alarm
    return PathCheck(found)
