"""Time the hooks and ``status`` on a benchmark repository.

    python benchmarks/make_repo.py /tmp/bench-repo            # or --merge-heavy
    python benchmarks/bench_hooks.py /tmp/bench-repo [--runs 31] [--rebases 7]
        [--commit-graph] [--only checkout|rewrite|stack|status] [--ledger-bytes 4194304]

Works on a copy of the repository (the original is left as it was). Four figures:

1. post-checkout: the median time the plain shim adds to ``git checkout`` (checkouts
   between two branches with the shim installed, minus the same checkouts without it),
   in the steady state (this session's line already there) and on a first touch (a new
   session each time, so the line is rewritten). Goal: under 25 ms.
2. post-rewrite during a real ``git rebase`` of 250 and 1,000 session commits onto a
   moved main: the plain shim as git runs it (inside the rebase, its state in place),
   timed by a wrapper; the boundary must move to the rebase's onto and read ``exact``
   with every commit counted. Goal: under 0.2 s for 1,000. Then 1,000 commits of which
   990 are from below the boundary (it must move to its own copy, 10 counted);
   ``bench_rewrite.py`` takes that shape to 10,000.
3. post-rewrite during ``git rebase --update-refs`` of a 50-branch stack one session
   built from main, each branch's line at the session's start: every branch's boundary
   must move to main, and ``status`` must read every branch ``exact`` with its own
   commits and those below it. Goal: under 1 s.
4. ``lets-hooks status`` over 1,000 extra branches.

Each with the number of git processes it starts (a logging ``git`` first on PATH).
``--commit-graph`` writes git's commit-graph file first, as ``git gc`` does in most
real repositories; without it git walks history from the packs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import command

SESSION_ID = "bench-session"
HERE = Path(__file__).resolve().parent


def git(repo: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
        ) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env, input=stdin).stdout


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def spread(samples: list[float]) -> str:
    """``  (min X, max Y)`` in milliseconds."""
    return f"  (min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f})"


def logging_path(scratch: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    real = shutil.which("git")
    assert real
    log = scratch / "git-calls"
    wrapper = scratch / "bin" / "git"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return dict(env, PATH=f"{wrapper.parent}{os.pathsep}{env['PATH']}"), log


def count_calls(log: Path) -> int:
    n = len(log.read_text().splitlines()) if log.exists() else 0
    if log.exists():
        log.unlink()
    return n


# -- 1. post-checkout ------------------------------------------------------------------

def bench_checkout(repo: Path, lets: str, env: dict[str, str], runs: int,
                   scratch: Path) -> None:
    empty = scratch / "no-hooks"
    empty.mkdir()
    shims = scratch / "shims"
    shims.mkdir()
    from lets_hooks.cli.install import import_folders
    from lets_hooks.install import shim

    # what `lets-hooks install` writes when run by this interpreter
    (shims / "post-checkout").write_text(shim("post-checkout", lets, sys.executable,
                                              import_folders()))
    (shims / "post-checkout").chmod(0o755)
    git(repo, "checkout", "-q", "feature")
    git(repo, "branch", "-f", "other", "feature~1")

    cpu: dict[str, list[float]] = {"plain": [], "hooked": [], "first": []}

    def checkouts(hooks: Path, sid_each_time: bool, kind: str = "") -> list[float]:
        """Wall-clock seconds per checkout; the CPU seconds of git and its hook go to
        ``cpu[kind]`` (on a busy machine they tell the cost apart from the waiting)."""
        import resource

        samples = []
        for i in range(runs):
            for branch in ("other", "feature"):
                run_env = dict(env, LETS_SESSION_ID=f"s{i}-{branch}" if sid_each_time
                               else SESSION_ID)
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                began = time.perf_counter()
                subprocess.run(["git", "-c", f"core.hooksPath={hooks}", "checkout", "-q",
                                branch], cwd=repo, env=run_env, check=True)
                samples.append(time.perf_counter() - began)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if kind:
                    cpu[kind].append(after.ru_utime + after.ru_stime
                                     - used.ru_utime - used.ru_stime)
        return samples

    checkouts(shims, False)  # warm up, and record both branches for this session
    plain, hooked, first_touch = [], [], []
    for _ in range(3):  # interleave, so drift hits all three alike
        plain += checkouts(empty, False, "plain")
        hooked += checkouts(shims, False, "hooked")
        first_touch += checkouts(shims, True, "first")
    base = median_ms(plain)
    print("== post-checkout (plain shim), "
          f"{len(plain)} checkouts each ==")
    print(f"git checkout without hooks        median {base:7.1f} ms{spread(plain)}")
    print(f"with the shim, steady state       median {median_ms(hooked):7.1f} ms   "
          f"adds {median_ms(hooked) - base:5.1f} ms (goal < 25){spread(hooked)}")
    print(f"with the shim, first touch        median {median_ms(first_touch):7.1f} ms   "
          f"adds {median_ms(first_touch) - base:5.1f} ms{spread(first_touch)}")
    print(f"CPU time (git and the hook): without {median_ms(cpu['plain']):5.1f} ms, "
          f"steady {median_ms(cpu['hooked']):5.1f} ms (adds "
          f"{median_ms(cpu['hooked']) - median_ms(cpu['plain']):5.1f}), first touch "
          f"{median_ms(cpu['first']):5.1f} ms")
    counted, log = logging_path(scratch, env)
    for _ in range(2):  # the second run is the steady state
        count_calls(log)
        subprocess.run([lets, "post-checkout", "0", "0", "1"], cwd=repo,
                       env=dict(counted, LETS_SESSION_ID=SESSION_ID), check=True)
    steady = count_calls(log)
    subprocess.run([lets, "post-checkout", "0", "0", "1"], cwd=repo,
                   env=dict(counted, LETS_SESSION_ID="one-more-session"), check=True)
    touch = count_calls(log)
    subprocess.run([lets, "post-checkout", "0", "0", "0"], cwd=repo, env=counted, check=True)
    files = count_calls(log)
    print(f"git processes per hook: steady {steady}, first touch {touch}, "
          f"file checkout {files}")


# -- 2. post-rewrite ---------------------------------------------------------------------

def add_commits(repo: Path, branch: str, base: str, count: int, tag: str,
                mine: int = -1) -> None:
    """``count`` commits on ``branch`` from ``base``, built with fast-import (no hook
    runs): the newest ``mine`` of them (-1: all) get the session ledger's line that
    post-commit writes for a commit this session made, the rest none (made elsewhere)."""
    now = int(time.time()) - 600
    lines = [f"reset refs/heads/{branch}\nfrom {base}\n"]
    for k in range(count):
        body = f"{tag} {k}\n"
        lines.append(f"commit refs/heads/{branch}\n"
                     f"committer Bench <bench@example.com> {now + k} +0000\n"
                     f"data {len(body)}\n{body}"
                     f"M 644 inline {tag}/{k}.txt\ndata {len(body)}\n{body}\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"],
                   input="".join(lines).encode(), check=True)
    made = git(repo, "rev-list", f"--max-count={count if mine < 0 else mine}", branch).split()
    if made:
        from lets_hooks import ledger

        problem = ledger.append(str(repo / ".git"), [ledger.line(ledger.MADE, sha, SESSION_ID)
                                                     for sha in reversed(made)])
        assert problem is None, problem


class TimedHook:
    """The plain shim ``lets-hooks install`` writes, behind a wrapper that times it while
    git runs it (so inside the rebase, with git's own rebase state in place) and, with
    ``count`` set, puts the logging ``git`` first on its PATH (git puts its own exec
    path first for hooks, so the wrapper has to)."""

    def __init__(self, scratch: Path, hook: str, lets: str, log_dir: Path) -> None:
        from lets_hooks.cli.install import import_folders
        from lets_hooks.install import shim

        real = scratch / "real-hooks" / hook
        real.parent.mkdir(exist_ok=True)
        # what `lets-hooks install` writes when run by this interpreter
        real.write_text(shim(hook, lets, sys.executable, import_folders()))
        real.chmod(0o755)
        self.hooks = scratch / "timed-hooks"
        self.hooks.mkdir(exist_ok=True)
        self.times = scratch / f"{hook}-times"
        self.messages = scratch / f"{hook}-stderr"
        wrapper = self.hooks / hook
        wrapper.write_text(
            f"#!{sys.executable}\n"
            "import os, subprocess, sys, time\n"
            "data = sys.stdin.buffer.read()\n"
            "env = dict(os.environ)\n"
            "if env.get('BENCH_COUNT_GIT'):\n"
            f"    env['PATH'] = {str(log_dir)!r} + os.pathsep + env['PATH']\n"
            "began = time.perf_counter()\n"
            f"with open({str(self.messages)!r}, 'ab') as err:\n"
            f"    done = subprocess.run([{str(real)!r}, *sys.argv[1:]], input=data, env=env,\n"
            "                          stderr=err)\n"
            f"with open({str(self.times)!r}, 'a') as out:\n"
            "    out.write(f'{time.perf_counter() - began}\\n')\n"
            "sys.exit(done.returncode)\n")
        wrapper.chmod(0o755)

    def take(self) -> list[float]:
        """The times recorded since the last call, in seconds."""
        found = [float(t) for t in self.times.read_text().split()] if self.times.exists() else []
        self.times.unlink(missing_ok=True)
        return found

    def said(self) -> str:
        text = self.messages.read_text() if self.messages.exists() else ""
        self.messages.unlink(missing_ok=True)
        return text


def task_text(sha: str) -> str:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return f"session: {sha} {SESSION_ID}\nsession-recorded: {sha} {stamp}\n"


def recorded(repo: Path, branch: str) -> str:
    task = repo / ".lets" / "sessions" / (".task-" + branch.replace("/", "-"))
    return next(line.split()[1] for line in task.read_text().splitlines()
                if line.startswith("session: "))


def bench_rewrite(repo: Path, lets: str, env: dict[str, str], runs: int,
                  scratch: Path) -> None:
    counted, log = logging_path(scratch, env)
    hook = TimedHook(scratch, "post-rewrite", lets, Path(counted["PATH"].split(os.pathsep)[0]))
    print(f"== post-rewrite during a real git rebase (the plain shim, as git runs it), "
          f"{runs} rebases each ==")
    git(repo, "checkout", "-q", "-f", "main")
    results = []
    # (commits, of them from before the boundary): the last replays 990 commits from
    # below a boundary 10 from the tip (the boundary moves to its own copy)
    for size, earlier in ((250, 0), (1000, 0), (1000, 990)):
        branch = f"big{size}" + (f"-{earlier}" if earlier else "")
        add_commits(repo, branch, "main~1", size, branch, size - earlier)
        tip = git(repo, "rev-parse", branch).strip()
        start = git(repo, "rev-parse", f"{branch}~{size - earlier}").strip()
        onto = git(repo, "rev-parse", "main").strip()
        task = repo / ".lets" / "sessions" / f".task-{branch}"
        samples, rebases = [], []
        calls = 0
        for i in range(runs + 1):  # the last one counts git processes
            git(repo, "checkout", "-q", "-f", "-B", branch, tip)
            task.write_text(task_text(start))
            hook.take()
            run_env = dict(env, BENCH_COUNT_GIT="1") if i == runs else env
            began = time.perf_counter()
            git(repo, "-c", f"core.hooksPath={hook.hooks}", "rebase", "-q", "main",
                env=run_env)
            took = time.perf_counter() - began
            times = hook.take()
            assert len(times) == 1, times
            if i == runs:
                calls = count_calls(log)
            else:
                samples.append(times[0])
                rebases.append(took)
            expected = git(repo, "rev-parse", f"HEAD~{size - earlier}").strip() if earlier \
                else onto
            assert recorded(repo, branch) == expected, "the boundary did not move as it should"
        said = hook.said()
        answer = subprocess.run([command("lets-session-boundary")], cwd=repo, env=env,
                                capture_output=True, text=True, check=True).stdout
        assert f"SESSION_COMMITS={size - earlier}\n" in answer, answer
        assert "SESSION_TRUST=exact" in answer, answer
        if earlier:
            print(f"{size:5d} commits, {earlier} of them from below the boundary: hook median "
                  f"{median_ms(samples):7.1f} ms  min {min(samples) * 1000:7.1f}  max "
                  f"{max(samples) * 1000:7.1f}   git processes {calls}")
            git(repo, "checkout", "-q", "-f", "main")
            continue
        results.append((size, median_ms(samples)))
        print(f"{size:5d} commits: hook median {median_ms(samples):7.1f} ms  "
              f"min {min(samples) * 1000:7.1f}  max {max(samples) * 1000:7.1f}   "
              f"git processes {calls}   (the rebase itself: median "
              f"{statistics.median(rebases):5.1f} s){'  said: ' + said.strip() if said else ''}")
        git(repo, "checkout", "-q", "-f", "main")
    (small, t_small), (big, t_big) = results[0], results[-1]
    print(f"per extra commit: {(t_big - t_small) / (big - small):.3f} ms; "
          f"1,000 commits: {t_big:.0f} ms (goal < 200)")


def bench_stack(repo: Path, lets: str, env: dict[str, str], runs: int, scratch: Path,
                size: int = 50, each: int = 2) -> None:
    """``git rebase --update-refs`` of a stack of ``size`` branches, ``each`` commits a
    branch, that one session built from main (``checkout -b`` from each branch in turn):
    every branch's line is at the session's start, so branch k holds its own commits and
    those of the k - 1 below it."""
    counted, log = logging_path(scratch, env)
    hook = TimedHook(scratch, "post-rewrite", lets, Path(counted["PATH"].split(os.pathsep)[0]))
    names = [f"stack/{k:02d}" for k in range(1, size + 1)]
    git(repo, "checkout", "-q", "-f", "main")
    below = "main~1"
    for name in names:
        add_commits(repo, name, below, each, name.replace("/", "-"))
        below = name
    tips = git(repo, "rev-parse", *names).split()
    start = git(repo, "rev-parse", "main~1").strip()
    sessions = repo / ".lets" / "sessions"
    print(f"== post-rewrite after git rebase --update-refs of a {size}-branch stack "
          f"({each} commits a branch), {runs} rebases ==")
    samples, rebases = [], []
    calls = 0
    for i in range(runs + 1):
        git(repo, "update-ref", "--stdin",
            stdin="".join(f"update refs/heads/{n} {t}\n" for n, t in zip(names, tips)))
        git(repo, "checkout", "-q", "-f", names[-1])
        for name in names:
            (sessions / (".task-" + name.replace("/", "-"))).write_text(task_text(start))
        hook.take()
        run_env = dict(env, BENCH_COUNT_GIT="1") if i == runs else env
        began = time.perf_counter()
        git(repo, "-c", f"core.hooksPath={hook.hooks}", "rebase", "-q", "--update-refs",
            "main", env=run_env)
        took = time.perf_counter() - began
        times = hook.take()
        assert len(times) == 1, times
        if i == runs:
            calls = count_calls(log)
        else:
            samples.append(times[0])
            rebases.append(took)
        onto = git(repo, "rev-parse", "main").strip()
        wrong = [n for n in names if recorded(repo, n) != onto]
        assert not wrong, f"boundaries that did not move: {wrong}"
    said = hook.said()
    rows = json.loads(subprocess.run([lets, "status", "--json"], cwd=repo, env=env,
                                     capture_output=True, text=True, check=True).stdout)
    stack = [r for r in rows if r["branch"] in names]
    bad = [r["branch"] for r in stack
           if r["trust"] != "exact" or r["commits"] != each * (names.index(r["branch"]) + 1)]
    assert len(stack) == size and not bad, f"not exact with {each} commits a branch: {bad}"
    print(f"hook median {median_ms(samples):7.1f} ms  min {min(samples) * 1000:7.1f}  "
          f"max {max(samples) * 1000:7.1f} (goal < 1000)   git processes {calls}   "
          f"(the rebase itself: median {statistics.median(rebases):5.1f} s)")
    print(f"every branch's boundary moved to main; status: all {size} exact, {each} commits "
          "a branch and those below it"
          f"{'; said: ' + said.strip() if said else ''}")
    git(repo, "checkout", "-q", "-f", "main")


# -- 3. status ------------------------------------------------------------------------------

def add_branches(repo: Path, count: int) -> None:
    rng = random.Random(3)
    tips = git(repo, "rev-list", "--max-count=400", "main").split()
    now = int(time.time()) - 600
    lines = []
    sessions = repo / ".lets" / "sessions"
    for b in range(count):
        name = f"topic/{b:04d}"
        lines.append(f"reset refs/heads/{name}\nfrom {rng.choice(tips)}\n")
        for k in range(rng.randint(1, 3)):
            lines.append(f"commit refs/heads/{name}\n"
                         f"committer Bench <bench@example.com> {now + k} +0000\n"
                         f"data 3\nb{k}\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"],
                   input="".join(lines).encode(), check=True)
    names = [f"topic/{b:04d}" for b in range(0, count, 2)]
    shas = git(repo, "rev-parse", *[f"{n}~1" for n in names]).split()
    for name, sha in zip(names, shas):
        (sessions / (".task-" + name.replace("/", "-"))).write_text(
            f"session: {sha} {SESSION_ID}\n")


def bench_status(repo: Path, lets: str, env: dict[str, str], runs: int,
                 scratch: Path) -> None:
    add_branches(repo, 1000)
    branches = len(git(repo, "for-each-ref", "refs/heads/").splitlines())
    argv = [lets, "status"]
    subprocess.run(argv, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)
    samples = []
    for _ in range(max(5, runs // 3)):
        began = time.perf_counter()
        subprocess.run(argv, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - began)
    counted, log = logging_path(scratch, env)
    count_calls(log)
    subprocess.run(argv, cwd=repo, env=counted, check=True, stdout=subprocess.DEVNULL)
    calls = count_calls(log)
    print(f"== lets-hooks status, {branches} branches, {len(samples)} runs ==")
    print(f"median {median_ms(samples):7.1f} ms{spread(samples)} (goal < 1000)   "
          f"git processes {calls}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the hooks and status.")
    parser.add_argument("repo", type=Path, help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--commit-graph", action="store_true",
                        help="write git's commit-graph file first (as git gc does)")
    parser.add_argument("--rebases", type=int, default=7,
                        help="real rebases timed for each post-rewrite figure")
    parser.add_argument("--only", choices=["checkout", "rewrite", "stack", "status"],
                        default=None)
    parser.add_argument("--ledger-bytes", type=int, default=0,
                        help="grow the copy's ledger to this size first (4194304: where it "
                             "is compacted)")
    args = parser.parse_args(argv)
    lets = command("lets-hooks")
    env = dict(os.environ, LETS_SESSION_ID=SESSION_ID, NO_COLOR="1")
    for name in ("CLAUDE_CODE_SESSION_ID", "PYTHONDONTWRITEBYTECODE", "GIT_DIR"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="lets-bench-") as tmp:
        scratch = Path(tmp)
        repo = scratch / "repo"
        shutil.copytree(args.repo, repo, symlinks=True)
        if args.ledger_bytes:
            from bench_boundary import grow_ledger

            grow_ledger(repo / ".git" / "lets-hooks" / "ledger", args.ledger_bytes)
        if args.commit_graph:
            git(repo, "commit-graph", "write", "--reachable")
        print(f"repository: {int(git(repo, 'rev-list', '--count', '--all')):,} commits; "
              f"commit-graph: {'yes' if args.commit_graph else 'no'}")
        if args.only in (None, "checkout"):
            bench_checkout(repo, lets, env, args.runs, scratch)
        if args.only in (None, "rewrite"):
            bench_rewrite(repo, lets, env, args.rebases, scratch)
        if args.only in (None, "stack"):
            bench_stack(repo, lets, env, args.rebases, scratch)
        if args.only in (None, "status"):
            bench_status(repo, lets, env, args.runs, scratch)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    raise SystemExit(main())
