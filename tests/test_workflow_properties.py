"""Generated days of work: sequences of a teammate's pushes and merges, pulls of every form,
rebases, merges, new branches, renames, detached commits and the session's own commits,
with ``workflows``' invariant checked after every step.

The session starts on ``main`` (its first touch) and every branch it works on is one it
touched, so wherever HEAD is on a branch the answer is knowable (SPEC sections 3 and 4) and
must be ``exact``, counting exactly the marked commits on HEAD, with one exception the
SPEC makes: its floor (section 3, rung 4) rejects a line below where HEAD's first-parent
line meets main, as when a topic with no commits of its own is fast-forwarded onto main;
the answer then degrades with a NOTE (unless the session's own commits reached main
through its pull request: then the floor must not reject, and ``exact`` is required).
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
from workflows import World

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
)
PHASES = (Phase.explicit, Phase.reuse, Phase.generate) + (
    (Phase.shrink,) if os.environ.get("LETS_WORKFLOW_SHRINK") == "1" else ())


class Day:
    """Plays ops on a world; an op that does not apply where HEAD is does nothing."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.serial = 0

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
        for stopped in ("rebase-merge", "rebase-apply", "MERGE_HEAD"):
            assert not (git_dir / stopped).exists(), self.w.recipe(f"left {stopped} behind")

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
        else:  # pragma: no cover - the op list and this table are kept together
            raise AssertionError(op)
        self.settle()
        return True

    def check(self) -> None:
        """The invariant; ``exact`` on a branch, except where SPEC section 3's floor
        rejects the recorded line (a topic fast-forwarded onto main: the script rejects it
        too), which is then held to the invariant only."""
        got = self.w.check(must_exact=False)
        if self.w.branch() is None or got.trust == "exact":
            return
        recorded = got.data.get("recorded")
        if isinstance(recorded, str) and got.data.get("reason") and self.w.floor_rejects(
                recorded):
            return
        self.w.check(must_exact=True)


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
