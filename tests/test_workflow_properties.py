"""Generated days of work: sequences of a teammate's pushes and merges, pulls of every form,
rebases, merges, new branches, renames, detached commits and the session's own commits,
and the everyday rewrites and copies (cherry-picks of the session's and the teammate's
commits, reverts, resets then new commits, amends, ``--fixup`` with ``rebase -i
--autosquash``, ``merge --squash``, a stash around a commit, a second work tree, ``git
am``, branches moved, copied, deleted and made again), with ``workflows``' invariant
checked after every step.

The session starts on ``main`` (its first touch) and every branch it works on is one it
touched, so wherever HEAD is on a branch the answer is knowable (SPEC sections 3 and 4) and
must be ``exact``, counting exactly the marked commits on HEAD, with one exception the
SPEC makes: its floor (section 3, rung 4) rejects a line below where HEAD's first-parent
line meets main, as when a topic with no commits of its own is fast-forwarded onto main;
the answer then degrades with a NOTE (unless the session's own commits reached main
through its pull request: then the floor must not reject, and ``exact`` is required).
After a step that may rightly leave no knowable line (``DEGRADING``: a reset below the
boundary, an amend of another's commit, a branch moved onto another line) the rest of the
day is held to the invariant only.
On a detached HEAD the answer is ``none`` with a NOTE. A failure prints the generated
sequence (the op names) and the recipe: every git command run, and the graph of my clone.

Measured on a 2-core machine: 3 to 4 s an example (a world of three repositories,
then up to fifteen steps of a few git commands and hook processes each, and one
``lets-session-boundary`` per step), so the module takes about two minutes. Shrinking a
failure would run hundreds more examples: it is off unless ``LETS_WORKFLOW_SHRINK=1``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from workflows import MARK, MIXED, World

EXAMPLES = 35
PARTS = 5  # run apart (each part its own fixed days), so the test workers share them
# Weighted by repetition: the steps that put other people's commits in the range (a
# teammate's pushes, pulls, merges of main and of ``lib``) come often enough that most
# days see some.
OPS = (
    "commit", "commit", "commit", "push", "push", "push",
    "mate-topic", "mate-topic", "mate-main", "mate-main", "mate-pr", "mate-pr", "mate-lib",
    "pull-ff", "pull-ff", "pull-merge", "pull-merge", "pull-rebase", "pull-rebase",
    "pull-main", "pull-main",
    "rebase-origin", "rebase-merges", "rebase-local-main", "merge-lib", "merge-lib",
    "fetch-main", "switch-c", "checkout-b", "checkout-B", "rename", "detach", "switch-main",
    "switch-back", "main-mistake",
    # the everyday rewrites and moves of one's own work, and copies of others'
    "cherry-pick-own", "cherry-pick-mate", "revert", "reset-hard", "reset-soft", "amend",
    "amend", "fixup", "merge-squash", "stash", "worktree", "switch-C", "branch-f",
    "recreate", "detach-at", "undo", "switch-c-remote", "branch-copy", "am",
    "merge-no-commit", "worktree-main", "person-commit", "person-amend", "push-force",
    "mate-pr-squash", "commit-unhooked",
)
# After these the answer may rightly degrade (a boundary left off HEAD's history by a
# reset or a moved branch, a mixed commit, a commit no hook saw, a squash merge of the
# topic that a later pull --rebase replays main's commits over): the rest of the day is held to the
# invariant only, never to ``exact``.
DEGRADING = ("reset-hard", "reset-soft", "amend", "switch-C", "branch-f", "recreate",
             "worktree", "worktree-main", "undo", "person-amend", "mate-pr-squash",
             "commit-unhooked")
PHASES = (Phase.explicit, Phase.reuse, Phase.generate) + (
    (Phase.shrink,) if os.environ.get("LETS_WORKFLOW_SHRINK") == "1" else ())


class Day:
    """Plays ops on a world; an op that does not apply where HEAD is does nothing."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.serial = 0
        self.relaxed = False  # a DEGRADING op ran: only the invariant holds now

    def name(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    def remote_has(self, branch: str) -> bool:
        return bool(self.w.read("ls-remote", "--heads", "origin", branch))

    def upstream(self) -> str | None:
        done = self.w.run("me", "rev-parse", "--abbrev-ref", "@{upstream}", check=False,
                          log=False)
        return done.stdout.strip() if done.returncode == 0 else None

    def pushed_topic(self) -> str | None:
        """The current branch's topic on the remote, else any pushed topic."""
        heads = self.w.read("ls-remote", "--heads", "origin").splitlines()
        topics = sorted(line.split("refs/heads/", 1)[1] for line in heads
                        if not line.endswith("refs/heads/main")
                        and not line.endswith("refs/heads/lib"))
        here = self.w.branch()
        if here in topics:
            return here
        return topics[0] if topics else None

    def settle(self) -> None:
        """No op leaves a rebase or merge stopped (every commit adds a file of its own, so
        nothing conflicts): if one did, that is a failure of the workflow, said plainly."""
        git_dir = self.w.me / ".git"
        for stopped in ("rebase-merge", "rebase-apply", "MERGE_HEAD", "sequencer"):
            assert not (git_dir / stopped).exists(), self.w.recipe(f"left {stopped} behind")
        for stopped in ("CHERRY_PICK_HEAD", "REVERT_HEAD"):  # a ref in reftable's store
            assert not self.has(stopped), self.w.recipe(f"left {stopped} behind")

    def play(self, op: str) -> bool:
        """Do ``op``; False when it does not apply here (nothing was run)."""
        w = self.w
        branch = w.branch()
        if op == "commit":
            w.commit()
        elif op == "push":
            if branch is None:
                return False
            w.push(check=False)  # a rejected (non-fast-forward) push is part of the day
        elif op == "mate-topic":
            name = self.pushed_topic()
            if name is None:
                return False
            w.mate_push(name, 1)
        elif op == "mate-main":
            w.mate_push("main", 1)
        elif op == "mate-pr":
            name = self.pushed_topic()
            if name is None:
                return False
            w.mate_merge_pr(name)
        elif op == "mate-lib":
            w.mate_push("lib", 1, base=None if self.remote_has("lib") else "origin/main")
        elif op in ("pull-ff", "pull-merge", "pull-rebase"):
            if branch is None or self.upstream() is None:
                return False
            form = {"pull-ff": "ff-only", "pull-merge": "merge", "pull-rebase": "rebase"}[op]
            w.pull(form, check=form != "ff-only")  # ff-only refuses diverged histories
        elif op == "pull-main":
            if branch is None:
                return False
            w.pull("merge", "origin", "main")
        elif op in ("rebase-origin", "rebase-merges"):
            if branch is None:
                return False
            w.git("fetch", "-q", "origin")
            flags = ["--rebase-merges"] if op == "rebase-merges" else []
            w.git("rebase", "-q", *flags, "origin/main")
        elif op == "rebase-local-main":
            if branch in (None, "main"):
                return False
            w.git("rebase", "-q", "main")
        elif op == "merge-lib":  # the teammate's branch, grown by one commit, merged in
            if branch is None:
                return False
            w.mate_push("lib", 1, base=None if self.remote_has("lib") else "origin/main")
            w.git("fetch", "-q", "origin")
            w.merge("origin/lib")
        elif op == "fetch-main":
            if branch == "main":
                return False
            w.git("fetch", "-q", "origin", "main:main", check=False)  # refused: not ff
        elif op in ("switch-c", "checkout-b", "checkout-B"):
            command = {"switch-c": ["switch", "-c"], "checkout-b": ["checkout", "-b"],
                       "checkout-B": ["checkout", "-B"]}[op]
            w.git(*command, self.name("b"))
        elif op == "rename":
            if branch in (None, "main"):
                return False
            w.git("branch", "-m", self.name("r"))
        elif op == "detach":
            if branch is None:
                return False
            w.git("checkout", "-q", "--detach")
        elif op == "switch-main":
            if branch == "main":
                return False
            w.git("checkout", "-q", "main")
        elif op == "switch-back":
            if w.run("me", "rev-parse", "-q", "--verify", "@{-1}", check=False,
                     log=False).returncode:
                return False
            w.git("checkout", "-q", "-")
        elif op == "main-mistake":
            if branch != "main" or not w.read("rev-list", "origin/main..main"):
                return False
            w.git("switch", "-q", "-c", self.name("b"))
            w.git("branch", "-f", "main", "origin/main")
        elif not self.play_more(op, branch):
            return False
        self.relaxed = self.relaxed or op in DEGRADING
        self.settle()
        return True

    def subjects(self, *revs: str) -> list[tuple[str, str]]:
        """(sha, subject) of the non-merge commits of ``revs``, newest first."""
        out = self.w.read("log", "--no-merges", "--format=%H %s", *revs, "--")
        return [(row.split(" ", 1)[0], row.split(" ", 1)[1]) for row in out.splitlines()]

    def has(self, rev: str) -> bool:
        return self.w.run("me", "rev-parse", "-q", "--verify", rev + "^{commit}",
                          check=False, log=False).returncode == 0

    def others(self, branch: str | None) -> list[str]:
        """Local branches other than the current one and main."""
        names = self.w.read("for-each-ref", "--format=%(refname:short)", "refs/heads")
        return [name for name in names.split() if name not in (branch, "main")]

    def stopped(self, command: str) -> None:
        """A cherry-pick or revert with nothing left to do (its change is on HEAD already)
        stops: the person gives up on it."""
        head = {"cherry-pick": "CHERRY_PICK_HEAD", "revert": "REVERT_HEAD"}[command]
        if self.has(head) or (self.w.me / ".git" / "sequencer").exists():
            self.w.git(command, "--abort")

    def play_more(self, op: str, branch: str | None) -> bool:
        """The ops of the second tuple of OPS; False where one does not apply."""
        w = self.w
        if op in ("cherry-pick-own", "cherry-pick-mate"):
            # the session's commit from another branch, or a teammate's from the remote;
            # --edit marks the copy: a cherry-pick is a commit the session makes
            own = op == "cherry-pick-own"
            if not own:
                w.git("fetch", "-q", "origin")
            picks = [sha for sha, subject in self.subjects(
                "--branches" if own else "--remotes", "^HEAD") if (MARK in subject) == own]
            if not picks:
                return False
            # the teammate's two oldest at once (the sequencer), one of the session's
            chosen = picks[-2:][::-1] if not own else picks[-1:]
            done = w.git("cherry-pick", "--edit", *chosen, check=False)
            if done.returncode:
                self.stopped("cherry-pick")
        elif op == "revert":  # the newest commit, whoever made it; a merge's first side
            if not self.has("HEAD~1"):
                return False
            merge = self.has("HEAD^2")
            done = w.git("revert", "--edit", *(["-m", "1"] if merge else []), "HEAD",
                         check=False)
            if done.returncode:
                self.stopped("revert")
        elif op == "reset-hard":  # back one or two commits; new ones follow
            back = 1 + self.serial % 2
            self.serial += 1
            if not self.has(f"HEAD~{back + 1}"):
                return False
            w.git("reset", "-q", "--hard", f"HEAD~{back}")
        elif op == "reset-soft":  # the session's last two commits made one again
            top = self.subjects("--first-parent", "-2", "HEAD")
            if (len(top) < 2 or not all(MARK in subject for _, subject in top)
                    or top[1][0] != w.rev("HEAD~1") or not self.has("HEAD~3")
                    or not w.run("me", "diff", "--quiet", "HEAD~2", "HEAD", check=False,
                                 log=False).returncode):  # a commit and its revert
                return False
            w.git("reset", "-q", "--soft", "HEAD~2")
            w.git("commit", "-q", "-m", f"{MARK} {self.name('soft')}")
        elif op in ("amend", "person-amend"):
            # the session amends its commit, or another's (then mixed); a person at a
            # second terminal (no session) amends HEAD: mixed when it was the session's
            if not self.has("HEAD~1"):  # never a new root
                return False
            who = "me" if op == "amend" else "earlier"
            subject = w.read("log", "-1", "--format=%s", "HEAD")
            label = w._file(w.me, "a")
            w.run(who, "add", "--", f"{label}.txt")
            if (MARK in subject) == (who == "me"):  # nothing changes hands
                w.run(who, "commit", "-q", "--amend", "--no-edit")
            else:
                w.run(who, "commit", "-q", "--amend", "-m",
                      f"{MIXED} {subject.replace(MARK, '').replace(MIXED, '').strip()}")
        elif op == "mate-pr-squash":  # the teammate squash-merges a pushed topic
            topic = self.pushed_topic()
            if topic is None:
                return False
            w.mgit("fetch", "-q", "origin")
            w.mgit("checkout", "-q", "-B", "main", "origin/main")
            if w.run("mate", "merge", "-q", "--squash", f"origin/{topic}",
                     check=False).returncode or not w.run(
                         "mate", "diff", "--cached", "--quiet", check=False).returncode:
                w.mgit("reset", "-q", "--hard", "origin/main")  # nothing new to squash
                return True
            w.mgit("commit", "-q", "-m", f"{topic}, squashed")
            w.mgit("push", "-q", "origin", "main")
        elif op == "push-force":  # after a rewrite of what was pushed
            if branch in (None, "main"):
                return False
            # refused when the teammate pushed since the last fetch: part of the day
            w.git("push", "-q", "--force-with-lease", "-u", "origin", "HEAD", check=False)
        elif op == "commit-unhooked":  # the session's commit with git's hooks bypassed
            label = w._file(w.me, "s")
            w.git("add", "--", f"{label}.txt")
            w.git("-c", f"core.hooksPath={w.root / 'no-hooks'}", "commit", "-q", "-m",
                  f"{MARK} {label}")
        elif op == "person-commit":  # a person at a second terminal: no session
            w.old_commit()
        elif op == "fixup":  # git commit --fixup, then rebase -i --autosquash
            if branch is None:
                return False
            line = self.subjects("--first-parent", "-4", "HEAD")
            targets = [sha for sha, subject in line if MARK in subject
                       and self.has(f"{sha}~1")]
            if not targets:
                return False
            label = w._file(w.me, "f")
            w.git("add", "--", f"{label}.txt")
            w.git("commit", "-q", f"--fixup={targets[-1]}")
            w.git("-c", "sequence.editor=true", "rebase", "-q", "-i", "--autosquash",
                  "--empty=drop", f"{targets[-1]}~1")
        elif op == "merge-squash":  # the teammate's branch, squashed into one commit
            if branch is None:
                return False
            w.mate_push("lib", 1, base=None if self.remote_has("lib") else "origin/main")
            w.git("fetch", "-q", "origin")
            w.git("merge", "-q", "--squash", "origin/lib")
            w.git("commit", "-q", "-m", f"{MARK} {self.name('squash')}")
        elif op == "stash":  # work put aside while a commit is made, then committed
            label = w._file(w.me, "u")
            w.git("add", "--", f"{label}.txt")
            w.git("stash", "-q")
            w.commit()
            w.git("stash", "pop", "-q")
            w.git("add", "--", f"{label}.txt")
            w.git("commit", "-q", "-m", f"{MARK} {label}")
        elif op == "worktree":  # a second work tree's branch, committed there, merged here
            if branch is None:
                return False
            name = self.name("w")
            where = w.root / name
            w.git("worktree", "add", "-q", "-b", name, str(where))
            w.commit(cwd=where)
            self.check(cwd=where)
            w.git("worktree", "remove", str(where))
            w.git("merge", "-q", "--ff-only", name)
        elif op == "worktree-main":  # main checked out beside the topic, committed on there
            if branch in (None, "main"):
                return False
            where = w.root / self.name("w")
            w.git("worktree", "add", "-q", str(where), "main")
            w.commit(cwd=where)
            self.check(cwd=where)
            w.git("worktree", "remove", str(where))
        elif op in ("switch-C", "branch-f", "recreate"):  # another branch moved to HEAD
            names = self.others(branch)
            if not names or branch is None:
                return False
            if op == "switch-C":
                w.git("switch", "-q", "-C", names[0])
            elif op == "branch-f":
                w.git("branch", "-f", names[0], "HEAD")
                w.git("switch", "-q", names[0])
            else:
                w.git("branch", "-q", "-D", names[0])
                w.git("switch", "-q", "-c", names[0])
        elif op == "detach-at":  # an older commit checked out, detached
            if not self.has("HEAD~1"):
                return False
            w.git("checkout", "-q", "--detach", "HEAD~1")
        elif op == "undo":  # the last rebase, merge, pull or reset undone
            if branch is None or not self.has("ORIG_HEAD"):
                return False
            w.git("reset", "-q", "--hard", "ORIG_HEAD")
        elif op == "switch-c-remote":  # a new branch from a pushed topic
            pushed = self.pushed_topic()
            if pushed is None:
                return False
            w.git("fetch", "-q", "origin")
            w.git("switch", "-q", "-c", self.name("c"), f"origin/{pushed}")
        elif op == "branch-copy":  # git branch -c: the branch, its config and its log
            if branch is None:
                return False
            copy = self.name("k")
            w.git("branch", "-c", copy)
            w.git("switch", "-q", copy)
        elif op == "am":  # a teammate's commit mailed as a patch, applied by the session
            w.git("fetch", "-q", "origin")
            picks = [sha for sha, subject in self.subjects("--remotes", "^HEAD")
                     if MARK not in subject]
            if not picks:
                return False
            patch = w.root / f"{self.name('patch')}.patch"
            made = w.read("format-patch", "-1", "--stdout", picks[0])
            patch.write_text(made.replace("Subject: [PATCH] ", f"Subject: [PATCH] {MARK} ",
                                          1) + "\n")
            if w.git("am", "-q", "--keep-non-patch", str(patch), check=False).returncode:
                w.git("am", "--abort")
        elif op == "merge-no-commit":  # a merge looked at first, then committed
            if branch is None:
                return False
            w.mate_push("lib", 1, base=None if self.remote_has("lib") else "origin/main")
            w.git("fetch", "-q", "origin")
            w.git("merge", "-q", "--no-ff", "--no-commit", "origin/lib")
            w.git("commit", "-q", "-m", f"{MARK} {self.name('merge')}")
        else:  # pragma: no cover - the op list and this table are kept together
            raise AssertionError(op)
        return True

    def check(self, cwd: Path | None = None) -> None:
        """The invariant; ``exact`` on a branch, except where SPEC section 3's floor
        rejects the recorded line (a topic fast-forwarded onto main: the script rejects it
        too), which is then held to the invariant only, and after a DEGRADING op."""
        got = self.w.check(must_exact=False, cwd=cwd)
        if self.relaxed or self.w.branch(cwd) is None or got.trust == "exact":
            return
        recorded = got.data.get("recorded")
        if isinstance(recorded, str) and got.data.get("reason") and self.w.floor_rejects(
                recorded, cwd):
            return
        self.w.check(must_exact=True, cwd=cwd)


TOPIC = ["switch-c", "commit", "push"]  # how a day on a pushed topic begins


def day(ops: list[str], scratch: Path) -> None:
    work = Path(tempfile.mkdtemp(dir=scratch))
    try:
        world = World(work / "w").build()
        world.config("[pre_push]\nstrict = true\n")  # it must never block an exact answer
        world.steps.append("-- the session starts --")
        world.start("main")
        player = Day(world)
        player.check()
        for op in ops:
            world.steps.append(f"-- {op} --")
            if player.play(op):
                player.check()
            else:
                world.steps[-1] += " (does not apply here: nothing done)"
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("part", range(PARTS))
@settings(max_examples=EXAMPLES // PARTS, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
          print_blob=False, phases=PHASES)
@given(ops=st.tuples(st.booleans(), st.lists(st.sampled_from(OPS), min_size=4, max_size=12)
                    ).map(lambda drawn: (TOPIC if drawn[0] else []) + drawn[1]))
# A day the generator found, kept: a topic with no commits of its own fast-forwarded onto
# main (the floor may reject: a NOTE says so). Another (the pull request merged, the topic
# fast-forwarded to its merge) is test_workflows' own_pr_merged_then_pull_ff.
@example(ops=["mate-main", "checkout-b", "pull-main"])
def test_a_day_of_work_keeps_the_count_honest(part: int, ops: list[str],
                                             tmp_path: Path) -> None:
    day(ops, tmp_path)


def test_a_written_out_day(tmp_path: Path) -> None:
    """One day written out (every kind of step once), so a failure of the generator's
    machinery shows here by name too."""
    day(["switch-c", "commit", "push", "mate-topic", "commit", "pull-rebase", "mate-main",
         "pull-main", "commit", "push", "mate-pr", "pull-ff", "mate-lib", "merge-lib",
         "checkout-b", "commit", "rename", "rebase-origin", "detach", "commit",
         "checkout-B", "rebase-merges", "switch-main", "commit", "main-mistake",
         "fetch-main", "switch-back", "rebase-local-main", "pull-merge"], tmp_path)


def test_a_written_out_day_of_rewrites_and_copies(tmp_path: Path) -> None:
    """The same for the everyday rewrites and copies (each of them once, each applying
    where it stands)."""
    day(["switch-c", "commit", "push", "mate-topic", "pull-merge", "mate-lib",
         "cherry-pick-mate", "checkout-b", "commit", "switch-back", "cherry-pick-own",
         "revert", "stash", "fixup", "merge-squash", "merge-no-commit", "mate-lib", "am",
         "amend", "worktree", "worktree-main", "switch-C", "commit", "branch-f",
         "branch-copy", "recreate", "switch-c-remote", "commit", "detach-at", "commit",
         "switch-c", "commit", "commit", "reset-soft", "reset-hard", "undo"], tmp_path)
