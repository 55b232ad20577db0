"""post-checkout, ``record_session`` and ``lets-hooks record``, through real git."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, calls, logging_git, make

from lets_hooks.hooks import record_session


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = make(tmp_path)
    made.install()
    return made


def test_checkout_b_records_head_with_the_session(box: HookBox) -> None:
    head = box.head()
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{head} {SID}"
    assert done.stderr == ""  # quiet when all is well
    box.commit("session work", sid=SID)
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", head, "1")


def test_checkout_b_without_a_session_records_a_sid_less_line(box: HookBox) -> None:
    head = box.head()
    box.sh("checkout", "-q", "-b", "feat")
    assert box.line("feat") == head
    assert box.field(None, "SESSION_TRUST") == "prior-session"


def test_switch_back_in_the_same_session_keeps_the_line(box: HookBox) -> None:
    start = box.head()
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.commit("one", sid=SID)
    box.sh("switch", "-q", "main", sid=SID)
    box.sh("switch", "-q", "feat", sid=SID)
    assert box.line("feat") == f"{start} {SID}"
    assert box.field(SID, "SESSION_COMMITS") == "1"


def test_checkout_by_a_different_session_starts_a_new_boundary(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat", sid=OTHER)
    box.commit("earlier session's work")
    box.sh("checkout", "-q", "main", sid=OTHER)
    tip = box.rev("feat")
    box.sh("checkout", "-q", "feat", sid=SID)
    assert box.line("feat") == f"{tip} {SID}"
    assert box.field(SID, "SESSION_TRUST") == "exact"
    assert box.field(SID, "SESSION_COMMITS") == "0"


def test_checkout_with_no_session_keeps_any_line(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat", sid=OTHER)
    first = box.line("feat")
    box.commit("work")
    box.sh("checkout", "-q", "main")
    box.sh("checkout", "-q", "feat")
    assert box.line("feat") == first


def test_a_sid_less_line_is_claimed_by_the_first_known_session(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat")
    box.commit("work without a session")
    box.sh("checkout", "-q", "main")
    tip = box.rev("feat")
    box.sh("checkout", "-q", "feat", sid=SID)
    assert box.line("feat") == f"{tip} {SID}"


def test_other_bytes_of_the_task_file_survive_a_checkout(box: HookBox) -> None:
    box.sh("branch", "feat")
    body = f"task: ship it\r\nsession: {box.head()} {OTHER}\r\norigin: main\r\n\r\n# notes\r\n"
    box.write_task("feat", body)
    box.sh("checkout", "-q", "feat", sid=SID)
    data = box.task("feat").read_bytes()
    stamp = data.split(b"\r\n")[2]
    assert stamp.startswith(f"session-recorded: {box.head()} ".encode())
    assert data == body.replace(OTHER, SID).replace(
        "\r\norigin", "\r\n" + stamp.decode() + "\r\norigin").encode()


def test_a_quiet_repository_still_gives_exact(tmp_path: Path) -> None:
    """Every commit is 30 days old: a session that starts today is not rejected as "30
    days old" (the age counts from when the boundary was recorded), on a topic branch
    and on the merge branch itself, where the fix the warning suggested used to be
    rejected again."""
    quiet = HookBox(tmp_path / "quiet")
    quiet.commit("root", age_days=31)
    quiet.commit("last change", age_days=30)
    quiet.install()
    head = quiet.head()
    done = quiet.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert done.stderr == ""
    fields = quiet.boundary(env={"LETS_SESSION_ID": SID})
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"], fields["SESSION_COMMITS"]) == (
        "exact", head, "0")
    done = quiet.sh("checkout", "-q", "main", sid=SID)
    assert done.stderr == ""
    fields = quiet.boundary(env={"LETS_SESSION_ID": SID})
    assert (fields["SESSION_TRUST"], fields["SESSION_BOUNDARY"]) == ("exact", head)
    # without the recorded time, the commit's own age decides, as in the script
    task = quiet.task("main")
    task.write_text(task.read_text().split("\n")[0] + "\n")
    fields = quiet.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "none"
    assert "30 days old" in fields["stderr"]
    # a recorded time more than a day ahead of the clock is not believed
    task.write_text(task.read_text() + f"session-recorded: {head} 2099-01-01T00:00:00Z\n")
    fields = quiet.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "none"
    assert "ahead of the clock" in fields["stderr"]


def test_worktree_add_b_records_in_the_new_worktrees_own_state(box: HookBox,
                                                              tmp_path: Path) -> None:
    head = box.head()
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    assert box.line("wt", root=linked) == f"{head} {SID}"
    assert not box.task("wt").exists()  # not in the main work tree's .lets
    fields = box.boundary(env={"LETS_SESSION_ID": SID}, cwd=linked)
    assert fields["SESSION_TRUST"] == "exact"


def test_worktree_with_a_shared_lets_symlink(box: HookBox, tmp_path: Path) -> None:
    (box.path / ".lets").mkdir(exist_ok=True)
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "--no-checkout", "-b", "wt", str(linked))
    (linked / ".lets").symlink_to(box.path / ".lets")
    box.sh("checkout", "-q", "wt", sid=SID, cwd=linked)
    assert box.line("wt") == f"{box.head()} {SID}"  # landed in the shared folder


def test_file_checkout_does_nothing_and_runs_no_git(box: HookBox, tmp_path: Path) -> None:
    env, log = logging_git(tmp_path / "bin")
    done = box.run("lets-hooks", "post-checkout", box.head(), box.head(), "0",
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0 and done.stderr == ""
    assert calls(log) == []
    assert not box.task("main").exists()
    # the real thing: restoring a file through git
    (box.path / "base.txt").write_text("changed\n")
    box.sh("checkout", "--", "base.txt", sid=SID)
    assert not box.task("main").exists()


def test_detached_checkout_does_nothing_with_one_git_call(box: HookBox,
                                                          tmp_path: Path) -> None:
    box.sh("checkout", "-q", "--detach", "HEAD", sid=SID)
    assert not (box.path / ".lets").exists()
    env, log = logging_git(tmp_path / "bin")
    done = box.run("lets-hooks", "post-checkout", box.head(), box.head(), "1",
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0 and done.stderr == ""
    assert len(calls(log)) == 1  # where are we: detached, done


def test_rebase_start_checkout_does_nothing(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat")
    box.file_commit("f.txt", "f\n")
    box.sh("checkout", "-q", "main")
    box.file_commit("g.txt", "g\n")
    os.unlink(box.task("feat"))
    box.sh("checkout", "-q", "feat")  # records feat again (no session): sid-less at its tip
    line = box.line("feat")
    done = box.sh("rebase", "-q", "main", sid=SID)
    assert "lets-hooks" not in done.stderr
    names = sorted(p.name for p in (box.path / ".lets" / "sessions").iterdir())
    # the rewrite pairs go to the session ledger in the git dir (no .rewritten file now)
    assert names == [".task-feat", ".task-main"]
    assert b"\nr " in b"\n" + (box.path / ".git" / "lets-hooks" / "ledger").read_bytes()
    assert box.line("feat") != f"{box.head()} {SID}"  # the rebase's checkout claimed nothing
    assert line is not None


def test_pre_commit_environment_is_understood(box: HookBox) -> None:
    box.sh("branch", "feat")
    box.sh("symbolic-ref", "HEAD", "refs/heads/feat")
    env = {"LETS_SESSION_ID": SID, "PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": box.head(),
           "PRE_COMMIT_TO_REF": box.head(), "PRE_COMMIT_CHECKOUT_TYPE": "0"}
    assert box.run("lets-hooks", "post-checkout", env=env).returncode == 0
    assert box.line("feat") is None  # a file checkout
    env["PRE_COMMIT_CHECKOUT_TYPE"] = "1"
    assert box.run("lets-hooks", "post-checkout", env=env).returncode == 0
    assert box.line("feat") == f"{box.head()} {SID}"


def test_a_rejected_boundary_is_warned_about(box: HookBox) -> None:
    box.sh("branch", "feat")
    box.write_task("feat", "session: " + "c" * 40 + "\n")
    done = box.sh("checkout", "-q", "feat")
    assert done.returncode == 0
    assert "'feat'" in done.stderr and "rejected" in done.stderr
    assert "not a commit" in done.stderr and "lets-hooks record" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_colliding_branch_slugs_are_reported_not_crashed_on(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat-x", sid=OTHER)
    other_line = box.line("feat-x")
    done = box.sh("checkout", "-q", "-b", "feat/x", sid=SID)
    assert done.returncode == 0
    assert "share the state file .task-feat-x" in done.stderr
    assert "Traceback" not in done.stderr
    assert box.line("feat-x") == other_line


def test_slug_too_long_is_reported(box: HookBox) -> None:
    branch = "part/" * 60 + "end"
    done = box.sh("checkout", "-q", "-b", branch, sid=SID)
    assert done.returncode == 0
    assert "too long" in done.stderr and "Traceback" not in done.stderr


def test_symlinked_task_file_is_refused_on_checkout(box: HookBox, tmp_path: Path) -> None:
    box.sh("branch", "feat")
    target = tmp_path / "target"
    target.write_text("keep me\n")
    box.sessions()
    box.task("feat").symlink_to(target)
    done = box.sh("checkout", "-q", "feat", sid=SID)
    assert "symbolic link" in done.stderr
    assert target.read_text() == "keep me\n"


# -- record_session (the SessionStart hook's call) -----------------------------------------

def test_record_session_follows_the_rules(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat")
    os.unlink(box.task("feat"))
    assert record_session(str(box.path), SID, {}) == []
    assert box.line("feat") == f"{box.head()} {SID}"
    box.commit("work")
    assert record_session(str(box.path), SID, {}) == []  # resumed: kept
    assert box.line("feat") == f"{box.rev('HEAD~1')} {SID}"
    assert record_session(str(box.path), OTHER, {}) == []
    assert box.line("feat") == f"{box.head()} {OTHER}"  # a new session: replaced
    # an empty id falls back to the environment's
    assert record_session(str(box.path), "", {"LETS_SESSION_ID": SID}) == []
    assert box.line("feat") == f"{box.head()} {SID}"


def test_record_session_never_raises(box: HookBox, tmp_path: Path) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    messages = record_session(str(outside), SID, {})
    assert len(messages) == 1 and "not inside a git repository" in messages[0]
    box.sh("checkout", "-q", "--detach")
    assert record_session(str(box.path), SID, {}) == []
    assert not (box.path / ".lets").exists()
    box.sh("checkout", "-q", "main")
    os.unlink(box.task("main"))
    box.task("main").mkdir()
    messages = record_session(str(box.path), SID, {})
    assert len(messages) == 1 and "not a regular file" in messages[0]


# -- lets-hooks record -------------------------------------------------------------------

def test_record_command(box: HookBox) -> None:
    box.sh("checkout", "-q", "-b", "feat", sid=OTHER)
    box.commit("work")
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    assert box.line("feat") == f"{box.head()} {SID}"
    assert f"recorded {box.head()} for branch 'feat'" in done.stderr
    assert len(done.stdout.splitlines()) == 4  # exactly the contract's lines
    assert f"SESSION_RANGE_DESC=session: {box.head()}..HEAD (0 commits)" in done.stdout
    done = box.run("lets-hooks", "record", "--sid", "hand-made", env={"LETS_SESSION_ID": SID})
    assert box.line("feat") == f"{box.head()} hand-made"
    assert "SESSION_TRUST=exact" in done.stdout  # judged for the session it names
    done = box.run("lets-hooks", "record", "--no-sid", env={"LETS_SESSION_ID": SID})
    assert box.line("feat") == box.head()
    assert "SESSION_TRUST=prior-session" in done.stdout


def test_record_command_refuses_clearly(box: HookBox) -> None:
    box.sh("checkout", "-q", "--detach")
    done = box.run("lets-hooks", "record")
    assert done.returncode == 1
    assert done.stderr.strip() == ("lets-hooks record: HEAD is detached: check out a branch "
                                   "to record its session boundary")
    done = box.run("lets-hooks", "record", "--sid", "two words")
    assert done.returncode == 1 and "Traceback" not in done.stderr
