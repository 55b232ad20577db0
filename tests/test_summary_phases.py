"""One test (or a few) per rule of the summary, each on a small project and home folder.

The folders are written into ``tmp_path`` from the dictionaries below; the block is built
through the library (``build_summary`` + ``render_markdown``) with a fixed date, and the
assertions name the exact lines a rule adds or leaves out.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from lets_hooks.summary import build_summary
from lets_hooks.summary.records import Listing, Summary
from lets_hooks.summary.render import render_json, render_markdown

TODAY = dt.date(2026, 11, 29)
HANDOFF = "memory/session-handoff-LATEST.md"
LESSONS = "tasks/lessons.md"
LOG = "memory/context-log.md"
MEMORY = "memory/MEMORY.md"
INTERVENTIONS = ".claude/.harness/interventions"


def write(base: Path, files: Mapping[str, str | bytes]) -> None:
    for name, body in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body.encode() if isinstance(body, str) else body)


def summary(tmp_path: Path, project: Mapping[str, str | bytes] | None = None,
            home: Mapping[str, str | bytes] | None = None, today: dt.date = TODAY) -> Summary:
    root, user = tmp_path / "project", tmp_path / "home"
    root.mkdir(parents=True, exist_ok=True)
    user.mkdir(parents=True, exist_ok=True)
    write(root, project or {})
    write(user, home or {})
    return build_summary(root, user, today)


def block(tmp_path: Path, project: Mapping[str, str | bytes] | None = None,
          home: Mapping[str, str | bytes] | None = None, today: dt.date = TODAY) -> list[str]:
    return render_markdown(summary(tmp_path, project, home, today)).splitlines()


def jsonl(*records: Mapping[str, object]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def labelled(lines: list[str], label: str) -> list[str]:
    """The ``**label:**`` line and its indented items."""
    for index, line in enumerate(lines):
        if line.startswith(f"**{label}"):
            found = [line]
            for item in lines[index + 1:]:
                if not item.startswith("  "):
                    break
                found.append(item)
            return found
    return []


# --------------------------------------------------------------------------- missing files


def test_nothing_at_all_prints_the_fresh_block(tmp_path: Path) -> None:
    assert block(tmp_path) == [
        "## Session Ready", "", "[No handoff — starting fresh]", "", "**Global:** none", "",
        "Next: Ready. What should we start with?",
    ]


def test_empty_handoff_is_no_handoff(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: "---\ntitle: x\n---\n\n   \n"})
    assert "[No handoff — starting fresh]" in lines
    assert not any(line.startswith("**Priority") for line in lines)


def test_missing_files_skip_their_phase_silently(tmp_path: Path) -> None:
    result = summary(tmp_path, {HANDOFF: "## Next\n- one\n"})
    assert result.warnings == ()
    assert (result.lesson_flags, result.memory_alerts) == (None,) * 2
    assert result.global_items == Listing(())  # shown as "**Global:** none"
    assert (result.model_tags, result.context_rot, result.autoimmunity) == (None,) * 3
    assert result.environment_alerts == () and result.gates == ()


# --------------------------------------------------------------------------- Phase 0.5


@pytest.mark.parametrize(("model", "alert"), [
    ("opus", False), ("claude-fable-5[1m]", False), ("claude-sonnet-4-6[200k]", False),
    ("claude-opus-3", True), ("gpt-4o", True), ("", True), (7, True), (None, True),
])
def test_model_id_is_checked_against_the_list(tmp_path: Path, model: object,
                                              alert: bool) -> None:
    lines = block(tmp_path, home={".claude/settings.json": json.dumps({"model": model})})
    shown = "null" if model is None else str(model)
    expected = [f'  - ⚠️ ~/.claude/settings.json: model "{shown}" is not a known model id;'
                " update it"]
    assert labelled(lines, "Environment alerts")[1:] == (expected if alert else [])


def test_settings_without_model_key_raise_nothing(tmp_path: Path) -> None:
    assert labelled(block(tmp_path, home={".claude/settings.json": "{}"}),
                    "Environment alerts") == []


@pytest.mark.parametrize(("count", "alert"), [(0, False), (5, False), (6, True), (40, True)])
def test_allow_entries_over_five_are_an_alert(tmp_path: Path, count: int, alert: bool) -> None:
    body = json.dumps({"permissions": {"allow": [f"Bash(x{i})" for i in range(count)]}})
    lines = block(tmp_path, home={".claude/settings.local.json": body})
    expected = ["**Environment alerts:**",
                f"  - ⚠️ ~/.claude/settings.local.json: permissions.allow has {count} entries"
                " (more than 5); prune it"]
    assert labelled(lines, "Environment alerts") == (expected if alert else [])


def test_bad_settings_json_is_one_warning_and_no_alert(tmp_path: Path) -> None:
    result = summary(tmp_path, home={".claude/settings.json": '{"model": "gpt-4o",'})
    assert result.environment_alerts == ()
    [warning] = result.warnings
    assert warning.startswith("~/.claude/settings.json: not valid JSON at line 1")


# --------------------------------------------------------------------------- Phase 1: handoff

SNAPSHOT = """---
title: handoff
---
<!-- state-snapshot v1 -->
```yaml
ts: 2026-11-28
ctx: summary work
next:
  - finish the reader
  - {item: write the tests, why: every rule needs one}
  - third thing
diff:
  - {op: added, item: the reader, why: one per file}
  - {op: removed, item: the old parser}
blocked:
  - {item: review pending, risk: H}
  - plain string blocker
```

## Next steps
- a prose priority that the snapshot overrides

## Outstanding decisions
- keep or drop the cache?
"""


def test_snapshot_next_gives_priorities_one_and_two(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: SNAPSHOT})
    assert lines[2:4] == ["**Priority 1:** finish the reader",
                          "**Priority 2:** write the tests (every rule needs one)"
                          " (… and 1 more in the handoff)"]


def test_snapshot_diff_is_the_recent_changes_line(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: SNAPSHOT})
    assert ("**Recent changes:** added the reader (one per file); removed the old parser"
            in lines)


def test_snapshot_blocked_are_the_active_blockers(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: SNAPSHOT})
    assert labelled(lines, "Active blockers") == [
        "**Active blockers:**", "  - review pending (risk: H)", "  - plain string blocker"]
    assert labelled(lines, "Outstanding decisions") == [
        "**Outstanding decisions:**", "  - keep or drop the cache?"]


def test_snapshot_fields_may_be_single_strings(tmp_path: Path) -> None:
    body = ("<!-- state-snapshot v1 -->\n```yaml\nnext: only one thing\n"
            "diff: rewrote the reader\nblocked: waiting for CI\n```\n")
    lines = block(tmp_path, {HANDOFF: body})
    assert "**Priority 1:** only one thing" in lines
    assert not any(line.startswith("**Priority 2:**") for line in lines)
    assert "**Recent changes:** rewrote the reader" in lines
    assert labelled(lines, "Active blockers") == ["**Active blockers:**",
                                                  "  - waiting for CI"]


def test_snapshot_as_bare_yaml_lines_up_to_a_blank_line(tmp_path: Path) -> None:
    body = ("---\nt: 1\n---\n<!-- state-snapshot v1 -->\nnext: [bare one, bare two]\n"
            "blocked: []\n\n## Blockers\n- read beside the snapshot's empty blocked\n")
    lines = block(tmp_path, {HANDOFF: body})
    assert lines[2:4] == ["**Priority 1:** bare one", "**Priority 2:** bare two"]
    assert labelled(lines, "Active blockers") == [
        "**Active blockers:**", "  - read beside the snapshot's empty blocked"]
    assert "**Recent changes:** none" in lines  # a block without diff


def test_no_snapshot_no_recent_changes_line_and_prose_fallback(tmp_path: Path) -> None:
    body = """# Handoff

## Completed
- built the thing

## Priority 1
Ship the summary command.

## Priority 2
- [ ] write its README section
- [x] something already done

## Open decisions
- which layout for JSON?

## Remaining issues
- the benchmark is slow
"""
    result = summary(tmp_path, {HANDOFF: body})
    lines = render_markdown(result).splitlines()
    assert lines[2:4] == ["**Priority 1:** Ship the summary command.",
                          "**Priority 2:** write its README section"]
    assert not any(line.startswith("**Recent changes") for line in lines)
    assert labelled(lines, "Outstanding decisions")[1:] == ["  - which layout for JSON?"]
    assert labelled(lines, "Active blockers")[1:] == ["  - the benchmark is slow"]
    assert result.handoff is not None and result.handoff.source == "prose"


def test_handoff_with_nothing_actionable_says_so(tmp_path: Path) -> None:
    lines = block(tmp_path, {HANDOFF: "# Handoff\n\n## Completed\n- everything\n"})
    assert lines[2] == ("**Priority 1:** no next step found in the handoff; ask the user what"
                        " to work on first")
    assert "**Outstanding decisions:** none" in lines and "**Active blockers:** none" in lines


def test_bad_snapshot_yaml_warns_once_and_falls_back_to_prose(tmp_path: Path) -> None:
    body = ("<!-- state-snapshot v1 -->\n```yaml\nnext: [unclosed\n```\n\n"
            "## Next\n- from the prose\n")
    result = summary(tmp_path, {HANDOFF: body})
    assert result.handoff is not None and result.handoff.priority_1 == "from the prose"
    [warning] = result.warnings
    # YAML notices the unclosed list where the block ends: the closing fence, line 4
    assert warning.startswith(f"{HANDOFF}: state-snapshot block not valid YAML at line 4:")


def test_impossible_yaml_date_is_a_warning_not_a_traceback(tmp_path: Path) -> None:
    body = "<!-- state-snapshot v1 -->\n```yaml\nts: 2026-13-45\nnext: [x]\n```\n"
    result = summary(tmp_path, {HANDOFF: body})
    assert len(result.warnings) == 1 and "not valid YAML" in result.warnings[0]


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    body = "<!-- state-snapshot v1 -->\n```yaml\n" + "\n".join(levels) + "\nnext: [x]\n```\n"
    result = summary(tmp_path, {HANDOFF: body})
    assert [w for w in result.warnings if "too large" in w]
    assert render_json(result)  # and the JSON rendering does not try to expand it


def test_crlf_handoff_reads_like_lf(tmp_path: Path) -> None:
    first = block(tmp_path / "a", {HANDOFF: SNAPSHOT})
    second = block(tmp_path / "b", {HANDOFF: SNAPSHOT.replace("\n", "\r\n")})
    assert first == second


def test_unquoted_yaml_dates_are_iso_strings_in_json(tmp_path: Path) -> None:
    data = json.loads(render_json(summary(tmp_path, {HANDOFF: SNAPSHOT})))
    assert data["handoff"]["state_snapshot"]["ts"] == "2026-11-28"


# --------------------------------------------------------------------------- stale paths


def test_stale_path_references_are_checked_against_the_tree(tmp_path: Path) -> None:
    body = ("## Notes\nEdited `src/kept.py` and `src/gone.py`, see docs/moved/guide.md.\n"
            "Also `README.md`, `~/.claude/notes.md`, `/etc/hosts`, https://x.org/a/b.html,"
            " `origin/main`, `os.path`, `../outside.py` and `memory/`.\n")
    project = {HANDOFF: body, MEMORY: "# Memory\n", "src/kept.py": "", "README.md": "",
               "memory/x": ""}
    lines = block(tmp_path, project, home={".claude/notes.md": ""})
    assert labelled(lines, "Memory alerts") == [
        "**Memory alerts:**",
        "  - stale reference: `src/gone.py` is named in the handoff but does not exist",
        "  - stale reference: `docs/moved/guide.md` is named in the handoff but does not exist",
    ]


def test_stale_references_are_checked_without_memory_md(tmp_path: Path) -> None:
    """No MEMORY.md: the stale reference is still said; nothing stale, no alerts line."""
    lines = block(tmp_path, {HANDOFF: "## Next\n- fix `src/gone.py`\n"})
    assert labelled(lines, "Memory alerts") == [
        "**Memory alerts:**",
        "  - stale reference: `src/gone.py` is named in the handoff but does not exist"]
    lines = block(tmp_path / "kept", {HANDOFF: "## Next\n- fix `src/kept.py`\n",
                                      "src/kept.py": ""})
    assert labelled(lines, "Memory alerts") == []


# --------------------------------------------------------------------------- Phase 2.0


GATES = """# Lessons

## Graduated Gates (always on)
| trigger | id | check | note |
|:--------|:--:|-------|------|
| commit/push | G1 | asked to commit? | x |
| a \\| pipe | G2 | escaped pipes work | y |

## Other
"""


def test_graduated_gates_one_line_per_gate_trigger_to_check(tmp_path: Path) -> None:
    lines = block(tmp_path, {LESSONS: GATES})
    start = lines.index("**Graduated gates (check before acting · never run automatically):**")
    assert lines[start + 1:start + 4] == [
        "  G1 commit/push → asked to commit?",
        "  G2 a | pipe → escaped pipes work",
        "  (when a trigger fires: pause, check, and ask the user if unsure)",
    ]


def test_no_gates_section_no_gates_lines(tmp_path: Path) -> None:
    lines = block(tmp_path, {LESSONS: "# Lessons\n"})
    assert not any(line.startswith("**Graduated gates") for line in lines)
    assert "**Lesson flags:** none" in lines


def test_gates_table_without_the_columns_is_a_warning(tmp_path: Path) -> None:
    body = "## Graduated Gates\n| name | when |\n|---|---|\n| a | b |\n"
    result = summary(tmp_path, {LESSONS: body})
    assert result.gates == ()
    assert result.warnings == (
        f"{LESSONS}: Graduated Gates table needs id, trigger and check columns",)


# --------------------------------------------------------------------------- Phase 2.1


def lesson(day: str, title: str, meta: str | None, body: str = "The body line.") -> str:
    return f"### [{day}] {title}\n" + (f"> {meta}\n" if meta else "") + body + "\n\n"


def test_lessons_filtered_by_conf_seen_and_obs(tmp_path: Path) -> None:
    body = "# Lessons\n\n" + "".join([
        lesson("2026-01-01", "verified", "conf: 0.7 · seen: 2026-05-01 · obs: 2", "Why: x."),
        lesson("2026-01-02", "normal", "conf: 0.5 · seen: 2026-05-01 · obs: 9"),
        lesson("2026-01-03", "just below normal", "conf: 0.49 · seen: 2026-05-01 · obs: 1"),
        lesson("2026-01-04", "low but active", "conf: 0.2 · seen: 2026-11-01 · obs: 3"),
        lesson("2026-01-05", "active verified", "conf: 0.9 · seen: 2026-11-28 · obs: 5"),
        lesson("2026-01-06", "seen 30 days ago", "conf: 0.3 · seen: 2026-10-30 · obs: 7"),
        lesson("2026-01-07", "legacy", None),
    ])
    assert labelled(block(tmp_path, {LESSONS: body}), "Lesson flags") == [
        "**Lesson flags:**",
        "  - [active] active verified — The body line. (conf 0.9, obs 5, seen 2026-11-28)",
        "  - [active] low but active (conf 0.2, obs 3, seen 2026-11-01)",
        "  - [active] seen 30 days ago (conf 0.3, obs 7, seen 2026-10-30)",  # day 30 counts
        "  - verified — Why: x. (conf 0.7)",
        "  - normal (conf 0.5)",  # seen 2026-05-01: newer than the legacy lesson's date
        "  - legacy",
    ]


def test_lesson_flags_are_capped_with_a_count(tmp_path: Path) -> None:
    body = "".join(lesson(f"2026-02-{day:02d}", f"lesson {day}", "conf: 0.6")
                   for day in range(1, 26))
    lines = labelled(block(tmp_path, {LESSONS: body}), "Lesson flags")
    assert len(lines) == 12 and lines[-1] == "  - … and 15 more"
    assert lines[1] == "  - lesson 25 (conf 0.6)"  # newest first within a tier


def test_unreadable_lesson_metadata_is_a_warning_and_a_legacy_lesson(tmp_path: Path) -> None:
    body = lesson("2026-03-01", "odd meta", "conf: high · seen: soon")
    result = summary(tmp_path, {LESSONS: body})
    assert result.lesson_flags is not None and result.lesson_flags.items == ("odd meta",)
    assert result.warnings == (
        f"{LESSONS}: line 2 has metadata that cannot be read; read as legacy lessons",)


# --------------------------------------------------------------------------- Phase 2.2


def tagged_lessons(*days: str) -> str:
    return "".join(lesson(day, f"tagged {day}", f"conf: 0.6 · seen: {day} · model: opus")
                   for day in days)


def test_model_tags_count_lessons_and_records_since_the_ledger(tmp_path: Path) -> None:
    lessons = tagged_lessons("2026-10-01", "2026-11-02", "2026-11-20")
    records = jsonl({"ts": "2026-10-20T00:00:00Z", "type": "x", "model": "opus"},
                    {"date": "2026-11-05", "ts": "2026-01-01", "type": "x", "model": "haiku"},
                    {"ts": "2026-11-06T00:00:00Z", "type": "x"},
                    {"ts": "2026-11-07T00:00:00Z", "type": "x", "model": ""})
    ledger = "# ledger\nlast-analysis: 2026-11-01\n"
    result = summary(tmp_path, {LESSONS: lessons},
                     {f"{INTERVENTIONS}/a.jsonl": records,
                      ".claude/memory/model-diff-ledger.md": ledger})
    assert result.model_tags is not None
    assert result.model_tags.line == "model_tags: total=5 new=3 days_elapsed=28"
    assert result.model_analysis is None  # new=3 < 5


def test_model_tag_on_its_own_line_counts(tmp_path: Path) -> None:
    body = "### [2026-11-20] a lesson\n> conf: 0.6 · seen: 2026-11-20 · obs: 1\nmodel: sonnet\n"
    result = summary(tmp_path, {LESSONS: body})
    assert result.model_tags is not None and result.model_tags.total == 1


def test_without_ledger_the_baseline_is_the_earliest_tag(tmp_path: Path) -> None:
    lessons = tagged_lessons("2026-11-01", "2026-11-02", "2026-11-03")
    records = jsonl(*({"ts": f"2026-11-{d:02d}T00:00:00Z", "model": "m"} for d in (4, 5, 6)))
    result = summary(tmp_path, {LESSONS: lessons}, {f"{INTERVENTIONS}/a.jsonl": records})
    lines = render_markdown(result).splitlines()
    assert "model_tags: total=6 new=5 days_elapsed=28" in lines
    assert ("**Model analysis:** 💡 model-difference analysis is due (new=5, days_elapsed=28):"
            " ask for a model analysis to group the tags and find rules worth promoting"
            in lines)


@pytest.mark.parametrize(("today", "shown"), [
    (dt.date(2026, 11, 14), False), (dt.date(2026, 11, 15), True)])
def test_model_analysis_needs_fourteen_days(tmp_path: Path, today: dt.date,
                                            shown: bool) -> None:
    lessons = tagged_lessons(*(f"2026-11-{d:02d}" for d in range(2, 8)))
    ledger = {".claude/memory/model-diff-ledger.md": "last-analysis: 2026-11-01\n"}
    result = summary(tmp_path, {LESSONS: lessons}, ledger, today=today)
    assert (result.model_analysis is not None) is shown


def test_model_tags_undated_baseline_is_n_a(tmp_path: Path) -> None:
    records = jsonl({"type": "x", "model": "opus"})
    result = summary(tmp_path, home={f"{INTERVENTIONS}/a.jsonl": records})
    assert result.model_tags is not None
    assert result.model_tags.line == "model_tags: total=1 new=0 days_elapsed=N/A"


def test_model_tags_omitted_when_zero_or_both_sources_missing(tmp_path: Path) -> None:
    assert summary(tmp_path / "a").model_tags is None
    zero = summary(tmp_path / "b", {LESSONS: lesson("2026-11-01", "untagged", None)})
    assert zero.model_tags is None
    assert not [line for line in render_markdown(zero).splitlines()
                if line.startswith("model_tags")]


# --------------------------------------------------------------------------- Phase 2.3


def log_entry(day: str, ref: int, title: str = "entry") -> str:
    return f"## [{day}][NOTE][ttl:30d][ref:{ref}] {title}\nbody\n\n"


def test_context_rot_skips_ref0_entries_older_than_90_days(tmp_path: Path) -> None:
    log = "# Context log\n\n" + "".join([
        log_entry("2026-08-31", 0),  # 90 days: kept
        log_entry("2026-08-30", 0),  # 91 days: skipped
        log_entry("2025-01-01", 0),  # skipped
        log_entry("2025-01-01", 1),  # referenced: kept
        "## [2026-11-01] [NOTE]  [ttl:7d] [ref:0] [risk:H] spaced and extra tags\n",
    ])
    lines = block(tmp_path, {LOG: log})
    assert "context_rot: total=5 skipped=2 rate=40.0%" in lines


def test_context_rot_rate_is_n_a_on_an_empty_log(tmp_path: Path) -> None:
    assert "context_rot: total=0 skipped=0 rate=N/A" in block(tmp_path, {LOG: "# log\n"})


def test_context_rot_rounds_halves_up(tmp_path: Path) -> None:
    log = log_entry("2020-01-01", 0) + "".join(log_entry("2026-11-01", 1) for _ in range(15))
    assert "context_rot: total=16 skipped=1 rate=6.3%" in block(tmp_path, {LOG: log})


def test_context_rot_ages_ignore_the_file_time(tmp_path: Path) -> None:
    result = summary(tmp_path, {LOG: log_entry("2020-01-01", 0)})
    os.utime(tmp_path / "project" / LOG, (TODAY.toordinal(), 10**9 * 2))
    again = build_summary(tmp_path / "project", tmp_path / "home", TODAY)
    assert result.context_rot == again.context_rot
    assert again.context_rot is not None and again.context_rot.skipped == 1


def test_context_log_headers_without_date_or_ref_warn(tmp_path: Path) -> None:
    """What the warning says is what is done: ``## Archive`` counts nowhere."""
    log = log_entry("2026-11-01", 0) + "## [2026-11-02][NOTE] no ref\n## Archive\n"
    result = summary(tmp_path, {LOG: log})
    assert result.context_rot is not None and result.context_rot.line == (
        "context_rot: total=1 skipped=0 rate=0.0%")
    assert result.warnings == (f"{LOG}: lines 4, 5 have an entry header without a readable"
                               " [YYYY-MM-DD] date and [ref:N]; not counted as entries",)


# --------------------------------------------------------------------------- Phase 2.4


def interventions(rejections: int, others: int, day: str = "2026-11-20") -> dict[str, str]:
    rows = [{"ts": f"{day}T10:00:00Z", "type": "rejection"}] * rejections
    rows += [{"ts": f"{day}T11:00:00Z", "type": "nudge"}] * others
    return {f"{INTERVENTIONS}/log.jsonl": jsonl(*rows)}


@pytest.mark.parametrize(("rejections", "others", "line"), [
    (1, 19, None),  # 5.0%: normal
    (1, 18, "⚠️ gate rejection rate 5.3% (rejection 1 of 19; a proxy, not a measured"
            " false-positive rate): check whether the gates over-intervene"),
    (3, 17, "⚠️ gate rejection rate 15.0% (rejection 3 of 20; a proxy, not a measured"
            " false-positive rate): check whether the gates over-intervene"),
    (4, 22, "🚨 gate rejection rate 15.4% (proxy): consider cutting or redesigning gates"),
])
def test_immune_rate_thresholds(tmp_path: Path, rejections: int, others: int,
                                line: str | None) -> None:
    lines = block(tmp_path, home=interventions(rejections, others))
    total = rejections + others
    assert any(text.startswith(f"autoimmunity: rejection={rejections} total={total} rate=")
               and text.endswith("% (proxy)") for text in lines)
    assert labelled(lines, "Immune rate") == ([] if line is None
                                               else [f"**Immune rate:** {line}"])


def test_autoimmunity_counts_only_the_last_30_days(tmp_path: Path) -> None:
    home = interventions(1, 1, day="2026-10-31")  # 29 days old: in
    home[f"{INTERVENTIONS}/old.jsonl"] = jsonl({"ts": "2026-10-30T00:00:00Z",
                                                "type": "rejection"})  # 30 days: out
    home[f"{INTERVENTIONS}/future.jsonl"] = jsonl({"ts": "2026-12-01", "type": "rejection"})
    home[f"{INTERVENTIONS}/notes.txt"] = "not a log\n"
    assert "autoimmunity: rejection=1 total=2 rate=50.0% (proxy)" in block(tmp_path, home=home)


def test_autoimmunity_omitted_without_folder_or_records(tmp_path: Path) -> None:
    assert summary(tmp_path / "a").autoimmunity is None
    (tmp_path / "b" / "home" / INTERVENTIONS).mkdir(parents=True)
    assert summary(tmp_path / "b").autoimmunity is None
    assert summary(tmp_path / "c", home=interventions(0, 0)).autoimmunity is None


def test_truncated_jsonl_line_is_one_warning_and_the_rest_counts(tmp_path: Path) -> None:
    home = interventions(1, 2)
    home[f"{INTERVENTIONS}/log.jsonl"] += '{"ts": "2026-11-21T10:00:00Z", "type": "rej'
    result = summary(tmp_path, home=home)
    assert result.autoimmunity is not None and result.autoimmunity.total == 3
    assert result.warnings == (
        f"~/{INTERVENTIONS}/log.jsonl: line 4 not a JSON object; skipped",)


# --------------------------------------------------------------------------- Phase 3


def test_global_lists_open_decisions_and_blockers_from_state(tmp_path: Path) -> None:
    state = ("---\nupdated: 2026-11-01\n---\n# State\n\n## Outstanding decisions\n"
             "- pick a laptop\n\n## Active blockers\n- [ ] VPN\n- [x] disk\n\n## Log\n- x\n")
    assert labelled(block(tmp_path, home={".claude/STATE.md": state}), "Global") == [
        "**Global:**", "  - decision: pick a laptop", "  - blocker: VPN"]


def test_state_without_items_is_none(tmp_path: Path) -> None:
    assert "**Global:** none" in block(tmp_path, home={".claude/STATE.md": "# State\n"})


# --------------------------------------------------------------------------- Phase 4


def test_memory_always_sections_loaded_and_on_demand_headers_listed(tmp_path: Path) -> None:
    memory = ("# Memory\n\n## Core <!-- #always -->\n- fact one\n\n### Sub detail\n- kept\n\n"
              "## Archive <!-- #on-demand -->\n- not loaded\n\n"
              "### Deep topic <!-- #on-demand -->\n- not loaded either\n\n"
              "## Untagged\n- ignored in a tagged file\n")
    lines = block(tmp_path, {MEMORY: memory})
    start = lines.index("**MEMORY.md (always loaded):**")
    assert lines[start:] == [
        "**MEMORY.md (always loaded):**", "",
        "## Core <!-- #always -->", "- fact one", "", "### Sub detail", "- kept", "",
        "**MEMORY.md (on demand, search it when a topic comes up):**",
        "- Archive", "- Deep topic",
    ]
    assert "not loaded" not in "\n".join(lines)


def test_untagged_memory_file_is_loaded_whole(tmp_path: Path) -> None:
    lines = block(tmp_path, {MEMORY: "# Memory\n- one\n## Part\n- two\n"})
    start = lines.index("**MEMORY.md (always loaded):**")
    assert lines[start + 2:] == ["# Memory", "- one", "## Part", "- two"]


def test_promotion_candidates_are_ref_three_or_more_not_yet_in_memory(tmp_path: Path) -> None:
    log = (log_entry("2026-11-01", 2, "two refs") + log_entry("2026-11-02", 3, "three refs")
           + log_entry("2026-11-03", 9, "already there") + log_entry("2026-11-04", 4, "four"))
    memory = "# Memory\n- [2026-11-03][NOTE] already there (ref:7)\n"
    assert labelled(block(tmp_path, {LOG: log, MEMORY: memory}), "Memory alerts") == [
        "**Memory alerts:**",
        "  - promotion candidate: [2026-11-02][NOTE] three refs (ref:3)",
        "  - promotion candidate: [2026-11-04][NOTE] four (ref:4)",
    ]


def test_memory_alerts_none_when_all_is_well(tmp_path: Path) -> None:
    lines = block(tmp_path, {MEMORY: "# Memory\n", LOG: log_entry("2026-11-01", 1)})
    assert "**Memory alerts:** none" in lines


# --------------------------------------------------------------------------- bad files


def test_non_utf8_file_is_one_warning_and_still_read(tmp_path: Path) -> None:
    body = "### [2026-11-01] caf\xe9\n> conf: 0.9\nbody\n".encode("latin-1")
    result = summary(tmp_path, {LESSONS: body})
    assert result.warnings == (
        f"{LESSONS}: not valid UTF-8 (first bad byte at offset 20); bad bytes replaced",)
    assert result.lesson_flags is not None and result.lesson_flags.items == (
        "caf\ufffd — body (conf 0.9)",)


def test_a_50_mb_file_is_one_warning_and_the_rest_prints(tmp_path: Path) -> None:
    project: dict[str, str | bytes] = {HANDOFF: "## Next\n- still here\n",
                                       MEMORY: "# Memory\n"}
    root = tmp_path / "project"
    write(root, project)
    with open(root / LOG, "wb") as handle:  # sparse: 50 MB without writing them
        handle.write(log_entry("2026-11-01", 3).encode())
        handle.seek(50 * 1024 * 1024)
        handle.write(b"\n")
    result = build_summary(root, tmp_path / "home", TODAY)
    too_big = f"{LOG}: is 52428801 bytes, over the 32 MiB limit - ignored"
    assert result.warnings == (too_big,)
    lines = render_markdown(result).splitlines()
    assert "**Priority 1:** still here" in lines
    assert f"  - {too_big}" in lines
    assert not any(line.startswith("context_rot") for line in lines)


def test_a_folder_where_a_file_should_be_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "project" / HANDOFF).mkdir(parents=True)
    result = build_summary(tmp_path / "project", tmp_path / "home", TODAY)
    assert result.handoff is None
    assert result.warnings == (f"{HANDOFF}: is not a regular file - ignored",)


def test_a_named_pipe_is_a_warning_not_a_hang(tmp_path: Path) -> None:
    (tmp_path / "project" / "memory").mkdir(parents=True)
    os.mkfifo(tmp_path / "project" / MEMORY)
    result = build_summary(tmp_path / "project", tmp_path / "home", TODAY)
    assert result.memory is None
    assert result.warnings == (f"{MEMORY}: is not a regular file - ignored",)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_a_warning(tmp_path: Path) -> None:
    write(tmp_path / "project", {LESSONS: "# Lessons\n"})
    (tmp_path / "project" / LESSONS).chmod(0)
    result = build_summary(tmp_path / "project", tmp_path / "home", TODAY)
    assert result.warnings == (f"{LESSONS}: cannot be read (Permission denied)",)


def test_placeholders_and_settled_sections_are_not_items(tmp_path: Path) -> None:
    body = ("## Next\n- None of the tests pass yet\n\n## Open decisions\nNone so far.\n\n"
            "## Decisions made\n- chose YAML\n\n## Resolved issues\n- the CRLF bug\n\n"
            "## Known issues\n- N/A\n- the cache is cold\n")
    lines = block(tmp_path, {HANDOFF: body})
    assert lines[2] == "**Priority 1:** None of the tests pass yet"
    assert "**Outstanding decisions:** none" in lines
    assert labelled(lines, "Active blockers") == ["**Active blockers:**",
                                                  "  - the cache is cold"]
