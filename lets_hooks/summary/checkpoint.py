"""The session's end: the handoff's state-snapshot block and its ``### Range`` section.

One schema, two directions: the handoff reader (``sources/handoff.py``) and
``lets-session-checkpoint`` find the frontmatter, the ``MARKER`` and its YAML block with
``layout`` and read the block with ``parse_block``; the checkpoint writes it with
``block_lines``, which reads back to the values written (``Snapshot.values``). The fields:

- ``ts``: when it was written, UTC, ``YYYY-MM-DDTHH:MM:SSZ``;
- ``ctx``: free text;
- ``next``: the next steps, in order (Priority 1 and 2 are the first two);
- ``blocked``: ``{item, risk}`` each (``--blocked "ITEM (risk: H)"``);
- ``diff``: ``{op, item, why}`` per path the session's own commits touched (``op`` one of
  added, changed, removed, renamed; ``item`` the path, ``old → new`` for a rename; ``why``
  the subject of the newest session commit that touched it), newest first, at most
  ``DIFF_CAP``, then one plain item ``and N more paths`` when more were left out.

Other keys another writer put in the block are kept, after these, on the lines they stood
on (``kept_lines``). Every value of the checkpoint's is written in one deterministic YAML
form (strings double-quoted, every character YAML could fold or refuse, or lint would
flag, escaped), so a checkpoint over its own output changes nothing but ``ts``.

What the checkpoint owns, and nothing else: the block (the first marker outside fenced
code, ``top_level``) and one Range block (``RANGE_MARKER`` and the fence below it);
every other line of the handoff is a person's, kept.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from lets_hooks import files, state
from lets_hooks.summary.interventions import MAX_FILE_BYTES, problem_line
from lets_hooks.summary.sources.text import (
    fence_closing,
    fence_opening,
    heading_text,
    is_fence,
    lines_of,
    parse_yaml,
)

TYPE_CHECKING = False  # typing is not imported at run time; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

HANDOFF = "memory/session-handoff-LATEST.md"
MARKER = "<!-- state-snapshot v1 -->"
RANGE_MARKER = "<!-- session-range v1 -->"  # the Range block the checkpoint owns
FIELDS = ("ts", "ctx", "next", "blocked", "diff")
DIFF_CAP = 20
RANGE_HEADING = "### Range"
RENAMED = " → "
ATTEMPTS = 3  # tries of a compare-and-swap write, here and in ``promote``
_MORE = re.compile(r"and (\d+) more paths?")
_RISK = re.compile(r"\s*\(\s*risk\s*:\s*([^()]*?)\s*\)\s*$", re.IGNORECASE)


# --------------------------------------------------------------------------- where things are

def is_marker(line: str, words: tuple[str, str] = ("state-snapshot", "v1")) -> bool:
    """``<!-- state-snapshot v1 -->`` (or another marker's ``words``) alone on its line
    (blanks anywhere between words)."""
    text = line.strip()
    return (len(text) >= 7 and text.startswith("<!--") and text.endswith("-->")
            and text[4:-3].split() == list(words))


def top_level(lines: Sequence[str], start: int = 0) -> Iterator[int]:
    """The indexes of the lines from ``start`` on that are not fenced code (nor a fence):
    a fence runs to its closing line, one that nothing closes to the end (as Markdown
    reads it). A marker is the product's only there: an example of one shown in a fence
    is a person's text."""
    return (index for index, fence in _walk(lines, start) if fence is None)


def _walk(lines: Sequence[str], start: int) -> Iterator[tuple[int, str | None]]:
    """(index, None) for each line ``top_level`` gives, then (index, its fence) for the
    opening line that nothing closes, if there is one."""
    index = start
    while index < len(lines):
        fence = fence_opening(lines[index])
        if fence is not None:
            close = _closing(lines, index + 1, fence)
            if close is None:
                yield index, fence
                return
            index = close + 1
            continue
        yield index, None
        index += 1


@dataclass(frozen=True)
class Layout:
    """Where a handoff's parts are, as indexes into its lines (``text.lines_of``)."""

    frontmatter: Mapping[str, object] | None
    body: int  # the first line after the frontmatter (0 without one)
    unclosed: bool  # a leading '---' that nothing closes: read as prose
    marker: int | None  # the marker's line, when there is one
    yaml_first: int | None  # the block's first YAML line
    yaml_lines: tuple[str, ...] | None  # its YAML lines (None: no block could be found)
    after: int  # the first line after the block (after the marker, without one)
    problems: tuple[str, ...]  # the frontmatter's and the block's, for the reader


def layout(lines: Sequence[str]) -> Layout:
    """The frontmatter, then the first marker of the body outside fenced code
    (``top_level``) and the block after it: a fenced block, or bare YAML lines up to a
    blank one."""
    frontmatter, body, problems = _frontmatter(lines)
    unclosed = bool(problems) and body == 0
    marker = next((i for i in top_level(lines, body) if is_marker(lines[i])), None)
    if marker is None:
        return Layout(frontmatter, body, unclosed, None, None, None, body, tuple(problems))
    first, yaml_lines, after, problem = _block(lines, marker)
    if problem:
        problems.append(f"{HANDOFF}: {problem}")
    return Layout(frontmatter, body, unclosed, marker, first, yaml_lines, after, tuple(problems))


def _frontmatter(lines: Sequence[str]) -> tuple[Mapping[str, object] | None, int, list[str]]:
    """(frontmatter mapping, index of the first body line, warnings)."""
    if not lines or lines[0].strip() != "---":
        return None, 0, []
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            value, problem = parse_yaml("\n".join(lines[1:index]), HANDOFF, "frontmatter", 2)
            if problem:
                return None, index + 1, [problem]
            if value is None:
                return {}, index + 1, []
            if not isinstance(value, Mapping):
                return None, index + 1, [f"{HANDOFF}: frontmatter is not a mapping; ignored"]
            return dict(value), index + 1, []
    return None, 0, [f"{HANDOFF}: frontmatter has no closing '---'; read as prose"]


def _block(lines: Sequence[str], marker: int
           ) -> tuple[int | None, tuple[str, ...] | None, int, str | None]:
    """(first YAML line, the YAML lines, first line after the block, problem)."""
    index = marker + 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines):
        return None, None, index, "state-snapshot marker with no block after it"
    opener = lines[index].strip()
    if is_fence(opener):
        fence = opener[:3]
        for end in range(index + 1, len(lines)):
            closer = lines[end].strip()
            if closer.startswith(fence) and not closer[3:].strip():
                return index + 1, tuple(lines[index + 1:end]), end + 1, None
        return None, None, len(lines), "state-snapshot block has no closing fence; ignored"
    end = index
    while end < len(lines) and lines[end].strip():
        end += 1
    return index, tuple(lines[index:end]), end, None


def parse_block(where: Layout) -> tuple[dict[str, object] | None, list[str]]:
    """The block's mapping (None when there is none, or it cannot be read) and the
    problems met reading it (the reader shows them as warnings; the writer refuses)."""
    if where.yaml_lines is None or where.yaml_first is None:
        return None, []
    value, problem = parse_yaml("\n".join(where.yaml_lines), HANDOFF, "state-snapshot block",
                                where.yaml_first + 1)
    if problem:
        return None, [problem]
    if not isinstance(value, Mapping):
        return None, [f"{HANDOFF}: state-snapshot block is not a mapping; ignored"]
    snapshot = dict(value)
    if "next" not in snapshot:
        return snapshot, [f"{HANDOFF}: state-snapshot block has no 'next'"]
    return snapshot, []


# --------------------------------------------------------------------------- the record

@dataclass(frozen=True)
class Change:
    op: str  # added, changed, removed or renamed
    item: str  # the path; "old → new" for a rename
    why: str  # the subject of the newest session commit that touched it


@dataclass(frozen=True)
class Snapshot:
    """The block's values (the fields above), items kept as they were read. ``more``: the
    paths ``diff`` leaves out. ``verbatim``: the lines another writer's keys stood on
    (``kept_lines``), written back as they were (a ``!!binary`` value stays one)."""

    ts: object = None
    ctx: object = None
    next: tuple[object, ...] = ()
    blocked: tuple[object, ...] = ()
    diff: tuple[object, ...] = ()
    more: int = 0
    extra: tuple[tuple[object, object], ...] = ()
    verbatim: tuple[tuple[object, tuple[str, ...]], ...] = ()

    def values(self) -> dict[object, object]:
        """The mapping ``block_lines`` writes (and YAML reads back)."""
        ctx: dict[object, object] = {} if self.ctx is None else {"ctx": self.ctx}
        more = [more_item(self.more)] if self.more else []
        return {"ts": self.ts, **ctx, "next": list(self.next), "blocked": list(self.blocked),
                "diff": [*self.diff, *more], **dict(self.extra)}


def more_item(count: int) -> str:
    return f"and {count} more path{'s' if count != 1 else ''}"


def as_items(value: object) -> list[object]:
    """A field as a list: writers give a list, a single string, or nothing."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [item for item in value if item is not None and item != ""]
    return [value]


def snapshot_of(mapping: Mapping[Any, object]) -> Snapshot:
    """A block's mapping as the record (the reverse of ``Snapshot.values``)."""
    diff = as_items(mapping.get("diff"))
    more = 0
    if diff and isinstance(diff[-1], str):
        counted = _MORE.fullmatch(diff[-1].strip())
        if counted:
            more = int(counted.group(1))
            diff = diff[:-1]
    return Snapshot(
        ts=mapping.get("ts"), ctx=mapping.get("ctx"),
        next=tuple(as_items(mapping.get("next"))),
        blocked=tuple(as_items(mapping.get("blocked"))),
        diff=tuple(diff), more=more,
        extra=tuple((key, value) for key, value in mapping.items() if key not in FIELDS))


def item_texts(mapping: Mapping[str, object]
               ) -> tuple[list[str], list[str], list[str]]:
    """What the summary reads of a block: (next steps, changes, blockers) as plain text,
    placeholders dropped ("none", "n/a"...); a change ends with how many more."""
    from lets_hooks.summary import prose

    snapshot = snapshot_of(mapping)
    next_items = prose.real_items(prose.item_text(item) for item in snapshot.next)
    changes = prose.real_items(prose.diff_item_text(item) for item in snapshot.diff)
    if snapshot.more:
        changes.append(more_item(snapshot.more))
    blocked = prose.real_items(prose.item_text(item, ("item",), "risk", "{} (risk: {})")
                               for item in snapshot.blocked)
    return next_items, changes, blocked


def parse_blocked(text: str) -> dict[str, object]:
    """``"ITEM (risk: H)"`` as ``{item, risk}`` (``risk`` None when not said)."""
    found = _RISK.search(text)
    if found is None:
        return {"item": text.strip(), "risk": None}
    return {"item": text[:found.start()].strip(), "risk": found.group(1) or None}


def blocked_problem(texts: Sequence[str]) -> str | None:
    """Why ``--blocked`` values cannot be written: one that is only a risk (``"(risk: H)"``)
    names no blocker. (A blank one is no value: it empties the list.)"""
    for text in texts:
        if text.strip() and not parse_blocked(text)["item"]:
            return (f"--blocked {files.quoted(text)} names no blocker before its risk"
                    " (write it 'ITEM (risk: H)')")
    return None


# --------------------------------------------------------------------------- YAML, written

_SAFE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})


def block_lines(snapshot: Snapshot) -> list[str]:
    """The marker and the fenced block, one line each (no line ends): the checkpoint's
    keys written in its one form, another writer's as they stood (``verbatim``)."""
    kept = dict(snapshot.verbatim)
    lines = [line for key, value in snapshot.values().items()
             for line in (kept[key] if key in kept else _mapping({key: value}, 0))]
    return [MARKER, "```yaml", *lines, "```"]


def kept_lines(yaml_lines: Sequence[str]) -> dict[object, tuple[str, ...]]:
    """The lines each top-level key of a block mapping stands on (with the comments
    above it), for the keys the checkpoint does not own, so they are written back byte
    for byte. Empty when the block cannot be cut into its keys so (a flow mapping, a
    document marker, an alias to another key's anchor, a line that would end the fence):
    then its values are written in the checkpoint's own form."""
    groups: list[list[str]] = []
    pending: list[str] = []  # comments at the margin: they go with the key below them
    for line in yaml_lines:
        if is_fence(line) or line.startswith(("---", "...", "%")):
            return {}
        if line.startswith("#"):
            pending.append(line)
        elif line and not line[0].isspace() and not (line.startswith("- ") or line == "-"):
            if line.startswith(("?", "{", "[", ":")):
                return {}
            groups.append([*pending, line])
            pending = []
        elif groups:  # indented, blank, or an item of a list at the key's own margin
            groups[-1].extend([*pending, line])
            pending = []
        else:
            pending.append(line)
    if groups:
        groups[-1].extend(pending)
    found: dict[object, tuple[str, ...]] = {}
    for group in groups:
        value, problem = parse_yaml("\n".join(group), HANDOFF, "state-snapshot block", 1)
        if problem or not isinstance(value, Mapping) or len(value) != 1:
            return {}
        key = next(iter(value))
        if key not in FIELDS:
            found[key] = found.get(key, ()) + tuple(group)
    return found


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back as exactly ``text``:
    anything YAML would fold (line breaks, U+0085, U+2028/9) or refuse (controls,
    U+FEFF, non-characters) is escaped, and so is every character ``lets-hooks lint``
    would flag in the file (``files.is_shown_as_is``, the one rule of both: bidi
    controls, zero-width and other invisible characters, blanks other than the space);
    lone surrogates cannot be written (``ValueError``)."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"' or char == "\\":
            out.append("\\" + char)
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError("text that is not valid UTF-8 cannot be written")
        elif 0x20 <= code <= 0x7E or ((0xA0 <= code <= 0xFFFD or code > 0xFFFF) and code not in (
                0x2028, 0x2029, 0xFEFF) and files.is_shown_as_is(char)):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _key(key: object) -> str:
    if isinstance(key, str):
        if _SAFE_KEY.fullmatch(key) and key.lower() not in _YAML_WORDS:
            return key
        return quoted(key)
    return _scalar(key)


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"  # repr signs every exponent
        return text
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)) and not value:
        return "[]"
    if isinstance(value, Mapping) and not value:
        return "{}"
    return quoted(str(value))


def _nested(value: object) -> bool:
    return isinstance(value, (list, tuple, Mapping)) and bool(value)


def _mapping(mapping: Mapping[object, object], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for key, value in mapping.items():
        if _nested(value):
            lines.append(f"{pad}{_key(key)}:")
            lines.extend(_value(value, indent + 2))
        else:
            lines.append(f"{pad}{_key(key)}: {_scalar(value)}")
    return lines


def _value(value: object, indent: int) -> list[str]:
    if isinstance(value, Mapping):
        return _mapping(value, indent)
    pad = " " * indent
    lines: list[str] = []
    for item in value if isinstance(value, (list, tuple)) else [value]:
        if _nested(item):
            inner = _value(item, indent + 2)
            lines.append(f"{pad}- {inner[0][indent + 2:]}")
            lines.extend(inner[1:])
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


# --------------------------------------------------------------------------- the diff

def changes_of(commits: Sequence[tuple[str, str, Sequence[tuple[str, str, str | None]]]]
               ) -> list[Change]:
    """One change per path from the session's commits (newest first, as the ladder lists
    them; each ``(sha, subject, [(status, path, new path)])``, a merge listing none): what
    the session did to it overall (added then changed is added; renamed twice is one
    rename from the first name to the last), why being the newest commit's subject;
    newest first."""
    # name now -> (its name before the session, None: it did not exist; exists now;
    # the newest commit that touched it; the change's place in that commit's list)
    track: dict[str, tuple[str | None, bool, int, int]] = {}
    for index in range(len(commits) - 1, -1, -1):  # oldest first
        for position, (status, path, new) in enumerate(commits[index][2]):
            kind = status[:1]
            if kind == "R" and new is not None:
                track[new] = (track.pop(path, (path, True, 0, 0))[0], True, index, position)
                continue
            if kind == "C" and new is not None:
                path, kind = new, "A"
            prior = track.get(path)
            origin = prior[0] if prior is not None else (None if kind == "A" else path)
            track[path] = (origin, kind != "D", index, position)
    changes: list[Change] = []
    for name, (origin, exists, index, _) in sorted(track.items(), key=lambda kept: kept[1][2:]):
        why = commits[index][1]
        if not exists:
            changes.append(Change("removed", origin if origin is not None else name, why))
        elif origin is None:
            changes.append(Change("added", name, why))
        elif origin == name:
            changes.append(Change("changed", name, why))
        else:
            changes.append(Change("renamed", f"{origin}{RENAMED}{name}", why))
    return changes


# --------------------------------------------------------------------------- the plan

@dataclass(frozen=True)
class Asked:
    """What the command line asked for (None: keep the previous block's value)."""

    next: Sequence[str] | None = None
    blocked: Sequence[str] | None = None
    ctx: str | None = None


@dataclass(frozen=True)
class Plan:
    data: bytes  # the new file
    snapshot: Snapshot
    range_lines: tuple[str, ...]
    notes: tuple[str, ...]  # what the person should know (a fence closed before the Range)


class Refusal(Exception):
    """The handoff is not written; ``str()`` is one line saying why."""


def plan(old: bytes | None, asked: Asked, range_lines: Sequence[str],
         diff: tuple[list[Change], int] | None, now: float, limit: int) -> Plan:
    """The new handoff from the old bytes (None: there is none yet).

    ``diff``: the session's changes and how many more were left out, or None when the
    range is not known (the previous block's ``diff`` is then kept)."""
    bom = b""
    text = ""
    if old is not None:
        if old.startswith(b"\xef\xbb\xbf"):
            bom, old = b"\xef\xbb\xbf", old[3:]
        try:
            text = old.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refusal(f"{HANDOFF}: not valid UTF-8 (first bad byte at offset"
                          f" {exc.start + len(bom)}); nothing written") from None
    pieces = text.split("\n")
    ends = ["\r\n" if piece.endswith("\r") else "\n" for piece in pieces[:-1]] + [""]
    if pieces[-1] == "":
        pieces.pop()
        ends.pop()
    lines = lines_of(text)
    newline = next((end for end in ends if end), "\n")

    where = layout(lines)
    if where.unclosed:
        raise Refusal(f"{HANDOFF}: frontmatter has no closing '---'; close it, then run"
                      " again; nothing written")
    previous: Mapping[Any, object] = {}
    if where.marker is not None:
        mapping, problems = parse_block(where)
        if mapping is None:
            # no problem from parse_block: no block could be found, and layout said why
            problem = problems[0] if problems else next(
                (p for p in where.problems if "state-snapshot" in p),
                f"{HANDOFF}: state-snapshot block cannot be read")
            raise Refusal(f"{problem.removesuffix('; ignored')}; fix or remove the block,"
                          " then run again; nothing written")
        previous = mapping
    before = snapshot_of(previous)
    snapshot = Snapshot(
        ts=state.utc_stamp(now),
        ctx=before.ctx if asked.ctx is None else asked.ctx,
        next=before.next if asked.next is None else tuple(
            item for item in (value.strip() for value in asked.next) if item),
        blocked=before.blocked if asked.blocked is None else tuple(
            parse_blocked(item) for item in asked.blocked if item.strip()),
        diff=before.diff if diff is None else tuple(map(asdict, diff[0])),
        more=before.more if diff is None else diff[1],
        extra=before.extra,
        verbatim=tuple(kept_lines(where.yaml_lines).items()) if (
            before.extra and where.yaml_lines is not None) else ())
    try:
        block = block_lines(snapshot)
    except ValueError as exc:
        raise Refusal(f"{HANDOFF}: {exc}; nothing written") from None

    # (line, its end) for every line of the new file
    rows: list[tuple[str, str]] = [(piece[:-1] if end == "\r\n" else piece, end)
                                   for piece, end in zip(pieces, ends)]
    create = old is None or (where.frontmatter is None and where.body == 0)
    rows, body = _with_block(rows, where, block, newline, create, now)
    notes: list[str] = []
    rows = _with_range(rows, body, list(range_lines), newline, notes)
    data = bom + "".join(line + end for line, end in rows).encode("utf-8")
    if len(data) > limit:
        raise Refusal(f"{HANDOFF}: would be {len(data)} bytes, over the {limit >> 20} MiB the"
                      " summary reads; nothing written")
    return Plan(data, snapshot, tuple(range_lines), tuple(notes))


def _blank(row: tuple[str, str]) -> bool:
    return not row[0].strip()


def _with_block(rows: list[tuple[str, str]], where: Layout, block: list[str], newline: str,
                create_frontmatter: bool, now: float) -> tuple[list[tuple[str, str]], int]:
    """``rows`` with the old block taken out and ``block`` right after the frontmatter
    (in the old block's place when only blank lines stand before it), and the index of
    the first line after the frontmatter."""
    head = rows[:where.body]
    body = rows[where.body:]
    new = [(line, newline) for line in block]
    if where.marker is not None:
        marker, after = where.marker - where.body, where.after - where.body
        if all(_blank(row) for row in body[:marker]):
            body = body[:marker] + new + body[after:]
            new = []
        else:
            end = after
            if end < len(body) and _blank(body[end]) and _blank(body[marker - 1]):
                end += 1  # the blank line that set it apart goes with it
            body = body[:marker] + body[end:]
    if new:
        if body and not _blank(body[0]):
            new.append(("", newline))
        body = new + body
    if create_frontmatter:
        head = [("---", newline), (f"updated: {state.utc_stamp(now)[:10]}", newline),
                ("---", newline)]
    if head and not head[-1][1]:
        head[-1] = (head[-1][0], newline)
    return head + body, len(head)


_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")  # no lazy part: linear on blanks


def _headings(lines: Sequence[str]) -> list[tuple[int, int, str]]:
    """(index, level, text) of every ATX heading outside fenced code. A fence that nothing
    closes fences nothing: the Range section added after it is found again next time.
    Linear in the lines (``_longest_closings``; tests/test_summary_linear.py)."""
    longest = _longest_closings(lines)
    found = []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = fence_opening(line)
        if fence is not None and longest[index][fence[0] == "~"] >= len(fence):
            close = _closing(lines, index + 1, fence)
            if close is not None:
                index = close + 1
                continue
        heading = _ATX.match(line)
        if heading:
            title = heading_text(heading.group(2) or "").strip()
            found.append((index, len(heading.group(1)), title))
        index += 1
    return found


def _longest_closings(lines: Sequence[str]) -> list[tuple[int, int]]:
    """For each line, the longest backtick and tilde fence below it that could close one
    (no info string after it)."""
    found: list[tuple[int, int]] = []
    backticks = tildes = 0
    for line in reversed(lines):
        found.append((backticks, tildes))
        run = fence_closing(line)
        if run is not None:
            if run[0] == "`":
                backticks = max(backticks, len(run))
            else:
                tildes = max(tildes, len(run))
    found.reverse()
    return found


def _closing(lines: Sequence[str], start: int, fence: str) -> int | None:
    """The index of the line that closes ``fence`` (its character, at least as long)."""
    for index in range(start, len(lines)):
        run = fence_closing(lines[index])
        if run is not None and run[0] == fence[0] and len(run) >= len(fence):
            return index
    return None


def _with_range(rows: list[tuple[str, str]], body: int, range_lines: list[str],
                newline: str, notes: list[str]) -> list[tuple[str, str]]:
    """``rows`` with ``range_lines`` in the Range block the checkpoint owns (the first
    marked one outside fenced code, else an older checkpoint's unmarked ``SESSION_`` block,
    marked now), only those lines replaced; without one, a ``### Range`` section added at
    the end. A person's ``### Range`` heading is their text, and so is a marked block
    after the first (a copy)."""
    lines = [line for line, _ in rows]
    fenced = [(RANGE_MARKER, newline), ("```", newline),
              *((line, newline) for line in range_lines), ("```", newline)]
    found = _owned_range(lines, body) or _older_range(lines, body)
    if found is not None:
        first, _, last = found
        fenced[-1] = (fenced[-1][0], rows[last][1] or newline)
        return rows[:first] + fenced + rows[last + 1:]
    out = list(rows)
    if out and not out[-1][1]:
        out[-1] = (out[-1][0], newline)
    unclosed = next((fence for _, fence in _walk(lines, body) if fence), None)
    if unclosed is not None:  # else the section would be code, and not found again
        notes.append(f"the handoff ended inside a fenced block ('{unclosed}'): closed it"
                     " before the Range section")
        out.append((unclosed, newline))
    if out and not _blank(out[-1]):
        out.append(("", newline))
    return [*out, (RANGE_HEADING, newline), ("", newline), *fenced]


def range_lines(lines: Sequence[str], body: int) -> list[str] | None:
    """The lines inside the Range block the checkpoint owns (``_with_range``), or None:
    the last session's range as the summary reads it (``sources.handoff.last_range``)."""
    found = _owned_range(lines, body) or _older_range(lines, body)
    return None if found is None else list(lines[found[1]:found[2]])


def _owned_range(lines: Sequence[str], body: int) -> tuple[int, int, int] | None:
    """(marker, first line inside, closing fence) of the first marked Range block outside
    fenced code."""
    for index in top_level(lines, body):
        if is_marker(lines[index], ("session-range", "v1")) and index + 1 < len(lines):
            fence = fence_opening(lines[index + 1])
            if fence is not None:
                close = _closing(lines, index + 2, fence)
                if close is not None:
                    return index, index + 2, close
    return None


RANGE_KEYS = ("SESSION_BOUNDARY=", "SESSION_TRUST=", "SESSION_COMMITS=", "SESSION_RANGE_DESC=")


def _older_range(lines: Sequence[str], body: int) -> tuple[int, int, int] | None:
    """(opening, first line inside, closing) of the fenced four lines an older checkpoint
    wrote, unmarked, in the first ``### Range`` section holding such a block."""
    heads = [(index + body, level, title)
             for index, level, title in _headings(lines[body:])]
    for position, (start, level, title) in enumerate(heads):
        if level != 3 or title.lower() != "range":
            continue
        end = next((i for i, lvl, _ in heads[position + 1:] if lvl <= 3), len(lines))
        index = start + 1
        while index < end:
            fence = fence_opening(lines[index])
            if fence is not None:
                close = _closing(lines, index + 1, fence)
                if close is None:
                    break
                inner = lines[index + 1:close]
                if len(inner) == len(RANGE_KEYS) and all(
                        line.startswith(prefix) for line, prefix in zip(inner, RANGE_KEYS)):
                    return index, index + 1, close
                index = close
            index += 1
    return None


# --------------------------------------------------------------------------- the write

@dataclass(frozen=True)
class Written:
    plan: Plan
    written: bool  # False: the same bytes were there already, or --dry-run
    merged: bool  # the handoff changed between the read and the write; planned again on it
    created: bool


def checkpoint(root: Path, make: Callable[[bytes | None], Plan], git_dir: str | None = None,
               *, dry_run: bool = False, create: bool = True,
               before_replace: Callable[[], None] | None = None) -> Written | None:
    """Plan the new handoff from its bytes (``make``) and write it with a compare-and-swap:
    just before the rename the file is read again, and only when it is still what the plan
    was made from is it replaced; else the plan is made again on the new bytes (the other
    writer's change is kept), at most ``ATTEMPTS`` times. None: no handoff and not
    ``create``. ``Refusal`` when it cannot be written (nothing is).

    The compare reads the file through a hard link kept aside (``files.link_aside``), and
    that old file is read again once the new one is in place: an editor that saved into it
    between the compare and the rename (or after it, through a file it had open) has its
    bytes kept (``_after_replace``), and ``Refusal`` says what was done."""
    data = _read(root, git_dir)
    if data is None and not create:
        return None
    merged = False
    for _ in range(ATTEMPTS):
        made = make(data)
        if dry_run or made.data == data:
            return Written(made, False, merged, data is None)
        aside: list[str] = []
        try:
            folder = files.inside(str(root), os.path.dirname(HANDOFF), git_dir)
            if data is None and not os.path.isdir(folder):
                _make_folder(folder)
            target = files.write_inside(
                str(root), HANDOFF, made.data, git_dir, create_only=data is None,
                before_rename=_unchanged(root, git_dir, data, before_replace, aside))
        except Changed as change:
            merged, data = True, change.now
            continue
        except FileExistsError:  # another writer made the file meanwhile: plan on it
            merged, data = True, _read(root, git_dir)
            continue
        except BaseException as exc:
            for link in aside:
                files.discard(link)
            if isinstance(exc, files.Refused):
                raise Refusal(f"{_line(str(exc))}; nothing written") from None
            if isinstance(exc, OSError):
                raise Refusal(files.why(exc, f"cannot write {HANDOFF}") + "; nothing written"
                              ) from None
            raise
        if aside:
            _after_replace(target, aside[0], data, made.data)
        return Written(made, True, merged, data is None)
    raise Refusal(f"{HANDOFF} kept changing while the checkpoint was written ({ATTEMPTS}"
                  " tries); nothing written, run again when the other writer is done")


def _make_folder(folder: str) -> None:
    """The handoff's folder, made in the root (never the root itself: a mistyped ``--root``
    writes nothing); a file or a dangling link standing there is ``Refusal``, not another
    writer's change to wait for."""
    try:
        os.mkdir(folder)
    except OSError as exc:  # (another writer made the folder meanwhile: fine)
        if not (isinstance(exc, FileExistsError) and os.path.isdir(folder)):
            raise Refusal(files.why(exc, f"cannot write {HANDOFF}") + "; nothing written"
                          ) from None


class Changed(Exception):
    """The file is not what the plan was made from (``now``: what it is now); also
    ``promote``'s compare-and-swap."""

    def __init__(self, now: bytes | None) -> None:
        super().__init__("changed")
        self.now = now


def _unchanged(root: Path, git_dir: str | None, planned_from: bytes | None,
               before_replace: Callable[[], None] | None, aside: list[str]
               ) -> Callable[[], None]:
    """The compare, run once the new bytes are durable: a hard link to the file as it
    stands is kept aside (its name put in ``aside``), and the file is read through it."""
    def check() -> None:
        if before_replace is not None:
            before_replace()
        link = files.link_aside(files.inside(str(root), HANDOFF, git_dir))
        if link is None:
            now = _read(root, git_dir)
        else:
            aside.append(link)
            now, problem = files.read_capped(link, MAX_FILE_BYTES, name=HANDOFF)
            if problem:
                files.discard(link)
                raise Refusal(f"{_line(problem)}; nothing written")
        if now != planned_from:
            if link is not None:
                files.discard(link)
                aside.remove(link)
            raise Changed(now)
    return check


def _after_replace(target: str, link: str, planned_from: bytes | None, new: bytes) -> None:
    """The old file, read again through ``link`` once the new one is in place and nobody
    has it open for writing any more (``files.writers_gone``): unchanged, the link goes.
    Changed since the compare (an editor's save that landed in it), its bytes are kept
    and ``Refusal`` says how: what was added at its end is added at the end of the new
    file; any other change, or a writer that keeps it open, puts the other writer's file
    back (the checkpoint is then not written); when the new file changed as well, the old
    one is kept beside it (``<handoff>.conflict``) to be merged by hand."""
    held = files.writers_gone(link) is False
    old, problem = files.read_capped(link, MAX_FILE_BYTES, name=HANDOFF)
    if not held and problem is None and old == planned_from:
        files.discard(link)
        return
    said = (f"{HANDOFF} is held open by another writer" if held else
            f"{HANDOFF} was changed by another writer while the checkpoint replaced it")
    now, _ = files.read_capped(target, MAX_FILE_BYTES, name=HANDOFF)
    try:
        if (not held and old is not None and planned_from is not None
                and old.startswith(planned_from) and now is not None and now.startswith(new)):
            files.append_to(target, old[len(planned_from):], HANDOFF)
            files.discard(link)
            raise Refusal(f"{said}: what it added is kept, at the end of the file; check"
                          " the file")
        if now == new:
            mine = files.link_aside(target)  # what lands in the new file meanwhile
            files.put_back(link, target, HANDOFF)
            if mine is not None:
                late, _ = files.read_capped(mine, MAX_FILE_BYTES, name=HANDOFF)
                if late != new and late is not None and late.startswith(new):
                    files.append_to(target, late[len(new):], HANDOFF)
                elif late != new:
                    files.move(mine, files.free_name(target + ".conflict"), HANDOFF)
                files.discard(mine)
            raise Refusal(f"{said}: its version is back, the checkpoint is not written;"
                          " run it again")
        kept = files.free_name(target + ".conflict")
        files.move(link, kept, HANDOFF)
        raise Refusal(f"{said}: its version is kept as {HANDOFF}{kept[len(target):]};"
                      " merge it by hand")
    except files.Refused as exc:
        raise Refusal(f"{said}; {_line(str(exc))}; its version is kept in a file beside it"
                      ) from None


def _read(root: Path, git_dir: str | None) -> bytes | None:
    data, problem = files.read_inside(str(root), HANDOFF, MAX_FILE_BYTES, git_dir)
    if problem:
        raise Refusal(f"{_line(problem)}; nothing written")
    return data


def _line(problem: str) -> str:
    return problem_line(HANDOFF, problem) or problem
