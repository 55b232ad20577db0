"""Prose handoffs read as people write them: one test (or a few) per rule.

Each builds a small project in ``tmp_path`` and checks the exact lines of the block
(through ``build_summary`` and ``render_markdown`` with a fixed date).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from growth import assert_linear
from test_summary_phases import HANDOFF, INTERVENTIONS, LESSONS, TODAY, block, labelled, summary

from lets_hooks.summary import prose
from lets_hooks.summary.phases import DONE_ONLY, NOTHING_ACTIONABLE
from lets_hooks.summary.records import Section
from lets_hooks.summary.render import render_json


def priorities(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("**Priority", "**Handoff:**"))]


# --------------------------------------------------------------------------- priorities


def test_numbered_sections_give_priority_1_and_2(tmp_path: Path) -> None:
    """Two bullets under ## Priority 1 do not push the real ## Priority 2 out."""
    body = ("## Priority 1\n- first part of the task\n- second part of the task\n\n"
            "## Priority 2\n- the real second priority\n")
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** first part of the task",
        "**Priority 2:** the real second priority",
    ]


@pytest.mark.parametrize("heading", [
    "## Priority 1: Fix the CRLF reader", "## P1 — Fix the CRLF reader",
    "### Priority #1 - Fix the CRLF reader", "#### p1. Fix the CRLF reader",
    "## Priority 1 (urgent)\nFix the CRLF reader",
])
def test_a_heading_that_carries_the_task_gives_it(tmp_path: Path, heading: str) -> None:
    body = f"{heading}\nThe body says more than the task.\n- a detail\n\n## P2\nWrite docs.\n"
    if "(urgent)" in heading:
        body = f"{heading}\n\n## P2\nWrite docs.\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** Fix the CRLF reader", "**Priority 2:** Write docs."]


def test_numbered_sections_in_their_numbers_order_before_other_next_steps(
        tmp_path: Path) -> None:
    body = ("## Next steps\n- a plain next step\n\n### Priority 2: second\n\n"
            "#### Priority 1: first\n")
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** first", "**Priority 2:** second (… and 1 more in the handoff)"]


def test_only_priority_1_numbered_then_the_next_steps(tmp_path: Path) -> None:
    body = "## Priority 1\n- the one\n- its detail\n\n## Next steps\n- afterwards\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** the one", "**Priority 2:** afterwards"]


@pytest.mark.parametrize("heading", ["## Next steps", "### Next steps", "#### TODO",
                                     "## Remaining work", "## Not done yet"])
def test_next_step_sections_at_levels_2_to_4(tmp_path: Path, heading: str) -> None:
    body = f"# Handoff\n{heading}\n1. ordered one\n2) ordered two\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** ordered one", "**Priority 2:** ordered two"]


def test_list_items_at_their_own_indentation(tmp_path: Path) -> None:
    """Nested items are details; indented continuation lines join their item."""
    body = ("## Next steps\n  * the first step, which is long\n    and goes on here\n"
            "      - a nested detail\n  * the second step\n")
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** the first step, which is long and goes on here",
        "**Priority 2:** the second step"]


def test_sub_headings_under_next_steps_are_the_steps(tmp_path: Path) -> None:
    body = ("## Next steps\n### 1. Wire the hook\n- details\n- more details\n"
            "### Step 2: Time it\n\n### Docs\n- write the README section\n")
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** Wire the hook",
        "**Priority 2:** Time it (… and 1 more in the handoff)"]


def test_prose_parts_directly() -> None:
    found = prose.parts(())
    assert found == []
    assert prose.numbered_priority("Priority 12: far away") == prose.Role(
        prose.PRIORITIES, 12, "far away")
    assert prose.numbered_priority("Phase 1") is None
    assert prose.numbered_priority("Priorities") is None
    assert prose.role_of("Priorities") == prose.Role(prose.PRIORITIES)


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize("heading", ["Open questions", "Questions for the user",
                                     "Decisions needed", "To decide"])
def test_question_sections_are_outstanding_decisions(tmp_path: Path, heading: str) -> None:
    body = f"## Next\n- x\n\n## {heading}\n- Keep the limit?\n"
    assert labelled(block(tmp_path, {HANDOFF: body}), "Outstanding decisions") == [
        "**Outstanding decisions:**", "  - Keep the limit?"]


@pytest.mark.parametrize("heading", ["Answered questions", "Decisions made"])
def test_settled_questions_are_not_outstanding(tmp_path: Path, heading: str) -> None:
    body = f"## Next\n- x\n\n## {heading}\n- Keep the limit? Yes.\n"
    assert "**Outstanding decisions:** none" in block(tmp_path, {HANDOFF: body})


# --------------------------------------------------------------------------- do not repeat


@pytest.mark.parametrize("heading", ["Context notes", "Failed approaches", "Dead ends",
                                     "Don't retry", "Don\u2019t retry", "What didn't work"])
def test_what_not_to_repeat(tmp_path: Path, heading: str) -> None:
    body = f"## Next\n- x\n\n## {heading}\n- Parsing YAML by hand\n"
    assert labelled(block(tmp_path, {HANDOFF: body}), "Do not repeat") == [
        "**Do not repeat:**", "  - Parsing YAML by hand"]


def test_no_do_not_repeat_line_when_there_is_nothing(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: "## Next\n- x\n\n## Dead ends\nNone.\n"})
    assert not any(line.startswith("**Do not repeat") for line in lines)


# --------------------------------------------------------------------------- done work only


@pytest.mark.parametrize("body", [
    "## Done\n- split the readers\n",
    "## Completed\n- a\n\n## Shipped\n- b\n",
    "## Tasks\n- [x] a\n- [x] b\n",
    "<!-- state-snapshot v1 -->\n```yaml\nnext: []\ndiff: [{op: added, item: x}]\n```\n",
])
def test_a_handoff_of_done_work_only_is_warned_about(tmp_path: Path, body: str) -> None:
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        f"**Priority 1:** {NOTHING_ACTIONABLE}", f"**Handoff:** {DONE_ONLY}"]


def test_done_work_beside_next_steps_is_no_warning(tmp_path: Path) -> None:
    body = "## Done\n- split the readers\n\n## Next\n- time it\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == ["**Priority 1:** time it"]


def test_nothing_at_all_is_no_done_warning(tmp_path: Path) -> None:
    assert priorities(block(tmp_path, {HANDOFF: "## Notes\nNothing much.\n"})) == [
        f"**Priority 1:** {NOTHING_ACTIONABLE}"]


# --------------------------------------------------------------------------- approvals

APPROVALS = "Approved earlier, confirm again this session (approvals do not carry over)"


def test_approvals_are_named_to_be_confirmed_again(tmp_path: Path) -> None:
    body = ("## Next\n- x\n\n## Notes\n- The user approved force-pushing to `feat/x`.\n"
            "Pushing to main is not allowed. The cache flag was enabled for CI only.\n"
            "Deploys were never authorized. Retries are allowed again.\n"
            "```\nallowed = true\n```\n")
    assert labelled(block(tmp_path, {HANDOFF: body}), APPROVALS) == [
        f"**{APPROVALS}:**",
        "  - The user approved force-pushing to `feat/x`.",
        "  - The cache flag was enabled for CI only.",
        "  - Retries are allowed again.",
    ]


def test_approvals_in_the_state_snapshot(tmp_path: Path) -> None:
    body = ("<!-- state-snapshot v1 -->\n```yaml\nnext: [ship it]\n"
            "diff: [{op: enabled, item: the release workflow}]\n```\n")
    assert labelled(block(tmp_path, {HANDOFF: body}), APPROVALS)[1:] == [
        "  - enabled the release workflow"]


def test_no_approvals_no_line(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: "## Next\n- x\n"})
    assert not any(line.startswith("**Approved") for line in lines)


# --------------------------------------------------------------------------- stale paths


def test_versions_and_hosts_are_not_paths(tmp_path: Path) -> None:
    body = ("## Next\n- x\n\n## Notes\nTest on 3.11/3.12 and `3.9/3.10`; clone"
            " github.com/acme/tool.git or `gitlab.example.org/acme/tool.md`; see"
            " python/3.12 and `v1.2/v1.3`. But `docs/gone.md` and src/gone.py are real.\n")
    data = json.loads(render_json(summary(tmp_path, {HANDOFF: body})))
    assert data["stale_references"]["items"] == ["docs/gone.md", "src/gone.py"]


# --------------------------------------------------------------------------- false positives


def records(*items: Mapping[str, object]) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def test_false_positive_label_replaces_the_proxy(tmp_path: Path) -> None:
    log = records(*({"ts": "2026-11-20", "type": "rejection", "false_positive": n == 0}
                    for n in range(4)), *({"ts": "2026-11-21", "type": "nudge"}
                                          for _ in range(6)))
    lines = block(tmp_path, home={f"{INTERVENTIONS}/a.jsonl": log})
    assert "autoimmunity: rejection=1 total=10 rate=10.0%" in lines
    assert ("**Immune rate:** ⚠️ gate false-positive rate 10.0% (1 of 10 records labelled"
            " false positives): check whether the gates over-intervene") in lines


def test_without_a_label_the_proxy_stays(tmp_path: Path) -> None:
    log = records(*({"ts": "2026-11-20", "type": "rejection"} for _ in range(4)),
                  *({"ts": "2026-11-21", "type": "nudge"} for _ in range(6)))
    lines = block(tmp_path, home={f"{INTERVENTIONS}/a.jsonl": log})
    assert "autoimmunity: rejection=4 total=10 rate=40.0% (proxy)" in lines


def test_a_label_outside_the_period_does_not_count(tmp_path: Path) -> None:
    log = records({"ts": "2026-09-01", "type": "rejection", "false_positive": True},
                  *({"ts": "2026-11-20", "type": "rejection"} for _ in range(2)),
                  *({"ts": "2026-11-21", "type": "nudge"} for _ in range(8)))
    lines = block(tmp_path, home={f"{INTERVENTIONS}/a.jsonl": log})
    assert "autoimmunity: rejection=2 total=10 rate=20.0% (proxy)" in lines


def test_thresholds_compare_the_printed_figure(tmp_path: Path) -> None:
    """1 in 20 is 5.0%: printed as 5.0%, so no warning; 10,001 in 200,000 also prints
    5.0% and also gets none."""
    log = records({"ts": "2026-11-20", "type": "rejection"},
                  *({"ts": "2026-11-21", "type": "nudge"} for _ in range(19)))
    lines = block(tmp_path, home={f"{INTERVENTIONS}/a.jsonl": log})
    assert "autoimmunity: rejection=1 total=20 rate=5.0% (proxy)" in lines
    assert not any(line.startswith("**Immune rate") for line in lines)


# --------------------------------------------------------------------------- Global


@pytest.mark.parametrize("state", [None, "# State\n\n## Outstanding decisions\nNone.\n\n"
                                         "## Active blockers\n- [x] done\n"])
def test_global_says_none(tmp_path: Path, state: str | None) -> None:
    home = {".claude/STATE.md": state} if state is not None else {}
    assert "**Global:** none" in block(tmp_path, home=home)


# --------------------------------------------------------------------------- lessons


def test_misplaced_metadata_and_undated_lessons_are_warnings(tmp_path: Path) -> None:
    body = ("### [2026-11-20] late metadata\nfirst line\n> conf: 0.9 · seen: 2026-11-20 · obs: 5\n"
            "\n### no date here\n> conf: 0.9\n\n### [2026-11-21] fine\n> conf: 0.9\nok\n")
    result = summary(tmp_path, {LESSONS: body})
    assert result.warnings == (
        f"{LESSONS}: line 3 has a metadata line that is not the first line of its lesson;"
        " ignored (move it up)",
        f"{LESSONS}: line 5 has a ### lesson header without a [YYYY-MM-DD] date; not read"
        " as a lesson",
    )
    assert result.lesson_flags is not None  # the late line is neither metadata nor summary
    assert result.lesson_flags.items == ("fine — ok (conf 0.9)", "late metadata")


@pytest.mark.parametrize(("seen", "active"), [("2026-10-30", True), ("2026-10-29", False)])
def test_seen_within_30_days_includes_day_30(tmp_path: Path, seen: str, active: bool) -> None:
    body = f"### [2026-01-01] t\n> conf: 0.9 · seen: {seen} · obs: 3\nbody\n"
    result = summary(tmp_path, {LESSONS: body})
    assert (TODAY - dt.date.fromisoformat(seen)).days in (30, 31)
    assert result.lesson_flags is not None
    assert result.lesson_flags.items[0].startswith("[active]") is active


def test_a_lesson_with_two_model_lines_is_one_tagged_lesson(tmp_path: Path) -> None:
    body = ("### [2026-11-01] t\n> conf: 0.9 · seen: 2026-11-01 · obs: 1 · model: opus\n"
            "model: sonnet\n- model: haiku\nbody\n")
    result = summary(tmp_path, {LESSONS: body})
    assert result.model_tags is not None and result.model_tags.lessons_tagged == 1


# --------------------------------------------------------------------------- headings by meaning

RISKS = "Risks and gotchas"


@pytest.mark.parametrize("heading", ["Notes on the CRLF bug", "Problems solved today"])
def test_notes_and_solved_problems_are_not_blockers(tmp_path: Path, heading: str) -> None:
    body = f"## Next steps\n- x\n\n## {heading}\n- the reader kept the CR\n"
    lines = block(tmp_path, {HANDOFF: body})
    assert "**Active blockers:** none" in lines
    assert not any("the reader kept the CR" in line for line in lines)


def test_a_decision_log_is_not_outstanding_decisions(tmp_path: Path) -> None:
    body = "## Next steps\n- x\n\n## Decision log\n- 2026-11-20: keep the 32 MiB cap\n"
    lines = block(tmp_path, {HANDOFF: body})
    assert "**Outstanding decisions:** none" in lines
    assert not any("32 MiB" in line for line in lines)


@pytest.mark.parametrize("heading", ["Risks", "Gotchas", "Known risks", "Caveats"])
def test_risks_and_gotchas_get_their_own_line(tmp_path: Path, heading: str) -> None:
    body = (f"## Next steps\n- x\n\n## {heading}\n- the lock is advisory only\n\n"
            "## Dead ends\n- parsing YAML by hand\n")
    lines = block(tmp_path, {HANDOFF: body})
    assert labelled(lines, RISKS) == [f"**{RISKS}:**", "  - the lock is advisory only"]
    assert labelled(lines, "Do not repeat") == ["**Do not repeat:**",
                                                "  - parsing YAML by hand"]
    assert "**Active blockers:** none" in lines
    data = json.loads(render_json(summary(tmp_path, {HANDOFF: body})))
    assert data["handoff"]["risks"] == {"items": ["the lock is advisory only"], "more": 0}


def test_no_risks_no_line(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: "## Next steps\n- x\n\n## Risks\n- None.\n"})
    assert not any(line.startswith(f"**{RISKS}") for line in lines)


@pytest.mark.parametrize("heading", ["Tomorrow", "Plan for tomorrow", "Next session"])
def test_tomorrow_is_a_next_steps_heading(tmp_path: Path, heading: str) -> None:
    body = f"## Done\n- split the readers\n\n## {heading}\n- time the reader\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == ["**Priority 1:** time the reader"]


def test_prose_blockers_are_read_beside_the_snapshot_blocked(tmp_path: Path) -> None:
    body = ("<!-- state-snapshot v1 -->\n```yaml\nnext: [ship it]\n"
            "blocked: [{item: review pending, risk: H}]\n```\n\n"
            "## Remaining Issues\n- CRLF files still lose their last line\n"
            "- review pending (risk: H)\n")
    assert labelled(block(tmp_path, {HANDOFF: body}), "Active blockers") == [
        "**Active blockers:**", "  - review pending (risk: H)",
        "  - CRLF files still lose their last line"]


@pytest.mark.parametrize(("heading", "kind"), [
    ("Notes on the CRLF bug", prose.NOTES),
    ("Problems solved today", prose.DONE),
    ("Decision log", prose.DONE),
    ("Risks", prose.RISKS),
    ("Gotchas", prose.RISKS),
    ("Tomorrow", prose.PRIORITIES),
    ("Remaining Issues", prose.BLOCKERS),
    ("Questions for the user", prose.DECISIONS),
    ("Update on blockers", prose.BLOCKERS),
    ("Context notes", prose.AVOID),
    ("Failed approaches", prose.AVOID),
    ("Known issues", prose.BLOCKERS),
    ("Decisions made", prose.DONE),
    ("Next steps (after the risks are handled)", prose.PRIORITIES),
    ("Open questions: risks to consider", prose.DECISIONS),
    ("Notes (risks)", prose.NOTES),
    ("Week 48: blockers", prose.BLOCKERS),
])
def test_heading_roles(heading: str, kind: str) -> None:
    role = prose.role_of(heading)
    assert role is not None and role.kind == kind


def test_next_steps_past_priority_2_are_counted(tmp_path: Path) -> None:
    body = "## Next steps\n- one\n- two\n- three\n- four\n"
    assert priorities(block(tmp_path, {HANDOFF: body})) == [
        "**Priority 1:** one", "**Priority 2:** two (… and 2 more in the handoff)"]
    data = json.loads(render_json(summary(tmp_path, {HANDOFF: body})))
    assert data["handoff"]["more_steps"] == 2


def test_bold_markers_are_dropped_from_items(tmp_path: Path) -> None:
    body = ("## Priority 1: **Fix** the **CRLF** reader\n\n## Next steps\n"
            "- **Time** it\n\n## Blockers\n- **CI** is red\n- `f(**kwargs)` is **slow**\n")
    lines = block(tmp_path, {HANDOFF: body})
    assert priorities(lines) == ["**Priority 1:** Fix the CRLF reader",
                                 "**Priority 2:** Time it"]
    assert labelled(lines, "Active blockers")[1:] == ["  - CI is red",
                                                      "  - `f(**kwargs)` is slow"]


# --------------------------------------------------------------------------- approvals both ways


@pytest.mark.parametrize("sentence", [
    "The user OK'd force-pushing the topic branch.",
    "The user OK\u2019d the rename.",
    "It's fine to rebase onto main.",
    "Got the go-ahead to delete the old reader.",
    "The user gave the go ahead for the release.",
    "Got approval from ops to deploy on Friday.",
    "The user approved force-pushing to `feat/x`.",
    "Retries are allowed again.",
])
def test_approvals_are_caught(tmp_path: Path, sentence: str) -> None:
    body = f"## Next steps\n- x\n\n## Notes\n{sentence}\n"
    assert labelled(block(tmp_path, {HANDOFF: body}), APPROVALS) == [
        f"**{APPROVALS}:**", f"  - {sentence}"]


@pytest.mark.parametrize("sentence", [
    "The retry flag is enabled by default in the prod config.",
    "Tracing is enabled in the staging config.",
    "The deploy is not approved.",
    "There was no go-ahead for the deploy.",
    "It isn't fine to push to main.",
    "It is not OK to push to main.",
    "Is it fine to drop the cache?",
    "The migration still needs approval from ops.",
    "Still awaiting the go-ahead.",
    "Go ahead and merge it once CI is green.",
    "Deploys were never authorized.",
    "The user hasn't OK'd the rename.",
])
def test_what_is_not_an_approval(tmp_path: Path, sentence: str) -> None:
    body = f"## Next steps\n- x\n\n## Notes\n{sentence}\n"
    assert not any(line.startswith(f"**{APPROVALS}")
                   for line in block(tmp_path, {HANDOFF: body}))


# --------------------------------------------------------------------------- what it says of names


def test_what_the_handoff_says_of_the_names_it_mentions() -> None:
    text = ("The reader lives in `src/reader.py` (see `read_lines()`); `src/io.py` and\n"
            "`split_records()` were removed.\n"
            "- Renamed `a.py` to `b.py`.\n- `d.py` (renamed from `c.py`)\n"
            "- `h.py` was replaced by `i.py`.\n- `e.py` will be removed next week.\n"
            "- `f.py` was not deleted.\n- See docs/moved/guide.md and `gone_fn()`.\n"
            "```\nremoved `j.py`\n```\n")
    names = ["src/reader.py", "read_lines()", "src/io.py", "split_records()", "a.py", "b.py",
             "c.py", "d.py", "e.py", "f.py", "h.py", "i.py", "j.py", "docs/moved/guide.md",
             "gone_fn()"]
    removed, added = prose.reference_claims(text, names)
    assert removed == {"src/io.py", "split_records()", "a.py", "c.py", "h.py"}
    assert added == {"b.py", "d.py", "i.py"}  # "lives in" says where a thing is, not more


def test_the_headings_table_in_the_docs_is_what_the_reader_does() -> None:
    """Every example heading of docs/summary.md's table gets the role of its row."""
    import re

    docs = (Path(__file__).parent.parent / "docs" / "summary.md").read_text()
    kinds = {"Priority 1, 2 (numbered)": prose.PRIORITIES,
             "Priority 1, 2 (next steps)": prose.PRIORITIES,
             "**Do not repeat**": prose.AVOID, "finished work (no line)": prose.DONE,
             "**Risks and gotchas**": prose.RISKS,
             "**Outstanding decisions**": prose.DECISIONS,
             "**Active blockers**": prose.BLOCKERS, "notes (no line)": prose.NOTES}
    rows = [line.strip() for line in docs.splitlines()
            if line.strip().startswith("| ") and line.strip().split("|")[1].strip() in kinds]
    assert len(rows) == len(kinds) + 1
    checked = 0
    for row in rows:
        label, _, examples = (cell.strip() for cell in row.strip("|").split("|"))
        for heading in re.findall(r"`#+ ([^`]+)`", examples):
            role = prose.role_of(heading)
            assert role is not None and role.kind == kinds[label], heading
            if label.endswith("(numbered)"):
                assert role.number is not None, heading
            checked += 1
    assert checked >= 20


# --------------------------------------------------------------------------- linear time


MB = 1024 * 1024


@pytest.mark.parametrize(("name", "run"), [
    ("removal words", lambda n: prose.reference_claims("`a.py` removed " * (n // 15),
                                                       ["a.py"])),
    ("renames", lambda n: prose.reference_claims("renamed `a/b.py` to " * (n // 20),
                                                 ["a/b.py"])),
    ("one long sentence", lambda n: prose.reference_claims(
        "removed " + "`x.py` " * (n // 7), ["x.py", "y.py"])),
    ("approvals", lambda n: prose.approvals([Section("Notes", 2, (
        "it's fine to " * (n // 13),))])),
    ("enabled in", lambda n: prose.grants("enabled in " + "x" * n)),
    ("bold", lambda n: prose.plain("**a " * (n // 4))),
    ("topic words", lambda n: prose.role_of("on " * (n // 3))),
])
def test_the_readers_patterns_are_linear(name: str, run: Callable[[int], object]) -> None:
    """A megabyte costs a few times 16 what 64 KiB does, not 256 (``growth``)."""
    assert_linear(run, MB // 16, MB, name)
