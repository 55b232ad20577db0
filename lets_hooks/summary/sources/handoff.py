"""The handoff, ``memory/session-handoff-LATEST.md``: a YAML frontmatter, then an optional
``<!-- state-snapshot v1 -->`` marker and its YAML block (fenced, or bare lines up to a
blank one), then prose sections.

The reader parses, then reads what it says in one pass (``read``: the snapshot's items,
the prose's sections by their headings' meaning, approvals, its own date, the paths and
function names it mentions and what it says of them) into one ``HandoffReading``;
``phases`` only decides with that record."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from lets_hooks.summary import prose
from lets_hooks.summary.interventions import iso_date
from lets_hooks.summary.records import Handoff, HandoffDate, HandoffReading, Read
from lets_hooks.summary.sources.references import (
    function_references,
    spelled_path_references,
)
from lets_hooks.summary.sources.text import lines_of, parse_yaml, read_project_text, sections

HANDOFF = "memory/session-handoff-LATEST.md"


def is_snapshot_marker(line: str) -> bool:
    """``<!-- state-snapshot v1 -->`` alone on its line (blanks anywhere between words)."""
    text = line.strip()
    if not (text.startswith("<!--") and text.endswith("-->")) or len(text) < 7:
        return False
    return text[4:-3].split() == ["state-snapshot", "v1"]


def _frontmatter(lines: Sequence[str], label: str
                 ) -> tuple[Mapping[str, object] | None, int, list[str]]:
    """(frontmatter mapping, index of the first body line, warnings)."""
    if not lines or lines[0].strip() != "---":
        return None, 0, []
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            value, problem = parse_yaml("\n".join(lines[1:index]), label, "frontmatter", 2)
            if problem:
                return None, index + 1, [problem]
            if value is None:
                return {}, index + 1, []
            if not isinstance(value, Mapping):
                return None, index + 1, [f"{label}: frontmatter is not a mapping; ignored"]
            return dict(value), index + 1, []
    return None, 0, [f"{label}: frontmatter has no closing '---'; read as prose"]


def read_handoff(root: Path, git_dir: str | None = None) -> Read[Handoff]:
    label = HANDOFF
    raw = read_project_text(root, HANDOFF, git_dir)
    if raw.value is None:
        return Read(None, raw.warnings)
    warnings = list(raw.warnings)
    lines = lines_of(raw.value)
    frontmatter, start, problems = _frontmatter(lines, label)
    warnings.extend(problems)

    body = list(lines[start:])
    snapshot: Mapping[str, object] | None = None
    prose_lines = body
    marker = next((i for i, line in enumerate(body) if is_snapshot_marker(line)), None)
    if marker is not None:
        block, after, problem = _snapshot_block(body, marker)
        if problem:
            warnings.append(f"{label}: {problem}")
        if block is not None:
            first, yaml_lines = block
            value, yaml_problem = parse_yaml("\n".join(yaml_lines), label,
                                             "state-snapshot block", start + first + 1)
            if yaml_problem:
                warnings.append(yaml_problem)
            elif not isinstance(value, Mapping):
                warnings.append(f"{label}: state-snapshot block is not a mapping; ignored")
            else:
                snapshot = dict(value)
                if "next" not in snapshot:
                    warnings.append(f"{label}: state-snapshot block has no 'next'")
        prose_lines = body[:marker] + body[after:]

    text = "\n".join(body)
    empty = not text.strip()
    handoff = Handoff(frontmatter, snapshot, sections(prose_lines), text, empty)
    return Read(replace(handoff, reading=read(handoff)), tuple(warnings))


UNPLACED_SHOWN = 5


def unplaced_warning(headings: Sequence[str]) -> str:
    """The one line that says which sections the reader could not place (a warning of
    the summary's, not of the lint step: a heading is the writer's to choose)."""
    shown = ", ".join(f'"{heading}"' for heading in headings[:UNPLACED_SHOWN])
    more = (f" and {len(headings) - UNPLACED_SHOWN} more" if len(headings) > UNPLACED_SHOWN
            else "")
    kind, its = ("a section", "its") if len(headings) == 1 else ("sections", "their")
    return (f"{HANDOFF}: {kind} whose heading the reader cannot place: {shown}{more}; {its}"
            " items feed no line (read them in the handoff)")


def read(handoff: Handoff) -> HandoffReading:
    """What the handoff says, in one pass over its parts (see ``HandoffReading``)."""
    if handoff.empty:
        return HandoffReading()
    snapshot = handoff.snapshot
    next_items: list[str] = []
    changes: list[str] = []
    blocked: list[str] = []
    if snapshot is not None:
        next_items = prose.real_items(prose.next_item_text(item)
                                      for item in prose.as_items(snapshot.get("next")))
        changes = prose.real_items(prose.diff_item_text(item)
                                   for item in prose.as_items(snapshot.get("diff")))
        blocked = prose.real_items(prose.blocked_item_text(item)
                                   for item in prose.as_items(snapshot.get("blocked")))
    unplaced: list[str] = []
    parts = prose.parts(handoff.sections, unplaced)
    by_kind: dict[str, list[str]] = {}
    for part in parts:
        by_kind.setdefault(part.role.kind, []).extend(part.open_items)
    spelled = spelled_path_references(handoff.text)
    paths = tuple(path for path, _ in spelled)
    functions = function_references(handoff.text)
    # what the snapshot's diff says of its paths is read by the prose's rule, one
    # sentence an item ("removed a.py", "renamed a.py → b.py")
    claims = handoff.text
    if snapshot is not None:
        said = [prose.diff_claim_text(item) for item in prose.as_items(snapshot.get("diff"))]
        claims = "\n\n".join([claims, *(text for text in said if text)])
    removed, added = prose.reference_claims(
        claims, [*paths, *(text for text, _ in functions)])
    return HandoffReading(
        next_items=tuple(next_items),
        changes=tuple(changes),
        blocked=tuple(blocked),
        priorities=tuple(prose.priorities(parts)),
        decisions=tuple(by_kind.get(prose.DECISIONS, ())),
        blockers=tuple(by_kind.get(prose.BLOCKERS, ())),
        avoid=tuple(by_kind.get(prose.AVOID, ())),
        risks=tuple(by_kind.get(prose.RISKS, ())),
        done=prose.done_work(parts),
        approvals=tuple(prose.approvals(handoff.sections, (*next_items, *changes, *blocked))),
        date=handoff_date(handoff),
        paths=paths,
        functions=functions,
        said_removed=removed,
        said_added=added,
        spelled=tuple((path, written) for path, written in spelled if path != written),
        unplaced=tuple(unplaced),
    )


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


# --------------------------------------------------------------------------- its own date

DATE_KEYS = ("ts", "timestamp", "date", "updated", "last_updated", "last-updated",
             "written", "created")


def handoff_date(handoff: Handoff) -> HandoffDate | None:
    """The newest date the handoff gives for itself: its frontmatter's ``ts``, ``date``,
    ``updated`` (and the like) or its state-snapshot's ``ts``; a value with a time of day
    beats one with only the same day."""
    found: list[HandoffDate] = []
    for where, mapping in (("frontmatter", handoff.frontmatter),
                           ("state-snapshot", handoff.snapshot)):
        for key in DATE_KEYS:
            if mapping is not None and key in mapping:
                parsed = _parse_when(mapping[key], f"{where} {key}")
                if parsed is not None:
                    found.append(parsed)
    if not found:
        return None
    return max(found, key=lambda d: (d.day, d.instant is not None, d.instant or 0.0))


def _parse_when(value: object, source: str) -> HandoffDate | None:
    if isinstance(value, dt.datetime):
        return _instant(value, source)
    if isinstance(value, dt.date):
        return HandoffDate(value, None, value.isoformat(), source)
    if not isinstance(value, str):
        return None
    text = value.strip()
    day = iso_date(text[:10])
    if day is None:
        return None
    rest = text[10:].strip()
    if rest and text[10:11] in ("T", "t", " "):
        stamp = text[:10] + "T" + text[11:].strip()
        if stamp.endswith(("Z", "z")):
            stamp = stamp[:-1] + "+00:00"
        try:
            return _instant(dt.datetime.fromisoformat(stamp), source)
        except ValueError:
            pass
    return HandoffDate(day, None, day.isoformat(), source)


def date_floor(date: HandoffDate) -> int:
    """The first second a commit after the handoff can have: its time, else its day's
    start (UTC)."""
    if date.instant is not None:
        return int(date.instant)
    start = dt.datetime(date.day.year, date.day.month, date.day.day, tzinfo=dt.timezone.utc)
    return int(start.timestamp())


def _instant(value: dt.datetime, source: str) -> HandoffDate:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
    utc = aware.astimezone(dt.timezone.utc)
    return HandoffDate(utc.date(), utc.timestamp(), utc.strftime("%Y-%m-%d %H:%M UTC"), source)
