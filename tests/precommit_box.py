"""The real pre-commit, installing this checkout as a hook repository: shared by the test
modules that drive hooks through it.

One pre-commit home and one copy of the project per test run (``conftest.shared``: in the
folder every worker of the run shares, built under a lock, so every module that asks gets
the same ones and pre-commit builds the hook environment once). The copy is a commit of
the working tree as it is now (tracked and untracked files, ignored ones left out), so
what is tested is what is here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import shared
from hookbox import HookBox, make

ROOT = Path(__file__).resolve().parent.parent
HOOK_TYPES = ("post-checkout", "post-rewrite", "pre-push", "post-commit", "post-merge")

CONFIG = """repos:
-   repo: {repo}
    rev: {rev}
    hooks:
    -   id: lets-post-checkout
    -   id: lets-post-rewrite
    -   id: lets-pre-push
    -   id: lets-post-commit
    -   id: lets-post-merge
"""


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def hook_repo(factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository holding the working tree of this checkout, committed (made once for
    the whole run, every worker's)."""
    dest = shared(factory, "lets-hooks-src", _copy_checkout)
    return dest, _git(dest, "rev-parse", "HEAD").strip()


def _copy_checkout(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
        check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    # sha1 whatever GIT_DEFAULT_HASH says: pre-commit runs git without it, and cannot fetch
    # a sha256 repository
    _git(dest, "init", "-q", "-b", "main", "--object-format=sha1")
    _git(dest, "add", "-A")
    _git(dest, *env, "commit", "-q", "-m", "the working tree under test")


def pre_commit_home(factory: pytest.TempPathFactory) -> Path:
    """One PRE_COMMIT_HOME for the whole run: pre-commit locks its own store, so the
    workers share the environments it builds."""
    return shared(factory, "pre-commit-home", lambda home: None)


def box(tmp_path: Path, repo: tuple[Path, str], home: Path,
        monkeypatch: pytest.MonkeyPatch) -> HookBox:
    """``make``'s repository with pre-commit's hook scripts installed for the hook
    types, using this checkout as the hook repository."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    made = make(tmp_path)
    where, rev = repo
    (made.path / ".pre-commit-config.yaml").write_text(CONFIG.format(repo=where, rev=rev))
    made.sh("add", ".pre-commit-config.yaml")
    made.sh("commit", "-q", "-m", "use lets-hooks through pre-commit")
    args = [sys.executable, "-m", "pre_commit", "install"]
    for hook_type in HOOK_TYPES:
        args += ["--hook-type", hook_type]
    done = subprocess.run(args, cwd=made.path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "pre_commit", "install-hooks"],
                          cwd=made.path, capture_output=True, text=True, check=False,
                          timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    for hook_type in HOOK_TYPES:  # pre-commit's scripts, not our shims
        assert "pre-commit" in (made.path / ".git" / "hooks" / hook_type).read_text()
    return made


def readme_script() -> str:
    """The README's pre-commit block, as printed."""
    import re

    readme = (ROOT / "README.md").read_text()
    found: list[str] = re.findall(r"^```sh\n(.*?)^```$", readme, flags=re.M | re.S)
    [script] = [block for block in found if ".pre-commit-config.yaml" in block]
    return script


def readme_box(tmp_path: Path, repo: tuple[Path, str], home: Path,
               monkeypatch: pytest.MonkeyPatch) -> HookBox:
    """``make``'s repository set up by the README's pre-commit block, run as printed with
    only the clone's path put in, its config committed."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    made = make(tmp_path)
    script = readme_script().replace("/path/to/lets-hooks", str(repo[0]))
    done = subprocess.run(["/bin/sh", "-ec", script], cwd=made.path, env=made.environ(),
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    made.sh("add", ".pre-commit-config.yaml")
    made.sh("commit", "-q", "-m", "use lets-hooks beside pre-commit")
    return made
