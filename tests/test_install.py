"""``lets-hooks install`` and the plain shims in ``hooks/``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import BIN
from hookbox import SID, HookBox, make

from lets_hooks.install import HOOKS, shim

ROOT = Path(__file__).resolve().parent.parent
COMMAND = str(BIN / "lets-hooks")
# the interpreter ``lets-hooks install`` runs under: its shims call it directly
PYTHON = (BIN / "lets-hooks").read_text().splitlines()[0][2:].strip()


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    return make(tmp_path)


def test_the_shims_in_hooks_are_what_install_writes() -> None:
    for hook in HOOKS:
        path = ROOT / "hooks" / hook
        assert path.read_text() == shim(hook), hook
        assert os.access(path, os.X_OK)
        assert len(path.read_text().splitlines()) <= 34  # a few lines of sh


def test_install_writes_three_executable_shims(box: HookBox) -> None:
    done = box.install()
    folder = box.path / ".git" / "hooks"
    assert done.stdout.splitlines() == [f"{folder / h}: installed" for h in HOOKS]
    for hook in HOOKS:
        assert (folder / hook).read_text() == shim(hook, COMMAND, PYTHON)
        assert os.access(folder / hook, os.X_OK)
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"


def test_install_is_idempotent(box: HookBox) -> None:
    box.install()
    folder = box.path / ".git" / "hooks"
    before = {h: (folder / h).stat().st_mtime_ns for h in HOOKS}
    done = box.install()
    assert done.stdout.splitlines() == [f"{folder / h}: up to date" for h in HOOKS]
    assert {h: (folder / h).stat().st_mtime_ns for h in HOOKS} == before
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(".sample")) == sorted(
        HOOKS)


@pytest.mark.parametrize("hooks_path", ["custom-hooks", "ABSOLUTE"])
def test_install_honours_core_hooks_path(box: HookBox, tmp_path: Path, hooks_path: str) -> None:
    target = tmp_path / "shared-hooks" if hooks_path == "ABSOLUTE" else box.path / hooks_path
    box.sh("config", "core.hooksPath", str(target) if hooks_path == "ABSOLUTE" else hooks_path)
    box.install()
    assert sorted(p.name for p in target.iterdir()) == sorted(HOOKS)
    assert not (box.path / ".git" / "hooks" / "post-checkout").exists()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)  # git runs them from there
    assert box.line("feat") == f"{box.head()} {SID}"


def write_hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def test_an_existing_hook_is_kept_and_still_runs(box: HookBox, tmp_path: Path) -> None:
    folder = box.path / ".git" / "hooks"
    seen = tmp_path / "seen"
    write_hook(folder / "post-checkout", f'echo "checkout $*" >> "{seen}"\n')
    write_hook(folder / "post-rewrite", f'echo "rewrite $1" >> "{seen}"; cat >> "{seen}"\n')
    write_hook(folder / "pre-push", f'cat >> "{seen}"; exit 1\n')
    done = box.install()
    assert "kept as post-checkout.pre-lets and runs first" in done.stdout
    assert (folder / "post-checkout.pre-lets").read_text().startswith("#!/bin/sh\necho")
    head = box.head()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert f"checkout {head} {head} 1" in seen.read_text()  # theirs ran
    assert box.line("feat") == f"{head} {SID}"  # ours too
    box.file_commit("a.txt", "a\n")
    old = box.head()
    box.sh("commit", "-q", "--amend", "-m", "amended", sid=SID)
    assert f"rewrite amend\n{old} {box.head()}" in seen.read_text()  # stdin reached theirs
    # a failing pre-push hook still blocks the push, and ours still warned
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    box.write_task("feat", "session: " + "d" * 40 + "\n")
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode != 0
    assert "refs/heads/feat" in seen.read_text()
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr
    # installing again changes nothing and does not chain our own shim
    again = box.install()
    assert all(line.endswith("up to date") for line in again.stdout.splitlines())


def test_a_conflict_is_left_alone(box: HookBox) -> None:
    folder = box.path / ".git" / "hooks"
    write_hook(folder / "post-checkout", "exit 0\n")
    write_hook(folder / "post-checkout.pre-lets", "exit 0\n")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert "post-checkout: left alone" in done.stdout
    assert (folder / "post-checkout").read_text() == "#!/bin/sh\nexit 0\n"
    assert (folder / "pre-push").read_text() == shim("pre-push", COMMAND, PYTHON)


def test_install_from_a_linked_worktree(box: HookBox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked))
    box.install(cwd=linked)
    assert (box.path / ".git" / "hooks" / "post-checkout").exists()  # the shared folder
    box.sh("checkout", "-q", "-b", "wt2", sid=SID, cwd=linked)
    assert box.line("wt2", root=linked) == f"{box.head()} {SID}"


def test_install_outside_a_repository(tmp_path: Path) -> None:
    box = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    done = box.run("lets-hooks", "install", cwd=outside)
    assert done.returncode == 1
    assert done.stderr == "lets-hooks install: not inside a git repository\n"


def test_shim_without_lets_hooks_on_path_lets_git_go_on(box: HookBox, tmp_path: Path) -> None:
    folder = box.path / ".git" / "hooks"
    for hook in HOOKS:
        shutil.copy2(ROOT / "hooks" / hook, folder / hook)
    git_only = tmp_path / "git-only"
    git_only.mkdir()
    real_git = shutil.which("git")
    assert real_git
    (git_only / "git").symlink_to(real_git)
    done = box.sh("checkout", "-q", "-b", "feat", extra={"PATH": f"{git_only}:/usr/bin:/bin"})
    assert "lets-hooks: not found on PATH; its post-checkout hook did nothing" in done.stderr
    assert box.line("feat") is None


def test_shim_whose_python_lacks_the_package_lets_git_go_on(box: HookBox, tmp_path: Path
                                                            ) -> None:
    bare_python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")
    if bare_python is None or subprocess.run([bare_python, "-c", "import lets_hooks"],
                                             capture_output=True, check=False,
                                             cwd=tmp_path).returncode == 0:
        pytest.skip("no system python3 without lets_hooks")
    folder = box.path / ".git" / "hooks"
    for hook in HOOKS:
        (folder / hook).write_text(shim(hook, COMMAND, bare_python))
        (folder / hook).chmod(0o755)
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    env = {"PATH": "/usr/bin:/bin"}  # and no lets-hooks on PATH either
    done = box.sh("checkout", "-q", "-b", "feat", extra=env)
    assert f"lets-hooks: not installed for {bare_python}; hook skipped" in done.stderr
    assert box.line("feat") is None
    done = box.sh("push", "-q", "origin", "feat", extra=env)  # never blocks the push
    assert done.returncode == 0
