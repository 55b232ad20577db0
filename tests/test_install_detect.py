"""What install, doctor and status learn from git by asking it, not by its version number:
whether git runs hooks from its config (a snapshot of git's next branch does under an
older number), and the work trees, asked once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import SID
from hookbox import HookBox, calls, git_version, logging_git, make
from managers import git_at_least, snapshot

from lets_hooks.install import HOOKS


def reporting(folder: Path, version: str, env: dict[str, str]) -> dict[str, str]:
    """An environment whose ``git`` is the one ``env`` finds, saying it is ``version``."""
    real = shutil.which("git", path=env.get("PATH", os.environ.get("PATH")))
    assert real
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "git").write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then\n'
                                f'  echo "git version {version}"; exit 0\nfi\n'
                                f'exec "{real}" "$@"\n')
    (folder / "git").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{env.get('PATH', os.environ.get('PATH', ''))}"}


def runs_config_hooks(env: dict[str, str], where: Path) -> bool:
    done = subprocess.run(["git", "-c", "hook.probe.command=true", "-c",
                           "hook.probe.event=pre-push", "hook", "list", "pre-push"],
                          cwd=where, env={**os.environ, **env}, capture_output=True,
                          text=True, check=False)
    return done.returncode == 0 and "probe" in done.stdout


def doctor(box: HookBox, env: dict[str, str]) -> tuple[int, dict[str, dict[str, str]]]:
    done = box.run("lets-hooks", "doctor", "--json", env={**env, "LETS_SESSION_ID": SID})
    return done.returncode, {c["name"]: c for c in json.loads(done.stdout)["checks"]}


def test_a_git_under_an_older_number_that_runs_config_hooks_gets_no_shims(
        tmp_path: Path) -> None:
    """git's next branch, built as 2.53.0.697: it runs hook.<name>.command. Install must
    not add shims (every hook would run twice), and doctor says the config hooks run."""
    box = make(tmp_path)
    env = reporting(tmp_path / "next", "2.53.0.697.g8b1c0d2", git_at_least(2, 54))
    box.sh("config", "hook.lets-pre-push.command", "lets-hooks pre-push", extra=env)
    box.sh("config", "--add", "hook.lets-pre-push.event", "pre-push", extra=env)
    before = snapshot(box.path / ".git" / "hooks")
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 1
    assert done.stdout.startswith("git runs lets-hooks from its config here: "
                                  "hook.lets-pre-push (pre-push, set in .git/config)")
    assert snapshot(box.path / ".git" / "hooks") == before
    _, found = doctor(box, env)
    assert found["git"]["text"] == "git 2.53.0.697"
    assert (found["pre-push"]["status"], found["pre-push"]["text"]) == (
        "ok", "hook.lets-pre-push in the git config runs lets-hooks (file:.git/config)")
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    bare = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(bare), extra=env)
    done = box.sh("push", "-q", str(bare), "feat", sid=SID, extra=env)
    assert done.stderr.count("lets-hooks: pre-push: branch 'feat'") == 1  # once, from git


def test_a_git_that_says_2_54_but_runs_no_config_hooks_is_taken_at_its_word(
        tmp_path: Path) -> None:
    """The other way round: what git does decides, so a git that lists no config hook
    gets shims even though its number says 2.54, and doctor says its config hooks do not
    run."""
    box = make(tmp_path)
    if runs_config_hooks({}, box.path):
        pytest.skip("the git on PATH runs config hooks: this needs one that does not")
    env = reporting(tmp_path / "claims", "2.54.0", {})
    box.sh("config", "hook.lets-pre-push.command", "lets-hooks pre-push")
    box.sh("config", "--add", "hook.lets-pre-push.event", "pre-push")
    _, found = doctor(box, env)
    assert found["pre-push"]["status"] == "info"
    assert found["pre-push"]["text"] == (
        "hook.lets-pre-push in the git config (file:.git/config) runs lets-hooks, but this "
        "git runs no hooks from its config (asked: git hook list does not list them; git "
        "2.54 and later do)")
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 0, done.stdout
    for hook in HOOKS:
        assert (box.path / ".git" / "hooks" / hook).exists()
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") == f"{box.head()} {SID}"  # the shim ran, once


def test_status_with_linked_work_trees_lists_them_once(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    (box.path / ".lets").mkdir(exist_ok=True)
    with open(box.path / ".git" / "info" / "exclude", "a") as handle:
        handle.write(".lets\n")
    for n in range(3):
        linked = tmp_path / f"linked{n}"
        box.sh("worktree", "add", "-q", "--no-checkout", "-b", f"wt{n}", str(linked))
        if n == 0:  # one shares the main work tree's .lets (a link git is asked about)
            os.symlink(box.path / ".lets", linked / ".lets")
        box.sh("checkout", "-q", f"wt{n}", sid=SID, cwd=linked)
    env, log = logging_git(tmp_path / "logged")
    for where in (box.path, tmp_path / "linked0", tmp_path / "linked1"):
        log.unlink(missing_ok=True)
        done = box.run("lets-hooks", "status", cwd=where, env={**env, "LETS_SESSION_ID": SID})
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == 5  # a heading, main and three work trees
        listed = [c for c in calls(log) if c.split()[:2] == ["worktree", "list"]
                  or c.split()[2:4] == ["worktree", "list"]]
        # git before 2.36 refuses ``-z`` at once (a usage error), and the plain list follows
        expected = ["worktree list --porcelain -z"] if git_version() >= (2, 36) else \
            ["worktree list --porcelain -z", "worktree list --porcelain"]
        assert [" ".join(c.split()[-4:] if "-z" in c else c.split()[-3:]) for c in listed] \
            == expected, calls(log)
