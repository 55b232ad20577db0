"""``lets-hooks doctor``: one screen; exit 0 when all is well, 1 otherwise."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID
from hookbox import HookBox, make
from managers import fake_husky

from lets_hooks.install import DIGEST, HOOKS, MARKER, VERSION, _digest, shim


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = make(tmp_path)
    (made.path / ".git" / "info").mkdir(exist_ok=True)
    (made.path / ".git" / "info" / "exclude").write_text(".lets/\n")
    return made


def doctor(box: HookBox, *args: str, sid: str | None = SID,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(env or {})
    if sid:
        full["LETS_SESSION_ID"] = sid
    return box.run("lets-hooks", "doctor", *args, env=full)


def checks(box: HookBox, sid: str | None = SID,
           env: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    done = doctor(box, "--json", sid=sid, env=env)
    data = json.loads(done.stdout)
    assert data["ok"] == (done.returncode == 0)
    return {c["name"]: c for c in data["checks"]}


def test_all_is_well(box: HookBox) -> None:
    box.install()
    box.file_commit("a.txt", "a\n", sid=SID)  # the session ledger's first line
    done = doctor(box)
    assert done.returncode == 0, done.stdout
    assert done.stdout.endswith("all is well\n")
    lines = done.stdout.splitlines()
    assert len(lines) <= 24  # one screen
    for hook in HOOKS:
        assert any(line.startswith("ok") and hook in line and "lets-hooks shim 0.2.0" in line
                   for line in lines), hook
    assert any("merge branch" in line and "main" in line for line in lines)


def test_nothing_installed(box: HookBox) -> None:
    done = doctor(box)
    assert done.returncode == 1
    assert "post-checkout    lets-hooks is not installed for it (nothing is there)" in done.stdout
    assert "fix: lets-hooks install" in done.stdout


def test_a_sealed_shim_this_build_did_not_write(box: HookBox) -> None:
    """A shim whose seal holds but whose text is not what this lets-hooks writes: an earlier
    build of this version, or another version. Either way: install again."""
    box.install()
    folder = box.path / ".git" / "hooks"
    for hook, version in (("post-checkout", VERSION), ("pre-push", "0.1.9")):
        body = (folder / hook).read_text().rstrip("\n").rpartition("\n")[0] + "\n"
        body = body.replace(f"{MARKER} {VERSION} ", f"{MARKER} {version} ") + "# older\n"
        (folder / hook).write_text(body + DIGEST + _digest(body) + "\n")
    found = checks(box)
    assert found["post-checkout"]["status"] == found["pre-push"]["status"] == "warn"
    assert found["post-checkout"]["text"].endswith(
        f"; written by an earlier build of lets-hooks {VERSION}, without this one's fixes")
    assert found["pre-push"]["text"].endswith("; written by another version (0.1.9)")
    assert found["pre-push"]["fix"] == "lets-hooks install"


def test_will_git_run_it(box: HookBox, tmp_path: Path) -> None:
    box.install()
    folder = box.path / ".git" / "hooks"
    (folder / "post-rewrite").chmod(0o644)
    gone = str(tmp_path / "gone" / "python")
    (folder / "pre-push").write_text(shim("pre-push", "/gone/lets-hooks", gone))
    (folder / "pre-push").chmod(0o755)
    (folder / "post-checkout").write_text((folder / "post-checkout").read_text() + "# mine\n")
    found = checks(box, env={"PATH": f"{BIN}:{os.environ['PATH']}"})
    assert "not executable, so git skips it" in found["post-rewrite"]["text"]
    assert "edited since install" in found["post-checkout"]["text"]
    # a working lets-hooks on PATH stands in for the gone Python: it runs, and doctor
    # says to install again (the shim is slower that way, and names a Python that is gone)
    assert found["pre-push"]["status"] == "warn"
    assert f"the Python it names ({gone}) cannot run lets-hooks, so it falls back to " \
           f"{BIN}/lets-hooks" in found["pre-push"]["text"]
    found = checks(box, env={"PATH": f"{git_only(tmp_path)}:/usr/bin:/bin"})
    assert found["pre-push"]["status"] == "warn"
    assert found["pre-push"]["text"].endswith(
        f"it cannot run lets-hooks: lets-hooks: pre-push hook skipped: the Python that "
        f"installed it ({gone}) is gone; reinstall lets-hooks, then run lets-hooks install")
    assert found["pre-push"]["fix"].startswith("reinstall lets-hooks where it was installed")


def git_only(tmp_path: Path) -> Path:
    folder = tmp_path / "git-only"
    folder.mkdir()
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (folder / "git").symlink_to(real)
    return folder


def test_a_mistyped_merge_branch_gets_a_hint(box: HookBox) -> None:
    box.install()
    done = doctor(box, env={"LETS_MERGE_BRANCH": "mian"})
    assert done.returncode == 1
    assert ("'mian' (from LETS_MERGE_BRANCH): no such branch, neither origin/mian nor mian; "
            "did you mean 'main'?") in done.stdout
    assert 'fix: merge_branch = "main" in LETS_MERGE_BRANCH' in done.stdout


def test_no_session_id_says_how_to_set_one(box: HookBox) -> None:
    """A note, not a failure: without a session id everything is installed and working."""
    box.install()
    box.file_commit("a.txt", "a\n")  # the session ledger's first line (made by no session)
    done = doctor(box, sid=None)
    assert done.returncode == 0, done.stdout
    assert done.stdout.endswith("all is well (1 note above)\n")
    assert "\nnote  session id       none of LETS_SESSION_ID" in done.stdout
    found = checks(box, sid=None)
    assert found["session id"]["status"] == "note"
    assert ("none of LETS_SESSION_ID, CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID, "
            "GEMINI_SESSION_ID is set") in found["session id"][
        "text"]
    assert found["session id"]["fix"].startswith("export LETS_SESSION_ID=")


def test_lets_not_ignored(box: HookBox) -> None:
    box.install()
    (box.path / ".git" / "info" / "exclude").write_text("")
    assert checks(box)[".lets/"]["status"] == "info"  # not there yet: the first write adds it
    (box.path / ".lets").mkdir()
    found = checks(box)
    assert found[".lets/"]["status"] == "warn"
    assert "git add -A would commit" in found[".lets/"]["text"]


def test_a_long_history_without_a_commit_graph(box: HookBox) -> None:
    box.install()
    stream = []
    parent = box.head()
    for n in range(10_001):
        stream.append(f"commit refs/heads/main\ncommitter T <t@e> {1_700_000_000 + n} +0000\n"
                      f"data 1\nx\n" + (f"from {parent}\n" if n == 0 else "") + "\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=box.path, check=True,
                   input="".join(stream).encode())
    box.sh("reset", "-q", "--hard", "main")
    found = checks(box)
    assert found["history"]["status"] == "warn"
    assert found["history"]["fix"] == "git commit-graph write --reachable"
    box.sh("commit-graph", "write", "--reachable")
    assert checks(box)["history"]["status"] == "ok"


def test_husky_is_reported(box: HookBox) -> None:
    fake_husky(box)
    box.install()
    found = checks(box)
    assert "managed by husky 9" in found["hooks folder"]["text"]
    assert found["pre-push"]["text"].startswith("husky 9: lets-hooks line in .husky/pre-push")
    (box.path / ".husky" / "_" / "pre-push").unlink()
    assert "is missing, so git runs nothing" in checks(box)["pre-push"]["text"]


def test_lefthook_without_entries(box: HookBox) -> None:
    (box.path / "lefthook.yml").write_text("pre-commit:\n  commands: {}\n")
    found = checks(box)
    assert "lefthook.yml has no lets-hooks pre-push entry" in found["pre-push"]["text"]


def test_an_old_git_is_flagged(box: HookBox, tmp_path: Path) -> None:
    fake = tmp_path / "fake-git"
    fake.mkdir()
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (fake / "git").write_text(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo "git version '
                              f'2.20.1"; exit 0; }}\nexec "{real}" "$@"\n')
    (fake / "git").chmod(0o755)
    found = checks(box, env={"PATH": f"{fake}:{os.environ['PATH']}"})
    assert found["git"] == {"name": "git", "status": "warn",
                            "text": "git 2.20.1: lets-hooks needs git 2.25 or newer",
                            "fix": "upgrade git"}


def test_outside_a_repository(tmp_path: Path) -> None:
    box = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    done = box.run("lets-hooks", "doctor", cwd=outside)
    assert done.returncode == 1
    assert "not inside a git repository" in done.stdout


def test_inside_the_git_folder_is_said_in_words(box: HookBox) -> None:
    """The reason is the line a person reads, not an exception's class name."""
    done = box.run("lets-hooks", "doctor", cwd=box.path / ".git")
    assert done.returncode == 1
    assert ("WARN  repository  inside the .git folder: run it from the work tree\n"
            in done.stdout), done.stdout
    assert "Error" not in done.stdout


def test_husky_switched_off_is_said(box: HookBox, tmp_path: Path) -> None:
    fake_husky(box)
    box.install()
    path = {"PATH": f"{BIN}:{os.environ['PATH']}"}
    assert doctor(box, env=path).returncode == 0
    found = checks(box, env={"HUSKY": "0", **path})
    assert found["husky"]["status"] == "warn"
    assert found["husky"]["text"] == ("HUSKY=0 is set here, so husky runs no hook at all (the "
                                      "lets-hooks lines included)")
    box.sh("checkout", "-q", "-b", "feat", sid=SID, extra={"HUSKY": "0"})
    assert box.line("feat") is None  # as doctor said
    init = Path(os.environ["HOME"]) / ".config" / "husky" / "init.sh"
    init.parent.mkdir(parents=True)
    init.write_text("export HUSKY=0\n")
    assert "sets HUSKY=0" in checks(box)["husky"]["text"]


def test_lefthook_switched_off_is_said(box: HookBox) -> None:
    (box.path / "lefthook.yml").write_text("pre-commit:\n  commands: {}\n")
    for value in ("0", "false"):
        found = checks(box, env={"LEFTHOOK": value})
        assert found["lefthook"]["status"] == "warn"
        assert found["lefthook"]["text"].startswith(f"LEFTHOOK={value} is set here, so "
                                                    "lefthook runs no hook at all")
    assert "lefthook" not in checks(box)


def test_the_witness_is_reported(box: HookBox) -> None:
    """No HEAD reflog (or one that is not this work tree's record): no answer is exact, and
    doctor says so and what brings the record back."""
    box.install()
    found = checks(box)["witness"]
    assert found["status"] == "ok" and "logs/HEAD" in found["text"]
    # HEAD moved without a log entry (the branch file written by hand)
    box.commit("two")
    parent = box.sh("rev-parse", "HEAD~1").stdout.strip()
    branch = box.sh("symbolic-ref", "--short", "HEAD").stdout.strip()
    (box.path / ".git" / "refs" / "heads" / branch).write_text(parent + "\n")
    found = checks(box)["witness"]
    assert found["status"] == "warn"
    assert found["text"].startswith("the HEAD reflog's newest entry")
    assert found["text"].endswith("so no answer is exact")
    assert "next one on" in found["fix"]
    # reflogs off, and the log gone
    box.sh("config", "core.logAllRefUpdates", "false")
    (box.path / ".git" / "logs" / "HEAD").unlink()
    done = doctor(box)
    assert done.returncode == 1
    found = checks(box)["witness"]
    assert found["text"].startswith("no HEAD reflog in this work tree")
    assert "core.logAllRefUpdates = false, set in file:.git/config" in found["text"]
    assert found["fix"].startswith("git config core.logAllRefUpdates true")
    # what the fix says is true: the next move of HEAD brings the witness back
    box.sh("config", "core.logAllRefUpdates", "true")
    box.commit("three")
    assert checks(box)["witness"]["status"] == "ok"
