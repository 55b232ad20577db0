"""Build the benchmark repository: 100,000 commits on main, made with ``git fast-import``.

Also a 50-commit branch ``feature`` whose task file records the commit it started from
(so the ladder's happy path can be timed), and a task file on ``main`` whose boundary is
the root commit, 100,000 commits back (so the walk-heavy path can be timed).

    python benchmarks/make_repo.py DEST [--commits N] [--feature N]

Commits are one second apart and end an hour ago, so every boundary is well inside the
ladder's 14-day age limit.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SESSION_ID = "bench-session"


def stream(commits: int, feature: int, end: int) -> Iterator[bytes]:
    """The fast-import stream: main, then the feature branch off main's tip."""
    start = end - commits - feature
    author = b"Bench <bench@example.com>"
    for n in range(1, commits + 1):
        when = start + n
        message = f"main commit {n}\n".encode()
        body = f"line {n}\n".encode()
        yield b"commit refs/heads/main\nmark :%d\n" % n
        yield b"committer %s %d +0000\n" % (author, when)
        yield b"data %d\n%s" % (len(message), message)
        if n > 1:
            yield b"from :%d\n" % (n - 1)
        yield b"M 644 inline file%d.txt\ndata %d\n%s\n" % (n % 100, len(body), body)
    for k in range(1, feature + 1):
        mark = commits + k
        when = start + commits + k
        message = f"feature commit {k}\n".encode()
        body = f"feature {k}\n".encode()
        yield b"commit refs/heads/feature\nmark :%d\n" % mark
        yield b"committer %s %d +0000\n" % (author, when)
        yield b"data %d\n%s" % (len(message), message)
        yield b"from :%d\n" % (mark - 1)
        yield b"M 644 inline feature.txt\ndata %d\n%s\n" % (len(body), body)


def git(dest: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def build(dest: Path, commits: int, feature: int) -> None:
    if dest.exists():
        raise SystemExit(f"{dest}: already exists; choose a new folder")
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    proc = subprocess.Popen(["git", "-C", str(dest), "fast-import", "--quiet"],
                            stdin=subprocess.PIPE)
    assert proc.stdin is not None
    buffer: list[bytes] = []
    for chunk in stream(commits, feature, int(time.time()) - 3600):
        buffer.append(chunk)
        if len(buffer) >= 4096:
            proc.stdin.write(b"".join(buffer))
            buffer.clear()
    proc.stdin.write(b"".join(buffer))
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    git(dest, "checkout", "-q", "-f", "feature")
    sessions = dest / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    start = git(dest, "rev-parse", f"feature~{feature}")
    (sessions / ".task-feature").write_text(
        f"task: benchmark feature\nsession: {start} {SESSION_ID}\n")
    root = git(dest, "rev-list", "--max-parents=0", "main")
    (sessions / ".task-main").write_text(f"session: {root} {SESSION_ID}\n")
    with open(dest / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write(".lets/\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--feature", type=int, default=50)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    build(args.dest, args.commits, args.feature)
    print(f"{args.dest}: {args.commits} commits on main, {args.feature} on feature "
          f"({time.perf_counter() - began:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    raise SystemExit(main())
