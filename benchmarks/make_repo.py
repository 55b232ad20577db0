"""Build a benchmark repository with ``git fast-import``.

Two shapes:

- linear (the default): 100,000 commits on ``main``, one after the other;
- ``--merge-heavy``: ``main`` advancing the way large projects' does, by ``--no-ff``
  merges of many short topic branches (1-20 commits each, a dozen in flight at a time so
  their dates interleave, one in five based on an older point of ``main``), about
  100,000 commits in all, with ``origin/main`` and ``origin/HEAD`` as a clone has them.

Both get the branches the ladder's paths are timed on:

- ``feature``: the happy path, a boundary recorded by this session on a topic with no
  merges (linear: 50 commits off main's tip, the boundary at its base, 50 back;
  merge-heavy: 40 commits, the boundary 30 back);
- ``main``: a boundary at the root commit, the whole history back (walk-heavy);
- ``topic/merged``: forked from main about 2,000 commits back; the session started at
  the fork point and merged main into the topic twice (``git pull`` without rebase): 3
  commits, a merge of main as it was 1,000 commits back, 3 commits, a merge of main's
  tip, 2 commits;
- ``topic/merged-late``: the same, with 2 commits made before the session started, so
  the boundary sits above the fork point (the seed's script accepts this one and counts
  main's merged-in commits as the session's);
- ``topic/estimate``: 12 commits off main about 1,000 commits back, nothing recorded.

    python benchmarks/make_repo.py DEST [--commits N] [--feature N]
    python benchmarks/make_repo.py DEST --merge-heavy [--commits N] [--seed N]

Commits are one second apart and end about an hour ago, so every boundary is well
inside the ladder's 14-day age limit. The task files of the merge-heavy repository carry
a ``session-recorded`` line (recorded now); the linear one's are as they always were
(the age rung then reads the commit's time). Merge commits keep the first parent's
tree plus the topic's file: the trees are plausible, not real merges (the ladder never
reads a tree).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

SESSION_ID = "bench-session"
AUTHOR = b"Bench <bench@example.com>"
MERGED_BACK = 2000  # topic/merged forks this many commits below main's tip
MIDDLE_BACK = 1000  # ... and first merges main as it was this far back
ESTIMATE_BACK = 1000  # topic/estimate forks this far back
IN_FLIGHT = 12  # merge-heavy: topics developed side by side
PULLED = (2, 3, 2)  # topic/pulled: the session's commits, a teammate's, the session's again
SEEN_MERGES = 316  # topic/seen: topic merges on its first-parent line (git's own seen)
SEEN_BACK = 3000  # ... each topic based on main up to this far back
LONG = 10_000  # topic/long: a session of this many commits
APART = 3600  # the topics' sessions happen an hour apart
TOPICS_SPAN = LONG + 3 * SEEN_MERGES * 5 + 7 * APART  # seconds the topics' own work takes
OLDER_BASE = 0.2  # ... the share based on an older point of main


def stream(commits: int, feature: int, start: int, feature_start: int) -> Iterator[bytes]:
    """The fast-import stream: main (from ``start``), then the feature branch off main's
    tip (from ``feature_start``)."""
    author = AUTHOR
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
        when = feature_start + k
        message = f"feature commit {k}\n".encode()
        body = f"feature {k}\n".encode()
        yield b"commit refs/heads/feature\nmark :%d\n" % mark
        yield b"committer %s %d +0000\n" % (author, when)
        yield b"data %d\n%s" % (len(message), message)
        yield b"from :%d\n" % (mark - 1)
        yield b"M 644 inline feature.txt\ndata %d\n%s\n" % (len(body), body)


# -- the merge-heavy history and the topics every shape gets ----------------------------------

class Trunk:
    """main's first-parent line as it was written: (mark, committer time, commits made
    up to and including it), oldest first."""

    def __init__(self) -> None:
        self.line: list[tuple[int, int, int]] = []

    def add(self, mark: int, when: int, made: int) -> None:
        self.line.append((mark, when, made))

    def back(self, commits: int) -> int:
        """The index of the newest first-parent commit at least ``commits`` below the tip."""
        limit = self.line[-1][2] - commits
        low, high = 0, len(self.line) - 1
        while low < high:  # the last index whose count is <= limit
            middle = (low + high + 1) // 2
            if self.line[middle][2] <= limit:
                low = middle
            else:
                high = middle - 1
        return low


class Writer:
    """Commits for the fast-import stream, with marks handed out in order."""

    def __init__(self, first_mark: int) -> None:
        self.mark = first_mark - 1
        self.chunks: list[bytes] = []
        # (when, mark, reflog message) of the commits this work tree made: they go into
        # its HEAD reflog, the record the witness reads
        self.here: list[tuple[int, int, str]] = []

    def commit(self, ref: str, when: int, message: str, parents: list[int], path: str,
               body: str, here: bool = False) -> int:
        self.mark += 1
        if here:
            kind = "merge main: Merge made by the 'ort' strategy." if len(parents) > 1 \
                else "commit: " + message
            self.here.append((when, self.mark, kind))
        text = message.encode() + b"\n"
        content = body.encode() + b"\n"
        out = [b"commit %s\nmark :%d\n" % (ref.encode(), self.mark),
               b"committer %s %d +0000\n" % (AUTHOR, when),
               b"data %d\n%s" % (len(text), text)]
        if parents:
            out.append(b"from :%d\n" % parents[0])
        out += [b"merge :%d\n" % p for p in parents[1:]]
        out.append(b"M 644 inline %s\ndata %d\n%s\n" % (path.encode(), len(content), content))
        self.chunks.append(b"".join(out))
        return self.mark

    def take(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


class Topic:
    """A short topic branch in flight: its tip, commits made, commits it will have."""

    __slots__ = ("made", "name", "path", "target", "tip")

    def __init__(self, name: int, base: int, target: int) -> None:
        self.name = name
        self.tip = base
        self.made = 0
        self.target = target
        self.path = f"t/{name % 32}/{name // 32 % 32}.txt"


def merge_heavy(writer: Writer, commits: int, start: int, seed: int,
                trunk: Trunk) -> Iterator[bytes]:
    """main as a stream of ``--no-ff`` merges of short topics, about ``commits`` commits
    in all (every topic is merged, so it ends a few commits past)."""
    rng = random.Random(seed)
    clock, made = start + 1, 1
    tip = writer.commit("refs/heads/main", clock, "initial commit", [], "README", "bench")
    trunk.add(tip, clock, made)
    flying: list[Topic] = []
    topics = 0
    while made < commits or flying:
        opening = made < commits - IN_FLIGHT * 11 or not flying
        if opening and (len(flying) < IN_FLIGHT and (not flying or rng.random() < 0.5)):
            base = tip
            if rng.random() < OLDER_BASE and len(trunk.line) > 2:
                base = trunk.line[-rng.randint(2, min(len(trunk.line), 300))][0]
            topics += 1
            flying.append(Topic(topics, base, rng.randint(1, 20)))
            continue
        clock += 1
        made += 1
        if rng.random() < 0.01:  # now and then a commit straight on main
            tip = writer.commit("refs/heads/main", clock, f"direct commit {made}", [tip],
                                "NEWS", f"news {made}")
            trunk.add(tip, clock, made)
        else:
            topic = rng.choice(flying)
            if topic.made < topic.target:
                topic.made += 1
                topic.tip = writer.commit("refs/bench/topic", clock,
                                          f"topic {topic.name}: step {topic.made}",
                                          [topic.tip], topic.path,
                                          f"topic {topic.name} step {topic.made}")
            else:
                flying.remove(topic)
                tip = writer.commit("refs/heads/main", clock,
                                    f"Merge branch 'topic-{topic.name}'",
                                    [tip, topic.tip], topic.path,
                                    f"topic {topic.name} merged")
                trunk.add(tip, clock, made)
        if len(writer.chunks) >= 2048:
            yield writer.take()
    yield writer.take()


def merge_branch_topic(writer: Writer, trunk: Trunk, name: str, before: int,
                       after_tip: int) -> int:
    """A topic forked from main ``MERGED_BACK`` commits back that merged main twice
    (``git pull`` without rebase): ``before`` commits ahead of the session, then 3
    commits, a merge of main ``MIDDLE_BACK`` back, 3 commits, a merge of main's tip, 2
    commits (those after main's tip dated from ``after_tip``). Returns the boundary's
    mark."""
    fork, middle, top = trunk.back(MERGED_BACK), trunk.back(MIDDLE_BACK), len(trunk.line) - 1
    ref = "refs/heads/" + name
    path = name.replace("/", "-") + ".txt"
    tip = trunk.line[fork][0]

    def spread(low: int, high: int, k: int, n: int) -> int:
        return trunk.line[low + (high - low) * (k + 1) // (n + 1)][1]

    def commits(count: int, low: int, high: int, label: str, here: bool = True) -> None:
        nonlocal tip
        for k in range(count):
            when = spread(low, high, k, count) if high > low else after_tip + k
            tip = writer.commit(ref, when, f"{name}: {label} {k + 1}", [tip], path,
                                f"{label} {k + 1}", here=here)

    def merge_main(at: int) -> None:
        nonlocal tip
        mark, when, _ = trunk.line[at]
        tip = writer.commit(ref, when if at != top else after_tip - 1,
                            f"Merge branch 'main' into {name}", [tip, mark], path,
                            f"merged main {at}", here=True)

    quarter = fork + (middle - fork) // 4
    commits(before, fork, quarter, "before the session", here=False)
    boundary = tip
    commits(3, quarter, middle, "session")
    merge_main(middle)
    commits(3, middle, top, "after the first merge")
    merge_main(top)
    commits(2, top, top, "after the second merge")
    return boundary


def topics(writer: Writer, trunk: Trunk, feature: int, feature_back: int
           ) -> tuple[dict[str, int], int]:
    """The timed branches besides main, written to ``writer``; returns branch -> the mark
    of its boundary, and when the feature branch's work starts (the session's newest
    work: after every other branch's). ``feature`` 0: the linear shape makes ``feature``
    itself."""
    boundaries: dict[str, int] = {}
    tip_mark, tip_when, _ = trunk.line[-1]
    clock = tip_when + APART
    boundaries["topic/merged"] = merge_branch_topic(writer, trunk, "topic/merged", 0, clock)
    clock += APART
    boundaries["topic/merged-late"] = merge_branch_topic(writer, trunk, "topic/merged-late", 2,
                                                         clock)
    clock += APART
    fork, top = trunk.back(ESTIMATE_BACK), len(trunk.line) - 1
    head = trunk.line[fork][0]
    for k in range(12):
        when = trunk.line[fork + (top - fork) * (k + 1) // 13][1]
        head = writer.commit("refs/heads/topic/estimate", when, f"estimate commit {k + 1}",
                             [head], "estimate.txt", f"estimate {k + 1}", here=True)
    clock, boundaries["topic/pulled"] = pulled(writer, tip_mark, clock)
    clock += APART
    boundaries["topic/long"] = tip_mark
    head = tip_mark
    for k in range(LONG):
        clock += 1
        head = writer.commit("refs/heads/topic/long", clock, f"long session {k + 1}", [head],
                             "long.txt", f"long {k + 1}", here=True)
    clock = seen(writer, trunk, clock + APART) + APART
    for k in range(feature):
        if k == feature - feature_back:
            boundaries["feature"] = tip_mark if k == 0 else head
        if k == 0:
            head = tip_mark
        clock += 1
        # the commits below the boundary came with the branch (fetched), not this session
        head = writer.commit("refs/heads/feature", clock, f"feature commit {k + 1}", [head],
                             "feature.txt", f"feature {k + 1}",
                             here=k >= feature - feature_back)
    return boundaries, clock + 1


def pulled(writer: Writer, base: int, clock: int) -> tuple[int, int]:
    """``topic/pulled``: the session's commits, a teammate's pushed on top (pulled with
    ``--ff-only``: only the fast-forward is in this work tree's reflog), the session's
    again. Returns the clock after it and the boundary's mark."""
    mine, theirs, again = PULLED
    head = base
    for k in range(mine + theirs + again):
        clock += 1
        own = not mine <= k < mine + theirs
        who = "mine" if own else "teammate"
        head = writer.commit("refs/heads/topic/pulled", clock, f"pulled: {who} {k + 1}",
                             [head], f"pulled-{who}.txt", f"{who} {k + 1}", here=own)
        if k == mine + theirs - 1:
            writer.here.append((clock + 1, head, "pull --ff-only: Fast-forward"))
            clock += 1
    return clock, base


def seen(writer: Writer, trunk: Trunk, clock: int) -> int:
    """``topic/seen``, shaped like git's own ``seen``: main's tip, then a long
    first-parent line of ``--no-ff`` merges of short topics (1-4 commits each, based on
    main up to ``SEEN_BACK`` commits back), none of them made here (a clone's)."""
    rng = random.Random(316)
    head = trunk.line[-1][0]
    for n in range(SEEN_MERGES):
        base_at = trunk.back(rng.randint(0, SEEN_BACK))
        tip = trunk.line[base_at][0]
        for k in range(rng.randint(1, 4)):
            clock += 1
            tip = writer.commit("refs/bench/topic", clock, f"seen topic {n}: step {k + 1}",
                                [tip], f"seen/{n % 64}.txt", f"seen {n} {k}")
        clock += 1
        head = writer.commit("refs/heads/topic/seen", clock, f"Merge branch 'seen-{n}' into seen",
                             [head, tip], f"seen/{n % 64}.txt", f"seen {n} merged")
    return clock


def write_reflog(dest: Path, writer: Writer, shas: dict[int, str], first: str,
                 first_when: int) -> None:
    """This work tree's HEAD reflog as git writes it: cloned at ``first``, then a line per
    commit made here, oldest first, then whatever git has logged since (the checkout)."""
    log = dest / ".git" / "logs" / "HEAD"
    since = log.read_bytes() if log.exists() else b""
    ident = AUTHOR.decode()
    lines = [f"{'0' * 40} {first} {ident} {first_when} +0000\tclone: from bench"]
    previous = first
    for when, mark, message in sorted(writer.here):
        sha = shas.get(mark)
        if sha is None:
            continue
        lines.append(f"{previous} {sha} {ident} {when} +0000\t{message}")
        previous = sha
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(("\n".join(lines) + "\n").encode() + since)
    # the session ledger the post-commit hook writes as each of those commits is made (a
    # pull's fast-forward moves HEAD to a teammate's commit: logged, but no commit made)
    made = [f"c {shas[mark]} {SESSION_ID}\n" for _, mark, message in sorted(writer.here)
            if mark in shas and not message.startswith("pull")]
    ledger = dest / ".git" / "lets-hooks" / "ledger"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text("".join(made))


def mark_lines(dest: Path) -> None:
    """The ledger's ``s`` lines: each task file's line was written (by a session start or
    a first checkout) when its boundary was HEAD, before the session's commits above it."""
    ledger = dest / ".git" / "lets-hooks" / "ledger"
    lines = ledger.read_text().splitlines() if ledger.exists() else []
    shas = [line.split()[1] for line in lines]
    boundaries = []
    for task in sorted((dest / ".lets" / "sessions").glob(".task-*")):
        for row in task.read_text().splitlines():
            if row.startswith("session: "):
                boundaries.append(row.split()[1])
                break
    asked = "\n".join(dict.fromkeys([*shas, *boundaries])) + "\n"
    out = subprocess.run(["git", "-C", str(dest), "log", "--no-walk=unsorted", "--stdin",
                          "--format=%H %ct"], input=asked, check=True, capture_output=True,
                         text=True).stdout
    when = {sha: int(t) for sha, t in (row.split() for row in out.splitlines())}
    events = [(when.get(sha, 0), 1, line) for sha, line in zip(shas, lines)]
    events += [(when.get(b, 0), 0, f"s {b} {SESSION_ID}") for b in boundaries]
    ledger.write_text("".join(line + "\n" for _, _, line in sorted(events)))


def stamps(dest: Path, boundaries: dict[str, str]) -> dict[str, str]:
    """Each branch's ``session-recorded`` time: when its boundary was HEAD (its commit's
    own time): the session began there, before the commits it made."""
    found = {}
    for branch, sha in boundaries.items():
        when = int(git(dest, "show", "-s", "--format=%ct", sha))
        found[branch] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
    return found


# -- building ---------------------------------------------------------------------------------

def git(dest: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def fast_import(dest: Path, chunks: Iterator[bytes], marks: Path) -> dict[int, str]:
    """Feed the stream to ``git fast-import``; returns its marks (mark -> sha)."""
    proc = subprocess.Popen(["git", "-C", str(dest), "fast-import", "--quiet",
                             f"--export-marks={marks}"], stdin=subprocess.PIPE)
    assert proc.stdin is not None
    buffer: list[bytes] = []
    for chunk in chunks:
        buffer.append(chunk)
        if len(buffer) >= 4096:
            proc.stdin.write(b"".join(buffer))
            buffer.clear()
    proc.stdin.write(b"".join(buffer))
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    found = {}
    for line in marks.read_text().splitlines():
        mark, _, sha = line.partition(" ")
        found[int(mark[1:])] = sha
    return found


def write_state(dest: Path, boundaries: dict[str, str], recorded: bool) -> None:
    """A task file per branch (with its ``session-recorded`` time when ``recorded``), and
    ``.lets/`` kept out of commits."""
    sessions = dest / ".lets" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    when = stamps(dest, boundaries) if recorded else {}
    for branch, sha in boundaries.items():
        text = "task: benchmark feature\n" if branch == "feature" else ""
        text += f"session: {sha} {SESSION_ID}\n"
        if recorded:
            text += f"session-recorded: {sha} {when[branch]}\n"
        (sessions / (".task-" + branch.replace("/", "-"))).write_text(text)
    exclude = dest / ".git" / "info" / "exclude"
    if ".lets/" not in exclude.read_text().splitlines():
        with open(exclude, "a") as out:
            out.write(".lets/\n")


def init(dest: Path) -> None:
    if dest.exists():
        raise SystemExit(f"{dest}: already exists; choose a new folder")
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)


def build(dest: Path, commits: int, feature: int) -> None:
    init(dest)
    start = int(time.time()) - 600 - TOPICS_SPAN - feature - commits
    trunk = Trunk()
    for n in range(1, commits + 1):
        trunk.add(n, start + n, n)
    writer = Writer(commits + feature + 1)
    boundaries, feature_start = topics(writer, trunk, 0, 0)
    for k in range(1, feature + 1):
        writer.here.append((feature_start + k, commits + k, f"commit: feature commit {k}"))

    def chunks() -> Iterator[bytes]:
        yield from stream(commits, feature, start, feature_start)
        yield writer.take()

    with tempfile.TemporaryDirectory() as scratch:
        shas = fast_import(dest, chunks(), Path(scratch) / "marks")
    git(dest, "update-ref", "-d", "refs/bench/topic")
    git(dest, "checkout", "-q", "-f", "feature")
    write_reflog(dest, writer, shas, shas[commits], start + 1)
    sessions = dest / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    start_sha = git(dest, "rev-parse", f"feature~{feature}")
    (sessions / ".task-feature").write_text(
        f"task: benchmark feature\nsession: {start_sha} {SESSION_ID}\n")
    root = git(dest, "rev-list", "--max-parents=0", "main")
    (sessions / ".task-main").write_text(f"session: {root} {SESSION_ID}\n")
    write_state(dest, {b: shas[m] for b, m in boundaries.items()}, recorded=True)
    mark_lines(dest)


def build_merge_heavy(dest: Path, commits: int, feature: int, feature_back: int,
                      seed: int) -> None:
    init(dest)
    trunk = Trunk()
    writer = Writer(1)
    start = (int(time.time()) - 600 - TOPICS_SPAN - commits - IN_FLIGHT * 21 - feature
             - 300)
    boundaries: dict[str, int] = {}

    def chunks() -> Iterator[bytes]:
        yield from merge_heavy(writer, commits, start, seed, trunk)  # fills ``trunk``
        boundaries.update(topics(writer, trunk, feature, feature_back)[0])
        yield writer.take()

    with tempfile.TemporaryDirectory() as scratch:
        shas = fast_import(dest, chunks(), Path(scratch) / "marks")
    git(dest, "update-ref", "-d", "refs/bench/topic")
    git(dest, "update-ref", "refs/remotes/origin/main", "main")
    git(dest, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    git(dest, "checkout", "-q", "-f", "feature")
    write_reflog(dest, writer, shas, shas[trunk.line[-1][0]], start + 1)
    found = {b: shas[m] for b, m in boundaries.items()}
    found["main"] = shas[trunk.line[0][0]]
    write_state(dest, found, recorded=True)
    mark_lines(dest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--merge-heavy", action="store_true",
                        help="main as merges of many short topics, with origin/main")
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--feature", type=int, default=None,
                        help="commits on feature (linear: 50; merge-heavy: 40)")
    parser.add_argument("--feature-back", type=int, default=30,
                        help="merge-heavy: the feature boundary this many commits back")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args(argv)
    if args.merge_heavy and args.feature is not None and args.feature_back > args.feature:
        parser.error("--feature-back must not exceed --feature")
    began = time.perf_counter()
    if args.merge_heavy:
        feature = 40 if args.feature is None else args.feature
        build_merge_heavy(args.dest, args.commits, feature, args.feature_back, args.seed)
        total = git(args.dest, "rev-list", "--count", "--all")
        merges = git(args.dest, "rev-list", "--count", "--merges", "main")
        print(f"{args.dest}: {int(total):,} commits ({int(merges):,} merges on main), "
              f"{feature} on feature ({time.perf_counter() - began:.1f} s)", file=sys.stderr)
    else:
        feature = 50 if args.feature is None else args.feature
        build(args.dest, args.commits, feature)
        print(f"{args.dest}: {args.commits} commits on main, {feature} on feature "
              f"({time.perf_counter() - began:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    raise SystemExit(main())
