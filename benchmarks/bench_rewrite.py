"""Time post-rewrite when a rebase replays many commits from below the boundary.

    python benchmarks/bench_rewrite.py [--commits 10000] [--session 10] [--runs 5]

``git rebase main`` on a long branch whose session began near its tip, or ``git rebase
--root``, replays every commit of the branch: all but the last few are from before the
boundary. The hook then sorts each copy and finds the newest copy of a pre-session commit
(the new boundary). This measures that work on its own, without the hours a real rebase
of 10,000 commits takes: the old branch and its copies are written with ``git
fast-import`` (the copies on a moved main, same messages and trees), ``ORIG_HEAD`` and the
branch are set as a finished rebase leaves them, and the installed ``lets-hooks
post-rewrite rebase`` is run with the old -> new pairs on stdin, as git runs it.

Two shapes, each timed ``--runs`` times (median, min, max), the boundary checked after
every run: ``rebase main`` (the boundary ``--session`` commits below the tip: it must move
to its own copy) and ``rebase --root``-like (the boundary at the tip, nothing of the
session above it: it must move to the tip's copy). Goal: under 1 s for 10,000.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import command

SESSION_ID = "bench-session"


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          input=stdin).stdout.decode()


def chain(branch: str, base: str, count: int, mark0: int, now: int) -> str:
    """fast-import commands for ``count`` commits on ``branch`` from ``base``, marked
    ``mark0 + k``; commit k has the same message, author and file whichever chain it is
    in (a copy keeps what a pick keeps)."""
    out = [f"reset refs/heads/{branch}\nfrom {base}\n"]
    for k in range(count):
        body = f"commit {k}\n"
        out.append(f"commit refs/heads/{branch}\nmark :{mark0 + k}\n"
                   f"author Bench <bench@example.com> {now + k} +0000\n"
                   f"committer Bench <bench@example.com> {now + k} +0000\n"
                   f"data {len(body)}\n{body}"
                   f"M 644 inline f.txt\ndata {len(body)}\n{body}\n")
    return "".join(out)


def build(repo: Path, count: int) -> tuple[list[str], list[str]]:
    """A repository with ``old`` (``count`` commits off main's parent) and ``new`` (their
    copies on main): (old shas, new shas), oldest first."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Bench")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "commit", "-q", "--allow-empty", "-m", "root")
    git(repo, "commit", "-q", "--allow-empty", "-m", "main moved")
    now = int(time.time()) - 2 * count - 600
    marks = repo / ".git" / "bench-marks"
    script = chain("old", "main~1", count, 1, now) + chain("new", "main", count, count + 1, now)
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet",
                    f"--export-marks={marks}"], input=script.encode(), check=True)
    found = dict(line.split() for line in marks.read_text().splitlines())
    old = [found[f":{1 + k}"] for k in range(count)]
    new = [found[f":{count + 1 + k}"] for k in range(count)]
    git(repo, "checkout", "-q", "-f", "-B", "feat", new[-1])
    return old, new


def line(repo: Path) -> str:
    task = repo / ".lets" / "sessions" / ".task-feat"
    return next(row.split()[1] for row in task.read_text().splitlines()
                if row.startswith("session: "))


def time_hook(repo: Path, lets: str, old: list[str], new: list[str], boundary: int,
              runs: int, cpu: list[float]) -> list[float]:
    """Run post-rewrite ``runs`` times with the boundary at ``old[boundary]``; check it
    lands on ``new[boundary]`` each time. Wall-clock seconds; the CPU seconds of the hook
    and its git processes go to ``cpu`` (on a busy machine they tell the work apart from
    the waiting)."""
    pairs = "".join(f"{o} {n}\n" for o, n in zip(old, new)).encode()
    onto = git(repo, "rev-parse", "main").strip()
    env = dict(os.environ, LETS_SESSION_ID=SESSION_ID)
    sessions = repo / ".lets" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    samples = []
    for _ in range(runs):
        (sessions / ".task-feat").write_text(
            f"session: {old[boundary]} {SESSION_ID}\n"
            f"session-recorded: {old[boundary]} {stamp}\n")
        git(repo, "update-ref", "ORIG_HEAD", old[-1])
        # what git keeps while the hook runs (the merge backend): onto, the old tip, the
        # branch
        state = repo / ".git" / "rebase-merge"
        state.mkdir(exist_ok=True)
        (state / "onto").write_text(onto + "\n")
        (state / "orig-head").write_text(old[-1] + "\n")
        (state / "head-name").write_text("refs/heads/feat\n")
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run([lets, "post-rewrite", "rebase"], cwd=repo, env=env,
                              input=pairs, capture_output=True, check=False)
        samples.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
        shutil.rmtree(state)
        assert done.returncode == 0, done.stderr
        assert line(repo) == new[boundary], (done.stderr.decode(), line(repo))
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--session", type=int, default=10,
                        help="session commits above the boundary in the 'rebase main' shape")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    lets = command("lets-hooks")
    with tempfile.TemporaryDirectory(prefix="bench-rewrite-") as scratch:
        repo = Path(scratch) / "repo"
        began = time.perf_counter()
        old, new = build(repo, args.commits)
        print(f"== post-rewrite, {args.commits} commits replayed, {args.runs} runs each "
              f"(built in {time.perf_counter() - began:.1f} s) ==")
        shapes = (("rebase main, session of " + str(args.session),
                   args.commits - 1 - args.session),
                  ("rebase --root shape, boundary at the tip", args.commits - 1))
        worst = 0.0
        for name, boundary in shapes:
            cpu: list[float] = []
            samples = time_hook(repo, lets, old, new, boundary, args.runs, cpu)
            mid = statistics.median(samples)
            worst = max(worst, mid)
            print(f"{name:45s} median {mid * 1000:7.1f} ms  min {min(samples) * 1000:7.1f}"
                  f"  max {max(samples) * 1000:7.1f}  CPU median "
                  f"{statistics.median(cpu) * 1000:7.1f} ms")
        per = worst / args.commits * 1e6
        print(f"slowest median {worst * 1000:.0f} ms, {per:.1f} us a commit "
              f"(goal: under 1 s for 10,000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
