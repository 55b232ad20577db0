"""The in-memory graph gives git's own answers: checked against git on random DAGs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lets_hooks.graph import BatchRepo, Graph
from lets_hooks.repo import Floor, Location, Repo


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    """Commits 0..n-1, each with 0-3 parents among the earlier ones, and skewed dates."""
    n = draw(st.integers(2, 24))
    parents: list[list[int]] = [[]]
    for i in range(1, n):
        root = draw(st.booleans()) if i < 4 else False
        if root:
            parents.append([])
            continue
        count = draw(st.sampled_from([1, 1, 1, 2, 2, 3]))
        chosen = draw(st.lists(st.integers(0, i - 1), min_size=1, max_size=count, unique=True))
        parents.append(chosen)
    dates = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    return parents, dates


def build(path: Path, parents: list[list[int]], dates: list[int],
          object_format: str = "sha1") -> list[str]:
    fmt = [f"--object-format={object_format}"] if object_format != "sha1" else []
    subprocess.run(["git", "init", "-q", "--bare", *fmt, str(path)], check=True)
    stream = []
    for i, ps in enumerate(parents):
        stream.append(f"commit refs/heads/c{i}\nmark :{i + 1}\n")
        stream.append(f"committer T <t@example.com> {1_700_000_000 + dates[i]} +0000\n")
        message = f"c{i}"
        stream.append(f"data {len(message)}\n{message}\n")
        if ps:
            stream.append(f"from :{ps[0] + 1}\n")
            stream.extend(f"merge :{p + 1}\n" for p in ps[1:])
        else:
            stream.append("deleteall\n")
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"],
                   input="".join(stream).encode(), check=True)
    out = subprocess.run(["git", "-C", str(path), "for-each-ref", "--sort=refname",
                          "--format=%(refname:short) %(objectname)", "refs/heads/"],
                         check=True, capture_output=True, text=True).stdout
    by_name = dict(line.split() for line in out.splitlines())
    return [by_name[f"c{i}"] for i in range(len(parents))]


def git(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True,
                          check=False)


def reach(parents: list[list[int]], tip: int) -> set[int]:
    """Every commit ``tip`` reaches, itself included: the DAG as it was built."""
    seen: set[int] = set()
    todo = [tip]
    while todo:
        commit = todo.pop()
        if commit not in seen:
            seen.add(commit)
            todo.extend(parents[commit])
    return seen


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dag=dags(), data=st.data())
def test_same_answers_as_git(tmp_path_factory: pytest.TempPathFactory,
                             dag: tuple[list[list[int]], list[int]], data: st.DataObject) -> None:
    """``Repo`` asks git; the graph must give the DAG's answers. The two agree except where
    git's range walks (``rev-list b ^a``, ``a...b``) stop early on dates running backwards:
    there git lists commits ``a`` reaches, and the graph, going by topology, does not. So the
    ranges are checked against git for ``Repo`` and against the DAG itself for the graph."""
    parents, dates = dag
    path = tmp_path_factory.mktemp("dag") / "repo.git"
    shas = build(path, parents, dates)
    graph = Graph(Repo(str(path)).walk(shas))
    assert len(graph.parents) == len(shas)
    n = len(shas)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=1, max_size=6))
    for x, y in pairs:
        a, b = shas[x], shas[y]
        i, j = graph.find(a), graph.find(b)
        assert i is not None and j is not None
        below_a, below_b = reach(parents, x), reach(parents, y)
        # is-ancestor: git's answer, and the DAG's
        expected = git(path, "merge-base", "--is-ancestor", a, b).returncode == 0
        assert expected == (x in below_b)
        assert graph.is_ancestor(i, j) == expected, (x, y)
        # the ancestor question and the range in one walk
        listed = set(git(path, "rev-list", b, "^" + a).stdout.split()) if expected else set()
        true_range = {shas[c] for c in below_b - below_a} if expected else set()
        for asked, want in ((Repo(str(path)), listed), (batch(path, graph), true_range)):
            reaches, above = asked.above(a, b)
            assert (reaches, set(above), len(above)) == (expected, want, len(want)), (x, y)
        # the first-parent line of b down to where a reaches it
        line, at = [], y
        while at not in below_a:
            line.append(shas[at])
            if not parents[at]:
                break
            at = parents[at][0]
        git_line = git(path, "rev-list", "--first-parent", b, "^" + a).stdout.split()
        assert Repo(str(path)).first_parents_above(b, [a]) == git_line, (x, y)
        assert batch(path, graph).first_parents_above(b, [a]) == line, (x, y)
        # all merge bases, by walking and by a tip's precomputed reach
        want = set(git(path, "merge-base", "--all", a, b).stdout.split())
        assert {graph.sha(k) for k in graph.merge_bases(i, j)} == want, (x, y)
        graph.reach(j)
        assert {graph.sha(k) for k in graph.merge_bases(i, j)} == want, (x, y)
        assert graph.is_ancestor(i, j) == expected
        graph._reach.clear()


# -- the questions of the merge-branch rule: commits outside, the first-parent floor --------

@st.composite
def histories(draw: st.DrawFn, forward: bool) -> tuple[list[list[int]], list[int]]:
    """Commits 0..n-1 as in ``dags``, up to four roots, but a first parent mostly among the
    last few commits (long first-parent lines, with merges of older commits on them);
    with ``forward``, no commit is dated before any of its parents (the histories git's
    date-guided walks are exact on)."""
    n = draw(st.integers(2, 24))
    parents: list[list[int]] = [[]]
    for i in range(1, n):
        if i < 4 and draw(st.booleans()):
            parents.append([])
            continue
        first = draw(st.integers(max(0, i - 3), i - 1) | st.integers(0, i - 1))
        others = draw(st.lists(st.integers(0, i - 1), unique=True,
                               max_size=draw(st.sampled_from([0, 0, 1, 1, 2]))))
        parents.append([first, *(p for p in others if p != first)])
    dates: list[int] = []
    for ps in parents:
        if forward:
            dates.append(max((dates[p] for p in ps), default=0) + draw(st.integers(0, 3)))
        else:
            dates.append(draw(st.integers(0, 50)))
    return parents, dates


def lines(path: Path, *args: str) -> list[str]:
    done = git(path, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


class Oracle:
    """The two answers from git's plainest commands, no ``^`` name anywhere (so no walk
    that stops early on commit dates): reach sets from ``rev-list``, the first-parent line
    from ``rev-list --first-parent``, reachability by ``merge-base --is-ancestor``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reached: dict[str, set[str]] = {}

    def reach(self, sha: str) -> set[str]:
        if sha not in self.reached:
            self.reached[sha] = set(lines(self.path, "rev-list", sha))
        return self.reached[sha]

    def count_outside(self, head: str, base: str, excluded: list[str]) -> int:
        outside = self.reach(head) - self.reach(base)
        for sha in excluded:
            outside -= self.reach(sha)
        return len(outside)

    def floor(self, head: str, stops: list[str]) -> tuple[str | None, int, bool, int]:
        outside = set(self.reach(head))
        for sha in stops:
            outside -= self.reach(sha)
        linear = True
        walked = lines(self.path, "rev-list", "--first-parent", "--parents", head)
        for count, line in enumerate(walked):
            commit, *ps = line.split()
            if any(git(self.path, "merge-base", "--is-ancestor", commit, s).returncode == 0
                   for s in stops):
                return commit, count, linear, len(outside)
            linear = linear and len(ps) <= 1
        return None, len(walked), linear, len(outside)


def facts(floor: Floor | None) -> tuple[str | None, int, bool, int] | None:
    """What a floor says, to compare (``Floor`` has no equality of its own): the line's
    end, its length before it, whether it is linear, and how many commits the walk listed."""
    return None if floor is None else (floor.stop, floor.count, floor.linear,
                                       len(floor.commits()))


def ancestors(parents: list[list[int]], commit: int) -> set[int]:
    found = {commit}
    stack = [commit]
    while stack:
        for p in parents[stack.pop()]:
            if p not in found:
                found.add(p)
                stack.append(p)
    return found


def at(graph: Graph, sha: str) -> int:
    i = graph.find(sha)
    assert i is not None, sha
    return i


def batch(path: Path, graph: Graph) -> BatchRepo:
    return BatchRepo(Repo(str(path)), Location(None, str(path), None, None), graph, [])


def draw_question(data: st.DataObject, parents: list[list[int]]) -> tuple[int, int, list[int],
                                                                          list[int]]:
    """A head, a base, exclusions (now and then none) and stops (now and then none, now and
    then the head): any commits, or the head's own ancestors (the questions the ladder
    asks)."""
    n = len(parents)
    head = data.draw(st.integers(n // 2, n - 1) | st.integers(0, n - 1), label="head")
    below = sorted(ancestors(parents, head) - {head}) or [head]
    some = st.sampled_from(below) | st.integers(0, n - 1)
    base = data.draw(some, label="base")

    def names(label: str) -> list[int]:
        if data.draw(st.integers(0, 4), label=f"{label}: none if 0") == 0:
            return []
        return data.draw(st.lists(some, min_size=1, max_size=3, unique=True), label=label)

    excluded = names("excluded")
    stops = names("stops")
    if data.draw(st.integers(0, 4), label="head is a stop if 0") == 0:
        stops.append(head)
    return head, base, excluded, stops


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dag=histories(forward=False), data=st.data())
def test_graph_counts_outside_and_finds_the_floor_exactly(
        tmp_path_factory: pytest.TempPathFactory, dag: tuple[list[list[int]], list[int]],
        data: st.DataObject) -> None:
    """Any dates, however skewed: the graph's answers are the oracle's, whether a name's
    reach is walked lazily or marked, and through ``BatchRepo`` without a git process."""
    parents, dates = dag
    path = tmp_path_factory.mktemp("dag") / "repo.git"
    shas = build(path, parents, dates)
    graph = Graph(Repo(str(path)).walk(shas))
    oracle = Oracle(path)
    for _ in range(3):
        h, b, ex, st_ = draw_question(data, parents)
        head, base = shas[h], shas[b]
        excluded, stops = [shas[e] for e in ex], [shas[s] for s in st_]
        want_count = oracle.count_outside(head, base, excluded)
        want_floor = oracle.floor(head, stops)
        i, j = at(graph, head), at(graph, base)
        ie, istops = [at(graph, e) for e in excluded], [at(graph, s) for s in stops]
        lazy = len(graph.outside(i, [j, *ie])), graph.first_parent_floor(i, istops)
        for k in [*ie, *istops]:  # the same with every other name's reach marked
            graph.reach(k)
        marked = len(graph.outside(i, [j, *ie])), graph.first_parent_floor(i, istops)
        graph._reach.clear()
        for got_count, (stop, count, linear) in (lazy, marked):
            assert got_count == want_count, (h, b, ex)
            assert (None if stop is None else graph.sha(stop), count, linear) \
                == want_floor[:3], (h, st_)
        repo = batch(path, graph)
        assert len(repo.listing(head, [base, *excluded])) == want_count
        assert facts(repo.first_parent_floor(head, stops)) == want_floor
        assert repo.calls == 0  # the graph answered alone: no question went to git


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dag=histories(forward=True), data=st.data())
def test_one_rev_list_answers_as_the_plain_walk(
        tmp_path_factory: pytest.TempPathFactory, dag: tuple[list[list[int]], list[int]],
        data: st.DataObject) -> None:
    """``Repo``'s one process per question gives the plain walk's answer (the floor, the
    count before it, the linear flag, the root case) and the graph's."""
    parents, dates = dag
    path = tmp_path_factory.mktemp("dag") / "repo.git"
    shas = build(path, parents, dates)
    repo = Repo(str(path))
    graph = batch(path, Graph(repo.walk(shas)))
    oracle = Oracle(path)
    for _ in range(3):
        h, b, ex, st_ = draw_question(data, parents)
        head, base = shas[h], shas[b]
        excluded, stops = [shas[e] for e in ex], [shas[s] for s in st_]
        calls = repo.calls
        floor = facts(repo.first_parent_floor(head, stops))
        count = len(repo.listing(head, [base, *excluded]))
        assert repo.calls == calls + 2
        assert floor == oracle.floor(head, stops), (h, st_)
        assert floor == facts(graph.first_parent_floor(head, stops))
        assert count == oracle.count_outside(head, base, excluded), (h, b, ex)
        assert count == len(graph.listing(head, [base, *excluded]))
    assert graph.calls == 0


def test_dates_running_backwards_do_not_mislead_the_graph(tmp_path: Path) -> None:
    """A stop reaches the line through a long stretch of commits dated before the line:
    git's ``^`` walks give up on that stretch (its date heuristic), the graph does not."""
    parents: list[list[int]] = [[]] + [[i - 1] for i in range(1, 9)]  # the line 8 -> 0
    dates = [100 + i for i in range(9)]
    below = 3
    for k in range(8):  # the stop's side: 16 -> ... -> 9 -> 3, dated long before
        parents.append([below])
        dates.append(1 + k)
        below = len(parents) - 1
    dates[-1] = 200
    path = tmp_path / "repo.git"
    shas = build(path, parents, dates)
    head, stop = shas[8], shas[-1]
    oracle = Oracle(path)
    want = (shas[3], 5, True, 5)
    assert oracle.floor(head, [stop]) == want
    graph = batch(path, Graph(Repo(str(path)).walk(shas)))
    assert facts(graph.first_parent_floor(head, [stop])) == want
    assert len(graph.listing(head, [stop])) == oracle.count_outside(head, stop, []) == 5
    assert graph.calls == 0


def test_sha256_repository(tmp_path: Path) -> None:
    """64-hex names: the width arithmetic of the linear flag, the floor, the root case."""
    # 0 root; 1, 2 on it; 3 merges 2 into 1; 4..6 a line on 3; 7 a second root, 8 on it
    parents = [[], [0], [0], [1, 2], [3], [4], [5], [], [7]]
    probe = git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", "probe.git")
    if probe.returncode != 0:  # git before 2.29
        pytest.skip("this git cannot make a SHA-256 repository")
    path = tmp_path / "repo.git"
    shas = build(path, parents, list(range(len(parents))), object_format="sha256")
    assert all(len(s) == 64 for s in shas)
    repo = Repo(str(path))
    graph = batch(path, Graph(repo.walk(shas)))
    oracle = Oracle(path)
    cases = [(6, [4]), (6, [3]), (6, [1]), (6, [2]), (6, []), (6, [8]), (6, [6]), (8, []),
             (8, [0]), (5, [2, 4]), (4, [7, 0])]
    for head, stops in cases:
        names = [shas[s] for s in stops]
        want = oracle.floor(shas[head], names)
        assert facts(repo.first_parent_floor(shas[head], names)) == want, (head, stops)
        assert facts(graph.first_parent_floor(shas[head], names)) == want, (head, stops)
    assert facts(repo.first_parent_floor(shas[6], [shas[4]])) == (shas[4], 2, True, 2)
    assert facts(repo.first_parent_floor(shas[6], [shas[1]])) == (shas[1], 4, False, 5)
    assert facts(repo.first_parent_floor(shas[8], [])) == (None, 2, True, 2)
    assert len(repo.listing(shas[6], [shas[1], shas[0]])) == 5
    assert len(graph.listing(shas[6], [shas[1], shas[0]])) == 5


def test_abbreviated_names_and_shared_tips(tmp_path: Path) -> None:
    """An abbreviated head is still named in full; a name outside the graph goes to git
    (a fallback); a tip asked about for two heads has its reach marked once."""
    parents = [[], [0], [1], [2], [1], [4], [3, 5]]
    path = tmp_path / "repo.git"
    shas = build(path, parents, list(range(len(parents))))
    repo = Repo(str(path))
    assert facts(repo.first_parent_floor(shas[3][:7], [shas[3]])) == (shas[3], 0, True, 0)
    assert facts(repo.first_parent_floor(shas[3], [shas[3][:7]])) == (shas[3], 0, True, 0)
    graph = Graph(repo.walk(shas))
    fast = batch(path, graph)
    assert facts(fast.first_parent_floor(shas[6][:9], [shas[1]])) == (shas[1], 3, False, 5)
    assert len(fast.listing(shas[6], [shas[1][:9]])) == 5
    assert fast.calls == 2  # each question the graph could not answer went to git
    tip = graph.find(shas[2])
    assert tip is not None
    fast.first_parent_floor(shas[6], [shas[5], shas[2]])
    assert tip not in graph._reach  # asked for one head: walked lazily
    assert facts(fast.first_parent_floor(shas[3], [shas[2]])) == (shas[2], 1, True, 1)
    assert tip in graph._reach  # asked for a second head: marked, once for all
    assert len(fast.listing(shas[6], [shas[4], shas[2]])) == 3
    assert fast.calls == 2


def test_a_merge_and_a_root_do_not_pass_for_two_plain_lines(tmp_path: Path) -> None:
    """A merge's line is as much longer than a plain one as a root's is shorter: the
    linear test looks at where the line ends stand, not only at the total size."""
    parents: list[list[int]] = [[], [], [], [], [1], [2], [3, 0]]
    path = tmp_path / "repo.git"
    shas = build(path, parents, [0] * len(parents))
    repo = Repo(str(path))
    assert facts(repo.first_parent_floor(shas[6], [])) == (None, 2, False, 3)
    assert Oracle(path).floor(shas[6], []) == (None, 2, False, 3)
