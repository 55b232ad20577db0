"""The user's global state, ``~/.claude/STATE.md``: markdown sections (a frontmatter, if
any, is not part of the state). ``phases`` reads its open decisions and blockers."""

from __future__ import annotations

from pathlib import Path

from lets_hooks.summary.records import Read, StateFile
from lets_hooks.summary.sources.text import lines_of, read_home_text, sections, strip_frontmatter

STATE = ".claude/STATE.md"


def read_state(home: Path) -> Read[StateFile]:
    raw = read_home_text(home, STATE)
    if raw.value is None:
        return Read(None, raw.warnings)
    return Read(StateFile(sections(strip_frontmatter(lines_of(raw.value)))), raw.warnings)
