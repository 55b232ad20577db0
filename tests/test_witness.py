"""The witness (lets_hooks/witness.py) and the ladder's use of it: which commits of
``boundary..HEAD`` this session made, read from git's own HEAD reflog and the rewrite
ledger, in real repositories with a bare remote and a teammate's clone."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hookbox import SID, HookBox, git_version, make, with_remote

from lets_hooks import state, witness


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


def teammate(tmp_path: Path, box: HookBox, branch: str) -> HookBox:
    """A second clone of the bare remote, on ``branch``, with its own identity."""
    mate = HookBox.__new__(HookBox)
    mate.path = tmp_path / "mate"
    box.sh("clone", "-q", str(tmp_path / "remote.git"), str(mate.path))
    import git

    mate.repo = git.Repo(mate.path)
    mate.git = mate.repo.git
    mate.sh("config", "user.name", "Teammate")
    mate.sh("config", "user.email", "mate@example.com")
    mate.sh("checkout", "-q", branch)
    return mate


def reflog_kinds(box: HookBox) -> list[tuple[str, str]]:
    """(message, kind) of every entry of the work tree's HEAD reflog, oldest first."""
    raw = (box.path / ".git" / "logs" / "HEAD").read_bytes()
    found = []
    for line in raw.split(b"\n"):
        if line:
            entry = witness.parse_line(line)
            assert entry is not None, line
            found.append((line.partition(b"\t")[2].decode(), entry.kind))
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
        "commit: ": witness.CREATED, "commit (amend): ": witness.CREATED,
        "commit (initial): ": witness.CREATED, "revert: ": witness.CREATED,
        "cherry-pick: ": witness.CREATED,
        "am: ": witness.CREATED, "checkout: ": witness.MOVED, "reset: ": witness.MOVED,
        "rebase (pick): ": witness.COPY, "rebase (start): ": witness.MOVED,
        "rebase (finish): ": witness.MOVED,
    }
    seen = set()
    for message, kind in kinds:
        for prefix, want in expected.items():
            if message.startswith(prefix):
                assert kind == want, (message, kind)
                seen.add(prefix)
        if "Merge made by" in message:
            assert kind == witness.CREATED, message
            seen.add("merge")
        if "Fast-forward" in message:
            assert kind == witness.MOVED, message
            seen.add("ff")
        if message.startswith("pull") and "(pick)" in message:
            assert kind == witness.COPY, message
            seen.add("pull-pick")
    assert seen >= {"commit: ", "commit (amend): ", "revert: ", "am: ", "checkout: ",
                    "cherry-pick: ",
                    "reset: ", "rebase (pick): ", "rebase (start): ", "rebase (finish): ",
                    "merge", "ff", "pull-pick"}, (seen, kinds)
    # the commit an exec step made is a commit of this work tree
    assert any(m == "commit: by-exec" and k == witness.CREATED for m, k in kinds) or any(
        m.endswith(": by-exec") for m, _ in kinds), kinds


@pytest.mark.parametrize(("message", "kind"), [
    ("rebase -i (pick): old git's pick", witness.COPY),
    ("rebase -i (squash): x", witness.COPY),
    ("rebase -i (start): checkout main", witness.MOVED),
    ("rebase -i (finish): returning to refs/heads/topic", witness.MOVED),
    ("rebase finished: returning to refs/heads/topic", witness.MOVED),
    ("rebase: checkout main", witness.MOVED),
    ("rebase: an apply-backend pick of an old git", witness.COPY),
    ("rebase (reset): 'onto'", witness.MOVED),
    ("rebase (merge): Merge branch 'x'", witness.COPY),
    ("rebase (continue): resolved pick", witness.COPY),
    ("commit (rebase): committed by hand at a conflicted pick", witness.COPY),
    ("commit (merge): Merge branch 'lib'", witness.CREATED),
    ("commit (cherry-pick): resolved", witness.CREATED),
    ("merge lib: Merge made by recursive.", witness.CREATED),
    ("merge lib: Merge made by the 'recursive' strategy.", witness.CREATED),
    ("merge origin/main: Fast-forward", witness.MOVED),
    ("pull: Fast-forward", witness.MOVED),
    ("pull --rebase (pick): mine", witness.COPY),
    ("cherry-pick: fast-forward", witness.MOVED),
    ("branch: Created from HEAD", witness.MOVED),
    ("clone: from /somewhere", witness.MOVED),
    ("", witness.MOVED),
])
def test_messages_of_older_and_newer_gits(message: str, kind: str) -> None:
    """Messages git 2.25 to today write (sequencer.c's ``rebase -i`` before 2.26)."""
    assert witness.classify(message) == kind


def test_a_commit_made_at_a_stop_of_an_old_gits_rebase(tmp_path: Path) -> None:
    """Before git 2.39 a ``git commit`` run at an exec or edit stop of ``rebase -i`` logged
    the rebase's action (``rebase: x1``), the words the apply backend's picks log: inside
    the sequencer's rebase (``(start)`` ... ``(finish)``) it is a commit made there, inside
    the apply backend's (``rebase finished``) a copy, for the ledger; so is one the rebase
    lists as a rewrite. ``p1`` was made before the session began; ``s1`` is the session's."""
    sha = {name: f"{n:040x}" for n, name in enumerate(
        ("root", "p1", "s1", "p1c", "s1c", "x1"), 1)}
    now = int(time.time())
    top = tmp_path / "work"
    (top / ".lets" / "sessions").mkdir(parents=True)
    names = {v: k for k, v in sha.items()}

    def entry(old: str, new: str, message: str, ago: int = 0) -> str:
        return f"{sha[old]} {sha[new]} T <t@e> {now - ago} +0000\t{message}"

    def read(lines: list[str], ledger: dict[str, str], asked: tuple[str, ...]
             ) -> dict[str, str]:
        (top / ".lets" / "sessions" / witness.LEDGER).write_text(
            "".join(f"{sha[new]} {sha[old]}\n" for new, old in ledger.items()))
        log = tmp_path / "HEAD"
        log.write_text("\n".join(lines) + "\n")
        head = lines[-1].split()[1]
        verdict = witness._read(witness.read_backwards(str(log)), witness.REFLOG, head,
                                {sha[n] for n in asked}, str(top), None, now - 60, None,
                                set())
        return {names[c]: status for c, status in verdict.status.items()}

    made = [entry("root", "root", "checkout: moving from main to topic", 3600),
            entry("root", "p1", "commit: p1", 3600), entry("p1", "s1", "commit: s1")]
    sequencer = [*made, entry("s1", "root", "rebase (start): checkout main"),
                 entry("root", "p1c", "rebase (pick): p1"),
                 entry("p1c", "s1c", "rebase (pick): s1"), entry("s1c", "x1", "rebase: x1"),
                 entry("x1", "x1", "rebase (finish): returning to refs/heads/topic")]
    assert read(sequencer, {"p1c": "p1", "s1c": "s1"}, ("p1c", "s1c", "x1")) == {
        "p1c": witness.ELSEWHERE, "s1c": witness.SESSION, "x1": witness.SESSION}
    # an entry logged that way that the rebase lists as p1's rewrite is a copy of what was
    # not the session's; --rebase-merges kept p1 itself ("rebase: fast-forward"), a move
    reword = [*made, entry("s1", "root", "rebase (start): checkout main"),
              entry("root", "p1", "rebase: fast-forward"),
              entry("p1", "p1c", "rebase (reword): p1"), entry("p1c", "x1", "rebase: p1~"),
              entry("x1", "s1c", "rebase (pick): s1"),
              entry("s1c", "s1c", "rebase (finish): returning to refs/heads/topic")]
    assert read(reword, {"x1": "p1", "s1c": "s1"}, ("p1", "x1", "s1c")) == {
        "p1": witness.ELSEWHERE, "x1": witness.ELSEWHERE, "s1c": witness.SESSION}
    apply = [*made, entry("s1", "root", "rebase: checkout main"),
             entry("root", "p1c", "rebase: p1"), entry("p1c", "s1c", "rebase: s1"),
             entry("s1c", "s1c", "rebase finished: returning to refs/heads/topic")]
    assert read(apply, {"p1c": "p1", "s1c": "s1"}, ("p1c", "s1c")) == {
        "p1c": witness.ELSEWHERE, "s1c": witness.SESSION}
    # a rebase the hooks did not see (nothing of it in the ledger): an unlisted entry may
    # be any copy, so it is not vouched for
    assert read(sequencer, {}, ("x1",)) == {"x1": witness.UNVOUCHED}
    # an apply-backend pick the ledger does not know is not vouched for
    assert read(apply, {"p1c": "p1"}, ("p1c", "s1c"))["s1c"] == witness.UNVOUCHED


def test_the_log_is_read_from_its_end_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "log"
    lines = [f"line {i} " + "x" * (i % 97) for i in range(3000)]
    path.write_text("\n".join(lines) + "\n")
    for chunk in (7, 64, 1000, 1 << 16):
        got = [b.decode() for b in witness.read_backwards(str(path), chunk)]
        assert got == lines[::-1]
    assert list(witness.read_backwards(str(tmp_path / "absent"))) == []


# -- the ladder with the witness ---------------------------------------------------------------

def test_a_pulled_fast_forward_is_not_counted(tmp_path: Path) -> None:
    """A teammate pushes to your topic and you pull --ff-only: their commits are in the
    range and are said to be from elsewhere, not counted."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    mine = [box.file_commit("a.txt", "a\n", "mine 1")]
    box.sh("push", "-q", "-u", "origin", "topic")
    mate = teammate(tmp_path, box, "topic")
    mate.file_commit("t1.txt", "t\n", "theirs 1")
    mate.file_commit("t2.txt", "t\n", "theirs 2")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--ff-only")
    mine.append(box.file_commit("b.txt", "b\n", "mine 2"))
    data = answer(box)
    assert data["trust"] == "exact", data
    assert (data["commits"], data["elsewhere"], data["excluded"]) == (2, 2, 0)
    assert data["desc"] == f"session: {start}..HEAD (2 commits, not counting 2 from elsewhere)"
    assert data["session_commits"] == {"items": mine[::-1], "more": 0, "cap": 1000}
    assert data["witness"] == "reflog"
    assert any("not made by this session" in n for n in data["notes"])  # type: ignore


def test_a_merge_of_a_teammates_branch_counts_only_the_merge_commit(tmp_path: Path) -> None:
    box = with_remote(tmp_path)
    mate = teammate(tmp_path, box, "main")
    mate.sh("checkout", "-q", "-b", "lib")
    mate.file_commit("l1.txt", "l\n", "lib 1")
    mate.file_commit("l2.txt", "l\n", "lib 2")
    mate.sh("push", "-q", "origin", "lib")
    box.sh("fetch", "-q", "origin")
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine")
    box.sh("merge", "-q", "--no-ff", "--no-edit", "origin/lib")
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 2), data
    assert data["desc"] == f"session: {start}..HEAD (2 commits, not counting 2 from elsewhere)"


def test_a_session_on_main_that_only_pulls_made_nothing(tmp_path: Path) -> None:
    box = with_remote(tmp_path)
    start = start_session(box, "main")
    mate = teammate(tmp_path, box, "main")
    mate.file_commit("t1.txt", "t\n", "theirs 1")
    mate.file_commit("t2.txt", "t\n", "theirs 2")
    mate.sh("push", "-q", "origin", "main")
    box.sh("pull", "-q", "--ff-only", "origin", "main")
    data = answer(box)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 0, 2), data
    assert data["desc"] == f"session: {start}..HEAD (0 commits, not counting 2 from elsewhere)"


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


def test_the_regression_local_main_ahead_of_origin(tmp_path: Path) -> None:
    """A session started on main at m4, committed m5 on local main, branched, committed
    twice: the script and SPEC say exact 3 from m4 (the fork point is taken off
    origin/main, which is at m4)."""
    box = with_remote(tmp_path)
    m4 = start_session(box, "main")
    stamp = (box.path / ".lets" / "sessions" / ".task-main").read_text().split()[-1]
    box.file_commit("m5.txt", "m\n", "m5")
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic", at=m4, stamp=stamp)
    box.file_commit("t1.txt", "t\n", "t1")
    box.file_commit("t2.txt", "t\n", "t2")
    data = answer(box)
    assert (data["trust"], data["boundary"], data["commits"]) == ("exact", m4, 3), data["notes"]
    assert data["desc"] == f"session: {m4}..HEAD (3 commits)"


def test_a_merged_pull_request_does_not_reject_the_boundary(tmp_path: Path) -> None:
    """The topic is merged into main with --no-ff and the session goes on: its commits
    that reached origin/main through that merge are still its own, and counted."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    mine = [box.file_commit(f"{i}.txt", f"{i}\n", f"mine {i}") for i in range(3)]
    box.sh("push", "-q", "-u", "origin", "topic")
    mate = teammate(tmp_path, box, "main")
    mate.sh("fetch", "-q", "origin")
    mate.sh("merge", "-q", "--no-ff", "--no-edit", "origin/topic")
    mate.sh("push", "-q", "origin", "main")
    box.sh("fetch", "-q", "origin")
    mine.append(box.file_commit("4.txt", "4\n", "mine after the merge"))
    data = answer(box)
    assert (data["trust"], data["boundary"], data["commits"]) == ("exact", start, 4), data
    assert data["session_commits"]["items"] == mine[::-1]  # type: ignore
    assert data["desc"] == f"session: {start}..HEAD (4 commits)"


def test_copies_of_the_sessions_commits_are_its_own_through_the_ledger(tmp_path: Path) -> None:
    """A rebase the hooks saw: post-rewrite noted each copy, so the copies are vouched for;
    a teammate's commit is never the session's, copied or not."""
    box = with_remote(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "mine 1")
    box.file_commit("b.txt", "b\n", "mine 2")
    before = box.head()
    box.sh("rebase", "-q", "-i", "--force-rebase", "HEAD~2", sid=SID,
           extra={"GIT_SEQUENCE_EDITOR": "true", **later()})
    assert box.head() != before
    ledger = witness.read_ledger(str(box.path))
    assert box.head() in ledger and len(ledger) == 2, ledger
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
    box.file_commit("a.txt", "a\n", "mine 1")
    high = box.file_commit("b.txt", "b\n", "mine 2")
    line = (box.path / ".lets" / "sessions" / ".task-topic").read_text()
    old = line.split("session: ")[1].split()[0]
    (box.path / ".lets" / "sessions" / ".task-topic").write_text(line.replace(old, high))
    box.file_commit("c.txt", "c\n", "mine 3")
    data = answer(box)
    assert (data["trust"], data["commits"]) == ("prior-session", 1), data
    assert "below the boundary" in " ".join(data["notes"])  # type: ignore


def test_a_branch_that_does_not_exist_is_said(tmp_path: Path) -> None:
    box = make(tmp_path)
    data = answer(box, "--branch", "nonexistent")
    assert (data["trust"], data["commits"]) == ("none", None)
    notes = " ".join(data["notes"])  # type: ignore
    assert "branch 'nonexistent' does not exist" in notes and "no commit yet" not in notes


def test_the_rewrite_ledger_is_capped(tmp_path: Path) -> None:
    top = str(tmp_path)
    sha = [f"{i:040x}" for i in range(1, 8)]
    assert witness.note_rewrite(top, [(sha[0], sha[1])]) is not None  # no state: not noted
    assert not (tmp_path / ".lets").exists()
    (tmp_path / ".lets" / "sessions").mkdir(parents=True)
    old_keep = witness.LEDGER_KEEP
    witness.LEDGER_KEEP = 4
    try:
        for i in range(6):
            assert witness.note_rewrite(top, [(sha[i], sha[i + 1])]) is None
    finally:
        witness.LEDGER_KEEP = old_keep
    ledger = witness.read_ledger(top)
    assert ledger == {sha[i + 1]: sha[i] for i in range(2, 6)}
    assert (tmp_path / ".lets" / "locks" / witness.LEDGER_LOCK).exists()


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
    box.file_commit("a.txt", "a\n", "mine")
    box.sh("merge", "-q", "--ff-only", "main")
    data = answer(box)
    assert (data["trust"], data["commits"], data["witness"]) == ("exact", 1, "reftable"), data
    assert data["desc"] == f"session: {start}..HEAD (1 commits)"


def test_commits_made_in_another_work_tree(tmp_path: Path) -> None:
    """The session committed on a branch in one work tree, then went on with it in a
    second one: its commits there are its own when it was current in that work tree (a
    line of its id, recorded before them); without such a line they are counted, not
    vouched for, and never said to be from elsewhere."""
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "topic")
    start = start_session(box, "topic")
    box.file_commit("a.txt", "a\n", "made in the first work tree")
    box.sh("checkout", "-q", "main")
    second = tmp_path / "second"
    box.sh("worktree", "add", "-q", str(second), "topic")
    task = (box.path / ".lets" / "sessions" / ".task-topic").read_text()
    (second / ".lets" / "sessions").mkdir(parents=True)
    (second / ".lets" / "sessions" / ".task-topic").write_text(task)
    (second / "b.txt").write_text("b\n")
    box.sh("add", "b.txt", cwd=second)
    box.sh("commit", "-q", "-m", "made in the second", cwd=second)
    data = answer(box, cwd=second)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("exact", 2, 0), data
    (box.path / ".lets" / "sessions" / ".task-topic").unlink()  # no line of it there
    data = answer(box, cwd=second)
    assert (data["trust"], data["commits"], data["elsewhere"]) == ("prior-session", 2, 0), data
    assert data["desc"].startswith(f"approx: {start}..HEAD (2 commits)")  # type: ignore
    assert "another work tree" in " ".join(data["notes"])  # type: ignore


@pytest.mark.parametrize("tail", [witness.TAIL, 400])
def test_the_quick_reading_agrees_with_the_long_one(tmp_path: Path, tail: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With no session time to read back to (an estimate), the log is read whole, once:
    where each commit of the range was made here, or was not (the log does not name it, or
    only moved HEAD to it: a clone's history, a pulled commit) in a log that reaches back
    far enough. Each answer
    is what reading entry by entry gives, and where the quick reading cannot tell (a log
    cut short, a cutoff after everything) the long one answers. The log's tail is read
    first (here also a tail of a few entries, so that both readings are held)."""
    from lets_hooks.repo import Repo

    monkeypatch.setattr(witness, "TAIL", tail)

    box = with_remote(tmp_path)
    base = box.head()
    box.sh("checkout", "-q", "-b", "topic")
    made = [box.file_commit(f"t{n}.txt", f"{n}\n") for n in range(3)]
    mate = teammate(tmp_path, box, "main")
    theirs = mate.file_commit("mate.txt", "mate\n")
    mate.sh("push", "-q", "origin", "main")
    box.sh("pull", "-q", "--no-rebase", "origin", "main")
    merge = box.head()
    made.append(box.file_commit("t3.txt", "3\n"))
    box.sh("checkout", "-q", made[1])  # the newest entry naming made[1] is now a move
    box.sh("checkout", "-q", theirs)  # and the only entry naming theirs
    box.sh("checkout", "-q", "topic")
    head = box.head()
    log = box.path / ".git" / "logs" / "HEAD"
    path, top = str(log), str(box.path)
    ranges = {
        "made here": [made[3], made[2], made[0]],
        "a move is the newest entry": [made[1], made[0]],
        "with the pulled commit": box.sh("rev-list", f"{base}..HEAD").stdout.split(),
        "the merge commit": [merge],
        "only the pulled commit": [theirs],
    }
    now = int(time.time())

    def compare(cutoffs: tuple[int | None, ...]) -> dict[tuple[str, int | None], dict[str, str]]:
        quick = {}
        for name, commits in ranges.items():
            for cutoff in cutoffs:
                fast = witness._at_once(path, head, commits, cutoff, top)
                slow = witness._read(witness.read_backwards(path), witness.REFLOG, head,
                                     set(commits), top, None, cutoff, None, set())
                if fast is not None:
                    quick[name, cutoff] = fast.status
                    assert fast.status == slow.status, (name, cutoff)
                judged = witness.judge(Repo(top), str(box.path / ".git"), top, head, commits,
                                       None, None if cutoff is None else cutoff + witness.SLACK)
                assert (judged.status, judged.notes) == (slow.status, slow.notes), (name, cutoff)
        return quick

    quick = compare((None, now - 3600, now + 3600))
    # a cutoff after every entry: the long reading answers
    assert set(quick) == {(name, cutoff) for name in ranges for cutoff in (None, now - 3600)}
    assert quick["with the pulled commit", None][theirs] == witness.ELSEWHERE
    assert quick["only the pulled commit", None] == {theirs: witness.ELSEWHERE}
    assert witness._at_once(path, made[0], ranges["made here"], None, top) is None  # not HEAD's
    # a person's word (record --at) for a commit the log does not name
    witness.note_claimed(top, [theirs])
    assert compare((None,))["only the pulled commit", None] == {theirs: witness.SESSION}
    (box.path / ".lets" / "sessions" / ".claimed").unlink()
    # a log cut short: what it does not name cannot be said to come from elsewhere
    kept = log.read_bytes().split(b"\n")[2:]
    log.write_bytes(b"\n".join(kept))
    quick = compare((None, now - 3600))
    assert ("only the pulled commit", None) not in quick
    assert quick["made here", None] == dict.fromkeys(ranges["made here"], witness.SESSION)
    # the tail answers for the session's recent commits without reading the rest
    read_whole: list[bool] = []
    plain = witness._plain

    def spy(data: bytes, whole: bool, *rest: Any) -> witness.Verdict | None:
        read_whole.append(whole)
        return plain(data, whole, *rest)

    monkeypatch.setattr(witness, "_plain", spy)
    monkeypatch.setattr(witness, "TAIL", 1000)  # the last few entries
    answered = witness._at_once(path, head, [made[3]], None, top)
    assert answered is not None and answered.status == {made[3]: witness.SESSION}
    assert read_whole == [False]
    read_whole.clear()
    answered = witness._at_once(path, head, [made[0]], None, top)
    assert answered is not None and answered.status == {made[0]: witness.SESSION}
    assert read_whole == [False, True]
