"""The witness: which commits of a range this session made (see docs/witness.md).

The proof is the session ledger (``lets_hooks.ledger``): the hooks that see each commit
being made write down which session made it, and the rewrite pairs of post-rewrite say
what each copy copies. A commit of the range is this session's exactly when the ledger
names this session for it (or for what it copies, replayed as it was); another session's
or no session's is not; one that holds this session's work and another's (an amend,
squash or reword of someone else's commit) is *mixed*: counted, never exact.

What the ledger does not know is told apart by git's own records, which say where a
commit came from, never who made it, and only on positive evidence: brought in by a pull,
a fetch and fast-forward or a clone (HEAD's reflog; or moved to, where a remote-tracking
ref's log shows it fetched), or never named by a complete log, it came from elsewhere (not
counted); shown made here, or not known (before the hooks were installed, by plumbing, by
a tool git's hooks do not see), it is counted and not vouched for. That a remote-tracking
ref reaches a commit says nothing: pushing puts the session's own commits there. No time
decides anything: where order matters it is the order of the ledger or the log.
"""

from __future__ import annotations

import os

from lets_hooks import files, gitfiles, ledger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Container, Iterable, Sequence

    from lets_hooks.repo import Repo

CREATED = "created"  # the entry made the commit it names
COPY = "copy"  # a rewrite made it as a copy of another commit
MOVED = "moved"  # HEAD moved to a commit that already existed
ARRIVED = "arrived"  # HEAD moved to a commit that came from elsewhere (pull, clone, ff)

SESSION = "session"
ELSEWHERE = "elsewhere"
UNVOUCHED = "unvouched"
MIXED = "mixed"

LEDGER = "ledger"
REFLOG = "reflog"
REFTABLE = "reftable"
NO_WITNESS = "none"

CHUNK = 1 << 16
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
    Only "where did it come from" is read from them; who made a commit is the ledger's.
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
    base, sub = _split_sub(action)
    if base.startswith(("rebase", "pull")):
        if sub is not None:
            return COPY if sub in _COPYING else MOVED
        if detail.startswith(("checkout ", "returning to ")) or base == "rebase finished":
            return MOVED
        return COPY  # an old git's apply-backend pick, or an exec step's commit
    return MOVED


def classify_remote(message: str) -> str:
    """What a remote-tracking ref's log entry says of the commit it names: ``ARRIVED``
    when a fetch wrote it (git's ``fetch ...: <detail>``, a pull's ``pull ...: <detail>``,
    ``clone: from ...``), else ``MOVED`` (a push's ``update by push``, a tool's entry)."""
    action = message.partition(": ")[0]
    first = action.split(" ", 1)[0]
    return ARRIVED if first in ("fetch", "pull", "clone") else MOVED


def _split_sub(action: str) -> tuple[str, str | None]:
    """``rebase (pick)`` -> (``rebase``, ``pick``); ``rebase`` -> (``rebase``, None)."""
    if action.endswith(")"):
        start = action.rfind(" (")
        if start > 0:
            return action[:start], action[start + 2:-1]
    return action, None


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


# -- where the log is ---------------------------------------------------------------------------

# -- the verdict --------------------------------------------------------------------------------

class Verdict:
    """What the witness says of a range: each commit's status, and the session's own
    commits that are not in it (where a boundary must not be above)."""

    __slots__ = ("book", "candidates", "changed", "complete", "copied", "fetched", "logged",
                 "made_elsewhere", "mixed", "notes", "order", "problem", "sid", "source",
                 "status")

    def __init__(self, source: str) -> None:
        self.source = source  # "ledger", "reflog", "reftable", or "none"
        self.status: dict[str, str] = {}  # commit -> SESSION / ELSEWHERE / UNVOUCHED / MIXED
        self.notes: list[str] = []
        # the evidence each status rests on, for ``evidence`` (``--json``'s per-commit why)
        self.book: ledger.Ledger | None = None  # the ledger's lines read for this range
        self.sid: str | None = None  # the session judged for (None: any made here)
        self.logged: dict[str, str] = {}  # commit -> what HEAD's log says most of it
        self.complete = False  # HEAD's log reaches back to the start of the history
        self.problem: str | None = None  # why HEAD's log could not be read
        self.fetched: set[str] = set()  # moved to here; a remote-tracking log shows fetched
        self.made_elsewhere: set[str] = set()  # another work tree's log shows them made
        self.copied: dict[str, str] = {}  # a plain copy the ledger names -> its original
        self.candidates: list[str] = []  # this session's commits, newest first
        self.changed: set[str] = set()  # the candidates that are mixed (another's, changed)
        self.mixed: list[str] = []  # the range's mixed commits, in the range's order
        # the range whose order ``status`` was built in (``_given``): while it holds a
        # status for each of its commits and no other, its values are theirs, in order
        self.order: Sequence[str] | None = None

    def of(self, sha: str) -> str:
        return self.status.get(sha, UNVOUCHED)

    def evidence(self, sha: str) -> str:
        """What ``sha``'s status rests on, in words: the ledger's line of a session (or of
        none), the HEAD log's entry that made it or brought it in, a complete log that
        never names it, or that nothing was found."""
        book = self.book
        if book is not None:
            said = _ledger_evidence(book, sha, self.sid)
            if said is not None:
                return said
        original = self.copied.get(sha)
        if original is not None:
            return (f"a plain copy (session ledger) of {original[:12]}, which "
                    + self._log_evidence(original))
        return self._log_evidence(sha)

    def _log_evidence(self, sha: str) -> str:
        if self.problem is not None:
            return f"no ledger line; {self.problem}"
        kind = self.logged.get(sha)
        if kind in (CREATED, COPY):
            return "no ledger line; HEAD's log shows it made in this work tree"
        if kind == ARRIVED:
            return "no ledger line; HEAD's log shows it brought in (clone, pull, fast-forward)"
        if kind == MOVED:
            if sha in self.fetched:
                return ("no ledger line; HEAD moved to it, and a remote-tracking ref's log "
                        "shows it fetched")
            return "no ledger line; HEAD's log shows HEAD only moved to it"
        if sha in self.made_elsewhere:
            return "no ledger line; another work tree's HEAD log shows it made there"
        if self.source in (REFLOG, REFTABLE):
            if self.complete:
                return "no ledger line; never named by HEAD's log, which is complete"
            return "no ledger line; HEAD's log does not reach back to it"
        return "no ledger line, and where it came from was not asked"

    def kinds(self, commits: Sequence[str]) -> list[str | None]:
        """The status of each of ``commits``, in their order (None: no status)."""
        status = self.status
        if self.order is commits and len(status) == len(commits):
            # built in this range's order with one key each (``_given``): the values
            # are the range's statuses as they stand, without a lookup each
            return list(status.values())
        return list(map(status.get, commits))


def _ledger_evidence(book: ledger.Ledger, sha: str, sid: str | None) -> str | None:
    """The ledger's lines about ``sha`` in words, or None when none names it."""
    def who(name: str) -> str:
        if name == ledger.NO_SESSION:
            return "no session (no id was set)"
        return ("this session" if sid is not None and name == sid
                else "session " + files.show(name))

    pairs = book.copies.get(sha)
    if pairs:
        olds = ", ".join(f"{old[:12]} ({'changed' if changed else 'replayed as it was'} "
                         f"by {who(by)})" for old, by, changed in pairs)
        return f"session ledger: a copy of {olds}"
    makers = book.made.get(sha)
    if makers:
        return "session ledger: made by " + " and ".join(sorted(map(who, makers)))
    if sha in book.amended:
        return ("session ledger: an amend by " + " and ".join(sorted(map(who, book.amended[sha])))
                + ", whose rewrite line was never written")
    claimed = book.claims.get(sha)
    if claimed:
        return ("session ledger: claimed by `lets-hooks record --at` for "
                + " and ".join(sorted(map(who, claimed))))
    return None


NO_LOG = ("no HEAD reflog in this work tree (core.logAllRefUpdates=false, or it was "
          "removed): where commits the session ledger does not name came from cannot be told")
EMPTY_LOG = ("the HEAD reflog of this work tree is empty: where commits the session ledger "
             "does not name came from cannot be told")
NO_LEDGER = ("no session ledger in this repository yet (the post-commit hook is not "
             "installed, or has not run): which session made each commit is not known")


def not_head(newest: str, head: str) -> str:
    return (f"the HEAD reflog's newest entry ({newest[:12]}) is not HEAD ({head[:12]}): it is "
            "not a record of this work tree's commits")


def missing(git_dir: str, head: str) -> str | None:
    """Why the work tree at ``git_dir`` has no HEAD log to tell where commits came from,
    or None when it has one: the words the ladder's NOTE uses (doctor asks; no git
    process). On reftable the log is in the ref store: None."""
    return head_log(None, git_dir, head, ())[2]


def no_witness(why: str) -> Verdict:
    verdict = Verdict(NO_WITNESS)
    verdict.notes.append(why)
    return verdict


def judge(repo: Repo, git_dir: str, head: str, commits: Sequence[str], sid: str | None,
          floor: str | None = None, top: str | None = None,
          relevant: Container[str] | None = None) -> Verdict:
    """Which of ``commits`` (the range, any order) session ``sid`` made.

    ``git_dir`` is the git dir of the work tree whose state is read, ``head`` its HEAD,
    ``floor`` the range's boundary (the walks that tell where a commit came from stop
    there; ``top``, when given, the range's own tip: ``commits`` are ``floor..top``).
    ``sid`` None: no session is known (a prior-session reading), and every commit
    made in this repository counts as the session's.

    ``relevant``: where given, a commit not in it matters only if the session made it
    (one the merge branch brought in, which the ladder otherwise leaves out). Where such
    a commit came from is not asked when the ledger does not name it: it is UNVOUCHED,
    as the ledger alone can make a commit the session's.
    """
    asked = set(commits)
    common = gitfiles.common_dir(git_dir)
    book = ledger.read_from(common, floor, sid, asked)
    verdict = Verdict(LEDGER)
    verdict.book = book
    verdict.sid = sid
    status = verdict.status
    # Only the commits the ledger names are looked at one by one; the rest of a long range
    # (100,000 commits of a clone's history) is sorted in sets (docs/speed.md).
    named = book.named().intersection(asked)
    decided: set[str] = set()
    for sha, found in book.statuses(named, sid).items():
        if found == ledger.SESSION:
            status[sha] = SESSION
        elif found == ledger.OTHER:
            status[sha] = ELSEWHERE
        elif found == ledger.MIXED:
            status[sha] = MIXED
        else:
            continue
        decided.add(sha)
    if MIXED in status.values():
        verdict.mixed = [sha for sha in commits if status.get(sha) == MIXED]
    if sid and not book.placed:
        # a line written below every commit of the session (``s``) needs no second look:
        # the commits an existing commit reaches never change
        verdict.candidates = book.session_commits(sid)
        verdict.changed = {c for c in verdict.candidates if book.status(c, sid) == ledger.MIXED}
    unknown = asked.difference(decided) if decided else asked
    if unknown and relevant is not None:
        aside = [sha for sha in unknown if sha not in relevant]
        if aside:
            status.update(dict.fromkeys(aside, UNVOUCHED))
            unknown = unknown.difference(aside)
    if unknown:
        if not book:
            verdict.notes.append(NO_LEDGER)
        copied = _plain_originals(book, unknown.intersection(book.copies))
        _where_from(repo, git_dir, head, unknown.difference(copied) if copied else unknown,
                    floor, verdict, top if floor is not None else None, commits)
        if copied:
            _where_copies_came_from(repo, git_dir, head, copied, verdict)
    return verdict


def _plain_originals(book: ledger.Ledger, unknown: Iterable[str]) -> dict[str, str]:
    """copy -> the commit it replays unchanged (through a chain of plain picks), for the
    commits of ``unknown`` the ledger says are such copies of a commit it does not name:
    a copy comes from where its original came from."""
    found: dict[str, str] = {}
    for sha in unknown:
        old = sha
        for _ in range(64):
            pairs = book.copies.get(old)
            if not pairs or len(pairs) > 1 or pairs[0][2]:
                break
            old = pairs[0][0]
        if old != sha:
            found[sha] = old
    return found


def _where_copies_came_from(repo: Repo, git_dir: str, head: str, copied: dict[str, str],
                            verdict: Verdict) -> None:
    """A plain copy of a commit the ledger does not name is from elsewhere when its
    original is (``_where_from``), else made here and not vouched for. The originals are
    asked with no floor: they are not on HEAD's history."""
    originals = Verdict(verdict.source)
    _where_from(repo, git_dir, head, set(copied.values()), None, originals)
    for copy, old in copied.items():
        verdict.status[copy] = originals.of(old)
        verdict.copied[copy] = old
    verdict.logged.update(originals.logged)
    verdict.fetched |= originals.fetched
    verdict.made_elsewhere |= originals.made_elsewhere
    verdict.complete = verdict.complete or originals.complete
    verdict.problem = verdict.problem or originals.problem
    if originals.source != LEDGER and verdict.source == LEDGER:
        verdict.source = originals.source
    verdict.notes.extend(n for n in originals.notes if n not in verdict.notes)


def _where_from(repo: Repo, git_dir: str, head: str, unknown: set[str], floor: str | None,
                verdict: Verdict, top: str | None = None,
                order: Sequence[str] | None = None) -> None:
    """The commits the ledger does not name, sorted by positive evidence only: from
    elsewhere when HEAD's log shows them brought in (a clone, a pull, a fetch and
    fast-forward; or HEAD moved to a commit a remote-tracking ref's own log shows fetched:
    a reset or checkout to it) or when a complete log never names them; made here (a log
    shows them made: this work tree's, or another's) or only moved to otherwise: counted,
    not vouched for. That a remote-tracking ref reaches a commit decides nothing: pushing
    puts the session's own commits there. Sorted in sets: only the commits a log names are
    looked at one by one. ``order``: the whole range in git's order when ``top`` is given
    (every commit of it not in ``unknown`` is decided already, or decided after this)."""
    if top is None:
        order = None  # not the whole range: each status is given one by one
    rest = unknown
    kinds, complete, problem = head_log(repo, git_dir, head, rest)
    if problem is not None:
        verdict.source = NO_WITNESS
        verdict.problem = problem
        verdict.notes.append(problem)
        _given(verdict, len(rest), UNVOUCHED, order, lambda: rest)
        return
    verdict.source = REFTABLE if gitfiles.uses_reftable(git_dir) else REFLOG
    verdict.complete = complete
    logged = rest.intersection(kinds)
    absent = len(rest) - len(logged)  # commits the log never names
    made_elsewhere = _made_in_other_work_trees(git_dir, rest.difference(logged)) \
        if absent and _other_work_trees(git_dir) else set()
    # every commit of ``rest`` first as one the log never names, then the exceptions
    status = _given(verdict, len(rest), ELSEWHERE if complete else UNVOUCHED, order,
                    lambda: rest)
    status.update(dict.fromkeys(made_elsewhere, UNVOUCHED))
    moved = [sha for sha in logged if kinds[sha] == MOVED]
    fetched = fetched_commits(repo, git_dir, moved) if moved else set()
    verdict.fetched |= fetched
    verdict.made_elsewhere |= made_elsewhere
    verdict.logged.update((sha, kinds[sha]) for sha in logged)
    for sha in logged:
        kind = kinds[sha]
        status[sha] = ELSEWHERE if kind == ARRIVED or sha in fetched else UNVOUCHED
    if absent and not complete:
        verdict.notes.append("the HEAD reflog does not reach back far enough (expired or "
                             "cut short): where older commits came from cannot be told")


def _given(verdict: Verdict, count: int, kind: str, order: Sequence[str] | None,
           commits: Callable[[], Iterable[str]]) -> dict[str, str]:
    """Give each of the ``count`` commits ``commits()`` names the status ``kind``; the
    verdict's statuses, as they now are.

    ``order``: the whole range, in git's order, of which every commit not among them has
    its status already or is given one after this (a copy, a commit a log names). Then
    many commits (a clone's 100,000) are given theirs in one dict built anew in the
    range's order, with what is decided laid over it, and ``commits()`` is never made: a
    dict filled from a set (in its hashes' order) takes twice as long, and one laid over
    a large dict a third more.
    """
    status = verdict.status
    if order is not None and count > SEARCHED and len(status) < count:
        bulk = dict.fromkeys(order, kind)
        bulk.update(status)
        verdict.status = bulk
        verdict.order = order
        return bulk
    status.update(dict.fromkeys(commits(), kind))
    return status


def fetched_commits(repo: Repo, git_dir: str, shas: Iterable[str]) -> set[str]:
    """Which of ``shas`` a remote-tracking ref's own log shows arriving by a fetch (a
    clone, a fetch or the fetch of a pull): HEAD only moved to them here (a reset or a
    checkout to a fetched commit). An entry a push wrote (``update by push``) is no such
    evidence: pushing puts the session's own commits there. Nothing is known on the
    ``reftable`` backend (its logs are not files): the empty set."""
    wanted = set(shas)
    if not wanted or gitfiles.uses_reftable(git_dir):
        return set()
    found: set[str] = set()
    root = gitfiles.log_path(git_dir, "refs/remotes")
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            data, _ = _newest(os.path.join(folder, name))
            for line in (data or b"").split(b"\n"):
                row = split_line(line)
                if row is not None and row[1] in wanted and \
                        classify_remote(row[3].decode("utf-8", "replace")) == ARRIVED:
                    found.add(row[1])
    return found


def head_log(repo: Repo | None, git_dir: str, head: str,
             wanted: Collection[str] | None = None) -> tuple[dict[str, str], bool, str | None]:
    """The one reading of a work tree's HEAD log: each commit it names with the most an
    entry says of it (made here, a copy, brought in, or only moved to), whether the log
    reaches back to the start of the history, and why it cannot be read (None: it can).
    On the files backend the log's newest ``WHOLE_LIMIT`` bytes are read, no process; on
    reftable one ``git log -g`` (``repo`` None: not asked, nothing known). ``wanted``:
    only these commits are asked about; a few of them are searched for in the log's
    bytes, so only the lines that name them are read
    (a 100,000-entry log is not parsed for two pulled commits), and of many, only the
    entries that name one of them are told apart (the rest are not in the answer)."""
    lines: Iterable[bytes]
    if gitfiles.uses_reftable(git_dir):
        if repo is None:
            return {}, False, None
        lines = list(_reftable_lines(repo))
        whole = len(lines) < REFTABLE_LIMIT
        newest, oldest = _ends(lines[::-1], lines)
    else:
        data, whole = _newest(gitfiles.log_path(git_dir, "HEAD"))
        if data is None:
            return {}, False, NO_LOG
        newest, oldest = _ends(_forward(data), _backward(data))
        lines = _lines_naming(data, wanted)
    if newest is None:
        return {}, False, EMPTY_LOG
    if newest != head:
        return {}, False, not_head(newest, head)
    kinds: dict[str, str] = {}
    asked = None if wanted is None else wanted if isinstance(wanted, (set, frozenset)) \
        else set(wanted)
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
    complete = whole and oldest[:oldest.find(b" ")].strip(b"0") == b""
    return kinds, complete, None


def _ends(oldest_first: Iterable[bytes], newest_first: Iterable[bytes]
          ) -> tuple[str | None, bytes]:
    """The commit the newest entry names, and the oldest entry (a line of either hash's
    shape; others are skipped), from the same lines read from each end: None and b""
    for a log with no entry."""
    oldest = next((line for line in oldest_first if line.find(b" ") in (40, 64)), b"")
    if not oldest:
        return None, b""
    newest = next(line for line in newest_first if line.find(b" ") in (40, 64))
    space = newest.find(b" ")
    return newest[space + 1:2 * space + 1].decode("ascii", "replace"), oldest


def _forward(data: bytes) -> Iterable[bytes]:
    """The lines of ``data``, oldest (first) first, read one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        yield data[start:end]
        start = end + 1


def _backward(data: bytes) -> Iterable[bytes]:
    """The lines of ``data``, newest (last) first, read one at a time."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        yield data[start:end]
        end = start - 1


def _lines_naming(data: bytes, wanted: Collection[str] | None) -> list[bytes]:
    """The lines of a log to read for ``wanted`` (None: every line): for a few commits
    (``SEARCHED``), only those whose entry names one of them as the commit it moved to,
    found by searching the bytes for each (a 100,000-entry log is not split for two
    pulled commits: ``benchmarks/bench_boundary.py``, pulled); else every line."""
    if wanted is None or len(wanted) > SEARCHED:
        return data.split(b"\n")
    return _naming(data, wanted)


def _naming(data: bytes, shas: Iterable[str]) -> list[bytes]:
    """The lines of a log whose entry names one of ``shas`` as the commit it moved to,
    found by searching the bytes for each (no line of the rest is read)."""
    found: list[bytes] = []
    for sha in shas:
        needle = sha.encode("ascii", "replace")
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            if at - start == len(needle) + 1 and data[at - 1:at] == b" ":
                end = data.find(b"\n", at)
                found.append(data[start:end if end >= 0 else len(data)])
            at = data.find(needle, at + 1)
    return found


def _newest(path: str) -> tuple[bytes | None, bool]:
    """The newest ``WHOLE_LIMIT`` bytes of the log at ``path``, from its first whole
    line, and whether that is the whole log (None: no such file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None, False
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - WHOLE_LIMIT)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, size - start)
        while len(data) < size - start:
            more = os.read(fd, size - start - len(data))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    if start > 0:
        data = data[data.find(b"\n") + 1:]
    return data, start == 0


def _made_in_other_work_trees(git_dir: str, absent: set[str]) -> set[str]:
    """Which of ``absent`` (commits this work tree's log never names) another work tree
    of the repository made: made here, so not "from elsewhere"."""
    common = gitfiles.common_dir(git_dir)
    logs = [gitfiles.log_path(common, "HEAD")]
    logs += [gitfiles.log_path(os.path.join(common, "worktrees", name), "HEAD")
             for name in _linked_names(common)]
    own = os.path.realpath(gitfiles.log_path(git_dir, "HEAD"))
    found: set[str] = set()
    for log in logs:
        if os.path.realpath(log) == own:
            continue
        data, _ = _newest(log)
        for line in _lines_naming(data or b"", absent):
            row = split_line(line)
            if row is not None and row[1] in absent \
                    and classify(row[3].decode("utf-8", "replace")) in (CREATED, COPY):
                found.add(row[1])
    return found


def _linked_names(common: str) -> list[str]:
    """The names of the linked work trees (``worktrees/`` of the common git dir), sorted."""
    try:
        return sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        return []


def _other_work_trees(git_dir: str) -> bool:
    """Has the repository a work tree other than the one at ``git_dir`` (whose logs
    ``_made_in_other_work_trees`` would read)?"""
    common = gitfiles.common_dir(git_dir)
    return bool(_linked_names(common)) or (
        os.path.realpath(git_dir) != os.path.realpath(common))


def _reftable_lines(repo: Repo) -> Iterable[bytes]:
    """``git log -g``'s answer in the files backend's line shape, newest first (the old
    side of each entry is the next one's new side)."""
    rows = repo.reflog_entries("HEAD", REFTABLE_LIMIT)
    for i, (new, time, message) in enumerate(rows):
        old = rows[i + 1][0] if i + 1 < len(rows) else _NULL
        yield f"{old} {new} - <> {time} +0000\t{message}".encode("utf-8", "surrogateescape")
