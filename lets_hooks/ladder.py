"""The validation ladder: the only code that decides how far a session boundary is trusted.

``resolve`` reads the branch's recorded boundary, validates it against the repository
(a commit, an ancestor of HEAD, not older than the branch point, not too old), falls back
to the branch point as an estimate, and counts the commits since. Everything else (the
four-line contract, ``--json``, the hooks' warnings, ``status`` rows, the summary's range
line) is a rendering of the ``Boundary`` it returns.
"""

from __future__ import annotations

from lets_hooks import state
from lets_hooks.repo import GitError, Location, Repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lets_hooks.config import Config

EXACT = "exact"
PRIOR = "prior-session"
ESTIMATE = "estimate"
NONE = "none"
SECONDS_PER_DAY = 86400


class Boundary:
    """A resolved boundary: computed once, rendered many ways."""

    __slots__ = ("boundary", "branch", "commits", "desc", "head", "merge_branch", "notes",
                 "reason", "recorded", "trust")

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
        self.merge_branch: str | None = None

    def lines(self) -> list[str]:
        """The four-line contract, read verbatim by other tools."""
        return [
            f"SESSION_BOUNDARY={self.boundary or 'none'}",
            f"SESSION_TRUST={self.trust}",
            f"SESSION_COMMITS={'unknown' if self.commits is None else self.commits}",
            f"SESSION_RANGE_DESC={self.desc}",
        ]

    def as_dict(self) -> dict[str, object]:
        return {
            "boundary": self.boundary,
            "trust": self.trust,
            "commits": self.commits,
            "desc": self.desc,
            "notes": list(self.notes),
            "reason": self.reason,
            "branch": self.branch,
            "head": self.head,
            "recorded": self.recorded,
            "merge_branch": self.merge_branch,
        }


def describe(trust: str, boundary: str | None, commits: int | None, detached: bool = False) -> str:
    if trust == EXACT:
        return f"session: {boundary}..HEAD ({commits} commits)"
    if trust == PRIOR:
        return (f"approx: {boundary}..HEAD ({commits} commits) - boundary recorded by an "
                "earlier session")
    if trust == ESTIMATE:
        return (f"approx: {boundary}..HEAD ({commits} commits) - estimated from the branch "
                "point, no boundary was recorded")
    if detached:
        return "boundary unknown - detached HEAD"
    return "boundary unknown - no valid session boundary for this branch"


def unknown(note: str, detached: bool = False) -> Boundary:
    """The fail-closed answer: no boundary, no count."""
    return Boundary(NONE, None, None, describe(NONE, None, None, detached), [note])


def resolve(repo: Repo, config: Config, session_id: str | None, now: int,
            branch: str | None = None, head: str | None = None,
            where: Location | None = None) -> Boundary:
    """Resolve, validate and count the session boundary of ``branch`` at ``head``.

    Without ``branch``, the checked-out branch at HEAD. ``head`` may be any revision;
    ``now`` is the current time in seconds (the age rung's clock).
    """
    if where is None:
        where = repo.locate()
    notes: list[str] = []
    if branch is None:
        branch = where.branch
        head = where.head
        if branch is None:
            return unknown("detached HEAD: there is no branch to keep a session boundary for",
                           detached=True)
    recorded = state.Recorded()
    if where.top is None:
        notes.append("no work tree here (bare repository, or inside .git): no session "
                     "state is read")
    else:
        recorded = state.read_recorded(where.top, branch)
        notes.extend(recorded.notes)

    merge = config.merge_branch or where.origin_head
    names: list[str] = []
    if head is not None and head != where.head:
        names.append(head + "^{commit}")
    if recorded.sha:
        names += [recorded.sha + "^{commit}", recorded.sha]
    candidates = [merge] if merge else ["main", "master"]
    for name in candidates:  # full ref names: a tag or branch called "main" is not main
        names += ["refs/remotes/origin/" + name, "refs/heads/" + name]
    if merge is None:
        names += ["refs/heads/main", "refs/remotes/origin/main"]
    try:
        found = {info.name: info for info in repo.objects(names)}
    except GitError as exc:
        return unknown(f"git failed: {exc}")
    if merge is None:
        has_main = found["refs/heads/main"].sha or found["refs/remotes/origin/main"].sha
        merge = "main" if has_main else "master"
    origin_tip = found["refs/remotes/origin/" + merge].sha
    local_tip = found["refs/heads/" + merge].sha

    if head is not None and head != where.head:
        head = found[head + "^{commit}"].sha
    if head is None:
        return _finish(Boundary(NONE, None, None, describe(NONE, None, None),
                                [*notes, "HEAD has no commit yet"]), branch, head, recorded, merge)

    on_merge = branch == merge
    cached: list[str | None] = []

    def merge_base() -> str | None:
        if not cached:
            base = repo.merge_base(head, origin_tip) if origin_tip else None
            if base is None and local_tip:
                base = repo.merge_base(head, local_tip)
            cached.append(base)
        return cached[0]

    trust = PRIOR
    if recorded.sha and recorded.source == "task" and recorded.sid and session_id \
            and recorded.sid == session_id:
        trust = EXACT
    boundary: str | None = None
    commits: int | None = None
    reason: str | None = None
    if recorded.sha:
        commit = found[recorded.sha + "^{commit}"].sha
        split = repo.ahead_behind(commit, head) if commit else None
        if commit is None:
            reason = "not a commit in this repository"
        elif split is None or split[0] != 0:
            reason = "not an ancestor of HEAD (rebased, reset, or another line of work)"
        elif not on_merge and _predates(repo, commit, merge_base()):
            reason = f"older than this branch's point off {merge}"
        else:
            stamp = found[recorded.sha].commit_time
            if found[recorded.sha].type != "commit" or stamp is None:
                reason = "its commit time cannot be read (not a plain commit)"
            else:
                age = _whole_days(now - stamp)
                if age > config.max_age_days:
                    reason = (f"{age} days old, past the {config.max_age_days}-day limit "
                              "for one session")
        if reason is None and split is not None:
            boundary, commits = recorded.sha, split[1]
        else:
            notes.append(f"recorded boundary {recorded.sha} rejected: {reason}")
            trust = NONE
    if boundary is None and not on_merge:
        base = merge_base()
        if base is not None:
            count = repo.count(base, head)
            if count is not None:
                boundary, commits, trust = base, count, ESTIMATE
    if boundary is None:
        trust = NONE
        notes.append("no usable session boundary: the commit count is unknown")
    elif trust == PRIOR:
        notes.append("the boundary was recorded by an earlier session (or by no known "
                     "session): the count is best-effort")
    elif trust == ESTIMATE:
        notes.append(f"nothing usable recorded: range estimated from the branch point off "
                     f"{merge}")
    result = Boundary(trust, boundary, commits, describe(trust, boundary, commits), notes,
                      reason)
    return _finish(result, branch, head, recorded, merge)


def _predates(repo: Repo, commit: str, base: str | None) -> bool:
    """True when ``commit`` is strictly older than the branch point ``base``."""
    return base is not None and commit != base and repo.is_ancestor(commit, base)


def _whole_days(seconds: int) -> int:
    """Whole days, truncated toward zero as shell arithmetic does."""
    days = abs(seconds) // SECONDS_PER_DAY
    return days if seconds >= 0 else -days


def _finish(result: Boundary, branch: str, head: str | None, recorded: state.Recorded,
            merge: str | None) -> Boundary:
    result.branch = branch
    result.head = head
    result.recorded = recorded.sha
    result.merge_branch = merge
    return result


def resolve_path(path: str, environ: Mapping[str, str], now: float,
                 session_id: str | None = None) -> Boundary:
    """Resolve for the repository containing ``path``; never raises (fails closed).

    The current session id is ``session_id`` when given, else read from ``environ``
    through the configured ``session_id_env``.
    """
    try:
        from lets_hooks import config as config_module

        repo = Repo(path)
        where = repo.locate()
        settings = config_module.load(where.top, environ)
        current = session_id or settings.session_id(environ)
        result = resolve(repo, settings, current, int(now), where=where)
        result.notes[:0] = settings.problems
        return result
    except Exception as exc:  # fail closed: a consumer always gets an answer
        return unknown(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
