"""The conftest ``Sandbox``, extended for the hooks: real git commands run as a user runs
them (so git runs the installed hooks), with a chosen session id."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import BIN, Sandbox, note_made


class HookBox(Sandbox):
    """A work tree whose git commands run the plain shims (after ``install``)."""

    def environ(self, sid: str | None = None, extra: dict[str, str] | None = None
                ) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        env.pop("LETS_SESSION_ID", None)
        for name in ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID"):
            env.pop(name, None)
        if sid is not None:
            env["LETS_SESSION_ID"] = sid
        env.update(extra or {})
        return env

    def sh(self, *args: str, sid: str | None = None, stdin: str = "",
           cwd: Path | None = None, check: bool = True,
           extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """``git ARGS`` as a user would type it, hooks and all."""
        done = subprocess.run(
            ["git", *args], cwd=cwd or self.path, env=self.environ(sid, extra), input=stdin,
            capture_output=True, text=True, check=False, timeout=300)
        if check:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def install(self, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        done = self.run("lets-hooks", "install", cwd=cwd)
        assert done.returncode == 0, done.stderr
        return done

    def task(self, branch: str, root: Path | None = None) -> Path:
        return (root or self.path) / ".lets" / "sessions" / (".task-" + branch.replace("/", "-"))

    def line(self, branch: str, root: Path | None = None) -> str | None:
        """The session line's value, or None."""
        path = self.task(branch, root)
        if not path.exists():
            return None
        for raw in path.read_bytes().split(b"\n"):
            if raw.startswith(b"session: "):
                return raw[len(b"session: "):].rstrip(b"\r").decode()
        return None

    def file_commit(self, name: str, text: str, message: str | None = None,
                    sid: str | None = None) -> str:
        """A commit that changes a file (rebases need real changes to replay), made by
        session ``sid`` (None: by no session): its id in git's environment, so the
        post-commit hook writes its session ledger line; with no hook installed the line
        is written here, as the hook would."""
        (self.path / name).write_text(text)
        self.sh("add", "--", name)
        self.sh("commit", "-q", "-m", message or f"edit {name}", sid=sid)
        head = self.head()
        if sid is not None:
            note_made(self.path, [head], sid)
        return head

    def field(self, sid: str | None, key: str, cwd: Path | None = None) -> str:
        env = {"LETS_SESSION_ID": sid} if sid else None
        return self.boundary(env=env, cwd=cwd)[key]


def make(tmp_path: Path, reftable: bool = False) -> HookBox:
    """A repository whose main has a root a month old and a fresh tip; ``reftable``: its
    refs and reflogs in git's reftable store (git 2.45 or newer)."""
    if reftable:
        subprocess.run(["git", "init", "-q", "-b", "main", "--ref-format=reftable",
                        str(tmp_path / "work")], check=True)
    box = HookBox(tmp_path / "work")
    box.commit("root", age_days=30)
    box.file_commit("base.txt", "base\n", "main tip")
    return box


def with_remote(tmp_path: Path, prepare: Callable[[HookBox], object] | None = None,
                reftable: bool = False) -> HookBox:
    """``make`` with the hooks installed and ``main`` pushed to a local bare ``origin``;
    ``prepare`` lays out a hook manager first (``managers.fake_husky``)."""
    box = make(tmp_path, reftable)
    if prepare is not None:
        prepare(box)
    box.install()
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    box.sh("push", "-q", "origin", "main")
    return box


def logging_git(folder: Path) -> tuple[dict[str, str], Path]:
    """An environment whose ``git`` logs each call (one line each) before running git."""
    import shutil

    real = shutil.which("git")
    assert real
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "git.log"
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    env = {"PATH": f"{folder}{os.pathsep}{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return env, log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def git_version() -> tuple[int, ...]:
    """The (major, minor) of the git on PATH."""
    import re

    out = subprocess.run(["git", "--version"], capture_output=True, text=True,
                         check=True).stdout
    found = re.search(r"(\d+)\.(\d+)", out)
    assert found
    return tuple(int(part) for part in found.groups())


def needs_git(major: int, minor: int, why: str) -> pytest.MarkDecorator:
    """Skip a test where the git on PATH is older than ``major.minor`` (CI also runs the
    suite with git 2.30)."""
    return pytest.mark.skipif(git_version() < (major, minor), reason=why)


# The pre-commit and lefthook the tests install run git commands that git 2.31 added
# (pre-commit's `git ls-files --deduplicate`): with an older git, the tests that drive them
# are skipped.
TOOLS_NEED_GIT_2_31 = needs_git(2, 31, "this pre-commit and lefthook need git 2.31")


def teammate(tmp_path: Path, box: HookBox, branch: str) -> HookBox:
    """A second clone of the bare remote, on ``branch``, with its own identity."""
    import git

    mate = HookBox.__new__(HookBox)
    mate.path = tmp_path / "mate"
    box.sh("clone", "-q", str(tmp_path / "remote.git"), str(mate.path))
    mate.repo = git.Repo(mate.path)
    mate.git = mate.repo.git
    mate.sh("config", "user.name", "Teammate")
    mate.sh("config", "user.email", "mate@example.com")
    mate.sh("checkout", "-q", branch)
    return mate
