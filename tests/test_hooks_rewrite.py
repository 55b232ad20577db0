"""post-rewrite through real amends and rebases: the rewrite cases as a plain hook (git's
pairs on stdin; the real pre-commit runs the same cases in test_precommit_integration),
the hook's own rules also as pre-commit runs it (stdin empty,
``PRE_COMMIT_REWRITE_COMMAND`` set), a long branch rebased from below the boundary, and
a ``reftable`` repository where git can make one."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, make, needs_git
from scenarios import CASES, move_main, start

from lets_hooks import hooks

# What pre-commit's generated hook does: no stdin for the hooks, the command in the
# environment, no arguments.
PRE_COMMIT_LIKE = """#!/bin/sh
PRE_COMMIT=1 PRE_COMMIT_REWRITE_COMMAND="$1" exec lets-hooks post-rewrite </dev/null
"""


def pre_commit_like(box: HookBox) -> None:
    box.install()
    hook = box.path / ".git" / "hooks" / "post-rewrite"
    hook.write_text(PRE_COMMIT_LIKE)
    hook.chmod(0o755)


@pytest.fixture(params=["plain", "pre-commit-like"])
def box(request: pytest.FixtureRequest, tmp_path: Path) -> HookBox:
    made = make(tmp_path)
    made.install()
    if request.param == "pre-commit-like":
        pre_commit_like(made)
    return made


@pytest.mark.parametrize("case", sorted(CASES))
def test_boundary_follows_the_rewrite(tmp_path: Path, case: str) -> None:
    box = make(tmp_path)
    box.install()
    CASES[case](box)


def test_rebase_of_a_long_branch_from_below_the_boundary(tmp_path: Path) -> None:
    """``git rebase main`` of a branch with 60 commits from before the session and 2 of
    it: the boundary moves to its own copy."""
    box = make(tmp_path)
    box.install()
    box.sh("switch", "-q", "-c", "topic", sid="an-earlier-session")
    for i in range(60):
        box.file_commit(f"p{i}.txt", f"{i}\n", sid="an-earlier-session")
    box.sh("switch", "-q", "main", sid=SID)
    box.file_commit("m.txt", "main moved\n")
    box.sh("switch", "-q", "topic", sid=SID)
    box.file_commit("s1.txt", "s1\n", sid=SID)
    box.file_commit("s2.txt", "s2\n", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", box.rev("HEAD~2"), "2"), fields


@needs_git(2, 45, "reftable repositories need git 2.45")
@pytest.mark.parametrize("case", ["rebase_apply_backend", "rebase_after_main_moved",
                                  "rebase_after_main_moved_with_older_commits",
                                  "amend_session_commit"])
def test_rewrites_on_a_reftable_repository(tmp_path: Path, case: str) -> None:
    """ORIG_HEAD is a ref there, not a file."""
    box = make(tmp_path, reftable=True)
    box.install()
    CASES[case](box)
    assert (box.path / ".git" / "reftable").is_dir()


def test_rewrite_is_quiet_when_all_is_well(box: HookBox) -> None:
    start(box)
    move_main(box)
    done = box.sh("rebase", "-q", "main", sid=SID)
    assert "lets-hooks" not in done.stderr


def test_amend_on_a_detached_head_touches_nothing(box: HookBox) -> None:
    start(box)
    before = box.task("feat").read_bytes()
    box.sh("checkout", "-q", "--detach", sid=SID)
    box.sh("commit", "-q", "--amend", "-m", "detached amend", sid=SID)
    assert box.task("feat").read_bytes() == before


def test_an_amend_under_a_line_naming_no_commit_is_said_not_skipped(box: HookBox) -> None:
    """A recorded line whose sha is no commit here: an amend has nothing to move, and the
    ladder's rejection is what is said (post-rewrite said "skipped (IndexError: list index
    out of range)")."""
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    box.task("feat").write_text(f"session: {'ab' * 20} {SID}\n")
    box.file_commit("a.txt", "a\n", sid=SID)
    done = box.sh("commit", "-q", "--amend", "-m", "amended", sid=SID)
    assert "skipped" not in done.stderr, done.stderr
    assert "rejected (not a commit in this repository)" in done.stderr, done.stderr


def test_patch_ids_are_the_last_resort(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    for name in ("post-rewrite",):
        (box.path / ".git" / "hooks" / name).unlink()  # git will not tell us the pairs
    start(box, older=1)
    tip = move_main(box)
    box.sh("rebase", "-q", "main", sid=SID)
    assert box.line("feat") != f"{box.rev('HEAD~3')} {SID}"  # nothing moved it yet
    result = hooks.post_rewrite([], b"", {"PRE_COMMIT_REWRITE_COMMAND": "rebase",
                                          "LETS_SESSION_ID": SID}, 0, cwd=str(box.path))
    assert result.code == 0
    # The boundary is placed; but git never said which commit each copy copies (the
    # hook did not run), so the copies cannot be vouched for: counted, not exact.
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"], fields["SESSION_BOUNDARY"]) \
        == ("prior-session", "3", box.rev("HEAD~3")), fields
    assert "cannot be vouched for" in fields["stderr"]
    assert box.rev("HEAD~4") == tip


def test_boundary_that_never_bounded_this_history_is_left_alone(box: HookBox) -> None:
    start(box)
    box.sh("branch", "elsewhere", "main")
    box.sh("checkout", "-q", "elsewhere", sid=SID)
    other = box.file_commit("x.txt", "x\n")
    box.sh("checkout", "-q", "feat", sid=SID)
    box.write_task("feat", f"session: {other} {SID}\n")
    done = box.sh("commit", "-q", "--amend", "-m", "amended", sid=SID)
    assert box.line("feat") == f"{other} {SID}"
    assert "not an ancestor of HEAD" in done.stderr and "lets-hooks record" in done.stderr


def test_malformed_pairs_on_stdin_are_ignored(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    boundary = start(box)
    stdin = b"--upload-pack=evil zzz\nnot a pair\n"
    result = hooks.post_rewrite(["amend"], stdin, {"LETS_SESSION_ID": SID}, 0,
                                cwd=str(box.path))
    assert result.code == 0
    assert box.line("feat") == f"{boundary} {SID}"


