"""The commit graph in memory, for answering the ladder's questions about many branches
with a fixed number of git processes.

``Graph`` parses one ``git rev-list --parents --topo-order`` walk over every tip of
interest. In that order every commit comes before its parents, so a commit's position is
a topological index: an ancestor always has a larger index than its descendants, and a
walk that pops the smallest index first has seen all of a commit's descendants (within
the walk) before it sees the commit. That makes each answer below exact, with the same
meaning git gives it:

- ``is_ancestor(a, b)``: ``git merge-base --is-ancestor a b``
- ``merge_bases(a, b)``: ``git merge-base --all a b`` (as a set)
- ``outside(head, stops)``: ``git rev-list head ^stops...`` (as a set)
- ``first_parent_floor(head, stops)``: ``Repo.first_parent_floor``

(Exact, where git's own walks with a ``^`` name go by commit dates and can be misled by
dates that run backwards: the graph goes by the order alone.)

``BatchRepo`` is a ``Repo`` answering history questions from a ``Graph`` and object
lookups from one prefetched ``cat-file``; what it cannot answer (a name not prefetched, a
commit outside the graph, a pair with several merge bases: git's choice) goes to git.
The ladder runs on it unchanged.
"""

from __future__ import annotations

import heapq

from lets_hooks.repo import Floor, Location, ObjectInfo, Repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

LEFT, RIGHT, STALE = 1, 2, 4
BOTH = LEFT | RIGHT


class Graph:
    """Commits (as topological indexes) and their parents."""

    def __init__(self, raw: bytes) -> None:
        lines = raw.split(b"\n")
        while lines and not lines[-1]:
            lines.pop()
        width = lines[0].find(b" ") if lines else 40
        if width < 0:
            width = len(lines[0])
        self.width = width
        index = {line[:width]: i for i, line in enumerate(lines)}
        single = 2 * width + 1
        parents: list[tuple[int, ...]] = []
        for line in lines:
            size = len(line)
            if size == width:
                parents.append(())
            elif size == single:
                parents.append((index[line[width + 1:]],))
            else:
                parents.append(tuple(index[p] for p in line[width + 1:].split()))
        self.index = index
        self.parents = parents
        self.lines = lines
        self._reach: dict[int, bytearray] = {}

    def find(self, sha: str) -> int | None:
        return self.index.get(sha.encode())

    def sha(self, i: int) -> str:
        return self.lines[i][:self.width].decode()

    # -- questions -----------------------------------------------------------------------
    def is_ancestor(self, a: int, b: int) -> bool:
        """Is ``a`` reachable from ``b`` (or the same commit)?"""
        if a == b:
            return True
        if a < b:
            return False  # an ancestor always comes later in the order
        reach = self._reach.get(b)
        if reach is not None:
            return bool(reach[a])
        parents = self.parents
        seen = {b}
        stack = [b]
        while stack:
            for p in parents[stack.pop()]:
                if p == a:
                    return True
                if p < a and p not in seen:  # past a's position nothing leads to it
                    seen.add(p)
                    stack.append(p)
        return False

    def merge_bases(self, a: int, b: int) -> list[int]:
        """Every best common ancestor of a and b (none is an ancestor of another)."""
        if a == b:
            return [a]
        reach = self._reach.get(b)
        if reach is not None:
            return self._bases_by_reach(a, reach)
        flags = {a: LEFT, b: RIGHT}
        heap = [a, b]
        heapq.heapify(heap)
        live = 2  # queued commits not yet below a common ancestor found
        found = []
        parents = self.parents
        while live:
            i = heapq.heappop(heap)
            mark = flags[i]
            if not mark & STALE:
                live -= 1
                if mark == BOTH:
                    found.append(i)
                    mark |= STALE
                    flags[i] = mark
            for p in parents[i]:
                old = flags.get(p)
                if old is None:
                    flags[p] = mark
                    heapq.heappush(heap, p)
                    if not mark & STALE:
                        live += 1
                elif old | mark != old:
                    flags[p] = old | mark
                    if not old & STALE and mark & STALE:
                        live -= 1
        return found

    def reach(self, tip: int) -> bytearray:
        """Everything reachable from ``tip``, as a mark per commit (computed once)."""
        marks = self._reach.get(tip)
        if marks is None:
            marks = bytearray(len(self.parents))
            marks[tip] = 1
            stack = [tip]
            parents = self.parents
            while stack:
                for p in parents[stack.pop()]:
                    if not marks[p]:
                        marks[p] = 1
                        stack.append(p)
            self._reach[tip] = marks
        return marks

    def outside(self, head: int, stops: Sequence[int]) -> list[int]:
        """Commits reachable from ``head`` and from none of ``stops``, children first.

        A walk down from ``head`` that stops at every commit reachable from a stop
        (decided per commit by ``_Reached``): the cost is the commits listed, their
        frontier, and the stops' own commits above that frontier."""
        below = _Reached(self, stops)
        if below.reaches(head):
            return []
        parents = self.parents
        seen = {head}
        stack = [head]
        found = []
        while stack:
            i = stack.pop()
            found.append(i)
            for p in parents[i]:
                if p not in seen:
                    seen.add(p)
                    if not below.reaches(p):
                        stack.append(p)
        found.sort()
        return found

    def first_parent_floor(self, head: int, stops: Sequence[int]) -> tuple[int | None, int,
                                                                            bool]:
        """(the first commit of ``head``'s first-parent line reachable from any of
        ``stops``, or None at a root; how many line commits come before it; whether none
        of those has several parents). Of an unmarked stop's history only what lies above
        the floor is walked (``_Reached``)."""
        below = _Reached(self, stops)
        parents = self.parents
        count = 0
        linear = True
        commit = head
        while not below.reaches(commit):
            ps = parents[commit]
            count += 1
            if len(ps) > 1:
                linear = False
            elif not ps:
                return None, count, linear
            commit = ps[0]
        return commit, count, linear

    def _bases_by_reach(self, a: int, reach: bytearray) -> list[int]:
        """Merge bases of a and a tip whose reach is known: the first commits reachable
        from that tip on every path down from a, less those below another of them."""
        if reach[a]:
            return [a]
        seen = {a}
        stack = [a]
        frontier = []
        parents = self.parents
        while stack:
            for p in parents[stack.pop()]:
                if p in seen:
                    continue
                seen.add(p)
                if reach[p]:
                    frontier.append(p)
                else:
                    stack.append(p)
        if len(frontier) <= 1:
            return frontier
        frontier.sort()
        return [c for c in frontier
                if not any(o < c and self.is_ancestor(c, o) for o in frontier)]


class _Reached:
    """Which commits are reachable from some sources, found lazily.

    A source whose reach the graph has marked (``Graph.reach``) answers by its mark; the
    others are walked down together, smallest index first, pruned at marked commits.
    Asked about ``i``, the walk takes every queued commit with a smaller index: every
    path from a source to ``i`` runs through those, so ``i`` is then found exactly when
    it is reachable. The walk only moves forward: each commit is taken once.
    """

    __slots__ = ("heap", "marks", "parents", "seen")

    def __init__(self, graph: Graph, sources: Sequence[int]) -> None:
        self.parents = graph.parents
        reach = graph._reach  # one mark per marked source, however often it is named
        self.marks = list({i: reach[i] for i in sources if i in reach}.values())
        self.seen = {i for i in sources if i not in reach and not self._marked(i)}
        self.heap = sorted(self.seen)

    def _marked(self, i: int) -> bool:
        return any(m[i] for m in self.marks)

    def reaches(self, i: int) -> bool:
        """Is ``i`` reachable from a source (or a source itself)?"""
        if self._marked(i):
            return True
        heap, seen, parents = self.heap, self.seen, self.parents
        while heap and heap[0] < i:
            for p in parents[heapq.heappop(heap)]:
                if p not in seen and not self._marked(p):
                    seen.add(p)
                    heapq.heappush(heap, p)
        return i in seen


class BatchRepo(Repo):
    """A ``Repo`` answering from a prefetched graph and object table, git otherwise."""

    def __init__(self, base: Repo, where: Location, graph: Graph,
                 objects: Iterable[ObjectInfo]) -> None:
        super().__init__(base.cwd, base.git)
        self.calls = base.calls
        self._worktree_list = base._worktree_list  # the work trees as base was told them
        self.where = where
        self.graph = graph
        self.known = {info.name: info for info in objects}
        self._asked: dict[int, int] = {}  # a stop or exclusion -> a head it was asked for
        self.listed: list[tuple[str, str]] | None = None  # the local branches, once known

    def locate(self) -> Location:
        return self.where

    def branches(self) -> list[tuple[str, str]]:
        if self.listed is None:
            self.listed = super().branches()
        return self.listed

    def objects(self, names: Sequence[str]) -> list[ObjectInfo]:
        missing = [n for n in names if n not in self.known]
        if missing:
            for info in super().objects(missing):
                self.known[info.name] = info
        return [self.known[n] for n in names]

    def merge_base(self, a: str, b: str) -> str | None:
        pair = self._indexes([a, b])
        if pair is None:
            return super().merge_base(a, b)
        self.graph.reach(pair[1])  # b is a merge tip, asked about again for every branch
        bases = self.graph.merge_bases(*pair)
        if len(bases) > 1:  # which one git prints is git's choice: ask git
            return super().merge_base(a, b)
        return self.graph.sha(bases[0]) if bases else None

    def is_ancestor(self, a: str, b: str) -> bool:
        pair = self._indexes([a, b])
        if pair is None:
            return super().is_ancestor(a, b)
        return self.graph.is_ancestor(*pair)

    def _indexes(self, shas: Sequence[str]) -> list[int] | None:
        """Each name's place in the graph; None when one is not in it."""
        index = self.graph.index
        try:
            return [index[sha.encode()] for sha in shas]
        except KeyError:
            return None

    def _shared(self, head: str, others: Sequence[str]) -> list[int] | None:
        """``_indexes`` of ``head`` and ``others``, the reach of each of ``others`` marked
        once it is asked about for a second, different head: that is a tip every branch
        asks about (the merge branch's), marked once for all of them, while a branch's own
        boundary stays a lazy walk as deep as its answer needs."""
        found = self._indexes([head, *others])
        if found is not None:
            for i in found[1:]:
                if self._asked.setdefault(i, found[0]) != found[0]:
                    self.graph.reach(i)
        return found

    def first_parent_floor(self, head: str, stops: Sequence[str]) -> Floor | None:
        found = self._shared(head, stops)
        if found is None:
            return super().first_parent_floor(head, stops)
        graph = self.graph
        stop, count, linear = graph.first_parent_floor(found[0], found[1:])
        printed = graph.outside(found[0], found[1:]) if found[1:] else sorted(
            i for i, m in enumerate(graph.reach(found[0])) if m)
        floor = GraphFloor(None if stop is None else graph.sha(stop), count, linear)
        floor.graph = graph
        floor.printed = printed
        return floor

    def first_parents_above(self, tip: str, stops: Sequence[str]) -> list[str]:
        found = self._shared(tip, stops)
        if found is None:
            return super().first_parents_above(tip, stops)
        graph = self.graph
        _, count, _ = graph.first_parent_floor(found[0], found[1:])
        line = [found[0]]
        while len(line) < count:
            line.append(graph.parents[line[-1]][0])
        return [graph.sha(i) for i in line[:count]]

    def listing(self, head: str, exclude: Sequence[str]) -> list[str]:
        found = self._shared(head, exclude)
        if found is None:
            return super().listing(head, exclude)
        return [self.graph.sha(i) for i in self.graph.outside(found[0], found[1:])]

    def above(self, base: str, head: str) -> tuple[bool, list[str]]:
        pair = self._indexes([base, head])
        if pair is None:
            return super().above(base, head)
        if not self.graph.is_ancestor(*pair):
            return False, []
        return True, [self.graph.sha(i) for i in self.graph.outside(pair[1], [pair[0]])]

    def merge_bases(self, a: str, b: str) -> list[str]:
        pair = self._indexes([a, b])
        if pair is None:
            return super().merge_bases(a, b)
        self.graph.reach(pair[1])
        return [self.graph.sha(i) for i in self.graph.merge_bases(*pair)]

    def walk(self, tips: Sequence[str], exclude: Sequence[str] = ()) -> bytes:
        found = self._indexes([*tips, *exclude])
        if found is None or len(tips) != 1:
            return super().walk(tips, exclude)
        graph = self.graph
        lines = [" ".join([graph.sha(i), *(graph.sha(p) for p in graph.parents[i])])
                 for i in graph.outside(found[0], found[1:])]
        return ("\n".join(lines) + "\n").encode() if lines else b""

    def reached(self, tip: str, candidates: Sequence[str]) -> list[str]:
        at = self.graph.find(tip)
        if at is None:
            return super().reached(tip, candidates)
        # a commit outside the graph is reachable from no tip, so not from this one
        found = ((sha, self.graph.find(sha)) for sha in candidates)
        return [sha for sha, i in found if i is not None and self.graph.is_ancestor(i, at)]


class GraphFloor(Floor):
    """A ``Floor`` whose listing is the graph's, not a walk's output."""

    __slots__ = ("graph", "printed")
    graph: Graph
    printed: list[int]

    def commits(self) -> list[str]:
        printed = self.printed[:self.count] if self.linear else self.printed
        return [self.graph.sha(i) for i in printed]

    def frontier(self) -> list[str]:
        inside = set(self.printed)
        parents = self.graph.parents
        out = dict.fromkeys(p for i in self.printed for p in parents[i] if p not in inside)
        return [self.graph.sha(p) for p in out]
