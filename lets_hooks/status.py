"""``lets-hooks status``: the ladder's answer for every local branch, in five git processes
whatever the number of branches: ``rev-parse``, ``for-each-ref``, ``worktree list`` (a
branch's state lives in the work tree it is checked out in), one ``cat-file --batch`` for
every object name any branch's ladder asks about, and one ``rev-list`` for the commit graph
under every tip. The ladder then runs once per branch on a ``BatchRepo`` answering from those.
"""

from __future__ import annotations

from lets_hooks import config, ladder, state
from lets_hooks.graph import BatchRepo, Graph
from lets_hooks.repo import Location, Repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence


class Row:
    """One branch: the ladder's ``Boundary`` and what else the table says about it."""

    __slots__ = ("boundary", "branch", "current", "shares_with", "top")

    def __init__(self, branch: str, current: bool, boundary: ladder.Boundary, top: str | None,
                 shares_with: list[str]) -> None:
        self.branch = branch
        self.current = current
        self.boundary = boundary
        self.top = top
        self.shares_with = shares_with

    def reason(self) -> str:
        """Why the row is what it is, in a few words."""
        b = self.boundary
        parts = []
        if b.reason is not None:
            parts.append(f"recorded {b.recorded[:12] if b.recorded else '?'} rejected: "
                         f"{b.reason}")
        elif b.trust == ladder.PRIOR:
            parts.append("recorded by an earlier session")
        elif b.trust == ladder.ESTIMATE:
            parts.append(f"{b.refused or 'nothing recorded'}; estimated from the branch "
                         f"point off {b.merge_branch}")
        elif b.trust == ladder.NONE:
            parts.append(b.refused or ("nothing recorded" if b.recorded is None
                                       else "no usable boundary"))
        if self.shares_with:
            parts.append(f"shares .task-{state.slug(self.branch)} with "
                         + ", ".join(repr(o) for o in self.shares_with))
        return "; ".join(parts)

    def as_dict(self) -> dict[str, object]:
        return {**self.boundary.as_dict(), "current": self.current,
                "shares_state_with": list(self.shares_with), "why": self.reason()}


def state_top(branch: str, here: str, tops: Mapping[str, str],
              stores: Mapping[str, state.Store]) -> str:
    """The work tree whose state answers for ``branch``: the one it is checked out in
    (``tops``); else ``here``, unless only another work tree has a line for it.
    ``stores``: the work trees' states, ``here`` and those of ``tops`` at least."""
    if branch in tops:
        return tops[branch]
    if state.read_recorded(stores[here], branch).sha is None:
        for top, store in stores.items():
            if top != here and state.read_recorded(store, branch).sha is not None:
                return top
    return here


def location_for(repo: Repo, where: Location, branch: str, tops: Mapping[str, str],
                 stores: dict[str, state.Store] | None = None) -> Location:
    """``where`` as seen for ``branch``, not ``where``'s own (``--branch``, pre-push): its
    state's work tree by ``state_top``. ``stores``: the states opened so far, kept."""
    if branch in tops:
        top = tops[branch]
    elif where.top is None:
        return where
    else:
        stores = {} if stores is None else stores
        for each in dict.fromkeys([where.top, *tops.values()]):
            if each not in stores:
                stores[each] = state.open_store(each, repo)
        top = state_top(branch, where.top, tops, stores)
    return Location(top, where.git_dir, where.branch, where.head, where.origin_head)


def prefetched(repo: Repo, where: Location, merge: str | None,
               asked: Iterable[tuple[str, str | None]], remote_tips: Sequence[str]
               ) -> BatchRepo:
    """A ``BatchRepo`` for the ladder's answers at every (head, recorded sha) of ``asked``:
    every name they look up in one ``cat-file``; the history under those commits and
    ``remote_tips`` in one walk."""
    names = [name for head, recorded in asked for name in ladder.names(head, recorded, merge)]
    objects = repo.objects(list(dict.fromkeys(names)))
    tips = set(remote_tips)
    tips.update(info.sha for info in objects if info.type == "commit" and info.sha)
    graph = Graph(repo.walk(sorted(tips)))
    return BatchRepo(repo, where, graph, objects)


def rows(cwd: str | None, environ: Mapping[str, str], now: int) -> tuple[list[Row], Repo]:
    """Every local branch's row, sorted by name; also the repo (its ``calls`` count)."""
    repo = Repo(cwd)
    where = repo.locate()
    listed, remote_tips = repo.branches_and_remotes()
    branches = sorted(listed)
    # the work trees, listed once: the stores' link checks and the ladder read that list
    tops = repo.worktrees() if where.top is not None and branches else {}
    stores = {top: state.open_store(top, repo)
              for top in dict.fromkeys([*tops.values(), where.top]) if top is not None}
    settings = config.load(where.top, environ, where.git_dir,
                           store=stores.get(where.top) if where.top is not None else None)
    sid = settings.session_id(environ)
    if not branches:
        return [], repo
    top_of = {name: None if where.top is None else state_top(name, where.top, tops, stores)
              for name, _ in branches}
    asked = [(sha, None if top is None else state.read_recorded(stores[top], name).sha)
             for (name, sha), top in zip(branches, top_of.values())]
    batch = prefetched(repo, where, settings.merge_branch or where.origin_head, asked,
                       remote_tips)
    batch.listed = listed
    slugs: dict[str, list[str]] = {}
    for name, _ in branches:
        slugs.setdefault(state.slug(name), []).append(name)
    table = []
    for name, sha in branches:
        top = top_of[name]
        at = Location(top, where.git_dir, where.branch, where.head, where.origin_head)
        store = stores.get(top) if top is not None else None
        current = name == where.branch  # resolved as checked out: at HEAD, as it is
        result = ladder.resolve(batch, settings, sid, now, None if current else name,
                                None if current else sha, where=at, store=store)
        others = [o for o in slugs[state.slug(name)] if o != name]
        table.append(Row(name, current, result, top, others))
    repo.calls = batch.calls
    return table, repo
