"""Task files under ``<work tree>/.lets/sessions/``: names, and reading the session line.

A task file is markdown that other tools write too. Its session line is the first line
that starts with ``session: ``; the first token after that prefix is the boundary sha and
the second, if any, the id of the session that recorded it.
"""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

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


# -- writing ----------------------------------------------------------------------------
#
# The other writer of these files (the ``lets`` tool) serialises on an exclusive flock of
# ``.lets/locks/task-<slug>.lock`` and renames a 0600 temporary sibling
# ``.task-<slug>.<digits>.tmp`` over the file. This writer does the same, in the same
# places, so that neither can lose the other's change or see a torn file.

NAME_MAX_FALLBACK = 255
MAX_WRITE = 16 << 20  # a task file this big is not a task file; refuse rather than copy it
LOCK_WAIT = 10.0  # seconds to wait for the other writer before giving up
SID_MAX = 200
HEADER_KEYS_BEFORE_SESSION = (b"task", b"start")  # the lets tool writes these first


class StateError(Exception):
    """A state file could not be written. ``str()`` is one line a person can act on."""


def lock_path(top: str, branch: str) -> str:
    return os.path.join(top, ".lets", "locks", "task-" + slug(branch) + ".lock")


def slug_collisions(branch: str, branches: Iterable[str]) -> list[str]:
    """The other branches among ``branches`` whose state files are ``branch``'s too."""
    mine = slug(branch)
    return sorted(b for b in branches if b != branch and slug(b) == mine)


def session_value(sha: str, sid: str | None) -> bytes:
    """What follows ``session: `` on the line: the sha, then the session id if known."""
    if not (7 <= len(sha) <= 64) or not is_hex(sha):
        raise StateError(f"refusing to record {sha!r}: not a 7-64 digit lowercase hex sha")
    if sid is None or sid == "":
        return sha.encode()
    if len(sid) > SID_MAX or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in sid):
        shown = sid if len(sid) <= 40 else sid[:37] + "..."
        raise StateError(f"refusing to record session id {shown!r}: it must be one token "
                         f"of at most {SID_MAX} printable characters")
    return f"{sha} {sid}".encode("utf-8", "surrogateescape")


def replace_session_line(data: bytes, value: bytes) -> bytes:
    """``data`` with its session line's value set to ``value``; every other byte kept.

    The first line that starts with ``session: `` is the session line; its own line end
    (LF, CRLF, or none on a last line) is kept. With no session line, one is added:

    - after the leading ``task:``/``start:`` lines when the file opens with a block of
      ``key: value`` lines (the order the lets tool writes its keys in), or at the top of
      such a block that has neither;
    - otherwise at the end, so that a document's own first line (a title, a front-matter
      fence) stays first. The reader takes the first ``session: `` line, and there is
      none before the end, so the added line is the one read.

    An added line takes the file's line-end style (CRLF when its first line ends so), and
    a file that did not end with a line end still does not.
    """
    start = 0 if data.startswith(SESSION_PREFIX) else data.find(b"\n" + SESSION_PREFIX)
    if start >= 0:
        if data[start:start + 1] == b"\n":
            start += 1
        begin = start + len(SESSION_PREFIX)
        end = data.find(b"\n", begin)
        if end < 0:
            end = len(data)
        if end > begin and data[end - 1:end] == b"\r":
            end -= 1  # keep a CRLF line end (the reader does not count the CR either)
        return data[:begin] + value + data[end:]
    first = data.find(b"\n")
    eol = b"\r\n" if first > 0 and data[first - 1:first] == b"\r" else b"\n"
    line = SESSION_PREFIX + value
    if not data:
        return line + eol
    where = _header_insert_point(data)
    if where is not None:
        return data[:where] + line + eol + data[where:]
    if data.endswith(b"\n"):
        return data + line + eol
    return data + eol + line


def _header_insert_point(data: bytes) -> int | None:
    """Where a session line goes in a leading ``key: value`` block, or None (no block)."""
    pos = 0
    insert: int | None = None
    seen_block = False
    while pos < len(data):
        end = data.find(b"\n", pos)
        line = data[pos:].rstrip(b"\r") if end < 0 else data[pos:end].rstrip(b"\r")
        key, colon, _ = line.partition(b":")
        if not colon or not key or not all(c in _KEY_CHARS for c in key):
            break
        if end < 0:  # the block runs to a last line without a line end
            return None if key in HEADER_KEYS_BEFORE_SESSION or not seen_block else insert
        if not seen_block:
            insert = pos  # top of the block, unless task:/start: come first
            seen_block = True
        pos = end + 1
        if key in HEADER_KEYS_BEFORE_SESSION:
            insert = pos
    return insert if seen_block else None


_KEY_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_-")


def write_session_line(top: str, branch: str, sha: str, sid: str | None,
                       branches: Iterable[str] | None = None) -> bool:
    """Set ``branch``'s session line to ``session: <sha> <sid>``; True if the file changed.

    Under the task file's lock, reads the file (never through a symlink), changes the
    session line only, writes a temporary sibling, syncs it and renames it over the file.
    ``branches`` (all local branch names), when given, lets a slug shared with another
    branch be refused instead of overwriting that branch's boundary.
    Raises ``StateError`` with one line when the write is refused or fails.
    """
    value = session_value(sha, sid)
    if not branch or branch in (".", ".."):
        raise StateError(f"cannot keep state for a branch named {branch!r}")
    if branches is not None:
        others = slug_collisions(branch, branches)
        if others:
            names = ", ".join(repr(b) for b in others)
            raise StateError(
                f"branch {branch!r} and branch {names} share the state file "
                f".task-{slug(branch)} ('/' and '-' read alike); not recorded - rename one "
                "of them")
    folder = sessions_dir(top)
    name = ".task-" + slug(branch)
    _check_name_length(top, name, branch)
    try:
        os.makedirs(folder, exist_ok=True)
        os.makedirs(os.path.dirname(lock_path(top, branch)), exist_ok=True)
    except OSError as exc:
        raise StateError(_why(exc, f"cannot create {_shown(folder)}")) from exc
    lock_fd = _lock(top, branch)
    try:
        return _rewrite(folder, name, value)
    finally:
        os.close(lock_fd)  # closing the descriptor releases the flock


def _check_name_length(top: str, name: str, branch: str) -> None:
    limit = NAME_MAX_FALLBACK
    probe = top
    while probe and not os.path.isdir(probe):
        probe = os.path.dirname(probe)
    try:
        limit = os.pathconf(probe or "/", "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = NAME_MAX_FALLBACK
    longest = len((name + ".99999999999.tmp").encode("utf-8", "surrogateescape"))
    if longest > limit:
        raise StateError(
            f"branch {branch[:40]!r}... is too long for a state file name here "
            f"({len(name.encode('utf-8', 'surrogateescape'))} bytes, the file system allows "
            f"{limit} with room for a temporary name); not recorded")


def _lock(top: str, branch: str) -> int:
    import fcntl

    path = lock_path(top, branch)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StateError(f"{_shown(path)} is a symbolic link - refused, not "
                             "followed") from exc
        raise StateError(_why(exc, f"cannot open the lock {_shown(path)}")) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        pass
    except OSError as exc:
        os.close(fd)
        raise StateError(_why(exc, f"cannot lock {_shown(path)}")) from exc
    import time

    deadline = time.monotonic() + LOCK_WAIT
    while True:
        time.sleep(0.01)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise StateError(f"{_shown(path)} is held by another writer for over "
                                 f"{LOCK_WAIT:.0f} s; not recorded") from None
        except OSError as exc:
            os.close(fd)
            raise StateError(_why(exc, f"cannot lock {_shown(path)}")) from exc


def _rewrite(folder: str, name: str, value: bytes) -> bool:
    import stat

    path = os.path.join(folder, name)
    old = b""
    mode = 0o600
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        fd = -1
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StateError(f"{_shown(path)} is a symbolic link - refused, not "
                             "followed") from exc
        raise StateError(_why(exc, f"cannot read {_shown(path)}")) from exc
    if fd >= 0:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise StateError(f"{_shown(path)} is not a regular file - not changed")
            if info.st_size > MAX_WRITE:
                raise StateError(f"{_shown(path)} is {info.st_size} bytes, too big for a "
                                 "task file - not changed")
            mode = stat.S_IMODE(info.st_mode)
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
            old = b"".join(chunks)
        except OSError as exc:
            raise StateError(_why(exc, f"cannot read {_shown(path)}")) from exc
        finally:
            os.close(fd)
    new = replace_session_line(old, value)
    if fd >= 0 and new == old:
        return False
    tmp, tmp_fd = _temp_sibling(folder, name)
    try:
        try:
            view = memoryview(new)
            while view:
                written = os.write(tmp_fd, view)
                view = view[written:]
            if mode != 0o600:
                os.fchmod(tmp_fd, mode)
            os.fsync(tmp_fd)
        finally:
            os.close(tmp_fd)
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        raise StateError(_why(exc, f"cannot write {_shown(path)}")) from exc
    _sync_folder(folder)
    return True


def _temp_sibling(folder: str, name: str) -> tuple[str, int]:
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    base = os.getpid() * 1000
    for attempt in range(1000):
        tmp = os.path.join(folder, f"{name}.{base + attempt}.tmp")
        try:
            return tmp, os.open(tmp, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise StateError(_why(exc, f"cannot write in {_shown(folder)}")) from exc
    raise StateError(f"cannot find a free temporary name in {_shown(folder)}")


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def _sync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _shown(path: str) -> str:
    """A path as messages show it: from ``.lets`` on when it is inside one."""
    marker = os.sep + ".lets" + os.sep
    at = path.rfind(marker)
    return path[at + 1:] if at >= 0 else path


def _why(exc: OSError, what: str) -> str:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return f"{what}: no space left on the device"
    if exc.errno == errno.EROFS:
        return f"{what}: the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{what}: permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return f"{what}: the name is too long for the file system"
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"{what}: a file stands where a folder should be"
    return f"{what}: {exc.strerror or exc}"
