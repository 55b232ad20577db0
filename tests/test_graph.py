"""The in-memory graph gives git's own answers: checked against git on random DAGs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lets_hooks.graph import Graph
from lets_hooks.repo import Repo


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


def build(path: Path, parents: list[list[int]], dates: list[int]) -> list[str]:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
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


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dag=dags(), data=st.data())
def test_same_answers_as_git(tmp_path_factory: pytest.TempPathFactory,
                             dag: tuple[list[list[int]], list[int]], data: st.DataObject) -> None:
    parents, dates = dag
    path = tmp_path_factory.mktemp("dag") / "repo.git"
    shas = build(path, parents, dates)
    graph = Graph(Repo(str(path)).walk_graph(shas))
    assert len(graph) == len(shas)
    n = len(shas)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=1, max_size=6))
    for x, y in pairs:
        a, b = shas[x], shas[y]
        i, j = graph.find(a), graph.find(b)
        assert i is not None and j is not None
        # is-ancestor
        expected = git(path, "merge-base", "--is-ancestor", a, b).returncode == 0
        assert graph.is_ancestor(i, j) == expected, (x, y)
        # left/right counts
        out = git(path, "rev-list", "--left-right", "--count", f"{a}...{b}").stdout.split()
        assert graph.ahead_behind(i, j) == (int(out[0]), int(out[1])), (x, y)
        # all merge bases, by walking and by a tip's precomputed reach
        want = set(git(path, "merge-base", "--all", a, b).stdout.split())
        assert {graph.sha(k) for k in graph.merge_bases(i, j)} == want, (x, y)
        graph.reach(j)
        assert {graph.sha(k) for k in graph.merge_bases(i, j)} == want, (x, y)
        assert graph.is_ancestor(i, j) == expected
        graph._reach.clear()
