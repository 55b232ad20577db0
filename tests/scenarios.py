"""History rewrites a session lives through, each checked the same way: afterwards the
boundary still counts exactly the session's commits, with trust ``exact``.

Used twice: with the plain shims (git's pairs on stdin) and under pre-commit (empty
stdin, the pairs recovered from git).
"""

from __future__ import annotations

from collections.abc import Callable

from helpers import SID
from hookbox import HookBox


def start(box: HookBox, session: int = 3, older: int = 0) -> str:
    """Branch ``feat`` off main (with ``older`` commits from before the session), then a
    session of ``session`` commits. Returns the boundary."""
    box.sh("checkout", "-q", "-b", "feat", sid="an-earlier-session")
    for i in range(older):
        box.file_commit(f"older{i}.txt", f"older {i}\n", sid="an-earlier-session")
    box.sh("checkout", "-q", "main", sid=SID)
    box.sh("checkout", "-q", "feat", sid=SID)  # this session's first touch
    boundary = box.head()
    assert box.line("feat") == f"{boundary} {SID}"
    for i in range(session):
        box.file_commit(f"s{i + 1}.txt", f"session {i + 1}\n", f"s{i + 1}", sid=SID)
    return boundary


def expect(box: HookBox, commits: int, boundary: str | None = None) -> None:
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "exact", fields
    assert fields["SESSION_COMMITS"] == str(commits), fields
    if boundary is not None:
        assert fields["SESSION_BOUNDARY"] == boundary, fields
    assert box.line("feat") == f"{fields['SESSION_BOUNDARY']} {SID}"


def move_main(box: HookBox) -> str:
    box.sh("checkout", "-q", "main", sid=SID)
    tip = box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "feat", sid=SID)
    return tip


def interactive(box: HookBox, script: str, onto: str = "main",
                editor: str | None = None) -> None:
    extra = {"GIT_SEQUENCE_EDITOR": f"sed -i -e '{script}'"}
    if editor:
        extra["GIT_EDITOR"] = editor
    box.sh("rebase", "-q", "-i", onto, sid=SID, extra=extra)


# -- the cases --------------------------------------------------------------------------

def amend_session_commit(box: HookBox) -> None:
    boundary = start(box)
    box.sh("commit", "-q", "--amend", "-m", "s3 amended", sid=SID)
    expect(box, 3, boundary)


def amend_only_session_commit(box: HookBox) -> None:
    boundary = start(box, session=1)
    box.sh("commit", "-q", "--amend", "-m", "s1 amended", sid=SID)
    expect(box, 1, boundary)


def amend_boundary_commit(box: HookBox) -> None:
    """The boundary commit was made before the session (by no session): amending it mixes
    that work with the session's, so the boundary goes to its first parent, the amended
    commit is counted, and the answer is approximate, with the NOTE that says why."""
    start(box, session=0)
    box.sh("commit", "-q", "--amend", "-m", "the boundary, amended", sid=SID)
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "prior-session", fields
    assert fields["SESSION_COMMITS"] == "1", fields
    assert fields["SESSION_BOUNDARY"] == box.rev("HEAD~1"), fields
    assert "holds this session's work and another's" in fields["stderr"], fields


def rebase_after_main_moved(box: HookBox) -> None:
    start(box)
    tip = move_main(box)
    box.sh("rebase", "-q", "main", sid=SID)
    expect(box, 3, tip)


def rebase_after_main_moved_with_older_commits(box: HookBox) -> None:
    start(box, older=2)
    move_main(box)
    box.sh("rebase", "-q", "main", sid=SID)
    expect(box, 3, box.rev("HEAD~3"))


def rebase_apply_backend(box: HookBox) -> None:
    start(box, older=1)
    move_main(box)
    box.sh("rebase", "-q", "--apply", "main", sid=SID)
    expect(box, 3, box.rev("HEAD~3"))


def squash_session_commits(box: HookBox) -> None:
    boundary = start(box, session=4)
    interactive(box, "2s/^pick/fixup/;3s/^pick/squash/", editor="true")
    expect(box, 2, boundary)


def squash_onto_moved_main(box: HookBox) -> None:
    start(box, session=3)
    tip = move_main(box)
    interactive(box, "2s/^pick/fixup/")
    expect(box, 2, tip)


def reword_last_two(box: HookBox) -> None:
    boundary = start(box, session=4)
    interactive(box, "3,4s/^pick/reword/", editor="sed -i -e 's/^s/reworded s/'")
    expect(box, 4, boundary)


def drop_a_middle_commit(box: HookBox) -> None:
    boundary = start(box, session=3)
    interactive(box, "2s/^pick/drop/")
    expect(box, 2, boundary)


def drop_the_first_commit(box: HookBox) -> None:
    boundary = start(box, session=3)
    interactive(box, "1s/^pick/drop/")
    expect(box, 2, boundary)


def drop_the_first_commit_onto_moved_main(box: HookBox) -> None:
    start(box, session=3, older=1)
    move_main(box)
    interactive(box, "2s/^pick/drop/")  # line 1 is the older commit
    expect(box, 2, box.rev("HEAD~2"))


CASES: dict[str, Callable[[HookBox], None]] = {
    fn.__name__: fn for fn in (
        amend_session_commit, amend_only_session_commit, amend_boundary_commit,
        rebase_after_main_moved, rebase_after_main_moved_with_older_commits,
        rebase_apply_backend, squash_session_commits, squash_onto_moved_main,
        reword_last_two, drop_a_middle_commit, drop_the_first_commit,
        drop_the_first_commit_onto_moved_main,
    )
}
