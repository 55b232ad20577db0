"""The summary in a real repository: the Branch line, the handoff's age against the
session boundary, function names searched in the files git lists, the fences around the
git directory, and how many git processes all of it costs."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pytest
from conftest import Sandbox

from lets_hooks import repo as repo_module
from lets_hooks.summary import build_summary, collect
from lets_hooks.summary.render import render_markdown
from lets_hooks.summary.sources import references
from lets_hooks.summary.sources.worktree import count_entries, look, open_repository

TODAY = dt.date(2026, 11, 29)
HANDOFF = "memory/session-handoff-LATEST.md"
SID = "sess-1"


def lines_of(box: Sandbox, home: Path, environ: dict[str, str] | None = None) -> list[str]:
    git = look(box.path, environ if environ is not None else {"LETS_SESSION_ID": SID},
               time.time())
    return render_markdown(build_summary(box.path, home, TODAY, git)).splitlines()


def branch_lines(lines: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith("**Branch:**"))
    found = [lines[start]]
    found.extend(line for line in lines[start + 1:start + 2] if line.startswith("  - "))
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


def recorded_session(box: Sandbox, when: str) -> str:
    """A commit made at ``when`` (UTC), recorded as this session's boundary."""
    stamp = f"{when}+00:00"
    box.git.commit("--allow-empty", "-q", "-m", "work", env={
        "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    (box.path / ".lets").mkdir(exist_ok=True)
    (box.path / ".lets" / "config.toml").write_text("max_age_days = 100000\n")
    box.write_task("main", f"session: {box.head()} {SID}\n")
    exclude_state(box)
    return box.head()


@pytest.mark.parametrize(("front", "shown", "stale"), [
    ("date: 2026-11-20", "2026-11-20", True),
    ("date: 2026-11-25", "2026-11-25", False),  # the same day: never called stale
    ("updated: 2026-11-25T09:00:00Z", "2026-11-25 09:00 UTC", True),
    ("ts: '2026-11-25 11:00:00+02:00'", "2026-11-25 09:00 UTC", True),
    ("date: 2026-11-26", "2026-11-26", False),
    ("date: 2026-11-20\nupdated: 2026-11-26", "2026-11-26", False),  # the newest counts
])
def test_a_handoff_older_than_the_boundary_commit_is_said(
        sandbox: Sandbox, tmp_path: Path, front: str, shown: str, stale: bool) -> None:
    recorded_session(sandbox, "2026-11-25T10:00:00")
    handoff(sandbox, f"---\n{front}\n---\n## Next\n- x\n")
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found[0] == f"**Branch:** main · working tree: clean · handoff of {shown}"
    warning = (f"  - ⚠️ the handoff ({shown}) is older than the session boundary's commit"
               " (2026-11-25 10:00 UTC): it was written before the work since; check the"
               " commits before trusting it")
    assert found[1:] == ([warning] if stale else [])


def test_the_snapshot_ts_dates_the_handoff(sandbox: Sandbox, tmp_path: Path) -> None:
    recorded_session(sandbox, "2026-11-25T10:00:00")
    handoff(sandbox, "<!-- state-snapshot v1 -->\n```yaml\nts: 2026-11-24T08:00:00Z\n"
                     "next: [x]\n```\n")
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found[0].endswith("handoff of 2026-11-24 08:00 UTC") and len(found) == 2


def test_no_boundary_no_age_warning(sandbox: Sandbox, tmp_path: Path) -> None:
    exclude_state(sandbox)
    handoff(sandbox, "---\ndate: 2020-01-01\n---\n## Next\n- x\n")
    found = branch_lines(lines_of(sandbox, tmp_path))
    assert found == ["**Branch:** main · working tree: clean · handoff of 2020-01-01"]


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
        "  - stale reference: `sources.read_gone` is named in the handoff but found in none"
        " of the project's files",
        "  - stale reference: `gone_helper()` is named in the handoff but found in none of the"
        " project's files",
    ]


def test_the_handoff_itself_and_memory_files_do_not_count(sandbox: Sandbox,
                                                          tmp_path: Path) -> None:
    project_with_code(sandbox)
    (sandbox.path / ".git" / "info" / "exclude").write_text(".lets/\n")  # memory/ tracked
    (sandbox.path / "memory").mkdir()
    (sandbox.path / "memory" / "notes.md").write_text("old_function() lived here\n")
    handoff(sandbox, "## Next\n- `old_function()` is gone\n")
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
    assert result.memory_alerts is None


def test_without_git_names_are_unchecked(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "memory").mkdir(parents=True)
    (root / HANDOFF).write_text("## Next\n- `nowhere_at_all()`\n")
    result = build_summary(root, tmp_path, TODAY)
    assert (result.stale_references, result.unchecked_references) == (
        (), ("nowhere_at_all()",))


# --------------------------------------------------------------------------- git processes


def count(box: Sandbox, home: Path) -> int:
    inputs = collect(box.path, home, look(box.path, {"LETS_SESSION_ID": SID}, time.time()))
    assert inputs.where is not None
    return inputs.where.git_calls


def test_git_processes_the_summary_adds(sandbox: Sandbox, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The ladder's processes, one status; the boundary's time comes with the ladder's
    answer (a recorded boundary: no process more for a dated handoff); one ls-files only
    when the handoff names functions."""
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
    assert count(sandbox, tmp_path) == bare
    handoff(sandbox, "---\ndate: 2026-11-20\n---\n## Next\n- `render_toc()`\n")
    assert count(sandbox, tmp_path) == bare + 1
    assert bare <= 5
    assert len(spawned) == 4 * bare + 1  # every process went through the counted door


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
