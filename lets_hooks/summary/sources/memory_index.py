"""The memory index, ``memory/MEMORY.md``: sections tagged ``<!-- #always -->`` (loaded
whole) or ``<!-- #on-demand -->`` (listed by their headers); a file without tags is
loaded whole."""

from __future__ import annotations

import re
from pathlib import Path

from lets_hooks.summary.records import MemoryIndex, MemorySection, Read
from lets_hooks.summary.sources.text import heading, lines_of, read_project_text, unfenced

MEMORY_INDEX = "memory/MEMORY.md"

_MEMORY_TAG = re.compile(r"<!--\s*#(always|on-demand)\s*-->", re.IGNORECASE)


def read_memory_index(root: Path, git_dir: str | None = None) -> Read[MemoryIndex]:
    raw = read_project_text(root, MEMORY_INDEX, git_dir)
    if raw.value is None:
        return Read(None, raw.warnings)
    return Read(parse_memory_index(raw.value), raw.warnings)


def parse_memory_index(text: str) -> MemoryIndex:
    """Sections that begin at a heading; a tagged section runs to the next heading of the
    same or a higher level, or to the next tagged heading."""
    lines = lines_of(text)
    starts: list[tuple[int, int, str, str]] = []  # (index, level, tag, title)
    for index, line in unfenced(lines):
        if not line.startswith("#"):
            continue
        parsed = heading(line)
        if parsed is None:
            continue
        level, title = parsed
        tag_match = _MEMORY_TAG.search(title) if "<!--" in title else None
        tag = tag_match.group(1).lower() if tag_match else ""
        if tag_match:
            title = _MEMORY_TAG.sub("", title).strip()
        starts.append((index, level, tag, title))
    sections: list[MemorySection] = []
    for position, (index, level, tag, title) in enumerate(starts):
        end = next((later for later, later_level, later_tag, _ in starts[position + 1:]
                    if later_level <= level or (tag and later_tag)), len(lines))
        body = list(lines[index:end])
        while body and not body[-1].strip():
            body.pop()
        sections.append(MemorySection(title, tag, "\n".join(body)))
    return MemoryIndex(text, tuple(sections), any(s.tag for s in sections))
