"""Install and doctor beside what newer gits do: hooks set in the git config (git 2.54+),
hooks run with SIGPIPE ignored (2.55), and a bare repository's linked work trees."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, make
from managers import bare_remote, git_at_least, snapshot

from lets_hooks.install import HOOKS, shim


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    return make(tmp_path)


def doctor(box: HookBox, env: dict[str, str], cwd: Path | None = None
           ) -> tuple[int, dict[str, dict[str, str]]]:
    done = box.run("lets-hooks", "doctor", "--json", env={**env, "LETS_SESSION_ID": SID},
                   cwd=cwd)
    return done.returncode, {c["name"]: c for c in json.loads(done.stdout)["checks"]}


# -- git 2.54+: hooks in the git config --------------------------------------------------------

def test_config_hooks_are_seen_and_never_doubled(box: HookBox, tmp_path: Path) -> None:
    env = git_at_least(2, 54)
    # a user who already runs lets-hooks' pre-push from the git config
    box.sh("config", "set", "hook.lets-pre-push.command", "lets-hooks pre-push", extra=env)
    box.sh("config", "set", "--append", "hook.lets-pre-push.event", "pre-push", extra=env)
    before = snapshot(box.path / ".git" / "hooks")
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 1
    assert done.stdout.startswith(
        "git runs lets-hooks from its config here: hook.lets-pre-push (pre-push, set in "
        ".git/config). Nothing was written: shims in .git/hooks would run each of them a "
        "second time (git runs the config's hooks first, then the hooks folder's). To run "
        "lets-hooks for post-checkout, post-rewrite, post-commit, post-merge, "
        "post-applypatch the same way:\n")
    assert snapshot(box.path / ".git" / "hooks") == before  # nothing written
    printed = done.stdout.splitlines()[1:]
    assert printed == [line for hook in HOOKS if hook != "pre-push" for line in (
        f"git config set hook.lets-{hook}.command 'lets-hooks {hook}'",
        f"git config set --append hook.lets-{hook}.event {hook}")]
    for line in printed:  # the lines work as printed
        argv = shlex.split(line)
        assert argv[0] == "git"
        box.sh(*argv[1:], extra=env)

    code, found = doctor(box, env)
    assert code == 0, found
    for hook in HOOKS:
        assert found[hook]["status"] == "ok"
        assert found[hook]["text"] == (f"hook.lets-{hook} in the git config runs lets-hooks "
                                       "(file:.git/config)")

    # git runs them: a checkout records, an amend moves the line (stdin reached it),
    # a push is checked once per branch
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") == f"{box.head()} {SID}"
    box.file_commit("a.txt", "a\n")
    box.file_commit("b.txt", "b\n")
    box.sh("rebase", "-q", "--exec", "true", "main", sid=SID, extra=env)
    assert box.line("feat") == f"{box.rev('main')} {SID}"
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "-q", "origin", "feat", sid=SID, extra=env)
    assert done.stderr.count("lets-hooks: pre-push: branch 'feat'") == 1

    # both at once (shims written by hand, or before the config hooks): doctor says
    # each runs twice; git runs the config's hook first, then the shim
    for hook in HOOKS:
        (box.path / ".git" / "hooks" / hook).write_text(shim(hook))
        (box.path / ".git" / "hooks" / hook).chmod(0o755)
    code, found = doctor(box, env)
    assert code == 1
    for hook in HOOKS:
        assert found[hook]["status"] == "warn"
        assert found[hook]["text"].startswith(f"runs twice: hook.lets-{hook} (git config, "
                                              "file:.git/config) and lets-hooks shim")
        assert found[hook]["fix"].startswith("keep one: lets-hooks uninstall")
    box.sh("commit", "-q", "--allow-empty", "-m", "more", extra=env)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "-q", "origin", "feat", sid=SID, extra=env)
    assert done.stderr.count("lets-hooks: pre-push: branch 'feat'") == 2
    done = box.run("lets-hooks", "uninstall", env=env)
    assert ".git/hooks/pre-push: removed" in done.stdout
    assert ("note: git config hook.lets-pre-push still runs lets-hooks pre-push: git config "
            "unset hook.lets-pre-push.command") in done.stdout
    assert doctor(box, env)[0] == 0


def test_a_config_hook_switched_off_by_its_event_is_said(box: HookBox) -> None:
    env = git_at_least(2, 55)
    box.sh("config", "set", "hook.lets-post-checkout.command", "lets-hooks post-checkout",
           extra=env)
    box.sh("config", "set", "--append", "hook.lets-post-checkout.event", "post-checkout",
           extra=env)
    box.sh("config", "hook.post-checkout.enabled", "false", extra=env)
    code, found = doctor(box, env)
    assert code == 1
    assert found["post-checkout"]["text"] == "lets-hooks is not installed for it (nothing is there)"
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") is None  # as doctor said
    done = box.run("lets-hooks", "install", env=env)  # the shims are not a second run
    assert done.returncode == 0, done.stdout
    box.sh("checkout", "-q", "-b", "feat2", sid=SID, extra=env)
    assert box.line("feat2") == f"{box.head()} {SID}"


# -- a chained pre-push that reads none of its stdin -----------------------------------------

def test_a_chained_pre_push_that_reads_nothing_breaks_nothing(box: HookBox,
                                                              tmp_path: Path) -> None:
    """git 2.55 runs hooks with SIGPIPE ignored: a pipe into a hook that exits without
    reading made the shim print `printf: I/O error`. The shim keeps git's stdin in a file
    that each hook reads from its start. Over 64 KiB of ref lines (more than a pipe holds)."""
    env = git_at_least(2, 55) if _has_new_git() else {}
    hooks = box.path / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n")  # reads none of it
    (hooks / "pre-push").chmod(0o755)
    box.install()
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    for n in range(700):
        box.sh("update-ref", f"refs/tags/t{n:04}", "HEAD")
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "-q", "origin", "feat", "--tags", sid=SID, extra=env)
    assert "I/O error" not in done.stderr
    assert done.stderr.count("lets-hooks: pre-push: branch 'feat'") == 1  # ours read it all
    # and a chained hook that reads gets every line, then ours does too
    seen = tmp_path / "seen"
    (hooks / "pre-push.pre-lets").write_text(f'#!/bin/sh\ncat > "{seen}"\n')
    box.sh("commit", "-q", "--allow-empty", "-m", "more", extra=env)
    for n in range(700):
        box.sh("update-ref", f"refs/tags/u{n:04}", "HEAD")
    done = box.sh("push", "-q", "origin", "feat", "--tags", sid=SID, extra=env)
    assert "I/O error" not in done.stderr
    assert len(seen.read_text().splitlines()) == 701
    assert done.stderr.count("lets-hooks: pre-push: branch 'feat'") == 1


def _has_new_git() -> bool:
    try:
        git_at_least(2, 55)
    except pytest.skip.Exception:
        return False
    return True


# -- a bare repository with linked work trees --------------------------------------------------

def test_install_in_a_bare_repository_with_work_trees(box: HookBox, tmp_path: Path) -> None:
    bare = tmp_path / "project.git"
    box.sh("clone", "-q", "--bare", str(box.path), str(bare))
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "topic", str(linked), cwd=bare)
    done = box.run("lets-hooks", "install", cwd=bare)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [f"hooks/{hook}: installed" for hook in HOOKS]
    box.sh("switch", "-q", "-c", "work", sid=SID, cwd=linked)  # git runs them there
    assert box.line("work", root=linked) == f"{box.rev('main')} {SID}"
    doctor = box.run("lets-hooks", "doctor", cwd=bare, env={"LETS_SESSION_ID": SID})
    assert "git runs hooks from hooks (a bare repository: for its linked work trees)" in (
        doctor.stdout)
    for hook in HOOKS:
        assert f"ok    {hook}" in doctor.stdout
    done = box.run("lets-hooks", "uninstall", cwd=bare)
    assert done.returncode == 0
    assert not (bare / "hooks" / "post-checkout").exists()


def test_inside_the_git_folder_of_a_work_tree_says_where_to_run(box: HookBox) -> None:
    done = box.run("lets-hooks", "install", cwd=box.path / ".git")
    assert done.returncode == 1
    assert done.stderr == ("lets-hooks install: inside the .git folder: run it from the work "
                           "tree\n")
    assert subprocess.run(["git", "status"], cwd=box.path, capture_output=True,
                          check=False).returncode == 0
