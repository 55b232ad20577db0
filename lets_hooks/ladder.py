"""The validation ladder: the only code that decides how far a session boundary is trusted.

``resolve`` runs the rungs in order:

1. ``lookup``: the branch's recorded boundary (task file, else the legacy file) and the
   names to ask git about (``names``, which ``status`` uses too);
2. ``validate``: a commit, an ancestor of HEAD, not older than this branch's fork point off
   the merge branch, not too old; the count of its commits comes out of the same walk;
3. ``estimate``: nothing usable recorded, off the merge branch: the merge-base;
4. ``describe``: the trust level and the one-line description.

Everything else (the four-line contract, ``--json``, the hooks' warnings, ``status`` rows,
the summary's range line) is a rendering of the ``Boundary`` it returns.

Off the merge branch the floor is the *fork point*: where HEAD's first-parent line first
meets the merge branch. A merge of the merge branch into the topic does not move it, and
the commits such a merge brings in are not counted as the session's: ``SESSION_COMMITS`` is
the commits of ``boundary..HEAD`` on neither ``origin/<merge>`` nor ``<merge>``, and the
description says how many were left out.
"""

from __future__ import annotations

import os
from itertools import compress, filterfalse, islice
from operator import not_

from lets_hooks import files, gitfiles, state, witness
from lets_hooks.repo import GitError, Location, Repo, reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Mapping, Sequence

    from lets_hooks.config import Config
    from lets_hooks.repo import ObjectInfo

EXACT, PRIOR, ESTIMATE, NONE = state.TRUST_LEVELS
SECONDS_PER_DAY = 86400
FUTURE_SLACK = SECONDS_PER_DAY  # a recorded time this far ahead of the clock is ignored
LIST_CAP = 1000  # the session's commits listed by --json
RECORD = "lets-hooks record"


class Boundary:
    """A resolved boundary: computed once, rendered many ways."""

    __slots__ = ("boundary", "branch", "commits", "desc", "elsewhere", "excluded", "explain",
                 "head", "merge_branch", "mixed", "notes", "ranged", "reason", "recorded",
                 "refused", "session_commits", "sharing", "trust", "unvouched", "witness")

    def __init__(self, trust: str, boundary: str | None, commits: int | None, desc: str,
                 notes: list[str], reason: str | None = None) -> None:
        self.trust = trust
        self.boundary = boundary  # as recorded, or the merge-base, or None
        self.commits = commits
        self.desc = desc
        self.notes = notes
        self.reason = reason  # why a recorded boundary was rejected, if it was
        self.branch: str | None = None
        self.head: str | None = None
        self.recorded: str | None = None  # the sha the state files held, valid or not
        self.refused: str | None = None  # why the task file was not read (state.Recorded)
        self.sharing: Callable[[], list[str]] = list  # the branches sharing its task file
        self.merge_branch: str | None = None
        self.excluded = 0  # commits of boundary..HEAD already on the merge branch
        self.elsewhere = 0  # commits of boundary..HEAD this session did not make
        self.session_commits: list[str] = []  # the counted commits, newest first
        self.mixed: list[str] = []  # the session's work and another's in one commit
        self.witness = "none"  # what said which commits the session made
        self.explain: Callable[[int], list[tuple[str, str, str]]] | None = None  # ``why``'s
        self.unvouched: list[str] = []  # counted, and no evidence speaks of them
        self.ranged = 0  # the commits of the range

    def why(self) -> dict[str, object]:
        """``--json``'s ``why``: each commit of the range (the first ``LIST_CAP``, newest
        first), its verdict and the evidence it rests on."""
        rows = self.explain(LIST_CAP) if self.explain is not None else []
        items = [{"commit": sha, "verdict": verdict, "evidence": files.show(said)}
                 for sha, verdict, said in rows]
        return {"items": items, "more": max(self.ranged - len(items), 0), "cap": LIST_CAP}

    def lines(self) -> list[str]:
        """The four-line contract, read verbatim by other tools."""
        return [
            f"SESSION_BOUNDARY={self.boundary or 'none'}",
            f"SESSION_TRUST={self.trust}",
            f"SESSION_COMMITS={'unknown' if self.commits is None else self.commits}",
            f"SESSION_RANGE_DESC={files.show(self.desc)}",
        ]

    def as_dict(self) -> dict[str, object]:
        return {
            "boundary": self.boundary,
            "trust": self.trust,
            "commits": self.commits,
            "desc": files.show(self.desc),
            "notes": [files.show(n) for n in self.notes],
            "reason": None if self.reason is None else files.show(self.reason),
            "branch": None if self.branch is None else files.show(self.branch),
            "head": self.head,
            "recorded": self.recorded,
            "merge_branch": None if self.merge_branch is None else files.show(
                self.merge_branch),
            "excluded": self.excluded,
            "elsewhere": self.elsewhere,
            "session_commits": {"items": self.session_commits[:LIST_CAP],
                                "more": max(len(self.session_commits) - LIST_CAP, 0),
                                "cap": LIST_CAP},
            "witness": self.witness,
            "why": self.why(),
        }


def describe(trust: str, boundary: str | None, commits: int | None, excluded: int = 0,
             merge: str | None = None, why: str | None = None, elsewhere: int = 0) -> str:
    """The one-line description; its four forms are a public contract."""
    count = f"{commits} commits"
    left_out = []
    if excluded:
        left_out.append(f"{excluded} already on {merge}")
    if elsewhere:
        left_out.append(f"{elsewhere} from elsewhere")
    if left_out:
        count += ", not counting " + " and ".join(left_out)
    if trust == EXACT:
        return f"session: {boundary}..HEAD ({count})"
    if trust == PRIOR:
        return f"approx: {boundary}..HEAD ({count}) - boundary recorded by an earlier session"
    if trust == ESTIMATE:
        return (f"approx: {boundary}..HEAD ({count}) - estimated from the branch point, no "
                "boundary was recorded")
    if why is not None:
        return f"boundary unknown - {why}"
    return "boundary unknown - no valid session boundary for this branch"


def unknown(note: str, why: str | None = None) -> Boundary:
    """The fail-closed answer: no boundary, no count."""
    return Boundary(NONE, None, None, describe(NONE, None, None, why=why), [note])


def not_a_repository() -> Boundary:
    return unknown("not inside a git repository", why="not a git repository")


# -- the names asked of git ------------------------------------------------------------------

def names(head: str | None, recorded: str | None, merge: str | None) -> list[str]:
    """Every name ``resolve`` asks one ``cat-file``: the head (when not HEAD), the recorded
    sha (as a commit, and as written), the merge branch by full ref names."""
    found = [head + "^{commit}"] if head is not None else []
    if recorded:
        found += [recorded + "^{commit}", recorded]
    for name in [merge] if merge else ["main", "master"]:
        found += ["refs/remotes/origin/" + name, "refs/heads/" + name]
    return list(dict.fromkeys(found))


def _merge_named(merge: str | None, found: Mapping[str, ObjectInfo],
                 unborn: str | None = None) -> str:
    """``merge``, else main where it exists (here or at origin), else master where it
    does, else the branch an unborn HEAD names (``unborn``: a repository with no commit
    yet, made by ``git init -b trunk`` or under ``init.defaultBranch``), else master."""
    if merge is not None:
        return merge
    for name in ("main", "master"):
        if found["refs/heads/" + name].sha or found["refs/remotes/origin/" + name].sha:
            return name
    return unborn or "master"


def merge_branch(repo: Repo, merge: str | None, unborn: str | None = None
                 ) -> tuple[str, str | None, str | None]:
    """The merge branch as ``resolve`` names it (``unborn``: the branch HEAD names while
    it has no commit), and its tips at origin and here (None: no such ref)."""
    asked = names(None, None, merge)
    if unborn and not merge:
        asked += ["refs/remotes/origin/" + unborn, "refs/heads/" + unborn]
    found = {info.name: info for info in repo.objects(list(dict.fromkeys(asked)))}
    named = _merge_named(merge, found, unborn)
    return named, found["refs/remotes/origin/" + named].sha, found["refs/heads/" + named].sha


def on_merge_line(repo: Repo, merge: str | None, branch: str | None,
                  commits: Sequence[str]) -> set[str]:
    """Which of ``commits`` lie on the merge branch's own first-parent line (committed or
    pulled there: that branch's work, never a topic's), for ``branch``; on the merge
    branch itself its own line is its range: none."""
    named, origin, local = merge_branch(repo, merge)
    if branch == named:
        return set()
    return repo.on_first_parent_lines(list(dict.fromkeys(t for t in (origin, local) if t)),
                                      commits)


def merge_tips(repo: Repo, merge: str | None) -> list[str]:
    """The merge branch's tips (``merge_branch``), origin's first, each once."""
    _, origin, local = merge_branch(repo, merge)
    return list(dict.fromkeys(tip for tip in (origin, local) if tip))


# -- the rungs ----------------------------------------------------------------------------------

class _Facts:
    """What the rungs share: where, which branch and head, the merge branch and its tips."""

    __slots__ = ("_sharing", "branch", "config", "found", "head", "hint", "merge", "notes",
                 "now", "on_merge", "prefix", "refused", "repo", "session_id", "sid", "tips",
                 "verdict", "where")

    def __init__(self, repo: Repo, config: Config, branch: str, head: str, merge: str,
                 found: dict[str, ObjectInfo], notes: list[str], now: int,
                 where: Location, prefix: str = "") -> None:
        self.repo = repo
        self.config = config
        self.branch = branch
        self.head = head
        self.merge = merge
        self.found = found
        self.notes = notes
        self.now = now
        self.on_merge = branch == merge
        tips = (found["refs/remotes/origin/" + merge].sha, found["refs/heads/" + merge].sha)
        self.tips = list(dict.fromkeys(tip for tip in tips if tip))  # origin's first, each once
        self.where = where
        self.verdict: witness.Verdict | None = None
        self.sid: str | None = None  # the recorded line's session id, when it is exact
        self.session_id: str | None = None  # the caller's session id, when usable
        self.hint = True  # "run: lets-hooks record" is advice that holds for this answer
        self.refused = False  # the task file was refused: no record writes it either
        self._sharing: list[str] | None = None
        self.prefix = prefix  # run before advised commands: where the branch is checked out

    def sharing(self) -> list[str]:
        """The other local branches whose task file is this branch's (``feat/x`` and
        ``feat-x``): no writer writes it for either. Asked of git (one ``for-each-ref``)
        only where the slug holds a '-', and only off the exact path (advice, a refused
        line), so the happy path pays nothing (bench_boundary.py)."""
        if self._sharing is None:
            self._sharing = []
            if "-" in state.slug(self.branch):
                try:
                    names = [name for name, _ in self.repo.branches()]
                except GitError:
                    names = []
                self._sharing = state.slug_collisions(self.branch, names)
        return self._sharing

    def judge(self, commits: list[str], boundary: str | None,
              relevant: Container[str] | None = None, keep: bool = True) -> witness.Verdict:
        """The witness's verdict on the range ``commits`` above ``boundary``, kept per range
        (not when ``relevant``, ``witness.judge``'s, is given, nor without ``keep``)."""
        kept = self.verdict
        if keep and kept is not None and all(map(kept.status.__contains__, commits)):
            return kept
        where = self.where
        if where.top is None:
            verdict = witness.Verdict(witness.NO_WITNESS)
            verdict.notes.append(
                "no work tree here: which commits this session made cannot be checked")
        else:
            git_dir = where.git_dir
            if where.branch != self.branch:
                git_dir = gitfiles.git_dir_at(where.top) or where.git_dir
                if os.path.realpath(git_dir) == os.path.realpath(where.git_dir):
                    git_dir = where.git_dir
            if git_dir == where.git_dir:
                tip = where.head
            else:  # the HEAD of the work tree whose log is read for another branch
                real = os.path.realpath(where.top)
                tip = next((head for tree, head, _ in self.repo.worktree_heads()
                            if os.path.realpath(tree) == real), self.head)
            verdict = witness.judge(self.repo, git_dir, tip or self.head, commits, self.sid,
                                    boundary, self.head, relevant)
        if relevant is None and keep:
            self.verdict = verdict
        return verdict


class _Count:
    """The range ``boundary..HEAD``: its commits (children first), and those of them known
    to be on neither merge-branch tip (None: not asked yet)."""

    __slots__ = ("commits", "outside")

    def __init__(self, commits: list[str], outside: set[str] | None = None) -> None:
        self.commits = commits
        self.outside = outside


def resolve(repo: Repo, config: Config, session_id: str | None, now: int,
            branch: str | None = None, head: str | None = None,
            where: Location | None = None, store: state.Store | None = None,
            advise: str = "") -> Boundary:
    """Resolve, validate and count the session boundary of ``branch`` at ``head``.

    Without ``branch``, the checked-out branch at HEAD. ``head`` may be any revision;
    ``now`` is the age rung's clock (seconds). ``where``: the work tree whose state is read
    (the one ``branch`` is checked out in); ``store``: that state already opened.
    ``advise``: what the notes' advice must run first where the caller is not on
    ``branch`` (``git switch B && ``): ``lets-hooks record`` acts on the branch checked
    out where it runs.
    """
    try:
        return _resolve(repo, config, session_id, now, branch, head, where, store, advise)
    except GitError as exc:
        return unknown(reason(exc))


def _resolve(repo: Repo, config: Config, session_id: str | None, now: int,
             branch: str | None, head: str | None, where: Location | None,
             store: state.Store | None, advise: str = "") -> Boundary:
    if where is None:
        where = repo.locate()
    if branch is None:
        branch, head = where.branch, where.head
        if branch is None:
            return unknown("detached HEAD: there is no branch to keep a session boundary for",
                           why="detached HEAD")
    notes: list[str] = []
    recorded = lookup(repo, where, branch, notes, store)
    merge = config.merge_branch or where.origin_head
    try:
        found = {info.name: info for info in repo.objects(names(head, recorded.sha, merge))}
    except GitError as exc:
        return unknown(f"git failed: {exc}")
    merge = _merge_named(merge, found, where.branch if where.head is None else None)
    why = "HEAD has no commit yet"
    if head is not None and head != where.head:
        rev, head = head, found[head + "^{commit}"].sha
        if rev == "refs/heads/" + branch:
            why = f"branch {files.quoted(branch)} does not exist"
        else:
            why = f"{files.quoted(rev)} does not name a commit"
    if head is None:
        result = Boundary(NONE, None, None, describe(NONE, None, None), [*notes, why])
        return _finish(result, branch, None, recorded, merge)
    facts = _Facts(repo, config, branch, head, merge, found, notes, now, where, advise)
    _check_merge_branch(facts)

    trust = _claimed_trust(recorded, session_id, notes)
    if session_id and state.sid_problem(session_id) is None:
        facts.session_id = session_id
    facts.hint = not recorded.approx  # a line no writer could place better: nor can a record
    facts.refused = bool(recorded.refused)
    if trust == EXACT and where.top is not None:
        facts.sid = recorded.sid
    boundary: str | None = None
    counted: _Count | None = None
    reason: str | None = None
    if recorded.sha:
        reason, counted = validate(facts, recorded)
        if reason is None and counted is not None:
            boundary = recorded.sha
        else:
            notes.append(f"recorded boundary {recorded.sha} rejected: {reason}")
            trust = NONE
    if boundary is None and not facts.on_merge:
        facts.verdict = None
        boundary, counted = estimate(facts)
        if boundary is not None:
            trust = ESTIMATE
    result = _described(facts, trust, boundary, counted, reason)
    if recorded.source == "task" and result.trust != EXACT and facts.sharing():
        # an exact answer is checked against the ledger wherever its line came from; any
        # other may rest on the other branch's line
        notes.append(f"branch {files.quoted(branch)} shares .task-{state.slug(branch)} with "
                     + ", ".join(map(files.quoted, facts.sharing()))
                     + " ('/' and '-' read alike): the line read may be that branch's")
    result.sharing = facts.sharing  # asked of git only where advice is given
    return _finish(result, branch, head, recorded, merge)


def lookup(repo: Repo, where: Location, branch: str, notes: list[str],
           store: state.Store | None = None) -> state.Recorded:
    """Rung 1: what the state files of ``where``'s work tree record for ``branch``."""
    if where.top is None:
        notes.append("no work tree here (bare repository, or inside .git): no session "
                     "state is read")
        return state.Recorded()
    if store is None or store.top != where.top:
        store = state.open_store(where.top, repo)
    recorded = state.read_recorded(store, branch)
    if recorded.source is None and not recorded.notes and (
            branch == where.branch or not gitfiles.uses_reftable(where.git_dir)):
        # a branch renamed with ``git branch -m`` (no hook runs) takes its old name's state,
        # checked out or not (status, pre-push, --branch); another branch's log is read
        # only where it is a file (reftable's: a git process for each branch, not asked)
        from lets_hooks import record

        try:
            if record.adopt_renamed(repo, where, store, branch):
                recorded = state.read_recorded(store, branch)
        except (GitError, state.StateError):
            pass
    notes.extend(recorded.notes)
    return recorded


def _claimed_trust(recorded: state.Recorded, session_id: str | None, notes: list[str]) -> str:
    """``exact`` needs a task file's line with the current session id; else ``prior-session``."""
    if session_id is not None and state.sid_problem(session_id) is not None:
        notes.append(f"the current session id {state.shown_sid(session_id)} is "
                     f"{state.sid_problem(session_id)}: no boundary can be exact")
        session_id = None
    if not (recorded.sha and recorded.source == "task" and recorded.sid and session_id
            and recorded.sid == session_id):
        return PRIOR
    if recorded.approx:
        notes.append(f"the boundary was placed where the session's commits could not be "
                     f"told apart ({files.show(recorded.approx)}): the count is best-effort")
        return PRIOR
    return EXACT


def validate(facts: _Facts, recorded: state.Recorded) -> tuple[str | None, _Count | None]:
    """Rung 2: (why the recorded sha is rejected, or None; its range). The first failure
    wins: not a commit; not an ancestor; below the fork point; past the age limit."""
    sha = recorded.sha
    assert sha is not None
    commit = facts.found[sha + "^{commit}"].sha
    if commit is None:
        return "not a commit in this repository", None
    reason, counted = _ancestry(facts, commit)
    if reason is not None:
        return reason, None
    return _age(facts, recorded), counted


NOT_ANCESTOR = "not an ancestor of HEAD (rebased, reset, or another line of work)"


def _ancestry(facts: _Facts, commit: str) -> tuple[str | None, _Count | None]:
    """The ancestor rung and the fork-point floor, with the range (one walk on a branch
    with no merges above the boundary). The fork point is off ``origin/<merge>`` when it
    exists, else off ``<merge>`` (SPEC 3)."""
    repo, head, tips = facts.repo, facts.head, facts.tips
    older = f"older than this branch's point off {facts.merge}"
    if facts.on_merge or not tips:
        reaches, commits = repo.above(commit, head)
        if not reaches:
            return NOT_ANCESTOR, None
        return None, _Count(commits)
    fork = tips[0]
    floor = repo.first_parent_floor(head, [commit, fork])
    alone = len(tips) == 1
    if floor is not None and floor.stop == commit:
        # On HEAD's first-parent line, at or above the fork point; what the walk printed
        # is what is on neither the boundary's history nor the fork tip's.
        printed = floor.commits()
        if floor.linear:
            return None, _Count(printed, set(printed) if alone else None)
        return None, _Count(repo.listing(head, [commit]), set(printed) if alone else None)
    from lets_hooks.rewrite import History  # off the everyday paths

    history = History(repo.walk([head], [commit]))
    line, parents = history.line_from(head), history.parents
    if head != commit and not any(commit in up for up in parents.values()):
        return NOT_ANCESTOR, None
    commits = list(parents)
    if commit in line:
        # On the first-parent line, below the fork point: older than the branch, unless
        # what lies between is the session's own work merged into the merge branch (a
        # merged pull request); the merge branch's own line is its work, whoever made it.
        stop = floor.stop if floor is not None else None
        below = line[line.index(stop):line.index(commit)] if stop in line else []
        if below and _session_on_merge_line(facts, commit, commits, below, fork):
            return older, None
        if _session_began(facts, commit, commits, parents, below):
            return None, _Count(commits)
        return older, None
    # An ancestor off the first-parent line: one of the merge branch's (a merge of it
    # brought it in) predates the branch; one of a side line merged from elsewhere does not.
    if any(repo.is_ancestor(commit, tip) for tip in tips) \
            and not _session_began(facts, commit, commits, parents):
        return older, None
    return None, _Count(commits)


def _session_began(facts: _Facts, boundary: str, commits: list[str],
                   parents: dict[str, list[str]], line: Sequence[str] = ()) -> bool:
    """Did the session begin at the boundary, whatever merged its work into the merge
    branch since? Yes when all of ``line`` are the session's own, or the boundary is the
    first parent of a commit that is, as the witness says (a known session only)."""
    if facts.sid is None:
        return False
    verdict = facts.judge(commits, boundary)
    if verdict.source == witness.NO_WITNESS:
        return False
    session = witness.SESSION
    return (bool(line) and all(verdict.of(c) == session for c in line)) or any(
        up and up[0] == boundary and verdict.of(c) == session for c, up in parents.items())


def _session_on_merge_line(facts: _Facts, boundary: str, commits: list[str],
                           below: list[str], fork: str) -> bool:
    """Does the session's work lie on the merge branch's line between the boundary and the
    fork point (``below``, newest first)? Then it is that branch's work and the floor
    stands. Every first parent below a fork point on that line is on it: the newest is asked."""
    if facts.sid is None or not facts.repo.on_first_parent_line(fork, below[0]):
        return False
    verdict = facts.judge(commits, boundary)
    return any(verdict.of(c) in (witness.SESSION, witness.MIXED) for c in below)


def _age(facts: _Facts, recorded: state.Recorded) -> str | None:
    """The age rung: whole days since ``session-recorded``, else the commit's time."""
    sha = recorded.sha
    assert sha is not None
    info = facts.found[sha]
    since: int | None = None
    if recorded.recorded_at is not None:
        stamp = state.parse_stamp(recorded.recorded_at)
        if stamp is None:
            facts.notes.append(f"session-recorded time {files.quoted(recorded.recorded_at)} "
                               "cannot be read; the commit's own time is used")
        elif stamp - facts.now > FUTURE_SLACK:
            facts.notes.append(f"session-recorded time {files.show(recorded.recorded_at)} is "
                               "ahead of the clock by more than a day; the commit's own time "
                               "is used")
        else:
            since = stamp
    if since is None:
        if info.type != "commit" or info.commit_time is None:
            return "its commit time cannot be read (not a plain commit)"
        since = info.commit_time
    elapsed = facts.now - since
    age = abs(elapsed) // SECONDS_PER_DAY * (1 if elapsed >= 0 else -1)  # as shell arithmetic
    if age > facts.config.max_age_days:
        return f"{age} days old, past the {facts.config.max_age_days}-day limit for one session"
    return None


def estimate(facts: _Facts) -> tuple[str | None, _Count | None]:
    """Rung 3: the merge-base with ``origin/<merge>`` (else ``<merge>``) and its range. One
    walk of what HEAD has that the merge branch has not: with no merges on HEAD's
    first-parent line down to it, its fork point is the merge-base; else a single commit
    where the histories meet is; else ``merge-base --all`` says."""
    repo, head, tips = facts.repo, facts.head, facts.tips
    if not tips:
        return None, None
    fork = tips[0]
    alone = len(tips) == 1
    floor = repo.first_parent_floor(head, [fork])
    if floor is None:
        return None, None
    if floor.stop is not None and floor.linear:
        printed = floor.commits()
        return floor.stop, _Count(printed, set(printed) if alone else None)
    frontier = floor.frontier() if floor.count else [floor.stop] if floor.stop else []
    if fork in frontier:
        # a parent of what HEAD has and the tip has not: the tip is HEAD's ancestor, so it
        # is the one merge-base (a branch built on the tip, like git's seen)
        frontier = [fork]
    bases = frontier if len(frontier) == 1 else repo.merge_bases(head, fork)
    if not bases:
        return None, None
    if len(bases) == 1:
        printed = floor.commits()
        return bases[0], _Count(printed, set(printed) if alone else None)
    base = repo.merge_base(head, fork)  # which of several git names is git's choice
    if base is None:
        return None, None
    return base, _Count(repo.listing(head, [base]))


def _classify(facts: _Facts, boundary: str, counted: _Count, trust: str) -> _Split:
    """Sort the range: the session's (counted), already on the merge branch, from
    elsewhere, and the counted ones not vouched for or mixed. An estimate reads no
    witness: it counts what the branch added."""
    if trust == ESTIMATE:
        verdict = witness.Verdict(witness.NO_WITNESS)
        verdict.status = dict.fromkeys(counted.commits, witness.SESSION)
        verdict.order = counted.commits
    elif not facts.on_merge and counted.outside is not None:
        # what came in from the merge branch is left out unless the session made it:
        # where it came from is not asked (a pulled main's commits, say)
        verdict = facts.judge(counted.commits, boundary, counted.outside)
    else:
        verdict = facts.judge(counted.commits, boundary)
    split = _Split(verdict)
    commits = counted.commits
    session = witness.SESSION
    # each commit's status in one pass in C: a range of 100,000 commits (a clone's whole
    # history) is sorted by counting, not by a loop over it (benchmarks/bench_boundary.py,
    # walk-heavy)
    kinds = verdict.kinds(commits)
    split.kinds = kinds
    if kinds.count(session) == len(kinds) and (
            facts.on_merge or (counted.outside is not None
                               and len(counted.outside) == len(commits))):
        split.session = list(commits)  # none of them on the merge branch
        return split
    if not facts.on_merge:
        if counted.outside is None:
            counted.outside = set(facts.repo.listing(facts.head, [boundary, *facts.tips]))
        inside = counted.outside.__contains__
        # what came in from the merge branch is left out unless the session made it off
        # that branch's own line (work committed there is that branch's), alone or mixed
        # with another's (a topic's commit that reached it through a merged pull request)
        ours = [c for k, c in zip(kinds, commits) if k in _OURS and not inside(c)]
        main_line = {c for tip in facts.tips if ours
                     for c in facts.repo.first_parents_above(tip, [boundary])}
        own: set[str] = set()
        if ours:
            # such a pull request took the topic's own line (HEAD's first parents above
            # the boundary) there: all of it stays the topic's, judged like the rest
            own = set(facts.repo.first_parents_above(facts.head, [boundary])) - main_line
            if any(k not in _OURS and c in own and not inside(c)
                   for k, c in zip(kinds, commits)):
                verdict = split.verdict = facts.judge(commits, boundary)
                kinds = verdict.kinds(commits)
        kinds = [kind if ((kind in _OURS or commit in own) and commit not in main_line)
                 or inside(commit) else _EXCLUDED for kind, commit in zip(kinds, commits)]
        split.kinds = kinds
    split.excluded = kinds.count(_EXCLUDED)
    split.elsewhere = kinds.count(witness.ELSEWHERE)
    mixed = kinds.count(witness.MIXED)
    split.session = list(compress(commits, map(_COUNTED.__contains__, kinds)))
    if mixed:
        split.mixed = list(compress(commits, map(witness.MIXED.__eq__, kinds)))
    if len(kinds) > kinds.count(session) + split.excluded + split.elsewhere + mixed:
        # anything not decided either way is unvouched, and keeps the answer from exact
        split.unvouched_commits = list(compress(commits, map(not_, map(_DECIDED.__contains__,
                                                                       kinds))))
    return split


_EXCLUDED = "excluded"  # came in from the merge branch (a merge of it): not counted
_OURS = frozenset((witness.SESSION, witness.MIXED))  # the session's work, alone or not
# what is counted: the session's, the mixed, and what the witness cannot place (None)
_COUNTED = frozenset((witness.SESSION, witness.MIXED, witness.UNVOUCHED, None))
# decided: the session's, left out as the merge branch's or from elsewhere, or mixed
_DECIDED = frozenset((witness.SESSION, _EXCLUDED, witness.ELSEWHERE, witness.MIXED))
# the verdicts ``--json``'s ``why`` gives each commit of the range
_WHY = {witness.SESSION: "counted", witness.MIXED: "mixed",
        _EXCLUDED: "already on the merge branch", witness.ELSEWHERE: "from elsewhere",
        witness.UNVOUCHED: "not vouched for", None: "not vouched for"}


class _Split:
    __slots__ = ("elsewhere", "excluded", "kinds", "mixed", "session", "unvouched_commits",
                 "verdict")

    def __init__(self, verdict: witness.Verdict) -> None:
        self.verdict = verdict
        self.mixed: list[str] = []
        self.session: list[str] = []
        self.excluded = 0
        self.elsewhere = 0
        self.unvouched_commits: list[str] = []  # in the range's order, newest first
        self.kinds: list[str | None] = []  # each commit's, in the range's order


def _explainer(facts: _Facts, trust: str, commits: list[str], split: _Split
               ) -> Callable[[int], list[tuple[str, str, str]]]:
    """The range's first ``cap`` commits, each with its verdict and evidence (``why``)."""
    def said(sha: str, kind: str | None) -> str:
        if trust == ESTIMATE:
            return ("an estimate reads no witness: counted as what the branch added, "
                    "whoever made it")
        if kind == _EXCLUDED:
            return (f"on {facts.merge}'s history (a merge of it brought it in), and no "
                    "session ledger line names this session for it")
        return split.verdict.evidence(sha)

    return lambda cap: [(sha, _WHY[kind], said(sha, kind))
                        for sha, kind in zip(commits[:cap], split.kinds[:cap])]


def _described(facts: _Facts, trust: str, boundary: str | None, counted: _Count | None,
               reason: str | None) -> Boundary:
    """Rung 4: the answer, its description and the note that says why it is what it is."""
    notes = facts.notes
    if boundary is None or counted is None:
        notes.append("no usable session boundary: the commit count is unknown; "
                     + _record_hint(facts))
        return Boundary(NONE, None, None, describe(NONE, None, None), notes, reason)
    split = _classify(facts, boundary, counted, trust)
    if trust == EXACT:
        trust = _checked(facts, boundary, counted, split)
    if trust == PRIOR:
        hint = ""
        if facts.hint:
            # recording at HEAD would leave out commits no hook saw: name them instead;
            # an amend with no rewrite pair no claim vouches for: said, never advised
            amends, rest = _amends(split, notes)
            if rest:
                hint = "; " + _unvouched(facts, boundary, rest, "this session made them all")
            elif not amends:
                hint = "; " + _record_hint(facts)
        notes.append("the boundary was recorded by an earlier session (or by no known "
                     "session), or cannot be vouched for: the count is best-effort" + hint)
    elif trust == ESTIMATE:
        notes.append(f"nothing usable recorded: range estimated from the branch point off "
                     f"{facts.merge}")
    if split.excluded:
        notes.append(f"{split.excluded} commits of the range came in from {facts.merge} "
                     "(a merge of it) and are not counted as this session's")
    if split.elsewhere:
        notes.append(f"{split.elsewhere} commits of the range were not made by this session "
                     "in this work tree (pulled, merged in from another branch, or copies "
                     "of such commits) and are not counted")
    total = len(split.session)
    desc = describe(trust, boundary, total, excluded=split.excluded, merge=facts.merge,
                    elsewhere=split.elsewhere)
    result = Boundary(trust, boundary, total, desc, notes, reason)
    result.excluded = split.excluded
    result.elsewhere = split.elsewhere
    result.session_commits = split.session
    result.mixed = split.mixed
    result.witness = split.verdict.source
    result.explain = _explainer(facts, trust, counted.commits, split)
    result.unvouched = split.unvouched_commits
    result.ranged = len(counted.commits)
    return result


NO_ID_HINT = ("to record this session's boundary, set LETS_SESSION_ID to the session's "
              "id (a UUID) first: no session id is set")


def go_to(top: str) -> str:
    """What an advised command runs first to act in the work tree at ``top``."""
    return f"cd {files.shell_word(top)} && "


def advise_from(branch: str, tops: Mapping[str, str]) -> str:
    """What an advised command about ``branch`` runs first where another branch is checked
    out (``lets-hooks record`` acts on the branch checked out where it runs): going to the
    work tree that has it checked out (``tops``: branch -> work tree), else switching to
    it. A name is one shell word (``files.shell_word``: git allows ``;`` and ``$(`` in
    one), after ``--`` when it starts with a dash."""
    if branch in tops:
        return go_to(tops[branch])
    dash = "-- " if branch.startswith("-") else ""
    return f"git switch {dash}{files.shell_word(branch)} && "


def _first(facts: _Facts) -> str:
    """What to do before a record, where one would be refused: a refused task file moved
    away, or one of the branches that share it renamed."""
    if facts.refused:
        return ("first move what was refused out of the way (lets-hooks record refuses it "
                "too), then ")
    if facts.sharing():
        return ("first rename one of the branches that share its task file (lets-hooks record "
                "refuses it too), then ")
    return ""


def _record_hint(facts: _Facts) -> str:
    """``run: lets-hooks record``; with no usable session id, to set one first; where a
    record would be refused, what to do first (``_first``)."""
    if not facts.session_id:
        return NO_ID_HINT
    return f"to record this session's boundary, {_first(facts)}run: {facts.prefix}{RECORD}"


def _unvouched(facts: _Facts, boundary: str, shas: list[str], condition: str) -> str:
    """``shas`` (no ledger line says who made them), and the ``record --at`` that would
    vouch for them, where it would claim them all: on HEAD's first-parent line above
    ``boundary``, off the merge branch (``hooks._vouch``)."""
    said = f"no session ledger line says who made {_named(shas)}"
    if not facts.session_id:
        return f"{said}; {NO_ID_HINT}"
    if not set(_own_line(facts, boundary)).issuperset(shas):
        return f"{said} (not all on this branch's own line: no record can vouch for them)"
    return (f"{said}; if {condition}, {_first(facts)}vouch for them with: "
            f"{facts.prefix}{RECORD} --at {boundary[:12]}")


ADVICE_CAP = 5  # commits advice names


def _amends(split: _Split, notes: list[str]) -> tuple[list[str], list[str]]:
    """The unvouched commits of the range that the session ledger holds as amends with no
    rewrite pair (no claim vouches for one: ``Ledger.status``), said in ``notes``, and the
    rest."""
    book = split.verdict.book
    amended = book.amended if book is not None else {}
    amends = [c for c in split.unvouched_commits if c in amended]
    if amends:
        notes.append(f"the session ledger holds amends with no rewrite pair ({_named(amends)}): "
                     "post-rewrite did not run, or, with no HEAD log, post-commit could not "
                     "tell a commit from an amend; they are counted, but not vouched for")
    return amends, [c for c in split.unvouched_commits if c not in amended]


def _named(shas: list[str]) -> str:
    more = f" and {len(shas) - ADVICE_CAP} more" if len(shas) > ADVICE_CAP else ""
    return ", ".join(sha[:12] for sha in shas[:ADVICE_CAP]) + more


def _checked(facts: _Facts, boundary: str, counted: _Count, split: _Split) -> str:
    """``exact`` as a checked claim: the ledger must vouch for every counted commit as
    this session's alone, and no commit the session made may lie below the boundary."""
    verdict = split.verdict
    notes = facts.notes
    if split.mixed:
        notes.extend(verdict.notes)
        more = f" (and {len(split.mixed) - 1} more)" if len(split.mixed) > 1 else ""
        notes.append(f"commit {split.mixed[0][:12]} holds this session's work and another's "
                     "(an amend, squash, fixup or reword of a commit this session did not "
                     f"make, or one another session changed){more}: it is "
                     "counted, and the count is best-effort")
        facts.hint = False  # no record of any kind makes a mixed commit the session's alone
        return PRIOR
    if split.unvouched_commits:
        notes.extend(verdict.notes)
        _, rest = _amends(split, notes)
        if rest:
            notes.append(f"{len(rest)} commits of the range have no line of this session "
                         "in the session ledger (made before the hooks were installed, by "
                         "plumbing or a tool git's hooks do not see, or a rewrite the hooks "
                         "did not see): they are counted, but not vouched for; "
                         + _unvouched(facts, boundary, rest, "they are this session's"))
        facts.hint = False
        return PRIOR
    # the session's commits the range does not hold (the first 500), the shorter of the two
    # lists made a set (a 100,000-commit range; status's short ranges: bench_hooks.py)
    candidates, commits = verdict.candidates, counted.commits
    if len(commits) < len(candidates):
        held = set(commits).__contains__
    else:
        held = set(candidates).intersection(commits).__contains__
    asked = list(islice(filterfalse(held, candidates), 500))
    below = facts.repo.reached(boundary, asked) if asked else []
    if below and not facts.on_merge:
        # a commit on the merge branch's own line (committed on main, the topic rebased onto
        # it) is main's work: it never makes the topic's boundary too high
        try:
            main_line = facts.repo.on_first_parent_lines(facts.tips, below)
        except GitError:
            main_line = set()
        below = [c for c in below if c not in main_line]
    changed = [c for c in below if c in verdict.changed]
    if changed:
        # no boundary counts it exactly: above it, the session's change is left out; below
        # it, another's work is counted. So no advice: every record of it is best-effort.
        notes.append(f"commit {changed[0][:12]} lies below the boundary {boundary[:12]} on HEAD "
                     "and holds this session's work and another's (an amend, squash, fixup "
                     "or reword of a commit this session did not make): no boundary counts "
                     "this session exactly, and the count is best-effort")
        split.mixed = changed
        facts.hint = False
        return PRIOR
    if below:
        under = [c for c in below if not c.startswith(boundary)]
        named, place = ((under[0], f"lies below the boundary {boundary[:12]} on HEAD") if under
                        else (below[0], "is the boundary itself"))
        notes.append(f"commit {named[:12]} was made by this session and {place}: the "
                     "boundary is too high, so the count is not exact")
        facts.hint = False
        where = _placed(facts)
        # advice only where it keeps them in the range: none can when the session made
        # the root commit (``record.place`` then answers HEAD)
        if where is not None and where != boundary and not facts.repo.reached(where, below):
            claimed = _claimed_below(facts, where, counted.commits)
            if claimed:
                # ``record --at`` there claims them as this session's too (``hooks._vouch``)
                notes.append("between it and the boundary, " + _unvouched(
                    facts, where, claimed, "this session made them too"))
            else:
                notes.append(f"to keep it in the range, {_first(facts)}run: "
                             f"{facts.prefix}{RECORD} --at {where[:12]}")
        return PRIOR
    return EXACT


def _claimed_below(facts: _Facts, where: str, ranged: list[str]) -> list[str]:
    """The commits of ``where``..HEAD a ``record --at where`` would claim that the range
    (``ranged``) does not hold: on HEAD's first-parent line, off the merge branch, and no
    evidence says who made them (``hooks._vouch``), newest first."""
    held = set(ranged)
    extra = [c for c in _own_line(facts, where) if c not in held]
    if not extra:
        return []
    verdict = facts.judge(extra, where, keep=False)
    return [c for c in extra if verdict.of(c) == witness.UNVOUCHED]


def _own_line(facts: _Facts, base: str) -> list[str]:
    """HEAD's first-parent line above ``base``, off the merge branch: what a ``record --at
    base`` claims (``hooks._vouch``), newest first; empty when git cannot say."""
    try:
        return facts.repo.first_parents_above(facts.head, [base, *facts.tips])
    except GitError:
        return []


def _placed(facts: _Facts) -> str | None:
    """Where a line written now would go for this session (``record.place``)."""
    from lets_hooks import record

    if facts.sid is None:
        return None
    try:
        return record.place(facts.repo, facts.where, facts.sid, facts.head, facts.merge,
                            facts.branch)
    except GitError:
        return None


def _check_merge_branch(facts: _Facts) -> None:
    """A configured merge branch that does not exist is said, with the nearest name."""
    if facts.tips or facts.config.merge_branch is None:
        return
    where = facts.config.sources.get("merge_branch", "configuration")
    try:
        close = suggest(facts.repo, facts.merge)
    except GitError:
        close = None
    hint = f"; did you mean {close!r}?" if close else ""
    facts.notes.append(f"merge branch {facts.merge!r} (from {where}): no such branch, "
                       f"neither origin/{facts.merge} nor {facts.merge}{hint}")


def suggest(repo: Repo, name: str) -> str | None:
    """The local or origin branch name closest to ``name`` (a likely typo), or None."""
    import difflib

    known = {branch for branch, _ in repo.branches()} | set(repo.origin_branches())
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _finish(result: Boundary, branch: str, head: str | None, recorded: state.Recorded,
            merge: str | None) -> Boundary:
    result.branch = branch
    result.head = head
    result.recorded = recorded.sha
    result.refused = recorded.refused
    result.merge_branch = merge
    return result


