"""The context log, ``memory/context-log.md``: append-only entries
``## [YYYY-MM-DD][TYPE][ttl:Nd][ref:N] title``. Writers vary, so blanks between the tags,
tags in another order and extra tags (``[risk:H]``) are read too; the date and ``ref`` are
required. Every ``##`` line outside fenced code is an entry header (``#`` and ``###``
lines are titles and sub-headings)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from lets_hooks.summary.interventions import iso_date
from lets_hooks.summary.records import ContextLog, LogEntry, Read
from lets_hooks.summary.sources.text import lines_of, lines_phrase, read_project_text, unfenced

CONTEXT_LOG = "memory/context-log.md"
KEEP_SUMMARY_FROM_REF = 3  # entries with this ref or more keep their first body line

_LOG_HEADER = re.compile(r"##[ \t]*\[(\d{4}-\d{2}-\d{2})\][ \t]*((?:\[[^\]\n]*\][ \t]*)*)(.*)$")
# The form the usual writer produces; anything else takes the general pattern above
# (spaces between tags, extra tags, tags in another order).
_LOG_CANONICAL = re.compile(
    r"## \[(\d{4}-\d{2}-\d{2})\]\[([^\]\[:\n]+)\]\[ttl:\d+d\]\[ref:(\d+)\] (.*)$")
_TAG = re.compile(r"\[([^\]\n]*)\]")
_REF = re.compile(r"ref[ \t]*:[ \t]*(\d+)$", re.IGNORECASE)


def read_context_log(root: Path, git_dir: str | None = None) -> Read[ContextLog]:
    raw = read_project_text(root, CONTEXT_LOG, git_dir)
    if raw.value is None:
        return Read(None, raw.warnings)
    entries, bad = _log_by_lines(raw.value)
    warnings = list(raw.warnings)
    if bad:
        warnings.append(f"{CONTEXT_LOG}: {lines_phrase(bad)} an entry header without a readable"
                        " [YYYY-MM-DD] date and [ref:N]; not counted as entries")
    return Read(ContextLog(tuple(entries)), tuple(warnings))


def _log_by_lines(text: str) -> tuple[list[LogEntry], list[int]]:
    """(entries, lines of unreadable headers); an entry whose ref is
    ``KEEP_SUMMARY_FROM_REF`` or more gets its first body line as its summary."""
    entries: list[LogEntry] = []
    bad: list[int] = []
    pending: LogEntry | None = None  # an entry whose summary line is still to come
    for number, line in ((index + 1, line) for index, line in unfenced(lines_of(text))):
        if line[:1] == "#":
            if not line.startswith("##") or line.startswith("###"):
                continue  # a title, or a sub-heading inside an entry
            if pending is not None:
                entries.append(pending)
                pending = None
            entry = _log_entry(line, number)
            if entry is None:
                bad.append(number)
            elif entry.ref >= KEEP_SUMMARY_FROM_REF:
                pending = entry
            else:
                entries.append(entry)
            continue
        if pending is not None and line.strip():
            entries.append(replace(pending, summary=line.strip()))
            pending = None
    if pending is not None:
        entries.append(pending)
    return entries, bad


def _log_entry(line: str, number: int) -> LogEntry | None:
    canonical = _LOG_CANONICAL.match(line)
    if canonical is not None:
        date_text, kind_text, ref_text, title = canonical.groups()
        day = iso_date(date_text)
        if day is None:
            return None
        return LogEntry(day, kind_text.strip(), int(ref_text), title.strip(), None, number)
    match = _LOG_HEADER.match(line)
    if match is None:
        return None
    day = iso_date(match.group(1))
    if day is None:
        return None
    kind: str | None = None
    ref: int | None = None
    for tag in _TAG.findall(match.group(2)):
        tag = tag.strip()
        ref_match = _REF.match(tag)
        if ref_match:
            ref = int(ref_match.group(1))
        elif kind is None and tag and ":" not in tag:  # (a ttl:Nd tag is read past)
            kind = tag
    if ref is None:
        return None
    return LogEntry(day, kind, ref, match.group(3).strip(), None, number)
