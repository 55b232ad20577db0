"""No pattern the summary applies to file content backtracks super-linearly.

Each reader is fed a long line, a run of blanks, and runs of the characters its patterns
look for (``#``, ``[``, `````, ``>``, list marks, dots and slashes), both bare and behind
the prefix that makes a pattern try hard (a heading's ``## ``, a lesson's metadata line, a
log header's date), at two sizes, 64 KiB and 1 MiB: the whole summary (every reader and
every phase) must cost at most a few times 16 as much on the second as on the first
(``growth.assert_linear``: linear work stays under 16, a pattern that backtracks over the
line reaches 256 and more; the old heading pattern took about 20 s on 60 KB). No time
budget: a loaded machine makes both runs slower alike.

The rewritten matchers are also checked against the patterns they replace, on short
inputs where those patterns are fast: same answers, linear time.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from growth import assert_linear
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import lint
from lets_hooks.summary import build_summary
from lets_hooks.summary.checkpoint import is_marker
from lets_hooks.summary.phases import model_id_ok
from lets_hooks.summary.sources.lessons import is_gates_heading, model_tag
from lets_hooks.summary.sources.text import heading

TODAY = dt.date(2026, 11, 29)
MB = 1024 * 1024
SMALL = MB // 16

PROJECT_FILES = ["memory/session-handoff-LATEST.md", "tasks/lessons.md",
                 "memory/context-log.md", "memory/MEMORY.md"]
HOME_FILES = [".claude/STATE.md", ".claude/settings.json", ".claude/settings.local.json",
              ".claude/memory/model-diff-ledger.md",
              ".claude/.harness/interventions/log.jsonl"]

PAYLOADS: dict[str, Callable[[int], str]] = {
    "one line": lambda n: "x" * n,
    "blanks": lambda n: " " * n,
    "tabs and blanks": lambda n: " \t" * (n // 2) + "x",
    "hashes": lambda n: "#" * n,
    "brackets": lambda n: "[" * n,
    "backticks": lambda n: "`" * n,
    "quote marks": lambda n: ">" * n,
    "heading of blanks": lambda n: "## " + " " * n + "x",
    "heading of blanks and hashes": lambda n: "## x" + " #" * (n // 2) + "x",
    "lesson of blanks": lambda n: "### [2026-11-01] t\n> conf: 0.7" + " " * n + "x",
    "metadata of separators": lambda n: "### [2026-11-01] t\n> conf: 0.7" + " ·" * (n // 2) + "x",
    "model tag of blanks": lambda n: "### [2026-11-01] t\n> x\nmodel: a" + " " * n + "b",
    "gates heading of blanks": lambda n: "## " + " " * n + "graduated",
    "log header of brackets": lambda n: "## [2026-11-01]" + "[" * n,
    "log header of tags": lambda n: "## [2026-11-01]" + "[a]" * (n // 3) + "[",
    "priority of blanks": lambda n: "## Priority" + " " * n + "x",
    "list of blanks": lambda n: "- " + " " * n + "x",
    "numbered list": lambda n: "1" * n + ".",
    "path of segments": lambda n: "see a/" + "b/" * (n // 2) + "c",
    "path of dots": lambda n: "see a/" + "." * n,
    "dotted call": lambda n: "a." * (n // 2) + "b",
    "dotted call in backticks": lambda n: "`" + "a." * (n // 2) + "b(`",
    "line suffix": lambda n: "`a/b.py" + ":1" * (n // 2) + "`",
    "snapshot marker of blanks": lambda n: "<!--" + " " * n + "state-snapshot",
    "memory tag of blanks": lambda n: "## x <!--" + " " * n + "#always",
    "approval": lambda n: "approved " + "x. " * (n // 3),
    "nothing placeholder": lambda n: "## Next\n- none" + " " * n + "x",
    "context suffix": lambda n: "[" * n + "]",
    "windows path of segments": lambda n: "see a\\" + "b\\" * (n // 2) + "c",
    "spaced path in backticks": lambda n: "`a/" + "b " * (n // 2) + "c.md`",
    # (n bytes of UTF-8: a Hangul syllable is three bytes)
    "korean heading": lambda n: "## " + "가" * (n // 3),
    "korean approvals": lambda n: "## 메모\n- " + "승인 필요 " * (n // 14),
    "korean removals": lambda n: "## 메모\n- " + "`a.py` 삭제 예정 " * (n // 22),
    "korean placeholder": lambda n: "## 블로커\n- 없음" + " " * n + "x",
    "risk note of blanks": lambda n: "## Blockers\n- x" + " " * n + "(risk: H)",
    "risk notes": lambda n: "## Blockers\n- x" + "(risk: H) " * (n // 10),
}


def _run(tmp_path: Path, where: str, text: str) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    base = home if where.startswith(".claude") else root
    path = base / where
    path.parent.mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    root.mkdir(exist_ok=True)
    if where == ".claude/settings.json":
        text = '{"model": "' + text.replace("\\", "").replace('"', "") + '"}'
    path.write_text(text)
    build_summary(root, home, TODAY)
    if not where.startswith(".claude"):
        lint.memory_files(str(root))  # the lint step runs the same readers


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("where", PROJECT_FILES + HOME_FILES)
def test_a_megabyte_of_anything_costs_what_its_size_does(
        tmp_path: Path, where: str, payload: str) -> None:
    make = PAYLOADS[payload]
    assert_linear(lambda n: _run(tmp_path, where, make(n)), SMALL, MB, f"{where}, {payload}")


# --------------------------------------------------------------------------- same answers

OLD_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
OLD_MODEL_LINE = re.compile(r"\s*(?:[-*>][ \t]*)?model:[ \t]*(\S.*?)\s*$", re.IGNORECASE)
OLD_MARKER = re.compile(r"\s*<!--\s*state-snapshot\s+v1\s*-->\s*$")
OLD_GATES = re.compile(r"##[ \t]+.*graduated gates", re.IGNORECASE)
SHORT = st.text(alphabet=st.sampled_from(list("# \tabC-*>:model<!-state-snapshotv1]x[")),
                max_size=40)


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_heading_matches_the_old_pattern(line: str) -> None:
    old = OLD_HEADING.match(line)
    expected = (len(old.group(1)), old.group(2)) if old else None
    assert heading(line) == expected


OLD_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_the_checkpoints_headings_match_the_old_pattern(line: str) -> None:
    """The checkpoint's heading reader (linear on blanks) says what its old pattern said."""
    from lets_hooks.summary import checkpoint

    old = OLD_ATX.match(line)
    expected = [(0, len(old.group(1)), re.sub(r"[ \t]+#+$", "", old.group(2) or "").strip())
                ] if old else []
    assert checkpoint._headings([line]) == expected


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_model_tag_matches_the_old_pattern(line: str) -> None:
    old = OLD_MODEL_LINE.match(line)
    assert model_tag(line) == (old.group(1) if old else None)


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_snapshot_marker_and_gates_heading_match_the_old_patterns(line: str) -> None:
    assert is_marker(line) == (OLD_MARKER.match(line) is not None)
    assert is_gates_heading(line) == (OLD_GATES.match(line) is not None)


@settings(max_examples=400, deadline=None)
@given(value=st.text(alphabet=st.sampled_from(list("opus[]1m ")), max_size=20))
def test_model_suffix_matches_the_old_pattern(value: str) -> None:
    from lets_hooks.summary.phases import KNOWN_MODELS

    old = re.sub(r"\[[^\]]*\]$", "", value.strip()) in KNOWN_MODELS
    assert model_id_ok(value) == old
