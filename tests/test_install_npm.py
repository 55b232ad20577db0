"""``lets-hooks install`` beside the real husky and lefthook from npm, used as a team uses
them; skipped where ``npm`` is not on PATH. Both are installed once per test session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID, shared
from hookbox import TOOLS_NEED_GIT_2_31, HookBox, make, needs_git
from managers import bare_remote, snapshot
from test_sessions import Route, World, two_sessions_day

from lets_hooks.install import HOOKS, LINE_MARK, lefthook_entries

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not on PATH")


@pytest.fixture(scope="session")
def npm_tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """husky and lefthook, installed from npm once for the whole run (every worker's:
    ``conftest.shared``, under a lock: no two npm installs race), through npm's own
    cache."""
    return shared(tmp_path_factory, "npm-tools", _npm_install) / "node_modules"


def _npm_install(prefix: Path) -> None:
    # --ignore-scripts: lefthook's own postinstall would run `lefthook install` in the
    # folder npm was started from; its binary comes as a package of its own anyway.
    done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--ignore-scripts",
                           "--no-audit", "--no-fund", "--loglevel=error", "husky@9",
                           "lefthook"],
                          cwd=prefix, env={**os.environ, "INIT_CWD": str(prefix)},
                          capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"npm install husky lefthook failed: {done.stderr.strip()[-300:]}")


def versions(tools: Path) -> dict[str, str]:
    return {name: json.loads((tools / name / "package.json").read_text())["version"]
            for name in ("husky", "lefthook")}


def with_tools(tools: Path) -> dict[str, str]:
    """PATH with the npm tools, then this lets-hooks, then the rest."""
    return {"PATH": f"{tools / '.bin'}{os.pathsep}{BIN}{os.pathsep}"
                    f"{os.environ.get('PATH', '')}"}


def npm(box: HookBox, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["npm", *args, "--no-audit", "--no-fund", "--offline",
                           "--loglevel=error"], cwd=box.path, env=box.environ(),
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def test_with_real_husky(npm_tools: Path, tmp_path: Path) -> None:
    box = make(tmp_path)
    (box.path / "package.json").write_text(json.dumps({
        "name": "team-app", "private": True,
        "devDependencies": {"husky": f"file:{npm_tools / 'husky'}"}}))
    (box.path / ".gitignore").write_text("node_modules/\n")
    npm(box, "install")
    subprocess.run(["npx", "--no-install", "husky", "init"], cwd=box.path, env=box.environ(),
                   capture_output=True, text=True, check=True)
    assert box.sh("config", "core.hooksPath").stdout.strip() == ".husky/_"
    seen = tmp_path / "team-saw"
    (box.path / ".husky" / "pre-commit").write_text("true\n")
    (box.path / ".husky" / "pre-push").write_text(
        f'cat > "{seen}"\nif [ -e BLOCK ]; then echo "team: blocked"; exit 1; fi\n')
    box.sh("add", "-A")
    box.sh("commit", "-q", "-m", "team hooks")
    stubs = snapshot(box.path / ".husky" / "_")

    done = box.install()
    assert ".husky/pre-push: lets-hooks line added" in done.stdout
    assert snapshot(box.path / ".husky" / "_") == stubs
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"

    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    (box.path / "BLOCK").write_text("")
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode != 0, done.stderr
    assert "team: blocked" in done.stdout + done.stderr  # the team's hook still blocks
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr  # lets-hooks still warned
    assert seen.read_text().startswith("refs/heads/feat ")  # git's stdin reached the team

    # npm install lays husky's folder out again (its prepare script): still working
    shutil.rmtree(box.path / ".husky" / "_")
    npm(box, "install")
    assert (box.path / ".husky" / "_" / "h").exists()
    box.sh("checkout", "-q", "-b", "feat2", sid=SID)
    assert box.line("feat2") == f"{box.head()} {SID}"
    (box.path / "BLOCK").unlink()
    done = box.sh("push", "origin", "feat", sid=SID, check=False)
    assert done.returncode == 0, done.stderr
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr

    done = box.run("lets-hooks", "uninstall")
    assert done.returncode == 0
    assert box.sh("status", "--porcelain", "--", ".husky").stdout == ""  # as committed
    assert not any(LINE_MARK in (box.path / ".husky" / h).read_text()
                   for h in HOOKS if (box.path / ".husky" / h).exists())
    print("husky", versions(npm_tools)["husky"])


@TOOLS_NEED_GIT_2_31
def test_with_real_lefthook(npm_tools: Path, tmp_path: Path) -> None:
    box = make(tmp_path)
    env = with_tools(npm_tools)
    team = ("pre-push:\n  commands:\n    team-check:\n"
            "      run: \"if [ -e BLOCK ]; then echo 'team blocked'; exit 1; fi\"\n")
    (box.path / "lefthook.yml").write_text(team)
    subprocess.run(["lefthook", "install"], cwd=box.path, env={**box.environ(), **env},
                   capture_output=True, text=True, check=True)
    before = snapshot(box.path / ".git" / "hooks")

    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 1
    assert snapshot(box.path / ".git" / "hooks") == before  # nothing written
    entries = done.stdout.split("\n", 1)[1]
    assert entries == lefthook_entries()
    # the team merges the printed entries into lefthook.yml
    merged = entries.replace("pre-push:\n  commands:\n",
                             "pre-push:\n  commands:\n" + team.split("commands:\n", 1)[1])
    (box.path / "lefthook.yml").write_text(merged)
    subprocess.run(["lefthook", "install"], cwd=box.path, env={**box.environ(), **env},
                   capture_output=True, text=True, check=True)
    installed = snapshot(box.path / ".git" / "hooks")

    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") == f"{box.head()} {SID}"
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    (box.path / "BLOCK").write_text("")
    done = box.sh("push", "origin", "feat", sid=SID, check=False, extra=env)
    assert done.returncode != 0  # the team's pre-push still blocks
    assert "team blocked" in done.stdout + done.stderr
    assert "lets-hooks: pre-push: branch 'feat'" in done.stdout + done.stderr
    (box.path / "BLOCK").unlink()
    done = box.sh("push", "origin", "feat", sid=SID, check=False, extra=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lets-hooks: pre-push: branch 'feat'" in done.stdout + done.stderr

    doctor = box.run("lets-hooks", "doctor", env={**env, "LETS_SESSION_ID": SID})
    assert "lefthook runs lets-hooks pre-push (lefthook.yml)" in doctor.stdout
    done = box.run("lets-hooks", "uninstall", env=env)
    assert "lefthook.yml still runs lets-hooks" in done.stdout
    assert snapshot(box.path / ".git" / "hooks") == installed  # lefthook's, as they were
    print("lefthook", versions(npm_tools)["lefthook"])


def husky_app(npm_tools: Path, tmp_path: Path) -> HookBox:
    """A repository as a team sets husky 9 up: package.json, npm install, husky init,
    .husky committed."""
    box = make(tmp_path)
    (box.path / "package.json").write_text(json.dumps({
        "name": "team-app", "private": True, "scripts": {"prepare": "husky"},
        "devDependencies": {"husky": f"file:{npm_tools / 'husky'}"}}))
    (box.path / ".gitignore").write_text("node_modules/\n")
    npm(box, "install")
    subprocess.run(["npx", "--no-install", "husky", "init"], cwd=box.path, env=box.environ(),
                   capture_output=True, text=True, check=True)
    (box.path / ".husky" / "pre-commit").write_text("true\n")
    return box


def test_real_husky_in_a_work_tree_added_with_git_worktree_add(npm_tools: Path,
                                                               tmp_path: Path) -> None:
    """husky sets core.hooksPath=.husky/_, relative: git looks for it in each work tree,
    and husky's folder is not committed, so a work tree added with `git worktree add` runs
    no hook after the checkout that made it. doctor says to run husky's install there."""
    box = husky_app(npm_tools, tmp_path)
    assert box.install().returncode == 0
    box.sh("add", "-A")
    box.sh("commit", "-q", "-m", "team hooks, with lets-hooks")
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "topic", str(linked), sid=SID)
    box.sh("switch", "-q", "-c", "topic2", sid=SID, cwd=linked)
    assert box.line("topic2", root=linked) is None  # no hook ran: what the user saw
    done = box.run("lets-hooks", "doctor", "--json", cwd=linked,
                   env={"LETS_SESSION_ID": SID})
    assert done.returncode == 1
    found = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert found["husky"]["text"].startswith(
        "husky's .husky/_ is not in this work tree, so git runs none of its hooks here "
        "(core.hooksPath = .husky/_ is relative")
    assert found["husky"]["fix"] == ("npm install (husky's prepare script lays it out), or "
                                     "npx husky, in this work tree")
    assert found["pre-push"]["fix"] == "npm install, or npx husky, in this work tree"
    assert "lets-hooks install" not in done.stdout
    done = box.run("lets-hooks", "install", cwd=linked)  # says the same, changes nothing
    assert done.returncode == 1
    assert "Run npm install (husky's prepare script lays it out) or npx husky in this work " \
           "tree." in done.stdout
    assert box.sh("status", "--porcelain", cwd=linked).stdout == ""

    npm(HookBox(linked), "install")  # what doctor said
    box.sh("switch", "-q", "-c", "topic3", sid=SID, cwd=linked)
    assert box.line("topic3", root=linked) == f"{box.rev('topic2')} {SID}"
    done = box.run("lets-hooks", "doctor", cwd=linked,
                   env={"LETS_SESSION_ID": SID, "PATH": box.environ()["PATH"]})
    assert done.returncode == 0, done.stdout


@TOOLS_NEED_GIT_2_31
def test_real_lefthook_entries_merge_into_a_file_that_has_the_same_hooks(
        npm_tools: Path, tmp_path: Path) -> None:
    """The team's lefthook.yml already has post-checkout: and pre-push: keys. The printed
    entries, saved as lefthook-local.yml as install says, are merged by lefthook itself:
    the team's commands and lets-hooks both run, and both get git's stdin."""
    box = make(tmp_path)
    env = with_tools(npm_tools)
    seen = tmp_path / "team-saw"
    team = ("post-checkout:\n  commands:\n    team-co:\n      run: echo team-checkout\n"
            "pre-push:\n  commands:\n    team-push:\n"
            f"      run: cat > '{seen}'; if [ -e BLOCK ]; then exit 1; fi\n"
            "      use_stdin: true\n")
    (box.path / "lefthook.yml").write_text(team)
    (box.path / ".gitignore").write_text("lefthook-local.yml\n")
    done = box.run("lets-hooks", "install", env=env)
    assert done.returncode == 1
    assert "save them as lefthook-local.yml (lefthook merges it into lefthook.yml" in (
        done.stdout)
    (box.path / "lefthook-local.yml").write_text(done.stdout.split("\n", 1)[1])
    lefthook = subprocess.run(["lefthook", "validate"], cwd=box.path,
                              env={**box.environ(), **env}, capture_output=True, text=True,
                              check=False)
    assert lefthook.returncode == 0, lefthook.stdout + lefthook.stderr
    subprocess.run(["lefthook", "install"], cwd=box.path, env={**box.environ(), **env},
                   capture_output=True, text=True, check=True)

    done = box.sh("checkout", "-b", "feat", sid=SID, extra=env)
    assert "team-checkout" in done.stdout + done.stderr  # theirs ran
    assert box.line("feat") == f"{box.head()} {SID}"  # ours too
    box.file_commit("a.txt", "a\n")
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "origin", "feat", sid=SID, extra=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lets-hooks: pre-push: branch 'feat'" in done.stdout + done.stderr
    assert seen.read_text().startswith("refs/heads/feat ")  # stdin reached both
    found = box.run("lets-hooks", "doctor", env={**env, "LETS_SESSION_ID": SID})
    assert found.returncode == 0, found.stdout
    assert "lefthook runs lets-hooks pre-push (lefthook.yml)" in found.stdout
    # with a lefthook-local.yml already there, install says to add the entries to it
    again = box.run("lets-hooks", "install", env=env)
    assert "add each lets-hooks entry under that hook's commands: in lefthook-local.yml" in (
        again.stdout)
    # LEFTHOOK=0: lefthook runs nothing, and doctor says so
    done = box.run("lets-hooks", "doctor", env={**env, "LETS_SESSION_ID": SID,
                                                "LEFTHOOK": "0"})
    assert done.returncode == 1
    assert "LEFTHOOK=0 is set here, so lefthook runs no hook at all" in done.stdout


@needs_git(2, 37, "git before 2.37 (no cone mode by default) keeps a left-out folder that "
                 "holds ignored files, so husky's .husky/_ stays and its hooks still run")
def test_real_husky_with_a_sparse_checkout_that_leaves_husky_out(npm_tools: Path,
                                                                 tmp_path: Path) -> None:
    """A sparse checkout of src/ only takes the committed .husky/ out of the work tree:
    git runs no hook (core.hooksPath = .husky/_ names a folder that is not there). doctor
    and install say that as such, with the fix, and install writes nothing."""
    box = husky_app(npm_tools, tmp_path)
    assert box.install().returncode == 0
    (box.path / "src").mkdir()
    (box.path / "src" / "a.txt").write_text("a\n")
    box.sh("add", "-A")
    box.sh("commit", "-q", "-m", "team hooks, with lets-hooks")
    box.sh("sparse-checkout", "set", "src")
    assert not (box.path / ".husky").exists()
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    assert box.line("topic") is None  # no hook ran: what the user saw
    done = box.run("lets-hooks", "doctor", "--json", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 1
    found = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert found["husky"]["text"] == ("husky's .husky/ is left out of this work tree by its "
                                      "sparse checkout, so git runs none of its hooks here "
                                      "(core.hooksPath = .husky/_)")
    assert found["husky"]["fix"] == ("git sparse-checkout add .husky, then npm install "
                                     "(husky's prepare script lays out .husky/_)")
    assert found["post-checkout"]["fix"] == "git sparse-checkout add .husky, then npm install"
    assert "lets-hooks install" not in done.stdout and "--hooks-dir-ok" not in done.stdout
    done = box.run("lets-hooks", "install")
    assert done.returncode == 1
    assert done.stdout.startswith("husky's .husky/ is left out of this work tree by its sparse "
                                  "checkout")
    assert "Run git sparse-checkout add .husky, then npm install" in done.stdout
    assert "--hooks-dir-ok" not in done.stdout
    assert not (box.path / ".husky").exists()  # nothing written

    box.sh("sparse-checkout", "add", ".husky")  # what doctor said
    npm(box, "install")
    box.sh("switch", "-q", "-c", "topic2", sid=SID)
    assert box.line("topic2") == f"{box.head()} {SID}"
    done = box.run("lets-hooks", "doctor", env={"LETS_SESSION_ID": SID,
                                                "PATH": box.environ()["PATH"]})
    assert done.returncode == 0, done.stdout


@TOOLS_NEED_GIT_2_31
def test_real_lefthook_local_and_a_work_tree_added_with_git_worktree_add(
        npm_tools: Path, tmp_path: Path) -> None:
    """lefthook-local.yml, as install recommends, is untracked: a work tree added with git
    worktree add lacks it, so lefthook runs nothing of lets-hooks there. doctor there names
    that cause (not lefthook.yml) and the link that fixes it; install says the same."""
    box = make(tmp_path)
    env = with_tools(npm_tools)
    (box.path / "lefthook.yml").write_text(
        "pre-push:\n  commands:\n    team:\n      run: echo team-push\n")
    (box.path / ".gitignore").write_text("lefthook-local.yml\n")
    box.sh("add", "-A")
    box.sh("commit", "-q", "-m", "team lefthook")
    done = box.run("lets-hooks", "install", env=env)
    assert "it is untracked, so link it into each work tree you add with git worktree add" in (
        done.stdout)
    (box.path / "lefthook-local.yml").write_text(done.stdout.split("\n", 1)[1])
    subprocess.run(["lefthook", "install"], cwd=box.path, env={**box.environ(), **env},
                   capture_output=True, text=True, check=True)
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=env)
    assert box.line("feat") == f"{box.head()} {SID}"  # the main work tree records

    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "topic", str(linked), sid=SID, extra=env)
    box.sh("switch", "-q", "-c", "topic2", sid=SID, cwd=linked, extra=env)
    assert box.line("topic2", root=linked) is None  # nothing recorded there
    done = box.run("lets-hooks", "doctor", "--json", cwd=linked,
                   env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 1
    found = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    local = box.path / "lefthook-local.yml"
    for hook in HOOKS:
        assert found[hook]["text"] == (
            f"lefthook runs the hooks here, but the lets-hooks {hook} entry is in {local}, "
            "which is untracked: this work tree (added with git worktree add) has no "
            "lefthook-local.yml, so lefthook runs nothing of lets-hooks here")
        assert found[hook]["fix"] == (f"ln -s {local} lefthook-local.yml, in this work tree "
                                      "(or add the entries to lefthook.yml, which every work "
                                      "tree has)")
    assert "has no lets-hooks" not in done.stdout  # lefthook.yml is not blamed
    done = box.run("lets-hooks", "install", cwd=linked, env=env)
    assert done.returncode == 1
    assert f"they are in {local}, which is untracked" in done.stdout

    os.symlink(local, linked / "lefthook-local.yml")  # what doctor said
    box.sh("switch", "-q", "-c", "topic3", sid=SID, cwd=linked, extra=env)
    assert box.line("topic3", root=linked) == f"{box.rev('topic2')} {SID}"
    done = box.run("lets-hooks", "doctor", cwd=linked, env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stdout


@TOOLS_NEED_GIT_2_31
def test_real_lefthook_route_gives_the_evidence_classes_true_answers(npm_tools: Path,
                                                                    tmp_path: Path) -> None:
    """Through the lefthook route (its entries, real lefthook running them): the session
    commits on its topic and on main, rebases the topic onto main (the range is the
    branch's: exact for the topic's two), then records again (the line goes below its
    topic commits, and no lower than main's own line: still exact)."""
    box = make(tmp_path)
    env = with_tools(npm_tools)
    (box.path / "lefthook.yml").write_text(lefthook_entries())
    subprocess.run(["lefthook", "install"], cwd=box.path, env={**box.environ(), **env},
                   capture_output=True, text=True, check=True)
    remote = bare_remote(box, tmp_path)
    box.sh("checkout", "-q", "-b", "topic", sid=SID, extra=env)
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID, extra=env)
    for name in ("t1", "t2"):
        (box.path / f"{name}.txt").write_text(name)
        box.sh("add", f"{name}.txt", extra=env)
        box.sh("commit", "-q", "-m", name, sid=SID, extra=env)
    box.sh("switch", "-q", "main", sid=SID, extra=env)
    (box.path / "m.txt").write_text("m")
    box.sh("add", "m.txt", extra=env)
    box.sh("commit", "-q", "-m", "on main", sid=SID, extra=env)
    onto = box.head()
    box.sh("switch", "-q", "topic", sid=SID, extra=env)
    box.sh("rebase", "-q", "main", sid=SID, extra=env)
    got = box.boundary(env={**env, "LETS_SESSION_ID": SID})
    assert (got["SESSION_BOUNDARY"], got["SESSION_TRUST"], got["SESSION_COMMITS"]) == \
        (onto, "exact", "2"), got
    # recorded again: the line goes below the topic's two, never below main's own line
    done = box.run("lets-hooks", "record", env={**env, "LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    got = box.boundary(env={**env, "LETS_SESSION_ID": SID})
    assert (got["SESSION_BOUNDARY"], got["SESSION_TRUST"], got["SESSION_COMMITS"]) == \
        (onto, "exact", "2"), got
    assert remote.exists()


@TOOLS_NEED_GIT_2_31
@pytest.mark.parametrize("manager", ["husky", "lefthook"])
def test_a_two_sessions_day_through_husky_and_lefthook_never_gives_a_wrong_exact(
        npm_tools: Path, tmp_path: Path, manager: str) -> None:
    """``test_sessions``' day with the hooks run by the real husky 9 (its lines in the
    committed .husky files) or lefthook (the entries in a committed lefthook.yml): an amend
    of the other session's commit, ``pull --rebase`` over a teammate's push, a squash."""
    two_sessions_day(World(tmp_path, Route(manager, tools=npm_tools)),
                     ["A commit", "B commit", "A amend", "mate push", "A pull --rebase",
                      "A squash"])
