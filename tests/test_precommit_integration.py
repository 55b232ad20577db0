"""The real pre-commit, installing this checkout as a hook repository (see
``precommit_box``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SID
from hookbox import TOOLS_NEED_GIT_2_31, HookBox
from scenarios import CASES
from test_sessions import Route, World, two_sessions_day


@pytest.fixture
def box(pc_box: HookBox) -> HookBox:
    return pc_box


# -- post-checkout (item 2 through pre-commit) ------------------------------------------

def test_checkout_b_records_through_pre_commit(box: HookBox) -> None:
    head = box.head()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{head} {SID}"
    box.sh("checkout", "-q", "main", sid="another-session")
    box.sh("checkout", "-q", "feat", sid="another-session")
    assert box.line("feat") == f"{head} another-session"
    box.sh("checkout", "-q", "main")
    box.sh("checkout", "-q", "feat")
    assert box.line("feat") == f"{head} another-session"


def test_worktree_add_b_through_pre_commit(box: HookBox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    assert box.line("wt", root=linked) == f"{box.head()} {SID}"


def test_file_and_detached_checkouts_do_nothing_through_pre_commit(box: HookBox) -> None:
    (box.path / "base.txt").write_text("changed\n")
    box.sh("checkout", "--", "base.txt", sid=SID)
    box.sh("checkout", "-q", "--detach", sid=SID)
    assert not (box.path / ".lets").exists()


# -- post-rewrite (item 3 through pre-commit: empty stdin, pairs recovered) --------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_boundary_follows_the_rewrite_through_pre_commit(box: HookBox, case: str) -> None:
    CASES[case](box)


# -- pre-push (item 4 through pre-commit: its one branch) -------------------------------

@TOOLS_NEED_GIT_2_31
def test_pre_push_through_pre_commit(box: HookBox, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    box.sh("push", "-q", "origin", "main")
    box.sh("checkout", "-q", "-b", "feat-bad", sid=SID)
    box.file_commit("bad.txt", "bad\n")
    box.write_task("feat-bad", "session: " + "c" * 40 + f" {SID}\n")
    done = box.sh("push", "origin", "feat-bad", sid=SID)
    output = done.stdout + done.stderr
    assert "lets-hooks: pre-push: branch 'feat-bad'" in output, output
    assert "not a commit in this repository" in output and "lets-hooks record" in output
    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    box.file_commit("bad2.txt", "bad\n")
    done = box.sh("push", "origin", "feat-bad", sid=SID, check=False)
    assert done.returncode != 0
    assert "push blocked" in done.stdout + done.stderr


# -- doctor on the README's pre-commit route ---------------------------------------------------

def test_doctor_says_once_what_pre_commit_leaves_out_and_its_fix_works(box: HookBox) -> None:
    """pre-commit cannot install post-applypatch: doctor says so in one note and does not
    fail; following its fix writes that one shim beside pre-commit's scripts, and then
    git am's commits reach the session ledger."""
    import json
    import shlex

    hooks = box.path / ".git" / "hooks"
    theirs = {p.name: p.read_bytes() for p in hooks.iterdir()}
    env = {"LETS_SESSION_ID": SID}

    def doctor() -> tuple[int, list[dict[str, str]]]:
        done = box.run("lets-hooks", "doctor", "--json", env=env)
        return done.returncode, json.loads(done.stdout)["checks"]

    code, checks = doctor()
    said = [c for c in checks if "post-applypatch" in c["name"] + c["text"] + c["fix"]]
    assert len(said) == 1, said
    assert said[0]["status"] == "note" and "pre-commit cannot install" in said[0]["text"]
    assert code == 0, [c for c in checks if c["status"] == "warn"]

    fix = said[0]["fix"].split(" (")[0]
    assert fix == "lets-hooks install"
    done = box.run(*shlex.split(fix), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ".git/hooks/post-applypatch: installed" in done.stdout
    assert (".git/hooks/post-checkout: left to pre-commit (lets-post-checkout is in "
            ".pre-commit-config.yaml)") in done.stdout
    assert {p.name: p.read_bytes() for p in hooks.iterdir() if p.name in theirs} == theirs
    assert sorted(set(p.name for p in hooks.iterdir()) - set(theirs)) == ["post-applypatch"]

    code, checks = doctor()
    assert code == 0
    (line,) = [c for c in checks if "post-applypatch" in c["name"] + c["text"] + c["fix"]]
    assert line["status"] == "ok" and "lets-hooks shim" in line["text"]

    box.sh("checkout", "-q", "-b", "side", sid=SID)
    box.file_commit("side.txt", "side\n")
    patch = box.sh("format-patch", "-1", "--stdout").stdout
    box.sh("checkout", "-q", "main", sid=SID)
    box.sh("am", "-q", sid=SID, stdin=patch)
    ledger = (box.path / ".git" / "lets-hooks" / "ledger").read_text()
    assert f"c {box.head()} {SID}" in ledger.splitlines()


# -- two sessions' day, every hook run by pre-commit ------------------------------------------

@TOOLS_NEED_GIT_2_31
def test_a_two_sessions_day_through_pre_commit_never_gives_a_wrong_exact(
        tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``test_sessions``' day with pre-commit running each lets-hooks id: an amend of the
    other session's commit, then ``pull --rebase`` over a teammate's push and a fixup
    (post-rewrite with no stdin: the pairs recovered from git)."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    route = Route("pre-commit-ids", hook_repo=hook_repo)
    two_sessions_day(World(tmp_path, route), ["A commit", "B commit", "A amend", "mate push",
                                              "A pull --rebase", "A fixup"])
