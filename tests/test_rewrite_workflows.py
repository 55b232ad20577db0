"""post-rewrite in the workflows of a team: a bare remote, a teammate's clone, merges of
main, pulls that rebase. Real git, the plain shims (one sample under pre-commit), and on a
``reftable`` repository where git can make one.

What is held: the boundary moves to the rebase's base only when every commit the session
made was replayed; it is never moved above one of them; after a rebase of a topic that
merged main it is where the ladder finds it exact (HEAD's first-parent line, at or above
the fork point). Where the range then holds commits the session did not make (a
teammate's, a copy of main's), counting them out is the witness's job: the count is held
to the session's own commits when ``lets_hooks.witness`` is there.
"""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Iterator
from pathlib import Path

import precommit_box
import pytest
from helpers import SID
from hookbox import TOOLS_NEED_GIT_2_31, HookBox, make, needs_git, with_remote
from scenarios import CASES

WITNESS = importlib.util.find_spec("lets_hooks.witness") is not None


class Teammate:
    """A second clone of the bare remote, pushing as someone else would."""

    def __init__(self, remote: Path, where: Path) -> None:
        self.path = where
        subprocess.run(["git", "clone", "-q", str(remote), str(where)], check=True,
                       capture_output=True)

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True,
                              text=True).stdout

    def commit(self, name: str, branch: str) -> str:
        self.git("fetch", "-q", "origin")
        self.git("checkout", "-q", "-B", branch, f"origin/{branch}")
        (self.path / name).write_text(f"{name}\n")
        self.git("add", name)
        self.git("commit", "-q", "-m", f"teammate {name}")
        self.git("push", "-q", "origin", branch)
        return self.git("rev-parse", "HEAD").strip()


def remote_of(box: HookBox) -> Path:
    return Path(box.sh("remote", "get-url", "origin").stdout.strip())


def answer(box: HookBox) -> dict[str, str]:
    return box.boundary(env={"LETS_SESSION_ID": SID})


def session_count(box: HookBox, made: int) -> None:
    """``exact`` counts the session's own commits (where the witness can tell them)."""
    fields = answer(box)
    if WITNESS and fields["SESSION_TRUST"] == "exact":
        assert fields["SESSION_COMMITS"] == str(made), fields


def topic(box: HookBox) -> str:
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    return box.head()


def test_pull_rebase_after_a_teammate_built_on_your_pushed_commit(tmp_path: Path) -> None:
    """c1 pushed, t1 built on it by a teammate, c2 local: ``git pull --rebase`` replays c2
    only. The boundary stays below c1 (moving it to t1 would drop c1)."""
    box = with_remote(tmp_path)
    boundary = topic(box)
    c1 = box.file_commit("c1.txt", "c1\n", sid=SID)
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID)
    box.file_commit("c2.txt", "c2\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    t1 = mate.commit("t1.txt", "topic")
    done = box.sh("pull", "-q", "--rebase", sid=SID)
    assert box.rev("HEAD~1") == t1 and box.rev("HEAD~2") == c1
    assert box.line("topic") == f"{boundary} {SID}"
    assert "lets-hooks" not in done.stderr
    session_count(box, 2)


def test_pull_rebase_on_main_replaying_the_whole_session(tmp_path: Path) -> None:
    """A session on main itself: c1 local, a teammate pushed t1; ``git pull --rebase``
    replays c1 onto t1, every commit of the session: the boundary moves to t1."""
    box = with_remote(tmp_path)
    box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    box.sh("branch", "-q", "--set-upstream-to=origin/main", sid=SID)
    box.file_commit("c1.txt", "c1\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    t1 = mate.commit("t1.txt", "main")
    box.sh("pull", "-q", "--rebase", sid=SID)
    assert box.line("main") == f"{t1} {SID}"
    fields = answer(box)
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", t1, "1"), fields


def test_pull_rebase_on_main_after_pushing_part_of_the_session(tmp_path: Path) -> None:
    """The same on main with c1 pushed and t1 built on it: only c2 is replayed, so the
    boundary stays where the session began."""
    box = with_remote(tmp_path)
    box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    start = box.head()
    box.sh("branch", "-q", "--set-upstream-to=origin/main", sid=SID)
    box.file_commit("c1.txt", "c1\n", sid=SID)
    box.sh("push", "-q", "origin", "main", sid=SID)
    box.file_commit("c2.txt", "c2\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    mate.commit("t1.txt", "main")
    box.sh("pull", "-q", "--rebase", sid=SID)
    assert box.line("main") == f"{start} {SID}"
    session_count(box, 2)


def test_rebase_main_after_main_caught_up_with_a_merge(tmp_path: Path) -> None:
    """The session merged main (a teammate's m1, m2) into its topic, then ``git rebase
    main`` once local main caught up: onto is the merge's second parent. The boundary moves
    to it and reads exact: s1 and s2, replayed."""
    box = with_remote(tmp_path)
    topic(box)
    box.file_commit("s1.txt", "s1\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    mate.commit("m1.txt", "main")
    m2 = mate.commit("m2.txt", "main")
    box.sh("fetch", "-q", "origin", sid=SID)
    box.sh("merge", "-q", "--no-edit", "origin/main", sid=SID)
    box.file_commit("s2.txt", "s2\n", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("merge", "-q", "--ff-only", "origin/main", sid=SID)
    box.sh("switch", "-q", "topic", sid=SID)
    done = box.sh("rebase", "-q", "main", sid=SID)
    assert box.line("topic") == f"{m2} {SID}"
    fields = answer(box)
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", m2, "2"), fields
    assert "lets-hooks" not in done.stderr


def test_rebase_merges_onto_origin_main_after_merging_main(tmp_path: Path) -> None:
    """The session merged origin/main (m1) into its topic; main moved on (m2); ``git
    rebase --rebase-merges origin/main`` remakes the merge with m2 and leaves s1 where it
    was. onto (m2) is off HEAD's first-parent line: the boundary stays at the fork point,
    and reads exact: s1, the merge the session made, s2."""
    box = with_remote(tmp_path)
    boundary = topic(box)
    box.file_commit("s1.txt", "s1\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    mate.commit("m1.txt", "main")
    box.sh("fetch", "-q", "origin", sid=SID)
    box.sh("merge", "-q", "--no-edit", "origin/main", sid=SID)
    box.file_commit("s2.txt", "s2\n", sid=SID)
    mate.commit("m2.txt", "main")
    box.sh("fetch", "-q", "origin", sid=SID)
    done = box.sh("rebase", "-q", "--rebase-merges", "origin/main", sid=SID)
    first_parents = box.sh("rev-list", "--first-parent", "HEAD", sid=SID).stdout.split()
    recorded = (box.line("topic") or "").split()[0]
    assert recorded in first_parents
    assert recorded == boundary
    fields = answer(box)
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"]) == ("exact", "3"), fields
    assert "lets-hooks" not in done.stderr


def test_rebase_onto_a_stale_main_copies_main_commits_without_moving_above_the_session(
        tmp_path: Path) -> None:
    """``git pull origin main`` merged a teammate's m1 into the topic; ``git rebase main``
    with local main still at the fork point flattens it: m1 is copied between the
    session's commits. The boundary stays at the fork point (the base), and the copy is
    not the session's work."""
    box = with_remote(tmp_path)
    boundary = topic(box)
    box.file_commit("s1.txt", "s1\n", sid=SID)
    mate = Teammate(remote_of(box), tmp_path / "mate")
    mate.commit("m1.txt", "main")
    box.sh("pull", "-q", "--no-rebase", "--no-edit", "origin", "main", sid=SID)
    box.file_commit("s2.txt", "s2\n", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    assert box.rev("main") == boundary
    assert box.line("topic") == f"{boundary} {SID}"
    session_count(box, 2)


def test_rebase_of_a_long_branch_from_below_the_boundary(tmp_path: Path) -> None:
    """``git rebase main`` of a branch with 60 commits from before the session and 2 of
    it: the boundary moves to its own copy."""
    box = make(tmp_path)
    box.install()
    box.sh("switch", "-q", "-c", "topic", sid="an-earlier-session")
    for i in range(60):
        box.file_commit(f"p{i}.txt", f"{i}\n", sid="an-earlier-session")
    box.sh("switch", "-q", "main", sid=SID)
    box.file_commit("m.txt", "main moved\n")
    box.sh("switch", "-q", "topic", sid=SID)
    box.file_commit("s1.txt", "s1\n", sid=SID)
    box.file_commit("s2.txt", "s2\n", sid=SID)
    box.sh("rebase", "-q", "main", sid=SID)
    fields = answer(box)
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", box.rev("HEAD~2"), "2"), fields


# -- reftable: ORIG_HEAD is a ref there, not a file -------------------------------------------

@needs_git(2, 45, "reftable repositories need git 2.45")
def test_rebase_apply_on_a_reftable_repository(tmp_path: Path) -> None:
    path = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", "--ref-format=reftable", str(path)],
                   check=True)
    box = HookBox(path)
    box.commit("root", age_days=30)
    box.file_commit("base.txt", "base\n", "main tip")
    box.install()
    CASES["rebase_apply_backend"](box)
    assert (path / ".git" / "reftable").is_dir()


@needs_git(2, 45, "reftable repositories need git 2.45")
@pytest.mark.parametrize("case", ["rebase_after_main_moved",
                                  "rebase_after_main_moved_with_older_commits",
                                  "amend_session_commit"])
def test_rewrites_on_a_reftable_repository(tmp_path: Path, case: str) -> None:
    path = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", "--ref-format=reftable", str(path)],
                   check=True)
    box = HookBox(path)
    box.commit("root", age_days=30)
    box.file_commit("base.txt", "base\n", "main tip")
    box.install()
    CASES[case](box)


# -- one sample under pre-commit (no stdin: the pairs come from git) ----------------------------

@pytest.fixture
def pc_box(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[HookBox]:
    made = precommit_box.box(tmp_path, hook_repo, pre_commit_home, monkeypatch)
    yield made
    made.repo.close()


@TOOLS_NEED_GIT_2_31  # pre-commit 4 runs git ls-files --deduplicate (2.31)
def test_pull_rebase_under_pre_commit(pc_box: HookBox, tmp_path: Path) -> None:
    box = pc_box
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    box.sh("push", "-q", "origin", "main")
    boundary = topic(box)
    c1 = box.file_commit("c1.txt", "c1\n", sid=SID)
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID)
    box.file_commit("c2.txt", "c2\n", sid=SID)
    mate = Teammate(remote, tmp_path / "mate")
    mate.commit("t1.txt", "topic")
    box.sh("pull", "-q", "--rebase", sid=SID)
    assert box.rev("HEAD~2") == c1
    assert box.line("topic") == f"{boundary} {SID}"
    session_count(box, 2)
