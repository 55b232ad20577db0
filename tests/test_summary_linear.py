"""No pattern the summary applies to file content backtracks super-linearly.

Each reader is fed a megabyte in one line, a megabyte of blanks, and megabyte runs of the
characters its patterns look for (``#``, ``[``, `````, ``>``, list marks, dots and
slashes), both bare and behind the prefix that makes a pattern try hard (a heading's
``## ``, a lesson's metadata line, a log header's date). The whole summary (every reader
and every phase) must finish each in well under a second; the old heading pattern took
about 20 s on 60 KB.

The rewritten matchers are also checked against the patterns they replace, on short
inputs where those patterns are fast: same answers, linear time.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import lint
from lets_hooks.summary import build_summary
from lets_hooks.summary.phases import model_id_ok
from lets_hooks.summary.sources.handoff import is_snapshot_marker
from lets_hooks.summary.sources.lessons import is_gates_heading, model_tag
from lets_hooks.summary.sources.text import heading

TODAY = dt.date(2026, 11, 29)
MB = 1024 * 1024
BUDGET = 1.0  # seconds for the whole summary; linear code takes a small part of it

PROJECT_FILES = ["memory/session-handoff-LATEST.md", "tasks/lessons.md",
                 "memory/context-log.md", "memory/MEMORY.md"]
HOME_FILES = [".claude/STATE.md", ".claude/settings.json", ".claude/settings.local.json",
              ".claude/memory/model-diff-ledger.md",
              ".claude/.harness/interventions/log.jsonl"]

PAYLOADS = {
    "one line": "x" * MB,
    "blanks": " " * MB,
    "tabs and blanks": " \t" * (MB // 2) + "x",
    "hashes": "#" * MB,
    "brackets": "[" * MB,
    "backticks": "`" * MB,
    "quote marks": ">" * MB,
    "heading of blanks": "## " + " " * MB + "x",
    "heading of blanks and hashes": "## x" + " #" * (MB // 2) + "x",
    "lesson of blanks": "### [2026-11-01] t\n> conf: 0.7" + " " * MB + "x",
    "metadata of separators": "### [2026-11-01] t\n> conf: 0.7" + " ·" * (MB // 2) + "x",
    "model tag of blanks": "### [2026-11-01] t\n> x\nmodel: a" + " " * MB + "b",
    "gates heading of blanks": "## " + " " * MB + "graduated",
    "log header of brackets": "## [2026-11-01]" + "[" * MB,
    "log header of tags": "## [2026-11-01]" + "[a]" * (MB // 3) + "[",
    "priority of blanks": "## Priority" + " " * MB + "x",
    "list of blanks": "- " + " " * MB + "x",
    "numbered list": "1" * MB + ".",
    "path of segments": "see a/" + "b/" * (MB // 2) + "c",
    "path of dots": "see a/" + "." * MB,
    "dotted call": "a." * (MB // 2) + "b",
    "dotted call in backticks": "`" + "a." * (MB // 2) + "b(`",
    "line suffix": "`a/b.py" + ":1" * (MB // 2) + "`",
    "snapshot marker of blanks": "<!--" + " " * MB + "state-snapshot",
    "memory tag of blanks": "## x <!--" + " " * MB + "#always",
    "approval": "approved " + "x. " * (MB // 3),
    "nothing placeholder": "## Next\n- none" + " " * MB + "x",
    "context suffix": "[" * MB + "]",
    "windows path of segments": "see a\\" + "b\\" * (MB // 2) + "c",
    "spaced path in backticks": "`a/" + "b " * (MB // 2) + "c.md`",
    # (a megabyte of UTF-8: a Hangul syllable is three bytes)
    "korean heading": "## " + "가" * (MB // 3),
    "korean approvals": "## 메모\n- " + "승인 필요 " * (MB // 14),
    "korean removals": "## 메모\n- " + "`a.py` 삭제 예정 " * (MB // 22),
    "korean placeholder": "## 블로커\n- 없음" + " " * MB + "x",
    "risk note of blanks": "## Blockers\n- x" + " " * MB + "(risk: H)",
    "risk notes": "## Blockers\n- x" + "(risk: H) " * (MB // 10),
}


def _run(tmp_path: Path, where: str, text: str) -> float:
    root, home = tmp_path / "project", tmp_path / "home"
    base = home if where.startswith(".claude") else root
    path = base / where
    path.parent.mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    root.mkdir(exist_ok=True)
    if where == ".claude/settings.json":
        text = '{"model": "' + text.replace("\\", "").replace('"', "") + '"}'
    path.write_text(text)
    began = time.perf_counter()
    build_summary(root, home, TODAY)
    if not where.startswith(".claude"):
        lint.memory_files(str(root))  # the lint step runs the same readers
    return time.perf_counter() - began


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("where", PROJECT_FILES + HOME_FILES)
def test_a_megabyte_of_anything_is_read_in_well_under_a_second(
        tmp_path: Path, where: str, payload: str) -> None:
    elapsed = _run(tmp_path, where, PAYLOADS[payload])
    assert elapsed < BUDGET, f"{where} with {payload}: {elapsed:.2f} s"


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


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_model_tag_matches_the_old_pattern(line: str) -> None:
    old = OLD_MODEL_LINE.match(line)
    assert model_tag(line) == (old.group(1) if old else None)


@settings(max_examples=400, deadline=None)
@given(line=SHORT)
def test_snapshot_marker_and_gates_heading_match_the_old_patterns(line: str) -> None:
    assert is_snapshot_marker(line) == (OLD_MARKER.match(line) is not None)
    assert is_gates_heading(line) == (OLD_GATES.match(line) is not None)


@settings(max_examples=400, deadline=None)
@given(value=st.text(alphabet=st.sampled_from(list("opus[]1m ")), max_size=20))
def test_model_suffix_matches_the_old_pattern(value: str) -> None:
    from lets_hooks.summary.phases import KNOWN_MODELS

    old = re.sub(r"\[[^\]]*\]$", "", value.strip()) in KNOWN_MODELS
    assert model_id_ok(value) == old
