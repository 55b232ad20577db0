"""Time ``lets-session-checkpoint`` on the summary's large project and on a long session.

    python benchmarks/bench_checkpoint.py [--runs 21]

Two repositories, built in a temporary folder:

- the summary's large project (``bench_summary.make_project``: a 10,000-entry context log,
  2,000 lessons, a handoff with a state-snapshot block and long prose, a recorded session);
- a session of 1,000 commits on a topic branch (``--commits``), each changing, adding or
  removing files among 300 (built with ``git fast-import``; the HEAD reflog written as git
  writes it when the commits are made here, the session line with its recorded time), so
  the ladder counts all of them and ``diff`` folds 1,000 commits' paths (one git process).

Each is timed as a user runs it (a new process each time): the plain command with
``--next`` and ``--blocked``, and ``--hook`` with a SessionEnd JSON on stdin. It prints
the median, min and max wall time, the git processes one checkpoint starts, and whether
the median is within the 0.3 s budget.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from installed import command

BUDGET_SECONDS = 0.3
SESSION = "bench-checkpoint-session"
FILES = 300
IDENT = "Bench <bench@example.com>"


def git(dest: Path, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True,
                          input=stdin).stdout.decode().strip()


def session_stream(commits: int, start: int) -> Iterator[bytes]:
    """main's root, then ``commits`` commits on ``topic``: one file changed or added each,
    every 50th removing another, every 100th renaming one."""
    def data(text: str) -> bytes:
        raw = text.encode()
        return b"data %d\n%s\n" % (len(raw), raw)

    yield (b"commit refs/heads/main\nmark :1\n"
           + f"committer {IDENT} {start} +0000\n".encode() + data("root")
           + b"M 100644 inline base.txt\n" + data("base\n"))
    present = set()
    for k in range(1, commits + 1):
        name = f"src/f{k % FILES}.py"
        lines = [f"commit refs/heads/topic\nmark :{k + 1}\n"
                 f"committer {IDENT} {start + k} +0000\n"]
        body = data(f"session commit {k}: work on {name}")
        ops = [b"M 100644 inline " + name.encode() + b"\n" + data(f"x = {k}\n")]
        present.add(name)
        other = f"src/f{(k + 7) % FILES}.py"
        if k % 50 == 0 and other in present and other != name:
            ops.append(f"D {other}\n".encode())
            present.discard(other)
        elif k % 100 == 1 and other in present and other != name:
            ops.append(f"R {other} src/moved_{k}.py\n".encode())
            present.discard(other)
        head = "".join(lines).encode() + body + (b"from :1\n" if k == 1 else b"")
        yield head + b"".join(ops)


def build_session(dest: Path, commits: int) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    start = int(time.time()) - 3600 - commits
    stream = b"".join(session_stream(commits, start))
    with tempfile.TemporaryDirectory() as scratch:
        marks = Path(scratch) / "marks"
        subprocess.run(["git", "-C", str(dest), "fast-import", "--quiet",
                        f"--export-marks={marks}"], input=stream, check=True)
        shas = {int(m[1:]): s for m, _, s in (line.partition(" ") for line in
                                               marks.read_text().splitlines())}
    git(dest, "checkout", "-q", "-f", "topic")
    # HEAD's log as git writes it for commits made here, oldest first
    lines = [f"{'0' * 40} {shas[1]} {IDENT} {start} +0000\tcommit (initial): root",
             f"{shas[1]} {shas[1]} {IDENT} {start} +0000\tcheckout: moving from main to topic"]
    for k in range(1, commits + 1):
        lines.append(f"{shas[k]} {shas[k + 1]} {IDENT} {start + k} +0000\t"
                     f"commit: session commit {k}")
    (dest / ".git" / "logs" / "HEAD").write_text("\n".join(lines) + "\n")
    # and the session ledger's lines post-commit writes for them
    from lets_hooks import ledger

    problem = ledger.append(str(dest / ".git"), [ledger.line(ledger.MADE, shas[k + 1], SESSION)
                                                 for k in range(1, commits + 1)])
    assert problem is None, problem
    sessions = dest / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
    (sessions / ".task-topic").write_text(
        f"session: {shas[1]} {SESSION}\nsession-recorded: {shas[1]} {stamp}\n")
    with open(dest / ".git" / "info" / "exclude", "a") as out:
        out.write(".lets/\n")


def timed(argv: list[str], runs: int, session: str, stdin: bytes = b"") -> list[float]:
    env = dict(os.environ, LETS_SESSION_ID=session)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, input=stdin)
    samples = []
    cpu = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, input=stdin)
        samples.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    CPU.append(cpu)
    return samples


CPU: list[list[float]] = []  # CPU time (user + system, git included) of each run


def report(name: str, samples: list[float]) -> bool:
    median = statistics.median(samples)
    cpu = statistics.median(CPU[-1])
    print(f"{name:<40} median {median * 1000:6.1f} ms   min {min(samples) * 1000:6.1f} ms"
          f"   max {max(samples) * 1000:6.1f} ms   CPU {cpu * 1000:6.1f} ms"
          f"   ({len(samples)} runs)")
    return median <= BUDGET_SECONDS


def git_processes(root: Path, session: str) -> int:
    """The git processes one checkpoint starts (counted by the one door to git)."""
    from lets_hooks.cli.checkpoint import session_range
    from lets_hooks.summary import checkpoint as ck

    repo, _, boundary = session_range(root, {"LETS_SESSION_ID": session}, None, time.time())
    assert repo is not None
    ck.changes_of(repo.touched(boundary.session_commits))
    return repo.calls


def bench(name: str, root: Path, runs: int, session: str) -> bool:
    tool = command("lets-session-checkpoint")
    done = subprocess.run([tool, "--root", str(root), "--json", "--next", "bench"],
                          check=True, capture_output=True, text=True,
                          env=dict(os.environ, LETS_SESSION_ID=session))
    data = json.loads(done.stdout)
    print(f"{name}: {data['range'][3]}; diff {len(data['diff']['items'])} paths"
          f" + {data['diff']['more']} more; {git_processes(root, session)} git processes")
    hook = json.dumps({"session_id": session, "cwd": str(root),
                       "hook_event_name": "SessionEnd", "reason": "exit"}).encode()
    ok = report(f"{name}: --next --blocked",
                timed([tool, "--root", str(root), "--next", "a", "--next", "b",
                       "--blocked", "c (risk: H)"], runs, session))
    return report(f"{name}: --hook (SessionEnd)",
                  timed([tool, "--hook"], runs, session, hook)) and ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--commits", type=int, default=1000)
    args = parser.parse_args(argv)

    import random

    import bench_summary

    with tempfile.TemporaryDirectory(prefix="lets-bench-checkpoint-") as scratch:
        base = Path(scratch)
        project = base / "project"
        bench_summary.make_project(project, random.Random(20261129))
        bench_summary.git_init(project)
        long = base / "session"
        build_session(long, args.commits)
        ok = bench("large project", project, args.runs, bench_summary.SESSION)
        ok = bench(f"{args.commits}-commit session", long, args.runs, SESSION) and ok
    print(f"budget {BUDGET_SECONDS * 1000:.0f} ms (median): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
