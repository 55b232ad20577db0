"""``lets-hooks record [--at REV]``: stdout is exactly the four contract lines; ``--at``
records the boundary at REV when the ladder would accept it there, and refuses (one line,
status 1, nothing written) when it would not; the remedy after a rewrite made without git."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import git
import pytest
from helpers import OTHER, SID
from hookbox import HookBox, make

KEYS = ["SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
DAY = 86400


@pytest.fixture
def box(tmp_path: Path) -> Iterator[HookBox]:
    made = make(tmp_path)
    made.install()
    yield made
    made.repo.close()


def fields(stdout: str) -> dict[str, str]:
    lines = stdout.splitlines()
    assert [line.split("=", 1)[0] for line in lines] == KEYS, stdout
    return dict(line.split("=", 1) for line in lines)


def record(box: HookBox, *args: str, sid: str | None = SID) -> tuple[int, str, str]:
    env = {"LETS_SESSION_ID": sid} if sid else {}
    done = box.run("lets-hooks", "record", *args, env=env)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def gitpython_commit(box: HookBox, message: str, age_days: float = 0.0) -> str:
    """A commit made the way a tool without git's hooks makes one: GitPython's, no git
    command, its own hooks skipped (its ``index.commit`` would run post-commit)."""
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - age_days * DAY))
    commit = box.repo.index.commit(message, author_date=when + "+0000",
                                   commit_date=when + "+0000", skip_hooks=True)
    return str(commit.hexsha)


def test_stdout_is_exactly_the_four_lines(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    code, out, err = record(box)
    assert code == 0
    assert fields(out)["SESSION_TRUST"] == "exact"
    assert f"lets-hooks record: recorded {box.head()} for branch 'feat'" in err.splitlines()


def test_sid_and_no_sid_together_are_a_usage_error(box: HookBox) -> None:
    """``--sid X --no-sid`` recorded a line of no session, silently: one is a usage error,
    and nothing is written."""
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    before = box.task("feat").read_bytes()
    code, out, err = record(box, "--sid", OTHER, "--no-sid")
    assert (code, out) == (2, "")
    assert "argument --no-sid: not allowed with argument --sid" in err
    assert box.task("feat").read_bytes() == before


def test_at_a_commit_of_the_branch(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=OTHER)
    start = box.file_commit("a.txt", "a\n", sid=OTHER)  # the earlier session's last commit
    box.file_commit("b.txt", "b\n", sid=SID)
    box.file_commit("c.txt", "c\n", sid=SID)
    code, out, _ = record(box, "--at", start)
    assert code == 0
    assert fields(out) == {
        "SESSION_BOUNDARY": start, "SESSION_TRUST": "exact", "SESSION_COMMITS": "2",
        "SESSION_RANGE_DESC": f"session: {start}..HEAD (2 commits)"}
    assert box.line("feat") == f"{start} {SID}"
    # what the contract command reads afterwards is the same answer
    assert box.boundary(env={"LETS_SESSION_ID": SID})["SESSION_BOUNDARY"] == start


def test_at_accepts_any_revision_name(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    point = box.head()
    box.file_commit("a.txt", "a\n")
    for rev in ("main", "HEAD~1", point[:10], "feat@{1}"):
        code, out, _ = record(box, "--at", rev)
        assert code == 0, rev
        assert fields(out)["SESSION_BOUNDARY"] == point
        assert box.line("feat") == f"{point} {SID}"


def test_at_with_no_sid_is_prior_session(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "feat")
    point = box.head()
    box.file_commit("a.txt", "a\n")
    code, out, _ = record(box, "--at", "main", "--no-sid")
    assert code == 0
    assert fields(out)["SESSION_TRUST"] == "prior-session"
    assert box.line("feat") == point


def test_at_with_no_sid_claims_nothing_for_the_environments_session(box: HookBox) -> None:
    """``record --at REV --no-sid`` with a session id set: a line of no session, and no
    claim for the session the environment names. Its first touch of the branch then finds
    nothing of its own there: the commits no hook saw are not made its (no ``exact 1``)."""
    box.sh("switch", "-q", "-c", "feat")
    box.sh("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m",
           "a person's, no hook")
    code, _, _ = record(box, "--at", "main", "--no-sid")
    assert code == 0
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "feat", sid=SID)  # the session's first touch
    answer = box.boundary(env={"LETS_SESSION_ID": SID})
    assert (answer["SESSION_TRUST"], answer["SESSION_COMMITS"]) == ("exact", "0"), answer


def refusals(box: HookBox) -> dict[str, str]:
    """REV -> the reason the ladder gives for it, on branch ``feat``."""
    box.sh("switch", "-q", "-c", "side")
    side = box.file_commit("side.txt", "s\n")
    box.sh("switch", "-q", "main")
    old_main = box.head()
    # main moves by a commit that came from elsewhere (made without this work tree's
    # HEAD, then fast-forwarded to): old_main is older than feat's point off main and no
    # commit of the session lies between them
    tree = box.sh("rev-parse", "HEAD^{tree}").stdout.strip()
    upstream = box.sh("commit-tree", tree, "-p", old_main, "-m", "upstream").stdout.strip()
    box.sh("merge", "-q", "--ff-only", upstream)
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.file_commit("f.txt", "f\n")
    return {
        "0123456789abcdef0123456789abcdef01234567": "not a commit in this repository",
        "no-such-branch": "not a commit in this repository",
        side: "the ladder would reject {short}: not an ancestor of HEAD",
        old_main: "the ladder would reject {short}: older than this branch's point off main",
        "HEAD^{tree}": "not a commit in this repository",
        "--output=PWNED": "not a revision",
        "": "not a revision",
    }


def test_at_refuses_what_the_ladder_would_reject(box: HookBox) -> None:
    cases = refusals(box)
    before = box.task("feat").read_bytes()
    for rev, reason in cases.items():
        code, out, err = record(box, f"--at={rev}")
        assert code == 1 and out == "", rev
        assert len(err.splitlines()) == 1, err
        assert err.startswith(f"lets-hooks record: --at '{rev}': "), err
        expected = reason.format(short=box.rev(rev)[:12] if "{short}" in reason else "")
        assert expected in err, (rev, err)
        assert box.task("feat").read_bytes() == before  # nothing written
    assert not (box.path / "PWNED").exists()


def test_age_counts_from_the_oldest_commit_the_session_claims(tmp_path: Path) -> None:
    """A quiet repository (HEAD's parent 20 days old, the session's commit made today)
    is fine; a range that claims a commit 20 days old is past the 14-day limit."""
    box = HookBox(tmp_path / "quiet")
    box.commit("root", age_days=40)
    box.sh("switch", "-q", "-c", "feat")
    old = box.commit("old work", age_days=20)
    box.commit("today's work")
    code, out, _ = record(box, "--at", old)
    assert code == 0 and fields(out)["SESSION_COMMITS"] == "1"
    root = box.rev("HEAD~2")
    code, out, err = record(box, "--at", root)
    assert code == 1 and out == ""
    assert "20 days old, past the 14-day limit for one session; nothing recorded" in err
    assert box.line("feat") == f"{old} {SID}"
    box.repo.close()


def test_the_remedy_after_a_rewrite_made_without_git(box: HookBox) -> None:
    """A session's two commits, then main moves and a tool rebases the branch with no git
    command (so no post-rewrite hook): the old boundary is now below the fork point, so
    the ladder honestly estimates 2. ``record`` alone would claim ``exact 0``;
    ``record --at main`` (where the rewritten commits start) claims exactly the two."""
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.file_commit("a.txt", "a\n", sid=SID)
    box.file_commit("b.txt", "b\n", sid=SID)
    box.sh("switch", "-q", "main")
    box.file_commit("m.txt", "m\n")  # main moves (not this session's work)
    new_base = box.head()
    box.sh("switch", "-q", "feat", sid=SID)
    # the rewrite, GitPython's way: new commits on the moved main, the branch moved by ref
    repo = git.Repo(box.path)
    picks = [str(c) for c in repo.iter_commits("main..feat", reverse=True)]
    repo.head.reset(new_base, index=True, working_tree=True)
    for sha in picks:
        repo.git.cherry_pick("--no-commit", sha)
        gitpython_commit(box, f"rewritten {sha[:7]}")
    repo.close()
    before = box.boundary(env={"LETS_SESSION_ID": SID})
    # the old boundary is below the fork point: an estimate counts what the branch added
    assert (before["SESSION_TRUST"], before["SESSION_COMMITS"]) == ("estimate", "2")
    code, out, _ = record(box, "--at", "main")
    assert code == 0
    assert fields(out) == {
        "SESSION_BOUNDARY": new_base, "SESSION_TRUST": "exact", "SESSION_COMMITS": "2",
        "SESSION_RANGE_DESC": f"session: {new_base}..HEAD (2 commits)"}


def test_the_remedy_when_the_tool_made_the_commits(box: HookBox) -> None:
    """Commits made by GitPython on a branch no hook saw created: nothing recorded, an
    estimate; ``record --at`` the branch point makes them the session's."""
    point = box.head()
    repo = git.Repo(box.path)
    repo.head.reference = repo.create_head("tool", point)  # a ref move: no hook runs
    repo.close()
    (box.path / "t.txt").write_text("t\n")
    box.repo.index.add(["t.txt"])
    gitpython_commit(box, "tool work 1")
    gitpython_commit(box, "tool work 2")
    assert box.boundary(env={"LETS_SESSION_ID": SID})["SESSION_TRUST"] == "estimate"
    code, out, _ = record(box, "--at", point)
    assert code == 0
    assert fields(out)["SESSION_RANGE_DESC"] == f"session: {point}..HEAD (2 commits)"


def test_the_hooks_name_record_at_when_history_moved_under_the_line(box: HookBox) -> None:
    """A tool that runs no hooks moves the branch to another line of history (here: a ref
    update onto a new root): the recorded boundary is no longer an ancestor of HEAD, and
    the checkout's warning names ``record --at REV``, not a plain ``record`` that would
    start the session anew at HEAD."""
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.file_commit("a.txt", "a\n")
    tree = box.sh("rev-parse", "HEAD^{tree}").stdout.strip()
    elsewhere = box.sh("commit-tree", tree, "-m", "a new root").stdout.strip()
    box.sh("update-ref", "refs/heads/feat", elsewhere)  # no hook runs
    box.sh("switch", "-q", "main", sid=SID)
    said = box.sh("switch", "-q", "feat", sid=SID).stderr
    assert "not an ancestor of HEAD" in said, said
    assert "Fix: lets-hooks record --at REV, REV being the commit the session's work " \
           "starts after (lets-hooks record alone starts the session anew at HEAD)" in said
