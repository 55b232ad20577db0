"""The real pre-commit, installing this checkout as a hook repository.

One pre-commit home and one copy of the project for the whole session, so pre-commit
builds the hook environment once. The copy is a commit of the working tree as it is now
(tracked and untracked files, ignored ones left out), so what is tested is what is here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hookbox import SID, HookBox, make
from scenarios import CASES

ROOT = Path(__file__).resolve().parent.parent
HOOK_TYPES = ("post-checkout", "post-rewrite", "pre-push")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository holding the working tree of this checkout, committed."""
    dest = tmp_path_factory.mktemp("lets-hooks-src")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
        check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, *env, "commit", "-q", "-m", "the working tree under test")
    return dest, _git(dest, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


CONFIG = """repos:
-   repo: {repo}
    rev: {rev}
    hooks:
    -   id: lets-post-checkout
    -   id: lets-post-rewrite
    -   id: lets-pre-push
"""


@pytest.fixture
def box(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[HookBox]:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    made = make(tmp_path)
    repo, rev = hook_repo
    (made.path / ".pre-commit-config.yaml").write_text(CONFIG.format(repo=repo, rev=rev))
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
    yield made
    made.repo.close()


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
