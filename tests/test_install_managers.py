"""``lets-hooks install`` beside a hook manager, without npm: a layout like husky's (its
install re-run stands for `npm install`), lefthook's files, pre-commit's real scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import BIN, SID
from hookbox import HookBox, make
from managers import bare_remote, fake_husky, snapshot, team_hook

from lets_hooks.cli.install import import_folders
from lets_hooks.install import HOOKS, LINE_MARK, VERSION, husky_line, lefthook_entries, shim

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "tests" / "fixtures" / "shims-0.1.0"


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    return make(tmp_path)


# -- husky -----------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [9, 8])
def test_husky_gets_one_line_per_hook_and_the_team_hooks_still_block(
        box: HookBox, tmp_path: Path, version: int) -> None:
    user = fake_husky(box, version)
    seen = tmp_path / "seen"
    team_hook(user / "pre-push", f'cat > "{seen}"\n[ ! -e BLOCK ] || exit 1\n', version)
    team_hook(user / "post-checkout", f'echo "checkout $3" >> "{seen}.co"\n', version)
    stubs = snapshot(user / "_")
    done = box.install()
    assert done.stdout.splitlines()[:3] == [
        ".husky/post-checkout: lets-hooks line added",
        ".husky/post-rewrite: created, with the lets-hooks line",
        ".husky/pre-push: lets-hooks line added"]
    assert snapshot(user / "_") == stubs  # husky's own folder is never touched
    for hook in HOOKS:
        assert (user / hook).read_text().count(LINE_MARK) == 1
    created = (user / "post-rewrite").read_text()
    if version >= 9:
        assert created == husky_line("post-rewrite") + "\n"
    else:
        assert created.startswith('#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n')
        assert os.access(user / "post-rewrite", os.X_OK)  # husky 8: git runs it itself

    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"  # lets-hooks recorded
    assert (tmp_path / "seen.co").read_text() == "checkout 1\n"  # the team's hook ran
    box.file_commit("a.txt", "a\n")
    box.sh("commit", "-q", "--amend", "-m", "amended", sid=SID)
    assert box.line("feat") == f"{box.rev('main')} {SID}"  # an amend inside the session

    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")  # a rejected boundary
    (box.path / "BLOCK").write_text("")
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode != 0  # the team's pre-push still blocks
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr  # and lets-hooks warned
    assert seen.read_text().startswith("refs/heads/feat ")  # git's stdin reached the team
    (box.path / "BLOCK").unlink()
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode == 0, done.stderr
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr


def test_husky_reinstalled_by_npm_install_keeps_working(box: HookBox) -> None:
    user = fake_husky(box)
    box.install()
    lines = {hook: (user / hook).read_bytes() for hook in HOOKS}
    fake_husky(box)  # what `npm install` does: husky lays out .husky/_ again
    assert {hook: (user / hook).read_bytes() for hook in HOOKS} == lines
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"
    assert box.install().stdout.splitlines()[:len(HOOKS)] == [
        f".husky/{h}: up to date" for h in HOOKS]


def test_husky_strict_pre_push_blocks(box: HookBox, tmp_path: Path) -> None:
    fake_husky(box)
    box.install()
    (box.path / ".lets").mkdir(exist_ok=True)
    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode != 0
    assert "push blocked (pre_push.strict)" in done.stderr


def test_husky_line_without_lets_hooks_is_silent(box: HookBox, tmp_path: Path) -> None:
    """The line is shared with the team through git: a clone without lets-hooks must not
    notice it."""
    user = fake_husky(box)
    team_hook(user / "pre-push", "cat >/dev/null\n")
    box.install()
    bare_remote(box, tmp_path)
    git_dir = tmp_path / "git-only"
    git_dir.mkdir()
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (git_dir / "git").symlink_to(real)
    env = {"PATH": f"{git_dir}:/usr/bin:/bin"}
    done = box.sh("checkout", "-q", "-b", "feat", extra=env)
    assert done.stderr == "" and box.line("feat") is None
    done = box.sh("push", "-q", "origin", "feat", extra=env)
    assert done.returncode == 0 and done.stderr == ""


def test_husky_line_with_a_broken_lets_hooks_says_so_and_goes_on(box: HookBox,
                                                                 tmp_path: Path) -> None:
    fake_husky(box)
    box.install()
    broken = tmp_path / "broken-bin"
    broken.mkdir()
    (broken / "lets-hooks").write_text("#!/nonexistent/python\n")
    (broken / "lets-hooks").chmod(0o755)
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (broken / "git").symlink_to(real)
    done = box.sh("checkout", "-q", "-b", "feat", extra={"PATH": f"{broken}:/usr/bin:/bin"})
    assert done.returncode == 0
    assert f"lets-hooks: {broken}/lets-hooks could not run (exit status 127): its " \
           "post-checkout hook did nothing; reinstall lets-hooks" in done.stderr


def test_husky_uninstall_gives_the_files_back(box: HookBox) -> None:
    user = fake_husky(box)
    team_hook(user / "pre-push", "npm test\n")
    team_hook(user / "post-checkout", "#!/bin/sh\necho hi")  # no final newline
    before = snapshot(user)
    box.install()
    done = box.run("lets-hooks", "uninstall")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        ".husky/post-checkout: lets-hooks line removed",
        ".husky/post-rewrite: removed (install had created it)",
        ".husky/pre-push: lets-hooks line removed",
        ".husky/post-commit: removed (install had created it)",
        ".husky/post-merge: removed (install had created it)",
        ".husky/post-applypatch: removed (install had created it)"]
    assert snapshot(user) == before
    assert box.run("lets-hooks", "uninstall").stdout == (
        "nothing to remove: no lets-hooks shims or lines here\n")


def test_husky_upgrade_repairs_what_0_1_0_did_to_husky_folder(box: HookBox) -> None:
    """lets-hooks 0.1.0 wrote its shims into .husky/_, moving husky's stubs to
    <hook>.pre-lets (where husky's dispatcher no longer finds the team's hooks)."""
    user = fake_husky(box)
    team_hook(user / "pre-push", "exit 1\n")
    stubs = snapshot(user / "_")
    for hook in HOOKS:
        if not (LEGACY / hook).exists():
            continue  # 0.1.0 had three hooks
        os.rename(user / "_" / hook, user / "_" / f"{hook}.pre-lets")
        (user / "_" / hook).write_text((LEGACY / hook).read_text())
        (user / "_" / hook).chmod(0o755)
    done = box.install()
    assert ".husky/_/pre-push: removed; pre-push.pre-lets put back as pre-push" in done.stdout
    assert snapshot(user / "_") == stubs
    assert box.sh("push", "-q", str(box.path), "main:x", check=False).returncode != 0


def test_husky_not_set_up_in_this_clone_is_said(box: HookBox) -> None:
    fake_husky(box)
    box.sh("config", "--unset", "core.hooksPath")
    done = box.install()
    assert "note: husky is not set up in this clone yet" in done.stdout
    assert (box.path / ".husky" / "pre-push").exists()


# -- lefthook --------------------------------------------------------------------------------

def test_lefthook_gets_nothing_written_and_the_entries_printed(box: HookBox) -> None:
    (box.path / "lefthook.yml").write_text("pre-commit:\n  commands:\n    t:\n      run: true\n")
    before = snapshot(box.path / ".git" / "hooks")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert done.stdout.startswith("lefthook manages the git hooks here (lefthook.yml): "
                                  "nothing was written.")
    printed = done.stdout.split("\n", 1)[1]
    assert printed == lefthook_entries()
    entries = yaml.safe_load(printed)
    assert entries["post-checkout"]["commands"]["lets-hooks"]["run"] == (
        "lets-hooks post-checkout {1} {2} {3}")
    for hook in ("post-rewrite", "pre-push"):
        assert entries[hook]["commands"]["lets-hooks"]["use_stdin"] is True
    assert snapshot(box.path / ".git" / "hooks") == before


def test_lefthook_hooks_without_a_config_are_recognised(box: HookBox) -> None:
    hook = box.path / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\nif [ "$LEFTHOOK" = "0" ]; then exit 0; fi\n')
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert "lefthook manages the git hooks here (.git/hooks/pre-commit)" in done.stdout


# -- pre-commit --------------------------------------------------------------------------------

PRE_COMMIT_CONFIG = """\
repos:
-   repo: local
    hooks:
    -   id: nothing
        name: nothing
        entry: "true"
        language: system
        pass_filenames: false
"""


def pre_commit(box: HookBox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=box.path,
                          env=box.environ(), capture_output=True, text=True, check=True)


def test_install_beside_pre_commit_writes_the_hooks_it_leaves_free(box: HookBox) -> None:
    """pre-commit's scripts are kept byte for byte; the hooks it has none for get the plain
    shims beside them (the ledger's hooks at a shim's cost, not pre-commit's start per
    commit); one it has a script for without a lets-hooks id is said, exit 1."""
    (box.path / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    pre_commit(box, "install", "--hook-type", "pre-commit")
    folder = box.path / ".git" / "hooks"
    theirs = (folder / "pre-commit").read_bytes()
    done = box.run("lets-hooks", "install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [f".git/hooks/{hook}: installed" for hook in (
        "post-checkout", "post-rewrite", "pre-push", "post-commit", "post-merge",
        "post-applypatch")]
    assert (folder / "pre-commit").read_bytes() == theirs
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"
    commit = box.sh("commit", "-q", "--allow-empty", "-m", "one", sid=SID)
    assert "lets" not in commit.stdout + commit.stderr  # pre-commit: its own hook only
    assert f"{box.head()} {SID}" in (box.path / ".git" / "lets-hooks" / "ledger").read_text()
    assert box.run("lets-hooks", "install").stdout.count("up to date") == 6
    doctor = box.run("lets-hooks", "doctor").stdout.splitlines()
    for hook in HOOKS:  # doctor checks each as the shim it is, beside pre-commit's scripts
        assert any(line.startswith("ok") and f"lets-hooks shim {VERSION} in .git/hooks/{hook},"
                   in line for line in doctor), doctor

    pre_commit(box, "install", "--hook-type", "pre-push", "--overwrite")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert (".git/hooks/pre-push: pre-commit's script is here, so no shim was written: add "
            "lets-pre-push to .pre-commit-config.yaml") in done.stdout
    with (box.path / ".pre-commit-config.yaml").open("a") as config:
        config.write("-   repo: x\n    rev: y\n    hooks:\n    -   id: lets-pre-push\n")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 0, done.stdout
    assert (".git/hooks/pre-push: left to pre-commit (lets-pre-push is in "
            ".pre-commit-config.yaml)") in done.stdout


def test_pre_commit_after_lets_hooks_then_uninstall(box: HookBox) -> None:
    """pre-commit installed after lets-hooks keeps our shim as <hook>.legacy (migration
    mode: both run); uninstall takes ours out and leaves pre-commit's as they were."""
    (box.path / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    box.install()
    pre_commit(box, "install", "--hook-type", "post-checkout")
    folder = box.path / ".git" / "hooks"
    assert (folder / "post-checkout.legacy").read_text() == shim(
        "post-checkout", str(BIN / "lets-hooks"),
        (BIN / "lets-hooks").read_text().splitlines()[0][2:].strip(), import_folders())
    theirs = (folder / "post-checkout").read_bytes()
    doctor = box.run("lets-hooks", "doctor")
    assert "runs as post-checkout.legacy under pre-commit" in doctor.stdout
    done = box.run("lets-hooks", "uninstall")
    assert ".git/hooks/post-checkout.legacy: removed" in done.stdout
    assert not (folder / "post-checkout.legacy").exists()
    assert (folder / "post-checkout").read_bytes() == theirs
    box.sh("checkout", "-q", "-b", "feat", sid=SID)  # pre-commit no longer migrates
    assert box.line("feat") is None


def lets_ids_config(*hooks: str) -> str:
    """A config whose local hooks carry the lets-hooks ids of ``hooks``."""
    entries = "".join(f"    -   id: lets-{hook}\n        name: lets {hook}\n"
                      f"        entry: lets-hooks {hook}\n        language: system\n"
                      f"        stages: [{hook}]\n" for hook in hooks)
    return "repos:\n-   repo: local\n    hooks:\n" + entries


def test_pre_commit_for_some_hooks_install_writes_the_others_beside_it(box: HookBox) -> None:
    """pre-commit runs post-checkout, post-rewrite and pre-push: install writes shims for
    the hooks it does not provide (the ledger's writers), beside its scripts; doctor then
    reads each hook from whichever runs it."""
    (box.path / ".pre-commit-config.yaml").write_text(
        lets_ids_config("post-checkout", "post-rewrite", "pre-push"))
    pre_commit(box, "install", "--hook-type", "pre-commit", "--hook-type", "post-checkout",
               "--hook-type", "post-rewrite", "--hook-type", "pre-push")
    folder = box.path / ".git" / "hooks"
    before = snapshot(folder)
    done = box.run("lets-hooks", "install")
    assert done.returncode == 0, done.stdout
    for hook in ("post-checkout", "post-rewrite", "pre-push"):
        assert (f".git/hooks/{hook}: left to pre-commit (lets-{hook} is in "
                ".pre-commit-config.yaml)") in done.stdout
    for hook in ("post-commit", "post-merge", "post-applypatch"):
        assert f".git/hooks/{hook}: installed\n" in done.stdout
        assert "lets-hooks shim" in (folder / hook).read_text()
    after = snapshot(folder)
    assert {k: v for k, v in after.items() if k in before} == before
    doctor = box.run("lets-hooks", "doctor", env={"LETS_SESSION_ID": SID})
    for hook in ("post-commit", "post-merge", "post-applypatch"):
        assert any(line.startswith("ok") and hook in line and "lets-hooks shim" in line
                   for line in doctor.stdout.splitlines()), doctor.stdout
    assert "cannot install" not in doctor.stdout
    again = box.run("lets-hooks", "install")
    assert again.returncode == 0 and snapshot(folder) == after
    assert box.run("lets-hooks", "uninstall").returncode == 0
    assert snapshot(folder) == before


def test_pre_commit_listing_a_hook_it_has_no_script_for_gets_no_shim(box: HookBox) -> None:
    """The config lists lets-post-commit, pre-commit's post-commit script is not installed
    yet: no shim there (it would run twice once it is); the command to run is said."""
    (box.path / ".pre-commit-config.yaml").write_text(lets_ids_config("post-commit"))
    pre_commit(box, "install", "--hook-type", "pre-commit")
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert (".git/hooks/post-commit: left to pre-commit (lets-post-commit is in "
            ".pre-commit-config.yaml), whose script for it is not installed: pre-commit "
            "install --hook-type post-commit") in done.stdout
    assert not (box.path / ".git" / "hooks" / "post-commit").exists()
    assert ".git/hooks/post-checkout: installed" in done.stdout
