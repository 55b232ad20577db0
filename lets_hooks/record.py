"""When a session line is written: on a branch checkout, by ``lets-hooks record``, and at
the start of a Claude Code session.

One rule (``touch``): no session line yet, write ``session: <HEAD> <sid>`` (sid-less when
no session is known). A line recorded by another session, or by no known session (a
sid-less line, or only a legacy file), while a session is known: this is the new
session's first touch of the branch, so replace it. The same session, or no session known
now: keep the line. The decision is taken under the task file's lock, on the line as it
is then, so a line another writer put there a moment ago is judged, not overwritten.
"""

from __future__ import annotations

from lets_hooks import state
from lets_hooks.repo import GitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lets_hooks.repo import Location, Repo


def touch(repo: Repo, where: Location, sid: str | None, now: float,
          force: bool = False) -> tuple[bool, str | None]:
    """Record the checked-out branch's line when the rule says so (``force``: whatever is
    there, ``lets-hooks record``). Returns (whether the file changed, the problem that
    kept it from being written, if any)."""
    top, branch, head = where.top, where.branch, where.head
    if top is None or branch is None or head is None:
        return False, None
    store = state.open_store(top, repo)
    if store.problem is not None:
        return False, store.problem
    legacy_only = False
    if not force:
        legacy = state.read_head(store.legacy_path(branch))[0]
        legacy_only = bool(legacy and state.tokens(state.first_line(legacy)))
    stamp = state.utc_stamp(now)

    def decide(current: state.Recorded) -> state.Line | None:
        if not force:
            if current.source == "task" and (sid is None or current.sid == sid):
                return None
            if current.source is None and legacy_only and sid is None:
                return None
        return state.Line(head, sid, stamp)

    if not force and decide(state.read_recorded(store, branch)) is None:
        return False, None  # the steady state of every checkout: no lock, no more git
    try:
        names: list[str] | None = [name for name, _ in repo.branches()]
    except GitError:
        names = None
    try:
        return state.update(store, branch, decide, names), None
    except state.StateError as exc:
        return False, str(exc)
