"""The summary in a real repository: the Branch line, the handoff's age against the
session boundary, function names searched in the files git lists, the fences around the
git directory, and how many git processes all of it costs."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from pathlib import Path

import pytest
from helpers import SID, Sandbox, look

from lets_hooks import repo as repo_module
from lets_hooks.summary import build_summary, collect
from lets_hooks.summary.render import render_markdown
from lets_hooks.summary.sources import references
from lets_hooks.summary.sources.worktree import count_entries, open_repository

TODAY = dt.date(2026, 11, 29)
HANDOFF = "memory/session-handoff-LATEST.md"


def lines_of(box: Sandbox, home: Path, environ: dict[str, str] | None = None) -> list[str]:
    git = look(box.path, environ if environ is not None else {"LETS_SESSION_ID": SID},
               time.time())
    return render_markdown(build_summary(box.path, home, TODAY, git)).splitlines()


SHORT_SHA = re.compile(r"\b[0-9a-f]{7}\b")


def branch_lines(lines: list[str]) -> list[str]:
    """The Branch line and its warning, commit ids as ``<sha>``."""
    start = next(i for i, line in enumerate(lines) if line.startswith("**Branch:**"))
    found = [lines[start]]
    found.extend(SHORT_SHA.sub("<sha>", line) for line in lines[start + 1:start + 2]
                 if line.startswith("  - "))
    return found


def handoff(box: Sandbox, body: str) -> None:
    path = box.path / HANDOFF
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)


def exclude_state(box: Sandbox) -> None:
    (box.path / ".git" / "info" / "exclude").write_text(".lets/\nmemory/\n")


# --------------------------------------------------------------------------- Branch line


def test_clean_tree(sandbox: Sandbox, tmp_path: Path) -> None:
    assert branch_lines(lines_of(sandbox, tmp_path)) == ["**Branch:** main · working tree: clean"]


def test_staged_modified_untracked_counts(sandbox: Sandbox, tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (sandbox.path / name).write_text("one\n")
    sandbox.git.add("a.txt", "b.txt", "c.txt")
    sandbox.git.commit("-q", "-m", "files")
    (sandbox.path / "a.txt").write_text("two\n")  # modified
    (sandbox.path / "b.txt").write_text("two\n")
    sandbox.git.add("b.txt")  # staged
    (sandbox.path / "b.txt").write_text("three\n")  # and modified again
    sandbox.git.mv("c.txt", "d.txt")  # a rename: one staged entry
    (sandbox.path / "new.txt").write_text("x\n")  # untracked
    (sandbox.path / "new dir").mkdir()
    (sandbox.path / "new dir" / "with\nnewline.txt").write_text("x\n")  # untracked too
    assert branch_lines(lines_of(sandbox, tmp_path)) == [
        "**Branch:** main · working tree: 2 staged, 2 modified, 2 untracked"]


def test_conflicted_paths_are_counted_apart() -> None:
    counts = count_entries(["UU", "AA", "M ", " M", "MM", "??", "R "])
    assert (counts.staged, counts.modified, counts.untracked, counts.conflicted) == (
        3, 2, 1, 2)


def test_detached_head(sandbox: Sandbox, tmp_path: Path) -> None:
    head = sandbox.head()
    sandbox.git.checkout("-q", "--detach")
    assert branch_lines(lines_of(sandbox, tmp_path)) == [
        f"**Branch:** detached HEAD at {head[:7]} · working tree: clean"]


def test_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "plain").mkdir()
    git = look(tmp_path / "plain", {}, time.time())
    lines = render_markdown(build_summary(tmp_path / "plain", tmp_path, TODAY, git)).splitlines()
    assert lines[2:4] == ["**Session range:** boundary unknown - not a git repository",
                          "**Branch:** none (no git work tree)"]
    assert git.repo.calls == 1  # one rev-parse said so


# --------------------------------------------------------------------------- the handoff's age


def commit_at(box: Sandbox, when: str, files: dict[str, str | None] | None = None,
              message: str = "work") -> str:
    """A commit made at ``when`` (UTC) writing (or, for None, deleting) ``files``."""
    for name, body in (files or {}).items():
        path = box.path / name
        if body is None:
            box.git.rm("-q", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        box.git.add("-f", name)
    stamp = f"{when}+00:00"
    box.git.commit("--allow-empty", "-q", "-m", message, env={
        "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return box.head()


def record_boundary(box: Sandbox, sha: str) -> None:
    (box.path / ".lets").mkdir(exist_ok=True)
    (box.path / ".lets" / "config.toml").write_text("max_age_days = 100000\n")
    box.write_task("main", f"session: {sha} {SID}\n")
    exclude_state(box)


def recorded_session(box: Sandbox, when: str) -> str:
    """A commit made at ``when`` (UTC), recorded as this session's boundary."""
    sha = commit_at(box, when)
    record_boundary(box, sha)
    return sha


NAMES = ("---\n{front}\n---\n## Next\n- finish `src/reader.py` and `docs/guide.md`\n")


def stale_line(count: str, shown: str, which: str) -> str:
    return f"  - ⚠️ {count} since the handoff ({shown}), {which}: check them before trusting it"


def test_a_handoff_committed_as_the_boundary_is_not_stale(sandbox: Sandbox,
                                                          tmp_path: Path) -> None:
    """Written at 18:42, committed at 18:44, that commit the session's boundary: nothing
    has happened since, whatever the boundary commit's own time."""
    body = NAMES.format(front="ts: 2026-11-25T18:42:00Z")
    sha = commit_at(sandbox, "2026-11-25T18:44:00", {
        HANDOFF: body, "src/reader.py": "x\n", "docs/guide.md": "x\n"})
    record_boundary(sandbox, sha)
    lines = lines_of(sandbox, tmp_path)
    assert lines[2].endswith("(0 commits)")
    assert branch_lines(lines) == [
        "**Branch:** main · working tree: clean · handoff of 2026-11-25 18:42 UTC"]


def test_commits_after_the_handoff_since_the_boundary_are_counted(sandbox: Sandbox,
                                                                  tmp_path: Path) -> None:
    """Three commits of teammates after the handoff, since the (older) boundary: one
    renames a path it names, one changes another, one touches neither."""
    body = NAMES.format(front="ts: 2026-11-25T09:00:00Z")
    boundary = commit_at(sandbox, "2026-11-25T08:00:00", {
        "src/reader.py": "x\n", "docs/guide.md": "x\n", "other.txt": "x\n"})
    commit_at(sandbox, "2026-11-25T08:30:00", {HANDOFF: body}, "the handoff")
    sandbox.git.mv("src/reader.py", "src/read.py")
    commit_at(sandbox, "2026-11-25T10:00:00", message="rename the reader")
    commit_at(sandbox, "2026-11-25T11:00:00", {"docs/guide.md": "y\n"})
    commit_at(sandbox, "2026-11-26T09:00:00", {"other.txt": "y\n"})
    record_boundary(sandbox, boundary)
    assert branch_lines(lines_of(sandbox, tmp_path)) == [
        "**Branch:** main · working tree: clean · handoff of 2026-11-25 09:00 UTC",
        stale_line("3 commits", "2026-11-25 09:00 UTC", "2 of them (<sha>, <sha>) touching"
                   " paths it names (`src/reader.py`, `docs/guide.md`)")]


def test_before_the_boundary_every_commit_after_the_handoff_counts(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """A session that starts after a pull: the boundary is HEAD (0 commits), but the
    teammates' two commits came after the handoff, and one renamed a path it names."""
    body = NAMES.format(front="ts: 2026-11-25T09:00:00Z")
    commit_at(sandbox, "2026-11-25T08:00:00", {HANDOFF: body, "src/reader.py": "x\n"})
    sandbox.git.mv("src/reader.py", "src/read.py")
    commit_at(sandbox, "2026-11-25T10:00:00", message="a teammate renames the reader")
    commit_at(sandbox, "2026-11-25T11:00:00", {"other.txt": "y\n"})
    record_boundary(sandbox, sandbox.head())
    lines = lines_of(sandbox, tmp_path)
    assert lines[2].endswith("(0 commits)")
    assert branch_lines(lines)[1:] == [
        stale_line("2 commits", "2026-11-25 09:00 UTC", "1 of them (<sha>) touching paths it"
                   " names (`src/reader.py`)")]


def test_work_committed_before_the_handoff_itself_is_not_after_it(sandbox: Sandbox,
                                                                   tmp_path: Path) -> None:
    """Written at 18:42, the code committed at 18:43, the handoff at 18:44: the handoff
    was committed after that work."""
    boundary = commit_at(sandbox, "2026-11-25T08:00:00")
    commit_at(sandbox, "2026-11-25T18:43:00", {"src/reader.py": "x\n"})
    commit_at(sandbox, "2026-11-25T18:44:00",
              {HANDOFF: NAMES.format(front="ts: 2026-11-25T18:42:00Z")})
    record_boundary(sandbox, boundary)
    assert len(branch_lines(lines_of(sandbox, tmp_path))) == 1


def test_a_project_in_a_folder_of_the_repository(sandbox: Sandbox, tmp_path: Path) -> None:
    """``--root`` below the top: paths are the project's own (the handoff's commit is
    known, a commit changing ``app/src/reader.py`` touches ``src/reader.py``, a path
    deleted by a commit is confirmed)."""
    body = ("---\nts: 2026-11-25T09:00:00Z\n---\n## Next\n- finish `src/reader.py`\n"
            "- see `src/doomed.py`\n")
    boundary = commit_at(sandbox, "2026-11-25T08:00:00", {
        "app/src/reader.py": "x\n", "app/src/doomed.py": "x\n"})
    commit_at(sandbox, "2026-11-25T09:05:00", {f"app/{HANDOFF}": body}, "the handoff")
    commit_at(sandbox, "2026-11-25T10:00:00", {"app/src/reader.py": "y\n",
                                               "app/src/doomed.py": None})
    commit_at(sandbox, "2026-11-25T11:00:00", {"elsewhere.txt": "y\n"})
    record_boundary(sandbox, boundary)
    app = sandbox.path / "app"
    git = look(app, {"LETS_SESSION_ID": SID}, time.time())
    lines = render_markdown(build_summary(app, tmp_path, TODAY, git)).splitlines()
    assert branch_lines(lines)[1:] == [
        stale_line("2 commits", "2026-11-25 09:00 UTC", "1 of them (<sha>) touching paths it"
                   " names (`src/reader.py`, `src/doomed.py`)")]
    assert alerts(lines) == ["  - stale reference: `src/doomed.py` is named in the handoff"
                             " but a commit deleted or renamed it"]


def test_commits_that_touch_nothing_it_names_are_said_so(sandbox: Sandbox,
                                                        tmp_path: Path) -> None:
    boundary = commit_at(sandbox, "2026-11-25T08:00:00")
    handoff(sandbox, NAMES.format(front="ts: 2026-11-25T09:00:00Z"))
    commit_at(sandbox, "2026-11-25T10:00:00", {"other.txt": "y\n"})
    record_boundary(sandbox, boundary)
    assert branch_lines(lines_of(sandbox, tmp_path))[1:] == [
        stale_line("1 commit", "2026-11-25 09:00 UTC", "none of them touching a path it names")]


def test_a_handoff_at_or_after_the_newest_commit_is_not_stale(sandbox: Sandbox,
                                                             tmp_path: Path) -> None:
    boundary = commit_at(sandbox, "2026-11-25T08:00:00")
    commit_at(sandbox, "2026-11-25T08:30:00", {"src/reader.py": "x\n"})
    commit_at(sandbox, "2026-11-25T09:00:00", {"docs/guide.md": "x\n"})
    handoff(sandbox, NAMES.format(front="ts: 2026-11-25T09:00:00Z"))
    record_boundary(sandbox, boundary)
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found == ["**Branch:** main · working tree: clean · handoff of 2026-11-25 09:00 UTC"]


def test_the_handoffs_own_commit_and_memory_only_commits_are_not_work_after_it(
        sandbox: Sandbox, tmp_path: Path) -> None:
    boundary = commit_at(sandbox, "2026-11-25T08:00:00")
    body = NAMES.format(front="ts: 2026-11-25T09:00:00Z")
    commit_at(sandbox, "2026-11-25T09:05:00", {HANDOFF: body, "src/reader.py": "x\n"})
    commit_at(sandbox, "2026-11-25T09:10:00", {"memory/context-log.md": "# log\n"})
    record_boundary(sandbox, boundary)
    assert len(branch_lines(lines_of(sandbox, tmp_path))) == 1


MAYBE = ("  - ⚠️ 1 commit of the handoff's day (2026-11-25) that may have come after it,"
         " none of them touching a path it names: check them before trusting it")


@pytest.mark.parametrize(("commits", "warning"), [
    ([("2026-11-26T10:00:00", "other.txt")], ("1 commit", "none of them touching a path it names")),
    ([("2026-11-25T23:00:00", "other.txt")], MAYBE),  # the same day: it may be after it
    ([("2026-11-25T23:00:00", "src/reader.py")],
     ("1 commit", "1 of them (<sha>) touching paths it names (`src/reader.py`)")),
    ([("2026-11-24T23:00:00", "src/reader.py")], None),  # the day before
    ([("2026-11-25T23:00:00", "other.txt"), ("2026-11-26T10:00:00", "src/reader.py")],
     ("1 commit", "1 of them (<sha>) touching paths it names (`src/reader.py`)")),
])
def test_a_handoff_with_only_a_day(sandbox: Sandbox, tmp_path: Path,
                                   commits: list[tuple[str, str]],
                                   warning: tuple[str, str] | str | None) -> None:
    boundary = commit_at(sandbox, "2026-11-20T08:00:00")
    for when, name in commits:
        commit_at(sandbox, when, {name: when})
    handoff(sandbox, NAMES.format(front="date: 2026-11-25"))
    record_boundary(sandbox, boundary)
    found = branch_lines(lines_of(sandbox, tmp_path))
    if isinstance(warning, str):
        assert found[1:] == [warning]
    elif len(commits) == 2:  # a later day's, and one of its day: said, never fewer
        assert found[1:] == [
            "  - ⚠️ 1 commit since the handoff (2026-11-25) and 1 more of 2026-11-25 that may"
            " have come after it, 1 of them (<sha>) touching paths it names (`src/reader.py`):"
            " check them before trusting it"]
    else:
        assert found[1:] == ([stale_line(warning[0], "2026-11-25", warning[1])] if warning
                             else [])


def test_the_snapshot_ts_dates_the_handoff(sandbox: Sandbox, tmp_path: Path) -> None:
    boundary = commit_at(sandbox, "2026-11-20T08:00:00")
    commit_at(sandbox, "2026-11-25T10:00:00", {"src/reader.py": "x\n"})
    record_boundary(sandbox, boundary)
    handoff(sandbox, "<!-- state-snapshot v1 -->\n```yaml\nts: 2026-11-24T08:00:00Z\n"
                     "next: [read `src/reader.py`]\n```\n")
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found == [
        "**Branch:** main · working tree: clean · handoff of 2026-11-24 08:00 UTC",
        stale_line("1 commit", "2026-11-24 08:00 UTC", "1 of them (<sha>) touching paths it"
                   " names (`src/reader.py`)")]


def test_without_a_boundary_the_commits_since_the_handoffs_time_count(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """No session range known: the commits after the handoff's own time are counted."""
    exclude_state(sandbox)
    commit_at(sandbox, "2026-11-26T10:00:00", {"other.txt": "y\n"})
    handoff(sandbox, "---\ndate: 2026-11-25T09:00:00Z\n---\n## Next\n- x\n")
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found == [
        "**Branch:** main · working tree: clean · handoff of 2026-11-25 09:00 UTC",
        stale_line("1 commit", "2026-11-25 09:00 UTC", "none of them touching a path it names")]


# --------------------------------------------------------------------------- function names


def project_with_code(box: Sandbox) -> None:
    (box.path / "pkg").mkdir()
    (box.path / "pkg" / "sources.py").write_text("def read_handoff():\n    pass\n")
    (box.path / "pkg" / "render.py").write_text("def render_toc():\n    pass\n")
    box.git.add("pkg")
    box.git.commit("-q", "-m", "code")
    exclude_state(box)


def alerts(lines: list[str]) -> list[str]:
    start = next((i for i, line in enumerate(lines) if line.startswith("**Memory alerts")), None)
    if start is None:
        return []
    return [line for line in lines[start + 1:] if line.startswith("  - ")][:10]


def test_function_names_are_searched_in_the_files_git_lists(sandbox: Sandbox,
                                                            tmp_path: Path) -> None:
    project_with_code(sandbox)
    (sandbox.path / "pkg" / "fresh.py").write_text("def brand_new():\n    pass\n")  # untracked
    handoff(sandbox, "## Next\n- fix `render_toc()` and `sources.read_handoff`, then"
                     " `sources.read_gone` and `brand_new()`; call gone_helper() after;"
                     " `os.walk` and `self.render_all()` are not ours\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        "  - stale reference: `sources.read_gone` is named in the handoff but `read_gone` is"
        " not in its module `pkg/sources.py`",
        "  - stale reference: `gone_helper()` is named in the handoff but found in none of the"
        " project's files",
    ]


def test_the_handoff_itself_and_memory_files_do_not_count(sandbox: Sandbox,
                                                          tmp_path: Path) -> None:
    project_with_code(sandbox)
    (sandbox.path / ".git" / "info" / "exclude").write_text(".lets/\n")  # memory/ tracked
    (sandbox.path / "memory").mkdir()
    (sandbox.path / "memory" / "notes.md").write_text("old_function() lived here\n")
    handoff(sandbox, "## Next\n- call `old_function()` again\n")
    sandbox.git.add("memory")
    sandbox.git.commit("-q", "-m", "notes")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        "  - stale reference: `old_function()` is named in the handoff but found in none of"
        " the project's files"]


def test_a_capped_search_leaves_names_unchecked(sandbox: Sandbox, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    project_with_code(sandbox)
    handoff(sandbox, "## Next\n- `nowhere_at_all()`\n")
    monkeypatch.setattr(references, "MAX_SEARCH_FILES", 1)
    git = look(sandbox.path, {}, time.time())
    result = build_summary(sandbox.path, tmp_path, TODAY, git)
    assert result.stale_references == ()
    assert result.unchecked_references == ("nowhere_at_all()",)
    assert result.memory_alerts is not None  # the text says so too, never as stale
    assert result.memory_alerts.items == (
        "not checked: `nowhere_at_all()`: the search of the project's files stopped at its"
        " cap (1 file) before finding them; they may be stale",)


def test_without_git_names_are_unchecked(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "memory").mkdir(parents=True)
    (root / HANDOFF).write_text("## Next\n- `nowhere_at_all()`\n")
    result = build_summary(root, tmp_path, TODAY)
    assert (result.stale_references, result.unchecked_references) == (
        (), ("nowhere_at_all()",))


# --------------------------------------------------------------------------- stale references


def gone(ref: str) -> str:
    return f"  - stale reference: `{ref}` is named in the handoff but does not exist"


def test_what_the_handoff_says_was_removed_is_no_alert(sandbox: Sandbox,
                                                      tmp_path: Path) -> None:
    project_with_code(sandbox)
    handoff(sandbox, "## Notes\nThe reader lives in `pkg/sources.py`; `pkg/legacy.py` and\n"
                     "`split_records()` were removed. Renamed `pkg/old.py` to `pkg/new.py`.\n"
                     "- `pkg/kept.py` was not deleted.\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        "  - stale reference: `pkg/new.py` is named in the handoff as added but does not"
        " exist",
        gone("pkg/kept.py")]


def test_package_relative_paths_are_found_among_the_listed_files(sandbox: Sandbox,
                                                                 tmp_path: Path) -> None:
    project_with_code(sandbox)
    handoff(sandbox, "## Next\n- edit `render.py`, `pkg/render.py` and `sources.py`\n"
                     "- not `lib/render.py` nor `other/sources.py`\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [gone("lib/render.py"),
                                                   gone("other/sources.py")]


def test_paths_under_ignored_or_installed_folders_are_skipped(sandbox: Sandbox,
                                                              tmp_path: Path) -> None:
    project_with_code(sandbox)
    (sandbox.path / ".gitignore").write_text("build/\n")
    handoff(sandbox, "## Notes\nThe bug is in `.venv/lib/python3.11/site-packages/yaml/x.py`"
                     " and node_modules/left-pad/index.js; `build/out.js` is generated;"
                     " `src/missing.py` is not there.\n")
    result = build_summary(sandbox.path, tmp_path, TODAY,
                           look(sandbox.path, {"LETS_SESSION_ID": SID}, time.time()))
    assert result.stale_references == ("src/missing.py",)
    assert alerts(render_markdown(result).splitlines()) == [gone("src/missing.py")]


def test_findings_confirmed_by_git_come_first_and_the_cap_says_how_many_more(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """Eleven paths that never existed, then one a commit deleted, then a promotion
    candidate and a 13th function name: the confirmed path comes first, the candidate
    before the doubtful ones, and the line ends with how many more."""
    project_with_code(sandbox)
    (sandbox.path / "pkg" / "doomed.py").write_text("x\n")
    sandbox.git.add("pkg/doomed.py")
    sandbox.git.commit("-q", "-m", "doomed")
    sandbox.git.rm("-q", "pkg/doomed.py")
    sandbox.git.commit("-q", "-m", "drop doomed")
    names = " ".join(f"`pkg/never{n}.py`" for n in range(11))
    calls = " ".join(f"`helper_{n}()`" for n in range(12))
    handoff(sandbox, f"## Notes\nSee {names} and `pkg/doomed.py`. Calls: {calls}"
                     " `render_toc()` `thirteenth_name()`.\n")
    memory = sandbox.path / "memory"
    (memory / "MEMORY.md").write_text("# Memory\n")
    (memory / "context-log.md").write_text("## [2026-11-20][DECISION][ttl:30d][ref:3] Keep it\n")
    result = build_summary(sandbox.path, tmp_path, TODAY,
                           look(sandbox.path, {"LETS_SESSION_ID": SID}, time.time()))
    assert result.memory_alerts is not None
    shown = result.memory_alerts.items
    assert shown[0] == ("stale reference: `pkg/doomed.py` is named in the handoff but a commit"
                        " deleted or renamed it")
    assert shown[1] == "promotion candidate: [2026-11-20][DECISION] Keep it (ref:3)"
    assert len(shown) == 10 and result.memory_alerts.more == 11 + 13 + 2 - 10
    assert result.stale_references[0] == "pkg/doomed.py"
    assert "thirteenth_name()" in result.stale_references
    assert "render_toc()" not in result.stale_references
    lines = render_markdown(result).splitlines()
    assert f"  - … and {result.memory_alerts.more} more" in lines


# --------------------------------------------------------------------------- git processes


def count(box: Sandbox, home: Path) -> int:
    git = look(box.path, {"LETS_SESSION_ID": SID}, time.time())
    collect(box.path, home, git)
    return git.repo.calls


def test_git_processes_the_summary_adds(sandbox: Sandbox, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The ladder's processes, one status; one log for a dated handoff (the commits from
    its time on); one ls-files only when the handoff names functions."""
    project_with_code(sandbox)
    recorded_session(sandbox, "2026-11-25T10:00:00")
    spawned: list[list[str]] = []
    real = repo_module._spawn

    def counting(argv: list[str], cwd: str | None, stdin: bytes | None
                 ) -> tuple[int, bytes, bytes]:
        spawned.append(argv)
        return real(argv, cwd, stdin)

    monkeypatch.setattr(repo_module, "_spawn", counting)
    bare = count(sandbox, tmp_path)
    handoff(sandbox, "## Next\n- x\n")
    assert count(sandbox, tmp_path) == bare
    handoff(sandbox, "---\ndate: 2026-11-20\n---\n## Next\n- x\n")
    assert count(sandbox, tmp_path) == bare + 1
    handoff(sandbox, "---\ndate: 2026-11-20\n---\n## Next\n- `render_toc()`\n")
    assert count(sandbox, tmp_path) == bare + 2
    assert bare <= 5
    assert len(spawned) == 4 * bare + 3  # every process went through the counted door


def test_one_log_reads_the_commits_since_the_boundary(sandbox: Sandbox,
                                                     tmp_path: Path) -> None:
    """A dated handoff: one ``log`` more, whatever the number of commits; an undated
    handoff asks for none."""
    boundary = commit_at(sandbox, "2026-11-20T08:00:00")
    record_boundary(sandbox, boundary)
    handoff(sandbox, "## Next\n- x\n")
    at_boundary = count(sandbox, tmp_path)
    for day in range(21, 26):
        commit_at(sandbox, f"2026-11-{day}T08:00:00", {f"f{day}.txt": "x\n"})
    undated = count(sandbox, tmp_path)
    handoff(sandbox, "---\ndate: 2026-11-22\n---\n## Next\n- x\n")
    assert count(sandbox, tmp_path) == undated + 1
    assert undated >= at_boundary


# --------------------------------------------------------------------------- fences


def test_a_memory_file_linked_into_the_git_directory_is_never_shown(sandbox: Sandbox,
                                                                    tmp_path: Path) -> None:
    """A committed ``memory/MEMORY.md -> ../.git/config`` would print the config's
    ``http.extraheader`` token into the session's context."""
    sandbox.git.config("http.extraheader", "AUTHORIZATION: bearer SECRET-TOKEN")
    (sandbox.path / "memory").mkdir()
    os.symlink("../.git/config", sandbox.path / "memory" / "MEMORY.md")
    os.symlink("../.git/HEAD", sandbox.path / HANDOFF)
    sandbox.git.add("memory")
    sandbox.git.commit("-q", "-m", "a link")
    text = "\n".join(lines_of(sandbox, tmp_path))
    assert "SECRET-TOKEN" not in text and "refs/heads" not in text
    assert "  - memory/MEMORY.md: leads into a git directory - refused" in text
    assert f"  - {HANDOFF}: leads into a git directory - refused" in text


def test_a_git_directory_by_another_name_is_fenced_too(tmp_path: Path) -> None:
    """``git init --separate-git-dir`` can put the git directory inside the work tree
    under any name: the fence knows it from git, not from the name ``.git``."""
    import subprocess

    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(project / "store"),
                    str(project)], check=True)
    (project / "memory").mkdir()
    os.symlink("../store/config", project / "memory" / "MEMORY.md")
    handle = open_repository(project)
    assert handle.git_dir is not None
    assert os.path.samefile(handle.git_dir, project / "store")
    handle.settle({}, time.time())
    result = build_summary(project, tmp_path / "home", TODAY, handle)
    assert result.memory is None
    assert result.warnings == ("memory/MEMORY.md: leads into the git directory - refused",)
    unfenced = build_summary(project, tmp_path / "home", TODAY)  # no git: only the name
    assert unfenced.memory is not None  # which is why the summary asks git where it is


def test_user_files_follow_links_but_not_into_a_git_directory(tmp_path: Path) -> None:
    home, dotfiles = tmp_path / "home", tmp_path / "dotfiles"
    (home / ".claude").mkdir(parents=True)
    dotfiles.mkdir()
    (dotfiles / "STATE.md").write_text("## Active blockers\n- linked in from dotfiles\n")
    os.symlink(dotfiles / "STATE.md", home / ".claude" / "STATE.md")
    bare = tmp_path / "bare.git"
    for folder in ("objects", "refs"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text('{"model": "SECRET"}\n')
    os.symlink(bare / "config", home / ".claude" / "settings.json")
    project = tmp_path / "project"
    project.mkdir()
    result = build_summary(project, home, TODAY)
    assert result.global_items.items == ("blocker: linked in from dotfiles",)
    assert result.environment_alerts == ()
    assert result.warnings == ("~/.claude/settings.json: leads into a git directory - refused",)
