"""Shared fixtures: real git repositories in temporary folders, built with GitPython.

The suite runs on every core (pytest-xdist, ``scripts/test``): each worker has its own
temporary folders; what is costly to build and the same for every test (a hook
repository, pre-commit's environments, husky and lefthook from npm) is built once for the
whole run by ``shared``, under a lock, in the folder the workers share
(docs/testing.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import git
import pytest
from hypothesis import settings

# hypothesis's default deadline (200 ms an example) is a time budget: none in this suite;
# and no example database in the checkout, which every worker would write to at once
settings.register_profile("lets", deadline=None, database=None)
settings.load_profile("lets")

BIN = Path(sys.executable).parent
DAY = 86400


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A known git identity and no user or system config leaking into the tests."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """``git_identity``'s environment, for a fixture of a wider scope (one that builds a
    repository once for many tests, before any test's own fixtures are set up), through
    ``pytest.MonkeyPatch.context()``."""
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
        "[protocol \"file\"]\n\tallow = always\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                     "GEMINI_SESSION_ID", "LETS_MERGE_BRANCH",
                 "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


def note_made(work: Path, shas: list[str], sid: str | None) -> None:
    """The session ledger's lines for ``shas``, made by ``sid``, as the post-commit hook
    writes them (a commit that already has its line keeps it)."""
    import subprocess

    from lets_hooks import ledger

    # no --path-format=absolute: git before 2.31 prints it back as a line of its answer
    common = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=work,
                            capture_output=True, text=True, check=True).stdout.strip()
    assert ledger.note_made(str(Path(work, common)), shas, sid) is None


class Sandbox:
    """A work tree under test, with the few moves the tests need."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # a repository made beforehand (a reftable one) is opened, never initialised again:
        # git 2.55's `git init` over a reftable repository drops extensions.refStorage
        self.repo = (git.Repo(path) if (path / ".git").exists()
                     else git.Repo.init(path, initial_branch="main"))
        self.git = self.repo.git

    def commit(self, message: str = "change", age_days: float = 0.0,
               sid: str | None = None) -> str:
        """An empty commit dated ``age_days`` ago (author and committer), made by session
        ``sid`` (None: by no session): its id in the commit's environment, and its line in
        the session ledger as the post-commit hook writes it (written here when no hook
        is installed)."""
        when = f"@{int(time.time() - age_days * DAY)} +0000"
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        if sid is not None:
            env["LETS_SESSION_ID"] = sid
        self.git.commit("--allow-empty", "-q", "-m", message, env=env)
        head = self.head()
        if sid is not None:
            note_made(self.path, [head], sid)
        return head

    def head(self) -> str:
        return str(self.git.rev_parse("HEAD"))

    def rev(self, name: str) -> str:
        return str(self.git.rev_parse(name))

    def sessions(self) -> Path:
        folder = self.path / ".lets" / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def write_task(self, branch: str, body: str | bytes) -> Path:
        path = self.sessions() / (".task-" + branch.replace("/", "-"))
        if isinstance(body, str):
            body = body.encode()
        path.write_bytes(body)
        return path

    def run(self, command: str, *args: str, env: dict[str, str] | None = None,
            cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run an installed console script as a user would."""
        full = dict(os.environ)
        full.update(env or {})
        return subprocess.run(
            [str(BIN / command), *args], cwd=cwd or self.path, env=full, input=stdin,
            capture_output=True, text=True, check=False, timeout=120,
        )

    def boundary(self, *args: str, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> dict[str, str]:
        """Run ``lets-session-boundary`` and return its four fields (checking the shape)."""
        done = self.run("lets-session-boundary", *args, env=env, cwd=cwd)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        keys = ["SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
        assert [line.split("=", 1)[0] for line in lines] == keys, done.stdout
        fields = dict(line.split("=", 1) for line in lines)
        fields["stderr"] = done.stderr
        return fields


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    box = Sandbox(tmp_path / "work")
    box.commit("root", age_days=30)
    yield box
    box.repo.close()


# The real pre-commit framework, shared by every module that drives it: one hook
# repository (a clone of this project) and one pre-commit cache per test session.
@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    import precommit_box

    return precommit_box.hook_repo(tmp_path_factory)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import precommit_box

    return precommit_box.pre_commit_home(tmp_path_factory)


# The longest tests (docs/testing.md), handed out first: with --dist load the workers take
# tests in collection order, so a long one that came last would run alone at the end.
LONGEST = ("test_every_rebase_keeps_the_count_honest", "test_a_day_of_work_keeps_the_count_honest",
           "test_pipx_reinstall_with_another_python_keeps_the_hooks_running",
           "test_switch_c_and_detached_commits_under_pre_commit", "test_a_written_out_day",
           "test_scripts_run_installs_once_then_only_on_change")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.name.split("[")[0] not in LONGEST)  # stable


# Rule 1 of docs/testing.md, checked: a test writes only under its temporary folders, never
# into the checkout. The run (not each worker) lists the checkout's untracked files before
# and after; a file that appeared fails the run, named. (One did: under git 2.30 a helper
# took ``rev-parse --path-format=absolute``'s echo for a path and wrote a ledger there.)
ROOT = Path(__file__).resolve().parent.parent
_BEFORE: pytest.StashKey[set[str] | None] = pytest.StashKey()


def _untracked() -> set[str] | None:
    done = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "-z",
                           "--untracked-files=all"], capture_output=True, check=False)
    if done.returncode != 0:
        return None  # not a git checkout (an unpacked copy): nothing to compare
    return {entry[3:] for entry in done.stdout.decode("utf-8", "replace").split("\0")
            if entry.startswith("?? ")}


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_BEFORE] = _untracked()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return
    before = session.config.stash.get(_BEFORE, None)
    after = _untracked()
    if before is None or after is None:
        return
    written = sorted(after - before)
    if written:
        print(f"\nthe tests wrote into the checkout (docs/testing.md, rule 1): "
              f"{', '.join(repr(name) for name in written[:5])}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED



def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """``name``, a folder built once for the whole test run by ``build(folder)``: in the
    temporary folder every worker of the run shares (the parent of a worker's own), under
    an exclusive lock, so one worker builds it and the others wait, then use it. A build
    that failed (no mark of completion) is removed and made again."""
    import fcntl
    import shutil

    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # .../pytest-N/popen-gwK: pytest-N is the run's
    dest = root / name
    done = root / (name + ".done")
    with open(root / (name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            if dest.exists():
                shutil.rmtree(dest)
            dest.mkdir(parents=True)
            build(dest)
            done.write_text("")
    return dest
