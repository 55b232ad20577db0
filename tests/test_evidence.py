"""``exact`` rests on evidence alone (SPEC section 3, "How it is known"): each class of
wrong ``exact`` found at the ledger's edges, built with real git, the truth known by
construction, and every piece of advice the answer gives followed and checked again."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, needs_git, teammate, with_remote
from managers import fake_husky

NO_HOOKS = ("-c", "core.hooksPath=/dev/null")  # a commit no hook of ours sees


def routed(tmp_path: Path, route: str) -> HookBox:
    """``with_remote`` through an install route: the plain shims, or husky 9's layout with
    the lines ``lets-hooks install`` adds to it."""
    return with_remote(tmp_path, fake_husky if route == "husky" else None)


def answer(box: HookBox, sid: str | None = SID) -> tuple[dict[str, object], str]:
    env = {"LETS_SESSION_ID": sid} if sid is not None else {"LETS_SESSION_ID": ""}
    done = box.run("lets-session-boundary", "--json", env=env)
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data, done.stderr


def advice(stderr: str) -> list[str]:
    """Every ``lets-hooks ...`` command a NOTE tells the user to run."""
    return re.findall(r"(lets-hooks record(?: --at [0-9a-f]+)?)", stderr)


def follow(box: HookBox, command: str, sid: str = SID) -> None:
    done = box.run(*command.split(), env={"LETS_SESSION_ID": sid})
    assert done.returncode == 0, done.stderr


def follow_all(box: HookBox, stderr: str, truth: set[str]) -> dict[str, object]:
    """Follow every piece of advice in ``stderr`` in turn, each answer after it never a
    wrong ``exact``; the last answer."""
    said = advice(stderr)
    assert said, stderr
    for command in said:
        follow(box, command)
        data, stderr = answer(box)
        check_exact_is_true(data, truth)
    return data


def counted(data: dict[str, object]) -> set[str]:
    listed = data["session_commits"]
    assert isinstance(listed, dict)
    return set(listed["items"])


def check_exact_is_true(data: dict[str, object], truth: set[str]) -> None:
    """The one answer never to give: ``exact`` with a count that is not the session's."""
    if data["trust"] == "exact":
        assert counted(data) == truth, data
        assert data["commits"] == len(truth), data


def test_pushing_then_following_the_advice(tmp_path: Path) -> None:
    """No post-commit hook: the session's two commits are vouched for by nothing. Pushed,
    they are still counted and not vouched for (not "from elsewhere"); the NOTE names them
    and tells how to vouch for them, and following it gives a true ``exact 2``."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    mine = set()
    for n in range(2):
        box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", f"mine {n}", sid=SID)
        mine.add(box.head())
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID)
    data, stderr = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 2, 0), data
    for sha in mine:
        assert sha[:12] in stderr, stderr
    said = advice(stderr)
    assert said and said[0].startswith("lets-hooks record --at"), stderr
    follow(box, said[0])
    data, _ = answer(box)
    assert data["trust"] == "exact", data
    check_exact_is_true(data, mine)


def test_a_claim_never_covers_a_commit_the_ledger_names(tmp_path: Path) -> None:
    """A person commits at another terminal (no session id: the ledger says so) between
    the session's commits; the session switches away and back. ``record --at`` at the
    boundary claims only what no line names: the person's commit stays not the session's,
    and every piece of advice, followed, keeps ``exact`` true."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    start = box.head()
    mine = {box.file_commit("a.txt", "a\n", "mine", sid=SID)}
    box.file_commit("p.txt", "p\n", "a person's")  # the hook writes "c <sha> -"
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "mine, no hook", sid=SID)
    mine.add(box.head())
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)
    data, stderr = answer(box)
    assert data["trust"] != "exact", data
    follow(box, f"lets-hooks record --at {start}")
    data, stderr = answer(box)
    check_exact_is_true(data, mine)
    assert data["trust"] == "exact" and data["elsewhere"] == 1, data
    for command in advice(stderr):
        follow(box, command)
        data, stderr = answer(box)
        check_exact_is_true(data, mine)


def test_no_advice_that_leaves_the_sessions_root_commit_out(tmp_path: Path) -> None:
    """The session made a repository's first commit, then a branch from it (its line at
    that commit: nothing lies below a root commit). The NOTE said "to keep it in the
    range, run: lets-hooks record --at <HEAD>", which leaves both commits out; no REV keeps
    a root commit in ``REV..HEAD``, so the answer gives no advice (SPEC section 3)."""
    box = HookBox(tmp_path / "work")
    box.install()
    box.sh("switch", "-q", "--orphan", "spike", sid=SID)  # no merge branch yet
    box.sh("commit", "-q", "--allow-empty", "-m", "first", sid=SID)
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    box.sh("commit", "-q", "--allow-empty", "-m", "second", sid=SID)
    data, stderr = answer(box)
    assert data["trust"] == "prior-session", data
    first = box.rev("topic~1")
    assert (f"commit {first[:12]} was made by this session and is the boundary itself: the "
            "boundary is too high" in stderr), stderr  # not "lies below" itself
    assert advice(stderr) == [], stderr


def test_no_session_id_is_told_to_set_one(tmp_path: Path) -> None:
    """A caller with no session id is told to set one, never to run ``record`` (which
    cannot help, and would replace the session's line with one of no session); ``record``
    without an id refuses to replace a session's line."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    box.file_commit("a.txt", "a\n", "mine", sid=SID)
    data, stderr = answer(box, sid=None)
    assert data["trust"] == "prior-session", data
    assert "LETS_SESSION_ID" in stderr and "run: lets-hooks record" not in stderr, stderr
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": ""})
    assert done.returncode != 0 and "LETS_SESSION_ID" in done.stderr, done.stderr
    assert box.line("topic") is not None and SID in (box.line("topic") or ""), box.line("topic")
    data, _ = answer(box)
    assert (data["trust"], data["commits"]) == ("exact", 1), data


def test_a_commit_no_hook_saw_under_another_sessions_line(tmp_path: Path) -> None:
    """The branch's line is another session's; this session made a commit no hook saw.
    Plain ``record`` would leave it out (``exact 0``): the advice names it instead, and
    following that advice gives a true ``exact 1``."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER})
    assert done.returncode == 0, done.stderr
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "mine, no hook", sid=SID)
    mine = {box.head()}
    data, stderr = answer(box)
    assert data["trust"] == "prior-session", data
    assert box.head()[:12] in stderr, stderr
    said = advice(stderr)
    assert said and all("--at" in s for s in said), stderr
    for command in said:
        follow(box, command)
        data, stderr = answer(box)
        check_exact_is_true(data, mine)
    assert data["trust"] == "exact", data


def conditional(stderr: str) -> list[str]:
    """The advice that holds only on a condition the user must know the truth of (``if
    this session made them ..., vouch for them with: lets-hooks record --at REV``)."""
    return re.findall(r"if this session made [^:]*: (lets-hooks record --at [0-9a-f]+)",
                      stderr)


@pytest.mark.parametrize("maker", ["a person", "the session"])
def test_the_too_high_advice_never_claims_a_commit_nothing_vouches_for(
        tmp_path: Path, maker: str) -> None:
    """The session commits; then a commit no hook of ours sees (a person's, or the
    session's own); then another writer (the ``lets`` tool) puts the session's line at
    HEAD, and the session commits again. The boundary is too high, and ``record --at``
    the place below the session's first commit would claim the commit in between as the
    session's: the advice names it and holds only if the session made it. Every piece of
    advice given without a condition, followed, keeps ``exact`` true; the conditional
    one, followed where it is true, gives a true ``exact``."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    mine = {box.file_commit("a.txt", "a\n", "mine 1", sid=SID)}
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "no hook saw it",
           sid=SID if maker == "the session" else None)
    between = box.head()
    if maker == "the session":
        mine.add(between)
    task = box.task("topic")
    task.write_text(f"task: topic\nsession: {between} {SID}\n")  # as the lets tool writes
    mine.add(box.file_commit("b.txt", "b\n", "mine 2", sid=SID))
    data, stderr = answer(box)
    assert data["trust"] == "prior-session" and "too high" in stderr, stderr
    assert between[:12] in stderr, stderr
    asked = conditional(stderr)
    for command in [said for said in advice(stderr) if said not in asked]:
        follow(box, command)
        after, _ = answer(box)
        check_exact_is_true(after, mine)
    assert asked, stderr
    if maker == "the session":
        follow(box, asked[0])
        data, _ = answer(box)
        assert data["trust"] == "exact", data
        check_exact_is_true(data, mine)


def test_recording_on_the_merge_branch_keeps_the_sessions_commits_there(
        tmp_path: Path) -> None:
    """On the merge branch itself (a trunk-only team) the branch's own line is the range:
    another session's line stands at main's tip, this session commits on main and pushes.
    The advice is plain ``record``; followed, the line goes below the session's commit,
    never above it (an ``exact 0`` where the session made one)."""
    box = with_remote(tmp_path)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER})
    assert done.returncode == 0, done.stderr
    mine = {box.file_commit("a.txt", "a\n", "mine, on main", sid=SID)}
    box.sh("push", "-q", "origin", "main", sid=SID)
    data, stderr = answer(box)
    assert data["trust"] == "prior-session", data
    data = follow_all(box, stderr, mine)
    assert (data["trust"], data["commits"]) == ("exact", 1), data


def test_a_line_placed_on_a_topic_never_vouches_for_the_merge_branch(tmp_path: Path) -> None:
    """The session commits on main, a person commits on main after it, and the session
    makes a topic there: the topic's line stands above the session's commit (main's work,
    left aside on a topic). Back on main, ``record --at`` the person's commit puts main's
    line above the session's commit too: that is no ``exact 0`` (what the topic's line
    said of the session's commits is not said of main's), and the advice, followed, gives
    a true ``exact``."""
    box = with_remote(tmp_path)
    mine = {box.file_commit("a.txt", "a\n", "mine, on main", sid=SID)}
    person = box.file_commit("p.txt", "p\n", "a person's, on main")
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    data, _ = answer(box)
    assert (data["trust"], data["boundary"], data["commits"]) == ("exact", person, 0), data
    box.sh("switch", "-q", "main", sid=SID)
    follow(box, f"lets-hooks record --at {person}")
    data, stderr = answer(box)
    check_exact_is_true(data, mine)
    data = follow_all(box, stderr, mine)
    assert data["trust"] == "exact", data


def _no_log_topic(tmp_path: Path) -> tuple[HookBox, set[str]]:
    """No HEAD log (``core.logAllRefUpdates=false``): a topic made with no session id, and
    the session's two commits on it (written as amends: post-commit cannot tell)."""
    box = with_remote(tmp_path)
    box.sh("config", "core.logAllRefUpdates", "false")
    shutil.rmtree(box.path / ".git" / "logs")
    box.sh("checkout", "-q", "-b", "topic")  # no session id: a line of no session
    mine = {box.file_commit("a.txt", "a\n", "mine 1", sid=SID),
            box.file_commit("b.txt", "b\n", "mine 2", sid=SID)}
    return box, mine


def test_with_no_head_log_a_line_never_goes_above_the_sessions_commits(
        tmp_path: Path) -> None:
    """``core.logAllRefUpdates=false`` and no HEAD log: post-commit cannot tell a commit
    from an amend, so the ledger says the session made each as an amend (``a``). The
    session's first checkout of the branch after those commits writes its line at HEAD:
    it must not go above them (an ``exact 0``), and the advice, followed, keeps it so."""
    box, mine = _no_log_topic(tmp_path)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)  # the session's first touch of the branch
    data, stderr = answer(box)
    check_exact_is_true(data, mine)
    for command in advice(stderr):
        follow(box, command)
        data, stderr = answer(box)
        check_exact_is_true(data, mine)
    assert data["trust"] == "prior-session" and data["commits"] == 2, data


def test_amends_with_no_pair_are_said_and_no_claim_is_advised(tmp_path: Path) -> None:
    """No HEAD log: the ledger holds the session's commits as amends with no rewrite pair,
    which no claim vouches for. Under a line of no session the answer says so and advises
    no ``record --at`` (its claims would be read past, the same advice given again)."""
    box, mine = _no_log_topic(tmp_path)
    data, stderr = answer(box)
    assert (data["trust"], data["commits"]) == ("prior-session", 2), data
    assert "amends with no rewrite pair" in stderr, stderr
    assert not advice(stderr), stderr
    check_exact_is_true(data, mine)


@pytest.mark.parametrize("refs", ["files", pytest.param("reftable", marks=needs_git(
    2, 45, "reftable repositories need git 2.45"))])
@pytest.mark.parametrize("writer", ["shell", "python"])
def test_a_commit_typed_at_a_rebase_stop_is_its_typists(tmp_path: Path, writer: str,
                                                        refs: str) -> None:
    """The session's ``git rebase -i`` stops at an ``edit``; a person at another terminal
    commits there (no session id), then the session commits too and continues. Each
    commit typed at the stop is written when it is made, under the id of whoever typed it
    (``python``: the shim hands over to lets-hooks, as a project's own settings make it),
    never all as the session's by the post-rewrite of whoever continues. On ``reftable``
    HEAD's log is no file: the shim read none, wrote nothing, and post-rewrite wrote the
    person's commit as the session's (``exact`` counting it)."""
    box = with_remote(tmp_path, reftable=refs == "reftable")
    if writer == "python":
        (box.path / ".lets").mkdir(exist_ok=True)
        (box.path / ".lets" / "config.toml").write_text("max_age_days = 14\n")
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    box.file_commit("a.txt", "a\n", "mine 1", sid=SID)
    box.file_commit("b.txt", "b\n", "mine 2", sid=SID)
    box.sh("rebase", "-q", "-i", "HEAD~2", sid=SID,
           extra={"GIT_SEQUENCE_EDITOR": "sed -i -e 1s/^pick/edit/"})
    box.sh("commit", "-q", "--allow-empty", "-m", "a person's, at the stop")
    theirs = box.head()
    box.sh("commit", "-q", "--allow-empty", "-m", "mine, at the stop", sid=SID)
    box.sh("rebase", "--continue", sid=SID)
    mine = {box.rev("HEAD"), box.rev("HEAD~1"), box.rev("HEAD~3")}
    assert box.rev("HEAD~2") == theirs
    data, stderr = answer(box)
    check_exact_is_true(data, mine)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 3, 1), stderr


EXECS = {"empty": 'git commit -q --allow-empty -m "made by exec"',
         "file": 'date +%N >>exec.txt && git add exec.txt && git commit -q -m "made by exec"'}


@pytest.mark.parametrize("dropped", ["the session's", "the boundary"])
@pytest.mark.parametrize("made", sorted(EXECS))
def test_a_pick_dropped_after_an_exec_commit_is_no_copy(tmp_path: Path, made: str,
                                                         dropped: str) -> None:
    """``git rebase -i --empty=drop --exec 'git commit ...'``: a pick whose change main
    already has is dropped, and git lists it as rewritten into HEAD, the commit the exec
    step before it made. That commit was written as the dropped pick's copy (the session's
    exec commit read as someone's copy; below it, the boundary's own pick as "changed",
    then the whole range "mixed"; the boundary moved onto the exec commit, leaving it out).
    Each exec commit is the session's, made; the boundary goes to the newest earlier copy."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic", sid=OTHER)
    box.file_commit("e1.txt", "e1\n", "earlier 1", sid=OTHER)
    if dropped == "the boundary":
        box.file_commit("e2.txt", "e2\n", "earlier 2", sid=OTHER)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    for name in ("s1", "s2", "s3"):
        box.file_commit(f"{name}.txt", f"{name}\n", name, sid=SID)
    box.sh("checkout", "-q", "main", sid=SID)
    twin = "e2" if dropped == "the boundary" else "s2"
    (box.path / "other.txt").write_text("a different patch id\n")
    box.sh("add", "other.txt")
    box.file_commit(f"{twin}.txt", f"{twin}\n", f"{twin}, and more, on main", sid=OTHER)
    box.sh("checkout", "-q", "topic", sid=SID)
    box.sh("rebase", "-q", "-i", "--empty=drop", "--exec", EXECS[made], "main", sid=SID,
           extra={"GIT_SEQUENCE_EDITOR": ":"})
    lines = box.sh("log", "--format=%H %s", "main..HEAD").stdout.splitlines()
    subjects = [line.split(" ", 1)[1] for line in lines]
    exec_made = {line.split()[0] for line in lines if line.endswith(" made by exec")}
    # the twin was dropped, and the exec after it ran: one exec commit more than picks
    assert twin not in subjects and len(exec_made) == len(lines) - len(exec_made) + 1, subjects
    newest_earlier = subjects.index("earlier 1")
    mine = {line.split()[0] for line in lines[:newest_earlier]}
    data, stderr = answer(box)
    check_exact_is_true(data, mine)
    logged = box.sh("log", "-g", "--format=%H %gs", "HEAD").stdout.splitlines()
    if any(line.split(" ", 1)[1].startswith("rebase: ") for line in logged
           if line.split()[0] in exec_made):
        # an older git (2.30) logs the exec's commit as the rebase's own ("rebase: made by
        # exec"), not as git commit's: nothing then tells it from a pick, and the answer
        # may only degrade, never count wrong (checked above)
        pytest.skip("this git logs an exec step's commit as the rebase's, not git commit's")
    assert (data["trust"], data["commits"]) == ("exact", len(mine)), (data, stderr)
    ledger_text = (box.path / ".git" / "lets-hooks" / "ledger").read_text()
    assert not [row for row in ledger_text.splitlines()
                if row.startswith("r ") and row.split()[1] in exec_made], ledger_text


def test_copies_of_commits_no_hook_saw_are_vouched_for_as_advised(tmp_path: Path) -> None:
    """The session's two commits were made with no hook of ours running; then ``git
    rebase main`` (hooks running) copies them as they were, and the ledger's rewrite
    lines say each copy is its original, which no line names. The advice names the copies
    and how to vouch for them; followed (they are the session's), it gives a true
    ``exact 2``, not the same advice again."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    for n in range(2):
        (box.path / f"t{n}.txt").write_text(f"{n}\n")
        box.sh("add", f"t{n}.txt")
        box.sh(*NO_HOOKS, "commit", "-q", "-m", f"mine {n}, no hook", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    box.file_commit("m.txt", "m\n", "main moves on")
    box.sh("switch", "-q", "topic", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    mine = {box.rev("HEAD"), box.rev("HEAD~1")}
    data, stderr = answer(box)
    assert data["trust"] == "prior-session", data
    data = follow_all(box, stderr, mine)
    assert (data["trust"], data["commits"]) == ("exact", 2), data


@pytest.mark.parametrize("kept", ["checked out nowhere", "in another work tree"])
def test_advice_about_another_branch_is_followed_on_that_branch(tmp_path: Path,
                                                                  kept: str) -> None:
    """``lets-session-boundary --branch b2`` asked from ``b1``: the advice is ``b2``'s, and
    ``lets-hooks record`` acts on the branch checked out where it runs. Followed as given
    (in a shell, from ``b1``'s work tree), it must vouch for ``b2``'s commit and claim
    nothing on ``b1``, where a person's commit no hook saw stands."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "b2", sid=SID)
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "mine, no hook", sid=SID)
    mine = {box.head()}
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "-c", "b1", sid=SID)
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "a person's, no hook")
    if kept == "in another work tree":
        box.sh("worktree", "add", "-q", str(tmp_path / "b2-tree"), "b2", sid=SID)
    done = box.run("lets-session-boundary", "--json", "--branch", "b2",
                   env={"LETS_SESSION_ID": SID})
    said = re.findall(r"((?:git switch \S+ && |cd \S+ && )?lets-hooks record"
                      r"(?: --at [0-9a-f]+)?)", done.stderr)
    assert said, done.stderr
    for command in said:
        ran = subprocess.run(["sh", "-c", command], cwd=box.path, env=box.environ(SID),
                             capture_output=True, text=True, timeout=120, check=False)
        assert ran.returncode == 0, ran.stderr
    if kept == "checked out nowhere":
        box.sh("switch", "-q", "b1", sid=SID)
    data, _ = answer(box)  # b1, where the person's commit is
    check_exact_is_true(data, set())
    done = box.run("lets-session-boundary", "--json", "--branch", "b2",
                   env={"LETS_SESSION_ID": SID})
    data = json.loads(done.stdout)
    assert data["trust"] == "exact", (data, done.stderr)
    check_exact_is_true(data, mine)


@pytest.mark.parametrize("route", ["plain", "husky"])
def test_a_copy_another_session_replayed_is_its_originals_when_a_line_is_placed(
        tmp_path: Path, route: str) -> None:
    """Session B (``SID``) commits on the topic; session A (``OTHER``), in the same work
    tree, commits and pulls with ``--rebase``, replaying B's commit unchanged. B records
    again: the line goes below B's copy (a plain copy is its original's, whoever
    replayed it), so B gets ``exact 1``, not ``exact 0``."""
    box = routed(tmp_path, route)
    box.sh("checkout", "-q", "-b", "topic")
    box.sh("push", "-q", "-u", "origin", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    box.file_commit("b.txt", "b\n", "B's", sid=SID)
    box.file_commit("a.txt", "a\n", "A's", sid=OTHER)
    mate = teammate(tmp_path, box, "topic")
    mate.file_commit("t.txt", "t\n", "theirs")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--rebase", sid=OTHER)
    copy = box.rev("HEAD~1")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    data, _ = answer(box)
    assert data["trust"] == "exact", data
    check_exact_is_true(data, {copy})


@pytest.mark.parametrize("route", ["plain", "husky"])
def test_the_session_commits_on_main_then_rebases_its_topic_onto_it(tmp_path: Path,
                                                                     route: str) -> None:
    """The range is the branch's: the session commits on ``main``, switches to its topic
    and runs ``git rebase main``. post-rewrite puts the boundary at ``onto``, and the
    ladder agrees: ``exact`` for the topic's commits (main's commit is main's work)."""
    box = routed(tmp_path, route)
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    box.file_commit("t1.txt", "t\n", "topic 1", sid=SID)
    box.file_commit("t2.txt", "t\n", "topic 2", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    onto = box.file_commit("m.txt", "m\n", "on main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    data, stderr = answer(box)
    assert (data["trust"], data["boundary"], data["commits"]) == ("exact", onto, 2), stderr
    check_exact_is_true(data, {box.rev("HEAD"), box.rev("HEAD~1")})


def test_why_names_each_commits_verdict_and_evidence(tmp_path: Path) -> None:
    """``--json``'s ``why``: each commit of the range, its verdict and what it rests on."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    box.sh("push", "-q", "-u", "origin", "topic")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    mine = box.file_commit("a.txt", "a\n", "mine", sid=SID)
    box.sh("push", "-q", "origin", "topic")
    mate = teammate(tmp_path, box, "topic")
    theirs = mate.file_commit("t.txt", "t\n", "theirs")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--ff-only")
    person = box.file_commit("p.txt", "p\n", "a person's")
    box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", "no hook saw it")
    unseen = box.head()
    data, _ = answer(box)
    why = data["why"]
    assert isinstance(why, dict) and why["more"] == 0, why
    rows = {row["commit"]: (row["verdict"], row["evidence"]) for row in why["items"]}
    assert rows[mine] == ("counted", "session ledger: made by this session"), rows
    assert rows[person][0] == "from elsewhere", rows
    assert "no session" in rows[person][1], rows
    assert rows[theirs][0] == "from elsewhere" and "brought in" in rows[theirs][1], rows
    assert rows[unseen][0] == "not vouched for" and "made in this work tree" in rows[unseen][1]


REFS = ["files", pytest.param("reftable", marks=needs_git(
    2, 45, "reftable repositories need git 2.45"))]


@pytest.mark.parametrize("refs", REFS)
def test_a_teammates_commit_a_pull_rebase_brings_after_a_force_push(tmp_path: Path,
                                                                    refs: str) -> None:
    """The session rebases its pushed topic onto a moved main and force-pushes; a teammate
    builds on it; the session commits and runs ``git pull --rebase``. The teammate's commit
    is where the rebase starts (HEAD only moved to it), and origin/topic's own log shows it
    fetched: from elsewhere, not "not vouched for" (as with ``pull --ff-only``). On
    reftable that log is asked of git (it was not read: the answer degraded)."""
    box = with_remote(tmp_path, reftable=refs == "reftable")
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    box.file_commit("c1.txt", "c\n", "mine 1", sid=SID)
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID)
    mate = teammate(tmp_path, box, "main")
    mate.file_commit("m.txt", "m\n", "main moves")
    mate.sh("push", "-q", "origin", "main")
    box.sh("fetch", "-q", "origin", sid=SID)
    box.sh("rebase", "-q", "origin/main", sid=SID)
    box.sh("push", "-q", "--force", "origin", "topic", sid=SID)
    mate.sh("fetch", "-q", "origin")
    mate.sh("checkout", "-q", "-B", "topic", "origin/topic")
    theirs = mate.file_commit("t.txt", "t\n", "theirs")
    mate.sh("push", "-q", "origin", "topic")
    box.file_commit("c2.txt", "c\n", "mine 2", sid=SID)
    box.sh("pull", "-q", "--rebase", sid=SID)
    data, stderr = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 1), stderr
    check_exact_is_true(data, {box.rev("HEAD"), box.rev("HEAD~2")})
    assert box.rev("HEAD~1") == theirs
    # rebased again and force-pushed: no remote-tracking ref reaches the teammate's commit
    # any more; its copy is what it copies, and the log that fetched it still says so
    mate.sh("fetch", "-q", "origin")
    mate.sh("checkout", "-q", "-B", "main", "origin/main")
    mate.file_commit("m2.txt", "m\n", "main moves again")
    mate.sh("push", "-q", "origin", "main")
    box.sh("fetch", "-q", "origin", sid=SID)
    box.sh("rebase", "-q", "origin/main", sid=SID)
    box.sh("push", "-q", "--force", "origin", "topic", sid=SID)
    data, stderr = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 1), stderr
    check_exact_is_true(data, {box.rev("HEAD"), box.rev("HEAD~2")})


def test_the_pushs_advice_on_an_estimate_leads_to_a_true_answer(tmp_path: Path) -> None:
    """Nothing recorded on the topic, and two commits no hook saw: the pre-push hook's
    fix asks for the commit the session's work starts after (recording at HEAD would say
    ``exact 0`` of a session that made two commits); followed, the answer is true. With no
    session id, it says to set one first."""
    box = with_remote(tmp_path)
    start = box.head()
    box.sh(*NO_HOOKS, "checkout", "-q", "-b", "topic")
    mine = set()
    for n in range(2):
        box.sh(*NO_HOOKS, "commit", "-q", "--allow-empty", "-m", f"mine {n}", sid=SID)
        mine.add(box.head())
    done = box.sh("push", "-q", "-u", "origin", "topic", sid="")
    (unset,) = [line for line in done.stderr.splitlines() if "pre-push" in line]
    assert "Fix: set LETS_SESSION_ID to the session's id" in unset, unset
    done = box.sh("push", "-q", "origin", "topic:refs/heads/again", sid=SID)
    (warned,) = [line for line in done.stderr.splitlines() if "pre-push" in line]
    fix = warned.split("Fix: ", 1)[1]
    command = fix.split(",", 1)[0]
    assert command == "lets-hooks record --at REV", warned
    follow(box, command.replace("REV", start))
    data, _ = answer(box)
    assert data["trust"] == "exact", data
    check_exact_is_true(data, mine)


@pytest.mark.parametrize("refs", REFS)
def test_a_commit_another_work_tree_made_is_never_from_elsewhere(tmp_path: Path,
                                                                  refs: str) -> None:
    """A commit no hook saw (the session's own, with the hooks switched off), replayed by
    a rebase, then a second work tree of the same clone: the ledger names the copy, not
    the original, and only the first work tree's HEAD log shows the original made. Asked
    from the second, it is made here, never "from elsewhere". On reftable those logs are
    no files: they were not read, and the answer was ``exact`` without it."""
    box = with_remote(tmp_path, reftable=refs == "reftable")
    box.sh("checkout", "-q", "-b", "topic", sid=SID)
    box.file_commit("a.txt", "a\n", "mine 1", sid=SID)
    (box.path / "b.txt").write_text("b\n")
    box.sh("add", "b.txt")
    box.sh(*NO_HOOKS, "commit", "-q", "-m", "mine 2, no hook saw it", sid=SID)
    box.sh("checkout", "-q", "main")
    box.file_commit("m.txt", "m\n", "main moves")
    box.sh("checkout", "-q", "topic", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    second = tmp_path / "second"
    box.sh("worktree", "add", "-q", "-b", "more", str(second), sid=SID)
    box.sh("commit", "-q", "--allow-empty", "-m", "mine 3", sid=SID, cwd=second)
    there = HookBox(second)
    data, _ = answer(there)
    check_exact_is_true(data, {there.rev("HEAD"), there.rev("HEAD~1"), there.rev("HEAD~2")})
    assert data["trust"] != "exact" and "not vouched for" in json.dumps(data["why"]), data
