"""``lets-hooks install`` / ``uninstall`` with the plain shims, and the shims themselves."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID
from hookbox import HookBox, make
from managers import bare_remote, old_git, snapshot

from lets_hooks import __version__
from lets_hooks.cli.install import import_folders
from lets_hooks.install import HOOKS, read_shim, shim

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "tests" / "fixtures" / "shims-0.1.0"
COMMAND = str(BIN / "lets-hooks")
# the interpreter ``lets-hooks install`` runs under: its shims call it directly
PYTHON = (BIN / "lets-hooks").read_text().splitlines()[0][2:].strip()
LIB = import_folders()  # the test runs under that interpreter too


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    return make(tmp_path)


def hooks_dir(box: HookBox) -> Path:
    return box.path / ".git" / "hooks"


def ours(box: HookBox) -> list[str]:
    return sorted(p.name for p in hooks_dir(box).iterdir() if not p.name.endswith(".sample"))


def write_hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def test_the_shims_in_hooks_are_what_install_writes() -> None:
    for hook in HOOKS:
        path = ROOT / "hooks" / hook
        assert path.read_text() == shim(hook), hook
        assert os.access(path, os.X_OK)
        found = read_shim(path.read_text())
        assert found is not None and found.pristine and found.version == __version__


def test_install_writes_three_executable_shims(box: HookBox) -> None:
    done = box.install()
    assert done.stdout.splitlines() == [f".git/hooks/{h}: installed" for h in HOOKS]
    for hook in HOOKS:
        assert (hooks_dir(box) / hook).read_text() == shim(hook, COMMAND, PYTHON, LIB)
        assert os.access(hooks_dir(box) / hook, os.X_OK)
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"


def test_install_is_idempotent(box: HookBox) -> None:
    box.install()
    before = snapshot(hooks_dir(box))
    done = box.install()
    assert done.stdout.splitlines() == [f".git/hooks/{h}: up to date" for h in HOOKS]
    assert snapshot(hooks_dir(box)) == before
    assert ours(box) == sorted(HOOKS)


def test_install_honours_core_hooks_path(box: HookBox, tmp_path: Path) -> None:
    (box.path / ".gitignore").write_text("custom-hooks/\n")
    box.sh("config", "core.hooksPath", "custom-hooks")
    box.install()
    target = box.path / "custom-hooks"
    assert sorted(p.name for p in target.iterdir()) == sorted(HOOKS)
    assert not (hooks_dir(box) / "post-checkout").exists()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)  # git runs them from there
    assert box.line("feat") == f"{box.head()} {SID}"


def test_install_honours_an_absolute_core_hooks_path(box: HookBox, tmp_path: Path) -> None:
    target = tmp_path / "shared-hooks"
    box.sh("config", "core.hooksPath", str(target))
    box.install()
    assert sorted(p.name for p in target.iterdir()) == sorted(HOOKS)
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"


def test_an_existing_hook_is_kept_and_still_runs(box: HookBox, tmp_path: Path) -> None:
    folder = hooks_dir(box)
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
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + "\n")
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode != 0
    assert "refs/heads/feat" in seen.read_text()
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr
    # installing again changes nothing and does not chain our own shim
    again = box.install()
    assert all(line.endswith("up to date") for line in again.stdout.splitlines())


def test_post_checkout_passes_a_chained_hooks_failure_on(box: HookBox) -> None:
    """git makes post-checkout's status the status of `git switch`: a failing hook of
    the team's must still fail it, as it did before lets-hooks was installed."""
    write_hook(hooks_dir(box) / "post-checkout", "exit 3\n")
    alone = box.sh("checkout", "-q", "-b", "before", check=False)
    assert alone.returncode == 1  # git's status for any failing post-checkout
    box.install()
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID, check=False)
    assert done.returncode == alone.returncode
    assert box.line("feat") == f"{box.head()} {SID}"  # ours ran all the same
    (hooks_dir(box) / "post-checkout.pre-lets").write_text("#!/bin/sh\nexit 0\n")
    assert box.sh("checkout", "-q", "-b", "fine", sid=SID, check=False).returncode == 0


def test_a_conflict_is_left_alone(box: HookBox) -> None:
    folder = hooks_dir(box)
    write_hook(folder / "post-checkout", "exit 0\n")
    write_hook(folder / "post-checkout.pre-lets", "exit 0\n")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert "post-checkout: left alone" in done.stdout
    assert (folder / "post-checkout").read_text() == "#!/bin/sh\nexit 0\n"
    assert (folder / "pre-push").read_text() == shim("pre-push", COMMAND, PYTHON, LIB)


def test_install_from_a_linked_worktree(box: HookBox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked))
    box.install(cwd=linked)
    assert (hooks_dir(box) / "post-checkout").exists()  # the shared folder
    box.sh("checkout", "-q", "-b", "wt2", sid=SID, cwd=linked)
    assert box.line("wt2", root=linked) == f"{box.head()} {SID}"


def test_install_outside_a_repository(tmp_path: Path) -> None:
    box = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    for command in ("install", "uninstall"):
        done = box.run("lets-hooks", command, cwd=outside)
        assert done.returncode == 1
        assert done.stderr == f"lets-hooks {command}: not inside a git repository\n"


# -- when lets-hooks cannot run ----------------------------------------------------------------

def without_lets_hooks(tmp_path: Path) -> dict[str, str]:
    """PATH with git and the system's tools, and no lets-hooks."""
    git_only = tmp_path / "git-only"
    git_only.mkdir(exist_ok=True)
    real_git = shutil.which("git")
    assert real_git
    if not (git_only / "git").exists():
        (git_only / "git").symlink_to(real_git)
    path = f"{git_only}:/usr/bin:/bin"
    if shutil.which("lets-hooks", path=path):
        pytest.skip("lets-hooks is installed system-wide here")
    return {"PATH": path}


def test_shim_without_lets_hooks_on_path_lets_git_go_on(box: HookBox, tmp_path: Path) -> None:
    for hook in HOOKS:
        shutil.copy2(ROOT / "hooks" / hook, hooks_dir(box) / hook)
    done = box.sh("checkout", "-q", "-b", "feat", extra=without_lets_hooks(tmp_path))
    assert done.stderr == ("lets-hooks: post-checkout hook skipped: no lets-hooks on PATH; "
                           "reinstall lets-hooks, then run lets-hooks install\n")
    assert box.line("feat") is None


def gone_python(box: HookBox, tmp_path: Path) -> str:
    """Shims whose installing Python is gone, as after a Python upgrade."""
    gone = str(tmp_path / "old-venv" / "bin" / "python")
    for hook in HOOKS:
        path = hooks_dir(box) / hook
        path.write_text(shim(hook, str(tmp_path / "old-venv" / "bin" / "lets-hooks"), gone))
        path.chmod(0o755)
    return gone


def test_shims_whose_python_is_gone_say_so_once_and_let_git_go_on(box: HookBox,
                                                                  tmp_path: Path) -> None:
    gone = gone_python(box, tmp_path)
    env = without_lets_hooks(tmp_path)
    bare_remote(box, tmp_path)
    done = box.sh("checkout", "-q", "-b", "feat", extra=env)
    assert done.stderr.splitlines() == [
        f"lets-hooks: post-checkout hook skipped: the Python that installed it ({gone}) is "
        "gone; reinstall lets-hooks, then run lets-hooks install"]
    box.file_commit("a.txt", "a\n")
    done = box.sh("commit", "-q", "--amend", "-m", "amended", extra=env)
    assert len(done.stderr.splitlines()) == 1 and "post-rewrite hook skipped" in done.stderr
    done = box.sh("push", "-q", "origin", "feat", extra=env)
    assert done.returncode == 0
    assert len(done.stderr.splitlines()) == 1 and "pre-push hook skipped" in done.stderr


def test_a_working_lets_hooks_on_path_stands_in_for_a_gone_python(box: HookBox,
                                                                 tmp_path: Path) -> None:
    gone_python(box, tmp_path)
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID)  # BIN is first on PATH
    assert done.stderr == ""
    assert box.line("feat") == f"{box.head()} {SID}"


@pytest.mark.parametrize("where, text", [
    (".lets/config.toml", "[pre_push]\nstrict = true\n"),
    (".lets/config.toml", "pre_push.strict = true  # on\n"),
    (".lets/config.toml", "pre_push = { strict = true }\n"),
    ("pyproject.toml", "[tool.mypy]\nstrict = false\n[tool.lets.pre_push]\nstrict = true\n"),
    ("pyproject.toml", '[tool."lets"]\npre_push = {strict = true}\n'),
])
def test_a_strict_pre_push_blocks_when_lets_hooks_cannot_run(box: HookBox, tmp_path: Path,
                                                             where: str, text: str) -> None:
    """Strict mode blocks a push whose boundary is rejected; with lets-hooks unable to
    run, nothing can tell, so the shim reads the setting and blocks the push."""
    gone_python(box, tmp_path)
    env = without_lets_hooks(tmp_path)
    bare_remote(box, tmp_path)
    (box.path / where).parent.mkdir(exist_ok=True)
    (box.path / where).write_text(text)
    done = box.sh("push", "-q", "origin", "main", extra=env, check=False)
    assert done.returncode != 0
    assert done.stderr.splitlines()[0].startswith(
        "lets-hooks: push blocked: pre_push.strict is set and the Python that installed it")
    assert "--no-verify" in done.stderr
    assert box.sh("push", "-q", "--no-verify", "origin", "main", extra=env).returncode == 0


@pytest.mark.parametrize("text", ["[pre_push]\nstrict = false\n", "[other]\nstrict = true\n",
                                  "# pre_push.strict = true\n"])
def test_a_pre_push_that_is_not_strict_lets_the_push_go(box: HookBox, tmp_path: Path,
                                                        text: str) -> None:
    gone_python(box, tmp_path)
    bare_remote(box, tmp_path)
    (box.path / ".lets").mkdir()
    (box.path / ".lets" / "config.toml").write_text(text)
    done = box.sh("push", "-q", "origin", "main", extra=without_lets_hooks(tmp_path))
    assert "pre-push hook skipped" in done.stderr


def test_shim_whose_python_lacks_the_package_lets_git_go_on(box: HookBox, tmp_path: Path
                                                            ) -> None:
    bare_python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")
    if bare_python is None or subprocess.run([bare_python, "-c", "import lets_hooks"],
                                             capture_output=True, check=False,
                                             cwd=tmp_path).returncode == 0:
        pytest.skip("no system python3 without lets_hooks")
    for hook in HOOKS:
        (hooks_dir(box) / hook).write_text(shim(hook, str(tmp_path / "gone" / "lets-hooks"),
                                                bare_python))
        (hooks_dir(box) / hook).chmod(0o755)
    bare_remote(box, tmp_path)
    env = without_lets_hooks(tmp_path)
    done = box.sh("checkout", "-q", "-b", "feat", extra=env)
    assert done.stderr.splitlines() == [
        f"lets-hooks: post-checkout hook skipped: lets-hooks is no longer installed for "
        f"{bare_python}; reinstall lets-hooks, then run lets-hooks install"]
    assert box.line("feat") is None
    done = box.sh("push", "-q", "origin", "feat", extra=env)  # never blocks the push
    assert done.returncode == 0


# -- upgrades and edits ---------------------------------------------------------------------------

def legacy_shim(hook: str, command: str = COMMAND, python: str = PYTHON) -> str:
    """What lets-hooks 0.1.0's install wrote."""
    text = (LEGACY / hook).read_text()
    return text.replace("lets=lets-hooks\n", f"lets={command}\n").replace(
        "py=\n", f"py={python}\n")


def test_a_newer_version_upgrades_the_shims_in_place(box: HookBox) -> None:
    folder = hooks_dir(box)
    write_hook(folder / "post-checkout.pre-lets", "exit 0\n")
    for hook in HOOKS:
        if not (LEGACY / hook).exists():
            continue  # 0.1.0 had three hooks: the session ledger's are new
        (folder / hook).write_text(legacy_shim(hook))
        (folder / hook).chmod(0o755)
    done = box.install()
    assert ".git/hooks/pre-push: installed (upgraded from 0.1.0)" in done.stdout
    for hook in HOOKS:
        assert (folder / hook).read_text() == shim(hook, COMMAND, PYTHON, LIB)
    assert ours(box) == sorted([*HOOKS, "post-checkout.pre-lets"])  # no backup: not edited


def test_an_edited_shim_is_kept_as_a_backup(box: HookBox) -> None:
    box.install()
    folder = hooks_dir(box)
    edited = (folder / "pre-push").read_text() + "echo my addition\n"
    (folder / "pre-push").write_text(edited)
    old_edited = legacy_shim("post-rewrite") + "# mine\n"
    (folder / "post-rewrite").write_text(old_edited)
    done = box.install()
    assert ".git/hooks/pre-push: installed (the shim there had been edited: it is kept as " \
           "pre-push.lets-backup)" in done.stdout
    assert (folder / "pre-push.lets-backup").read_text() == edited
    assert (folder / "post-rewrite.lets-backup").read_text() == old_edited
    assert (folder / "pre-push").read_text() == shim("pre-push", COMMAND, PYTHON, LIB)
    (folder / "pre-push").write_text(edited)  # a second backup never overwrites the first
    box.install()
    assert (folder / "pre-push.lets-backup.1").read_text() == edited


def test_a_shim_from_a_newer_version_is_left_alone(box: HookBox) -> None:
    folder = hooks_dir(box)
    newer = shim("pre-push", COMMAND, PYTHON, LIB).replace(f"shim {__version__} ", "shim 99.0.0 ")
    (folder / "pre-push").write_text(newer)
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert f"pre-push: left alone - written by lets-hooks 99.0.0, newer than this " \
           f"{__version__}" in done.stdout
    assert (folder / "pre-push").read_text() == newer


# -- uninstall ----------------------------------------------------------------------------------

def test_uninstall_restores_every_chained_hook_byte_for_byte(box: HookBox) -> None:
    folder = hooks_dir(box)
    write_hook(folder / "post-checkout", "echo theirs\r\n\x00odd bytes\n")
    (folder / "pre-push").write_bytes(b"#!/bin/sh\nexit 0")  # no final newline
    (folder / "pre-push").chmod(0o750)
    # not ours to touch (post-commit, once used here, is one of the session ledger's now)
    (folder / "pre-commit").write_text("#!/bin/sh\n")
    before = snapshot(folder)
    box.install()
    done = box.run("lets-hooks", "uninstall")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        ".git/hooks/post-checkout: removed; post-checkout.pre-lets put back as post-checkout",
        ".git/hooks/post-rewrite: removed",
        ".git/hooks/pre-push: removed; pre-push.pre-lets put back as pre-push",
        ".git/hooks/post-commit: removed", ".git/hooks/post-merge: removed",
        ".git/hooks/post-applypatch: removed"]
    assert snapshot(folder) == before
    again = box.run("lets-hooks", "uninstall")
    assert again.returncode == 0
    assert again.stdout == "nothing to remove: no lets-hooks shims or lines here\n"
    assert snapshot(folder) == before


def test_uninstall_keeps_an_edited_shim_as_a_backup(box: HookBox) -> None:
    box.install()
    folder = hooks_dir(box)
    edited = (folder / "post-checkout").read_text() + "echo mine\n"
    (folder / "post-checkout").write_text(edited)
    done = box.run("lets-hooks", "uninstall")
    assert "post-checkout: removed (it had been edited: kept as post-checkout.lets-backup)" \
        in done.stdout
    assert (folder / "post-checkout.lets-backup").read_text() == edited
    assert ours(box) == ["post-checkout.lets-backup"]


def test_uninstall_finds_shims_another_manager_moved_aside(box: HookBox) -> None:
    """pre-commit keeps a hook it finds as <hook>.legacy (migration mode), lefthook as
    <hook>.old: our shims there are ours to remove, and what they chained goes back."""
    folder = hooks_dir(box)
    write_hook(folder / "post-checkout", "echo original\n")
    box.install()
    os.rename(folder / "post-checkout", folder / "post-checkout.legacy")
    write_hook(folder / "post-checkout", "# File generated by pre-commit\n")
    os.rename(folder / "pre-push", folder / "pre-push.old")
    write_hook(folder / "pre-push", "# LEFTHOOK\n")
    box.run("lets-hooks", "uninstall")
    assert (folder / "post-checkout.legacy").read_text() == "#!/bin/sh\necho original\n"
    assert (folder / "post-checkout").read_text() == "#!/bin/sh\n# File generated by pre-commit\n"
    assert not (folder / "pre-push.old").exists()
    assert (folder / "pre-push").read_text() == "#!/bin/sh\n# LEFTHOOK\n"
    assert not (folder / "post-rewrite").exists()


def test_uninstall_removes_shims_git_no_longer_runs(box: HookBox, tmp_path: Path) -> None:
    box.install()
    box.sh("config", "core.hooksPath", str(tmp_path / "elsewhere"))
    done = box.run("lets-hooks", "uninstall")
    assert done.returncode == 0
    assert ours(box) == []


# -- folders shared with others -------------------------------------------------------------------

def test_a_tracked_hooks_folder_needs_the_opt_in(box: HookBox) -> None:
    write_hook(box.path / ".githooks" / "pre-commit", "exit 0\n")
    box.sh("add", ".githooks")
    box.sh("commit", "-q", "-m", "team hooks")
    box.sh("config", "core.hooksPath", ".githooks")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert "the hooks folder .githooks is part of the work tree and shared through git" in (
        done.stdout)
    assert "--hooks-dir-ok" in done.stdout
    assert sorted(p.name for p in (box.path / ".githooks").iterdir()) == ["pre-commit"]
    done = box.run("lets-hooks", "install", "--hooks-dir-ok")
    assert done.returncode == 0, done.stdout
    for hook in HOOKS:  # a shared folder gets shims that name no path of this machine
        assert (box.path / ".githooks" / hook).read_text() == shim(hook)
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"


def test_a_hooks_folder_in_the_work_tree_that_git_would_commit_needs_the_opt_in(
        box: HookBox) -> None:
    box.sh("config", "core.hooksPath", "hooks-here")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert not (box.path / "hooks-here").exists()


def test_a_global_hooks_folder_needs_the_opt_in(box: HookBox, tmp_path: Path) -> None:
    shared = tmp_path / "global-hooks"
    box.sh("config", "--global", "core.hooksPath", str(shared))
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert "is set outside this repository (file:" in done.stdout
    assert "would run for every repository that uses it" in done.stdout
    assert not shared.exists()
    done = box.run("lets-hooks", "install", "--hooks-dir-ok")
    assert done.returncode == 0
    assert (shared / "post-checkout").read_text() == shim("post-checkout", COMMAND, PYTHON, LIB)


# -- git before 2.31 ------------------------------------------------------------------------------

def test_install_finds_the_hooks_folder_with_a_git_that_echoes_path_format(
        box: HookBox, tmp_path: Path) -> None:
    """git 2.25 to 2.30 print `--path-format=absolute` back as a line (exit 0)."""
    env = old_git(tmp_path / "old-git")
    probe = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-path",
                            "hooks"], cwd=box.path, env={**os.environ, **env},
                           capture_output=True, text=True, check=True)
    assert probe.stdout == "--path-format=absolute\n.git/hooks\n"  # as 2.30 answers
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 0, done.stderr
    assert ours(box) == sorted(HOOKS)
    assert not any("path-format" in p.name for p in box.path.rglob("*"))
    assert box.run("lets-hooks", "uninstall", env=env).returncode == 0
    assert ours(box) == []


@pytest.mark.skipif(not os.environ.get("LETS_TEST_OLD_GIT"),
                    reason="set LETS_TEST_OLD_GIT to a folder holding an old git")
def test_install_with_a_real_old_git(box: HookBox, tmp_path: Path) -> None:
    """With LETS_TEST_OLD_GIT=<folder with git 2.25..2.30>: install, check out, push."""
    env = {"PATH": f"{os.environ['LETS_TEST_OLD_GIT']}{os.pathsep}{BIN}{os.pathsep}"
                   f"{os.environ.get('PATH', '')}"}
    version = subprocess.run(["git", "--version"], env={**os.environ, **env},
                             capture_output=True, text=True, check=True).stdout
    assert version.startswith("git version 2.")
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 0, done.stderr
    assert ours(box) == sorted(HOOKS)
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") == f"{box.head()} {SID}"
    doctor = box.run("lets-hooks", "doctor", env={**env, "LETS_SESSION_ID": SID})
    assert version.split()[2] in doctor.stdout


def test_a_module_in_the_work_tree_cannot_stand_in_for_one_the_hook_imports(
        box: HookBox) -> None:
    """git runs hooks in the work tree's top; `python -c` would put it first on sys.path."""
    for name in ("select", "lets_hooks", "tempfile"):
        (box.path / f"{name}.py").write_text("raise SystemExit('imported from the work tree')\n")
    box.install()
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert done.stderr == ""
    assert box.line("feat") == f"{box.head()} {SID}"


@pytest.mark.parametrize("how", ["hooks-dir-ok", "fallback"])
def test_shims_running_lets_hooks_from_path_pass_a_chained_failure_and_say_nothing(
        box: HookBox, tmp_path: Path, how: str) -> None:
    """The shims that call lets-hooks from PATH (a shared folder's, and any shim whose own
    Python is gone) pass a failing chained post-checkout's status on, and print nothing
    of their own (no `[: Illegal number: #!...` from the shell)."""
    folder = hooks_dir(box)
    write_hook(folder / "post-checkout", "exit 3\n")
    alone = box.sh("checkout", "-q", "-b", "before", check=False)
    box.install()
    for hook in HOOKS:
        text = shim(hook) if how == "hooks-dir-ok" else shim(
            hook, str(tmp_path / "gone" / "lets-hooks"), str(tmp_path / "gone" / "python"))
        (folder / hook).write_text(text)
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID, check=False)
    assert done.returncode == alone.returncode == 1
    assert done.stderr == ""
    assert box.line("feat") == f"{box.head()} {SID}"  # lets-hooks from PATH ran
    (folder / "post-checkout.pre-lets").write_text("#!/bin/sh\nexit 0\n")
    done = box.sh("checkout", "-q", "-b", "fine", sid=SID, check=False)
    assert (done.returncode, done.stderr) == (0, "")


def test_uninstall_names_the_backups_it_keeps(box: HookBox) -> None:
    box.install()
    folder = hooks_dir(box)
    (folder / "pre-push").write_text((folder / "pre-push").read_text() + "echo mine\n")
    done = box.run("lets-hooks", "uninstall")
    assert done.stdout.splitlines()[-1] == (
        "note: kept, not removed (shims of ours that had been edited, yours to read and "
        "delete): .git/hooks/pre-push.lets-backup")
    again = box.run("lets-hooks", "uninstall")
    assert again.stdout.splitlines() == [
        "nothing to remove: no lets-hooks shims or lines here",
        "note: kept, not removed (shims of ours that had been edited, yours to read and "
        "delete): .git/hooks/pre-push.lets-backup"]
