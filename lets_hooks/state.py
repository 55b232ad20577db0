"""Task files under ``<work tree>/.lets/sessions/``: where they live, reading them, and
changing their session line.

A task file is markdown that other tools write too. Its session line is the first line
starting with ``session: ``: the boundary sha, then (if any) the id of the session that
recorded it. This writer keeps two lines of its own beside it, each counting only while
its sha equals the session line's: ``session-recorded: <sha> <UTC time>`` (when the
boundary was written: the age rung) and ``session-approx: <sha> <reason>`` (no place counts
the session's commits exactly: the ladder then never says ``exact``).

``open_store`` decides once per command where state lives: a ``.lets``, ``.lets/sessions``
or ``.lets/locks`` that is a symbolic link is followed only when git does not track it and
it leads to the same folder of another work tree of this repository.
"""

from __future__ import annotations

import os
import stat
import time

from lets_hooks import files, gitfiles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from lets_hooks.repo import Repo

SESSION_PREFIX = b"session: "
RECORDED_PREFIX = b"session-recorded: "
APPROX_PREFIX = b"session-approx: "
MAX_BYTES = files.MAX_BYTES  # reader, writer and lint share this limit
SID_MAX = 200
LEDGER_MARKS = frozenset({"-", "=", "*"})  # the session ledger's own tokens
NAME_MAX_FALLBACK = 255
HEADER_KEYS_BEFORE_SESSION = (b"task", b"start")  # the lets tool writes these first
LINKABLE = (".lets", ".lets/sessions", ".lets/locks")
# The ladder's trust names, strongest first (``ladder.EXACT`` ...): kept beside the lines
# they rest on, so the handoff reader checks a Range block's trust without the ladder.
TRUST_LEVELS = ("exact", "prior-session", "estimate", "none")


def slug(branch: str) -> str:
    """The branch name as it appears in state file names: every ``/`` becomes ``-``."""
    return branch.replace("/", "-")


is_hex = files.is_hex


def sid_problem(sid: str) -> str | None:
    """The one rule for a session id (every writer, the ledger's reader, the ladder, lint):
    one token of at most ``SID_MAX`` characters ``str.isprintable`` accepts (no blank,
    control or invisible format character), and not one of the ledger's own marks. The
    plain shims' shell asks the same of the ids it writes (``install._NOTE``)."""
    if not sid:
        return "empty"
    if len(sid) > SID_MAX:
        return f"longer than {SID_MAX} characters"
    if " " in sid or not sid.isprintable():
        return "not printable text (blanks, control and invisible format characters are " \
               "not allowed in it)"
    if sid in LEDGER_MARKS:
        return "one of the session ledger's own marks (-, =, *)"
    return None


def shown_sid(sid: str) -> str:
    return ascii(sid if len(sid) <= 40 else sid[:37] + "...")


class StateError(Exception):
    """A state file could not be written. ``str()`` is one line a person can act on."""


# -- where state lives ---------------------------------------------------------------------

class Store:
    """A work tree's state folders, judged once: ``problem`` says why nothing may be read
    or written there (a refused link), else None."""

    __slots__ = ("locks", "problem", "repo", "sessions", "top", "unkept")

    def __init__(self, top: str, problem: str | None = None, repo: Repo | None = None) -> None:
        self.top = top
        self.sessions = os.path.join(top, ".lets", "sessions")
        self.locks = os.path.join(top, ".lets", "locks")
        self.problem = problem
        self.repo = repo
        self.unkept: str | None = None  # why a write left the state open to commits

    def task_path(self, branch: str) -> str:
        return os.path.join(self.sessions, ".task-" + slug(branch))

    def legacy_path(self, branch: str) -> str:
        return os.path.join(self.sessions, ".session-start-ref-" + slug(branch))

    def lock_path(self, branch: str) -> str:
        return os.path.join(self.locks, "task-" + slug(branch) + ".lock")


def sessions_dir(top: str) -> str:
    """Where the work tree at ``top`` keeps its task files (links not judged: see
    ``open_store`` before reading or writing there)."""
    return Store(top).sessions


def open_store(top: str, repo: Repo | None = None) -> Store:
    """The state of the work tree at ``top``. Three ``lstat`` calls when nothing is a link
    (the hot path); git is asked only about links (is one tracked? where do the work trees
    of this repository live?)."""
    links = []
    for rel in LINKABLE:
        try:
            info = os.lstat(os.path.join(top, rel))
        except OSError:
            if rel == ".lets":
                break  # absent (or unreadable): nothing below it to judge
            continue
        if stat.S_ISLNK(info.st_mode):
            links.append(rel)
    return Store(top, _link_problem(top, links, repo) if links else None, repo)


def _link_problem(top: str, links: list[str], repo: Repo | None) -> str | None:
    from lets_hooks.repo import GitError, Repo

    at_top = Repo(top, repo.git if repo is not None else "git")
    try:
        tracked = set(at_top.tracked(".lets"))
    except GitError as exc:
        return f"{links[0]} is a symbolic link and git cannot say whether it is tracked " \
               f"({exc}) - not followed"
    for rel in links:
        if rel in tracked:
            return (f"{rel} is a symbolic link that came with the repository (tracked by "
                    f"git) - not followed, nothing read or written there; remove it with "
                    f"'git rm --cached {rel}'")
    try:  # the caller's repo may have listed the work trees already (``status`` has)
        tops = [t for t, _, _ in (repo if repo is not None else at_top).worktree_heads()]
    except GitError as exc:
        return f"{links[0]} is a symbolic link and git cannot list the work trees ({exc}) " \
               "- not followed"
    allowed = {os.path.realpath(t) for t in tops} - {os.path.realpath(top)}
    for rel in links:
        target = os.path.realpath(os.path.join(top, rel))
        if not any(target == os.path.join(t, rel) for t in allowed):
            return (f"{rel} is a symbolic link to {target}, which is not the {rel} of "
                    "another work tree of this repository - not followed, nothing read or "
                    "written there")
    return None


# -- reading -------------------------------------------------------------------------------

class Recorded:
    """What a state file says: the sha as written, the session id, where it came from,
    and this writer's own lines when they match the sha."""

    __slots__ = ("approx", "line", "notes", "recorded_at", "refused", "sha", "sid", "source")

    def __init__(self) -> None:
        self.sha: str | None = None
        self.sid: str | None = None
        self.source: str | None = None  # "task" or "legacy" once a sha was found
        self.notes: list[str] = []
        self.line: bytes | None = None  # the session line's value as read, for compare
        self.recorded_at: str | None = None  # session-recorded time (ISO text), sha matched
        self.approx: str | None = None  # session-approx reason, sha matched
        # why the branch's task file (or the state folder) was refused: something may be
        # recorded there, unread, and no writer writes there either
        self.refused: str | None = None


def tokens(line: bytes) -> list[bytes]:
    """Blank-separated tokens of a line (spaces and tabs, as awk splits them)."""
    return line.replace(b"\t", b" ").split()


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def find_key_line(data: bytes, prefix: bytes) -> bytes | None:
    """The value after ``prefix`` on the first line that starts with it (without its LF or
    CRLF end), or None."""
    span = _line_span(data, prefix)
    return None if span is None else data[span[0] + len(prefix):span[1]]


def find_session_line(data: bytes) -> bytes | None:
    return find_key_line(data, SESSION_PREFIX)


def first_line(data: bytes) -> bytes:
    line = data.split(b"\n", 1)[0]
    return line[:-1] if line.endswith(b"\r") else line


def parse(data: bytes, name: str) -> Recorded:
    """The session line of a task file's content (``name`` for messages)."""
    found = Recorded()
    line = find_session_line(data)
    if line is None:
        return found
    found.line = line
    parts = tokens(line)
    sha = _text(parts[0]) if parts else ""
    if not _take_sha(found, sha, f"the session line in {name}", "task"):
        return found
    if len(parts) > 1:
        sid = _text(parts[1])
        problem = sid_problem(sid)
        if problem is None:
            found.sid = sid
        else:
            found.notes.append(f"the session id in {name} is {problem}: the line counts as "
                               "recorded by no known session")
    for prefix, slot in ((RECORDED_PREFIX, "recorded_at"), (APPROX_PREFIX, "approx")):
        head, _, rest = (find_key_line(data, prefix) or b"").strip().partition(b" ")
        if _text(head) == sha and rest.strip():
            setattr(found, slot, _text(rest.strip()))
    return found


def _take_sha(found: Recorded, sha: str, what: str, source: str) -> bool:
    """Take ``sha`` as ``found``'s, from ``source``, when it is lowercase hex; else say
    that ``what`` does not hold one."""
    if sha and files.is_hex(sha):
        found.sha, found.source = sha, source
        return True
    shown = sha if len(sha) <= 48 else sha[:45] + "..."
    found.notes.append(f"{what} does not hold a lowercase hex sha ({shown!r}) - ignored")
    return False


def read_recorded(where: Store | str, branch: str) -> Recorded:
    """The boundary recorded for ``branch``: the task file's session line, else the legacy
    slugged file. The non-slugged ``.session-start-ref`` is never read."""
    store = where if isinstance(where, Store) else open_store(where)
    found = Recorded()
    if store.problem is not None:
        found.notes.append(store.problem)
        found.refused = store.problem
        return found
    task = store.task_path(branch)
    data, problem = files.read_capped(task)
    if data is not None:
        found = parse(data, os.path.basename(task))
    if problem:
        found.notes.append(problem)
        found.refused = problem
    if found.sha is not None:
        return found
    legacy = store.legacy_path(branch)
    data, problem = files.read_capped(legacy)
    if problem:
        found.notes.append(problem)
    parts = tokens(first_line(data)) if data is not None else []
    if parts:
        _take_sha(found, _text(parts[0]), os.path.basename(legacy), "legacy")
    return found


# -- the time a boundary was recorded --------------------------------------------------------

def utc_stamp(now: float) -> str:
    """``now`` as ISO 8601 UTC to the second: ``2026-11-30T15:08:08Z`` (the one form of a
    written time: ``session-recorded``, and the checkpoint's ``ts`` and ``updated``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(now)))


def parse_stamp(text: str) -> int | None:
    """Seconds since the epoch of ``YYYY-MM-DDTHH:MM:SSZ`` (``+00:00`` also read as UTC;
    fractions of a second ignored), or None when it is not that shape."""
    text = text.strip()
    text = text[:-1] if text.endswith("Z") else text.removesuffix("+00:00")
    text = text.split(".", 1)[0]
    if len(text) != 19 or text[4] != "-" or text[7] != "-" or text[10] not in "T " \
            or text[13] != ":" or text[16] != ":":
        return None
    fields = (text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19])
    if not all(f.isdigit() and f.isascii() for f in fields):
        return None
    year, month, day, hour, minute, second = (int(f) for f in fields)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60
            and second < 61):
        return None
    # days since 1970-01-01 of a proleptic Gregorian date (the ladder reads this: no
    # datetime import on the contract command's path)
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + hour * 3600 + minute * 60 + second


# -- writing -------------------------------------------------------------------------------
#
# The other writer of these files (the ``lets`` tool) takes the same flock
# (``.lets/locks/task-<slug>.lock``) and renames a temporary sibling over the file the
# same way, so that neither can lose the other's change or see a torn file.

class Line:
    """What a writer wants the session line to say: ``session: <sha> <sid>``, when it was
    recorded, and why it is only approximate (None: it is exact)."""

    __slots__ = ("approx", "recorded_at", "sha", "sid")

    def __init__(self, sha: str, sid: str | None, recorded_at: str | None,
                 approx: str | None = None) -> None:
        self.sha = sha
        self.sid = sid or None
        self.recorded_at = recorded_at
        self.approx = approx


def session_value(sha: str, sid: str | None) -> bytes:
    """What follows ``session: `` on the line: the sha, then the session id if known."""
    if not (7 <= len(sha) <= 64) or not files.is_hex(sha):
        raise StateError(f"refusing to record {sha!r}: not a 7-64 digit lowercase hex sha")
    if not sid:
        return sha.encode()
    problem = sid_problem(sid)
    if problem is not None:
        raise StateError(f"refusing to record session id {shown_sid(sid)}: it is {problem}")
    return f"{sha} {sid}".encode("utf-8", "surrogateescape")


def replace_session_line(data: bytes, value: bytes) -> bytes:
    """``data`` with its session line's value set to ``value``; every other byte (and the
    line's own end) kept. With no session line, one is added: after the leading
    ``task:``/``start:`` lines of a leading ``key: value`` block (the lets tool's order),
    or at the top of such a block; otherwise at the end, so that a document's own first
    line stays first. An added line takes the file's line-end style (CRLF when its first
    line ends so); a file that did not end with a line end still does not."""
    span = _line_span(data, SESSION_PREFIX)
    if span is not None:
        begin, end = span
        return data[:begin + len(SESSION_PREFIX)] + value + data[end:]
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


def _line_span(data: bytes, prefix: bytes) -> tuple[int, int] | None:
    """(start of the first line starting with ``prefix``, end of its value: before its
    CR LF or LF, or the end of the data), or None."""
    start = (b"\n" + data).find(b"\n" + prefix)  # a line's start in ``data``
    if start < 0:
        return None
    end = data.find(b"\n", start)
    if end < 0:
        end = len(data)
    if end > start and data[end - 1:end] == b"\r":
        end -= 1
    return start, end


def set_own_line(data: bytes, prefix: bytes, value: bytes | None) -> bytes:
    """Set (or with None remove) this writer's ``prefix`` line: replaced where it stands,
    else added right after the session line, with that line's own line end."""
    span = _line_span(data, prefix)
    if span is not None:
        begin, end = span
        if value is not None:
            return data[:begin] + prefix + value + data[end:]
        stop = data.find(b"\n", end)
        return data[:begin] + (b"" if stop < 0 else data[stop + 1:])
    session = _line_span(data, SESSION_PREFIX)
    if value is None or session is None:
        return data
    _, end = session
    eol = b"\r\n" if data[end:end + 2] == b"\r\n" else b"\n"
    if end == len(data):
        return data + eol + prefix + value
    stop = data.find(b"\n", end)
    return data[:stop + 1] + prefix + value + eol + data[stop + 1:]


def render(data: bytes, line: Line) -> bytes:
    """``data`` with the session line, ``session-recorded`` and ``session-approx`` set."""
    out = replace_session_line(data, session_value(line.sha, line.sid))
    stamp = None if line.recorded_at is None else f"{line.sha} {line.recorded_at}".encode()
    out = set_own_line(out, RECORDED_PREFIX, stamp)
    reason = " ".join((line.approx or "").split())[:200]
    approx = f"{line.sha} {reason}".encode("utf-8", "surrogateescape") if line.approx else None
    return set_own_line(out, APPROX_PREFIX, approx)


def _header_insert_point(data: bytes) -> int | None:
    """Where a session line goes in a leading ``key: value`` block, or None (no block)."""
    pos = 0
    insert: int | None = None  # None until a block is seen
    while pos < len(data):
        end = data.find(b"\n", pos)
        line = data[pos:].rstrip(b"\r") if end < 0 else data[pos:end].rstrip(b"\r")
        key, colon, _ = line.partition(b":")
        if not colon or not key or not all(c in _KEY_CHARS for c in key):
            break
        if end < 0:  # the block runs to a last line without a line end
            return None if key in HEADER_KEYS_BEFORE_SESSION else insert
        if insert is None:
            insert = pos  # top of the block, unless task:/start: come first
        pos = end + 1
        if key in HEADER_KEYS_BEFORE_SESSION:
            insert = pos
    return insert


_KEY_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_-")


def slug_collisions(branch: str, branches: Iterable[str]) -> list[str]:
    """The other branches among ``branches`` whose state files are ``branch``'s too."""
    mine = slug(branch)
    return sorted(b for b in branches if b != branch and slug(b) == mine)


def update(where: Store | str, branch: str, decide: Callable[[Recorded], Line | None],
           branches: Iterable[str] | None = None) -> bool:
    """Change ``branch``'s session line as ``decide`` says (None: keep it); True if the file
    changed. Under the task file's lock: read (capped, never through a link), parse, ask
    ``decide``, write atomically, so a line another writer changed meanwhile is judged as it
    is now. ``branches`` (all local branch names), when given, refuses a slug shared with
    another branch. Raises ``StateError`` (one line) when the write is refused or fails."""
    store = where if isinstance(where, Store) else open_store(where)
    _check_branch(store, branch, branches)
    fresh = _prepare(store)
    path = store.task_path(branch)
    name = os.path.basename(path)
    try:
        with files.locked(store.lock_path(branch), shown=_shown(store.lock_path(branch))):
            data, problem = files.read_capped(path)
            if problem is not None:
                why = problem.removeprefix(name + " ").removesuffix(" - ignored")
                raise StateError(f"{_shown(path)} {why} - not changed")
            wanted = decide(parse(data or b"", name))
            if wanted is None:
                return False
            new = render(data or b"", wanted)
            if data is not None and new == data:
                return False
            if len(new) > MAX_BYTES:
                raise StateError(f"{_shown(path)} would grow past the {MAX_BYTES >> 20} MiB "
                                 "limit for a task file - not changed")
            refuse_tracked(store, path)
            files.atomic_write(path, new, shown=_shown(path))
    except files.Refused as exc:
        raise StateError(str(exc)) from exc
    keep_out_of_commits(store, fresh)
    return True


def move_branch(store: Store, old: str, new: str,
                branches: Iterable[str] | None = None) -> bool:
    """Give ``new`` the task and legacy files ``old`` left behind (``git branch -m`` runs no
    hook) where ``new`` has none, under both branches' locks (taken in one order: two movers
    never wait on each other). True when anything moved; raises ``StateError`` (one line)."""
    _check_branch(store, new, branches)
    if slug(old) == slug(new):
        return False
    _prepare(store)
    moved = False
    first, second = sorted({store.lock_path(old), store.lock_path(new)})
    try:
        with files.locked(first, shown=_shown(first)), \
                files.locked(second, shown=_shown(second)):
            for source, target in ((store.task_path(old), store.task_path(new)),
                                   (store.legacy_path(old), store.legacy_path(new))):
                if os.path.islink(source) or not os.path.isfile(source) \
                        or os.path.lexists(target):
                    continue
                files.move(source, target, shown_as=_shown(source))
                moved = True
    except files.Refused as exc:
        raise StateError(str(exc)) from exc
    return moved


def _check_branch(store: Store, branch: str, branches: Iterable[str] | None) -> None:
    """Raise ``StateError`` (one line) unless ``branch``'s state may be written in ``store``."""
    if store.problem is not None:
        raise StateError(store.problem)
    if not branch or branch in (".", ".."):
        raise StateError(f"cannot keep state for a branch named {files.quoted(branch)}")
    others = slug_collisions(branch, branches) if branches is not None else []
    if others:
        names = ", ".join(files.quoted(b) for b in others)
        raise StateError(
            f"branch {files.quoted(branch)} and branch {names} share the state file "
            f".task-{slug(branch)} ('/' and '-' read alike); not recorded - rename one of "
            "them")
    name = ".task-" + slug(branch)
    probe = store.top
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


def _prepare(store: Store) -> bool:
    """Create the state folders; True when ``.lets`` itself was new."""
    fresh = not os.path.lexists(os.path.join(store.top, ".lets"))
    for folder in (store.sessions, store.locks):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise StateError(files.why(exc, f"cannot create {_shown(folder)}")) from exc
    return fresh


def _lines_for(name: bytes) -> frozenset[bytes]:
    """The info/exclude lines that keep ``name`` out of commits (with or without the
    leading slash, with or without the trailing one, or as ``name/*``)."""
    return frozenset(lead + name + tail for lead in (b"", b"/") for tail in (b"", b"/", b"/*"))


_ALL_LINES = _lines_for(b".lets")
_FOLDERS = ("sessions", "locks")
_LINK_LINES = frozenset({b".lets", b"/.lets"})  # what matches a .lets that is a link


def refuse_tracked(store: Store, path: str) -> None:
    """Raise ``StateError`` (one line) when git tracks the state file at ``path``: writing
    it would put a session's id into the next commit. When git cannot say, the write goes
    on (``tests/test_fences.py::test_a_tracked_state_file_is_never_written``)."""
    from lets_hooks.repo import GitError, Repo

    rel = os.path.relpath(path, store.top).replace(os.sep, "/")
    if not gitfiles.index_may_hold(store.top, rel):
        return
    repo = Repo(store.top, store.repo.git if store.repo is not None else "git")
    try:
        tracked = repo.tracked(rel)
    except GitError:
        return
    if rel in tracked:
        raise StateError(
            f"{files.show(rel)} is tracked by git (it came with the repository) - not "
            f"written: session state is per work tree; 'git rm --cached "
            f"{files.shell_word(rel)}' keeps it out of commits")


def exclude_blocked(common: str) -> str | None:
    """Why ``info/exclude`` of the common git dir ``common`` cannot be written: its folder
    is no folder (git then reads no exclude file, and says nothing), or it is a symbolic
    link (git reads through it; a write would replace it with a file) or no file."""
    info = os.path.join(common, "info")
    path = os.path.join(info, "exclude")
    if os.path.lexists(info) and not os.path.isdir(info):
        return "info in the git directory is not a folder"
    if os.path.islink(path):
        return "info/exclude is a symbolic link, not replaced"
    if os.path.lexists(path) and not os.path.isfile(path):
        return "info/exclude is not a regular file"
    return None


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def keep_out_of_commits(store: Store, fresh: bool) -> None:
    """After a state file was written: make sure git ignores ``.lets/sessions/`` and
    ``.lets/locks/`` (on every write: a team that commits ``.lets/config.toml`` ships
    ``.lets`` in every clone). What the common ``info/exclude`` or git's own ignore rules
    do not cover is added there: ``.lets/`` when ``.lets`` was new (``fresh``), else the two
    folders, so a committed settings file can still be changed. Best effort: what could not
    be added (``info`` no folder, ``exclude`` refused or not writable) is said in
    ``store.unkept``, one line with the fix; never raises."""
    from lets_hooks.repo import GitError, Repo

    repo = Repo(store.top, store.repo.git if store.repo is not None else "git")
    git_dir = gitfiles.git_dir_at(store.top)  # git's files first; git only when they are unclear
    try:
        common = repo.common_dir() if git_dir is None else gitfiles.common_dir(git_dir)
    except GitError:
        return
    info = os.path.join(common, "info")
    path = os.path.join(info, "exclude")
    data, problem = files.read_capped(path, MAX_BYTES, follow=True, name="info/exclude")
    if problem is not None and _is_fifo(path):
        return  # git blocks on it before it commits anything: not read, not asked
    problem = exclude_blocked(common) or problem  # then asked of git, not written
    old = data or b""
    present = {line.strip() for line in old.split(b"\n")}
    if os.path.islink(os.path.join(store.top, ".lets")):
        # another work tree's .lets, linked (open_store let it stand): to git a file,
        # which `.lets/` does not match, so the link itself is what must stay out
        try:
            if present & _LINK_LINES or repo.is_ignored(".lets"):
                return
        except GitError:
            return
        add = b".lets\n"
    else:
        if present & _ALL_LINES:
            return
        missing = [f for f in _FOLDERS if not present & _lines_for(b".lets/" + f.encode())]
        try:
            missing = [f for f in missing if not repo.is_ignored(f".lets/{f}/")]
        except GitError:
            return
        if not missing:
            return
        add = b".lets/\n" if fresh and len(missing) == len(_FOLDERS) else b"".join(
            b".lets/" + f.encode("ascii") + b"/\n" for f in missing)
    if problem is None:
        sep = b"" if not old or old.endswith(b"\n") else b"\n"
        new = old + sep + b"# lets-hooks: per-work-tree session state\n" + add
        try:
            os.makedirs(info, exist_ok=True)
            files.atomic_write(path, new, shown="info/exclude")
        except OSError as exc:
            problem = files.why(exc, "info/exclude cannot be written")
        except files.Refused as exc:
            problem = str(exc)
    if problem is not None:
        wanted = add.decode("ascii").replace("\n", " and ").removesuffix(" and ")
        store.unkept = (f"git does not ignore the session state, so git add -A would commit "
                        f"it ({problem}): add {wanted} to .gitignore")


def _shown(path: str) -> str:
    """A path as messages show it: from ``.lets`` on when it is inside one."""
    marker = os.sep + ".lets" + os.sep
    at = path.rfind(marker)
    return path[at + 1:] if at >= 0 else path
