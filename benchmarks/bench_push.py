"""Time the pre-push hook when many branches are pushed at once (``git push --all``).

    python benchmarks/make_repo.py /tmp/bench-repo
    python benchmarks/bench_push.py /tmp/bench-repo [--runs 5] [--counts 500,1000,2000,4000]
        [--ledger-bytes 4194304]

Works on a copy of the repository (the original is left as it was). Adds as many branches
as the largest count asks (``bench_hooks.add_branches``: 1 to 3 commits off main's last
400 each), and gives them, in turn, a session line of this session (the line and its
commits in the session ledger), one of an earlier session, none, and one that names no commit: the
answers are exact, prior-session, estimate and rejected, a quarter each (the half that
``add_branches`` recorded is recorded again here). Then times ``lets-hooks pre-push``
fed the lines git gives it for a push of the first N branches to a new remote (the hook
alone, no push), N each of ``--counts``; the median of ``--runs`` runs, with the number
of warnings said and of git processes started. Goal: 4,000 branches in under 5 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_hooks import add_branches, count_calls, git, logging_path, median_ms, spread
from installed import command

SESSION_ID = "bench-push-session"  # not make_repo's, whose 10,000 commits are another's
OTHER_SESSION = "bench-earlier-session"
KINDS = ("session", "earlier", "none", "bad")


def add_pushed(repo: Path, count: int) -> list[str]:
    """``count`` branches of the four kinds; the stdin lines of a push of each, in turn."""
    from lets_hooks import ledger

    add_branches(repo, count)
    tips = dict(line.split()[::-1] for line in git(
        repo, "for-each-ref", "--format=%(objectname) %(refname:short)", "refs/heads/topic/"
    ).splitlines())
    names = sorted(tips)
    bases = git(repo, "rev-parse", *[f"{n}~1" for n in names]).split()
    sessions = repo / ".lets" / "sessions"
    common = str(repo / git(repo, "rev-parse", "--git-common-dir").strip())
    made = []
    for i, (name, base) in enumerate(zip(names, bases)):
        task = sessions / (".task-" + name.replace("/", "-"))
        kind = KINDS[i % len(KINDS)]
        if kind == "session":
            task.write_text(f"session: {base} {SESSION_ID}\n")
            made.append(tips[name])
            # as the checkout that wrote the line says it: every commit of it above
            assert ledger.note_written(common, base, SESSION_ID) is None
        elif kind == "earlier":
            task.write_text(f"session: {base} {OTHER_SESSION}\n")
        elif kind == "bad":
            task.write_text(f"session: {'c' * 40} {SESSION_ID}\n")
        elif task.exists():
            task.unlink()
    lines = [ledger.line(ledger.MADE, sha, SESSION_ID) for sha in made]
    assert ledger.append(common, lines) is None
    return [f"refs/heads/{n} {tips[n]} refs/heads/{n} {'0' * 40}\n" for n in names]


def bench_push(repo: Path, lets: str, env: dict[str, str], runs: int, counts: list[int],
               scratch: Path) -> None:
    lines = add_pushed(repo, max(counts))
    argv = [lets, "pre-push", "origin", str(scratch / "remote.git")]
    print(f"== lets-hooks pre-push, {len(lines)} branches added, {runs} runs each ==")
    for count in counts:
        stdin = "".join(lines[:count]).encode()
        samples = []
        said = ""
        for _ in range(runs):
            began = time.perf_counter()
            done = subprocess.run(argv, cwd=repo, env=env, input=stdin, capture_output=True,
                                  check=True)
            samples.append(time.perf_counter() - began)
            said = done.stderr.decode("utf-8", "replace")
        counted, log = logging_path(scratch, env)
        count_calls(log)
        subprocess.run(argv, cwd=repo, env=counted, input=stdin, capture_output=True,
                       check=True)
        calls = count_calls(log)
        warned = sum(line.startswith("lets-hooks: pre-push: ") for line in said.splitlines())
        print(f"{count:5,} branches: median {median_ms(samples):7.0f} ms"
              f"{spread(samples)}   warnings {warned:5,}   git processes {calls}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time pre-push over many branches.")
    parser.add_argument("repo", type=Path, help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--counts", default="500,1000,2000,4000",
                        help="numbers of branches pushed, comma-separated")
    parser.add_argument("--ledger-bytes", type=int, default=0,
                        help="grow the copy's ledger to this size first (4194304: where it "
                             "is compacted)")
    args = parser.parse_args(argv)
    counts = [int(c) for c in args.counts.split(",")]
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
        print(f"repository: {int(git(repo, 'rev-list', '--count', '--all')):,} commits")
        bench_push(repo, lets, env, args.runs, counts, scratch)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    sys.exit(main())
