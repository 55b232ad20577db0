"""Shared fixtures: real git repositories in temporary folders, built with GitPython.

The suite runs on every core (pytest-xdist, ``scripts/test``): each worker has its own
temporary folders; what is costly to build and the same for every test (a hook
repository, pre-commit's environments, husky and lefthook from npm) is built once for the
whole run by ``shared``, under a lock, in the folder the workers share
(docs/testing.md).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Sandbox, isolate
from hookbox import HookBox
from hypothesis import settings

# hypothesis's default deadline (200 ms an example) is a time budget: none in this suite;
# and no example database in the checkout, which every worker would write to at once
settings.register_profile("lets", deadline=None, database=None)
settings.load_profile("lets")


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A known git identity and no user or system config leaking into the tests."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


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


@pytest.fixture
def pc_box(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[HookBox]:
    """A repository whose hooks the real pre-commit runs (``precommit_box.box``)."""
    import precommit_box

    made = precommit_box.box(tmp_path, hook_repo, pre_commit_home, monkeypatch)
    yield made
    made.repo.close()


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



