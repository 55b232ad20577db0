"""When a session line is written: on a branch checkout, by ``lets-hooks record``, and at
the start of an agent's session; and how a new or renamed branch carries the boundary.

One rule (``touch``): no session line yet, write ``session: <HEAD> <sid>`` (sid-less when
no session is known). A line recorded by another session, or by no known session (a
sid-less line, or only a legacy file), while a session is known: the new session's first
touch of the branch, so replace it. The same session, or no session known now: keep it.
The decision is taken under the task file's lock, on the line as it is then.

Before a line is written at HEAD, where the branch came from is looked up in git's own
record (``carried``), so that the session's commits below HEAD stay the session's:

- ``git branch -m old new`` runs no hook: a branch with no state whose reflog says it was
  renamed takes the state its old name left (moved, under both locks);
- a branch first touched in this work tree whose line is in another work tree
  (``git worktree add wt feat``) takes that line;
- a branch made from HEAD while this session had its line on the branch it came from
  (``switch -c``, ``checkout -b``/``-B``: ``checkout: moving from X to Y``) starts with
  that boundary and its recorded time, when the boundary is an ancestor of the new HEAD
  and the new HEAD one of the commit the session left;
- from a detached HEAD whose every move since it left a branch was the session's own work
  (commit, amend, cherry-pick, revert, merge, rebase step), the same, through that
  branch: its boundary when the detached commits were built on its line, else the commit
  the HEAD was detached at;
- ``git worktree add -b new`` (null previous HEAD, ``branch: Created from <start>``): the
  line of the work tree whose HEAD it was made from;
- ``git branch feat``, the session's branch reset, ``git switch feat``: the branch's
  line, when ``feat`` was created at HEAD and has not moved, and the branch it came from
  stood there (its reflog);
- a new HEAD that holds the whole of the branch it came from (``switch -c next
  origin/main`` after the session's pull request was merged): that branch's line;
- commits on a detached HEAD with no line of this session: the detach point, marked
  approximate.

A boundary is never placed above a commit the session made: every carried boundary is
checked to be an ancestor of HEAD, and nothing is carried for an unknown session.
"""

from __future__ import annotations

import os

from lets_hooks import files, gitfiles, reflog, state
from lets_hooks.repo import NULL_SHA, GitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lets_hooks.repo import Location, Repo

REFLOG_LOOK = 50  # HEAD reflog entries read when following a detached HEAD back
PLACE_WINDOW = 5000  # the newest commits of HEAD looked through for the session's own
DETACHED_APPROX = ("commits made on a detached HEAD that no line of this session vouches "
                   "for")


def touch(repo: Repo, where: Location, sid: str | None, now: float,
          force: bool = False, previous: str | None = None,
          below_own: bool = True, merge: str | None = None
          ) -> tuple[bool, str | None, str | None]:
    """Record the checked-out branch's line when the rule says so (``force``: whatever is
    there, ``lets-hooks record``). ``previous``: HEAD before the checkout, for ``carried``.
    ``below_own``: keep every commit the session made on HEAD below the line (``place``).
    ``merge``: the configured merge branch (None: ``origin/HEAD``'s, else main or master).
    Returns (whether the file changed, the problem that kept it from being written, why
    git was left open to commit it: ``state.Store.unkept``)."""
    top, branch, head = where.top, where.branch, where.head
    if top is None or branch is None or head is None:
        return False, None, None
    store = state.open_store(top, repo)
    if store.problem is not None:
        return False, store.problem, None
    legacy_only = False
    stamp = state.utc_stamp(now)

    def keep(current: state.Recorded) -> bool:
        if current.source == "task" and (sid is None or current.sid == sid):
            return True
        return current.source is None and legacy_only and sid is None

    if not force:
        legacy = files.read_capped(store.legacy_path(branch))[0]
        legacy_only = bool(legacy and state.tokens(state.first_line(legacy)))
        current = state.read_recorded(store, branch)
        if keep(current):
            return False, None, None  # the steady state of every checkout: no lock, no git
    try:
        names: list[str] | None = [name for name, _ in repo.branches()]
    except GitError:
        names = None
    wanted = state.Line(head, sid, stamp)
    if not force:
        try:
            if current.source is None and not current.notes and names is not None \
                    and adopt_renamed(repo, where, store, branch, names):
                current = state.read_recorded(store, branch)
                if keep(current):
                    return True, None, None
            found = carried(repo, where, store, sid, previous, bare=current.source is None)
        except Exception:  # carrying is a refinement: the rule's own line is still right
            found = None
        if found is not None:
            wanted = found
    kept_below = False  # every commit of the session is known to be above the line
    if below_own and sid:
        try:
            placed, reaching, apart = _placement(repo, where, sid, head, merge)
            if wanted.sha in reaching or (wanted.sha == head and placed != head):
                wanted = state.Line(placed, sid, wanted.recorded_at or stamp)
            kept_below = wanted.sha not in reaching and (
                not apart or (len(apart) <= 500 and not repo.reached(wanted.sha, apart)))
        except GitError:
            kept_below = False

    def decide(current: state.Recorded) -> state.Line | None:
        return None if not force and keep(current) else wanted

    try:
        changed = state.update(store, branch, decide, names)
    except state.StateError as exc:
        return False, str(exc), None
    if changed and kept_below:
        from lets_hooks import ledger

        # the line keeps every commit of the session below it: say so, for the ladder
        ledger.note_written(gitfiles.common_dir(where.git_dir), wanted.sha, sid)
    return changed, None, store.unkept


# -- below the session's own commits ------------------------------------------------------

def place(repo: Repo, where: Location, sid: str | None, head: str,
          merge: str | None = None, branch: str | None = None) -> str:
    """Where a line written now at ``head`` goes for session ``sid``: ``head``, or, when
    the session ledger says the session made commits that ``head`` reaches, the highest
    commit of HEAD's first-parent line that reaches none of them, within the newest
    ``PLACE_WINDOW`` commits. Off the merge branch (``merge``: as ``touch``), the session's
    commits on that branch's own line are its work: a topic's line never goes below them.
    ``branch``: the branch the line is for (default: ``where``'s)."""
    return _placement(repo, where, sid, head, merge, branch)[0]


def _placement(repo: Repo, where: Location, sid: str | None, head: str,
               merge: str | None = None, branch: str | None = None
               ) -> tuple[str, set[str], list[str]]:
    """``place``'s answer, the window's commits that reach one of the session's (no line
    may stand on them), and the session's commits the line was not placed below: beyond
    the window, or left aside on the merge branch's own line (a line that reaches one of
    them is no line below every commit of the session: ``touch`` writes no mark for it)."""
    from lets_hooks import ledger

    if not sid or state.sid_problem(sid) is not None:
        return head, set(), []
    mine = ledger.read_from(gitfiles.common_dir(where.git_dir), None, sid, ()).session_work(
        sid)[0]
    if not mine:
        return head, set(), []
    from lets_hooks.rewrite import History

    parents = History(repo.window(head, PLACE_WINDOW)).parents
    apart = [c for c in mine if c not in parents] if len(parents) >= PLACE_WINDOW else []
    present = [c for c in mine if c in parents]
    if present:
        from lets_hooks.ladder import on_merge_line

        on_main = on_merge_line(repo, merge or where.origin_head, branch or where.branch,
                                present)
        present = [c for c in present if c not in on_main]
        apart += [c for c in mine if c in on_main]
    if not present:
        return head, set(), apart
    children: dict[str, list[str]] = {}
    for child, ups in parents.items():
        for up in ups:
            children.setdefault(up, []).append(child)
    reaching = set(present)
    stack = list(present)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in reaching:
                reaching.add(child)
                stack.append(child)
    commit: str | None = head
    while commit is not None and commit in reaching:
        line = parents.get(commit)
        commit = line[0] if line else None
    return commit or head, reaching, apart  # None: the session made the root commit


# -- git branch -m -------------------------------------------------------------------------

def renamed_from(repo: Repo, git_dir: str, branch: str) -> list[str]:
    """The names ``branch`` had before, newest first, as its reflog records the renames
    (``Branch: renamed refs/heads/old to refs/heads/new``)."""
    names: list[str] = []
    wanted = branch
    for _, message in repo.reflog(git_dir, "refs/heads/" + branch, REFLOG_LOOK):
        names_in = reflog.renamed(message)
        if names_in is not None and names_in[1] == wanted:
            wanted = names_in[0]
            if wanted == branch or wanted in names:
                break
            names.append(wanted)
    return names


def adopt_renamed(repo: Repo, where: Location, store: state.Store, branch: str,
                  names: list[str] | None = None) -> bool:
    """A branch with no state that was renamed (``git branch -m`` runs no hook) takes the
    state its old name left, when no branch has that name now. True when state moved."""
    old_names = renamed_from(repo, where.git_dir, branch)
    if not old_names:
        return False
    if names is None:
        names = [name for name, _ in repo.branches()]
    for old in old_names:
        if old in names:
            return False  # a branch has that name again: its state is its own
        if state.read_recorded(store, old).sha is not None:
            return state.move_branch(store, old, branch, names)
    return False


# -- where a branch came from ----------------------------------------------------------------

def carried(repo: Repo, where: Location, store: state.Store, sid: str | None,
            previous: str | None, bare: bool = True) -> state.Line | None:
    """The line a branch about to be recorded at HEAD should start with instead, or None
    (see the module's notes). ``bare``: the branch has no line in this work tree."""
    head, branch = where.head, where.branch
    assert head is not None and branch is not None
    # the start point the branch was just made from (``branch: Created from HEAD``, ``Reset
    # to`` for ``checkout -B``), when that is the newest entry of its reflog
    log = repo.reflog(where.git_dir, "refs/heads/" + branch, 1)
    created = reflog.created_from(log[0][1]) if log else None
    if bare and _has_worktrees(where.git_dir):
        found = _from_other_worktree(repo, where, branch, sid)
        if found is not None:
            return found
    if sid is None:
        return None
    if previous == NULL_SHA or previous is None:
        if created is not None and _has_worktrees(where.git_dir):
            return _from_worktree_head(repo, where, store, created, sid)
        return None
    return _from_checkout(repo, where, store, sid, previous)


def _has_worktrees(git_dir: str) -> bool:
    return os.path.isdir(os.path.join(gitfiles.common_dir(git_dir), "worktrees"))


def _session_line(store: state.Store, branch: str, sid: str) -> state.Recorded | None:
    found = state.read_recorded(store, branch)
    return found if found.source == "task" and found.sid == sid and found.sha else None


def _line(found: state.Recorded, sha: str | None = None) -> state.Line:
    assert found.sha is not None
    return state.Line(sha or found.sha, found.sid, found.recorded_at, found.approx)


def _full(repo: Repo, sha: str) -> str | None:
    """A recorded sha as a full commit name: as written when full (the ancestor question
    checks it is a commit), else asked of git."""
    if files.is_sha(sha):
        return sha
    info = repo.objects([sha + "^{commit}"])[0]
    return info.sha if info.type == "commit" else None


def _from_checkout(repo: Repo, where: Location, store: state.Store, sid: str,
                   previous: str) -> state.Line | None:
    """``checkout: moving from X to <branch>``: X's line, or through a detached HEAD."""
    head, branch = where.head, where.branch
    assert head is not None and branch is not None
    log = repo.reflog(where.git_dir, "HEAD", REFLOG_LOOK)
    if not log or log[0][0] != head:
        return None
    source, target = reflog.moved(log[0][1])
    if source is None or target != branch:
        return None
    if not files.is_sha(source):  # else a detached HEAD's name (``moving from <sha> to x``)
        found = _session_line(store, source, sid)
        if found is None or found.sha is None:
            return None
        boundary = _full(repo, found.sha)
        if boundary is None:
            return None
        if previous != head and not repo.is_ancestor(head, previous) \
                and not _made_from(repo, where.git_dir, branch, source, head) \
                and (boundary == previous or not repo.is_ancestor(previous, head)):
            # made somewhere else than the session's line (a start that holds all of it
            # while the session had made commits there, its own merged pull request,
            # carries it: those commits stay the session's)
            return None
        if not repo.is_ancestor(boundary, head):
            return None
        return _line(found)
    return _from_detached(repo, store, sid, head, log)


def _made_from(repo: Repo, git_dir: str, branch: str, source: str, head: str) -> bool:
    """``branch`` was created at ``head`` and has not moved (``git branch feat``), and
    ``source`` stood at ``head`` in its recent history (commits made on ``source`` by
    mistake, moved to a new branch, then ``source`` reset): they stay the session's."""
    log = repo.reflog(git_dir, "refs/heads/" + branch, 1)
    if not log or log[0][0] != head or reflog.created_from(log[0][1]) is None:
        return False
    return any(sha == head for sha, _ in repo.reflog(git_dir, "refs/heads/" + source,
                                                      REFLOG_LOOK))


def _from_detached(repo: Repo, store: state.Store, sid: str, head: str,
                   log: list[tuple[str, str]]) -> state.Line | None:
    """A branch made on a detached HEAD: back through the reflog over the commits made
    while detached, to the checkout that left a branch."""
    for index in range(1, len(log)):
        detached_at, message = log[index]
        source, _ = reflog.moved(message)
        if source is not None:
            if files.is_sha(source):
                return None  # moved about while detached: not only the session's work
            found = _session_line(store, source, sid)
            if found is None or found.sha is None:
                if index == 1 or not repo.is_ancestor(detached_at, head):
                    return None
                # Commits made on a detached HEAD with no line of this session to say
                # they are its own (it began there, or took over another's detached
                # work): they are kept in the range, but not claimed exact.
                return state.Line(detached_at, sid, None, DETACHED_APPROX)
            left_at = log[index + 1][0] if index + 1 < len(log) else None
            if not repo.is_ancestor(detached_at, head):
                return None
            boundary = _full(repo, found.sha)
            on_line = (boundary is not None and left_at is not None
                       and repo.is_ancestor(boundary, detached_at)
                       and repo.is_ancestor(detached_at, left_at))
            return _line(found) if on_line else _line(found, detached_at)
        if not reflog.makes_commit(message):
            return None  # a reset, a pull, a rebase's checkout: not only the session's
    return None


def _from_worktree_head(repo: Repo, where: Location, store: state.Store, start: str,
                        sid: str) -> state.Line | None:
    """``git worktree add -b <branch> <path> [<start>]``: the line of the branch checked
    out in the work tree whose HEAD (or whose named branch) the new one was made from."""
    head = where.head
    assert head is not None
    lines: dict[tuple[str, str | None, str | None], state.Recorded] = {}
    for top, at, checked_out in repo.worktree_heads():
        if top == where.top or checked_out is None \
                or (at != head if start == "HEAD" else start != checked_out):
            continue
        other = state.open_store(top, repo)
        if other.problem is not None:
            continue
        found = _session_line(other, checked_out, sid)
        if found is not None and found.sha is not None:
            lines[(found.sha, found.recorded_at, found.approx)] = found
    if len(lines) != 1:
        return None  # none, or several work trees it may have come from
    found = next(iter(lines.values()))
    assert found.sha is not None
    boundary = _full(repo, found.sha)
    if boundary is None or not repo.is_ancestor(boundary, head):
        return None
    return _line(found)


def _from_other_worktree(repo: Repo, where: Location, branch: str,
                         sid: str | None) -> state.Line | None:
    """A branch first touched in this work tree: its line in another work tree (this
    session's, or any when no session is known), copied as it is, when its boundary is an
    ancestor of HEAD."""
    head = where.head
    assert head is not None and where.top is not None
    mine = os.path.realpath(state.sessions_dir(where.top))
    for top, _, _ in repo.worktree_heads():
        if top == where.top or os.path.realpath(state.sessions_dir(top)) == mine:
            continue  # this work tree, or one sharing its .lets
        other = state.open_store(top, repo)
        if other.problem is not None:
            continue
        found = state.read_recorded(other, branch)
        if found.source == "task" and found.sha and (sid is None or found.sid == sid):
            boundary = _full(repo, found.sha)
            if boundary is not None and repo.is_ancestor(boundary, head):
                return _line(found)
    return None


def recarry(repo: Repo, where: Location, sid: str | None, previous: str | None
            ) -> bool:
    """This session's own line was just rejected as no ancestor of HEAD after a checkout
    (``git checkout -B name`` reset a branch the session had touched): take the line of
    the branch the checkout came from instead, when one carries. True when rewritten."""
    if sid is None or where.top is None or where.branch is None or where.head is None:
        return False
    store = state.open_store(where.top, repo)
    if store.problem is not None:
        return False
    seen = state.read_recorded(store, where.branch)
    if seen.source != "task" or seen.sid != sid:
        return False
    try:
        found = carried(repo, where, store, sid, previous, bare=False)
    except GitError:
        return False
    if found is None or found.sha == seen.sha:
        return False

    def decide(current: state.Recorded) -> state.Line | None:
        return found if current.line == seen.line else None

    try:
        names = [name for name, _ in repo.branches()]
        return state.update(store, where.branch, decide, names)
    except (GitError, state.StateError):
        return False


def lift(repo: Repo, where: Location, sid: str | None, written: str, base: str) -> bool:
    """A boundary just carried onto this branch is older than the branch's point off the
    merge branch (the session's line was on main, and main took others' commits since):
    what lies below that point is main's, not this branch's work, so the boundary goes up
    to ``base`` (the ladder's own estimate), keeping its recorded time, while the line is
    still the one written (``written``) and ``base`` descends from it. True when rewritten."""
    if sid is None or where.top is None or where.branch is None:
        return False
    store = state.open_store(where.top, repo)
    if store.problem is not None:
        return False
    seen = state.read_recorded(store, where.branch)
    if seen.source != "task" or seen.sid != sid or seen.sha != written:
        return False
    try:
        full = _full(repo, written)
        if full is None or not repo.is_ancestor(full, base):
            return False
        names = [name for name, _ in repo.branches()]

        def decide(current: state.Recorded) -> state.Line | None:
            return _line(current, base) if current.line == seen.line else None

        return state.update(store, where.branch, decide, names)
    except (GitError, state.StateError):
        return False
