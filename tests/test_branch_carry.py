"""A branch carries the session's boundary to where the session takes it (SPEC §4,
post-checkout), through real git and the plain shims.

Each workflow: a session (``SID``) records its line on ``topic`` and makes commits; then
the work moves to another branch the way git users move it. Afterwards the branch the work
is on reads ``exact`` with the session's commits counted, from the boundary the session
started at, and its ``session-recorded`` time is the one the session recorded. Where the
work did not come from the session's line (another session, a branch made elsewhere) the
line is written at HEAD as before.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, make, needs_git, teammate, with_remote

STAMP = re.compile(rb"^session-recorded: (\S+) (\S+)", re.M)


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = make(tmp_path)
    made.install()
    return made


def recorded(box: HookBox, branch: str, root: Path | None = None) -> tuple[str, str] | None:
    found = STAMP.search(box.task(branch, root).read_bytes())
    return (found.group(1).decode(), found.group(2).decode()) if found else None


def session(box: HookBox, commits: int = 2) -> tuple[str, tuple[str, str] | None]:
    """``topic`` off main, first touched by this session, then ``commits`` commits.
    Returns the boundary and its ``session-recorded`` (sha, time)."""
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    boundary = box.head()
    assert box.line("topic") == f"{boundary} {SID}"
    stamp = recorded(box, "topic")
    time.sleep(1.1)  # a line written at HEAD now would carry a later time
    for i in range(commits):
        box.file_commit(f"s{i}.txt", f"session {i}\n", f"s{i}", sid=SID)
    return boundary, stamp


def answer(box: HookBox, cwd: Path | None = None) -> tuple[str, str, str]:
    fields = box.boundary(env={"LETS_SESSION_ID": SID}, cwd=cwd)
    return fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]


def in_other_tree(box: HookBox, wt: Path, boundary: str) -> None:
    """The answer in a second work tree for a line carried there: the boundary the
    session started at. The two commits were made in the first work tree: the session
    ledger is the repository's, so they are the session's there too, counted, exact."""
    trust, found, commits = answer(box, cwd=wt)
    assert found == boundary
    assert (trust, commits) == ("exact", "2")


@pytest.mark.parametrize("create", [("switch", "-q", "-c", "next"),
                                    ("checkout", "-q", "-b", "next"),
                                    ("checkout", "-q", "-B", "next")])
def test_a_branch_made_from_head_starts_with_the_session_boundary(
        box: HookBox, create: tuple[str, ...]) -> None:
    boundary, stamp = session(box)
    done = box.sh(*create, sid=SID)
    assert box.line("next") == f"{boundary} {SID}"
    assert recorded(box, "next") == stamp  # the time the session recorded, not now
    assert answer(box) == ("exact", boundary, "2")
    box.file_commit("n.txt", "next\n", sid=SID)
    assert answer(box) == ("exact", boundary, "3")
    assert "lets-hooks" not in done.stderr


def test_checkout_big_b_resets_an_existing_branch_to_the_session(box: HookBox) -> None:
    """``checkout -B old`` where ``old`` has an earlier session's line elsewhere: reset to
    HEAD, it starts with the session's boundary."""
    box.sh("switch", "-q", "-c", "old", sid=OTHER)
    box.file_commit("o.txt", "other work\n", sid=OTHER)
    box.sh("switch", "-q", "main", sid=OTHER)
    boundary, _ = session(box)
    box.sh("checkout", "-q", "-B", "old", sid=SID)
    assert box.line("old") == f"{boundary} {SID}"
    assert answer(box) == ("exact", boundary, "2")


def test_checkout_big_b_over_a_branch_this_session_touched_before(box: HookBox) -> None:
    """The session touched ``side`` (its line there is this session's), then resets it to
    its topic with ``checkout -B``: the old line is no ancestor of HEAD any more, so the
    topic's line is carried over it."""
    box.sh("switch", "-q", "-c", "side", sid=SID)
    box.file_commit("side.txt", "side\n", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    boundary, _ = session(box)
    done = box.sh("checkout", "-q", "-B", "side", sid=SID)
    assert box.line("side") == f"{boundary} {SID}"
    assert answer(box) == ("exact", boundary, "2")
    assert "rejected" not in done.stderr


def test_worktree_add_b_starts_with_the_session_boundary(box: HookBox, tmp_path: Path
                                                         ) -> None:
    boundary, stamp = session(box)
    wt = tmp_path / "wt"
    box.sh("worktree", "add", "-q", "-b", "wtb", str(wt), sid=SID)
    assert box.line("wtb", root=wt) == f"{boundary} {SID}"
    assert recorded(box, "wtb", root=wt) == stamp
    in_other_tree(box, wt, boundary)


def test_worktree_add_of_an_existing_branch_takes_the_line_of_the_other_worktree(
        box: HookBox, tmp_path: Path) -> None:
    boundary, stamp = session(box)
    box.sh("switch", "-q", "main", sid=SID)
    wt = tmp_path / "wt"
    box.sh("worktree", "add", "-q", str(wt), "topic", sid=SID)
    assert box.line("topic", root=wt) == f"{boundary} {SID}"
    assert recorded(box, "topic", root=wt) == stamp
    in_other_tree(box, wt, boundary)


def test_worktree_add_of_another_sessions_branch_starts_at_head(box: HookBox,
                                                                tmp_path: Path) -> None:
    box.sh("switch", "-q", "-c", "theirs", sid=OTHER)
    box.file_commit("t.txt", "theirs\n", sid=OTHER)
    box.sh("switch", "-q", "main", sid=OTHER)
    wt = tmp_path / "wt"
    box.sh("worktree", "add", "-q", str(wt), "theirs", sid=SID)
    assert box.line("theirs", root=wt) == f"{box.rev('theirs')} {SID}"


def test_detached_commits_on_the_session_line_then_switch_c(box: HookBox) -> None:
    boundary, stamp = session(box)
    box.sh("checkout", "-q", "--detach", "HEAD~1", sid=SID)
    box.file_commit("d1.txt", "detached 1\n", sid=SID)
    box.file_commit("d2.txt", "detached 2\n", sid=SID)
    box.sh("switch", "-q", "-c", "rescue", sid=SID)
    assert box.line("rescue") == f"{boundary} {SID}"
    assert recorded(box, "rescue") == stamp
    assert answer(box) == ("exact", boundary, "3")  # s0, d1, d2


def test_detached_commits_off_the_session_line_start_where_head_was_detached(
        box: HookBox) -> None:
    """Detached at main (not on the topic's line): the commits made there are the
    session's, the topic's are not on HEAD; the boundary is the detach point."""
    session(box)
    main = box.rev("main")
    box.sh("checkout", "-q", "--detach", "main", sid=SID)
    box.file_commit("d1.txt", "detached 1\n", sid=SID)
    box.sh("switch", "-q", "-c", "rescue", sid=SID)
    assert box.line("rescue") == f"{main} {SID}"
    assert answer(box) == ("exact", main, "1")


def test_a_reset_while_detached_is_not_carried_through(box: HookBox) -> None:
    boundary, _ = session(box)
    box.sh("switch", "-q", "main", sid=SID)
    box.file_commit("m.txt", "main moves\n")  # by no session: main is past the boundary
    box.sh("switch", "-q", "topic", sid=SID)
    box.sh("checkout", "-q", "--detach", sid=SID)
    box.sh("reset", "-q", "--hard", "main", sid=SID)
    box.file_commit("d1.txt", "detached 1\n", sid=SID)
    box.sh("switch", "-q", "-c", "rescue", sid=SID)
    # written at HEAD, below the session's own d1 (not the topic's boundary, carried)
    assert box.line("rescue") == f"{box.rev('main')} {SID}" != f"{boundary} {SID}"


def test_commits_on_main_by_mistake_moved_to_a_new_branch(tmp_path: Path) -> None:
    """The session started on main, committed there, then moved the work: ``switch -c
    topic``, ``switch main``, ``reset --hard origin/main``. The topic holds the session's
    commits, from where the session started."""
    box = with_remote(tmp_path)
    box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    start = box.head()
    box.file_commit("m1.txt", "oops 1\n", sid=SID)
    box.file_commit("m2.txt", "oops 2\n", sid=SID)
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("reset", "-q", "--hard", "origin/main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)
    assert box.line("topic") == f"{start} {SID}"
    assert answer(box) == ("exact", start, "2")


def test_a_session_on_main_that_pulled_branches_off_at_the_new_point(tmp_path: Path
                                                                     ) -> None:
    """The session's line is on main; a pull brings a teammate's commit; then ``switch -c
    topic``. main's boundary is below the topic's point off origin/main: carried as it is
    it would be rejected, so it goes up to that point (the teammate's commit is main's,
    not the topic's work)."""
    box = with_remote(tmp_path)
    box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    stamp = recorded(box, "main")
    mate = teammate(tmp_path, box, "main")
    pulled = mate.file_commit("t1.txt", "t1\n")
    mate.sh("push", "-q", "origin", "main")
    box.sh("pull", "-q", "--ff-only", "origin", "main", sid=SID)
    done = box.sh("switch", "-q", "-c", "topic", sid=SID)
    box.file_commit("c1.txt", "c1\n", sid=SID)
    assert box.line("topic") == f"{pulled} {SID}"
    assert stamp is not None and recorded(box, "topic") == (pulled, stamp[1])
    assert answer(box) == ("exact", pulled, "1")
    assert "rejected" not in done.stderr


def test_a_branch_made_from_elsewhere_is_recorded_at_head(box: HookBox) -> None:
    session(box)
    box.sh("switch", "-q", "-c", "fresh", "main", sid=SID)
    assert box.line("fresh") == f"{box.rev('main')} {SID}"
    assert answer(box) == ("exact", box.rev("main"), "0")


def test_another_session_does_not_carry(box: HookBox) -> None:
    session(box)
    box.sh("switch", "-q", "-c", "next", sid=OTHER)
    assert box.line("next") == f"{box.head()} {OTHER}"


def test_no_session_known_does_not_carry(box: HookBox) -> None:
    session(box)
    box.sh("switch", "-q", "-c", "next")
    assert box.line("next") == box.head()


# -- git branch -m --------------------------------------------------------------------------

def test_a_renamed_branch_keeps_its_state(box: HookBox) -> None:
    boundary, _ = session(box)
    before = box.task("topic").read_bytes()
    box.sh("branch", "-m", "topic", "renamed", sid=SID)
    assert answer(box) == ("exact", boundary, "2")  # found at once, by the contract command
    assert box.task("renamed").read_bytes() == before  # moved whole
    assert not box.task("topic").exists()
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "renamed", sid=SID)
    assert box.line("renamed") == f"{boundary} {SID}"
    assert answer(box) == ("exact", boundary, "2")


def test_a_rename_no_hook_saw_is_found_by_the_contract_command(box: HookBox) -> None:
    """Nothing recorded for a branch: the contract command reads its reflog for a rename
    (``git branch -m`` runs no hook); a reflog that names none leaves it estimated, one
    that does moves the old name's state to it."""
    boundary, _ = session(box)
    box.sh("switch", "-q", "-c", "plain", "main", sid=SID)  # nothing recorded for it
    (box.path / ".lets" / "sessions" / ".task-plain").unlink(missing_ok=True)
    assert box.field(SID, "SESSION_TRUST") == "estimate"  # "Created from main"
    box.sh("switch", "-q", "topic", sid=SID)
    box.sh("branch", "-m", "topic", "renamed", sid=SID)
    assert box.field(SID, "SESSION_TRUST") == "exact"
    assert box.line("renamed") == f"{boundary} {SID}"


def test_a_branch_renamed_while_another_is_checked_out_keeps_its_state(box: HookBox
                                                                        ) -> None:
    """``git branch -m topic renamed`` from main: status, ``--branch renamed`` and a
    push of it said "nothing recorded" (only the checked-out branch's rename was looked
    for), and pre-push told the user to record anew."""
    import json

    boundary, _ = session(box)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("branch", "-m", "topic", "renamed", sid=SID)
    env = {"LETS_SESSION_ID": SID}
    done = box.run("lets-session-boundary", "--branch", "renamed", env=env)
    assert done.stdout.splitlines()[:3] == [f"SESSION_BOUNDARY={boundary}",
                                           "SESSION_TRUST=exact", "SESSION_COMMITS=2"]
    rows = json.loads(box.run("lets-hooks", "status", "--json", env=env).stdout)
    assert [(row["branch"], row["trust"], row["commits"]) for row in rows
            if row["branch"] == "renamed"] == [("renamed", "exact", 2)]
    pushed = f"refs/heads/renamed {box.rev('renamed')} refs/heads/renamed {'0' * 40}\n"
    done = box.run("lets-hooks", "pre-push", "origin", "url", env=env, stdin=pushed)
    assert (done.returncode, done.stderr) == (0, "")


def test_renamed_twice_and_checked_out_first(box: HookBox) -> None:
    boundary, stamp = session(box)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("branch", "-m", "topic", "one", sid=SID)
    box.sh("branch", "-m", "one", "two", sid=SID)
    box.sh("switch", "-q", "two", sid=SID)
    assert box.line("two") == f"{boundary} {SID}"
    assert recorded(box, "two") == stamp
    assert answer(box) == ("exact", boundary, "2")


def test_state_of_a_name_that_exists_again_is_not_taken(box: HookBox) -> None:
    session(box)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("branch", "-m", "topic", "renamed", sid=SID)
    box.sh("branch", "topic", "main", sid=SID)  # a new branch under the old name
    box.sh("switch", "-q", "renamed", sid=SID)
    assert box.task("topic").exists()
    # written anew at HEAD, so below the session's own two commits (where it began)
    assert box.line("renamed") == f"{box.rev('renamed~2')} {SID}"


# -- the steady state stays cheap ----------------------------------------------------------

def test_the_steady_state_checkout_starts_no_more_git(box: HookBox, tmp_path: Path) -> None:
    """Carrying is looked up only when a line is about to be written at HEAD: a checkout
    of a branch that has this session's line starts the same three git processes as
    before (where are we, the recorded sha and the merge branch, one walk)."""
    from hookbox import calls, logging_git

    session(box)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)
    env, log = logging_git(tmp_path / "bin")
    done = box.run("lets-hooks", "post-checkout", box.rev("main"), box.head(), "1",
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0 and done.stderr == ""
    assert len(calls(log)) == 3, calls(log)


def test_a_carried_first_touch_costs_a_few_processes(box: HookBox, tmp_path: Path) -> None:
    from hookbox import calls, logging_git

    boundary, _ = session(box)
    env, log = logging_git(tmp_path / "bin")
    box.sh("branch", "next", sid=SID)
    box.sh("symbolic-ref", "HEAD", "refs/heads/next", sid=SID)
    # what git's reflog says after ``git switch -c next``
    box.sh("update-ref", "-m", "checkout: moving from topic to next", "HEAD", box.head())
    done = box.run("lets-hooks", "post-checkout", box.head(), box.head(), "1",
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert box.line("next") == f"{boundary} {SID}"
    # the first touch's 4, one ancestor question, one walk of HEAD's newest commits for
    # the session's own (a line at HEAD goes below them), and two to leave out those on
    # the merge branch's own line (its tip, and which of them it reaches)
    assert len(calls(log)) == 8, calls(log)


# -- one sample under pre-commit (git's arguments in PRE_COMMIT_FROM_REF and friends), and
# -- on reftable (the reflogs are in the ref store, read through git) ------------------------

def switch_c_and_detached_commits(box: HookBox) -> None:
    """The flow both samples run: ``switch -c`` carries the line and its time; commits on
    a detached HEAD, then ``switch -c``, carry it too."""
    boundary, stamp = session(box)
    box.sh("switch", "-q", "-c", "next", sid=SID)
    assert box.line("next") == f"{boundary} {SID}"
    assert recorded(box, "next") == stamp
    box.sh("checkout", "-q", "--detach", "HEAD~1", sid=SID)
    box.file_commit("d1.txt", "detached\n", sid=SID)
    box.sh("switch", "-q", "-c", "rescue", sid=SID)
    assert box.line("rescue") == f"{boundary} {SID}"
    assert answer(box) == ("exact", boundary, "2")


def test_switch_c_and_detached_commits_under_pre_commit(pc_box: HookBox) -> None:
    switch_c_and_detached_commits(pc_box)


def reftable_box(tmp_path: Path) -> HookBox:
    made = make(tmp_path, reftable=True)
    made.install()
    assert (made.path / ".git" / "reftable").is_dir()
    return made


@needs_git(2, 45, "reftable repositories need git 2.45")
def test_switch_c_and_detached_commits_on_reftable(tmp_path: Path) -> None:
    switch_c_and_detached_commits(reftable_box(tmp_path))


@needs_git(2, 45, "reftable repositories need git 2.45")
def test_a_renamed_branch_keeps_its_state_on_reftable(tmp_path: Path) -> None:
    box = reftable_box(tmp_path)
    boundary, _ = session(box)
    box.sh("branch", "-m", "topic", "renamed", sid=SID)
    assert answer(box) == ("exact", boundary, "2")
    assert not box.task("topic").exists()
