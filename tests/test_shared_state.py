"""State a work tree shares or waits for: a ``.lets`` linked to another work tree's (a
supported layout, read as that folder without a word), and a lock another process never
lets go (a bounded wait, said once)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, make

from lets_hooks import files


def linked_tree(tmp_path: Path, link: str, config: str | None) -> tuple[HookBox, Path]:
    """The main work tree with the hooks and a ``.lets`` (holding ``config`` as its
    config.toml when given), and a linked work tree whose ``.lets`` is a link to it
    (``link``: "absolute" or "relative"), made before any hook wrote there."""
    box = make(tmp_path)
    box.install()
    (box.path / ".lets").mkdir()
    if config is not None:
        (box.path / ".lets" / "config.toml").write_text(config)
    (box.path / ".git" / "info").mkdir(exist_ok=True)
    with open(box.path / ".git" / "info" / "exclude", "a") as handle:
        handle.write(".lets\n")
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "--no-checkout", "-b", "feat", str(linked))
    target = str(box.path / ".lets") if link == "absolute" else os.path.relpath(
        box.path / ".lets", linked)
    os.symlink(target, linked / ".lets")
    box.sh("checkout", "-q", "feat", sid=SID, cwd=linked)
    return box, linked


@pytest.mark.parametrize("link", ["absolute", "relative"])
@pytest.mark.parametrize("config", [None, 'merge_branch = "main"\n'])
def test_a_linked_lets_is_read_as_that_folder_quietly(tmp_path: Path, link: str,
                                                      config: str | None) -> None:
    box, linked = linked_tree(tmp_path, link, config)
    done = box.sh("switch", "-q", "-c", "topic", sid=SID, cwd=linked)
    assert done.stderr == ""  # the hook said nothing
    recorded = box.path / ".lets" / "sessions" / ".task-topic"
    assert recorded.read_text().startswith(f"session: {box.rev('feat')} {SID}\n")
    contract = box.run("lets-session-boundary", cwd=linked, env={"LETS_SESSION_ID": SID})
    assert contract.returncode == 0
    assert contract.stdout.splitlines()[1] == "SESSION_TRUST=exact"
    assert contract.stderr == ""  # no note about the link, nor about the config
    doctor = box.run("lets-hooks", "doctor", "--json", cwd=linked,
                     env={"LETS_SESSION_ID": SID, "PATH": box.environ()["PATH"]})
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.returncode == 0, doctor.stdout
    assert checks[".lets/"]["text"] == "a link to another work tree's .lets, ignored by git"
    assert "repository" not in checks and "leads out of" not in doctor.stdout
    if config is not None:  # and the linked folder's config is the one in force
        assert checks["merge branch"]["text"].startswith("main (from .lets/config.toml")


def test_a_linked_lets_git_does_not_ignore_is_said_with_its_fix(tmp_path: Path) -> None:
    """``.lets/`` in an exclude file matches folders only: a link would be committed."""
    box, linked = linked_tree(tmp_path, "absolute", None)
    exclude = box.path / ".git" / "info" / "exclude"
    exclude.write_text(exclude.read_text().replace(".lets\n", ".lets/\n"))
    doctor = box.run("lets-hooks", "doctor", "--json", cwd=linked,
                     env={"LETS_SESSION_ID": SID, "PATH": box.environ()["PATH"]})
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks[".lets/"]["status"] == "warn"
    assert checks[".lets/"]["fix"] == "add .lets (no slash: it is a link) to .git/info/exclude"


def test_a_linked_lets_is_kept_out_of_commits(tmp_path: Path) -> None:
    """The first write through the link excludes the link itself (``.lets``, no slash:
    ``.lets/`` matches folders only), so git add -A in that work tree commits nothing of
    it."""
    box = make(tmp_path)
    box.install()
    (box.path / ".lets").mkdir()
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "--no-checkout", "-b", "feat", str(linked))
    os.symlink(box.path / ".lets", linked / ".lets")
    box.sh("checkout", "-q", "feat", sid=SID, cwd=linked)
    box.sh("switch", "-q", "-c", "topic", sid=SID, cwd=linked)
    assert (box.path / ".lets" / "sessions" / ".task-topic").exists()
    exclude = (box.path / ".git" / "info" / "exclude").read_text()
    assert exclude.endswith("# lets-hooks: per-work-tree session state\n.lets\n"), exclude
    assert exclude.count(".lets\n") == 1
    assert box.sh("status", "--porcelain", cwd=linked).stdout == ""


def test_a_link_to_a_folder_that_is_no_work_trees_lets_is_still_refused(
        tmp_path: Path) -> None:
    box = make(tmp_path)
    elsewhere = tmp_path / "elsewhere" / ".lets"
    elsewhere.mkdir(parents=True)
    (elsewhere / "config.toml").write_text('merge_branch = "main"\n')
    os.symlink(elsewhere, box.path / ".lets")
    contract = box.run("lets-session-boundary", env={"LETS_SESSION_ID": SID})
    assert "is not the .lets of another work tree of this repository" in contract.stderr


# -- a lock never let go ------------------------------------------------------------------

@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A process holding an flock on ``held.lock`` and never letting go (until the test
    ends): its path and process id."""
    path = tmp_path / "held.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(3600)\n",
         str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    yield path, proc.pid
    proc.kill()
    proc.wait()


class Clock:
    """``time.monotonic`` and ``time.sleep`` for ``take_lock``: sleeping advances the
    clock by the time asked, so the wait is counted, not timed."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept = 0.0
        self.sleeps = 0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds
        self.sleeps += 1


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(time, "monotonic", made.monotonic)
    monkeypatch.setattr(time, "sleep", made.sleep)
    return made


needs_proc_locks = pytest.mark.skipif(not os.path.exists("/proc/locks"),
                                      reason="needs the kernel's lock table, /proc/locks")


@needs_proc_locks
def test_a_lock_never_let_go_costs_a_second_and_names_its_holder(
        holder: tuple[Path, int], clock: Clock) -> None:
    path, pid = holder
    fd = os.open(path, os.O_RDONLY)
    assert files.lock_holders(fd) == {str(pid)}
    os.close(fd)
    with pytest.raises(files.Refused) as refused, \
            files.locked(str(path), shown=".lets/locks/held.lock"):
        pytest.fail("the lock was taken while another process held it")
    assert str(refused.value) == (f".lets/locks/held.lock is held by another process (pid "
                                  f"{pid}) that did not let it go within 1 s; nothing written")
    assert files.LOCK_WAIT == 1.0
    assert files.LOCK_WAIT <= clock.slept <= files.LOCK_WAIT + 0.02


def held_here(path: Path) -> int:
    """An flock on ``path`` through a descriptor of this process's own (a second open of
    the file: flock locks belong to the open, so ``locked`` must wait for it)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_lock_that_changes_hands_is_waited_for_longer(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Other writers taking turns: the kernel's table names a new holder every half a
    second (it is looked at every 50 ms), so the wait goes on past LOCK_WAIT (up to
    LOCK_BUSY), and the lock is had once they are done, five seconds on."""
    path = tmp_path / "busy.lock"
    other = held_here(path)
    looks: list[int] = []

    def holders(fd: int) -> frozenset[str]:
        looks.append(fd)
        if len(looks) == 100:  # the last writer lets go
            os.close(other)
        return frozenset({f"writer-{len(looks) // 10}"})

    monkeypatch.setattr(files, "lock_holders", holders)
    with files.locked(str(path)):
        pass
    assert len(looks) == 100
    assert 4 * files.LOCK_WAIT <= clock.slept < files.LOCK_BUSY


def test_a_lock_that_changes_hands_forever_is_given_up_at_the_busy_limit(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "busy.lock"
    other = held_here(path)
    counter = iter(range(10**6))
    monkeypatch.setattr(files, "lock_holders", lambda fd: frozenset({str(next(counter))}))
    with pytest.raises(files.Refused, match="did not let it go within 1 s"), \
            files.locked(str(path)):
        pass
    assert files.LOCK_BUSY <= clock.slept <= files.LOCK_BUSY + files.LOCK_WAIT + 0.02
    os.close(other)


@needs_proc_locks
def test_post_rewrite_beside_a_ledger_lock_never_let_go_writes_its_lines(
        tmp_path: Path) -> None:
    """Appends never take the ledger's lock (only a compaction does): with the lock held
    for ever, post-rewrite still writes its lines at once, says nothing of the lock,
    moves the boundary (its own lock is free), and exits 0. It waited a second and gave
    up, the line lost."""
    box = make(tmp_path)
    box.install()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    box.file_commit("a.txt", "a\n", sid=SID)
    lock = box.path / ".git" / "lets-hooks" / "ledger.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(3600)\n",
         str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        for n in range(2):
            before = box.head()
            done = box.sh("commit", "-q", "--amend", "-m", f"amended {n}", sid=SID)
            assert "ledger" not in done.stderr, done.stderr
            text = (box.path / ".git" / "lets-hooks" / "ledger").read_text()
            assert f"r {box.head()} {SID} {before} *\n" in text
        assert box.line("feat") == f"{box.rev('main')} {SID}"
    finally:
        proc.kill()
        proc.wait()
