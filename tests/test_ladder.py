"""Every rung of the ladder, against real repositories, through the installed command."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from helpers import OTHER, SID, Sandbox, note_made

EXACT_DESC = "session: {b}..HEAD ({n} commits)"
PRIOR_DESC = "approx: {b}..HEAD ({n} commits) - boundary recorded by an earlier session"
ESTIMATE_DESC = ("approx: {b}..HEAD ({n} commits) - estimated from the branch point, "
                 "no boundary was recorded")
NONE_DESC = "boundary unknown - no valid session boundary for this branch"


def feature(box: Sandbox, name: str = "feat", session: int = 3, before: int = 0) -> tuple[str, str]:
    """A branch off main with ``before`` older commits, then ``session`` commits.

    Returns (branch point, session boundary).
    """
    point = box.commit("main tip", age_days=12)
    box.git.checkout("-q", "-b", name)
    for i in range(before):
        box.commit(f"older {i}", age_days=10)
    start = box.head()
    for i in range(session):
        box.commit(f"session {i}", age_days=1, sid=SID)
    return point, start


def expect(fields: dict[str, str], trust: str, boundary: str | None, commits: int | None) -> None:
    assert fields["SESSION_TRUST"] == trust, fields
    assert fields["SESSION_BOUNDARY"] == (boundary or "none"), fields
    assert fields["SESSION_COMMITS"] == ("unknown" if commits is None else str(commits)), fields
    template = {"exact": EXACT_DESC, "prior-session": PRIOR_DESC, "estimate": ESTIMATE_DESC}
    if trust in template:
        assert fields["SESSION_RANGE_DESC"] == template[trust].format(b=boundary, n=commits)
    else:
        assert fields["SESSION_RANGE_DESC"].startswith("boundary unknown - ")


# -- rung 1: detached HEAD ---------------------------------------------------------------

def test_detached_head_has_no_boundary(sandbox: Sandbox) -> None:
    sandbox.commit("second")
    sandbox.git.checkout("-q", "--detach")
    fields = sandbox.boundary()
    expect(fields, "none", None, None)
    assert fields["SESSION_RANGE_DESC"] == "boundary unknown - detached HEAD"
    assert "NOTE: detached HEAD" in fields["stderr"]


# -- rung 2: the session line ----------------------------------------------------------

def test_matching_session_id_is_exact(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"task: something\nsession: {start} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "exact", start, 3)
    assert fields["stderr"] == ""  # exact is the quiet case: nothing fell back


def test_lets_session_id_is_read_first(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    fields = sandbox.boundary(env={"LETS_SESSION_ID": SID, "CLAUDE_CODE_SESSION_ID": OTHER})
    expect(fields, "exact", start, 3)


@pytest.mark.parametrize(("line_sid", "env"), [
    (SID, {"CLAUDE_CODE_SESSION_ID": OTHER}),  # another session recorded it
    ("", {"CLAUDE_CODE_SESSION_ID": SID}),  # no sid on the line
    (SID, {}),  # no session id known now
    ("", {}),  # neither: two absences must not count as a match
], ids=["other-sid", "no-stored-sid", "variable-unset", "both-empty"])
def test_without_a_positive_match_it_is_prior_session(
        sandbox: Sandbox, line_sid: str, env: dict[str, str]) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start} {line_sid}".rstrip() + "\n")
    fields = sandbox.boundary(env=env)
    expect(fields, "prior-session", start, 3)
    assert "NOTE:" in fields["stderr"]


@pytest.mark.parametrize("value", [
    "ABCDEF1234567", "xyz123", "--output=x", "", "HEAD~3", "abc..def", "abc^{tree}",
], ids=["uppercase", "non-hex", "option", "empty", "revision", "range", "peel"])
def test_malformed_sha_is_announced_and_ignored(sandbox: Sandbox, value: str) -> None:
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {value} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 3)
    assert "does not hold a lowercase hex sha" in fields["stderr"]
    assert not (sandbox.path / "x").exists()  # --output=x wrote nothing anywhere


def test_abbreviated_sha_is_kept_and_printed_as_written(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start[:9]} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "exact", start[:9], 3)


def test_only_the_first_session_line_counts(sandbox: Sandbox) -> None:
    # the session's one commit above the first line, two older commits below it (none of
    # the session's own may lie below an exact boundary)
    _, first = feature(sandbox, session=1, before=2)
    deeper = sandbox.rev("HEAD~2")
    sandbox.write_task("feat", f"# notes\nsession: {first} {SID}\nsession: {deeper} {SID}\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", first, 1)


# -- rung 3: the legacy slugged file, never the global one -----------------------------

def test_legacy_slugged_file_is_prior_session(sandbox: Sandbox) -> None:
    _, start = feature(sandbox, name="team/feat")
    (sandbox.sessions() / ".session-start-ref-team-feat").write_text(f"{start} whatever\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "prior-session", start, 3)


def test_task_line_wins_over_legacy_file(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    (sandbox.sessions() / ".session-start-ref-feat").write_text(sandbox.rev("HEAD~1") + "\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", start, 3)


def test_malformed_legacy_file_is_announced(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    (sandbox.sessions() / ".session-start-ref-feat").write_text("--all\n")
    fields = sandbox.boundary()
    expect(fields, "estimate", point, 3)
    assert ".session-start-ref-feat does not hold a lowercase hex sha" in fields["stderr"]


def test_global_session_start_ref_is_never_read(sandbox: Sandbox) -> None:
    point, start = feature(sandbox)
    (sandbox.sessions() / ".session-start-ref").write_text(start + "\n")
    expect(sandbox.boundary(), "estimate", point, 3)
    sandbox.git.checkout("-q", "main")
    expect(sandbox.boundary(), "none", None, None)


# -- rung 4: validation -----------------------------------------------------------------

def test_not_a_commit_is_rejected(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {'ab' * 20} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 3)
    assert "rejected: not a commit" in fields["stderr"]


def test_tree_sha_is_not_a_commit(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    tree = sandbox.rev("HEAD^{tree}")
    sandbox.write_task("feat", f"session: {tree}\n")
    fields = sandbox.boundary()
    expect(fields, "estimate", point, 3)
    assert "rejected: not a commit" in fields["stderr"]


def test_not_an_ancestor_is_rejected(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    sandbox.git.checkout("-q", "-b", "elsewhere", "main")
    stray = sandbox.commit("elsewhere")
    sandbox.git.checkout("-q", "feat")
    sandbox.write_task("feat", f"session: {stray} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 3)
    assert "rejected: not an ancestor of HEAD" in fields["stderr"]


def test_older_than_branch_point_with_origin_is_rejected(sandbox: Sandbox) -> None:
    root = sandbox.rev("HEAD")
    point, _ = feature(sandbox)
    sandbox.git.update_ref("refs/remotes/origin/main", point)
    sandbox.git.branch("-q", "-D", "main")  # only origin/main is left to measure against
    sandbox.write_task("feat", f"session: {root} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID, "LETS_MERGE_BRANCH": "main"})
    expect(fields, "estimate", point, 3)
    assert "older than this branch's point off main" in fields["stderr"]


def test_older_than_branch_point_with_local_main_is_rejected(sandbox: Sandbox) -> None:
    root = sandbox.rev("HEAD")
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {root} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 3)
    assert "older than this branch's point off main" in fields["stderr"]


def test_origin_merge_branch_is_preferred_to_local(sandbox: Sandbox) -> None:
    point, start = feature(sandbox, before=2)
    # origin/main has moved on to include the older feature commits: the branch point
    # measured against origin is later than the one against the stale local main.
    sandbox.git.update_ref("refs/remotes/origin/main", sandbox.rev(f"{start}"))
    sandbox.write_task("feat", f"session: {sandbox.rev(start + '~1')} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", start, 3)
    assert "older than this branch's point off main" in fields["stderr"]
    assert point != start


def test_boundary_equal_to_branch_point_is_kept(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {point} {SID}\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", point, 3)


def test_abbreviated_boundary_equal_to_branch_point_is_kept(sandbox: Sandbox) -> None:
    """Departure: the bash ladder compares strings, and rejected the abbreviation."""
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {point[:10]} {SID}\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", point[:10], 3)


def test_floor_does_not_apply_on_the_merge_branch(sandbox: Sandbox) -> None:
    root = sandbox.rev("HEAD")
    sandbox.commit("two", age_days=2)  # before the session: the boundary
    sandbox.commit("three", age_days=1, sid=SID)
    sandbox.git.update_ref("refs/remotes/origin/main", "HEAD")
    sandbox.write_task("main", f"session: {sandbox.rev('HEAD~1')} {SID}\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact",
           sandbox.rev("HEAD~1"), 1)
    # but the age rung does: the root is 30 days old
    sandbox.write_task("main", f"session: {root} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "none", None, None)
    assert "30 days old" in fields["stderr"]


def test_older_than_fourteen_days_is_rejected(sandbox: Sandbox) -> None:
    point = sandbox.commit("point", age_days=25)
    sandbox.git.checkout("-q", "-b", "feat")
    old = sandbox.commit("old", age_days=15)
    sandbox.commit("new", age_days=1)
    sandbox.write_task("feat", f"session: {old} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 2)
    assert "15 days old" in fields["stderr"]


def test_exactly_fourteen_days_is_kept(sandbox: Sandbox) -> None:
    sandbox.commit("point", age_days=25)
    sandbox.git.checkout("-q", "-b", "feat")
    edge = sandbox.commit("edge", age_days=14)
    sandbox.commit("new", age_days=1, sid=SID)
    sandbox.write_task("feat", f"session: {edge} {SID}\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", edge, 1)


def test_age_limit_comes_from_config(sandbox: Sandbox) -> None:
    sandbox.commit("point", age_days=25)
    sandbox.git.checkout("-q", "-b", "feat")
    start = sandbox.commit("start", age_days=5)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    (sandbox.path / ".lets" / "config.toml").write_text("max_age_days = 3\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "estimate"
    assert "5 days old, past the 3-day limit" in fields["stderr"]


def test_annotated_tag_sha_is_rejected(sandbox: Sandbox) -> None:
    point, start = feature(sandbox)
    sandbox.git.tag("-a", "-m", "a tag", "t1", start)
    tag = sandbox.rev("t1")
    assert tag != start
    sandbox.write_task("feat", f"session: {tag} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "estimate", point, 3)
    assert "commit time cannot be read" in fields["stderr"]


# -- rung 5: estimate, or nothing --------------------------------------------------------

def test_nothing_recorded_on_a_feature_branch_is_an_estimate(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox, before=2)
    fields = sandbox.boundary()
    expect(fields, "estimate", point, 5)
    assert "estimated from the branch point off main" in fields["stderr"]


def test_nothing_recorded_on_the_merge_branch_is_none(sandbox: Sandbox) -> None:
    sandbox.commit("two")
    fields = sandbox.boundary()
    expect(fields, "none", None, None)
    assert fields["SESSION_RANGE_DESC"] == NONE_DESC


def test_no_merge_branch_at_all(sandbox: Sandbox) -> None:
    sandbox.git.branch("-q", "-m", "trunk")
    sandbox.git.checkout("-q", "-b", "feat")
    sandbox.commit("work")
    expect(sandbox.boundary(), "none", None, None)


def test_master_is_the_merge_branch_when_there_is_no_main(sandbox: Sandbox) -> None:
    sandbox.git.branch("-q", "-m", "master")
    point, _ = feature(sandbox)
    expect(sandbox.boundary(), "estimate", point, 3)


def test_origin_head_names_the_merge_branch(sandbox: Sandbox) -> None:
    sandbox.git.branch("-q", "-m", "develop")
    point, _ = feature(sandbox)
    sandbox.git.update_ref("refs/remotes/origin/develop", point)
    sandbox.git.symbolic_ref("refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    fields = sandbox.boundary()
    expect(fields, "estimate", point, 3)
    assert "off develop" in fields["stderr"]


def test_branch_names_with_slashes(sandbox: Sandbox) -> None:
    _, start = feature(sandbox, name="user/topic/deep")
    sandbox.write_task("user/topic/deep", f"session: {start} {SID}\n")
    assert (sandbox.sessions() / ".task-user-topic-deep").exists()
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", start, 3)


def arrive(box: Sandbox, branch: str, message: str, age_days: float = 1.0) -> str:
    """A commit on ``branch`` made elsewhere (a teammate's, fetched): it never passes
    through this work tree's HEAD, so its reflog does not say this session made it."""
    when = f"@{int(time.time() - age_days * 86400)} +0000"
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    tip = box.rev(branch)
    new = str(box.git.commit_tree(tip + "^{tree}", "-p", tip, "-m", message, env=env))
    box.git.update_ref("refs/heads/" + branch, new, tip)
    return new


def merged_main(box: Sandbox) -> tuple[str, str]:
    """feat: one older commit, a session commit, then main (moved by two, by others)
    merged in."""
    point, start = feature(box, session=1, before=1)
    arrive(box, "main", "main moves")
    arrive(box, "main", "main moves again")
    box.git.merge("-q", "--no-edit", "main")
    note_made(box.path, [box.head()], SID)  # the session made the merge commit
    return point, start


def git_count(box: Sandbox, *revs: str) -> int:
    return int(box.git.rev_list("--count", *revs, "--"))


def test_commits_merged_in_from_main_are_not_the_sessions(sandbox: Sandbox) -> None:
    """A departure from the seed's script: it counted main's two commits as the session's
    (4 commits); the session made one commit and one merge."""
    _, start = merged_main(sandbox)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    assert git_count(sandbox, "HEAD", "^" + start) == 4
    assert git_count(sandbox, "HEAD", "^" + start, "^main") == 2
    assert fields["SESSION_TRUST"] == "exact" and fields["SESSION_COMMITS"] == "2", fields
    assert fields["SESSION_RANGE_DESC"] == (
        f"session: {start}..HEAD (2 commits, not counting 2 already on main)")
    assert "2 commits of the range came in from main" in fields["stderr"]


def test_a_boundary_at_the_fork_point_survives_a_merge_of_main(sandbox: Sandbox) -> None:
    """The script rejected it ("older than this branch's point": the merge-base moved up
    to main's tip). The fork point is where feat's first-parent line leaves main, which a
    merge of main does not move."""
    point, start = merged_main(sandbox)
    note_made(sandbox.path, [start], SID)  # a session that began at the fork point made it
    sandbox.write_task("feat", f"session: {point} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "exact", fields
    assert fields["SESSION_BOUNDARY"] == point
    assert fields["SESSION_COMMITS"] == str(git_count(sandbox, "HEAD", "^" + point, "^main"))
    assert fields["SESSION_COMMITS"] == "3"


def test_a_commit_that_came_in_with_main_predates_the_branch(sandbox: Sandbox) -> None:
    """A boundary on main's history that only reached feat through the merge (and one
    older than the fork point) is rejected, as the script rejects it."""
    point, _ = merged_main(sandbox)
    for sha in (sandbox.rev("main"), sandbox.rev("main~1"), sandbox.rev(point + "~1")):
        sandbox.write_task("feat", f"session: {sha} {SID}\n")
        fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
        assert fields["SESSION_TRUST"] == "estimate", fields
        assert "older than this branch's point off main" in fields["stderr"]


def test_a_boundary_on_a_merged_side_branch_is_the_scripts_answer(sandbox: Sandbox) -> None:
    """A side branch merged into feat (not main): its commits are not main's, the
    boundary is kept and counted like the script counts it."""
    feature(sandbox, session=0, before=1)  # below the boundary: none of the session's
    sandbox.git.checkout("-q", "-b", "side")
    side = sandbox.commit("side work", age_days=1)
    sandbox.commit("more side work", age_days=1, sid=SID)
    sandbox.git.checkout("-q", "feat")
    sandbox.commit("feat work", age_days=1, sid=SID)
    sandbox.git.merge("-q", "--no-edit", "side")
    note_made(sandbox.path, [sandbox.head()], SID)
    sandbox.write_task("feat", f"session: {side} {SID}\n")
    fields = sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "exact", side, git_count(sandbox, "HEAD", "^" + side))


# -- the deliberate departures -----------------------------------------------------------

def test_crlf_task_file_reads_like_lf(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"task: x\r\nsession: {start} {SID}\r\norigin: y\r\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "exact", start, 3)
    sandbox.write_task("feat", f"session: {start}\r\n")
    expect(sandbox.boundary(env={"CLAUDE_CODE_SESSION_ID": SID}), "prior-session", start, 3)


def test_no_work_tree_reads_no_state(sandbox: Sandbox, tmp_path: Path) -> None:
    point, start = feature(sandbox, before=1)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    env = {"CLAUDE_CODE_SESSION_ID": SID}
    expect(sandbox.boundary(env=env), "exact", start, 3)  # read from the work tree
    fields = sandbox.boundary(env=env, cwd=sandbox.path / ".git")
    expect(fields, "estimate", point, 4)  # the same branch, but nothing was read
    assert "no work tree" in fields["stderr"]
    bare = tmp_path / "bare.git"
    sandbox.git.clone("-q", "--bare", str(sandbox.path), str(bare))
    fields = sandbox.boundary(env=env, cwd=bare)
    expect(fields, "estimate", point, 4)
    assert "no work tree" in fields["stderr"]


# -- options -------------------------------------------------------------------------------

def test_json_output(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    sandbox.write_task("feat", f"session: {'cd' * 20} {SID}\n")
    done = sandbox.run("lets-session-boundary", "--json", env={"CLAUDE_CODE_SESSION_ID": SID})
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert data["boundary"] == point
    assert data["trust"] == "estimate"
    assert data["commits"] == 3
    assert data["desc"] == ESTIMATE_DESC.format(b=point, n=3)
    assert data["reason"] == "not a commit in this repository"
    assert any("rejected" in n for n in data["notes"])


def test_branch_and_head_resolve_a_branch_not_checked_out(sandbox: Sandbox) -> None:
    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    sandbox.git.checkout("-q", "main")
    env = {"CLAUDE_CODE_SESSION_ID": SID}
    expect(sandbox.boundary("--branch", "feat", env=env), "exact", start, 3)
    expect(sandbox.boundary("--branch", "feat", "--head", "feat~1", env=env), "exact", start, 2)
    fields = sandbox.boundary("--branch", "feat", "--head", "no-such-rev", env=env)
    expect(fields, "none", None, None)


# -- failing closed ------------------------------------------------------------------------

def test_outside_a_repository(tmp_path: Path) -> None:
    box = Sandbox.__new__(Sandbox)
    box.path = tmp_path
    fields = box.boundary(cwd=tmp_path)
    expect(fields, "none", None, None)
    assert "not inside a git repository" in fields["stderr"]


def test_without_git_on_path(sandbox: Sandbox, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    fields = sandbox.boundary(env={"PATH": str(empty)})
    expect(fields, "none", None, None)
    assert "git is not installed" in fields["stderr"]


def test_internal_error_still_prints_four_lines(
        sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from lets_hooks import ladder
    from lets_hooks.cli import boundary

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.chdir(sandbox.path)
    monkeypatch.setattr(ladder, "resolve", explode)
    assert boundary.main([]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "SESSION_BOUNDARY=none", "SESSION_TRUST=none", "SESSION_COMMITS=unknown",
        "SESSION_RANGE_DESC=" + NONE_DESC]
    assert "internal error (RuntimeError: boom)" in err


def test_broken_config_is_one_line_and_defaults_apply(sandbox: Sandbox) -> None:
    point, _ = feature(sandbox)
    lets = sandbox.path / ".lets"
    lets.mkdir(exist_ok=True)
    (lets / "config.toml").write_text("merge_branch = [unclosed\n")
    fields = sandbox.boundary()
    expect(fields, "estimate", point, 3)
    problem = [line for line in fields["stderr"].splitlines() if "config.toml" in line]
    assert len(problem) == 1
    assert problem[0].startswith("NOTE: .lets/config.toml: invalid TOML (")
    assert "Traceback" not in fields["stderr"]


def processes(box: Sandbox, sid: str = SID) -> tuple[dict[str, str], int]:
    """The contract command's answer, and how many git processes it started."""
    from lets_hooks import config, ladder
    from lets_hooks.repo import Repo

    repo = Repo(str(box.path))
    result = ladder.resolve(repo, config.load(str(box.path), {}), sid,
                            int(__import__("time").time()))
    fields = dict(zip(("SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS",
                       "SESSION_RANGE_DESC"), (line.split("=", 1)[1] for line in result.lines())))
    return fields, repo.calls


@pytest.mark.parametrize("with_origin", [False, True])
def test_few_git_processes_on_every_path(sandbox: Sandbox, tmp_path: Path,
                                         with_origin: bool) -> None:
    """Where are we (1), every name at once (1), then: one walk on a topic whose line is
    free of merges (the ancestor check, the floor and the count together), one count more
    when main was merged in (the walk gives what is not main's), one walk on the merge
    branch. A clone with ``origin/HEAD`` takes the same one-process "where are we" (it
    once fell to five)."""
    point, start = feature(sandbox)
    if with_origin:
        remote = tmp_path / "remote.git"
        sandbox.git.init("-q", "--bare", str(remote))
        sandbox.git.remote("add", "origin", str(remote))
        sandbox.git.push("-q", "origin", "main")
        sandbox.git.remote("set-head", "origin", "main")
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    fields, calls = processes(sandbox)
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"], calls) == ("exact", "3", 3)
    sandbox.write_task("feat", "task: nothing recorded\n")
    fields, calls = processes(sandbox)
    # 3: the walk alone finds the fork point of a line with no merges
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], calls) == ("estimate", point, 3)
    sandbox.git.checkout("-q", "main")
    sandbox.write_task("main", f"session: {point} {SID}\n")
    fields, calls = processes(sandbox)
    # the boundary is HEAD itself: no walk (an empty range); the session ledger names
    # this session's commits on feat, outside the range, and one rev-list asks whether
    # the boundary reaches them
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"], calls) == ("exact", "0", 3)
    sandbox.git.checkout("-q", "feat")
    arrive(sandbox, "main", "main moves")
    if with_origin:
        sandbox.git.push("-q", "origin", "main")
    sandbox.git.merge("-q", "--no-edit", "main")
    note_made(sandbox.path, [sandbox.head()], SID)  # the session made the merge commit
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    fields, calls = processes(sandbox)
    # 4 with an origin too: main's commits have no line in the session ledger, and are
    # left out as main's without asking where they came from (a remote-tracking ref, the
    # HEAD log): only the ledger could make one of them the session's
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"], calls) == ("exact", "4", 4)


def test_a_merge_at_head_lists_the_range_after_the_walk(sandbox: Sandbox) -> None:
    """With HEAD a merge, the range is listed after the first-parent walk: used where the
    boundary is on HEAD's first-parent line, not asked where main brought it in."""
    _, start = feature(sandbox)
    moved = arrive(sandbox, "main", "main moves")
    arrive(sandbox, "main", "main moves again")
    sandbox.git.merge("-q", "--no-edit", "main")
    note_made(sandbox.path, [sandbox.head()], SID)
    sandbox.commit("after the merge", age_days=0, sid=SID)
    sandbox.git.checkout("-q", "-b", "side")
    sandbox.commit("a side line", age_days=0, sid=SID)
    sandbox.git.checkout("-q", "feat")
    sandbox.git.merge("-q", "--no-edit", "--no-ff", "side")
    note_made(sandbox.path, [sandbox.head()], SID)
    assert len(sandbox.git.rev_parse("HEAD^@").split()) == 2  # HEAD is a merge
    every = set(sandbox.git.rev_list(f"{start}..HEAD").split())
    mains = set(sandbox.git.rev_list(f"{start}..main").split())
    assert len(every - mains) == 7 and len(mains) == 2
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    fields, calls = processes(sandbox)
    # where are we, every name, the walk and the listing
    assert (fields["SESSION_TRUST"], fields["SESSION_COMMITS"], calls) == ("exact", "7", 4)
    assert f"not counting {len(mains)} already on main" in fields["SESSION_RANGE_DESC"]
    # a boundary main brought in: off the first-parent line, the listing is not used
    sandbox.write_task("feat", f"session: {moved} {SID}\n")
    fields, calls = processes(sandbox)
    # rejected (main's commit predates the branch): the estimate from main's tip, which
    # the merge made the fork point
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) \
        == ("estimate", sandbox.rev("main"), "7"), fields


def test_a_command_in_a_process_of_its_own_runs_without_the_collector(
        sandbox: Sandbox) -> None:
    """The contract command's console script and ``lets-hooks`` as git's hooks run it (a
    process each) turn the collector off for their short run and leave with no teardown;
    a caller in the same process keeps its own collector and its process."""
    import gc
    import subprocess
    import sys

    _, start = feature(sandbox)
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    said = ("import gc, sys\n"
            "def said(*_):\n"
            "    from lets_hooks import repo\n"
            "    print('collector', gc.isenabled(), file=sys.stderr)\n")
    leaving = ("import os\nquit = os._exit\n"  # both leave with os._exit: asked there
               "os._exit = lambda code: (said(), sys.stderr.flush(), quit(code))\n")
    entries = {"boundary": leaving + "from lets_hooks.cli.boundary import run\nrun()",
               "hooks": leaving + "from lets_hooks.cli.hooks import main\nsys.exit(main())"}
    for name, entry in entries.items():
        args = ["--version"] if name == "hooks" else []
        done = subprocess.run([sys.executable, "-c", said + entry, *args], cwd=sandbox.path,
                              capture_output=True, text=True,
                              env={**os.environ, "LETS_SESSION_ID": SID})
        assert done.returncode == 0 and "collector False" in done.stderr, done
        assert ("SESSION_TRUST=exact" if name == "boundary" else "lets-hooks ") in done.stdout
    from lets_hooks.cli import hooks

    assert gc.isenabled()
    assert hooks.main(["--version"]) == 0 and gc.isenabled()


def test_git_is_never_handed_an_option(sandbox: Sandbox, tmp_path: Path) -> None:
    """A hostile session line cannot reach git as an argument: a fake git logs its argv."""
    feature(sandbox)
    real = shutil.which("git")
    assert real
    log = tmp_path / "argv.log"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" >> {log}\necho "-- end --" >> {log}\n'
        f'exec {real} "$@"\n')
    (fake / "git").chmod(0o755)
    sandbox.write_task("feat", "session: --output=/tmp/pwned --all\n")
    (sandbox.sessions() / ".session-start-ref-feat").write_text("-n1\n")
    sandbox.boundary(env={"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    calls = [call.strip("\n").split("\n") for call in log.read_text().split("-- end --\n")
             if call.strip()]
    for args in calls:
        assert not any(a.startswith("--output") or a == "-n1" for a in args), args
        # ``--all`` is the product's own only in ``merge-base --all A B`` of two shas
        assert "--all" not in args or (
            args[:2] == ["merge-base", "--all"] and len(args) == 4
            and all(len(a) == 40 and not a.strip("0123456789abcdef") for a in args[2:])), args


def test_a_usage_error_still_prints_four_lines(sandbox: Sandbox) -> None:
    done = sandbox.run("lets-session-boundary", "--no-such-flag")
    assert done.returncode == 0
    assert done.stdout.splitlines()[1:3] == ["SESSION_TRUST=none", "SESSION_COMMITS=unknown"]
    assert "usage: lets-session-boundary" in done.stderr


def test_branch_option_reads_the_work_tree_the_branch_is_checked_out_in(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """``--branch X`` for a branch checked out in another work tree reads that work tree's
    state, as ``status`` and pre-push do (it once read the current one's and disagreed)."""
    sandbox.commit("tip", age_days=1)
    linked = tmp_path / "linked"
    sandbox.git.worktree("add", "-q", "-b", "wt", str(linked))
    start = sandbox.rev("wt")
    (linked / ".lets" / "sessions").mkdir(parents=True)
    (linked / ".lets" / "sessions" / ".task-wt").write_text(f"session: {start} {SID}\n")
    sandbox.write_task("wt", "session: " + "0" * 40 + f" {SID}\n")  # a stale copy here
    fields = sandbox.boundary("--branch", "wt", env={"CLAUDE_CODE_SESSION_ID": SID})
    expect(fields, "exact", start, 0)


def test_on_the_merge_branch_one_walk_answers_ancestry_and_range(sandbox: Sandbox) -> None:
    """On the merge branch, with a commit-graph file or without: one ``rev-list
    --boundary`` says whether the boundary is an ancestor (it is printed as the boundary
    of the listed commits) and lists the range, where ``is-ancestor`` and a listing once
    walked twice. The same answers either way, and a boundary HEAD does not reach is
    still refused."""
    point, _ = feature(sandbox)
    sandbox.git.checkout("-q", "main")
    sandbox.commit("main moves", age_days=1, sid=SID)
    sandbox.commit("main moves again", age_days=1, sid=SID)
    sandbox.write_task("main", f"session: {point} {SID}\n")
    without, calls = processes(sandbox)
    # 4, not 3: the session's commits on feat (the session ledger's) lie outside the
    # range, and one rev-list asks whether the boundary reaches them
    assert (without["SESSION_TRUST"], without["SESSION_COMMITS"], calls) == ("exact", "2", 4)
    sandbox.git.commit_graph("write", "--reachable")
    with_graph, calls = processes(sandbox)
    assert (with_graph, calls) == (without, 4)
    for graph in (True, False):
        if not graph:
            for found in (sandbox.path / ".git" / "objects" / "info").glob("commit-graph*"):
                if found.is_dir():
                    shutil.rmtree(found)
                else:
                    found.unlink()
        for refused in (sandbox.rev("feat"), sandbox.rev("feat~1")):  # off main's line
            sandbox.write_task("main", f"session: {refused} {SID}\n")
            fields, _ = processes(sandbox)
            assert fields["SESSION_TRUST"] == "none", (graph, refused)


def test_the_estimate_on_a_seen_shaped_branch_walks_twice(sandbox: Sandbox) -> None:
    """A first-parent line of topic merges (as git's own ``seen``), nothing recorded: one
    walk of what main has not, which shows main's tip as a parent of what it printed (the
    one merge-base, so none is asked): fewer walks than the script's two (its merge-base
    and its count)."""
    for i in range(6):
        sandbox.commit(f"main {i}", age_days=2)
    base = [sandbox.rev(f"main~{i}") for i in range(6)]
    sandbox.git.checkout("-q", "-b", "seen")
    for n in range(8):
        sandbox.git.checkout("-q", "-b", f"t{n}", base[n % 6])
        for k in range(1 + n % 3):
            sandbox.commit(f"topic {n} step {k}", age_days=1)
        sandbox.git.checkout("-q", "seen")
        sandbox.git.merge("-q", "--no-ff", "--no-edit", f"t{n}")
    fields, calls = processes(sandbox)
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"]) == ("estimate", base[0])
    assert calls == 3, calls  # rev-parse, cat-file, rev-list
    total = git_count(sandbox, "HEAD", "^" + base[0])
    assert fields["SESSION_RANGE_DESC"].startswith(f"approx: {base[0]}..HEAD (")
    assert int(fields["SESSION_COMMITS"]) == total  # all made here: all counted


@pytest.mark.parametrize("main_moved", [False, True])
def test_a_branch_built_on_the_merge_branch_tip_needs_no_merge_base(
        sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, main_moved: bool) -> None:
    """When the walk of what main has not shows main's tip as a parent of what it printed,
    the tip is HEAD's ancestor and so the one merge-base: ``merge-base --all`` is not
    asked. After main moves on, it is asked, and its answer is git's."""
    for i in range(4):
        sandbox.commit(f"main {i}", age_days=2)
    sandbox.git.checkout("-q", "-b", "seen")
    for n in range(3):
        sandbox.git.checkout("-q", "-b", f"t{n}", f"main~{n + 1}")
        sandbox.commit(f"topic {n}", age_days=1)
        sandbox.git.checkout("-q", "seen")
        sandbox.git.merge("-q", "--no-ff", "--no-edit", f"t{n}")
    if main_moved:
        sandbox.git.checkout("-q", "main")
        sandbox.commit("main moves on", age_days=1)
        sandbox.git.checkout("-q", "seen")
    base = sandbox.git.merge_base("HEAD", "main").strip()
    fields, calls = processes(sandbox)
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"]) == ("estimate", base)
    assert int(fields["SESSION_COMMITS"]) == git_count(sandbox, "HEAD", "^" + base)
    assert calls == (4 if main_moved else 3)  # rev-parse, cat-file, rev-list (merge-base)
