"""Time ``lets-hooks install``, ``uninstall`` and ``doctor`` on the 100,000-commit
repository (each should stay under 0.3 s), with the git processes each starts.

    python benchmarks/make_repo.py /tmp/bench-repo
    python benchmarks/bench_install.py /tmp/bench-repo [--runs 15]

Works on a copy of the repository. Run it with the interpreter of a plain
``pip install .`` (an editable install adds to every start). The time the post-checkout
shim adds to ``git checkout`` is ``bench_hooks.py --only checkout``.
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

from bench_hooks import count_calls, logging_path
from installed import command

GOAL_MS = 300.0


def timed(argv: list[str], repo: Path, env: dict[str, str], runs: int,
          before: list[str] | None = None) -> list[float]:
    """Seconds per run of ``argv`` in ``repo``; ``before`` runs (untimed) ahead of each."""
    samples = []
    for _ in range(runs):
        if before:
            subprocess.run(before, cwd=repo, env=env, check=False, capture_output=True)
        began = time.perf_counter()
        subprocess.run(argv, cwd=repo, env=env, check=False, capture_output=True)
        samples.append(time.perf_counter() - began)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time install, uninstall and doctor.")
    parser.add_argument("repo", type=Path, help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    lets = command("lets-hooks")
    env = dict(os.environ, LETS_SESSION_ID="bench-session", NO_COLOR="1")
    env.pop("GIT_DIR", None)
    with tempfile.TemporaryDirectory(prefix="lets-bench-") as tmp:
        scratch = Path(tmp)
        repo = scratch / "repo"
        shutil.copytree(args.repo, repo, symlinks=True)
        commits = subprocess.run(["git", "rev-list", "--count", "--all"], cwd=repo,
                                 capture_output=True, text=True, check=True).stdout.strip()
        print(f"repository: {int(commits):,} commits, no commit-graph; {args.runs} runs each")
        cases = [
            ("install (fresh)", [lets, "install"], [lets, "uninstall"]),
            ("install (up to date)", [lets, "install"], None),
            ("uninstall", [lets, "uninstall"], [lets, "install"]),
            ("doctor", [lets, "doctor"], None),
            ("doctor --json", [lets, "doctor", "--json"], None),
        ]
        worst = 0.0
        for name, run, before in cases:
            samples = timed(run, repo, env, args.runs, before)
            counted, log = logging_path(scratch, env)
            if before:
                subprocess.run(before, cwd=repo, env=env, check=False, capture_output=True)
            count_calls(log)
            subprocess.run(run, cwd=repo, env=counted, check=False, capture_output=True)
            calls = count_calls(log)
            median = statistics.median(samples) * 1000
            worst = max(worst, median)
            print(f"{name:22s} median {median:6.1f} ms  max {max(samples) * 1000:6.1f} ms  "
                  f"git processes {calls}")
        print(f"slowest median {worst:.1f} ms (goal < {GOAL_MS:.0f})")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    raise SystemExit(main())
