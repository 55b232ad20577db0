"""pre-push through real ``git push`` to a local bare remote."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import OTHER, SID, note_made
from hookbox import HookBox, with_remote

from lets_hooks import config, ladder


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = with_remote(tmp_path)
    # feat-good: recorded by this session; feat-bad: a boundary that is not a commit;
    # feat-none: nothing recorded at all
    for name in ("feat-good", "feat-bad", "feat-none"):
        made.sh("checkout", "-q", "-b", name, "main", sid=SID)
        made.file_commit(f"{name}.txt", "work\n")
    made.write_task("feat-bad", "session: " + "c" * 40 + f" {SID}\n")
    os.unlink(made.task("feat-none"))
    made.sh("checkout", "-q", "feat-good", sid=SID)
    return made


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("lets-hooks: pre-push")]


def on_remote(box: HookBox, branch: str) -> bool:
    done = box.sh("ls-remote", "--heads", "origin", branch)
    return bool(done.stdout.strip())


def test_one_warning_per_branch_and_the_push_succeeds(box: HookBox) -> None:
    done = box.sh("push", "origin", "feat-good", "feat-bad", "feat-none", sid=SID)
    found = warnings(done.stderr)
    assert len(found) == 2, done.stderr
    bad, none = sorted(found)
    assert "branch 'feat-bad'" in bad and "rejected: not a commit in this repository" in bad
    assert "pushed anyway" in bad and "Fix: git switch feat-bad && lets-hooks record" in bad
    assert "branch 'feat-none'" in none and "no session boundary recorded" in none
    assert "estimated from the branch point off main (1 commits)" in none
    assert "Fix: git switch feat-none && lets-hooks record" in none
    assert all(on_remote(box, b) for b in ("feat-good", "feat-bad", "feat-none"))


def test_the_fix_for_a_branch_checked_out_elsewhere_goes_there(box: HookBox,
                                                               tmp_path: Path) -> None:
    """The fix runs on the pushed branch: for one checked out in another work tree it goes
    there (``git switch`` would refuse); a name a shell would read as more than a name is
    quoted."""
    import shlex

    tree = tmp_path / "tree of feat-none"
    box.sh("worktree", "add", "-q", str(tree), "feat-none", sid=SID)
    os.unlink(box.task("feat-none", tree))
    odd = "feat;touch${IFS}hacked"
    box.sh("checkout", "-q", "-b", odd, "main", sid=SID)
    box.file_commit("odd.txt", "odd\n")
    os.unlink(box.task(odd))
    box.sh("checkout", "-q", "feat-good", sid=SID)
    done = box.sh("push", "origin", "feat-none", odd, sid=SID)
    found = warnings(done.stderr)
    assert len(found) == 2, done.stderr
    none, hostile = sorted(found)
    assert f"Fix: cd {shlex.quote(str(tree))} && lets-hooks record" in none, none
    assert f"Fix: git switch {shlex.quote(odd)} && lets-hooks record" in hostile, hostile


def test_the_fix_names_a_branch_as_one_shell_word(box: HookBox) -> None:
    """git allows ``;``, ``$(`` and a leading dash (through ``update-ref``) in a branch name:
    the fix said ``git switch a;b$(c) && ...``, which a shell reads as two commands and a
    substitution, and ``git switch -d`` as an option."""
    for name in ("a;b$(c)", "-d"):
        box.sh("update-ref", f"refs/heads/{name}", "feat-none")
    done = box.sh("push", "origin", "refs/heads/a;b$(c):refs/heads/x1",
                  "refs/heads/-d:refs/heads/x2", sid=SID)
    fixes = sorted(line.split("Fix: ", 1)[1].split(" && ")[0]
                   for line in warnings(done.stderr))
    assert fixes == ["git switch 'a;b$(c)'", "git switch -- -d"], done.stderr


def test_pushing_one_good_branch_is_quiet(box: HookBox) -> None:
    done = box.sh("push", "-q", "origin", "feat-good", sid=SID)
    assert "lets-hooks" not in done.stderr


def test_pushing_the_checked_out_branch_names_the_short_fix(box: HookBox) -> None:
    box.sh("checkout", "-q", "feat-bad")
    done = box.sh("push", "-q", "origin", "HEAD", sid=SID)
    (line,) = warnings(done.stderr)
    assert "Fix: lets-hooks record --at REV" in line, line


def test_deleting_a_remote_branch_is_not_checked(box: HookBox) -> None:
    box.sh("push", "-q", "origin", "feat-bad", sid=SID)
    done = box.sh("push", "-q", "origin", ":feat-bad", sid=SID)
    assert warnings(done.stderr) == []
    assert not on_remote(box, "feat-bad")


def test_strict_blocks_a_rejected_boundary_only(box: HookBox) -> None:
    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    done = box.sh("push", "origin", "feat-bad", "feat-good", sid=SID, check=False)
    assert done.returncode != 0
    (line,) = warnings(done.stderr)
    assert "'feat-bad'" in line and "push blocked (pre_push.strict)" in line
    assert not on_remote(box, "feat-bad") and not on_remote(box, "feat-good")
    done = box.sh("push", "origin", "feat-none", sid=SID)  # an estimate only warns
    assert len(warnings(done.stderr)) == 1 and on_remote(box, "feat-none")


def test_strict_set_in_pyproject(box: HookBox) -> None:
    (box.path / "pyproject.toml").write_text("[tool.lets.pre_push]\nstrict = true\n")
    done = box.sh("push", "origin", "feat-bad", sid=SID, check=False)
    assert done.returncode != 0 and not on_remote(box, "feat-bad")


def test_pre_commit_environment_checks_its_one_branch(box: HookBox) -> None:
    env = {"PRE_COMMIT": "1", "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/feat-bad",
           "PRE_COMMIT_TO_REF": box.rev("feat-bad"), "PRE_COMMIT_REMOTE_NAME": "origin",
           "LETS_SESSION_ID": SID}
    done = box.run("lets-hooks", "pre-push", env=env)
    assert done.returncode == 0
    (line,) = warnings(done.stderr)
    assert "'feat-bad'" in line
    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    assert box.run("lets-hooks", "pre-push", env=env).returncode == 1
    # pushing a root commit: pre-commit sets no TO_REF; the branch tip is used
    del env["PRE_COMMIT_TO_REF"]
    assert box.run("lets-hooks", "pre-push", env=env).returncode == 1


def test_branch_checked_out_in_another_worktree_uses_that_worktrees_state(
        box: HookBox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), "main", sid=SID)
    box.sh("commit", "-q", "--allow-empty", "-m", "wt work", sid=SID, cwd=linked)
    assert box.line("wt", root=linked) is not None
    done = box.sh("push", "-q", "origin", "wt", sid=SID)
    assert warnings(done.stderr) == []


# -- many branches -------------------------------------------------------------------------

KINDS = ("session", "earlier", "none", "bad")  # this session's line, another's, none, not a commit


def many_branches(box: HookBox, count: int) -> dict[str, str]:
    """``count`` branches off main in one ``fast-import``, one or two commits each, every
    tenth on the same commit as the one before (the same line pushed under two names);
    by ``KINDS`` in turn: a line of this session (its commits in the ledger), another
    session's, none, one naming no commit. Branch -> tip."""
    import time

    base = box.rev("main")
    now = int(time.time()) - 600
    stream = []
    for i in range(count):
        name = f"many/{i:03d}"
        if i % 10 == 9:
            stream.append(f"reset refs/heads/{name}\nfrom refs/heads/many/{i - 1:03d}\n\n")
            continue
        stream.append(f"reset refs/heads/{name}\nfrom {base}\n\n")
        for k in range(1 + i % 2):
            stream.append(f"commit refs/heads/{name}\ncommitter T <t@example.com> "
                          f"{now + k} +0000\ndata 4\nw{k:02d}\n\n")
    done = subprocess.run(["git", "fast-import", "--quiet"], cwd=box.path, check=False,
                          input="".join(stream).encode(), capture_output=True)
    assert done.returncode == 0, done.stderr
    tips = {}
    for line in box.sh("for-each-ref", "--format=%(refname:short) %(objectname)",
                       "refs/heads/many/").stdout.splitlines():
        name, sha = line.split()
        tips[name] = sha
    made = []
    for i, name in enumerate(sorted(tips)):
        kind = KINDS[i % 4]
        if kind == "session":
            box.write_task(name, f"session: {base} {SID}\n")
            made += box.sh("rev-list", f"{base}..{name}").stdout.split()
        elif kind == "earlier":
            box.write_task(name, f"session: {base} {OTHER}\n")
        elif kind == "bad":
            box.write_task(name, f"session: {'c' * 40} {SID}\n")
    note_made(box.path, sorted(set(made)), SID)
    return tips


def test_many_branches_each_answered_as_the_ladder_answers_it_alone(box: HookBox) -> None:
    """300 branches pushed at once (some lines given again): each distinct line warned of
    once, with the words it gets when pushed alone (the ladder's answer for it), and the
    strict verdict the same; the trust answers cover all four kinds."""
    import time

    from lets_hooks import hooks
    from lets_hooks.repo import Repo

    tips = many_branches(box, 300)
    env = {"LETS_SESSION_ID": SID, "PATH": os.environ["PATH"]}
    lines = [f"refs/heads/{name} {sha} refs/heads/{name} {'0' * 40}\n"
             for name, sha in sorted(tips.items())]
    now = int(time.time())
    argv = ["origin", str(box.path.parent / "remote.git")]
    cwd = str(box.path)
    alone = [hooks.pre_push(argv, line.encode(), env, now, cwd) for line in lines]
    expected = [m for result in alone for m in result.messages]
    together = hooks.pre_push(argv, "".join(lines + lines[::7] + lines[:3]).encode(), env,
                              now, cwd)
    assert together.messages == expected
    assert together.code == 0
    answers = [ladder.resolve(Repo(cwd), config.load(cwd, env), SID, now, branch=name,
                              head=sha) for name, sha in tips.items()]
    assert {(b.trust, b.reason is not None) for b in answers} == {
        (ladder.EXACT, False), (ladder.PRIOR, False), (ladder.ESTIMATE, False),
        (ladder.ESTIMATE, True)}  # the last: rejected, then estimated
    assert sum("rejected" in m for m in expected) == 75
    assert sum("only estimated" in m for m in expected) == 75

    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    alone = [hooks.pre_push(argv, line.encode(), env, now, cwd) for line in lines]
    together = hooks.pre_push(argv, "".join(lines * 2).encode(), env, now, cwd)
    assert together.messages == [m for result in alone for m in result.messages]
    assert together.code == 1 == max(result.code for result in alone)

    # and as git hands them over, every branch once
    (box.path / ".lets" / "config.toml").unlink()
    done = box.sh("push", "origin", "refs/heads/many/*:refs/heads/many/*", sid=SID)
    assert warnings(done.stderr) == expected
