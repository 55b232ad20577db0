"""``lets-hooks status`` in a linked work tree: a branch checked out in another work tree
is read from that work tree's state; a branch checked out nowhere is read from this one,
unless only another work tree (the main one first) has a line for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, with_remote


@pytest.fixture
def box(tmp_path: Path) -> Iterator[HookBox]:
    made = with_remote(tmp_path)
    yield made
    made.repo.close()


def rows(box: HookBox, cwd: Path) -> dict[str, dict[str, object]]:
    done = box.run("lets-hooks", "status", "--json", env={"LETS_SESSION_ID": SID}, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return {row["branch"]: row for row in json.loads(done.stdout)}


def test_branches_recorded_in_the_main_work_tree_are_seen_from_a_linked_one(
        box: HookBox, tmp_path: Path) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=SID)  # recorded in the main work tree
    feat_start = box.head()
    box.file_commit("f.txt", "f\n", sid=SID)
    box.sh("switch", "-q", "-c", "parked", sid=SID)  # carries feat's boundary (SPEC §4)
    box.sh("switch", "-q", "main", sid=SID)
    main_start = box.head()
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    (linked / "sub").mkdir()
    for where in (box.path, linked, linked / "sub"):
        seen = rows(box, where)
        # checked out in the main work tree: its state there
        assert (seen["main"]["trust"], seen["main"]["boundary"]) == ("exact", main_start)
        # checked out nowhere, recorded only in the main work tree: that line
        assert (seen["feat"]["trust"], seen["feat"]["boundary"],
                seen["feat"]["commits"]) == ("exact", feat_start, 1)
        assert (seen["parked"]["trust"], seen["parked"]["boundary"],
                seen["parked"]["commits"]) == ("exact", feat_start, 1)
        assert seen["wt"]["trust"] == "exact"  # the linked work tree's own line
        assert "nothing recorded" not in {str(r["why"]) for r in seen.values()}
        for branch in ("feat", "parked"):  # the contract command reads the same line
            fields = box.boundary("--branch", branch, env={"LETS_SESSION_ID": SID}, cwd=where)
            assert fields["SESSION_BOUNDARY"] == seen[branch]["boundary"]
            assert fields["SESSION_TRUST"] == seen[branch]["trust"]


def test_this_work_trees_own_line_wins_for_a_branch_checked_out_nowhere(
        box: HookBox, tmp_path: Path) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.file_commit("f.txt", "f\n")
    box.sh("switch", "-q", "main", sid=SID)
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    other = "22222222-3333-4444-5555-666666666666"
    linked_task = linked / ".lets" / "sessions" / ".task-feat"
    linked_task.write_text(f"session: {box.rev('main')} {other}\n")  # this tree's own line
    seen = rows(box, linked)
    assert (seen["feat"]["boundary"], seen["feat"]["trust"]) == (box.rev("main"),
                                                                 "prior-session")


def test_pre_push_reads_the_same_work_tree_as_status(box: HookBox, tmp_path: Path) -> None:
    """Pushing, from a linked work tree, a branch checked out nowhere whose line is in the
    main work tree: judged by that line (no false 'nothing recorded' warning)."""
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.file_commit("f.txt", "f\n")
    box.sh("switch", "-q", "main", sid=SID)
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    pushed = box.sh("push", "-q", "origin", "feat", sid=SID, cwd=linked)
    assert "pre-push" not in pushed.stderr, pushed.stderr
    assert rows(box, linked)["feat"]["trust"] == "exact"
    box.sh("branch", "bare-feat", "feat")  # recorded nowhere: still said
    said = box.sh("push", "-q", "origin", "bare-feat", sid=SID, cwd=linked).stderr
    assert "branch 'bare-feat': no session boundary recorded" in said
