"""post-rewrite and the other branches a rebase moves or shares state with.

- ``git rebase --update-refs`` (or ``rebase.updateRefs``) of a stack ``main <- a <- b <- c``
  whose branches each have a session line: every branch the rebase moved has its boundary
  moved by the same rule as the checked-out one (``a`` was transplanted: to the new main;
  ``b`` and ``c`` began at the tip of the branch below, which was rewritten: to its new
  copy), each written under its own lock.
- ``feat/x`` and ``feat-x`` share the state file ``.task-feat-x``: a rewrite of either
  never writes it, and says why.
- ``rebase --apply`` while another branch points at the same tip: the rebased branch's
  boundary still follows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, make, needs_git
from scenarios import expect, move_main, start

SID_A = "aaaaaaaa-0000-4000-8000-00000000000a"
SID_B = "bbbbbbbb-0000-4000-8000-00000000000b"
SID_C = "cccccccc-0000-4000-8000-00000000000c"
STACK = ("a", "b", "c")


needs_update_refs = needs_git(2, 38, "git rebase --update-refs needs git 2.38")


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = make(tmp_path)
    made.install()
    return made


def build_stack(box: HookBox, sids: dict[str, str]) -> dict[str, str]:
    """``main <- a <- b <- c``, two commits each; each branch's session line at the branch
    below it, with its session id (``lets-hooks record`` right after the checkout: one
    session's ``checkout -b`` from its own line carries that line up, see
    ``test_a_stack_one_session_built_follows``). Returns each branch's boundary."""
    boundaries = {}
    for name in STACK:
        box.sh("checkout", "-q", "-b", name, sid=sids[name])
        done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": sids[name]})
        assert done.returncode == 0, done.stderr
        boundaries[name] = box.head()
        assert box.line(name) == f"{boundaries[name]} {sids[name]}"
        for i in (1, 2):
            box.file_commit(f"{name}{i}.txt", f"{name} {i}\n", f"{name}{i}", sid=sids[name])
    return boundaries


def answer(box: HookBox, branch: str, sid: str) -> dict[str, str]:
    return box.boundary("--branch", branch, env={"LETS_SESSION_ID": sid})


REBASES = {
    "--update-refs": ("rebase", "-q", "--update-refs", "main"),
    "rebase.updateRefs": ("-c", "rebase.updateRefs=true", "rebase", "-q", "main"),
}


@needs_update_refs
@pytest.mark.parametrize("how", sorted(REBASES))
def test_every_branch_of_the_stack_follows(box: HookBox, how: str) -> None:
    # each branch a session's of its own: one session's line above commits it made on the
    # branch below would be too high (a line written at HEAD goes below them)
    sids = {"a": SID_A, "b": SID_B, "c": SID}
    old = build_stack(box, sids)
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "c", sid=SID)
    shutil.rmtree(box.path / ".lets" / "locks")
    done = box.sh(*REBASES[how], sid=SID)
    tips = {name: box.rev(name) for name in ("main", *STACK)}
    assert tips["a"] != old["b"] and tips["b"] != old["c"]  # the stack was rewritten
    below = {"a": "main", "b": "a", "c": "b"}
    for name in STACK:
        fields = answer(box, name, sids[name])
        assert fields["SESSION_TRUST"] == "exact", (name, fields, done.stderr)
        assert fields["SESSION_BOUNDARY"] == tips[below[name]], (name, fields)
        assert fields["SESSION_COMMITS"] == "2", (name, fields)
        assert box.line(name) == f"{tips[below[name]]} {sids[name]}"
        assert (box.path / ".lets" / "locks" / f"task-{name}.lock").exists(), name
    assert "lets-hooks: " not in done.stderr


# what post-rewrite reads of the rebase's state, written by a hook git runs beside ours
SEEN_STATE = """#!/bin/sh
cat >/dev/null
exec "$LETS_PYTHON" -c '
import json, sys
from lets_hooks import gitfiles
seen = gitfiles.rebase_state(".git")
json.dump({"onto": seen.onto, "refs": [r for r, _, _ in seen.update_refs]}, sys.stdout)
' >"$LETS_SEEN"
"""


@needs_update_refs
@pytest.mark.parametrize("how", sorted(REBASES))
def test_the_branches_a_rebase_moves_come_with_its_onto(box: HookBox, how: str,
                                                         tmp_path: Path) -> None:
    """The other branches post-rewrite moves come only from a rebase's state, and git
    keeps the rebase's ``onto`` there beside them while it runs the hook: a move can lack
    its base (and be said, with a fix) only for the checked-out branch."""
    import json
    import sys

    build_stack(box, {"a": SID_A, "b": SID_B, "c": SID})
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "c", sid=SID)
    hook = box.path / ".git" / "hooks" / "post-rewrite.pre-lets"
    hook.write_text(SEEN_STATE)
    hook.chmod(0o755)
    seen = tmp_path / "seen.json"
    box.sh(*REBASES[how], sid=SID,
           extra={"LETS_PYTHON": sys.executable, "LETS_SEEN": str(seen)})
    state = json.loads(seen.read_text())
    assert state["refs"] == ["refs/heads/a", "refs/heads/b"], state
    assert state["onto"] == box.rev("main"), state


@needs_update_refs
def test_a_stack_one_session_built_follows(box: HookBox) -> None:
    """One session makes the stack by ``checkout -b`` from each branch in turn: each
    branch carries the session's boundary (main's tip), so ``b`` holds ``a``'s commits and
    its own. ``rebase --update-refs`` onto a moved main moves every boundary to it."""
    start = box.head()
    for name in STACK:
        box.sh("checkout", "-q", "-b", name, sid=SID)
        assert box.line(name) == f"{start} {SID}"
        for i in (1, 2):
            box.file_commit(f"{name}{i}.txt", f"{name} {i}\n", f"{name}{i}", sid=SID)
    box.sh("checkout", "-q", "main", sid=SID)
    tip = box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "c", sid=SID)
    done = box.sh("rebase", "-q", "--update-refs", "main", sid=SID)
    for count, name in enumerate(STACK, start=1):
        fields = answer(box, name, SID)
        assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"]) == ("exact", tip), fields
        assert fields["SESSION_COMMITS"] == str(2 * count), (name, fields)
    assert "lets-hooks: " not in done.stderr


@needs_update_refs
def test_each_branch_keeps_its_own_session(box: HookBox) -> None:
    """The stack's lower branches belong to other sessions: moving their boundaries does
    not make them this session's (their ids stay, so each session still reads exact)."""
    sids = {"a": SID_A, "b": SID_B, "c": SID_C}
    build_stack(box, sids)
    box.sh("checkout", "-q", "main", sid=SID_C)
    box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "c", sid=SID_C)
    box.sh("rebase", "-q", "--update-refs", "main", sid=SID_C)
    below = {"a": "main", "b": "a", "c": "b"}
    for name in STACK:
        fields = answer(box, name, sids[name])
        assert fields["SESSION_TRUST"] == "exact", (name, fields)
        assert fields["SESSION_BOUNDARY"] == box.rev(below[name]), (name, fields)
        assert fields["SESSION_COMMITS"] == "2", (name, fields)
        assert box.line(name) == f"{box.rev(below[name])} {sids[name]}"


@needs_update_refs
def test_a_stack_rebased_from_its_middle(box: HookBox) -> None:
    """Checked out on ``b``: ``a`` (below it) is rewritten by ``--update-refs``; ``c``
    (above it) is not touched and keeps its line byte for byte."""
    # each branch a session's of its own (as above)
    sids = {"a": SID_A, "b": SID, "c": SID_C}
    build_stack(box, sids)
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "b", sid=SID)
    c_before = box.task("c").read_bytes()
    box.sh("rebase", "-q", "--update-refs", "main", sid=SID)
    assert box.task("c").read_bytes() == c_before
    for name, below in (("a", "main"), ("b", "a")):
        fields = answer(box, name, sids[name])
        assert fields["SESSION_TRUST"] == "exact", (name, fields)
        assert fields["SESSION_BOUNDARY"] == box.rev(below), (name, fields)
        assert fields["SESSION_COMMITS"] == "2", (name, fields)


# -- branches sharing a state file ------------------------------------------------------

SHARED_TEXT = "task: shared\n\nNotes another tool keeps here.\n"


def _shared_slug(box: HookBox) -> bytes:
    """``feat/x`` with a session of two commits, and ``feat-x`` beside it; the shared
    file carries other text too. Returns its bytes."""
    box.sh("checkout", "-q", "-b", "feat/x", sid=SID)
    for i in (1, 2):
        box.file_commit(f"x{i}.txt", f"x {i}\n", f"x{i}", sid=SID)
    box.sh("branch", "feat-x", "main")
    task = box.task("feat/x")
    task.write_bytes(task.read_bytes() + SHARED_TEXT.encode())
    return task.read_bytes()


def test_rebase_never_writes_a_shared_state_file(box: HookBox) -> None:
    before = _shared_slug(box)
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("upstream.txt", "upstream\n", "main moved")
    box.sh("checkout", "-q", "feat/x", sid=SID)
    assert box.task("feat/x").read_bytes() == before
    done = box.sh("rebase", "-q", "main", sid=SID)
    assert box.task("feat/x").read_bytes() == before
    assert "lets-hooks: " in done.stderr and "feat-x" in done.stderr, done.stderr


def test_amend_on_the_other_branch_never_writes_it(box: HookBox) -> None:
    """On ``feat-x``, amend the commit the shared line names: the rule would move that
    boundary to the amended copy; the file is ``feat/x``'s too, so it is left alone."""
    before = _shared_slug(box)
    box.sh("checkout", "-q", "feat-x", sid=SID)
    assert box.task("feat-x").read_bytes() == before
    done = box.sh("commit", "-q", "--amend", "-m", "main tip, amended on feat-x", sid=SID)
    assert box.task("feat-x").read_bytes() == before
    assert "lets-hooks: " in done.stderr and "feat/x" in done.stderr, done.stderr


# -- rebase --apply with a twin branch --------------------------------------------------

def test_apply_backend_with_another_branch_at_the_same_tip(box: HookBox) -> None:
    start(box)
    box.sh("branch", "twin", "feat")
    tip = move_main(box)
    box.sh("rebase", "-q", "--apply", "main", sid=SID)
    expect(box, 3, tip)
    assert not box.task("twin").exists()


def test_apply_backend_with_older_commits_and_a_twin(box: HookBox) -> None:
    start(box, older=1)
    box.sh("branch", "twin", "feat")
    move_main(box)
    box.sh("rebase", "-q", "--apply", "main", sid=SID)
    expect(box, 3, box.rev("HEAD~3"))
