"""The witness (lets_hooks/witness.py) and the ladder's use of it: which commits of
``boundary..HEAD`` this session made, read from the session ledger, and where the rest
came from, read from git's own records (remote-tracking refs, the HEAD reflog), in real
repositories with a bare remote and a teammate's clone."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, git_version, make, teammate, with_remote
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import files, ledger, reflog, state, witness


def later() -> dict[str, str]:
    """A committer date a minute ahead: a rebase within the second its originals were made
    would copy them to the same shas."""
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) + 60} +0000"}


def start_session(box: HookBox, branch: str, root: Path | None = None,
                  at: str | None = None, stamp: str | None = None) -> str:
    """Record the session's boundary at HEAD (or ``at``), as ``lets-hooks record`` does:
    the session line and its ``session-recorded`` time (now, or ``stamp``: a branch the
    session creates carries its time). Two seconds back: the tests run faster than the
    recorded time's resolution."""
    sha = at or box.head() if root is None else at or box.sh(
        "rev-parse", "HEAD", cwd=root).stdout.strip()
    stamp = stamp or state.utc_stamp(time.time() - 2)
    folder = (root or box.path) / ".lets" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (".task-" + branch.replace("/", "-"))).write_text(
        f"task: work\nsession: {sha} {SID}\nsession-recorded: {sha} {stamp}\n")
    return sha


def answer(box: HookBox, *args: str, cwd: Path | None = None) -> dict[str, object]:
    done = box.run("lets-session-boundary", "--json", *args, env={"LETS_SESSION_ID": SID},
                   cwd=cwd)
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def reflog_kinds(box: HookBox) -> list[tuple[str, str]]:
    """(message, kind) of every entry of the work tree's HEAD reflog, oldest first."""
    raw = (box.path / ".git" / "logs" / "HEAD").read_bytes()
    found = []
    for line in raw.split(b"\n"):
        if line:
            row = reflog.split_line(line)
            assert row is not None, line
            message = row[1].decode()
            found.append((message, reflog.classify(message)))
    return found


# -- reading the reflog ------------------------------------------------------------------------

def test_every_message_kind_from_real_git_commands(tmp_path: Path) -> None:
    """Each command writes its own reflog message; each is read as making a commit, making
    a copy, or moving HEAD to a commit that already existed."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    box.sh("push", "-q", "-u", "origin", "topic")
    box.file_commit("a.txt", "a\n", "plain commit")
    box.sh("commit", "-q", "--amend", "-m", "amended")
    box.sh("checkout", "-q", "-b", "side", "main")
    side = box.file_commit("s.txt", "s\n", "on a side branch")
    box.sh("checkout", "-q", "topic")
    box.sh("cherry-pick", side)
    box.file_commit("r.txt", "r\n", "to revert")
    box.sh("revert", "--no-edit", "HEAD")
    patch = box.sh("format-patch", "-1", "--stdout", "HEAD").stdout
    box.sh("reset", "-q", "--hard", "HEAD~1")
    box.sh("am", "-q", stdin=patch)
    box.sh("rebase", "-q", "-i", "--force-rebase", "HEAD~2",
           extra={"GIT_SEQUENCE_EDITOR": "true"})
    box.sh("rebase", "-q", "--apply", "--force-rebase", "HEAD~1")
    box.sh("rebase", "-q", "-i", "HEAD~1", "--exec", "git commit -q --allow-empty -m by-exec",
           extra={"GIT_SEQUENCE_EDITOR": "true"})
    box.sh("checkout", "-q", "main")
    box.sh("merge", "-q", "--no-ff", "--no-edit", "topic")
    box.sh("reset", "-q", "--hard", "HEAD~1")
    box.sh("merge", "-q", "--ff-only", "topic")
    box.sh("checkout", "-q", "topic")
    box.sh("push", "-q", "origin", "topic")
    mate = teammate(tmp_path, box, "topic")
    mate.file_commit("m.txt", "m\n", "teammate work")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--ff-only")
    mate.file_commit("m2.txt", "m\n", "teammate again")
    mate.sh("push", "-q", "origin", "topic")
    box.file_commit("b.txt", "b\n", "mine")
    box.sh("pull", "-q", "--rebase")
    mate.file_commit("m3.txt", "m\n", "and again")
    mate.sh("push", "-q", "origin", "topic")
    box.file_commit("c.txt", "c\n", "mine again")
    box.sh("pull", "-q", "--no-rebase", "--no-edit")
    kinds = reflog_kinds(box)
    expected = {
        "commit: ": reflog.CREATED, "commit (amend): ": reflog.CREATED,
        "commit (initial): ": reflog.CREATED, "revert: ": reflog.CREATED,
        "cherry-pick: ": reflog.CREATED,
        "am: ": reflog.CREATED, "checkout: ": reflog.MOVED, "reset: ": reflog.MOVED,
        "rebase (pick): ": reflog.COPY, "rebase (start): ": reflog.MOVED,
        "rebase (finish): ": reflog.MOVED,
    }
    seen = set()
    for message, kind in kinds:
        for prefix, want in expected.items():
            if message.startswith(prefix):
                assert kind == want, (message, kind)
                seen.add(prefix)
        if "Merge made by" in message:
            assert kind == reflog.CREATED, message
            seen.add("merge")
        if "Fast-forward" in message:
            # a merge's or a pull's fast-forward brings in what was made elsewhere
            assert kind == reflog.ARRIVED, message
            seen.add("ff")
        if message.startswith("pull") and "(pick)" in message:
            assert kind == reflog.COPY, message
            seen.add("pull-pick")
    assert seen >= {"commit: ", "commit (amend): ", "revert: ", "am: ", "checkout: ",
                    "cherry-pick: ",
                    "reset: ", "rebase (pick): ", "rebase (start): ", "rebase (finish): ",
                    "merge", "ff", "pull-pick"}, (seen, kinds)
    # the commit an exec step made is a commit of this work tree
    assert any(m == "commit: by-exec" and k == reflog.CREATED for m, k in kinds) or any(
        m.endswith(": by-exec") for m, _ in kinds), kinds


@pytest.mark.parametrize(("message", "kind"), [
    ("rebase -i (pick): old git's pick", reflog.COPY),
    ("rebase -i (squash): x", reflog.COPY),
    ("rebase -i (start): checkout main", reflog.MOVED),
    ("rebase -i (finish): returning to refs/heads/topic", reflog.MOVED),
    ("rebase finished: returning to refs/heads/topic", reflog.MOVED),
    ("rebase: checkout main", reflog.MOVED),
    ("rebase: an apply-backend pick of an old git", reflog.COPY),
    ("rebase (reset): 'onto'", reflog.MOVED),
    ("rebase (merge): Merge branch 'x'", reflog.COPY),
    ("rebase (continue): resolved pick", reflog.COPY),
    ("commit (rebase): committed by hand at a conflicted pick", reflog.COPY),
    ("commit (merge): Merge branch 'lib'", reflog.CREATED),
    ("commit (cherry-pick): resolved", reflog.CREATED),
    ("merge lib: Merge made by recursive.", reflog.CREATED),
    ("merge lib: Merge made by the 'recursive' strategy.", reflog.CREATED),
    # a fast-forward of a merge, pull or cherry-pick, and a clone, bring in commits made
    # elsewhere (from elsewhere, not "moved to": the session ledger's semantics)
    ("merge origin/main: Fast-forward", reflog.ARRIVED),
    ("pull: Fast-forward", reflog.ARRIVED),
    ("pull --rebase (pick): mine", reflog.COPY),
    ("cherry-pick: fast-forward", reflog.ARRIVED),
    ("rebase: fast-forward", reflog.MOVED),
    ("branch: Created from HEAD", reflog.MOVED),
    ("clone: from /somewhere", reflog.ARRIVED),
    ("", reflog.MOVED),
])
def test_messages_of_older_and_newer_gits(message: str, kind: str) -> None:
    """Messages git 2.25 to today write (sequencer.c's ``rebase -i`` before 2.26)."""
    assert reflog.classify(message) == kind


def test_a_commit_made_at_a_stop_of_a_rebase() -> None:
    """A commit made at an exec or edit stop of a rebase (an old git logs it with the
    words of a pick, ``rebase: x1``) is told from a copy by the session ledger: inside a
    rebase the post-commit hook writes nothing, and post-rewrite writes the pairs of the
    copies and a ``c`` line for each commit new on the rebased branch that copies nothing
    (made at a stop, under the id the rebase ran with). ``p1`` was made by no session,
    ``s1`` by this one."""
    sha = {name: f"{n:040x}" for n, name in enumerate(
        ("root", "p1", "s1", "p1c", "s1c", "x1"), 1)}

    def status(lines: list[str], *asked: str) -> dict[str, str]:
        text = "".join(line.format(**sha, sid=SID) + "\n" for line in lines)
        book = ledger.parse(text.encode())
        return {name: book.status(sha[name], SID) for name in asked}

    made = ["c {p1} -", "c {s1} {sid}"]
    pairs = ["r {p1c} {sid} {p1} =", "r {s1c} {sid} {s1} =", "c {x1} {sid}"]
    assert status([*made, *pairs], "p1c", "s1c", "x1") == {
        "p1c": ledger.OTHER, "s1c": ledger.SESSION, "x1": ledger.SESSION}
    # a rebase whose post-rewrite never ran wrote nothing: its copies decide nothing
    assert status(made, "p1c", "x1") == {"p1c": ledger.UNKNOWN, "x1": ledger.UNKNOWN}
    # a copy the rebase changed (a reword) of what was not the session's mixes the two
    reword = [*made, "r {x1} {sid} {p1} *", "r {s1c} {sid} {s1} ="]
    assert status(reword, "x1", "s1c") == {"x1": ledger.MIXED, "s1c": ledger.SESSION}
    # another session's stop commit is never this one's
    assert status(["c {x1} other"], "x1") == {"x1": ledger.OTHER}


# -- the ladder with the witness ---------------------------------------------------------------

@pytest.mark.parametrize("fetched", [False, True], ids=["from the clone", "fetched"])
def test_where_pulled_commits_came_from_is_read_from_logs_alone(tmp_path: Path,
                                                                fetched: bool) -> None:
    """The session starts at ``origin/main`` and takes a teammate's two commits, straight
    from their clone (``git pull <path>``) or fetched into ``mate/main`` and merged
    fast-forward: HEAD's log shows them brought in, and the remotes are never walked
    (reachability from a remote-tracking ref is no evidence). Once every log is expired,
    nothing says where they came from: counted, not vouched for, never exact."""
    from hookbox import calls, logging_git

    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    assert box.rev("origin/main") == start
    mate = teammate(tmp_path, box, "main")
    mate.file_commit("t1.txt", "t\n", "theirs 1")
    mate.file_commit("t2.txt", "t\n", "theirs 2")
    if fetched:
        box.sh("remote", "add", "mate", str(mate.path))
        box.sh("fetch", "-q", "mate")
        box.sh("merge", "-q", "--ff-only", "mate/main")
    else:
        box.sh("pull", "-q", "--ff-only", str(mate.path), "main")
    box.file_commit("a.txt", "a\n", "mine", sid=SID)
    env, log = logging_git(tmp_path / "bin")
    done = box.run("lets-session-boundary", "--json",
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 1, 2), data
    assert not [c for c in calls(log) if "--remotes" in c], calls(log)
    box.sh("reflog", "expire", "--expire=now", "--all")
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 3, 0), data


def test_a_reset_to_a_fetched_commit_is_from_elsewhere(tmp_path: Path) -> None:
    """HEAD moved (``reset --hard``) to a commit a fetch brought: the remote-tracking ref's
    own log names it fetched, so it came from elsewhere; the same reset to a commit the
    session pushed (its log says ``update by push``) is no such evidence."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    box.sh("push", "-q", "-u", "origin", "topic")
    start_session(box, "topic")
    mate = teammate(tmp_path, box, "topic")
    mate.file_commit("t1.txt", "t\n", "theirs")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("fetch", "-q", "origin")
    box.sh("reset", "-q", "--hard", "origin/topic")
    box.file_commit("a.txt", "a\n", "mine", sid=SID)
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 1, 1), data


@pytest.mark.parametrize("pushed", [False, True], ids=["unpushed", "pushed"])
def test_pushing_does_not_make_the_sessions_commits_from_elsewhere(tmp_path: Path,
                                                                   pushed: bool) -> None:
    """No post-commit hook ran (hooks added later, a route without that stage): the
    session's two commits are in no ledger line, and HEAD's log shows them made here.
    Pushed, a remote-tracking ref reaches them: that says nothing of who made them, so
    the answer is the same as before the push: counted, not vouched for, never exact
    (it was ``exact, 0 commits (not counting 2 from elsewhere)``)."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    for n in range(2):
        box.sh("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m",
               f"mine {n}", sid=SID)
    if pushed:
        box.sh("push", "-q", "-u", "origin", "topic")
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 2, 0), data
    assert any("not vouched for" in n for n in data["notes"])  # type: ignore[attr-defined]


LONG = 40  # past witness.SEARCHED: the range is sorted in sets


@pytest.mark.parametrize("hooks", [True, False], ids=["ledger", "no-hooks"])
def test_a_long_pull_with_no_reflog_left(tmp_path: Path, hooks: bool) -> None:
    """A teammate pushes ``LONG`` commits to your topic, you pull them, then make your own,
    and every reflog is expired: nothing says where the pulled ones came from (that a
    remote-tracking ref reaches them is no evidence), so they are counted and the answer is
    never exact, with the hooks or without; nothing is said to be from elsewhere."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    # ``record`` writes the ledger's mark at the boundary too: more commits are then asked
    # of the ledger than it has lines after the mark, and it is read whole
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    start = box.head()
    assert box.line("topic") == f"{start} {SID}"
    box.sh("push", "-q", "-u", "origin", "topic")
    mate = teammate(tmp_path, box, "topic")
    for n in range(LONG):
        mate.sh("commit", "-q", "--allow-empty", "-m", f"theirs {n}")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--ff-only")
    mine = 3 if hooks else LONG
    for n in range(mine):
        if hooks:
            box.file_commit(f"m{n}.txt", "m\n", f"mine {n}", sid=SID)
        else:
            box.sh("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m",
                   f"mine {n}", sid=SID)
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == \
        (("exact", 3, LONG) if hooks else ("prior-session", LONG, LONG)), data
    box.sh("reflog", "expire", "--expire=now", "--all")
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == \
        ("prior-session", LONG + mine, 0), data
    assert any("not vouched for" in n for n in data["notes"])  # type: ignore[attr-defined]


def test_no_reflog_means_no_exact(tmp_path: Path) -> None:
    """core.logAllRefUpdates=false and no HEAD log: the count stays, trust does not."""
    box = make(tmp_path)
    box.sh("config", "core.logAllRefUpdates", "false")
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    (box.path / ".git" / "logs" / "HEAD").unlink()
    box.file_commit("a.txt", "a\n", "mine")
    box.file_commit("b.txt", "b\n", "mine too")
    assert not (box.path / ".git" / "logs" / "HEAD").exists()
    data = answer(box)
    assert (data["trust"], data["commits"], data["witness"]) == ("prior-session", 2, "none")
    assert data["desc"] == (f"approx: {start}..HEAD (2 commits) - boundary recorded by an "
                            "earlier session")
    notes = " ".join(data["notes"])  # type: ignore
    assert "no HEAD reflog" in notes and "lets-hooks record" in notes


def test_a_reflog_whose_newest_entry_is_not_head_is_no_witness(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine")
    log = box.path / ".git" / "logs" / "HEAD"
    kept = log.read_bytes().split(b"\n")
    log.write_bytes(b"\n".join(kept[:-2]) + b"\n")  # the newest entry lost
    data = answer(box)
    assert (data["trust"], data["witness"], data["commits"]) == ("prior-session", "none", 1)
    assert "is not HEAD" in " ".join(data["notes"])  # type: ignore


def test_a_partial_reflog_cannot_vouch_for_what_it_lost(tmp_path: Path) -> None:
    """The log was cut (expired) after the session's first commits: those are counted,
    but the answer is not exact."""
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine 1")
    box.file_commit("b.txt", "b\n", "mine 2")
    log = box.path / ".git" / "logs" / "HEAD"
    lines = [line for line in log.read_bytes().split(b"\n") if line]
    log.write_bytes(lines[-1] + b"\n")  # only the newest entry is left
    data = answer(box)
    assert (data["trust"], data["commits"], data["witness"]) == ("prior-session", 2, "reflog")
    assert data["desc"].startswith(f"approx: {start}..HEAD (2 commits)")  # type: ignore
    assert "does not reach back" in " ".join(data["notes"])  # type: ignore


def test_copies_of_the_sessions_commits_are_its_own_through_the_ledger(tmp_path: Path) -> None:
    """A rebase the hooks saw: post-rewrite noted each copy, so the copies are vouched for;
    a teammate's commit is never the session's, copied or not."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine 1", sid=SID)
    box.file_commit("b.txt", "b\n", "mine 2", sid=SID)
    before = box.head()
    box.sh("rebase", "-q", "-i", "--force-rebase", "HEAD~2", sid=SID,
           extra={"GIT_SEQUENCE_EDITOR": "true", **later()})
    assert box.head() != before
    copies = ledger.read(str(box.path / ".git")).copies
    assert box.head() in copies and len(copies) == 2, copies
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 0), data


def test_copies_nobody_noted_are_counted_but_not_exact(tmp_path: Path) -> None:
    """The same rebase with the hooks not running (no ledger lines): the copies cannot be
    vouched for; the count is kept and the trust degraded, with a note saying why."""
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine 1")
    box.file_commit("b.txt", "b\n", "mine 2")
    before = box.head()
    box.sh("rebase", "-q", "-i", "--force-rebase", "HEAD~2",
           extra={"GIT_SEQUENCE_EDITOR": "true", **later()})
    assert box.head() != before
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 2, 0)
    assert "cannot be vouched for" in " ".join(data["notes"])  # type: ignore


def test_a_session_commit_below_the_boundary_means_it_is_too_high(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine 1", sid=SID)
    high = box.file_commit("b.txt", "b\n", "mine 2", sid=SID)
    line = (box.path / ".lets" / "sessions" / ".task-topic").read_text()
    old = line.split("session: ")[1].split()[0]
    (box.path / ".lets" / "sessions" / ".task-topic").write_text(line.replace(old, high))
    box.file_commit("c.txt", "c\n", "mine 3", sid=SID)
    data = answer(box)
    assert (data["trust"], data["commits"]) == ("prior-session", 1), data
    assert "below the boundary" in " ".join(data["notes"])  # type: ignore


def test_a_ledger_line_naming_a_commit_the_repository_lacks_is_passed_over(
        tmp_path: Path) -> None:
    """A line of this session naming a commit the repository does not have (an amend's
    original pruned by ``gc``, a line written for a commit never here) decides nothing
    and costs the answer nothing: still ``exact``, with the session's commits counted."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")  # by hand: no mark below the session's commits
    box.file_commit("a.txt", "a\n", "mine 1", sid=SID)
    box.file_commit("b.txt", "b\n", "mine 2", sid=SID)
    box.sh("commit", "-q", "--amend", "-m", "mine 2, reworded", sid=SID)
    assert ledger.append(str(box.path / ".git"), [ledger.line(ledger.MADE, "de" * 20, SID)]) \
        is None
    box.sh("reflog", "expire", "--expire=now", "--all")
    box.sh("gc", "-q", "--prune=now")
    data = answer(box)
    assert (data["trust"], data["commits"]) == ("exact", 2), data


def test_a_branch_that_does_not_exist_is_said(tmp_path: Path) -> None:
    box = make(tmp_path)
    data = answer(box, "--branch", "nonexistent")
    assert (data["trust"], data["commits"]) == ("none", None)
    notes = " ".join(data["notes"])  # type: ignore
    assert "branch 'nonexistent' does not exist" in notes and "no commit yet" not in notes


def test_the_session_ledger_is_compacted_to_its_newest_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger (the rewrite pairs and who made each commit) keeps its newest ``KEEP``
    lines once it grew past ``LIMIT`` bytes; the lock it is written under is beside it."""
    common = str(tmp_path / "common")
    sha = [f"{i:040x}" for i in range(1, 8)]
    monkeypatch.setattr(ledger, "KEEP", 4)
    monkeypatch.setattr(ledger, "LIMIT", 300)  # two r lines of about 130 bytes each
    for i in range(6):
        assert ledger.note_rewrite(common, [(sha[i], sha[i + 1])], SID) is None
    book = ledger.read(common)
    assert {new: [old for old, _, _ in pairs] for new, pairs in book.copies.items()} == \
        {sha[i + 1]: [sha[i]] for i in range(2, 6)}
    assert (tmp_path / "common" / ledger.FOLDER / ledger.LOCK).exists()
    lines = (tmp_path / "common" / ledger.FOLDER / ledger.NAME).read_bytes().splitlines()
    assert len(lines) <= 4


@pytest.mark.skipif(git_version() < (2, 45), reason="the reftable backend needs git 2.45")
def test_the_reftable_backend_is_read_through_git(tmp_path: Path) -> None:
    box = HookBox.__new__(HookBox)
    box.path = tmp_path / "work"
    import subprocess

    subprocess.run(["git", "init", "-q", "--ref-format=reftable", "-b", "main", str(box.path)],
                   check=True)
    import git

    box.repo = git.Repo(box.path)
    box.git = box.repo.git
    box.commit("root", age_days=30)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine", sid=SID)
    # a commit the ledger does not name, made without HEAD (plumbing), then brought in by a
    # fast-forward: where it came from is read from HEAD's log, on reftable through git
    tree = box.sh("rev-parse", "HEAD^{tree}").stdout.strip()
    theirs = box.sh("commit-tree", tree, "-p", "HEAD", "-m", "theirs").stdout.strip()
    box.sh("update-ref", "refs/heads/other", theirs)
    box.sh("merge", "-q", "--ff-only", "other", sid=SID)
    data = answer(box)
    assert (data["trust"], data["commits"], data["witness"]) == ("exact", 1, "reftable"), data
    assert data["desc"] == (f"session: {start}..HEAD (1 commits, not counting 1 from "
                            "elsewhere)")


def test_commits_made_in_another_work_tree(tmp_path: Path) -> None:
    """The session committed on a branch in one work tree, then went on with it in a
    second one: the session ledger is the repository's, so its commits in both are its
    own; without the ledger's lines they are counted, not vouched for, and never said to
    be from elsewhere (the first work tree's log made one of them)."""
    box = make(tmp_path)
    box.install()
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "made in the first work tree", sid=SID)
    box.sh("checkout", "-q", "main")
    second = tmp_path / "second"
    box.sh("worktree", "add", "-q", str(second), "topic")
    task = (box.path / ".lets" / "sessions" / ".task-topic").read_text()
    (second / ".lets" / "sessions").mkdir(parents=True, exist_ok=True)
    (second / ".lets" / "sessions" / ".task-topic").write_text(task)
    (second / "b.txt").write_text("b\n")
    box.sh("add", "b.txt", cwd=second)
    box.sh("commit", "-q", "-m", "made in the second", cwd=second, sid=SID)
    data = answer(box, cwd=second)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 0), data
    (box.path / ".git" / ledger.FOLDER / ledger.NAME).unlink()  # nothing vouches for them
    data = answer(box, cwd=second)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 2, 0), data
    assert data["desc"].startswith(f"approx: {start}..HEAD (2 commits)")  # type: ignore
    # the note says which commits have no ledger line (it once named the other work tree)
    assert "no line of this session in the session ledger" in " ".join(
        data["notes"])  # type: ignore


def test_what_the_ledger_does_not_name_is_read_from_git(tmp_path: Path) -> None:
    """``witness.judge`` on commits the session ledger names (this session's, another's,
    a claim) and on commits it does not: from elsewhere when a remote-tracking ref reaches
    them or HEAD's log shows them brought in (a pull), else made here and not vouched for;
    a log cut short cannot say a commit it does not name came from elsewhere."""
    from lets_hooks.repo import Repo

    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    mine = [box.file_commit(f"t{n}.txt", f"{n}\n", sid=SID) for n in range(2)]
    plain = box.file_commit("p.txt", "p\n")  # made here, under no session id
    mate = teammate(tmp_path, box, "main")
    theirs = mate.file_commit("mate.txt", "mate\n")
    mate.sh("push", "-q", "origin", "main")
    box.sh("pull", "-q", "--no-rebase", "origin", "main", sid=SID)
    merge = box.head()
    head = box.head()
    top, git_dir = str(box.path), str(box.path / ".git")
    commits = [*mine, plain, theirs, merge]

    def judged(sid: str | None = SID) -> dict[str, str]:
        return witness.judge(Repo(top), git_dir, head, commits, sid).status

    status = judged()
    assert {c: status[c] for c in mine} == dict.fromkeys(mine, witness.SESSION)
    assert status[merge] == witness.SESSION  # the merge commit the session made
    assert status[plain] == witness.ELSEWHERE  # the ledger says: made under no session id
    assert status[theirs] == witness.ELSEWHERE  # origin/main reaches it
    assert judged(OTHER)[mine[0]] == witness.ELSEWHERE  # another session's is not its own
    assert judged(None)[plain] == witness.SESSION  # no session known: all made here
    # a commit with no ledger line: from elsewhere only when git's records say so
    (box.path / ".git" / ledger.FOLDER / ledger.NAME).unlink()
    status = judged()
    assert status[theirs] == witness.ELSEWHERE
    assert {c: status[c] for c in mine} == dict.fromkeys(mine, witness.UNVOUCHED)
    # record --at's claim vouches for this session only
    assert ledger.note_claims(git_dir, [mine[0]], SID) is None
    assert judged()[mine[0]] == witness.SESSION
    assert judged(OTHER)[mine[0]] == witness.UNVOUCHED
    # with ``relevant``, a commit outside it the ledger does not name is not asked about
    # (UNVOUCHED, never the session's), and what is in it or named is judged as before
    whole = judged()
    for relevant in ([*mine, plain, merge], [mine[1], theirs], []):
        given = witness.judge(Repo(top), git_dir, head, commits, SID,
                              relevant=set(relevant)).status
        for c in commits:
            expected = whole[c] if c in relevant or whole[c] == witness.SESSION \
                else witness.UNVOUCHED
            assert given[c] == expected, (c, relevant)


# -- the HEAD log searched, not parsed --------------------------------------------------

_SHAS = [f"{n:x}".rjust(40, "a") for n in range(1, 9)]
_MESSAGES = ["commit: s", "commit (amend): s", "pull: Fast-forward", "merge x: Fast-forward",
             "checkout: moving from a to b", "rebase (pick): s", "reset: moving to HEAD",
             "clone: from x", "commit (merge): m", "a tool's own words", ""]


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(st.tuples(st.sampled_from(_SHAS), st.sampled_from(_SHAS),
                                  st.sampled_from(_MESSAGES), st.booleans(),
                                  st.integers(0, 300)),
                        min_size=1, max_size=30),
       wanted=st.lists(st.sampled_from(_SHAS), max_size=4, unique=True),
       limit=st.sampled_from([60, 700, reflog.WHOLE_LIMIT]))
def test_a_searched_log_says_what_a_parsed_one_says(tmp_path_factory: pytest.TempPathFactory,
                                                    entries: list[tuple[str, str, str, bool,
                                                                        int]],
                                                    wanted: list[str], limit: int) -> None:
    """The few commits the witness asks about are searched for in the log's bytes (a log
    longer than the part read too): each is told exactly as the whole log, read line by
    line, tells it; a sha inside a message or on an entry's old side is not an entry
    naming it; a torn line is skipped alike."""
    git_dir = tmp_path_factory.mktemp("gitdir")
    (git_dir / "logs").mkdir()
    lines = []
    for old, new, message, torn, pad in entries:
        line = f"{old} {new} A <a@x> 1700000000 +0000\t{message}{' ' * pad} {old}"
        lines.append(line[:30] if torn else line)
    (git_dir / "logs" / "HEAD").write_text("\n".join(lines) + "\n")
    newest = next((e[1] for e in reversed(entries) if not e[3]), None)
    head = newest or _SHAS[0]
    kept = reflog.WHOLE_LIMIT, files.SETTLED
    reflog.WHOLE_LIMIT = limit
    try:
        whole = reflog.head_log(None, str(git_dir), head)
        searched = reflog.head_log(None, str(git_dir), head, wanted)
        # kept for the process (as by status): searched once, then told from every commit
        files.SETTLED, reflog._last_log = -60.0, None
        again = [reflog.head_log(None, str(git_dir), head, asked)
                 for asked in (wanted, None, wanted, set(_SHAS))]
    finally:
        reflog.WHOLE_LIMIT, files.SETTLED = kept
        reflog._last_log = None
    assert searched[1:] == whole[1:]
    assert {s: searched[0].get(s) for s in wanted} == {s: whole[0].get(s) for s in wanted}
    assert [answer[1:] for answer in again] == [whole[1:]] * 4
    assert again[0][0] == again[2][0] == searched[0]
    assert again[1][0] == again[3][0] == whole[0]


def test_the_head_log_is_read_once_a_process_while_it_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` and pre-push ask about every branch's commits: the log is read once while
    ``files.settled_key`` holds, and read again once it changed; a command that asks twice
    about a few commits searches it both times, and once more commits were asked about than
    a search is worth it is told once for every commit."""
    git_dir = tmp_path / "git"
    (git_dir / "logs").mkdir(parents=True)
    log = git_dir / "logs" / "HEAD"
    first = f"{'0' * 40} {_SHAS[0]} A <a@x> 1700000000 +0000\tcommit (initial): a\n"
    log.write_text(first)
    reads: list[str] = []
    read = reflog.read_newest

    def counted(path: str) -> tuple[bytes | None, bool]:
        reads.append(path)
        return read(path)

    monkeypatch.setattr(reflog, "read_newest", counted)
    monkeypatch.setattr(reflog, "_last_log", None)
    for _ in range(3):  # just written: read each time
        assert reflog.head_log(None, str(git_dir), _SHAS[0], [_SHAS[0]])[0] == {
            _SHAS[0]: reflog.CREATED}
    assert len(reads) == 3
    monkeypatch.setattr(files, "SETTLED", -60.0)  # every change long enough ago
    for _ in range(3):
        assert reflog.head_log(None, str(git_dir), _SHAS[0], [_SHAS[0]])[0] == {
            _SHAS[0]: reflog.CREATED}
    assert len(reads) == 4
    assert reflog._last_log is not None and reflog._last_log.every is None  # still searched
    for _ in range(reflog.SEARCHED):  # asked about more commits than a search is worth
        reflog.head_log(None, str(git_dir), _SHAS[0], [_SHAS[0]])
    assert reflog._last_log.every == {_SHAS[0]: reflog.CREATED}
    assert len(reads) == 4
    log.write_text(first + f"{_SHAS[0]} {_SHAS[1]} A <a@x> 1700000001 +0000\tpull: "
                   "Fast-forward\n")
    assert reflog.head_log(None, str(git_dir), _SHAS[1], [_SHAS[1]])[0] == {
        _SHAS[1]: reflog.ARRIVED}
    assert len(reads) == 5


def test_a_log_read_from_its_middle_skips_the_first_line(tmp_path: Path) -> None:
    """Read from ``WHOLE_LIMIT`` bytes before its end, a log's first line may be a part of
    one: it is skipped even when the cut falls on a line's start (a part line that happens
    to have an entry's shape is never read)."""
    lines = [f"{_SHAS[0]} {_SHAS[n]} A <a@x> 1700000000 +0000\tcommit: {n}" for n in (1, 2, 3)]
    log = tmp_path / "HEAD"
    log.write_text("\n".join(lines) + "\n")
    kept = reflog.WHOLE_LIMIT
    reflog.WHOLE_LIMIT = len(lines[1]) + len(lines[2]) + 2
    try:
        data, whole = reflog.read_newest(str(log))
    finally:
        reflog.WHOLE_LIMIT = kept
    assert (data, whole) == (lines[2].encode() + b"\n", False)
    assert data is not None
    assert reflog.lines_naming(data, [_SHAS[2], _SHAS[3]]) == [lines[2].encode()]


@settings(max_examples=200, deadline=None)
@given(size=st.integers(0, 120), decided=st.dictionaries(
    st.integers(0, 119), st.sampled_from([witness.SESSION, witness.MIXED, witness.UNVOUCHED]),
    max_size=8), later=st.lists(st.integers(0, 119), max_size=4),
    stray=st.booleans())
def test_statuses_built_in_the_range_s_order_read_as_looked_up(
        size: int, decided: dict[int, str], later: list[int], stray: bool) -> None:
    """``_given`` builds a long range's statuses in its order; ``Verdict.kinds`` then reads
    them without a lookup each. Whatever was decided before, whatever is given after, and a
    status for a commit outside the range: the same list as one lookup a commit."""
    commits = [f"{i:040x}" for i in range(size)]
    verdict = witness.Verdict(witness.LEDGER)
    for i, kind in decided.items():
        if i < size:
            verdict.status[commits[i]] = kind
    rest = {c for c in commits if c not in verdict.status}
    status = witness._given(verdict, rest, witness.ELSEWHERE, commits)
    for i in later:
        if i < size:
            status[commits[i]] = witness.UNVOUCHED  # a commit a log names, given after
    if stray:
        verdict.status["f" * 40] = witness.SESSION  # a status for a commit outside
    expected = [verdict.status.get(c) for c in commits]
    assert verdict.kinds(commits) == expected
    assert verdict.kinds(list(commits)) == expected  # another list: looked up
    for i, kind in decided.items():
        if i < size:
            assert verdict.of(commits[i]) == (witness.UNVOUCHED if i in later else kind)
