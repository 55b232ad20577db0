"""The readers: what each one returns for the shapes writers produce, and that bad input
is a warning (never an exception)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks.summary import records
from lets_hooks.summary.records import Gate, LogEntry, Read, Section
from lets_hooks.summary.sources.context_log import CONTEXT_LOG, read_context_log
from lets_hooks.summary.sources.handoff import HANDOFF, read_handoff
from lets_hooks.summary.sources.ledger import read_model_ledger
from lets_hooks.summary.sources.lessons import LESSONS, read_lessons
from lets_hooks.summary.sources.memory_index import MEMORY_INDEX, read_memory_index
from lets_hooks.summary.sources.settings import read_local_settings, read_settings
from lets_hooks.summary.sources.state import read_state


def put(root: Path, name: str, body: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body.encode() if isinstance(body, str) else body)
    return root


# --------------------------------------------------------------------------- handoff


def test_handoff_parts(tmp_path: Path) -> None:
    root = put(tmp_path, HANDOFF, (
        "\ufeff---\ntitle: t\ndate: 2026-11-27\n---\n\n<!-- state-snapshot v1 -->\n\n"
        "~~~yaml\nnext: a\n~~~\n# Title\nintro\n## Part\n```\n## not a heading\n```\n"))
    read = read_handoff(root)
    assert read.warnings == ()
    handoff = read.value
    assert handoff is not None and not handoff.empty
    assert handoff.frontmatter == {"title": "t", "date": dt.date(2026, 11, 27)}
    assert handoff.snapshot == {"next": "a"}
    assert handoff.sections == (  # the blank line between block and title makes no section
        Section("Title", 1, ("intro",)),
        Section("Part", 2, ("```", "## not a heading", "```")),
    )


def test_the_handoff_is_read_once_into_one_record(tmp_path: Path) -> None:
    """The reader reads what the handoff says; the phases decide with that record only."""
    from dataclasses import replace

    from lets_hooks.summary.phases import handoff_view

    root = put(tmp_path, HANDOFF, (
        "---\nts: 2026-11-25T09:00:00Z\n---\n<!-- state-snapshot v1 -->\n```yaml\n"
        "next: []\ndiff: [{op: added, item: the reader}]\nblocked: ship it\n```\n"
        "## Priority 1: **Fix** the reader\n## Next steps\n- time it\n- _none_\n"
        "## Open questions\n- keep the cap?\n## Remaining issues\n- CRLF\n"
        "## Risks\n- the lock is advisory\n## Dead ends\n- YAML by hand\n"
        "## Done\n- [x] split\n- merged\n"
        "## Notes on the CRLF bug\nThe user OK'd it. `src/old.py` was removed; `main()`"
        " lives in `src/app.py`.\n"))
    handoff = read_handoff(root).value
    assert handoff is not None and handoff.reading is not None
    reading = handoff.reading
    assert reading == records.HandoffReading(
        changes=("added the reader",), blocked=("ship it",),
        priorities=("Fix the reader", "time it"), decisions=("keep the cap?",),
        blockers=("CRLF",), avoid=("YAML by hand",), risks=("the lock is advisory",),
        done=2, approvals=("The user OK'd it.",),
        date=records.HandoffDate(dt.date(2026, 11, 25), dt.datetime(
            2026, 11, 25, 9, tzinfo=dt.timezone.utc).timestamp(),
                                 "2026-11-25 09:00 UTC", "frontmatter ts"),
        paths=("src/old.py", "src/app.py"), functions=(("main()", "main"),),
        said_removed=frozenset({"src/old.py"}))  # "lives in" says where, not that it is new
    view = handoff_view(replace(handoff, reading=replace(
        reading, priorities=("from the record",), blockers=())))
    assert view is not None and view.priority_1 == "from the record"
    assert view.active_blockers.items == ("ship it",)


@pytest.mark.parametrize(("body", "warning"), [
    ("---\ntitle: [x\n---\n## Next\n- a\n",
     "frontmatter not valid YAML at line 3: did not find expected ',' or ']'; ignored"),
    ("---\ntitle: x\n## Next\n- a\n", "frontmatter has no closing '---'; read as prose"),
    ("---\n- a list\n---\n", "frontmatter is not a mapping; ignored"),
    ("<!-- state-snapshot v1 -->\n", "state-snapshot marker with no block after it"),
    ("<!-- state-snapshot v1 -->\n```yaml\nnext: [a]\n",
     "state-snapshot block has no closing fence; ignored"),
    ("<!-- state-snapshot v1 -->\n```yaml\n- just a list\n```\n",
     "state-snapshot block is not a mapping; ignored"),
    ("<!-- state-snapshot v1 -->\n```yaml\nctx: no next here\n```\n",
     "state-snapshot block has no 'next'"),
])
def test_handoff_problems_are_one_warning(tmp_path: Path, body: str, warning: str) -> None:
    read = read_handoff(put(tmp_path, HANDOFF, body))
    assert read.warnings == (f"{HANDOFF}: {warning}",)
    assert read.value is not None


def test_snapshot_marker_may_sit_below_some_prose(tmp_path: Path) -> None:
    body = "# Handoff\n\n<!--state-snapshot v1-->\nnext: [x]\n\n## Notes\n- n\n"
    handoff = read_handoff(put(tmp_path, HANDOFF, body)).value
    assert handoff is not None and handoff.snapshot == {"next": ["x"]}
    assert [s.heading for s in handoff.sections] == ["Handoff", "Notes"]


# --------------------------------------------------------------------------- lessons


def test_code_in_a_lesson_is_not_its_summary(tmp_path: Path) -> None:
    body = "### [2026-11-01] fenced\n```\nmodel: not a tag\n## not a heading\n```\nthe real line\n"
    lessons = read_lessons(put(tmp_path, LESSONS, body)).value
    assert lessons is not None
    [lesson] = lessons.lessons
    assert (lesson.summary, lesson.model) == ("the real line", None)


@pytest.mark.parametrize("indent", ["", "  ", "\t", "\u00a0", "\u3000", "\f"])
def test_every_reader_takes_the_same_lines_for_fences(tmp_path: Path, indent: str) -> None:
    """``text.is_fence``, the one rule: a fence after any indentation (prose and MEMORY.md
    read it so; the lessons and context-log readers once missed one indented by a
    non-breaking space, an ideographic space or a form feed)."""
    fence = indent + "```\n"
    lessons = read_lessons(put(tmp_path, LESSONS, "### [2026-11-01] real\n" + fence
                               + "### [2026-11-02] inside\n" + fence)).value
    assert lessons is not None and [x.title for x in lessons.lessons] == ["real"]
    log = read_context_log(put(tmp_path, CONTEXT_LOG, "## [2026-11-01][ref:1] real\n" + fence
                               + "## [2026-11-02][ref:1] inside\n" + fence)).value
    assert log is not None and [e.title for e in log.entries] == ["real"]


def test_lessons_metadata_shapes(tmp_path: Path) -> None:
    body = ("## Graduated Gates\n| id | trigger | check |\n|---|---|---|\n| G1 | t | c |\n"
            "| G2 | short |\n\n"
            "### [2026-11-01] pipes work too\n> conf: 0.8 | seen: 2026-11-02 | obs: 2\n"
            "- first body line\n\n"
            "### [2026-11-03] model inline\n> conf: 0.5 · seen: 2026-11-03 · obs: 1 · model: opus\n"
            "text\n\n"
            "### [2026-11-04] no metadata\n> a quote, not metadata\n\n"
            "### [2026-02-30] impossible date\n\n"
            "### Not a lesson\nbody\n")
    read = read_lessons(put(tmp_path, LESSONS, body))
    assert read.warnings == (
        f"{LESSONS}: Graduated Gates table: line 5 has too few cells; skipped",
        f"{LESSONS}: line 18 has a lesson header with an impossible date; skipped",
        f"{LESSONS}: line 20 has a ### lesson header without a [YYYY-MM-DD] date;"
        " not read as a lesson",
    )
    lessons = read.value
    assert lessons is not None and lessons.gates == (Gate("G1", "t", "c"),)
    first, second, third = lessons.lessons
    assert (first.conf, first.seen, first.obs, first.summary) == (
        0.8, dt.date(2026, 11, 2), 2, "first body line")
    assert (second.model, second.has_meta) == ("opus", True)
    assert (third.has_meta, third.conf, third.summary) == (False, None, "a quote, not metadata")


@pytest.mark.parametrize("meta", [
    "conf: 1.5", "conf: high", "seen: 2026-13-01", "obs: many", "conf 0.5 · obs: 1",
    "conf: · obs: 1", "seen: 2026-W48-7", "seen: 20261129", "obs: -2", "conf: nan",
])
def test_unreadable_metadata_is_reported(tmp_path: Path, meta: str) -> None:
    read = read_lessons(put(tmp_path, LESSONS,
                                    f"### [2026-11-01] x\n> {meta}\nbody\n"))
    assert read.warnings == (f"{LESSONS}: line 2 has metadata that cannot be read;"
                             " read as legacy lessons",)
    assert read.value is not None and read.value.lessons[0].has_meta is False


# --------------------------------------------------------------------------- context log


def test_context_log_entries(tmp_path: Path) -> None:
    body = ("# Log\n\n## [2026-11-01][DECISION][ttl:30d][ref:4] canonical\n\nfirst line\n"
            "second line\n\n## [2026-11-02] [bug] [risk:H] [ref: 0] [ttl:7d] any order\n"
            "```\n## [2026-11-03][X][ttl:1d][ref:9] inside a fence: not an entry\n```\n"
            "### a sub-heading\n## [2026-11-04][ref:3] last, no body\n")
    read = read_context_log(put(tmp_path, CONTEXT_LOG, body))
    assert read.warnings == ()
    log = read.value
    assert log is not None and log.entries == (
        LogEntry(dt.date(2026, 11, 1), "DECISION", 4, "canonical", "first line", 3),
        LogEntry(dt.date(2026, 11, 2), "bug", 0, "any order", None, 8),
        LogEntry(dt.date(2026, 11, 4), None, 3, "last, no body", None, 13),
    )


# --------------------------------------------------------------------------- MEMORY.md


def test_memory_sections(tmp_path: Path) -> None:
    body = ("# M\n## A <!-- #always -->\na\n### A.1\na1\n## B <!--#on-demand-->\nb\n"
            "### C <!-- #always -->\nc\n\n\n")
    index = read_memory_index(put(tmp_path, MEMORY_INDEX, body)).value
    assert index is not None and index.tagged
    tagged = [(s.title, s.tag, s.text) for s in index.sections if s.tag]
    assert tagged == [("A", "always", "## A <!-- #always -->\na\n### A.1\na1"),
                      ("B", "on-demand", "## B <!--#on-demand-->\nb"),
                      ("C", "always", "### C <!-- #always -->\nc")]


# --------------------------------------------------------------------------- ~/.claude


def test_ledger_date(tmp_path: Path) -> None:
    ledger = ".claude/memory/model-diff-ledger.md"
    home = put(tmp_path, ledger, "# L\nlast-analysis: '2026-10-01'\n")
    assert read_model_ledger(home).value == records.ModelLedger(dt.date(2026, 10, 1))
    put(tmp_path, ledger, "last-analysis: soon\n")
    read = read_model_ledger(home)
    assert read.value == records.ModelLedger(None)
    assert read.warnings == ("~/.claude/memory/model-diff-ledger.md: line 1: last-analysis is"
                             " not a YYYY-MM-DD date; ignored",)


@pytest.mark.parametrize(("body", "warning"), [
    ("[]", "top level is not a JSON object; check skipped"),
    ('{"permissions": {"allow": "Bash(*)"}}', "permissions.allow is not a list; check skipped"),
    ("[" * 100_000, "nested too deeply to read; check skipped"),
])
def test_local_settings_shapes(tmp_path: Path, body: str, warning: str) -> None:
    read = read_local_settings(put(tmp_path, ".claude/settings.local.json", body))
    assert (read.value, read.warnings) == (None, (f"~/.claude/settings.local.json: {warning}",))


# --------------------------------------------------------------------------- never raises

READERS: list[tuple[str, Callable[[Path], Read[Any]]]] = [
    (HANDOFF, read_handoff),
    (LESSONS, read_lessons),
    (CONTEXT_LOG, read_context_log),
    (MEMORY_INDEX, read_memory_index),
    (".claude/STATE.md", read_state),
    (".claude/settings.json", read_settings),
    (".claude/settings.local.json", read_local_settings),
    (".claude/memory/model-diff-ledger.md", read_model_ledger),
]


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=400) | st.text(
    alphabet=st.sampled_from(list("#[]:-|>`~{}\"' \n\r\t·0123456789abcdefgrntyl*<!")),
    max_size=400).map(lambda text: text.encode()))
def test_no_reader_raises_on_any_bytes(tmp_path_factory: pytest.TempPathFactory,
                                       data: bytes) -> None:
    root = tmp_path_factory.mktemp("any")
    for name, reader in READERS:
        put(root, name, data)
        read = reader(root)
        assert all(isinstance(w, str) and "\n" not in w for w in read.warnings)


@pytest.mark.parametrize(("line", "heading"), [
    ("## Next steps", "Next steps"), ("## Next steps ##", "Next steps"), ("### C#", "C#"),
    ("## Gate #3", "Gate #3"), ("#  spaced  ", "spaced"),
])
def test_heading_text(tmp_path: Path, line: str, heading: str) -> None:
    handoff = read_handoff(put(tmp_path, HANDOFF, f"{line}\n- x\n")).value
    assert handoff is not None and [s.heading for s in handoff.sections] == [heading]


# --------------------------------------------------------------------------- symlinks


@pytest.mark.parametrize(("name", "reader"), [
    (HANDOFF, read_handoff),
    (LESSONS, read_lessons),
    (CONTEXT_LOG, read_context_log),
    (MEMORY_INDEX, read_memory_index),
])
def test_project_file_linking_out_of_the_project_is_refused(
        tmp_path: Path, name: str, reader: Callable[[Path], Read[Any]]) -> None:
    """A cloned repository's symlink must not make the summary print a private file."""
    secret = tmp_path / "home" / "secret.md"
    put(tmp_path / "home", "secret.md", "## Next\n- PRIVATE-KEY-TEXT\n")
    root = tmp_path / "project"
    (root / name).parent.mkdir(parents=True)
    (root / name).symlink_to(secret)
    read = reader(root)
    assert read.value is None
    assert read.warnings == (f"{name}: leads out of project - refused, not followed",)
    # a link that stays inside the project is still followed
    put(root, "notes/real.md", "## Next\n- inside\n")
    (root / name).unlink()
    (root / name).symlink_to(root / "notes" / "real.md")
    assert reader(root).value is not None


def test_a_fact_is_held_in_whole_words_only() -> None:
    """MEMORY.md holds a fact said in the same words whatever their case, emphasis and
    punctuation; a word that runs on in the text ("xabc" for "abc") is another word."""
    from lets_hooks.summary.sources.text import Facts

    assert Facts("We decided: **Abc**, def\nghi!").holds("abc def ghi")
    assert not Facts("We decided: xabc def ghiy for now.").holds("abc def ghi")
    assert not Facts("We decided: abc def ghiy for now.").holds("abc def ghi")
