"""The repository states users hit: each gives the right trust level or a clear note.

Every state is also swept with every command the product has: none may print a
traceback or leave its exit-status contract.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID, Sandbox, note_made
from hookbox import HookBox, make
from hypothesis import given
from hypothesis import strategies as st

NULL = "0" * 40
NONE_DESC = "boundary unknown - no valid session boundary for this branch"


def run(cwd: Path, command: str, *args: str, stdin: str = "",
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    full["PATH"] = f"{BIN}{os.pathsep}{full.get('PATH', '')}"
    full.update(env or {})
    return subprocess.run([str(BIN / command), *args], cwd=cwd, env=full, input=stdin,
                          capture_output=True, text=True, check=False, timeout=120)


def boundary(cwd: Path, *args: str, sid: str | None = SID) -> dict[str, object]:
    done = run(cwd, "lets-session-boundary", "--json", *args,
               env={"LETS_SESSION_ID": sid} if sid else None)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    result["stderr"] = done.stderr
    return result


# (command and arguments, stdin, exit statuses the contract allows)
SWEEP: list[tuple[tuple[str, ...], str, set[int]]] = [
    (("lets-session-boundary",), "", {0}),
    (("lets-session-boundary", "--json"), "", {0}),
    (("lets-session-boundary", "--branch", "main"), "", {0}),
    (("lets-hooks", "post-checkout", NULL, NULL, "1"), "", {0}),
    (("lets-hooks", "post-rewrite", "amend"), f"{NULL} {NULL}\n", {0}),
    (("lets-hooks", "pre-push", "origin", "url"),
     f"refs/heads/main {'1' * 40} refs/heads/main {NULL}\n", {0}),
    (("lets-hooks", "record"), "", {0, 1}),
    (("lets-hooks", "status"), "", {0, 1}),
    (("lets-hooks", "lint"), "", {0, 1}),
    (("lets-session-start", "--today", "2026-11-29"), "", {0}),
    (("lets-observability", "model-tag-count"), "", {0}),
]


def sweep(cwd: Path, exits: dict[str, set[int]] | None = None
          ) -> dict[str, subprocess.CompletedProcess[str]]:
    """Run every command here; none may print a traceback or break its exit contract
    (``exits``: another contract for a command here, by its first two words)."""
    results = {}
    for argv, stdin, allowed in SWEEP:
        allowed = (exits or {}).get(" ".join(argv[:2]), allowed)
        done = run(cwd, argv[0], *argv[1:], stdin=stdin, env={"LETS_SESSION_ID": SID})
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        assert done.returncode in allowed, (argv, done.returncode, done.stderr)
        if argv[0] == "lets-session-boundary" and "--json" not in argv:
            assert len(done.stdout.splitlines()) == 4, (argv, done.stdout)
        results[" ".join(argv[:2])] = done
    return results


def write_task(top: Path, branch: str, line: str) -> Path:
    folder = top / ".lets" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (".task-" + branch.replace("/", "-"))
    path.write_text(line)
    return path


# -- an empty repository (unborn HEAD) -----------------------------------------------------

@pytest.fixture
def empty(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path / "empty")


def test_empty_repository_has_no_boundary_and_says_why(empty: Sandbox) -> None:
    write_task(empty.path, "main", "session: " + "a" * 40 + f" {SID}\n")
    result = boundary(empty.path)
    assert (result["trust"], result["boundary"], result["commits"]) == ("none", None, None)
    assert result["desc"] == NONE_DESC
    assert "HEAD has no commit yet" in str(result["stderr"])


def test_empty_repository_every_command(empty: Sandbox) -> None:
    results = sweep(empty.path)
    assert "no commit yet" in results["lets-hooks record"].stderr
    assert results["lets-hooks record"].returncode == 1
    assert results["lets-hooks lint"].returncode == 0
    assert not (empty.path / ".lets").exists()  # nothing was recorded for a branch of nothing


def test_an_empty_repository_names_its_unborn_branch_not_master(tmp_path: Path) -> None:
    """An empty repository's first branch is its trunk (``git init -b trunk``, or
    ``init.defaultBranch``): the merge branch the contract, doctor and every other command
    name is that branch, never a ``master`` it does not have."""
    top = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(top)], check=True)
    assert boundary(top)["merge_branch"] == "trunk"
    results = sweep(top)
    results["lets-hooks install"] = run(top, "lets-hooks", "install")
    doctor = results["lets-hooks doctor"] = run(top, "lets-hooks", "doctor",
                                                 env={"LETS_SESSION_ID": SID})
    assert "merge branch     trunk (from default: the branch HEAD names, which has no " \
        "commit yet)" in doctor.stdout, doctor.stdout
    assert doctor.returncode == 0, doctor.stdout  # nothing to fix in a new repository
    for command, done in results.items():
        assert "master" not in done.stdout + done.stderr, (command, done.stdout, done.stderr)


# -- a shallow clone (no merge-base) -------------------------------------------------------

@pytest.fixture
def shallow(tmp_path: Path) -> tuple[Sandbox, Path]:
    origin = Sandbox(tmp_path / "origin")
    for i in range(3):
        origin.commit(f"main {i}", age_days=5)
    origin.git.checkout("-q", "-b", "feat")
    for i in range(3):
        origin.commit(f"feat {i}", age_days=2)
    origin.git.checkout("-q", "main")
    origin.commit("main moves on", age_days=1)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--no-single-branch", "--branch",
                    "feat", f"file://{origin.path}", str(clone)], check=True)
    return origin, clone


def test_shallow_clone_without_a_merge_base_is_none_with_a_note(
        shallow: tuple[Sandbox, Path]) -> None:
    _, clone = shallow
    result = boundary(clone)
    assert (result["trust"], result["commits"]) == ("none", None)
    assert "no usable session boundary" in str(result["stderr"])


def test_shallow_clone_boundary_beyond_the_cut_is_rejected_clearly(
        shallow: tuple[Sandbox, Path]) -> None:
    origin, clone = shallow
    write_task(clone, "feat", f"session: {origin.rev('feat~2')} {SID}\n")  # not fetched
    result = boundary(clone)
    assert result["trust"] == "none"
    assert result["reason"] == "not a commit in this repository"


def test_shallow_clone_boundary_inside_the_clone_is_exact(
        shallow: tuple[Sandbox, Path]) -> None:
    origin, clone = shallow
    write_task(clone, "feat", f"session: {origin.rev('feat')} {SID}\n")
    result = boundary(clone)
    assert (result["trust"], result["boundary"], result["commits"]) == (
        "exact", origin.rev("feat"), 0)


def test_shallow_clone_every_command(shallow: tuple[Sandbox, Path]) -> None:
    sweep(shallow[1])


# -- a bare repository ---------------------------------------------------------------------

@pytest.fixture
def bare(sandbox: Sandbox, tmp_path: Path) -> Path:
    sandbox.commit("main tip", age_days=2)
    sandbox.git.checkout("-q", "-b", "feat")
    sandbox.commit("work", age_days=1)
    path = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(sandbox.path), str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "symbolic-ref", "HEAD", "refs/heads/feat"],
                   check=True)
    return path


def test_bare_repository_reads_no_state_and_says_so(bare: Path) -> None:
    write_task(bare, "feat", "session: " + "a" * 40 + f" {SID}\n")  # must not be read
    result = boundary(bare)
    assert result["trust"] == "estimate"  # nothing read; the branch point is still known
    assert result["commits"] == 1
    assert "no work tree here" in str(result["stderr"])
    assert result["recorded"] is None


def test_bare_repository_every_command(bare: Path) -> None:
    results = sweep(bare)
    assert results["lets-hooks record"].returncode == 1
    assert "no work tree" in results["lets-hooks record"].stderr
    assert "no work tree" in results["lets-hooks lint"].stderr


def test_inside_dot_git_reads_no_state(sandbox: Sandbox) -> None:
    start = sandbox.commit("fresh", age_days=1)
    write_task(sandbox.path, "main", f"session: {start} {SID}\n")
    outside = boundary(sandbox.path, "--branch", "main")
    inside = boundary(sandbox.path / ".git", "--branch", "main")
    assert outside["trust"] == "exact"
    assert inside["trust"] == "none"
    assert "no work tree here" in str(inside["stderr"])
    # lint checks nothing inside .git: it says so and exits 2, never passes (docs/lint.md)
    sweep(sandbox.path / ".git", {"lets-hooks lint": {2}})


def test_a_work_tree_named_to_git_is_read_from_outside_it(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """With ``GIT_DIR`` and ``GIT_WORK_TREE`` set (a bare-repository dotfiles setup, a
    tool's own environment), or ``core.worktree`` in the git dir's config (a submodule's
    git dir has it), git works on the named work tree from outside it; so does the
    command: its state is read there, and the answer is the one given at its top. Inside
    ``.git`` with nothing named, still no work tree."""
    start = sandbox.commit("fresh", age_days=1)
    sandbox.commit("session work", age_days=0, sid=SID)
    write_task(sandbox.path, "main", f"session: {start} {SID}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = {"LETS_SESSION_ID": SID, "GIT_DIR": str(sandbox.path / ".git"),
             "GIT_WORK_TREE": str(sandbox.path)}
    done = run(elsewhere, "lets-session-boundary", "--json", env=named)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    outside = json.loads(done.stdout)
    at_top = boundary(sandbox.path)
    assert (outside["trust"], outside["commits"]) == ("exact", 1), done.stderr
    assert (outside["boundary"], outside["desc"]) == (at_top["boundary"], at_top["desc"])
    assert "no work tree here" not in done.stderr
    assert "no work tree here" in str(boundary(sandbox.path / ".git")["stderr"])
    sandbox.git.config("core.worktree", str(sandbox.path))  # named by the config alone
    del named["GIT_WORK_TREE"]
    done = run(elsewhere, "lets-session-boundary", "--json", env=named)
    configured = json.loads(done.stdout)
    assert (configured["trust"], configured["boundary"], configured["desc"]) == (
        "exact", at_top["boundary"], at_top["desc"]), done.stderr


# -- a linked worktree ---------------------------------------------------------------------

def test_linked_worktree_reads_its_own_state(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.commit("main tip", age_days=2)
    wt = tmp_path / "wt"
    sandbox.git.worktree("add", "-q", "-b", "wt", str(wt))
    start = sandbox.rev("wt")
    subprocess.run(["git", "-C", str(wt), "commit", "-q", "--allow-empty", "-m", "w"],
                   check=True)
    note_made(wt, [str(sandbox.git.rev_parse("wt"))], SID)  # the session made it
    write_task(wt, "wt", f"session: {start} {SID}\n")
    write_task(sandbox.path, "wt", "session: " + "b" * 40 + f" {SID}\n")  # the other tree's
    result = boundary(wt)
    assert (result["trust"], result["boundary"], result["commits"]) == ("exact", start, 1)
    results = sweep(wt)
    assert results["lets-hooks lint"].returncode == 0


def test_linked_worktree_record_writes_in_its_own_lets(sandbox: Sandbox,
                                                       tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    sandbox.git.worktree("add", "-q", "-b", "wt", str(wt))
    subprocess.run(["git", "-C", str(wt), "commit", "-q", "--allow-empty", "-m", "w"],
                   check=True)
    done = run(wt, "lets-hooks", "record", "--sid", SID)
    assert done.returncode == 0, done.stderr
    assert (wt / ".lets" / "sessions" / ".task-wt").exists()
    assert not (sandbox.path / ".lets").exists()


def test_linked_worktree_lint_sees_tracked_state(sandbox: Sandbox, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    sandbox.git.worktree("add", "-q", "-b", "wt", str(wt))
    write_task(wt, "wt", "session: abcdef0\n")
    subprocess.run(["git", "-C", str(wt), "add", "-f", ".lets"], check=True)
    done = run(wt, "lets-hooks", "lint")
    assert done.returncode == 1
    assert done.stdout.startswith(".lets/sessions/.task-wt: tracked by git")


# -- a submodule ---------------------------------------------------------------------------

@pytest.fixture
def submodule(sandbox: Sandbox, tmp_path: Path) -> tuple[Sandbox, Path]:
    lib = Sandbox(tmp_path / "lib")
    lib.commit("lib root", age_days=3)
    lib.commit("lib tip", age_days=1)
    sandbox.git.submodule("add", "-q", str(lib.path), "sub")
    sandbox.git.commit("-q", "-m", "add sub")
    sub = sandbox.path / "sub"
    subprocess.run(["git", "-C", str(sub), "checkout", "-q", "-b", "feat"], check=True)
    lib.repo.close()
    return sandbox, sub


def test_submodule_reads_its_own_state_not_the_superprojects(
        submodule: tuple[Sandbox, Path]) -> None:
    sandbox, sub = submodule
    start = subprocess.run(["git", "-C", str(sub), "rev-parse", "HEAD"], check=True,
                           capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "-C", str(sub), "commit", "-q", "--allow-empty", "-m", "s"],
                   check=True)
    note_made(sub, [subprocess.run(["git", "-C", str(sub), "rev-parse", "HEAD"], check=True,
                                   capture_output=True, text=True).stdout.strip()], SID)
    write_task(sub, "feat", f"session: {start} {SID}\n")
    write_task(sandbox.path, "feat", "session: " + "c" * 40 + f" {SID}\n")  # a decoy
    result = boundary(sub)
    assert (result["trust"], result["boundary"], result["commits"]) == ("exact", start, 1)
    sweep(sub)
    sweep(sandbox.path)


def test_submodule_record_writes_in_the_submodule(submodule: tuple[Sandbox, Path]) -> None:
    sandbox, sub = submodule
    done = run(sub, "lets-hooks", "record", "--sid", SID)
    assert done.returncode == 0, done.stderr
    assert (sub / ".lets" / "sessions" / ".task-feat").exists()
    assert not (sandbox.path / ".lets").exists()
    assert run(sandbox.path, "lets-hooks", "lint").returncode == 0


# -- core.hooksPath ------------------------------------------------------------------------

def test_hooks_path_is_honoured_and_an_existing_hook_still_runs(tmp_path: Path) -> None:
    box: HookBox = make(tmp_path)
    hooks = box.path / ".githooks"
    hooks.mkdir()
    mine = hooks / "post-checkout"
    mine.write_text('#!/bin/sh\necho "$3" >> "$(git rev-parse --show-toplevel)/ran"\n')
    mine.chmod(0o755)
    box.git.config("core.hooksPath", ".githooks")
    # a folder of this clone only: one git would commit needs install's --hooks-dir-ok
    (box.path / ".git" / "info" / "exclude").write_text(".githooks/\n")
    box.install()
    assert (hooks / "post-checkout.pre-lets").exists()
    assert not (box.path / ".git" / "hooks" / "post-checkout").exists()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    assert (box.path / "ran").read_text() == "1\n"
    assert box.line("feat") == f"{box.head()} {SID}"
    assert box.field(SID, "SESSION_TRUST") == "exact"
    sweep(box.path)


# -- a detached HEAD in the middle of a rebase ---------------------------------------------

@pytest.fixture
def rebasing(tmp_path: Path) -> HookBox:
    """Stopped at an ``edit`` of a rebase of a two-commit session onto a moved main."""
    box = make(tmp_path)
    box.install()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    box.file_commit("a.txt", "a\n", sid=SID)
    box.file_commit("b.txt", "b\n", sid=SID)
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("main.txt", "moved\n")
    box.sh("checkout", "-q", "feat", sid=SID)
    done = box.sh("rebase", "-q", "-i", "main", sid=SID, check=False,
                  extra={"GIT_SEQUENCE_EDITOR": "sed -i -e 1s/^pick/edit/"})
    assert done.returncode == 0, done.stderr
    assert box.git.branch("--show-current") == ""  # detached, mid-rebase
    return box


def test_detached_mid_rebase_is_none_with_the_detached_note(rebasing: HookBox) -> None:
    result = boundary(rebasing.path)
    assert (result["trust"], result["boundary"], result["commits"]) == ("none", None, None)
    assert result["desc"] == "boundary unknown - detached HEAD"
    assert "detached HEAD" in str(result["stderr"])


def test_detached_mid_rebase_every_command(rebasing: HookBox) -> None:
    before = rebasing.line("feat")
    results = sweep(rebasing.path)
    assert results["lets-hooks record"].returncode == 1
    assert "detached" in results["lets-hooks record"].stderr
    assert rebasing.line("feat") == before  # nothing written while detached


def test_after_the_rebase_the_range_is_exact_again(rebasing: HookBox) -> None:
    rebasing.sh("rebase", "--continue", sid=SID, extra={"GIT_EDITOR": "true"})
    assert rebasing.git.branch("--show-current") == "feat"
    fields = rebasing.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "exact", fields
    assert fields["SESSION_COMMITS"] == "2"
    assert fields["SESSION_BOUNDARY"] == rebasing.rev("main")


def test_a_rebase_stopped_by_a_conflict_then_aborted_changes_nothing(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    box.file_commit("base.txt", "feat's\n")
    line = box.line("feat")
    box.sh("checkout", "-q", "main", sid=SID)
    box.file_commit("base.txt", "main's\n")
    box.sh("checkout", "-q", "feat", sid=SID)
    stopped = box.sh("rebase", "-q", "main", sid=SID, check=False)
    assert stopped.returncode != 0  # the conflict, not a hook
    assert "Traceback" not in stopped.stderr
    assert boundary(box.path)["desc"] == "boundary unknown - detached HEAD"
    sweep(box.path)
    box.sh("rebase", "--abort", sid=SID)
    assert box.line("feat") == line
    assert box.field(SID, "SESSION_TRUST") == "exact"


@given(shas=st.lists(st.text("0123456789abcdef-", min_size=1, max_size=64), max_size=20),
       last=st.booleans())
def test_an_answer_of_one_sha_a_line_is_split_on_line_breaks(shas: list[str], last: bool) -> None:
    """git's one-sha-a-line answers are split on line breaks only: the same list as a
    split on any blank, with or without the last line's break, and none for no answer."""
    from lets_hooks.repo import _lines

    text = "\n".join(shas) + ("\n" if last and shas else "")
    assert _lines(text) == text.split()
