"""The handoff, ``memory/session-handoff-LATEST.md``: a YAML frontmatter, then an optional
``<!-- state-snapshot v1 -->`` marker and its YAML block (fenced, or bare lines up to a
blank one), then prose sections.

The reader parses, then reads what it says in one pass (``read``) into one
``HandoffReading``; ``phases`` only decides with that record."""

from __future__ import annotations

import datetime as dt
import re
from calendar import timegm
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from lets_hooks.state import TRUST_LEVELS
from lets_hooks.summary import checkpoint, prose
from lets_hooks.summary.interventions import iso_date
from lets_hooks.summary.records import Handoff, HandoffDate, HandoffReading, LastRange, Read
from lets_hooks.summary.sources.references import (
    function_references,
    spelled_path_references,
)
from lets_hooks.summary.sources.text import lines_of, read_project_text, sections

HANDOFF = checkpoint.HANDOFF


def read_handoff(root: Path, git_dir: str | None = None) -> Read[Handoff]:
    raw = read_project_text(root, HANDOFF, git_dir)
    if raw.value is None:
        return Read(None, raw.warnings)
    lines = lines_of(raw.value)
    # where the parts are, and the block's values: the checkpoint's own schema
    where = checkpoint.layout(lines)
    warnings = [*raw.warnings, *where.problems]
    body = lines[where.body:]
    snapshot: Mapping[str, object] | None = None
    prose_lines = body
    if where.marker is not None:
        snapshot, problems = checkpoint.parse_block(where)
        warnings.extend(problems)
        prose_lines = lines[where.body:where.marker] + lines[where.after:]
    text = "\n".join(body)
    handoff = Handoff(where.frontmatter, snapshot, sections(prose_lines), text, not text.strip())
    reading = replace(read(handoff), last_range=last_range(lines, where.body))
    return Read(replace(handoff, reading=reading), tuple(warnings))


def last_range(lines: Sequence[str], body: int) -> LastRange | None:
    """The previous session's range: the ``SESSION_`` lines of the Range block the
    checkpoint owns (``checkpoint.range_lines``, the one place that knows where it puts
    them); None when there is no such block, or its four values are not the ladder's."""
    section = checkpoint.range_lines(lines, body)
    if section is None:
        return None
    values = dict(line.partition("=")[::2] for line in section)
    boundary, trust, commits, desc = (values.get(key[:-1], "") for key in checkpoint.RANGE_KEYS)
    desc = desc.strip()
    if (trust not in TRUST_LEVELS or not desc
            or not (boundary == "none" or re.fullmatch(r"[0-9a-f]{4,64}", boundary))
            or not (commits == "unknown" or commits.isdigit())):
        return None
    return LastRange(boundary, trust, commits, desc)


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
    # the snapshot read as the checkpoint writes it
    next_items, changes, blocked = (checkpoint.item_texts(snapshot) if snapshot is not None
                                    else ([], [], []))
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
        said = [prose.diff_claim_text(item) for item in checkpoint.as_items(snapshot.get("diff"))]
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


# --------------------------------------------------------------------------- its own date

DATE_KEYS = ("ts", "timestamp", "date", "updated", "last_updated", "last-updated",
             "written", "created")


def handoff_date(handoff: Handoff) -> HandoffDate | None:
    """The newest date the handoff gives for itself: its frontmatter's ``ts``, ``date``,
    ``updated`` (and the like) or its state-snapshot's ``ts``; a value with a time of day
    beats one with only the same day."""
    found = [_parse_when(mapping[key], f"{where} {key}")
             for where, mapping in (("frontmatter", handoff.frontmatter),
                                    ("state-snapshot", handoff.snapshot))
             if mapping is not None for key in DATE_KEYS if key in mapping]
    return max((date for date in found if date is not None),
               key=lambda d: (d.day, d.instant is not None, d.instant or 0.0), default=None)


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
        with suppress(ValueError):
            return _instant(dt.datetime.fromisoformat(stamp), source)
    return HandoffDate(day, None, day.isoformat(), source)


def date_floor(date: HandoffDate) -> int:
    """The first second a commit after the handoff can have: its time, else its day's
    start (UTC)."""
    return int(date.instant) if date.instant is not None else timegm(date.day.timetuple())


def _instant(value: dt.datetime, source: str) -> HandoffDate:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
    utc = aware.astimezone(dt.timezone.utc)
    return HandoffDate(utc.date(), utc.timestamp(), utc.strftime("%Y-%m-%d %H:%M UTC"), source)
