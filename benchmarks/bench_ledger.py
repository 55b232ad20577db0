"""What the session ledger costs: the post-commit shim on ``git commit``, the ledger's
hooks on a 50-commit rebase, and reading the ledger as it grows.

    python benchmarks/bench_ledger.py [--runs 31]

- commit: ``git commit --allow-empty`` in a repository with the plain shims installed,
  against the same without the post-commit shim, in turn (medians and their difference);
- rebase: ``git rebase`` of a 50-commit topic onto a moved main, with all six shims,
  against the same without post-commit (the ledger's lines for the picks, and
  post-rewrite's pairs, which it writes anyway);
- reading: ``ledger.read_from`` and ``ledger.read`` on ledgers of 1,000 to 20,000 lines
  (the happy path reads from its line's mark on; a whole read grows linearly).

Every figure is a median of ``--runs`` runs (wall time, the machine as it is).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
SID = "bench-ledger-session"


def env() -> dict[str, str]:
    found = dict(os.environ, LETS_SESSION_ID=SID, GIT_CONFIG_NOSYSTEM="1",
                 GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
                 GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com")
    found["PATH"] = f"{BIN}{os.pathsep}{found.get('PATH', '')}"
    found.pop("PYTHONDONTWRITEBYTECODE", None)  # users' Pythons keep their bytecode
    return found


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env(), check=True, capture_output=True)


def timed(repo: Path, *args: str) -> float:
    began = time.perf_counter()
    git(repo, *args)
    return time.perf_counter() - began


def fresh(root: Path, name: str) -> Path:
    repo = root / name
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env())
    git(repo, "commit", "-q", "--allow-empty", "-m", "root")
    subprocess.run([str(BIN / "lets-hooks"), "install"], cwd=repo, env=env(), check=True,
                   capture_output=True)
    return repo


def bench_commit(root: Path, runs: int) -> None:
    repo = fresh(root, "commit")
    hook = repo / ".git" / "hooks" / "post-commit"
    aside = repo / ".git" / "post-commit.aside"
    with_hook: list[float] = []
    without: list[float] = []
    for _ in range(runs):
        with_hook.append(timed(repo, "commit", "-q", "--allow-empty", "-m", "with"))
        hook.rename(aside)
        without.append(timed(repo, "commit", "-q", "--allow-empty", "-m", "without"))
        aside.rename(hook)
    a, b = statistics.median(with_hook), statistics.median(without)
    print(f"git commit: {a * 1000:.1f} ms with the post-commit shim, {b * 1000:.1f} ms "
          f"without: +{(a - b) * 1000:.1f} ms (medians of {runs})")


def bench_rebase(root: Path, runs: int) -> None:
    samples: dict[bool, list[float]] = {True: [], False: []}
    for i in range(max(3, runs // 4)):
        for keep in (True, False):
            repo = fresh(root, f"rebase-{i}-{keep}")
            git(repo, "switch", "-q", "-c", "topic")
            for k in range(50):
                (repo / f"f{k}.txt").write_text(f"{k}\n")
                git(repo, "add", f"f{k}.txt")
                git(repo, "commit", "-q", "-m", f"topic {k}")
            git(repo, "switch", "-q", "main")
            git(repo, "commit", "-q", "--allow-empty", "-m", "main moves")
            git(repo, "switch", "-q", "topic")
            if not keep:
                (repo / ".git" / "hooks" / "post-commit").unlink()
            samples[keep].append(timed(repo, "rebase", "-q", "main"))
    a, b = statistics.median(samples[True]), statistics.median(samples[False])
    print(f"git rebase of 50 commits: {a * 1000:.0f} ms with the post-commit shim, "
          f"{b * 1000:.0f} ms without: +{(a - b) * 1000:.0f} ms "
          f"(medians of {len(samples[True])})")


def bench_reading(root: Path, runs: int) -> None:
    """A whole read, and the happy path's read of a session's commits once its line's
    mark is there: picked out in one pass over the lines of a ledger up to
    ``ledger.INDEXED`` bytes, found through the ledger's index beyond (made by the first
    read, before the runs)."""
    from lets_hooks import ledger

    for size in (1_000, 5_000, 20_000, 70_000):  # 70,000 lines: 4 MiB, where it is compacted
        common = root / f"reading-{size}"
        (common / ledger.FOLDER).mkdir(parents=True)
        boundary = f"{size:040x}"
        lines = [f"c {n:040x} other-session\n" for n in range(size - 60)]
        lines.append(f"s {boundary} {SID}\n")
        mine = [f"{n + size:040x}" for n in range(50)]
        lines += [f"c {sha} {SID}\n" for sha in mine]
        (common / ledger.FOLDER / ledger.NAME).write_text("".join(lines))
        whole: list[float] = []
        tail: dict[int, list[float]] = {count: [] for count in (1, 3, 10, 20, 50)}
        ledger.read_from(str(common), boundary, SID, mine[:1])  # makes the index
        for _ in range(runs):
            ledger._last_whole = None  # a parse, not the one kept from the last read
            began = time.perf_counter()
            ledger.read(str(common))
            whole.append(time.perf_counter() - began)
            for count, took in tail.items():
                began = time.perf_counter()
                book = ledger.read_from(str(common), boundary, SID, mine[:count])
                took.append(time.perf_counter() - began)
                assert book.placed
        shown = ", ".join(f"{count} commits {statistics.median(took) * 1000:.2f}"
                          for count, took in tail.items())
        print(f"ledger of {size:>6} lines: read whole {statistics.median(whole) * 1000:.2f} ms;"
              f" a session's commits from the line's mark (ms): {shown}")


def bench_index(runs: int) -> None:
    """The index made again once more than ``ledger.INDEXED`` bytes were appended past it,
    over a ledger at its compaction size: made whole, and the kept one extended by the
    lines appended since (what a reader does when the kept one still holds)."""
    from lets_hooks import ledger

    lines = [f"c {n:040x} other-session\n".encode() for n in range(70_000)]
    data = b"".join(lines)
    cut = len(data) - 2 * ledger.INDEXED  # more than INDEXED appended since
    cut = data.rfind(b"\n", 0, cut) + 1
    kept = ledger.build_index(data[:cut])
    took: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(runs):
        for extended in (False, True):
            began = time.perf_counter()
            ledger.build_index(data, kept if extended else None)
            took[extended].append(time.perf_counter() - began)
    whole, grown = (statistics.median(took[k]) * 1000 for k in (False, True))
    print(f"index of a {len(data) / (1 << 20):.1f} MiB ledger made again: whole {whole:.1f} ms, "
          f"the kept one extended {grown:.1f} ms (medians of {runs})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the session ledger.")
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-ledger-"))
    try:
        bench_commit(root, args.runs)
        bench_rebase(root, args.runs)
        bench_reading(root, args.runs)
        bench_index(args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
