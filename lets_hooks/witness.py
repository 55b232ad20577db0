"""The witness: which commits of a range this session made (see docs/witness.md).

The proof is the session ledger (``lets_hooks.ledger``): the hooks that see each commit
being made write down which session made it, and the rewrite pairs of post-rewrite say
what each copy copies. A commit of the range is this session's exactly when the ledger
names this session for it (or for what it copies, replayed as it was); another session's
or no session's is not; one that holds this session's work and another's (an amend,
squash or reword of someone else's commit) is *mixed*: counted, never exact.

What the ledger does not know is told apart by git's own records (where a commit came
from, never who made it), on positive evidence only: brought in by a pull, a fetch or a
clone (HEAD's reflog, or a remote-tracking ref's log), or never named by a complete log, it
came from elsewhere (not counted); made here, or not known, it is counted and not vouched
for. That a remote-tracking ref reaches a commit says nothing (pushing puts the session's
own there). No time decides anything: only the order of the ledger or the log.
"""

from __future__ import annotations

import os

from lets_hooks import files, gitfiles, ledger, reflog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence

    from lets_hooks.repo import Repo

SESSION = "session"
ELSEWHERE = "elsewhere"
UNVOUCHED = "unvouched"
MIXED = "mixed"

LEDGER = "ledger"
REFLOG = "reflog"
REFTABLE = "reftable"
NO_WITNESS = "none"

class Verdict:
    """What the witness says of a range: each commit's status, and the session's own
    commits that are not in it (where a boundary must not be above)."""

    __slots__ = ("book", "candidates", "changed", "complete", "copied", "fetched", "logged",
                 "made_elsewhere", "notes", "order", "problem", "sid", "source", "status")

    def __init__(self, source: str) -> None:
        self.source = source  # "ledger", "reflog", "reftable", or "none"
        self.status: dict[str, str] = {}  # commit -> SESSION / ELSEWHERE / UNVOUCHED / MIXED
        self.notes: list[str] = []
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
        # the range whose order ``status`` was built in (``_given``): while it holds a
        # status for each of its commits and no other, its values are theirs, in order
        self.order: Sequence[str] | None = None

    def of(self, sha: str) -> str:
        return self.status.get(sha, UNVOUCHED)

    def evidence(self, sha: str) -> str:
        """What ``sha``'s status rests on, in words (``--json``'s ``why``)."""
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
        if kind in (reflog.CREATED, reflog.COPY):
            return "no ledger line; HEAD's log shows it made in this work tree"
        if kind == reflog.ARRIVED:
            return "no ledger line; HEAD's log shows it brought in (clone, pull, fast-forward)"
        if kind == reflog.MOVED:
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


NO_LEDGER = ("no session ledger in this repository yet (the post-commit hook is not "
             "installed, or has not run): which session made each commit is not known")


def missing(git_dir: str, head: str) -> str | None:
    """Why the work tree at ``git_dir`` has no HEAD log to tell where commits came from
    (the ladder's words), or None when it has one (always on reftable)."""
    return reflog.head_log(None, git_dir, head, ())[2]


# the ledger's statuses that decide a commit, as the witness says them
_FROM_LEDGER = {ledger.SESSION: SESSION, ledger.OTHER: ELSEWHERE, ledger.MIXED: MIXED}


def judge(repo: Repo, git_dir: str, head: str, commits: Sequence[str], sid: str | None,
          floor: str | None = None, top: str | None = None,
          relevant: Container[str] | None = None) -> Verdict:
    """Which of ``commits`` (the range, any order) session ``sid`` made.

    ``git_dir``: the git dir of the work tree whose state is read, ``head`` its HEAD;
    ``floor``: the range's boundary (where the walks stop); ``top``, when given: the range's
    own tip (``commits`` are ``floor..top``). ``sid`` None: no session is known (a
    prior-session reading), and every commit made in this repository counts as its.
    ``relevant``: a commit not in it matters only if the session made it (the merge
    branch brought it in): the ledger not naming it, it is UNVOUCHED, never asked about.
    """
    asked = set(commits)
    book = ledger.read_from(gitfiles.common_dir(git_dir), floor, sid, asked)
    verdict = Verdict(LEDGER)
    verdict.book = book
    verdict.sid = sid
    status = verdict.status
    # Only the commits the ledger names are looked at one by one; the rest of a long range
    # (100,000 commits of a clone's history) is sorted in sets
    # (benchmarks/bench_boundary.py, walk-heavy).
    named = book.named(asked)
    for sha, found in book.statuses(named, sid).items():
        if found in _FROM_LEDGER:
            status[sha] = _FROM_LEDGER[found]
    if sid and not book.placed:
        # a line written below every commit of the session (``s``) needs no second look:
        # the commits an existing commit reaches never change
        verdict.candidates, verdict.changed = book.session_work(sid)
    unknown = asked.difference(status) if status else asked
    if unknown and relevant is not None:
        aside = [sha for sha in unknown if sha not in relevant]
        if aside:
            status.update(dict.fromkeys(aside, UNVOUCHED))
            unknown = unknown.difference(aside)
    if unknown:
        if not book:
            verdict.notes.append(NO_LEDGER)
        copies = book.copies  # the shorter side gone through: status over a long ledger
        copied = _plain_originals(book, [sha for sha in copies if sha in unknown]
                                  if len(copies) < len(unknown) else
                                  [sha for sha in unknown if sha in copies])
        _where_from(repo, git_dir, head, unknown.difference(copied) if copied else unknown,
                    floor, verdict, commits if floor is not None and top is not None else None)
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
                verdict: Verdict, order: Sequence[str] | None = None) -> None:
    """The commits the ledger does not name, sorted by positive evidence only (the
    module's docstring), in sets: only the commits a log names are looked at one by one.
    ``order``: the whole range in git's order, when it is (every commit of it not in
    ``unknown`` is decided already, or decided after this)."""
    kinds, complete, problem = reflog.head_log(repo, git_dir, head, unknown)
    if problem is not None:
        verdict.source = NO_WITNESS
        verdict.problem = problem
        verdict.notes.append(problem)
        _given(verdict, unknown, UNVOUCHED, order)
        return
    verdict.source = REFTABLE if gitfiles.uses_reftable(git_dir) else REFLOG
    verdict.complete = complete
    logged = unknown.intersection(kinds)
    absent = len(unknown) - len(logged)  # commits the log never names
    made_elsewhere = _made_in_other_work_trees(repo, git_dir, unknown.difference(logged)) \
        if absent else set()
    # every commit first as one the log never names, then the exceptions
    status = _given(verdict, unknown, ELSEWHERE if complete else UNVOUCHED, order)
    status.update(dict.fromkeys(made_elsewhere, UNVOUCHED))
    moved = [sha for sha in logged if kinds[sha] == reflog.MOVED]
    fetched = fetched_commits(git_dir, moved, repo) if moved else set()
    verdict.fetched |= fetched
    verdict.made_elsewhere |= made_elsewhere
    verdict.logged.update((sha, kinds[sha]) for sha in logged)
    for sha in logged:
        kind = kinds[sha]
        status[sha] = ELSEWHERE if kind == reflog.ARRIVED or sha in fetched else UNVOUCHED
    if absent and not complete:
        verdict.notes.append("the HEAD reflog does not reach back far enough (expired or "
                             "cut short): where older commits came from cannot be told")


def _given(verdict: Verdict, commits: set[str], kind: str, order: Sequence[str] | None
           ) -> dict[str, str]:
    """Give each of ``commits`` the status ``kind``; returns the verdict's statuses. With
    ``order`` (as ``_where_from``'s), many commits (a clone's 100,000) are given theirs in
    one dict built in the range's order, what is decided laid over it
    (benchmarks/bench_boundary.py)."""
    status = verdict.status
    if order is not None and len(commits) > reflog.SEARCHED and len(status) < len(commits):
        bulk = dict.fromkeys(order, kind)
        bulk.update(status)
        verdict.status = bulk
        verdict.order = order
        return bulk
    status.update(dict.fromkeys(commits, kind))
    return status


def fetched_commits(git_dir: str, shas: Iterable[str], repo: Repo) -> set[str]:
    """Which of ``shas`` a remote-tracking ref's own log shows arriving by a fetch (a push's
    entry is no such evidence). On reftable the logs are asked of git."""
    wanted = set(shas)
    if gitfiles.uses_reftable(git_dir):
        rows = repo.reflog_entries((), reflog.REFTABLE_LIMIT, remotes=True)
        return _moved_to_by(rows or (), wanted, reflog.classify_remote, (reflog.ARRIVED,))
    logs = [os.path.join(folder, name) for folder, _, names
            in os.walk(gitfiles.log_path(git_dir, "refs/remotes")) for name in sorted(names)]
    return _moved_to(logs, wanted, reflog.classify_remote, (reflog.ARRIVED,))


def _made_in_other_work_trees(repo: Repo, git_dir: str, absent: set[str]) -> set[str]:
    """Which of ``absent`` (commits this work tree's log never names) another work tree
    of the repository made: made here, so not "from elsewhere" (none with no other tree).
    On reftable their logs are asked of git; where git cannot answer for all of them,
    every one of ``absent`` is taken as possibly made here (never "from elsewhere")."""
    common = gitfiles.common_dir(git_dir)
    try:
        linked = sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        linked = []
    # each work tree: its HEAD as another work tree names it, and its git dir
    trees = [("main-worktree/HEAD", common)]
    trees += [(f"worktrees/{name}/HEAD", os.path.join(common, "worktrees", name))
              for name in linked]
    own = os.path.realpath(git_dir)
    others = [(ref, path) for ref, path in trees if os.path.realpath(path) != own]
    if gitfiles.uses_reftable(git_dir):
        if not others:
            return set()
        rows = repo.reflog_entries([ref for ref, _ in others], reflog.REFTABLE_LIMIT)
        if rows is None or len(rows) >= reflog.REFTABLE_LIMIT:
            return set(absent)
        return _moved_to_by(rows, absent, reflog.classify, (reflog.CREATED, reflog.COPY))
    return _moved_to([gitfiles.log_path(path, "HEAD") for _, path in others], absent,
                     reflog.classify, (reflog.CREATED, reflog.COPY))


def _moved_to_by(rows: Iterable[tuple[str, int, str]], wanted: set[str],
                 classify: Callable[[str], str], kinds: Container[str]) -> set[str]:
    """``_moved_to`` for entries git gave (``Repo.reflog_entries``)."""
    return {sha for sha, _, message in rows if sha in wanted and classify(message) in kinds}


def _moved_to(logs: Iterable[str], wanted: set[str], classify: Callable[[str], str],
              kinds: Container[str]) -> set[str]:
    """Which of ``wanted`` an entry of the logs at ``logs`` moved to, by a message
    ``classify`` sorts into one of ``kinds``."""
    found: set[str] = set()
    for log in logs:
        data, _ = reflog.read_newest(log)
        for line in reflog.lines_naming(data or b"", wanted):
            row = reflog.split_line(line)
            if row is not None and row[0] in wanted \
                    and classify(row[1].decode("utf-8", "replace")) in kinds:
                found.add(row[0])
    return found
