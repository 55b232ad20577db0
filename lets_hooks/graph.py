"""The commit graph in memory, for answering the ladder's questions about many branches
with a fixed number of git processes.

``Graph`` parses one ``git rev-list --parents --topo-order`` walk over every tip of
interest. In that order every commit comes before its parents, so a commit's position is
a topological index: an ancestor always has a larger index than its descendants, and a
walk that pops the smallest index first has seen all of a commit's descendants (within
the walk) before it sees the commit. That makes each answer below exact, with the same
meaning git gives it:

- ``is_ancestor(a, b)``: ``git merge-base --is-ancestor a b``
- ``ahead_behind(a, b)``: ``git rev-list --left-right --count a...b``
- ``merge_bases(a, b)``: ``git merge-base --all a b`` (as a set)

``BatchRepo`` is a ``Repo`` whose history questions are answered from a ``Graph`` and
whose object lookups come from one prefetched ``cat-file``; anything it cannot answer
(a name not prefetched, a commit outside the graph, a pair with several merge bases,
where git's own choice among them is the answer) goes to git as before. The ladder runs
on it unchanged: the one ladder, fed by batched facts.
"""

from __future__ import annotations

import heapq

from lets_hooks.repo import Location, ObjectInfo, Repo

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
        index: dict[bytes, int] = {}
        for i, line in enumerate(lines):
            index[line[:width]] = i
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

    def __len__(self) -> int:
        return len(self.parents)

    def __contains__(self, sha: str) -> bool:
        return sha.encode() in self.index

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

    def ahead_behind(self, a: int, b: int) -> tuple[int, int]:
        """(commits reachable from a only, commits reachable from b only)."""
        if a == b:
            return 0, 0
        flags = {a: LEFT, b: RIGHT}
        heap = [a, b]
        heapq.heapify(heap)
        live = 2  # queued commits not yet known to be reachable from both sides
        left = right = 0
        parents = self.parents
        while live:
            i = heapq.heappop(heap)
            mark = flags[i]
            if mark != BOTH:
                live -= 1
                if mark == LEFT:
                    left += 1
                else:
                    right += 1
            for p in parents[i]:
                old = flags.get(p)
                if old is None:
                    flags[p] = mark
                    heapq.heappush(heap, p)
                    if mark != BOTH:
                        live += 1
                elif old | mark != old:
                    flags[p] = old | mark
                    if old != BOTH and old | mark == BOTH:
                        live -= 1
        return left, right

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


class BatchRepo(Repo):
    """A ``Repo`` answering from a prefetched graph and object table, git otherwise."""

    def __init__(self, base: Repo, where: Location, graph: Graph,
                 objects: Iterable[ObjectInfo]) -> None:
        super().__init__(base.cwd, base.git)
        self.calls = base.calls
        self.where = where
        self.graph = graph
        self.known = {info.name: info for info in objects}
        self.fallbacks = 0  # questions the graph could not answer alone

    def locate(self) -> Location:
        return self.where

    def objects(self, names: Sequence[str]) -> list[ObjectInfo]:
        missing = [n for n in names if n not in self.known]
        if missing:
            self.fallbacks += 1
            for info in super().objects(missing):
                self.known[info.name] = info
        return [self.known[n] for n in names]

    def _both(self, a: str, b: str) -> tuple[int, int] | None:
        i, j = self.graph.find(a), self.graph.find(b)
        if i is None or j is None:
            self.fallbacks += 1
            return None
        return i, j

    def merge_base(self, a: str, b: str) -> str | None:
        pair = self._both(a, b)
        if pair is None:
            return super().merge_base(a, b)
        self.graph.reach(pair[1])  # b is a merge tip, asked about again for every branch
        bases = self.graph.merge_bases(*pair)
        if len(bases) > 1:  # which one git prints is git's choice: ask git
            self.fallbacks += 1
            return super().merge_base(a, b)
        return self.graph.sha(bases[0]) if bases else None

    def is_ancestor(self, a: str, b: str) -> bool:
        pair = self._both(a, b)
        if pair is None:
            return super().is_ancestor(a, b)
        return self.graph.is_ancestor(*pair)

    def ahead_behind(self, base: str, head: str) -> tuple[int, int] | None:
        pair = self._both(base, head)
        if pair is None:
            return super().ahead_behind(base, head)
        return self.graph.ahead_behind(*pair)

    def count(self, base: str, head: str) -> int | None:
        pair = self._both(base, head)
        if pair is None:
            return super().count(base, head)
        return self.graph.ahead_behind(*pair)[1]
