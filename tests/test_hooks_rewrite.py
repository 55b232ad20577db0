"""post-rewrite through real amends and rebases: as a plain hook (git's pairs on stdin)
and as pre-commit runs it (stdin empty, ``PRE_COMMIT_REWRITE_COMMAND`` set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, make
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
def test_boundary_follows_the_rewrite(box: HookBox, case: str) -> None:
    CASES[case](box)


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


