"""The task-file writer: one line changed, every other byte kept, locked, atomic, refusing
what it must not touch."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from helpers import SID, write_session_line

from lets_hooks import state
from lets_hooks.state import StateError

SHA = "a" * 40
SHA2 = "b" * 40
B2 = SHA2.encode()
NOW = 1_796_040_000  # 2026-11-30T12:00:00Z
STAMP = "2026-11-30T12:00:00Z"


def recorded(sha: str = SHA) -> bytes:
    """The line the writer keeps beside the session line: when it was recorded."""
    return f"session-recorded: {sha} {STAMP}".encode()


def write(top: Path, branch: str, sha: str, sid: str | None) -> bool:
    return write_session_line(str(top), branch, sha, sid, now=NOW)


def task(top: Path, branch: str = "feat") -> Path:
    return top / ".lets" / "sessions" / (".task-" + branch.replace("/", "-"))


def put(top: Path, body: bytes, branch: str = "feat") -> Path:
    path = task(top, branch)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def test_new_file_is_one_line_0600(tmp_path: Path) -> None:
    assert write(tmp_path, "feat/x", SHA, SID) is True
    path = task(tmp_path, "feat/x")
    assert path.read_bytes() == f"session: {SHA} {SID}\n".encode() + recorded() + b"\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / ".lets" / "locks" / "task-feat-x.lock").exists()
    state_read = state.read_recorded(str(tmp_path), "feat/x")
    assert (state_read.sha, state_read.sid, state_read.source) == (SHA, SID, "task")
    assert state_read.recorded_at == STAMP


def test_only_the_session_line_changes(tmp_path: Path) -> None:
    body = (b"task: fix the thing\nstart: 2026-11-01\nsession: " + B2 + b" old-sid\n"
            b"origin: main\norc: 3\n\n# Notes\n\nsession: not this one\n\xff\xfe raw bytes\n")
    path = put(tmp_path, body)
    assert write(tmp_path, "feat", SHA, SID)
    expected = body.replace(b"session: " + B2 + b" old-sid\n",
                            f"session: {SHA} {SID}\n".encode() + recorded() + b"\n")
    assert path.read_bytes() == expected


def test_own_lines_are_replaced_where_they_stand(tmp_path: Path) -> None:
    """A second write moves session-recorded with the line (the old one, for another
    sha, is replaced in place), and an approximate mark comes and goes with it."""
    body = (b"task: t\nsession: " + B2 + b" s\norigin: o\nsession-recorded: " + B2
            + b" 2026-01-01T00:00:00Z\n\nbody\n")
    path = put(tmp_path, body)
    assert write_session_line(str(tmp_path), "feat", SHA, SID, now=NOW, approx="a reason")
    assert path.read_bytes() == (
        f"task: t\nsession: {SHA} {SID}\nsession-approx: {SHA} a reason\norigin: o\n".encode()
        + recorded() + b"\n\nbody\n")
    found = state.read_recorded(str(tmp_path), "feat")
    assert (found.recorded_at, found.approx) == (STAMP, "a reason")
    assert write(tmp_path, "feat", SHA, SID)
    assert b"session-approx" not in path.read_bytes()


def test_own_lines_for_another_sha_do_not_count(tmp_path: Path) -> None:
    """session-recorded and session-approx speak only for the sha they name: a line the
    lets tool rewrote since (another sha) is read without them."""
    put(tmp_path, b"session: " + B2 + b" s\nsession-recorded: " + SHA.encode()
        + b" 2026-11-30T12:00:00Z\nsession-approx: " + SHA.encode() + b" why\n")
    found = state.read_recorded(str(tmp_path), "feat")
    assert (found.sha, found.recorded_at, found.approx) == (SHA2, None, None)


def test_crlf_file_stays_crlf(tmp_path: Path) -> None:
    body = b"task: x\r\nsession: " + B2 + b"\r\norigin: y\r\n"
    path = put(tmp_path, body)
    write(tmp_path, "feat", SHA, None)
    assert path.read_bytes() == (b"task: x\r\nsession: " + SHA.encode() + b"\r\n" + recorded()
                                 + b"\r\norigin: y\r\n")


def test_last_line_without_line_end_stays_so(tmp_path: Path) -> None:
    path = put(tmp_path, b"# note\nsession: " + B2)
    write(tmp_path, "feat", SHA, SID)
    assert path.read_bytes() == f"# note\nsession: {SHA} {SID}\n".encode() + recorded()


@pytest.mark.parametrize(("before", "after"), [
    # after the task:/start: block the lets tool writes first
    (b"task: t\nstart: s\norigin: o\n\nbody\n", b"task: t\nstart: s\nLINE\norigin: o\n\nbody\n"),
    # a key block without task:/start:: at its top
    (b"origin: o\n\nbody\n", b"LINE\norigin: o\n\nbody\n"),
    # a document: at the end, its first line stays first
    (b"---\ntitle: x\n---\n# Doc\n", b"---\ntitle: x\n---\n# Doc\nLINE\n"),
    (b"# Doc\nno line end", b"# Doc\nno line endLINE_AFTER"),
    (b"task: t\r\n\r\nbody\r\n", b"task: t\r\nLINE\r\n\r\nbody\r\n"),
    (b"", b"LINE\n"),
])
def test_where_a_missing_line_goes(tmp_path: Path, before: bytes, after: bytes) -> None:
    path = put(tmp_path, before)
    write(tmp_path, "feat", SHA, SID)
    eol = b"\r\n" if b"\r\n" in before else b"\n"
    line = f"session: {SHA} {SID}".encode() + eol + recorded()
    want = after.replace(b"LINE_AFTER", b"\n" + line).replace(b"LINE", line)
    assert path.read_bytes() == want
    assert state.read_recorded(str(tmp_path), "feat").sha == SHA


def test_unchanged_file_is_not_rewritten(tmp_path: Path) -> None:
    path = put(tmp_path, f"x\nsession: {SHA} {SID}\n".encode() + recorded() + b"\n")
    inode = path.stat().st_ino
    assert write(tmp_path, "feat", SHA, SID) is False
    assert path.stat().st_ino == inode


def test_written_by_rename_with_no_temporary_left(tmp_path: Path) -> None:
    path = put(tmp_path, b"task: t\n")
    path.chmod(0o640)
    inode = path.stat().st_ino
    assert write_session_line(str(tmp_path), "feat", SHA, None)
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert path.stat().st_mode & 0o777 == 0o640  # its permissions kept
    assert sorted(p.name for p in path.parent.iterdir()) == [".task-feat"]


def test_symlinked_task_file_is_refused_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_bytes(b"precious\n")
    link = task(tmp_path)
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    with pytest.raises(StateError, match="symbolic link"):
        write_session_line(str(tmp_path), "feat", SHA, SID)
    assert target.read_bytes() == b"precious\n"
    assert link.is_symlink()


def _worktrees(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and a linked work tree of it."""
    main = tmp_path / "main-worktree"
    subprocess.run(["git", "init", "-q", "-b", "main", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "commit", "-q", "--allow-empty", "-m", "root"],
                   check=True)
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", "-b", "feat",
                    str(linked)], check=True)
    return main, linked


def test_lets_linked_to_another_work_tree_is_used(tmp_path: Path) -> None:
    """Worktree tools share the main work tree's .lets by an (untracked) link: it works."""
    main, linked = _worktrees(tmp_path)
    shared = main / ".lets"
    shared.mkdir()
    (linked / ".lets").symlink_to(shared)
    assert write(linked, "feat", SHA, SID)
    assert (shared / "sessions" / ".task-feat").read_bytes() == (
        f"session: {SHA} {SID}\n".encode() + recorded() + b"\n")
    assert (shared / "locks" / "task-feat.lock").exists()


@pytest.mark.parametrize("link", [".lets", ".lets/sessions", ".lets/locks"])
def test_lets_linked_anywhere_else_is_not_followed(tmp_path: Path, link: str) -> None:
    """A link to a folder that is not another work tree's (another project's .lets, say)
    is refused for writing and for reading, with the reason."""
    _, linked = _worktrees(tmp_path)
    victim = tmp_path / "other-project" / ".lets"
    (victim / "sessions").mkdir(parents=True)
    (victim / "locks").mkdir()
    (victim / "sessions" / ".task-feat").write_bytes(b"session: " + B2 + b" theirs\n")
    target = victim if link == ".lets" else victim / link.split("/")[1]
    (linked / ".lets").mkdir(exist_ok=True) if link != ".lets" else None
    (linked / link).symlink_to(target)
    with pytest.raises(StateError, match="not followed"):
        write(linked, "feat", SHA, SID)
    found = state.read_recorded(str(linked), "feat")
    assert found.sha is None and any("not followed" in n for n in found.notes)
    assert (victim / "sessions" / ".task-feat").read_bytes() == b"session: " + B2 + b" theirs\n"
    assert not (victim / "locks" / "task-feat.lock").exists()


def test_lets_link_that_came_with_the_repository_is_not_followed(tmp_path: Path) -> None:
    """Even to another work tree's .lets: a tracked link was chosen by whoever wrote the
    repository, not by this clone's worktree tool."""
    main, linked = _worktrees(tmp_path)
    (main / ".lets").mkdir()
    (linked / ".lets").symlink_to(main / ".lets")
    subprocess.run(["git", "-C", str(linked), "add", ".lets"], check=True)
    with pytest.raises(StateError, match="came with the repository"):
        write(linked, "feat", SHA, SID)
    assert not (main / ".lets" / "sessions").exists()


def test_slug_too_long_for_a_file_name(tmp_path: Path) -> None:
    branch = "part/" * 60 + "end"
    with pytest.raises(StateError, match="too long") as caught:
        write_session_line(str(tmp_path), branch, SHA, SID)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / ".lets" / "sessions").exists() or not any(
        (tmp_path / ".lets" / "sessions").iterdir())


def test_colliding_slugs_are_refused_with_both_names(tmp_path: Path) -> None:
    put(tmp_path, f"session: {SHA2} other\n".encode(), "feat-x")
    with pytest.raises(StateError) as caught:
        write_session_line(str(tmp_path), "feat/x", SHA, SID, branches=["main", "feat-x", "feat/x"])
    assert "'feat/x'" in str(caught.value) and "'feat-x'" in str(caught.value)
    assert task(tmp_path, "feat-x").read_bytes() == f"session: {SHA2} other\n".encode()
    assert state.slug_collisions("feat-x", ["feat/x", "feat-x", "main"]) == ["feat/x"]
    # no collision: written
    assert write_session_line(str(tmp_path), "feat/y", SHA, SID, branches=["feat/y", "main"])


@pytest.mark.parametrize(("sha", "sid"), [
    ("ABCDEF0", None), ("abc", None), ("--upload-pack=x", None), ("a" * 65, None),
    (SHA, "two words"), (SHA, "new\nline"), (SHA, "x" * 300),
])
def test_bad_values_are_refused(tmp_path: Path, sha: str, sid: str | None) -> None:
    with pytest.raises(StateError):
        write_session_line(str(tmp_path), "feat", sha, sid)
    assert not task(tmp_path).exists()


def test_a_file_where_the_folder_should_be(tmp_path: Path) -> None:
    (tmp_path / ".lets").write_text("not a folder")
    with pytest.raises(StateError, match="cannot create"):
        write_session_line(str(tmp_path), "feat", SHA, SID)


def test_task_file_that_is_a_folder(tmp_path: Path) -> None:
    task(tmp_path).mkdir(parents=True)
    with pytest.raises(StateError, match="not a regular file"):
        write_session_line(str(tmp_path), "feat", SHA, SID)


def test_waits_for_the_lock_the_other_writer_holds(tmp_path: Path) -> None:
    lock = tmp_path / ".lets" / "locks" / "task-feat.lock"
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    released: list[bool] = []
    done: list[bool] = []

    def writer() -> None:
        write(tmp_path, "feat", SHA, SID)
        done.append(bool(released))  # was the lock let go before the write was done?

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join(0.3)  # a writer that did not wait would be done by now
    assert not done and not task(tmp_path).exists()  # blocked on the lock
    released.append(True)
    os.close(fd)
    thread.join(60)
    assert done == [True]
    assert task(tmp_path).read_bytes() == f"session: {SHA} {SID}\n".encode() + recorded() + b"\n"


OTHER_WRITER = textwrap.dedent("""
    # The other writer's protocol: flock the lock file, read, write a 0600 temporary
    # sibling .task-<slug>.<digits>.tmp, rename it over the file.
    import fcntl, os, sys
    top, rounds = sys.argv[1], int(sys.argv[2])
    folder = os.path.join(top, ".lets", "sessions")
    path = os.path.join(folder, ".task-feat")
    for i in range(rounds):
        fd = os.open(os.path.join(top, ".lets", "locks", "task-feat.lock"),
                     os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(path, "rb") as f:
            data = f.read()
        tmp = os.path.join(folder, ".task-feat.%d%d.tmp" % (os.getpid(), i))
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
            f.write(data + b"note: %d\\n" % i)
        os.replace(tmp, path)
        os.close(fd)
""")


def test_never_interleaves_with_the_other_writer(tmp_path: Path) -> None:
    put(tmp_path, b"task: t\n")
    (tmp_path / ".lets" / "locks").mkdir()
    rounds = 150
    other = subprocess.Popen([sys.executable, "-c", OTHER_WRITER, str(tmp_path), str(rounds)])
    shas = ["%040x" % (i + 1) for i in range(rounds)]
    for sha in shas:
        write_session_line(str(tmp_path), "feat", sha, SID)
    assert other.wait(60) == 0
    data = task(tmp_path).read_bytes()
    # nothing lost: every note the other writer added is there, and our last line
    assert [line for line in data.split(b"\n") if line.startswith(b"note: ")] == [
        b"note: %d" % i for i in range(rounds)]
    assert data.count(b"session: ") == 1
    assert state.read_recorded(str(tmp_path), "feat").sha == shas[-1]
    assert sorted(p.name for p in task(tmp_path).parent.iterdir()) == [".task-feat"]
