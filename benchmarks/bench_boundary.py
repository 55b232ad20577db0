"""Time ``lets-session-boundary`` against a shell implementation of the same ladder.

    python benchmarks/make_repo.py /tmp/bench-repo
    python benchmarks/bench_boundary.py /tmp/bench-repo [--runs 31]

Two cases on the 100,000-commit repository: the happy path (branch ``feature``, a
boundary 50 commits back, recorded by this session) and the deep one (branch ``main``,
a boundary at the root, 100,000 commits back). For each: median, min and max wall time
of the installed command as a user runs it, the same for the shell baseline, their ratio,
and how many git processes each starts (counted by a logging ``git`` on PATH).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from installed import command

HERE = Path(__file__).resolve().parent
SESSION_ID = "bench-session"


def timed(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - began)
    return samples


def git_processes(argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    real = shutil.which("git")
    assert real
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "calls"
        shim = Path(scratch) / "git"
        shim.write_text(f'#!/bin/sh\necho x >> "{log}"\nexec "{real}" "$@"\n')
        shim.chmod(0o755)
        counted = dict(env, PATH=f"{scratch}{os.pathsep}{env['PATH']}")
        subprocess.run(argv, cwd=cwd, env=counted, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return len(log.read_text().splitlines()) if log.exists() else 0


def summary(name: str, samples: list[float]) -> str:
    ms = [s * 1000 for s in samples]
    return (f"{name:<28} median {statistics.median(ms):8.1f} ms   "
            f"min {min(ms):8.1f}   max {max(ms):8.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time lets-session-boundary.")
    parser.add_argument("repo", type=Path, help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args(argv)
    env = dict(os.environ, LETS_SESSION_ID=SESSION_ID, NO_COLOR="1")
    env.pop("CLAUDE_CODE_SESSION_ID", None)
    ours = [command("lets-session-boundary")]
    shell = ["bash", str(HERE / "reference_ladder.sh")]
    subprocess.run(["git", "-C", str(args.repo), "checkout", "-q", "feature"], check=True)
    try:
        for case, branch in (("happy path (50 back)", "feature"),
                             ("deep (100,000 back)", "main")):
            subprocess.run(["git", "-C", str(args.repo), "checkout", "-q", branch], check=True)
            answers = {subprocess.run(a, cwd=args.repo, env=env, capture_output=True,
                                      text=True, check=True).stdout for a in (ours, shell)}
            if len(answers) != 1:
                raise SystemExit(f"{case}: the two implementations disagree: {answers}")
            runs = args.runs if branch == "feature" else max(5, args.runs // 4)
            mine = timed(ours, args.repo, env, runs)
            base = timed(shell, args.repo, env, runs)
            print(f"== {case}, {runs} runs ==")
            print(summary("lets-session-boundary", mine)
                  + f"   git processes {git_processes(ours, args.repo, env)}")
            print(summary("shell baseline", base)
                  + f"   git processes {git_processes(shell, args.repo, env)}")
            print(f"ratio (ours / shell, medians): "
                  f"{statistics.median(mine) / statistics.median(base):.2f}")
    finally:
        subprocess.run(["git", "-C", str(args.repo), "checkout", "-q", "feature"], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
