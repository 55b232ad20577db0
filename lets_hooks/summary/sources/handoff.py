"""The handoff, ``memory/session-handoff-LATEST.md``: a YAML frontmatter, then an optional
``<!-- state-snapshot v1 -->`` marker and its YAML block (fenced, or bare lines up to a
blank one), then prose sections. The reader parses; ``phases`` decides what each part
means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from lets_hooks.summary.records import Handoff, Read
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
    prose = body
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
        prose = body[:marker] + body[after:]

    text = "\n".join(body)
    empty = not text.strip()
    return Read(Handoff(frontmatter, snapshot, sections(prose), text, empty), tuple(warnings))


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
