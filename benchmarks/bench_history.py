"""Time ``lets-session-boundary`` against the shell ladder on a real merge-heavy history.

    python benchmarks/bench_history.py SOURCE DEST [--runs 31] [--only exact,prior,seen]

SOURCE is a repository with ``master``, ``next`` and ``seen`` branches (a copy of git's
own repository: ``git clone https://git.kernel.org/pub/scm/git/git.git``). DEST, made once
and reused, is a clone of it as a user has one: ``origin/*`` remote-tracking refs,
``origin/HEAD``, a HEAD log that starts with the clone, and lets-hooks' plain hooks
installed, so the session's commits are written down as they are made. On it:

- exact: ``topic/exact`` off ``origin/master``, recorded at checkout by this session,
  which then makes 3 commits (``git commit``, the post-commit hook writes the ledger);
- prior: ``next`` as ``origin/next``, its boundary recorded by an earlier session with
  ``lets-hooks record --at origin/next~20`` (95 commits on git's history of August 2026,
  merges of topics among them), read by this one;
- seen: ``seen`` as ``origin/seen``, nothing recorded (its checkout runs no hook): the
  estimate, over a first-parent line of topic merges.

Each path without and then with a commit-graph (``git commit-graph write --reachable``),
paired runs in turn with ``reference_ladder.sh`` (``LETS_MERGE_BRANCH=master`` for both),
the same figures and checks as ``bench_boundary.py``. Without a copy of git's repository,
``bench_boundary.py`` on ``make_repo.py --merge-heavy`` times the same paths on a
synthetic history of the same shape.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from bench_boundary import (
    HERE,
    SESSION_ID,
    check_departure,
    git,
    git_calls,
    graph_files,
    remove_graph,
    report,
    timed_pair,
    without_graph,
)
from installed import command

EARLIER = "earlier-session"
CASES = (  # key, branch, what
    ("exact", "topic/exact", "exact, 3 commits off master"),
    ("prior", "next", "prior-session on next (an earlier session's boundary, merges)"),
    ("seen", "seen", "estimate on seen (topic merges, nothing recorded)"),
)


def prepare(source: Path, dest: Path, env: dict[str, str]) -> None:
    """The clone and its three branches, made once."""
    if (dest / ".git").is_dir():
        return
    began = time.perf_counter()
    subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True)
    subprocess.run([command("lets-hooks"), "install"], cwd=dest, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    # The copy's newest commits may be months old: the product's age limit is set past
    # them (the script's 14 days stay, so it may reject a boundary by age and estimate,
    # asking git as many questions either way).
    config = dest / ".lets" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("max_age_days = 3650\n")
    mine = dict(env, LETS_SESSION_ID=SESSION_ID)
    git(dest, "checkout", "-q", "-b", "topic/exact", "origin/master", env=mine)
    for n in range(3):
        git(dest, "commit", "-q", "--allow-empty", "-m", f"session commit {n + 1}", env=mine)
    earlier = dict(env, LETS_SESSION_ID=EARLIER)
    git(dest, "checkout", "-q", "-b", "next", "origin/next", env=earlier)
    subprocess.run([command("lets-hooks"), "record", "--at", "origin/next~20"], cwd=dest,
                   env=earlier, check=True, stdout=subprocess.DEVNULL)
    git(dest, "-c", "core.hooksPath=/dev/null", "checkout", "-q", "-b", "seen", "origin/seen",
        env=env)
    git(dest, "checkout", "-q", "topic/exact", env=mine)
    print(f"(prepared {dest} in {time.perf_counter() - began:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a copy of git's own repository")
    parser.add_argument("dest", type=Path, help="the clone to make (once) and time on")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--only", help="comma-separated: " + ",".join(k for k, _, _ in CASES))
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    env = dict(os.environ, NO_COLOR="1", LETS_MERGE_BRANCH="master")
    for name in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                 "GEMINI_SESSION_ID", "GIT_DIR", "GIT_WORK_TREE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    dest = args.dest.resolve()
    prepare(args.source.resolve(), dest, env)
    env["LETS_SESSION_ID"] = SESSION_ID
    ours = [command("lets-session-boundary")]
    shell = ["bash", str(HERE / "reference_ladder.sh")]
    total = git(dest, "rev-list", "--count", "--all")
    print(f"{dest}: {total} commits")
    had_graph = bool(graph_files(dest))
    try:
        for graph in (False, True):
            if graph and not had_graph:
                git(dest, "commit-graph", "write", "--reachable")
            case_env = env if graph else without_graph(env)
            print(f"== commit-graph: {'yes' if graph else 'no'} ==")
            for key, branch, what in CASES:
                if only is not None and key not in only:
                    continue
                git(dest, "-c", "core.hooksPath=/dev/null", "checkout", "-q", branch, env=env)
                mine_out = subprocess.run(ours, cwd=dest, env=case_env, capture_output=True,
                                          text=True, check=True).stdout
                theirs_out = subprocess.run(shell, cwd=dest, env=case_env, capture_output=True,
                                            text=True, check=True).stdout
                note = check_departure(dest, mine_out, theirs_out, "master")
                mine, base = timed_pair(ours, shell, dest, case_env, args.runs)
                calls_ours = git_calls(ours, dest, case_env)
                calls_shell = git_calls(shell, dest, case_env)
                report(f"{what} ({branch}), {args.runs} runs each", mine, base, calls_ours,
                       calls_shell)
                print(f"   {note}")
    finally:
        git(dest, "-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic/exact", env=env)
        if not had_graph:
            remove_graph(dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
