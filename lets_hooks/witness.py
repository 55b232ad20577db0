"""The witness: which commits of a range this session made (see docs/witness.md).

Two records are read, never inferred from the graph's shape:

- git's HEAD reflog of the work tree whose state is read. Every move of HEAD in a work
  tree is logged there with its reason and time: ``commit:``, ``commit (amend):``,
  ``merge X: Merge made by ...``, ``cherry-pick:``, ``revert:``, ``am:`` made the commit
  they name; ``rebase (pick):`` and its kin made a *copy*; ``checkout:``, ``reset:``,
  ``pull: Fast-forward`` and the like only moved HEAD to a commit that already existed.
  On the ``files`` ref backend the log is ``<that work tree's git dir>/logs/HEAD`` and it
  is read as a file, from its end backwards, only as far back as the question needs: no
  git process. On ``reftable`` one ``git log -g`` reads it.
- the rewrite ledger ``.lets/sessions/.rewritten``: ``<new> <old>`` lines that
  post-rewrite appends (``note_rewrite``). A copy is the session's exactly when what it
  copies is.

A commit of the range is then the session's (made here, or a copy of one), not the
session's (it came from elsewhere, or copies a commit that did), or not vouched for (a
copy the ledger does not know: the hooks did not run for that rewrite; or a reflog that
does not reach back far enough).
"""

from __future__ import annotations

import os

from lets_hooks import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from lets_hooks.repo import Repo

CREATED = "created"  # the entry made the commit it names
COPY = "copy"  # a rewrite made it as a copy of another commit
MOVED = "moved"  # HEAD moved to a commit that already existed

SESSION = "session"
ELSEWHERE = "elsewhere"
UNVOUCHED = "unvouched"

REFLOG = "reflog"
REFTABLE = "reftable"
NO_WITNESS = "none"

LEDGER = ".rewritten"  # in .lets/sessions/
LEDGER_LOCK = "rewritten.lock"  # in .lets/locks/
LEDGER_KEEP = 20_000  # lines kept; the oldest go first (about 1.6 MB)
LEDGER_LIMIT = 4 << 20  # a ledger larger than this is not read
SLACK = 86_400  # clocks of the commits' makers may run apart by this much
CHUNK = 1 << 16
REFTABLE_LIMIT = 20_000  # entries asked of ``git log -g``

_NULL = "0" * 40
_CREATING = frozenset(("commit", "commit (initial)", "commit (amend)", "commit (merge)",
                       "commit (cherry-pick)", "am", "cherry-pick", "revert"))
_COPYING = frozenset(("pick", "reword", "edit", "squash", "fixup", "merge", "continue"))
# The first word of every HEAD reflog message git itself writes (2.25 on).
_GIT_WORDS = frozenset(("commit", "am", "cherry-pick", "revert", "merge", "pull", "rebase",
                        "checkout", "reset", "branch", "Branch", "clone", "initial",
                        "updating", "fetch", "switch", "bisect", "stash", "worktree",
                        "restore", "rebase -i", "notes"))
_MAKERS = (b"commit", b"merge", b"pull", b"cherry-pick", b"revert", b"am: ")


def classify(message: str) -> str:
    """What a reflog entry's message says the entry did to the commit it names.

    The strings are git's own (builtin/commit.c, merge.c, am.c, pull.c, rebase.c,
    sequencer.c, checkout.c, reset.c, 2.25 to today): ``<action>: <detail>``, where a
    rebase's action is ``rebase (pick)`` (``rebase -i (pick)`` before 2.26; ``pull
    <args> (pick)`` under ``git pull --rebase``).
    """
    action, sep, detail = message.partition(": ")
    if message and message.split(" ", 1)[0].rstrip(":") not in _GIT_WORDS:
        # Not a message git writes: a tool moved HEAD (GitPython and pygit2 log the commit
        # message alone). What it did cannot be read, so nothing it names is vouched for:
        # it is judged as a copy the ledger does not know (counted, never exact).
        return COPY
    if not sep:
        return MOVED  # "rebase finished: ..." has one; a bare word is a move
    if action == "commit (rebase)":
        return COPY  # a conflicted pick committed by hand: the rebase lists it
    if action in _CREATING:
        return MOVED if detail.startswith("fast-forward") else CREATED
    if detail.startswith("Merge made by"):
        return CREATED  # merge X / pull: the merge commit itself
    if detail.startswith(("Fast-forward", "fast-forward")):
        return MOVED
    base, sub = _split_sub(action)
    if base.startswith(("rebase", "pull")):
        if sub is not None:
            return COPY if sub in _COPYING else MOVED
        if detail.startswith(("checkout ", "returning to ")) or base == "rebase finished":
            return MOVED
        # An old git's apply-backend pick ("rebase: <subject>"); the ledger decides.
        return COPY
    return MOVED


def _split_sub(action: str) -> tuple[str, str | None]:
    """``rebase (pick)`` -> (``rebase``, ``pick``); ``rebase`` -> (``rebase``, None)."""
    if action.endswith(")"):
        start = action.rfind(" (")
        if start > 0:
            return action[:start], action[start + 2:-1]
    return action, None


class Entry:
    """One reflog entry: the commit it names, the one before, when, and what it did."""

    __slots__ = ("kind", "new", "old", "replaces", "time")

    def __init__(self, old: str | None, new: str, time: int, kind: str,
                 replaces: bool = False) -> None:
        self.old = old
        self.new = new
        self.time = time
        self.kind = kind
        # an amend or a rewrite's copy: made in place of ``old``, which left HEAD's history
        self.replaces = replaces or kind == COPY


def split_line(line: bytes) -> tuple[str, str, int, bytes] | None:
    """``<old> <new> <name> <<mail>> <time> <zone>\\t<message>`` as (old, new, time,
    message), or None when it is not that shape. Byte slicing only: a 10,000-entry tail
    is read in milliseconds."""
    tab = line.find(b"\t")
    head = line if tab < 0 else line[:tab]
    first = head.find(b" ")
    second = head.find(b" ", first + 1)
    end = head.rfind(b" ")
    start = head.rfind(b" ", 0, end)
    if first < 0 or second < 0 or start <= second:
        return None
    stamp = head[start + 1:end]
    if not stamp.isdigit():
        return None
    return (head[:first].decode("ascii", "replace"),
            head[first + 1:second].decode("ascii", "replace"), int(stamp),
            b"" if tab < 0 else line[tab + 1:])


def parse_line(line: bytes) -> Entry | None:
    """One reflog line as an ``Entry``, or None when it is not one."""
    row = split_line(line)
    if row is None or not (files.is_sha(row[0]) and files.is_sha(row[1])):
        return None
    text = row[3].decode("utf-8", "replace")
    return Entry(row[0], row[1], row[2], classify(text), text.startswith("commit (amend): "))


def read_backwards(path: str, chunk: int = CHUNK) -> Iterable[bytes]:
    """The lines of ``path`` from the last to the first, read in chunks from the end (a
    reader that stops early reads only the file's tail). Missing file: nothing."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        end = os.fstat(fd).st_size
        rest = b""
        while end > 0:
            start = max(0, end - chunk)
            os.lseek(fd, start, os.SEEK_SET)
            block = os.read(fd, end - start) + rest
            end = start
            lines = block.split(b"\n")
            rest = lines[0] if start > 0 else b""
            first = 1 if start > 0 else 0
            for line in reversed(lines[first:]):
                if line:
                    yield line
        if rest:
            yield rest
    finally:
        os.close(fd)


# -- where the log is ---------------------------------------------------------------------------

def git_dir_of(top: str, fallback: str) -> str:
    """The git dir of the work tree at ``top`` (``.git`` itself, or where a linked work
    tree's ``.git`` file points), else ``fallback``. No process."""
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    data, _ = files.read_capped(dot, 1 << 12)
    text = (data or b"").decode("utf-8", "surrogateescape").strip()
    if text.startswith("gitdir: "):
        path = text[len("gitdir: "):]
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(top, path))
        if os.path.isdir(path):
            return path
    return fallback


def common_dir_of(git_dir: str) -> str:
    data, _ = files.read_capped(os.path.join(git_dir, "commondir"), 1 << 12)
    if not data:
        return git_dir
    return os.path.normpath(os.path.join(
        git_dir, data.decode("utf-8", "surrogateescape").strip()))


def uses_reftable(git_dir: str) -> bool:
    """The ``reftable`` ref backend (``extensions.refStorage = reftable``) keeps its
    tables in ``reftable/`` of the common git dir; ``files`` has no such folder."""
    return os.path.isdir(os.path.join(common_dir_of(git_dir), "reftable"))


# -- the ledger ---------------------------------------------------------------------------------

def ledger_path(top: str) -> str:
    return os.path.join(top, ".lets", "sessions", LEDGER)


def read_ledger(top: str | None) -> dict[str, str]:
    """new -> old from ``.lets/sessions/.rewritten`` (the newest line wins)."""
    if top is None:
        return {}
    data, _ = files.read_capped(ledger_path(top), LEDGER_LIMIT)
    found: dict[str, str] = {}
    for line in (data or b"").split(b"\n"):
        parts = line.split()
        if len(parts) == 2:
            new, old = parts[0].decode("ascii", "replace"), parts[1].decode("ascii", "replace")
            if files.is_sha(new) and files.is_sha(old):
                found[new] = old
    return found


def note_rewrite(top: str, pairs: Sequence[tuple[str, str]]) -> str | None:
    """Append a rewrite's ``(old, new)`` pairs to the ledger as ``<new> <old>`` lines,
    under ``.lets/locks/rewritten.lock``, keeping the newest ``LEDGER_KEEP`` lines.
    Never raises: returns why nothing was written, or None."""
    lines = [f"{new} {old}\n".encode() for old, new in pairs
             if files.is_sha(old) and files.is_sha(new) and old != new]
    return _append(top, LEDGER, lines)


CLAIMS = ".claimed"  # in .lets/sessions/: commits ``record --at`` vouched for


def read_claims(top: str) -> set[str]:
    """The commits ``lets-hooks record --at REV`` was told are this work tree's session's
    (made by a tool that writes no reflog entry of git's own: GitPython, pygit2)."""
    data, _ = files.read_capped(os.path.join(top, ".lets", "sessions", CLAIMS), LEDGER_LIMIT)
    return {word.decode("ascii", "replace") for word in (data or b"").split()
            if files.is_sha(word.decode("ascii", "replace"))}


def note_claimed(top: str, shas: Sequence[str]) -> str | None:
    """Keep the commits a person vouched for with ``record --at`` (the newest
    ``LEDGER_KEEP``). Never raises: returns why nothing was written, or None."""
    return _append(top, CLAIMS, [f"{sha}\n".encode() for sha in shas if files.is_sha(sha)])


def _append(top: str, name: str, lines: list[bytes]) -> str | None:
    """Append ``lines`` to ``.lets/sessions/<name>`` under the ledger's lock, keeping the
    newest ``LEDGER_KEEP``; only where session state exists (never creates ``.lets``)."""
    from lets_hooks import state

    if not lines:
        return None
    sessions = os.path.join(top, ".lets", "sessions")
    locks = os.path.join(top, ".lets", "locks")
    if not os.path.isdir(sessions) or os.path.islink(sessions):
        return "no session state in this work tree: nothing to note"
    try:
        if os.path.islink(locks):
            return f"{locks} is a symbolic link - {name} was not written"
        os.makedirs(locks, exist_ok=True)
        path = os.path.join(sessions, name)
        store = state.open_store(top)
        state.refuse_tracked(store, path)  # a state file that came with the repository
        with files.locked(os.path.join(locks, LEDGER_LOCK), shown=".lets/locks/" + LEDGER_LOCK):
            data, problem = files.read_capped(path, LEDGER_LIMIT)
            if problem is not None and data is None and os.path.lexists(path):
                return problem
            kept = (data or b"").splitlines(keepends=True)
            kept = [k if k.endswith(b"\n") else k + b"\n" for k in kept] + lines
            files.atomic_write(path, b"".join(kept[-LEDGER_KEEP:]),
                               shown=".lets/sessions/" + name)
        state.keep_out_of_commits(store)
    except (OSError, files.Refused, state.StateError) as exc:
        return str(exc)
    return None


# -- the verdict --------------------------------------------------------------------------------

class Verdict:
    """What the witness says of a range: each commit's status, where it came from."""

    __slots__ = ("candidates", "notes", "source", "status")

    def __init__(self, source: str) -> None:
        self.source = source  # "reflog", "reftable", or "none"
        self.status: dict[str, str] = {}  # range commit -> SESSION / ELSEWHERE / UNVOUCHED
        self.notes: list[str] = []
        # (commit, when) this work tree made since the session began that are not in the
        # range (and not replaced since): the ladder checks none is below the boundary
        self.candidates: list[tuple[str, int]] = []

    def of(self, sha: str) -> str:
        return self.status.get(sha, UNVOUCHED)


NO_LOG = ("no HEAD reflog in this work tree (core.logAllRefUpdates=false, or it was "
          "removed): which commits this session made cannot be checked")
EMPTY_LOG = ("the HEAD reflog of this work tree is empty: which commits this session made "
             "cannot be checked")


def not_head(newest: str, head: str) -> str:
    return (f"the HEAD reflog's newest entry ({newest[:12]}) is not HEAD ({head[:12]}): it is "
            "not a record of this work tree's commits")


def missing(git_dir: str, head: str) -> str | None:
    """Why the work tree at ``git_dir`` has no witness, or None when it has one: the same
    words the ladder's NOTE uses (doctor asks this; no git process). On reftable the log
    is in the ref store, read through git when the ladder needs it: None."""
    if uses_reftable(git_dir):
        return None
    path = os.path.join(git_dir, "logs", "HEAD")
    if not os.path.isfile(path):
        return NO_LOG
    for line in read_backwards(path):
        space = line.find(b" ")
        if space not in (40, 64):
            continue
        newest = line[space + 1:2 * space + 1].decode("ascii", "replace")
        return None if newest == head else not_head(newest, head)
    return EMPTY_LOG


def no_witness(why: str) -> Verdict:
    verdict = Verdict(NO_WITNESS)
    verdict.notes.append(why)
    return verdict


def judge(repo: Repo, git_dir: str, top: str | None, head: str, commits: Sequence[str],
          since: int | None, floor_time: int | None, until: int | None = None,
          sid: str | None = None, started: set[str] | None = None) -> Verdict:
    """Which of ``commits`` (the range, any order) this work tree made.

    ``git_dir`` is the git dir of the work tree whose state is read, ``head`` its HEAD;
    ``since`` the time the session began (its ``session-recorded`` time), when known:
    what was made before it is not the session's, and the reading ends there. Without it,
    ``floor_time``, the boundary commit's committer time: nothing above the boundary was
    made before it (less a day of clock slack). The commits made since the session began
    and up to ``until`` (when given) that are not in the range are the verdict's
    ``candidates``.
    """
    if since is not None:
        cutoff: int | None = since  # made before the session began: not the session's
    elif floor_time is not None:
        cutoff = floor_time - SLACK  # nothing above the boundary was made before it
    else:
        cutoff = None
    lines: Iterable[bytes]
    if uses_reftable(git_dir):
        source = REFTABLE
        lines = _reftable_lines(repo)
    else:
        source = REFLOG
        path = os.path.join(git_dir, "logs", "HEAD")
        if not os.path.isfile(path):
            return no_witness(NO_LOG)
        lines = read_backwards(path)
    quick = _at_once(path, head, commits, cutoff, top) \
        if source == REFLOG and since is None else None
    verdict = quick or _read(lines, source, head, set(commits), top, since, cutoff, until,
                             started or set())
    if source == REFLOG:
        _made_in_other_work_trees(verdict, git_dir, cutoff, sid)
    return verdict


WHOLE_LIMIT = 8 << 20  # a log read whole by ``_at_once`` (about 50,000 entries)
TAIL = 1 << 17  # the part of it read first (about 800 entries)


def _at_once(path: str, head: str, commits: Sequence[str], cutoff: int | None,
             top: str | None) -> Verdict | None:
    """The verdict from one read of the whole log, when it is plain, else None (then the
    log is read entry by entry, ``_read``). Only for a range with no session time to read
    back to (an estimate, a line without a recorded time), where reading backwards would
    otherwise go on until the oldest commit asked about, or through the whole log for a
    commit it never names (a clone's history).

    Plain means: each commit asked about was made by an entry of the log (no earlier than
    ``cutoff``), or no entry made or copied it (none names it, or they only moved HEAD to
    it), and then the log reaches back far enough to say it came from elsewhere (its
    oldest entry is older than ``cutoff``, or starts the history). A dictionary of the
    entries' new sides answers that in a few milliseconds for 10,000 entries; where the
    newest entry naming a commit only moved HEAD to it (a checkout back), the entries
    before it are searched."""
    if not commits:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > WHOLE_LIMIT:
            return None
        # the log's tail first: a session's own recent commits are answered there, as
        # cheaply as the reading backwards that stops once it found them
        start = max(0, size - TAIL)
        while True:
            os.lseek(fd, start, os.SEEK_SET)
            data = os.read(fd, size - start)
            if start > 0:
                data = data[data.find(b"\n") + 1:]  # from the first whole entry
            verdict = _plain(data, start == 0, head, commits, cutoff, top)
            if verdict is not None or start == 0:
                return verdict
            start = 0
    finally:
        os.close(fd)


def _plain(data: bytes, whole: bool, head: str, commits: Sequence[str], cutoff: int | None,
           top: str | None) -> Verdict | None:
    """``_at_once`` on ``data``: the whole log, or (not ``whole``) its tail, where only
    commits its entries made can be answered."""
    lines = data.split(b"\n")
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return None
    width = lines[-1].find(b" ")
    if width not in (40, 64) or lines[-1][width + 1:2 * width + 1] != head.encode("ascii"):
        return None  # not HEAD's record: the long way says why
    newest = {line[width + 1:2 * width + 1]: line for line in lines}
    status: dict[str, str] = {}
    absent: list[str] = []
    for sha in commits:
        key = sha.encode("ascii", "replace")
        line = newest.get(key)
        kind = MOVED if line is None else _kind(line, width, cutoff)
        edge = len(data) if line is not None else -1
        while kind == MOVED and edge >= 0:  # a move to it (a checkout back): look further back
            at = data.rfind(b" " + key + b" ", 0, edge)
            if at < 0:
                break  # no entry made it: as if the log never named it
            begin = at - width
            edge = at
            if begin < 0 or (begin > 0 and data[begin - 1] != 0x0A):
                continue  # not the new side of an entry: a name or a message
            stop = data.find(b"\n", at)
            kind = _kind(data[begin:stop if stop >= 0 else len(data)], width, cutoff)
        if kind == CREATED:
            status[sha] = SESSION
        elif kind == MOVED and whole:
            absent.append(sha)
        else:
            return None  # a copy (the ledger decides), or an entry older than the cutoff
    if absent:
        oldest = next((split_line(line) for line in lines if line.find(b" ") == width), None)
        if oldest is None:
            return None
        reaches = (cutoff is not None and oldest[2] < cutoff) or oldest[0].strip("0") == ""
        if not reaches:
            return None  # cut short (expired), or a clock that went back: the long way
        claimed = read_claims(top) if top is not None else set()
        for sha in absent:
            status[sha] = SESSION if sha in claimed else ELSEWHERE
    verdict = Verdict(REFLOG)
    verdict.status = {sha: status[sha] for sha in commits}
    return verdict


def _kind(line: bytes, width: int, cutoff: int | None) -> str | None:
    """What this entry did to the commit it names (None: older than ``cutoff``, or not an
    entry)."""
    row = split_line(line)
    if row is None or line.find(b" ") != width or (cutoff is not None and row[2] < cutoff):
        return None
    if row[3].startswith(b"commit: "):
        return CREATED
    return classify(row[3].decode("utf-8", "replace"))


def _made_in_other_work_trees(verdict: Verdict, git_dir: str, cutoff: int | None,
                              sid: str | None) -> None:
    """A commit of the range this work tree's log does not name, made (since ``cutoff``)
    in another work tree of the repository: this session's when it was current there
    (that work tree holds a line of this session's id, recorded before the commit: the
    session moved between work trees); otherwise counted and not vouched for, never said
    to be from elsewhere. Read only when the range holds such commits."""
    absent = {sha for sha, status in verdict.status.items() if status == ELSEWHERE}
    if not absent:
        return
    common = common_dir_of(git_dir)
    logs = [os.path.join(common, "logs", "HEAD")]
    import contextlib

    with contextlib.suppress(OSError):
        logs += [os.path.join(common, "worktrees", name, "logs", "HEAD")
                 for name in sorted(os.listdir(os.path.join(common, "worktrees")))]
    own = os.path.realpath(os.path.join(git_dir, "logs", "HEAD"))
    found: set[str] = set()
    for log in logs:
        if os.path.realpath(log) == own or not os.path.isfile(log):
            continue
        began = _session_began_in(log, common, sid)
        for line in read_backwards(log):
            row = split_line(line)
            if row is None:
                continue
            if cutoff is not None and row[2] < cutoff:
                break
            if row[1] in absent and classify(row[3].decode("utf-8", "replace")) != MOVED:
                if began is not None and row[2] >= began:
                    verdict.status[row[1]] = SESSION
                else:
                    found.add(row[1])
    found = {sha for sha in found if verdict.status[sha] != SESSION}
    for sha in found:
        verdict.status[sha] = UNVOUCHED
    if found:
        verdict.notes.append(f"{len(found)} commits of the range were made in another work "
                             "tree of this repository: they are counted, but not vouched for "
                             "as this session's")


def _reftable_lines(repo: Repo) -> Iterable[bytes]:
    """``git log -g``'s answer in the files backend's line shape, newest first (the old
    side of each entry is the next one's new side)."""
    rows = repo.reflog_entries("HEAD", REFTABLE_LIMIT)
    for i, (new, time, message) in enumerate(rows):
        old = rows[i + 1][0] if i + 1 < len(rows) else _NULL
        yield f"{old} {new} - <> {time} +0000\t{message}".encode("utf-8", "surrogateescape")


def _read(lines: Iterable[bytes], source: str, head: str, wanted: set[str],
          top: str | None, since: int | None, cutoff: int | None,
          until: int | None, started: set[str]) -> Verdict:
    """Read entries newest first. Most lines are only sliced (their new side looked up,
    their time read when a cutoff needs it); only those about a commit still asked about,
    or made where a too-high boundary could hide, are parsed and classified."""
    verdict = Verdict(source)
    created: set[str] = set()
    copied: set[str] = set()
    after: list[tuple[str, int]] = []  # made here since the session began, newest first
    replaced: set[str] = set()  # commits an amend or a rewrite replaced since
    ledger: dict[str, str] | None = None
    asked = wanted
    open_ = set(wanted)  # range (and copied-from) commits not yet settled
    timed = cutoff is not None or since is not None
    first = True
    complete = False
    oldest = b""  # the oldest line read
    rebases = inside = 0  # the rebases met so far; the one being read (0: none)
    sequencer = False  # the rebase being read is the sequencer's (``(start)`` … ``(finish)``)
    at_stop: dict[str, int] = {}  # ``rebase: <subject>`` entries it did not list -> rebase
    # commits made in the very second the session began: after its start only when they
    # come after the first entry of that second that put HEAD where the session's line
    # says it began (the log's order; no such entry in that second: not known, left out)
    pending: list[tuple[str, int]] = []
    cut: int | None = None
    made_by: dict[int, set[str]] = {}  # rebase -> every commit its entries name
    rebase_of: dict[str, int] = {}  # a copy -> the rebase that made it
    listed_after: str | None = None  # the nearest later commit of this rebase git listed
    stand_in: dict[str, str] = {}  # an unlisted copy -> what that later listed one copies
    for line in lines:
        space = line.find(b" ")
        if space not in (40, 64):
            continue
        new = line[space + 1:2 * space + 1].decode("ascii", "replace")
        if first:
            first = False
            if new != head:
                return no_witness(not_head(new, head))
        tab = line.find(b"\t")
        when = 0
        if timed:  # the time: the second-to-last field before the tab
            end = line.rfind(b" ", 0, tab if tab >= 0 else len(line))
            stamp = line[line.rfind(b" ", 0, end) + 1:end]
            if not stamp.isdigit():
                continue
            when = int(stamp)
        if cutoff is not None and when < cutoff:
            complete = True
            break
        if started and when == since and new in started:
            cut = len(pending)  # read backwards: the last one seen is the first made
        if not open_ and since is None:
            complete = True
            break
        oldest = line
        if tab >= 0 and line.startswith((b"rebase", b"pull"), tab + 1):
            action = line[tab + 1:].split(b": ", 1)[0]
            if action.endswith(b"(finish)") or action == b"rebase finished":
                rebases += 1  # read backwards: a rebase's end comes first
                inside = rebases
                sequencer = action.endswith(b"(finish)")
                made_by[inside] = set()
                listed_after = None
                if ledger is None:
                    ledger = read_ledger(top)
            elif inside and action.endswith(b"(start)"):
                made_by[inside].add(new)
                inside = 0
            else:
                # ``rebase: <subject>`` inside the sequencer's rebase names no pick: before
                # git 2.39 a ``git commit`` run by an exec step logged the rebase's action.
                # One the rebase did not list as a rewrite (the ledger) was made there; a
                # listed one is a copy, for the ledger; ``rebase: fast-forward`` (a pick
                # git kept as it was) moved HEAD. (The apply backend's picks log the same
                # words, but its rebase ends with ``rebase finished``.)
                if inside and sequencer and not action.endswith(b")") and \
                        (ledger is None or new not in ledger) and classify(
                            line[tab + 1:].decode("utf-8", "replace")) == COPY:
                    at_stop[new] = inside  # decided once the whole rebase is read
        if inside:
            made_by[inside].add(new)
            if ledger is not None and new in ledger:
                listed_after = new
        window = since is not None and when >= since and (until is None or when <= until)
        if new not in open_ and not window:
            # still known as made here: a copy git did not list is judged by what its
            # rebase rewrote, asked about only at the end
            if line.startswith(b"commit: ", tab + 1) or (
                    line.startswith(_MAKERS, tab + 1)
                    and classify(line[tab + 1:].decode("utf-8", "replace")) == CREATED):
                created.add(new)
            continue
        message = line[tab + 1:] if tab >= 0 else b""
        if message.startswith(b"commit: "):  # by far the most common: no decoding
            kind, amend = CREATED, False
        else:
            text = message.decode("utf-8", "replace")
            kind, amend = classify(text), text.startswith("commit (amend): ")
        if kind == CREATED:
            created.add(new)
            open_.discard(new)
            if window and new not in asked and new not in replaced:
                if (since is not None and when > since) or not started:
                    after.append((new, when))
                else:
                    pending.append((new, when))
        elif kind == COPY:
            copied.add(new)
            if inside:
                rebase_of[new] = inside
                if ledger is not None and new not in ledger and listed_after is not None:
                    # an edit stop's copy: git listed what it copies as rewritten into
                    # whatever came next (the commit made at the stop, or the stop's end)
                    stand_in[new] = ledger[listed_after]
            if new in open_:
                if ledger is None:
                    ledger = read_ledger(top)
                origin = ledger.get(new)
                if origin is not None and origin != new:
                    open_.discard(new)
                    if origin not in created:
                        open_.add(origin)
        if kind == COPY or amend:
            # an amend or a copy replaced what it came from
            replaced.add(line[:space].decode("ascii", "replace"))
    else:
        if first:
            return no_witness(EMPTY_LOG)
        complete = not oldest or oldest[:oldest.find(b" ")].strip(b"0") == b""
    for sha, rebase in at_stop.items():
        # made at a stop only when the hooks saw that rebase (git listed some of its
        # commits in the ledger): a rebase they missed lists nothing, and an unlisted
        # entry there may be any copy (counted, not vouched for)
        if ledger and sha not in ledger and any(n in ledger for n in made_by[rebase]):
            created.add(sha)
    if cut is not None:  # without a marker in that second, a doubt: not counted against
        after.extend(pending[:cut])
    if ledger is None and copied & asked:
        ledger = read_ledger(top)
    plain = ELSEWHERE if complete else UNVOUCHED  # neither made nor copied here
    if top is not None and any(sha not in created for sha in asked):
        # A commit a person vouched for with ``record --at`` (made by a tool git's log
        # does not see) is the session's: read only when the log leaves one unexplained.
        created |= read_claims(top) & asked
    marks = ledger or {}
    verdict.status = {
        sha: SESSION if sha in created else
        _status(sha, created, copied, marks, complete, 0) if sha in copied else plain
        for sha in wanted}
    for sha, status in verdict.status.items():
        if status == UNVOUCHED and sha in rebase_of and sha not in marks:
            # A copy git did not list (an edit stop's: git lists the stopped commit as
            # rewritten into whatever HEAD is when the rebase goes on): it is a state of
            # what that rebase rewrote, the session's when everything it rewrote was.
            if sha in stand_in:
                if _status(stand_in[sha], created, copied, marks, complete, 0) == SESSION:
                    verdict.status[sha] = SESSION
                continue
            olds = [marks[n] for n in made_by[rebase_of[sha]] if n in marks]
            if olds and all(_status(o, created, copied, marks, complete, 0) == SESSION
                            for o in olds):
                verdict.status[sha] = SESSION
    verdict.candidates = after
    if not complete and any(s == UNVOUCHED for s in verdict.status.values()):
        verdict.notes.append("the HEAD reflog does not reach back to the session's start "
                             "(expired or cut short): older commits cannot be vouched for")
    return verdict


def _session_began_in(log: str, common: str, sid: str | None) -> int | None:
    """When the session ``sid`` was first recorded in the work tree whose HEAD log is
    ``log`` (its task files' ``session-recorded`` times), or None."""
    if not sid:
        return None
    folder = os.path.dirname(os.path.dirname(log))
    if os.path.realpath(folder) == os.path.realpath(common):
        top = os.path.dirname(common) if os.path.basename(common) == ".git" else None
    else:
        data, _ = files.read_capped(os.path.join(folder, "gitdir"), 1 << 12)
        pointer = (data or b"").decode("utf-8", "surrogateescape").strip()
        top = os.path.dirname(pointer) if pointer else None
    if top is None:
        return None
    from lets_hooks import state

    sessions = os.path.join(top, ".lets", "sessions")
    try:
        names = os.listdir(sessions)
    except OSError:
        return None
    earliest: int | None = None
    for name in names:
        if not name.startswith(".task-") or name.endswith(".tmp"):
            continue
        data, _ = state.read_head(os.path.join(sessions, name))
        if not data or sid.encode("utf-8", "surrogateescape") not in data:
            continue
        line = state.parse(data, name)
        stamp = state.parse_stamp(line.recorded_at) if line.recorded_at else None
        if line.sid == sid and stamp is not None and (earliest is None or stamp < earliest):
            earliest = stamp
    return earliest


def _status(sha: str, created: set[str], copied: set[str], ledger: dict[str, str],
            complete: bool, depth: int) -> str:
    if sha in created:
        return SESSION
    if sha in copied:
        old = ledger.get(sha)
        if old is None:
            return UNVOUCHED  # a rewrite the hooks did not see
        if old == sha or depth > 64:
            return ELSEWHERE if complete else UNVOUCHED
        return _status(old, created, copied, ledger, complete, depth + 1)
    return ELSEWHERE if complete else UNVOUCHED
