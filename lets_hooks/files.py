"""Files: the one place that decides how the product reads and writes them.

Standard library only, and cheap to import (a hook imports it on every checkout):

- ``read_capped``: a regular file, never through a symbolic link, never blocking, never
  more than a limit;
- ``inside`` / ``read_inside`` / ``write_inside``: a path under a root, refused when it
  leads out of the root or into a git directory (SPEC section 7); ``read_outside_git``;
- ``locked``: the exclusive ``flock(2)`` other writers of the state files take too;
- ``atomic_write``: a temporary sibling, synced, renamed over the file (never torn or lost);
- ``link_aside``, ``put_back``, ``append_to``: the checkpoint's guarded write;
- ``is_hex``, ``is_sha``: the shape checks for object names;
- ``write_all``: every byte written to a descriptor;
- ``sealed`` / ``unsealed``: a cache file's bytes (``marshal`` under a length and a CRC-32);
- ``show``: the one way outside text is printed (controls escaped).

Every refusal is a ``Refused`` whose text is one line a person can act on.
"""

from __future__ import annotations

import errno
import marshal
import os
import stat
import time

TYPE_CHECKING = False  # True to mypy; keeps typing unimported (tests/test_hooks_imports.py)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

MAX_BYTES = 1 << 20  # the one limit for a state file: the reader, the writer and lint
LOCK_WAIT = 1.0  # seconds to wait for a lock whose holder never lets go
LOCK_BUSY = 10.0  # seconds to wait for a lock that keeps changing hands (other writers)
HEX = frozenset("0123456789abcdef")
SHA_LENGTHS = (40, 64)  # SHA-1 and SHA-256 object names

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Refused(Exception):
    """A file that is not read or written; ``str()`` is one line saying why."""


# -- object names ---------------------------------------------------------------------------

def is_hex(text: str) -> bool:
    """Only lowercase hex digits (the shape guard; an empty string passes: check length)."""
    return all(c in HEX for c in text)


def is_sha(text: str) -> bool:
    """A full object name: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits."""
    return len(text) in SHA_LENGTHS and is_hex(text)


# -- reading --------------------------------------------------------------------------------

SETTLED = 2.0  # seconds unchanged after which a file's size and times tell a change


def settled_key(path: str) -> tuple[str, int, int, int, int, int] | None:
    """What names the bytes of the file at ``path`` for the rest of a process: its path,
    device, inode, size and times, or None when it is absent or changed in the last
    ``SETTLED`` seconds (times are coarse: a change within the same tick keeps them). A
    reader that keeps a file's bytes under this key reads them again only once it
    differs (the ledger and HEAD's log, read for each branch by ``status`` and pre-push:
    ``benchmarks/bench_hooks.py``)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if time.time() - max(info.st_mtime, info.st_ctime) <= SETTLED:
        return None
    return (path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def read_capped(path: str, limit: int = MAX_BYTES, *, follow: bool = False,
                name: str | None = None) -> tuple[bytes | None, str | None]:
    """Up to ``limit`` bytes of a regular file: (data, problem), data None when the file is
    absent (problem None) or refused (problem names it ``name``, else its base name). A
    file over ``limit`` is refused, not cut: a reader never acts on part of a file. A last
    component that is a symbolic link is followed only with ``follow``."""
    shown = name or os.path.basename(path)
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, f"{shown} is a symbolic link - refused, not followed"
        if exc.errno == errno.ENAMETOOLONG:
            return None, f"{shown[:40]}... is too long a file name for this file system"
        return None, f"{shown} cannot be read ({exc.strerror or exc})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, f"{shown} is not a regular file - ignored"
        if info.st_size > limit:
            return None, f"{shown} is {info.st_size} bytes, over the {_size(limit)} limit - ignored"
        chunks = []
        left = limit + 1
        ask = info.st_size + 1  # the whole file in one read, then 64 KiB at a time if it grew
        while left > 0:
            chunk = os.read(fd, min(left, ask))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            ask = 1 << 16
        data = b"".join(chunks)
        if len(data) > limit:  # it grew while being read
            return None, f"{shown} is over the {_size(limit)} limit - ignored"
        return data, None
    except OSError as exc:
        return None, f"{shown} cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit > 0 and not limit % (1 << 20) else f"{limit} byte"


# -- the fence: a path under a root ----------------------------------------------------------

def inside(root: str, relative: str, git_dir: str | None = None) -> str:
    """The real path of ``root/relative`` (links resolved; it need not exist), or
    ``Refused`` when it is not under the root's real path or is in a git directory (a
    ``.git`` component below the root, or under ``git_dir`` when given)."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root, relative))
    if target != real_root and not target.startswith(real_root.rstrip(os.sep) + os.sep):
        tail = os.path.basename(root.rstrip(os.sep)) or root
        raise Refused(f"{relative} leads out of {tail} - refused, not followed")
    if ".git" in target[len(real_root):].split(os.sep):
        raise Refused(f"{relative} leads into a git directory - refused")
    if git_dir is not None:
        real_git = os.path.realpath(git_dir)
        if target == real_git or target.startswith(real_git.rstrip(os.sep) + os.sep):
            raise Refused(f"{relative} leads into the git directory - refused")
    return target


def read_inside(root: str, relative: str, limit: int, git_dir: str | None = None
                ) -> tuple[bytes | None, str | None]:
    """``read_capped`` of ``root/relative`` behind the fence of ``inside``."""
    try:
        target = inside(root, relative, git_dir)
    except Refused as exc:
        return None, str(exc)
    return read_capped(target, limit, name=relative)


def write_inside(root: str, relative: str, data: bytes, git_dir: str | None = None, *,
                 before_rename: Callable[[], None] | None = None,
                 create_only: bool = False) -> str:
    """Atomically replace ``root/relative`` (through links that stay inside the root, which
    are kept as links); returns the real path written. ``Refused`` otherwise.
    ``before_rename``, ``create_only``: see ``atomic_write``."""
    target = inside(root, relative, git_dir)
    atomic_write(target, data, shown=relative, before_rename=before_rename,
                 create_only=create_only)
    return target


def read_outside_git(path: str, limit: int, name: str) -> tuple[bytes | None, str | None]:
    """``read_capped`` of ``path`` through its links (a dotfiles setup links the user's
    own files, ``~/.claude/...``), refused when it leads into a git directory (a ``.git``
    component, or a folder holding ``HEAD``, ``objects`` and ``refs``): a git config is
    not the user's notes (``name``: the file in messages)."""
    try:
        target = os.path.realpath(path)
        if not os.path.lexists(target):
            return None, None
    except (OSError, ValueError) as exc:
        return None, f"{name} cannot be read ({exc})"
    refused = f"{name} leads into a git directory - refused"
    if ".git" in target.split(os.sep):
        return None, refused
    folder = os.path.dirname(target)
    while True:
        if (os.path.isfile(os.path.join(folder, "HEAD"))
                and os.path.isdir(os.path.join(folder, "objects"))
                and os.path.isdir(os.path.join(folder, "refs"))):
            return None, refused
        if folder == os.path.dirname(folder):
            return read_capped(target, limit, name=name)
        folder = os.path.dirname(folder)


# -- writing ----------------------------------------------------------------------------------

def atomic_write(path: str, data: bytes, mode: int | None = None, shown: str | None = None,
                 keep_mode: bool = True, *,
                 before_rename: Callable[[], None] | None = None,
                 create_only: bool = False) -> None:
    """Replace ``path`` (not a symbolic link) with ``data``: a temporary sibling
    ``<name>.<digits>.tmp`` (0600, created exclusively), written, synced, given ``mode``
    (or the old file's mode when ``keep_mode``, else 0600), renamed over the file; the
    folder synced too. ``before_rename`` runs once the new bytes are durable, right before
    the rename (a compare-and-swap): whatever it raises stops the write. ``create_only``:
    linked, not renamed, so a file another writer created meanwhile is never replaced
    (``FileExistsError``, nothing written)."""
    label = shown or os.path.basename(path)
    folder, name = os.path.split(path)
    if mode is None:
        mode = 0o600
        if keep_mode:
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise Refused(why(exc, f"cannot write {label}")) from exc
            if info is not None:
                if stat.S_ISLNK(info.st_mode):
                    raise Refused(f"{label} is a symbolic link - refused, not followed")
                if not stat.S_ISREG(info.st_mode):
                    raise Refused(f"{label} is not a regular file - not changed")
                mode = stat.S_IMODE(info.st_mode)
    tmp, fd = _temp_sibling(folder or ".", name, label)
    try:
        try:
            write_all(fd, data)
            if mode != 0o600:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if before_rename is not None:
            before_rename()
        if not (create_only and _linked(tmp, path)):
            os.replace(tmp, path)
    except BaseException as exc:
        discard(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, FileExistsError):
            raise Refused(why(exc, f"cannot write {label}")) from exc
        raise
    sync_folder(folder or ".")
    sweep_temporaries(folder or ".", name)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` written to ``fd`` (``os.write`` may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _linked(tmp: str, path: str) -> bool:
    """``tmp`` linked at ``path`` (then removed): True; ``FileExistsError`` when something
    stands there; False where the file system makes no hard links (rename instead)."""
    try:
        os.link(tmp, path, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        return False
    discard(tmp)
    return True


def _temp_sibling(folder: str, name: str, label: str) -> tuple[str, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    base = os.getpid() * 1000
    for attempt in range(1000):
        tmp = os.path.join(folder, f"{name}.{base + attempt}.tmp")
        try:
            return tmp, os.open(tmp, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise Refused(why(exc, f"cannot write beside {label}")) from exc
    raise Refused(f"cannot find a free temporary name beside {label}")


KEPT = ".kept"  # the suffix of a link_aside


def link_aside(path: str) -> str | None:
    """A hard link to the file at ``path`` under a sibling name ``<name>.<digits>.kept``
    (swept once its process is gone), so that what another process writes into that very
    file after it is replaced can still be read. None when there is no file or no link."""
    folder, name = os.path.split(path)
    base = os.getpid() * 1000
    for attempt in range(1000):
        aside = os.path.join(folder or ".", f"{name}.{base + attempt}{KEPT}")
        try:
            os.link(path, aside, follow_symlinks=False)
            return aside
        except FileExistsError:
            continue
        except OSError:
            return None
    return None


def writers_gone(path: str) -> bool | None:
    """Wait up to ``LOCK_WAIT`` seconds until no process has the file at ``path`` open for
    writing: True, False (one still had), None where that cannot be told (Linux grants a
    read lease, ``F_SETLEASE``, only on a file nobody has open for writing)."""
    import fcntl
    import signal

    lease = getattr(fcntl, "F_SETLEASE", None)
    if lease is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except OSError:
        return None
    # a writer opening the file while the lease is held sends this process SIGIO, whose
    # default is to end it: ignored meanwhile (where this thread may set it)
    try:
        previous = signal.signal(signal.SIGIO, signal.SIG_IGN)
    except (ValueError, AttributeError, OSError):
        previous = None
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.fcntl(fd, lease, fcntl.F_RDLCK)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EBUSY):
                    return None
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.001)
                continue
            fcntl.fcntl(fd, lease, fcntl.F_UNLCK)
            return True
    except OSError:
        return None
    finally:
        os.close(fd)
        if previous is not None:
            signal.signal(signal.SIGIO, previous)


def put_back(aside: str, path: str, shown: str) -> None:
    """Rename ``aside`` (a file ``link_aside`` kept) over ``path``: the other writer's file
    back where it was, the same bytes and the same file."""
    try:
        os.replace(aside, path)
    except OSError as exc:
        raise Refused(why(exc, f"cannot put {shown} back")) from exc
    sync_folder(os.path.dirname(path) or ".")


def append_to(path: str, data: bytes, label: str) -> None:
    """Add ``data`` at the end of the regular file ``path`` in place (``O_APPEND``: what
    other writers append meanwhile is kept), never through a link, never blocking."""
    flags = os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _NONBLOCK | _CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise Refused(why(exc, f"cannot add to {label}")) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(f"{label} is not a regular file - not changed")
        write_all(fd, data)
        os.fsync(fd)
    except OSError as exc:
        raise Refused(why(exc, f"cannot add to {label}")) from exc
    finally:
        os.close(fd)


STALE_SECONDS = 60.0  # a temporary file this old was left by a writer that died


def sweep_temporaries(folder: str, name: str) -> None:
    """Remove the temporary files killed writers left beside ``name``
    (``<name>.<digits>.tmp``: the digits carry the writer's process id times 1000): those
    whose writer is gone or older than ``STALE_SECONDS``; and the links ``link_aside`` kept
    (``<name>.<digits>.kept``) whose writer is gone. Called by every writer after its own
    rename (a state file's writer under its lock). Never raises.
    (``tests/test_faults.py::test_temporary_files_of_killed_writers_are_swept``)"""
    prefix = name + "."
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    clock = time.time()
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith((".tmp", KEPT))):
            continue
        digits = entry[len(prefix):entry.rindex(".")]
        if not digits.isdigit() or not digits.isascii():
            continue
        path = os.path.join(folder, entry)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        # a link kept aside is as old as the file: held while its writer runs
        young = entry.endswith(KEPT) or clock - info.st_mtime < STALE_SECONDS
        if not (young and _writer_alive(int(digits))):
            discard(path)


def _writer_alive(digits: int) -> bool:
    """Could the writer of ``<name>.<digits>.tmp`` still be running? Ours put their process
    id times 1000 in the digits; another writer's digits may be its process id; anything
    else cannot be told, so counts as alive (only age removes it)."""
    found = False
    for pid in (digits // 1000, digits):
        if 0 < pid < 1 << 22:  # no process id is larger (Linux's pid_max)
            found = True
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            except OSError:
                pass  # it exists (another user's process)
            return True
    return not found


def discard(path: str) -> None:
    """Remove a file if it is there; never raises."""
    try:
        os.unlink(path)
    except OSError:
        return


def sync_folder(folder: str) -> None:
    """Make a rename in ``folder`` durable (best effort: some file systems refuse)."""
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


# -- derived data kept beside what it is derived from ---------------------------------------------

def sealed(magic: bytes, value: Any) -> bytes:
    """``value`` as a cache file keeps it: ``marshal`` (format 4, read alike by every Python
    this package runs on) under a line of ``magic``, its length and its CRC-32.
    ``ValueError`` when ``marshal`` cannot keep it."""
    import zlib

    payload = marshal.dumps(value, 4)
    return b"%s%d %08x\n%s" % (magic, len(payload), zlib.crc32(payload), payload)


def unsealed(magic: bytes, data: bytes) -> object | None:
    """What ``sealed`` kept in ``data``, or None unless it reads back whole and valid (cut
    short, a flipped bit, another format's or someone else's bytes)."""
    end = data.find(b"\n", len(magic)) if data.startswith(magic) else -1
    if end < 0:
        return None
    size, _, crc = data[len(magic):end].partition(b" ")
    payload = memoryview(data)[end + 1:]  # not copied: an index is 700 KB at 4 MiB
    import zlib

    try:
        if (not size.isdigit() or len(crc) != 8 or int(size) != len(payload)
                or int(crc, 16) != zlib.crc32(payload)):
            return None
        value: object = marshal.loads(payload)
    except (ValueError, EOFError, TypeError, MemoryError):
        return None
    return value


# -- the lock -----------------------------------------------------------------------------------

class _Lock:
    """An exclusive ``flock`` on a lock file, held while the ``with`` block runs."""

    __slots__ = ("fd", "path", "shown", "wait")

    def __init__(self, path: str, wait: float, shown: str) -> None:
        self.path = path
        self.wait = wait
        self.shown = shown
        self.fd = -1

    def __enter__(self) -> _Lock:
        self.fd = take_lock(self.path, self.wait, self.shown)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)  # closing the descriptor releases the flock


def locked(path: str, wait: float = LOCK_WAIT, shown: str | None = None) -> _Lock:
    """``with locked(path):`` holds an exclusive flock on ``path`` (created 0600, never
    through a link), waiting up to ``wait`` seconds for another holder, longer (up to
    ``LOCK_BUSY``) while it keeps changing hands; else ``Refused``, naming the holder."""
    return _Lock(path, wait, shown or os.path.basename(path))


def take_lock(path: str, wait: float, shown: str) -> int:
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"{shown} is a symbolic link - refused, not followed") from exc
        raise Refused(why(exc, f"cannot open the lock {shown}")) from exc
    started = time.monotonic()
    deadline = started + wait
    longest = started + max(wait, LOCK_BUSY)
    holders: frozenset[str] | None = None
    polls = 0
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            now = time.monotonic()
            if holders is None or polls % 5 == 0 or now > deadline:
                # who holds it, looked at as the wait begins and every 50 ms: each time it
                # has changed hands (writers taking turns) the wait starts again
                seen = lock_holders(fd)
                if holders is None:
                    holders = seen
                elif seen and seen != holders:
                    holders, deadline = seen, min(now + wait, longest)
            polls += 1
            if now > deadline:
                os.close(fd)
                who = f" (pid {', '.join(sorted(holders))})" if holders else ""
                raise Refused(f"{shown} is held by another process{who} that did not let "
                              f"it go within {wait:g} s; nothing written") from None
            time.sleep(0.01)
        except OSError as exc:
            os.close(fd)
            raise Refused(why(exc, f"cannot lock {shown}")) from exc


def lock_holders(fd: int) -> frozenset[str]:
    """The processes the kernel's lock table (``/proc/locks``) says hold a lock on the
    file open at ``fd``, by process id; empty where there is no such table."""
    try:
        info = os.fstat(fd)
        key = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
        data, _ = read_capped("/proc/locks", 1 << 24, follow=True)
    except (OSError, ValueError):
        return frozenset()
    rows = (line.split() for line in (data or b"").decode("ascii", "replace").splitlines())
    return frozenset(w[4] for w in rows if "->" not in w and len(w) >= 6 and w[5] == key)


# -- messages -----------------------------------------------------------------------------------

_REASONS = {errno.ENOSPC: "no space left on the device",  # what ``why`` says of an errno
            getattr(errno, "EDQUOT", errno.ENOSPC): "no space left on the device",
            errno.EROFS: "the file system is read-only",
            errno.EACCES: "permission denied", errno.EPERM: "permission denied",
            errno.ENAMETOOLONG: "the name is too long for the file system",
            errno.ENOTDIR: "a file stands where a folder should be",
            errno.EEXIST: "a file stands where a folder should be",
            errno.ELOOP: "a symbolic link stands in the way - refused, not followed"}


def why(exc: OSError, what: str) -> str:
    """``what`` and the reason an OS call failed, in words."""
    return f"{what}: {_REASONS.get(exc.errno or 0) or exc.strerror or exc}"


# Characters ``str.isprintable`` lets through that show nothing a person can tell from a
# blank, yet reach a program (default ignorable code points that are not format
# characters): the combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
# Mongolian variation selectors, the braille blank, and the variation selectors
# U+E0100..U+E01EF (a hidden message, one byte per character). A variation selector
# U+FE00..U+FE0F is shown after a character it can vary, escaped when it follows another
# one or starts the text (a run of them carries a message too).
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
                       "\u2800\u3164\uffa0")


def show(text: str) -> str:
    """``text`` that came from a file, a ref name or a setting, as one line a terminal
    shows as it is: the one function every printer uses for outside text (SPEC section 7).

    Escaped (as ``\\x1b``, ``\\u202e``...): bytes that were not UTF-8, C0 and C1 controls
    (so every escape sequence is shown, not obeyed), DEL, line and paragraph separators,
    bidi controls, the other invisible format characters (U+200B, U+FEFF, tags...), blanks
    other than the ASCII space, unassigned code points, and the invisible letters above.
    No name can forge an output line, move the cursor, hide text or break UTF-8 output.
    """
    if text.isascii() and text.isprintable():
        return text
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if text.isprintable() and not _invisible_letters().search(text):
        return text
    out = []
    escape_selector = True  # one that starts the text or follows another one is escaped
    for c in text:
        code = ord(c)
        selector = 0xFE00 <= code <= 0xFE0F
        plain = (c.isprintable() and c not in _INVISIBLE and not 0xE0100 <= code <= 0xE01EF
                 and not (selector and escape_selector))
        out.append(c if plain else c.encode("unicode_escape").decode("ascii"))
        escape_selector = selector
    return "".join(out)


_LETTERS: list[re.Pattern[str]] = []


def _invisible_letters() -> re.Pattern[str]:
    """What ``show`` escapes among printable characters, as a pattern (compiled on first
    use: most text is plain ASCII)."""
    if not _LETTERS:
        import re

        _LETTERS.append(re.compile(
            "[" + "".join(sorted(_INVISIBLE)) + "\U000e0100-\U000e01ef]"
            "|(?:^|[\ufe00-\ufe0f])[\ufe00-\ufe0f]"))
    return _LETTERS[0]


def is_shown_as_is(text: str) -> bool:
    """Would ``show`` print ``text`` unchanged? (The rule for a setting's value: a branch
    name that would need escaping is not a branch name the product accepts.)"""
    return show(text) == text


def quoted(name: str | None) -> str:
    """A name in a message: ``show``n between single quotes (``none`` for no name)."""
    return "none" if name is None else "'" + show(name) + "'"


_SHELL_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                         "@%+=:,./-_")  # shlex.quote's, without importing re on a hook's path


def shell_word(text: str) -> str:
    """``text`` as one word of a command a message tells the user to run: quoted where a
    POSIX shell would read it otherwise (git allows ``;``, ``$(`` and ``&`` in a branch
    name), as ``shlex.quote`` does, then ``show``n."""
    if text and all(char in _SHELL_PLAIN for char in text):
        return show(text)
    return show("'" + text.replace("'", "'\"'\"'") + "'")


# -- moving a file aside ------------------------------------------------------------------------

def move(source: str, target: str, shown_as: str) -> None:
    """Rename ``source`` to ``target`` (a link is moved as a link, the bytes and the mode of
    a file are kept), refusing to replace anything already at ``target``."""
    if os.path.lexists(target):
        raise Refused(f"cannot move {shown_as} to {os.path.basename(target)}: that name is taken")
    try:
        os.rename(source, target)
    except OSError as exc:
        raise Refused(why(exc, f"cannot move {shown_as}")) from exc
    sync_folder(os.path.dirname(target) or ".")


def remove(path: str, shown_as: str) -> None:
    """Delete ``path`` (a link itself, never what it points to); absent is fine."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise Refused(why(exc, f"cannot remove {shown_as}")) from exc


def free_name(path: str) -> str:
    """``path``, or ``path.1``, ``path.2``... : the first name nothing stands at."""
    candidate = path
    number = 0
    while os.path.lexists(candidate):
        number += 1
        candidate = f"{path}.{number}"
    return candidate


def is_folder(path: str) -> bool:
    """An absolute path to a folder (a hook's ``cwd`` as an agent sends it): never an
    error, whatever the text (``os.path.isdir`` says False to what it cannot ask)."""
    return os.path.isabs(path) and os.path.isdir(path)
