"""Task files under ``<work tree>/.lets/sessions/``: names, and reading the session line.

A task file is markdown that other tools write too. Its session line is the first line
that starts with ``session: ``; the first token after that prefix is the boundary sha and
the second, if any, the id of the session that recorded it.
"""

from __future__ import annotations

import errno
import os

SESSION_PREFIX = b"session: "
MAX_SCAN = 1 << 20  # a task file is a small note; never read more than this of one
HEX = frozenset("0123456789abcdef")


def slug(branch: str) -> str:
    """The branch name as it appears in state file names: every ``/`` becomes ``-``."""
    return branch.replace("/", "-")


def sessions_dir(top: str) -> str:
    return os.path.join(top, ".lets", "sessions")


def task_path(top: str, branch: str) -> str:
    return os.path.join(sessions_dir(top), ".task-" + slug(branch))


def legacy_path(top: str, branch: str) -> str:
    return os.path.join(sessions_dir(top), ".session-start-ref-" + slug(branch))


class Recorded:
    """What a state file says: the sha as written, the session id, and where it came from."""

    __slots__ = ("notes", "sha", "sid", "source")

    def __init__(self) -> None:
        self.sha: str | None = None
        self.sid: str | None = None
        self.source: str | None = None  # "task" or "legacy" once a sha was found
        self.notes: list[str] = []


def tokens(line: bytes) -> list[bytes]:
    """Blank-separated tokens of a line (spaces and tabs, as awk splits them)."""
    return line.replace(b"\t", b" ").split()


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def is_hex(token: str) -> bool:
    return all(c in HEX for c in token)


def read_head(path: str) -> tuple[bytes | None, str | None]:
    """Up to ``MAX_SCAN`` bytes of a regular file, never through a symlink.

    Returns (data, problem): data is None when the file is absent or refused; problem
    says why it was refused (None when it simply does not exist).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        name = os.path.basename(path)
        if exc.errno == errno.ELOOP:
            return None, f"{name} is a symbolic link - refused, not followed"
        if exc.errno == errno.ENAMETOOLONG:
            return None, f"{name[:40]}... is too long a file name for this file system"
        if exc.errno == errno.ENOTDIR:
            return None, None
        return None, f"{name} cannot be read ({exc.strerror})"
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, f"{os.path.basename(path)} is not a regular file - ignored"
        chunks = []
        left = MAX_SCAN
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), None
    except OSError as exc:
        return None, f"{os.path.basename(path)} cannot be read ({exc.strerror})"
    finally:
        os.close(fd)


def find_session_line(data: bytes) -> bytes | None:
    """The value after ``session: `` on the first line that starts with it, or None.

    Line ends are LF or CRLF alike: a trailing carriage return is not part of the value.
    """
    start = 0
    if not data.startswith(SESSION_PREFIX):
        start = data.find(b"\n" + SESSION_PREFIX)
        if start < 0:
            return None
        start += 1
    start += len(SESSION_PREFIX)
    end = data.find(b"\n", start)
    line = data[start:] if end < 0 else data[start:end]
    return line[:-1] if line.endswith(b"\r") else line


def first_line(data: bytes) -> bytes:
    end = data.find(b"\n")
    line = data if end < 0 else data[:end]
    return line[:-1] if line.endswith(b"\r") else line


def read_recorded(top: str, branch: str) -> Recorded:
    """The boundary recorded for ``branch``: the task file's session line, else the legacy
    slugged file. The non-slugged ``.session-start-ref`` is never read."""
    found = Recorded()
    task = task_path(top, branch)
    data, problem = read_head(task)
    if problem:
        found.notes.append(problem)
    line = find_session_line(data) if data is not None else None
    if line is not None:
        parts = tokens(line)
        sha = _text(parts[0]) if parts else ""
        if not sha or not is_hex(sha):
            shown = sha if len(sha) <= 48 else sha[:45] + "..."
            found.notes.append(
                f"the session line in {os.path.basename(task)} does not hold a lowercase "
                f"hex sha ({shown!r}) - ignored")
        else:
            found.sha = sha
            found.sid = _text(parts[1]) if len(parts) > 1 else None
            found.source = "task"
            return found
    legacy = legacy_path(top, branch)
    data, problem = read_head(legacy)
    if problem:
        found.notes.append(problem)
    if data is None:
        return found
    parts = tokens(first_line(data))
    if not parts:
        return found
    sha = _text(parts[0])
    if not is_hex(sha):
        shown = sha if len(sha) <= 48 else sha[:45] + "..."
        found.notes.append(
            f"{os.path.basename(legacy)} does not hold a lowercase hex sha ({shown!r}) - ignored")
        return found
    found.sha = sha
    found.source = "legacy"
    return found
