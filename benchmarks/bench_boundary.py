"""Time ``lets-session-boundary`` against a shell implementation of the same ladder.

    python benchmarks/make_repo.py /tmp/bench-repo
    python benchmarks/make_repo.py /tmp/bench-merges --merge-heavy
    python benchmarks/bench_boundary.py /tmp/bench-repo /tmp/bench-merges [--runs 31]
        [--only happy,estimate] [--trace] [--markdown] [--ledger-bytes 4194304]

Every path of the ladder, on each repository, without and then with git's commit-graph
file (``git commit-graph write --reachable``, as ``git gc`` does in most real
repositories; "without" reads the same repository with ``core.commitGraph=false``):

- happy path: ``feature``, a boundary recorded by this session on a topic with no merges;
- walk-heavy: ``main`` (the merge branch), a boundary at the root, the whole history
  back;
- estimate: ``topic/estimate``, nothing recorded, the merge-base off main;
- merged main: ``topic/merged``, a session that merged main into its topic twice, its
  boundary at the fork point (the script rejects that one and estimates), and
  ``topic/merged-late``, the same with the boundary above the fork point (the script
  keeps it and counts main's merged-in commits as the session's);
- pulled: ``topic/pulled``, a session whose range holds a teammate's commits pulled with
  ``--ff-only`` (the product does not count them; the script does);
- long: ``topic/long``, a session of 10,000 commits (the witness reads 10,000 reflog
  entries);
- seen: ``topic/seen``, nothing recorded on a branch shaped like git's ``seen`` (a long
  first-parent line of topic merges, none made here): the estimate path's walks.

For each: median, min and max wall time of the installed command as a user runs it and
of the shell baseline (``reference_ladder.sh``, the seed's semantics), run in turn so
that drift on a busy machine hits both alike, with the median CPU time of each (user +
system, git's included: it hardly moves when other work shares the machine); their
ratios; and the git processes each starts (counted by a logging ``git`` first on
PATH), by subcommand. The two must print the same four lines, except where the product
departs from the script on purpose (main merged in; commits this work tree did not make):
there its answer is checked against git itself (``check_departure``).

``--ledger-bytes N`` first grows each ledger to N bytes with older lines of other sessions
(4194304: the size at which it is compacted, a busy repository's steady state), and puts it
back after. ``--merge-branch NAME`` times a repository whose merge branch is not ``main`` (both
are told through ``LETS_MERGE_BRANCH``). ``--trace`` also breaks each run down by git
process (``GIT_TRACE2_EVENT``): how long each git call took and how much of the wall
time was spent outside git.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from installed import command

HERE = Path(__file__).resolve().parent
SESSION_ID = "bench-session"
CASES = (  # key, branch, what
    ("happy", "feature", "happy path"),
    ("deep", "", "walk-heavy (root)"),  # on the merge branch itself
    ("estimate", "topic/estimate", "estimate"),
    ("merged", "topic/merged", "merged main, boundary at fork point"),
    ("merged-late", "topic/merged-late", "merged main, boundary above it"),
    ("pulled", "topic/pulled", "a teammate's commits pulled into the range"),
    ("long", "topic/long", "a 10,000-commit session"),
    ("seen", "topic/seen", "estimate on a seen-shaped branch"),
)
# the product answers these differently, on purpose: main's merged-in commits and commits
# this work tree did not make (a clone's history, a teammate's) are not counted
DEPARTS = {"merged", "merged-late", "deep", "pulled", "seen"}
SLOW = {"deep"}  # a second a run: fewer runs
NO_TASK = {"estimate", "seen"}  # nothing recorded, on purpose


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def without_graph(env: dict[str, str]) -> dict[str, str]:
    """``env`` with git told not to read a commit-graph file (as if there were none)."""
    n = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    return dict(env, GIT_CONFIG_COUNT=str(n + 1), **{f"GIT_CONFIG_KEY_{n}": "core.commitGraph",
                                                     f"GIT_CONFIG_VALUE_{n}": "false"})


class Sample:
    """One run: wall time, and CPU time (user + system) of the command and every process
    it started: the second hardly moves when other work shares the machine."""

    __slots__ = ("cpu", "wall")

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall = wall
        self.cpu = cpu


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Sample(wall, cpu)


def timed_pair(ours: list[str], shell: list[str], cwd: Path, env: dict[str, str],
               runs: int) -> tuple[list[Sample], list[Sample]]:
    """Both commands ``runs`` times each, in turn (which goes first alternates)."""
    run(ours, cwd, env)  # warm the file cache for both
    run(shell, cwd, env)
    mine: list[Sample] = []
    base: list[Sample] = []
    for i in range(runs):
        if i % 2:
            base.append(run(shell, cwd, env))
            mine.append(run(ours, cwd, env))
        else:
            mine.append(run(ours, cwd, env))
            base.append(run(shell, cwd, env))
    return mine, base


def git_calls(argv: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    """The git subcommands one run starts, in order (a logging ``git`` first on PATH)."""
    real = shutil.which("git", path=env.get("PATH"))
    assert real
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "calls"
        shim = Path(scratch) / "git"
        shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
        shim.chmod(0o755)
        counted = dict(env, PATH=f"{scratch}{os.pathsep}{env['PATH']}")
        subprocess.run(argv, cwd=cwd, env=counted, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        lines = log.read_text().splitlines() if log.exists() else []
    return [_subcommand(line.split()) for line in lines]


def _subcommand(words: list[str]) -> str:
    """``rev-list`` of ``-C path rev-list --count ...``; ``merge-base --is-ancestor`` kept
    apart from ``merge-base``."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c") else 1
    sub = words[i] if i < len(words) else "?"
    if sub == "merge-base" and "--is-ancestor" in words:
        return "merge-base --is-ancestor"
    return sub


def shown_calls(calls: list[str]) -> str:
    counts = Counter(calls)
    return ", ".join(f"{name}{'' if n == 1 else f' x{n}'}" for name, n in counts.items())


def breakdown(argv: list[str], cwd: Path, env: dict[str, str], runs: int
              ) -> tuple[list[tuple[str, float]], float]:
    """Median time of each git process of a run (in order), and the median wall time
    outside git, from ``GIT_TRACE2_EVENT`` over ``runs`` runs."""
    per_call: list[list[float]] = []
    names: list[str] = []
    outside: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        for k in range(runs):
            trace = Path(scratch) / f"trace{k}"
            wall = run(argv, cwd, dict(env, GIT_TRACE2_EVENT=str(trace))).wall
            starts: dict[str, str] = {}
            spans: list[tuple[str, float]] = []
            for line in trace.read_text().splitlines() if trace.exists() else []:
                event = json.loads(line)
                sid = event.get("sid", "")
                if event.get("event") == "start":
                    starts[sid] = _subcommand(event.get("argv", [])[1:])
                elif event.get("event") == "atexit" and sid in starts and "/" not in sid:
                    spans.append((starts[sid], float(event["t_abs"])))
            if k == 0:
                names = [name for name, _ in spans]
                per_call = [[] for _ in spans]
            if [name for name, _ in spans] == names:
                for slot, (_, seconds) in zip(per_call, spans):
                    slot.append(seconds)
                outside.append(wall - sum(seconds for _, seconds in spans))
    calls = [(name, statistics.median(s)) for name, s in zip(names, per_call)]
    return calls, statistics.median(outside) if outside else 0.0


def answer(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout


def check_departure(repo: Path, ours: str, script: str, merge: str) -> str:
    """Where the product departs from the script on purpose, its answer is checked against
    git itself: the boundary the script would use (the recorded one, else the merge-base),
    and every commit of ``boundary..HEAD`` either counted, or said to be already on
    ``<merge>`` (exactly those on ``origin/<merge>`` or ``<merge>`` that were not counted),
    or said to be from elsewhere."""
    import re

    fields = dict(line.split("=", 1) for line in ours.splitlines())
    theirs = dict(line.split("=", 1) for line in script.splitlines())
    branch = git(repo, "branch", "--show-current")
    boundary = fields["SESSION_BOUNDARY"]
    if boundary == "none":
        raise SystemExit(f"{branch}: no boundary:\n{ours}")
    tips = [ref for ref in (f"refs/remotes/origin/{merge}", f"refs/heads/{merge}")
            if subprocess.run(["git", "-C", str(repo), "rev-parse", "-q", "--verify", ref],
                              capture_output=True).returncode == 0]
    total = int(git(repo, "rev-list", "--count", f"{boundary}..HEAD"))
    desc = fields["SESSION_RANGE_DESC"]
    on_merge = re.search(r"(\d+) already on ", desc)
    elsewhere = re.search(r"(\d+) from elsewhere", desc)
    m = int(on_merge.group(1)) if on_merge else 0
    k = int(elsewhere.group(1)) if elsewhere else 0
    n = int(fields["SESSION_COMMITS"])
    if n + m + k != total:
        raise SystemExit(f"{branch}: {n} + {m} + {k} is not the {total} commits of the range:"
                         f"\n{ours}")
    if m:
        kept = int(git(repo, "rev-list", "--count", "HEAD", f"^{boundary}",
                       *[f"^{t}" for t in tips]))
        if total - kept < m:
            raise SystemExit(f"{branch}: {m} said to be on {merge}, only {total - kept} are")
    return (f"ours: {fields['SESSION_TRUST']}, {n} commits"
            f"{f', {m} already on {merge}' if m else ''}{f', {k} from elsewhere' if k else ''}"
            f"; script: {theirs['SESSION_TRUST']}, {theirs['SESSION_COMMITS']} commits")


def ms(samples: list[Sample]) -> tuple[float, float, float, float]:
    """Wall time median, min and max, and the median CPU time, in milliseconds."""
    values = [s.wall * 1000 for s in samples]
    cpu = statistics.median(s.cpu * 1000 for s in samples)
    return statistics.median(values), min(values), max(values), cpu


def report(title: str, mine: list[Sample], base: list[Sample], calls_ours: list[str],
           calls_shell: list[str]) -> None:
    """One path's figures: both commands' medians, spreads, CPU and git processes, and
    their ratios."""
    (m_med, m_min, m_max, m_cpu), (b_med, b_min, b_max, b_cpu) = ms(mine), ms(base)
    print(f"-- {title}")
    print(f"   lets-session-boundary  median {m_med:8.1f} ms  min {m_min:8.1f}  "
          f"max {m_max:8.1f}  CPU {m_cpu:7.1f}   git processes {len(calls_ours)}: "
          f"{shown_calls(calls_ours)}")
    print(f"   shell baseline         median {b_med:8.1f} ms  min {b_min:8.1f}  "
          f"max {b_max:8.1f}  CPU {b_cpu:7.1f}   git processes {len(calls_shell)}: "
          f"{shown_calls(calls_shell)}")
    print(f"   ratio (ours / shell, medians): wall {m_med / b_med:.2f}, "
          f"CPU {m_cpu / b_cpu:.2f}")


def describe_repo(repo: Path, merge: str) -> str:
    total = int(git(repo, "rev-list", "--count", "--all"))
    merges = int(git(repo, "rev-list", "--count", "--merges", "--all"))
    origin = subprocess.run(["git", "-C", str(repo), "rev-parse", "-q", "--verify",
                             f"refs/remotes/origin/{merge}"], capture_output=True).returncode == 0
    return (f"{repo}: {total:,} commits, {merges:,} merges"
            f"{f', origin/{merge}' if origin else ''}")


def graph_files(repo: Path) -> list[Path]:
    info = Path(git(repo, "rev-parse", "--git-path", "objects/info"))
    if not info.is_absolute():
        info = repo / info
    return [p for p in (info / "commit-graph", info / "commit-graphs") if p.exists()]


def bench_repo(repo: Path, env: dict[str, str], runs: int, only: set[str] | None,
               trace: bool, markdown: bool, merge: str) -> None:
    ours = [command("lets-session-boundary")]
    shell = ["bash", str(HERE / "reference_ladder.sh")]
    print(describe_repo(repo, merge))
    had_graph = bool(graph_files(repo))
    started_on = git(repo, "branch", "--show-current") or git(repo, "rev-parse", "HEAD")
    branches = set(git(repo, "for-each-ref", "--format=%(refname:short)",
                       "refs/heads/").splitlines())
    try:
        for graph in (False, True):
            if graph and not had_graph:
                began = time.perf_counter()
                git(repo, "commit-graph", "write", "--reachable")
                print(f"(commit-graph written in {time.perf_counter() - began:.1f} s)")
            case_env = env if graph else without_graph(env)
            print(f"== commit-graph: {'yes' if graph else 'no'} ==")
            if markdown:
                print("| path | ours: median (min-max) | script: median (min-max) | ratio "
                      "| git processes (ours / script) |")
                print("|---|---|---|---|---|")
            for key, branch, what in CASES:
                branch = branch or merge
                if only is not None and key not in only:
                    continue
                if branch not in branches:
                    print(f"{what}: no branch {branch!r} here (rebuild with make_repo.py)")
                    continue
                task = repo / ".lets" / "sessions" / (".task-" + branch.replace("/", "-"))
                if key not in NO_TASK and not task.exists():
                    print(f"{what}: nothing recorded for {branch!r}; skipped")
                    continue
                git(repo, "checkout", "-q", branch)
                mine_out = answer(ours, repo, case_env)
                theirs_out = answer(shell, repo, case_env)
                note = ""
                if key in DEPARTS:
                    note = check_departure(repo, mine_out, theirs_out, merge)
                elif mine_out != theirs_out:
                    raise SystemExit(f"{what}: the two implementations disagree:\n"
                                     f"{mine_out}\n{theirs_out}")
                n = max(5, runs // 4) if key in SLOW else runs
                mine, base = timed_pair(ours, shell, repo, case_env, n)
                calls_ours = git_calls(ours, repo, case_env)
                calls_shell = git_calls(shell, repo, case_env)
                (m_med, m_min, m_max, m_cpu), (b_med, b_min, b_max, b_cpu) = ms(mine), ms(base)
                ratio = m_med / b_med
                if markdown:
                    print(f"| {what} | {m_med:.1f} ms ({m_min:.1f}-{m_max:.1f}) | "
                          f"{b_med:.1f} ms ({b_min:.1f}-{b_max:.1f}) | {ratio:.2f} "
                          f"(CPU {m_cpu / b_cpu:.2f}) | {len(calls_ours)} / {len(calls_shell)} |")
                    continue
                report(f"{what} ({branch}), {n} runs each", mine, base, calls_ours,
                       calls_shell)
                if note:
                    print(f"   {note}")
                if trace:
                    for name, argv in (("ours", ours), ("shell", shell)):
                        calls, outside = breakdown(argv, repo, case_env, 5 if key in SLOW
                                                   else 11)
                        parts = ", ".join(f"{c} {s * 1000:.1f}" for c, s in calls)
                        print(f"   {name} by git process (ms): {parts}; outside git "
                              f"{outside * 1000:.1f}")
    finally:
        git(repo, "checkout", "-q", started_on)
        if not had_graph:
            remove_graph(repo)


def remove_graph(repo: Path) -> None:
    """Take away the commit-graph files a run wrote (the repository had none)."""
    for path in graph_files(repo):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time lets-session-boundary.")
    parser.add_argument("repos", type=Path, nargs="+", help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--only", help="comma-separated: " + ",".join(k for k, _, _ in CASES))
    parser.add_argument("--trace", action="store_true",
                        help="also the time of each git process (GIT_TRACE2_EVENT)")
    parser.add_argument("--markdown", action="store_true", help="print table rows")
    parser.add_argument("--ledger-bytes", type=int, default=0,
                        help="grow each ledger to this size first (4194304: where it is "
                             "compacted); it is put back after")
    parser.add_argument("--merge-branch", default="main",
                        help="the merge branch (LETS_MERGE_BRANCH for both; default main)")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    env = dict(os.environ, LETS_SESSION_ID=SESSION_ID, NO_COLOR="1")
    for name in ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID",
                 "LETS_MERGE_BRANCH", "GIT_DIR", "GIT_WORK_TREE",
                 "PYTHONDONTWRITEBYTECODE"):  # users' Pythons keep their bytecode
        env.pop(name, None)
    if args.merge_branch != "main":
        env["LETS_MERGE_BRANCH"] = args.merge_branch
    for repo in args.repos:
        ledger = repo.resolve() / ".git" / "lets-hooks" / "ledger"
        kept = ledger.read_bytes()
        try:
            if args.ledger_bytes:
                grow_ledger(ledger, args.ledger_bytes)
            bench_repo(repo.resolve(), env, args.runs, only, args.trace, args.markdown,
                       args.merge_branch)
        finally:
            ledger.write_bytes(kept)
            (ledger.parent / "ledger.index").unlink(missing_ok=True)
    return 0


def grow_ledger(ledger: Path, size: int) -> None:
    """The ledger as a long-lived repository's: older lines of other sessions (about
    commits this history does not hold, so no answer changes) before its own, up to
    ``size`` bytes. A compaction keeps it under 4 MiB."""
    import hashlib

    own = ledger.read_bytes()
    older: list[bytes] = []
    total = len(own)
    while total < size:
        name = hashlib.sha1(b"%d" % len(older)).hexdigest()
        line = f"c {name} 5f0c2b1d-{len(older) % 7:04d}-4a51-9a7e-3f0c2b1d8e7a\n".encode()
        older.append(line)
        total += len(line)
    ledger.write_bytes(b"".join(older) + own)


if __name__ == "__main__":
    raise SystemExit(main())
