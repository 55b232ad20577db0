"""git's reflogs, read in one place: a ref's log (HEAD's, a branch's, a remote-tracking
ref's) from its file on the ``files`` backend (``lets_hooks.gitfiles`` says where), or
from ``git log -g`` on ``reftable``; and what an entry's message says (``classify`` and
the readers below it), the one code that reads git's reflog messages. Where a commit
came from is read from them, never who made it: that is the session ledger's
(``lets_hooks.witness``).
"""

from __future__ import annotations

import os
import stat

from lets_hooks import files, gitfiles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from lets_hooks.repo import Repo

CREATED = "created"  # the entry made the commit it names
COPY = "copy"  # a rewrite made it as a copy of another commit
MOVED = "moved"  # HEAD moved to a commit that already existed
ARRIVED = "arrived"  # HEAD moved to a commit that came from elsewhere (pull, clone, ff)


WHOLE_LIMIT = 8 << 20  # the most of a HEAD log read (its newest part)
SEARCHED = 32  # up to this many commits are searched for in a log's bytes, not parsed out
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
_RANK = {MOVED: 0, ARRIVED: 1, COPY: 2, CREATED: 3}  # what an entry says most of a commit


def classify(message: str) -> str:
    """What a reflog entry's message says the entry did to the commit it names.

    The strings are git's own (builtin/commit.c, merge.c, am.c, pull.c, rebase.c,
    sequencer.c, checkout.c, reset.c, clone.c, 2.25 to today): ``<action>: <detail>``.
    """
    action, sep, detail = message.partition(": ")
    if message and message.split(" ", 1)[0].rstrip(":") not in _GIT_WORDS:
        # Not a message git writes: a tool moved HEAD (GitPython and pygit2 log the commit
        # message alone). What it did cannot be read: as made here, by no known session.
        return COPY
    if action.startswith("clone"):
        return ARRIVED
    if not sep:
        return MOVED
    if action == "commit (rebase)":
        return COPY
    if detail.startswith(("Fast-forward", "fast-forward")):
        return ARRIVED if action.startswith(("pull", "merge", "cherry-pick", "fetch")) \
            else MOVED
    if action in _CREATING:
        return CREATED
    if detail.startswith("Merge made by"):
        return CREATED  # merge X / pull: the merge commit itself
    base, sub = action, None  # "rebase (pick)": "rebase", "pick"
    start = action.rfind(" (")
    if action.endswith(")") and start > 0:
        base, sub = action[:start], action[start + 2:-1]
    if base.startswith(("rebase", "pull")):
        if sub is not None:
            return COPY if sub in _COPYING else MOVED
        if detail.startswith(("checkout ", "returning to ")) or base == "rebase finished":
            return MOVED
        return COPY  # an old git's apply-backend pick, or an exec step's commit
    return MOVED


# What ``git commit`` itself writes (not a rebase's own step): inside a rebase, a commit
# typed at a stop (or by an exec step) is one of these; the post-commit shim's shell asks
# the same prefixes (``install._NOTE``)
TYPED = ("commit: ", "commit (amend): ", "commit (merge): ", "commit (initial): ")


def made_by_reset(message: str) -> bool:
    """Was this HEAD log entry written by ``git reset`` (builtin/reset.c's words; the
    post-commit shim matches the same ones)?"""
    return message.startswith("reset: moving to ")


def typed_commit(message: str) -> bool:
    """Was this HEAD log entry written by ``git commit`` itself (``TYPED``)?"""
    return message.startswith(TYPED)


def classify_remote(message: str) -> str:
    """What a remote-tracking ref's log entry says of the commit it names: ``ARRIVED``
    when a fetch wrote it (git's ``fetch ...: <detail>``, a pull's ``pull ...: <detail>``,
    ``clone: from ...``), else ``MOVED`` (a push's ``update by push``, a tool's entry)."""
    first = message.partition(": ")[0].split(" ", 1)[0]
    return ARRIVED if first in ("fetch", "pull", "clone") else MOVED


# -- what an entry names besides its commit (a branch it moved from or to, a rename) ----------

_MOVING = "checkout: moving from "
_MAKING = ("commit", "cherry-pick", "revert", "merge ", "rebase", "am:", "am ")
_CREATED_FROM = ("branch: created from ", "branch: reset to ")
_RENAMED = "branch: renamed "


def moved(message: str) -> tuple[str | None, str | None]:
    """(X, Y) of ``checkout: moving from X to Y``; (None, None) for any other entry."""
    source, _, target = message[len(_MOVING):].partition(" to ")
    if message.startswith(_MOVING) and source and target:
        return source, target
    return None, None


def makes_commit(message: str) -> bool:
    """Does the entry record a commit being made (or replayed), rather than HEAD moved?"""
    return message.startswith(_MAKING)


def created_from(message: str) -> str | None:
    """The start point of ``branch: Created from X`` (``checkout -B``: ``Reset to X``)."""
    lower = message.lower()
    return next((message[len(p):].strip() for p in _CREATED_FROM if lower.startswith(p)), None)


def renamed(message: str) -> tuple[str, str] | None:
    """(old, new) branch names of ``Branch: renamed refs/heads/old to refs/heads/new``."""
    if not message.lower().startswith(_RENAMED + "refs/heads/"):
        return None
    old, sep, new = message[len(_RENAMED):].partition(" to ")
    prefix = "refs/heads/"
    if not sep or not old.startswith(prefix) or not new.startswith(prefix):
        return None
    return old[len(prefix):], new[len(prefix):]


def starts_rebase(message: str) -> bool:
    """The entry a rebase starts with (its checkout of ``onto``)."""
    return message.startswith(("rebase (start)", "rebase: checkout"))


def branch_after(message: str) -> str | None:
    """The branch HEAD was on after the entry, when the entry says it (a checkout, a
    finished rebase)."""
    target = moved(message)[1]
    if target is not None:
        return target
    marker = "returning to refs/heads/"
    if "(finish)" in message and marker in message:
        return message.partition(marker)[2]
    return None


def amends(message: str) -> bool:
    return message.startswith("commit (amend)")


def split_line(line: bytes) -> tuple[str, bytes] | None:
    """``<old> <new> <name> <<mail>> <time> <zone>\\t<message>`` as (new, message), or None
    when it is not that shape."""
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
    return head[first + 1:second].decode("ascii", "replace"), b"" if tab < 0 else line[tab + 1:]


# -- the verdict --------------------------------------------------------------------------------

NO_LOG = ("no HEAD reflog in this work tree (core.logAllRefUpdates=false, or it was "
          "removed): where commits the session ledger does not name came from cannot be told")
EMPTY_LOG = ("the HEAD reflog of this work tree is empty: where commits the session ledger "
             "does not name came from cannot be told")


def head_log(repo: Repo | None, git_dir: str, head: str,
             wanted: Collection[str] | None = None) -> tuple[dict[str, str], bool, str | None]:
    """The one reading of a work tree's HEAD log: each commit it names with the most an
    entry says of it (made here, a copy, brought in, or only moved to), whether the log
    reaches back to the start of the history, and why it cannot be read (None: it can).
    On the files backend the log's newest ``WHOLE_LIMIT`` bytes are read, no process; on
    reftable one ``git log -g`` (``repo`` None: not asked, nothing known). ``wanted``:
    only these commits are asked about (``lines_naming``), and only entries naming one
    of them are told apart (the rest are not in the answer)."""
    lines: Iterable[bytes]
    if gitfiles.uses_reftable(git_dir):
        if repo is None:
            return {}, False, None
        rows = repo.reflog_entries(("HEAD",), REFTABLE_LIMIT) or []  # newest first
        # in the files backend's line shape: an entry's old side is the next one's new side
        olds = [*(new for new, _, _ in rows[1:]), _NULL]
        lines = [f"{old} {new} - <> {time} +0000\t{message}".encode("utf-8", "surrogateescape")
                 for old, (new, time, message) in zip(olds, rows)]
        whole = len(lines) < REFTABLE_LIMIT
        newest, oldest = ends(lines[::-1], lines)
        held, told_once = None, False
    else:
        held = _read_log(gitfiles.log_path(git_dir, "HEAD"))
        if held is None:
            return {}, False, NO_LOG
        data, whole = held.data, held.whole
        newest, oldest = ends(forward(data), backward(data))
        # asked again, for more commits in all than a search is worth: told once, whole
        held.searched += SEARCHED + 1 if wanted is None else len(wanted)
        told_once = held.asks > 1 and held.searched > SEARCHED
        lines = () if told_once else lines_naming(data, wanted)
    if newest is None:
        return {}, False, EMPTY_LOG
    if newest != head:
        return {}, False, (f"the HEAD reflog's newest entry ({newest[:12]}) is not HEAD "
                           f"({head[:12]}): it is not a record of this work tree's commits")
    asked = None if wanted is None else wanted if isinstance(wanted, (set, frozenset)) \
        else set(wanted)
    complete = whole and oldest[:oldest.find(b" ")].strip(b"0") == b""
    if held is not None and told_once:
        if held.every is None:
            held.every = _told(data.split(b"\n"), None)
        every = held.every
        if asked is None:
            return dict(every), complete, None
        if len(asked) < len(every):
            return {sha: every[sha] for sha in asked if sha in every}, complete, None
        return {sha: kind for sha, kind in every.items() if sha in asked}, complete, None
    return _told(lines, asked), complete, None


def _told(lines: Iterable[bytes], asked: Collection[str] | None) -> dict[str, str]:
    """Each commit the entries of ``lines`` move HEAD to (of ``asked``, when given), with
    the most an entry says of it."""
    kinds: dict[str, str] = {}
    for line in lines:
        space = line.find(b" ")
        if space not in (40, 64):
            continue
        new = line[space + 1:2 * space + 1].decode("ascii", "replace")
        if asked is not None and new not in asked:
            continue
        tab = line.find(b"\t")
        message = line[tab + 1:] if tab >= 0 else b""
        kind = CREATED if message.startswith(b"commit: ") else \
            classify(message.decode("utf-8", "replace"))
        if new not in kinds or _RANK[kind] > _RANK[kinds[new]]:
            kinds[new] = kind
    return kinds


class _Log:
    """A HEAD log as this process read it: its bytes, whether they are the whole log, how
    often and for how many commits in all it was asked about, and (once that is more than
    ``SEARCHED``, and asked again) what it says of every commit."""

    __slots__ = ("asks", "data", "every", "key", "searched", "whole")

    def __init__(self, key: tuple[object, ...] | None, data: bytes, whole: bool) -> None:
        self.key = key
        self.data = data
        self.whole = whole
        self.asks = 1
        self.searched = 0
        self.every: dict[str, str] | None = None


_last_log: _Log | None = None


def _read_log(path: str) -> _Log | None:
    """``read_newest``'s answer, kept for the process while ``files.settled_key`` holds:
    ``status`` and pre-push ask about each branch's commits, and the log is then told once
    for every commit instead of searched again (``benchmarks/bench_hooks.py``, status)."""
    global _last_log
    key = files.settled_key(path)
    if key is not None and _last_log is not None and _last_log.key == key:
        _last_log.asks += 1
        return _last_log
    data, whole = read_newest(path)
    if data is None:
        return None
    held = _Log(key, data, whole)
    if key is not None:
        _last_log = held
    return held


def ends(oldest_first: Iterable[bytes], newest_first: Iterable[bytes]
          ) -> tuple[str | None, bytes]:
    """The commit the newest entry names and the oldest entry (lines of either hash's
    shape), from the same lines read from each end: None and b"" for an empty log."""
    oldest = next((line for line in oldest_first if line.find(b" ") in (40, 64)), b"")
    if not oldest:
        return None, b""
    newest = next(line for line in newest_first if line.find(b" ") in (40, 64))
    space = newest.find(b" ")
    return newest[space + 1:2 * space + 1].decode("ascii", "replace"), oldest


def forward(data: bytes) -> Iterable[bytes]:
    """The lines of ``data``, oldest (first) first, read one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        yield data[start:end]
        start = end + 1


def backward(data: bytes) -> Iterable[bytes]:
    """The lines of ``data``, newest (last) first, read one at a time."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        yield data[start:end]
        end = start - 1


def lines_naming(data: bytes, wanted: Collection[str] | None) -> list[bytes]:
    """The lines of a log to read for ``wanted`` (None: every line): for a few commits
    (``SEARCHED``), only those whose entry names one of them as the commit it moved to,
    found by searching the bytes for each (a 100,000-entry log is not split for two
    pulled commits: ``benchmarks/bench_boundary.py``, pulled); else every line."""
    if wanted is None or len(wanted) > SEARCHED:
        return data.split(b"\n")
    found: list[bytes] = []
    for sha in wanted:
        needle = sha.encode("ascii", "replace")
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            if at - start == len(needle) + 1 and data[at - 1:at] == b" ":
                end = data.find(b"\n", at)
                found.append(data[start:end if end >= 0 else len(data)])
            at = data.find(needle, at + 1)
    return found


def read_newest(path: str) -> tuple[bytes | None, bool]:
    """The newest ``WHOLE_LIMIT`` bytes of the log at ``path``, from its first whole
    line, and whether that is the whole log (None: no such file)."""
    try:  # as every reader of git's files: never through a link, never waiting on a FIFO
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None, False
    with open(fd, "rb") as log:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, False
        start = max(0, info.st_size - WHOLE_LIMIT)
        log.seek(start)
        data = log.read(info.st_size - start)
    if start > 0:
        data = data[data.find(b"\n") + 1:]
    return data, start == 0


def tail(path: str, count: int) -> list[tuple[str, str]]:
    """The newest ``count`` entries of a ``files``-backend reflog as (commit, message),
    newest first (``read_newest``); a line not of an entry's shape is skipped."""
    data, _ = read_newest(path)
    entries: list[tuple[str, str]] = []
    for line in backward(data or b""):
        row = split_line(line)
        if row is not None and files.is_sha(row[0]):
            entries.append((row[0], row[1].decode("utf-8", "surrogateescape")))
            if len(entries) >= count:
                break
    return entries
