"""``lets-hooks install`` beside the real husky and lefthook from npm, used as a team uses
them; skipped where ``npm`` is not on PATH. Both are installed once per test session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import BIN
from hookbox import SID, TOOLS_NEED_GIT_2_31, HookBox, make
from managers import bare_remote, snapshot

from lets_hooks.install import HOOKS, LINE_MARK, lefthook_entries

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not on PATH")


@pytest.fixture(scope="session")
def npm_tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """husky and lefthook, installed from npm into one folder for the whole session."""
    prefix = tmp_path_factory.mktemp("npm-tools")
    # --ignore-scripts: lefthook's own postinstall would run `lefthook install` in the
    # folder npm was started from; its binary comes as a package of its own anyway.
    done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--ignore-scripts",
                           "--no-audit", "--no-fund", "--loglevel=error", "husky@9",
                           "lefthook"], cwd=prefix, env={**os.environ, "INIT_CWD": str(prefix)},
                          capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"npm install husky lefthook failed: {done.stderr.strip()[-300:]}")
    return prefix / "node_modules"


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
