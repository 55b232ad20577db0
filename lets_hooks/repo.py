"""The one door to git.

Every git process the product starts is started here, as a plain argument list (never a
shell). Callers ask for answers, not for commands: one ``rev-parse`` for the work tree,
the git dir, HEAD's branch and HEAD's commit; one ``cat-file`` for several objects; one
``rev-list`` walk for an ancestor test and a count together. Processes are spawned with
``os.posix_spawnp`` where it exists, not ``subprocess`` (guard: benchmarks/bench_boundary.py).
"""

from __future__ import annotations

import os
from itertools import combinations, islice, takewhile

from lets_hooks import files, gitfiles, reflog

TYPE_CHECKING = False  # True to mypy; keeps typing unimported (tests/test_hooks_imports.py)
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

NULL_SHA = "0" * 40
_ERR_KEEP = 4096  # enough of git's stderr for its first line


class GitError(Exception):
    """git could not be run, or failed; ``str()`` names the git subcommand and gives
    git's own reason (its first line on stderr) when it said one."""


class GitMissing(GitError):
    """No git executable on PATH."""


class NotARepository(GitError):
    """The folder is not inside a git repository."""


def failure(args: Sequence[str], code: int, err: bytes) -> GitError:
    """The error for ``git <args>`` that exited ``code`` having said ``err``."""
    sub = ""
    words = iter(args)
    for word in words:
        if word == "-c":
            next(words, None)  # a setting's value, not the subcommand
        elif not word.startswith("-"):
            sub = word
            break
    lines = (line.strip() for line in err.decode("utf-8", "backslashreplace").split("\n"))
    first = next((line for line in lines if line), "")
    first = first.removeprefix("fatal: ").removeprefix("error: ")
    if "dubious ownership" in first:
        where = first.rpartition(" at ")[2].strip("'")
        return GitError(f"git {sub}: {first} (git's safe.directory check; if you trust it: "
                        f"git config --global --add safe.directory {where})")
    if first.startswith("not a git repository"):
        return NotARepository("not a git repository")
    if first:
        return GitError(f"git {sub} failed: {first}")
    return GitError(f"git {sub} failed (exit status {code})")


def reason(exc: BaseException) -> str:
    """One line for any failure: git's own words for a ``GitError``, else the exception."""
    if isinstance(exc, NotARepository):
        return "not inside a git repository"
    text = str(exc)
    if isinstance(exc, GitError):
        return text or "git failed"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# Nothing asked of git needs the network, yet in a partial clone git fetches a missing
# object on its own (a slow remote hangs the hook). For every git process started here
# (tests/test_fences.py::test_a_partial_clone_never_fetches):
# - GIT_NO_LAZY_FETCH=1 (git 2.44 on, and 2.39.4 on): a missing object is missing;
# - GIT_ALLOW_PROTOCOL empty (git 2.6 on): an older git's fetch refuses every transport
#   before it connects, whatever protocol.*.allow says (``objects`` copes with a
#   cat-file that dies with it:
#   tests/test_fences.py::test_without_the_no_lazy_fetch_switch_no_transport_starts).
NO_NETWORK = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": ""}


def run_program(argv: list[str], cwd: str | None = None,
                environ: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a program that is not git (doctor's probe of a hook shim, ``lets-hooks
    --version``): (exit status, stdout, stderr) as text, never raising. Kept here so this
    module stays the one place that starts processes (tests/test_hostile.py)."""
    import subprocess

    try:
        done = subprocess.run(argv, cwd=cwd, env=environ, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return 1, "", str(exc)
    return (done.returncode, done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


# ``cat-file --batch`` of a few names: loading the commit-graph costs more than the
# lookups, and the answers are the same (guard: benchmarks/bench_boundary.py)
_BATCH = ("-c", "core.commitGraph=false", "cat-file", "--batch")
_FLOOR = ("rev-list", "--parents", "--stdin")
_ABOVE = ("rev-list", "--boundary", "--stdin")
_MARK = "\x01lets\x01"  # begins each commit's line in the ``log --format``s below
_REFLOG = ("log", "-g", "--date=unix", "--format=%H %gd %gs")  # Repo.reflog_entries
# ``Repo.locate``'s one question: rev-parse answers in this order and stops at the first
# name it cannot resolve (so ``origin/HEAD``, which may be missing, goes last)
_LOCATE = ("rev-parse", "--is-inside-work-tree", "HEAD", "--symbolic-full-name", "HEAD",
           "--absolute-git-dir", "--show-toplevel", "refs/remotes/origin/HEAD", "--")


def _in_folder(argv: list[str], cwd: str | None) -> list[str]:
    """``argv`` with git's own ``-C cwd``, not a working folder: posix_spawn has none, and a
    folder that is gone is then git's to say (not taken for git missing)."""
    return argv if cwd is None else [argv[0], "-C", cwd, *argv[1:]]


def _spawn(argv: list[str], cwd: str | None, stdin: bytes | None) -> tuple[int, bytes, bytes]:
    """Run ``argv``: (exit status, stdout, the first few KB of stderr). Two transports:
    memory files where the system has them (Linux), ``subprocess`` everywhere else."""
    argv = _in_folder(argv, cwd)
    if _MEMFD:
        try:
            return _start(argv, stdin).result()
        except _NoMemoryFiles:
            pass  # refused here (a sandbox's seccomp, an old kernel): subprocess from now on
    import subprocess

    try:
        done = subprocess.run(argv, input=stdin or b"", capture_output=True, check=False,
                              env={**os.environ, **NO_NETWORK})
    except FileNotFoundError as exc:
        raise GitMissing("git is not installed or not on PATH") from exc
    return done.returncode, done.stdout, done.stderr[:_ERR_KEEP]


# Linux: git writes its answers into memory files and reads its input from one: a long
# answer (4 MB of shas) is read back in one call, not through a pipe 4 KB at a time
# (guard: benchmarks/bench_boundary.py, walk-heavy), and no process left holding the
# output open can keep the reader waiting.
_MEMFD = hasattr(os, "memfd_create") and hasattr(os, "posix_spawnp")


class _NoMemoryFiles(Exception):
    """The system refused a memory file: git's answers come through ``subprocess`` instead."""


def _memory_file(name: str) -> int:
    global _MEMFD
    try:
        return os.memfd_create(name, getattr(os, "MFD_CLOEXEC", 1))
    except OSError as exc:
        _MEMFD = False
        raise _NoMemoryFiles(str(exc)) from exc


class Started:
    """A git process writing into memory files, not yet waited for (``Repo._started``);
    ``feed``: the pipe its input is still to come through (``Repo.prepare_objects``)."""

    __slots__ = ("err", "feed", "out", "pid")

    def __init__(self, pid: int, out: int, err: int, feed: int = -1) -> None:
        self.pid = pid
        self.out = out
        self.err = err
        self.feed = feed

    def send(self, data: bytes) -> None:
        """Its whole input, then its end (git answers into memory: never a full pipe)."""
        try:
            files.write_all(self.feed, data)
        except BrokenPipeError:
            pass  # it died (its exit status says why)
        finally:
            self._end_input()

    def _end_input(self) -> None:
        if self.feed >= 0:
            os.close(self.feed)
            self.feed = -1

    def result(self) -> tuple[int, bytes, bytes]:
        """Wait for it: (exit status, stdout, the first few KB of stderr)."""
        try:
            self._end_input()
            _, status = os.waitpid(self.pid, 0)
            return (os.waitstatus_to_exitcode(status), _read_back(self.out, -1),
                    _read_back(self.err, _ERR_KEEP))
        finally:
            os.close(self.out)
            os.close(self.err)

    def drop(self) -> None:
        """Its answer is not needed: stop it (it only reads) and reap it."""
        try:
            os.kill(self.pid, 9)  # SIGKILL (the ``signal`` module costs an import)
        finally:
            self.result()


def _start(argv: list[str], stdin: bytes | None, fed: bool = False) -> Started:
    """``argv`` started writing into memory files, reading ``stdin`` (from a memory
    file), or with ``fed`` from a pipe its input is written to later (``Started.send``)."""
    out = _memory_file("git-out")
    try:
        err = _memory_file("git-err")
    except _NoMemoryFiles:
        os.close(out)
        raise
    given = feed = -1
    try:
        if fed:
            given, feed = os.pipe()  # neither end inherited by the git processes after it
        elif stdin:
            given = _memory_file("git-in")
            files.write_all(given, stdin)
            os.lseek(given, 0, os.SEEK_SET)
        else:
            given = os.open(os.devnull, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        actions = [(os.POSIX_SPAWN_DUP2, given, 0), (os.POSIX_SPAWN_DUP2, out, 1),
                   (os.POSIX_SPAWN_DUP2, err, 2)]
        try:
            pid = os.posix_spawnp(argv[0], argv, {**os.environ, **NO_NETWORK},
                                  file_actions=actions)
        except FileNotFoundError as exc:
            raise GitMissing("git is not installed or not on PATH") from exc
        finally:
            os.close(given)
    except BaseException:
        os.close(out)
        os.close(err)
        if feed >= 0:
            os.close(feed)
        raise
    return Started(pid, out, err, feed)


def _read_back(fd: int, cap: int) -> bytes:
    """What a process wrote into the memory file ``fd`` (at most ``cap`` bytes; -1: all)."""
    size = os.fstat(fd).st_size
    want = size if cap < 0 else min(size, cap)
    data = os.pread(fd, want, 0)  # a regular file: one read, up to about 2 GiB on Linux
    while len(data) < want:  # read on from where it stopped
        more = os.pread(fd, want - len(data), len(data))
        if not more:
            break
        data += more
    return data


class Location:
    """Where we are: work tree (None when there is none), git dir, HEAD."""

    __slots__ = ("branch", "git_dir", "head", "origin_head", "top")

    def __init__(self, top: str | None, git_dir: str, branch: str | None, head: str | None,
                 origin_head: str | None = None) -> None:
        self.top = top  # None when there is no work tree (bare, or inside .git)
        self.git_dir = git_dir
        self.branch = branch  # short name; None when HEAD is detached
        self.head = head  # commit sha; None when HEAD is unborn
        self.origin_head = origin_head  # the branch origin/HEAD points at, e.g. "main"


class ObjectInfo:
    """What ``cat-file`` says of one name (of a commit: its committer time)."""

    __slots__ = ("commit_time", "name", "sha", "type")

    def __init__(self, name: str, sha: str | None, type: str | None,
                 commit_time: int | None = None) -> None:
        self.name = name
        self.sha = sha
        self.type = type
        self.commit_time = commit_time


class Floor:
    """Where a commit's first-parent line meets the history of some stops.

    ``stop``: the first commit of the line (full sha) reachable from a stop, or None at a
    root; ``count``: the line's commits before it; ``linear``: none of those is a merge.
    """

    __slots__ = ("count", "linear", "raw", "stop", "width")

    def __init__(self, stop: str | None, count: int, linear: bool, raw: bytes = b"",
                 width: int = 40) -> None:
        self.stop = stop
        self.count = count
        self.linear = linear
        self.raw = raw  # the walk's own listing (``rev-list --parents``), when it made one
        self.width = width

    def commits(self) -> list[str]:
        """The commits the walk printed (reachable from the head and from no stop),
        newest first (as ``Repo.above`` lists a range)."""
        raw, width = self.raw, self.width
        if self.linear:
            step = 2 * width + 2
            return [raw[i:i + width].decode("ascii") for i in range(0, len(raw), step)]
        return [line[:width].decode("ascii") for line in raw.split(b"\n") if line]

    def frontier(self) -> list[str]:
        """The parents of printed commits that were not printed (reachable from a stop),
        each once: where the head's history meets the stops'."""
        rows = [line.split() for line in self.raw.split(b"\n") if line]
        printed = {row[0] for row in rows}
        parents = (p for row in rows for p in row[1:] if p not in printed)
        return list(dict.fromkeys(p.decode("ascii") for p in parents))


class Repo:
    """A repository, reached through git processes. Counts the processes it starts."""

    def __init__(self, cwd: str | None = None, git: str = "git") -> None:
        self.cwd = cwd
        self.git = git
        self.calls = 0
        self.last_error = b""  # git's stderr from the last process, for messages
        self._worktree_list: list[dict[str, str]] | None = None  # asked once a command
        self._batch: Started | None = None  # ``prepare_objects``
        self._where: Started | None = None  # ``prepare_locate``

    # -- plumbing ---------------------------------------------------------------------
    def run(self, *args: str, stdin: bytes | None = None) -> tuple[int, bytes]:
        self.calls += 1
        code, out, self.last_error = _spawn([self.git, *args], self.cwd, stdin)
        return code, out

    def _out(self, *args: str) -> str | None:
        """git's output as text, or None when git failed (the caller decides)."""
        code, out = self.run(*args)
        return out.decode("utf-8", "surrogateescape") if code == 0 else None

    def _must(self, *args: str, stdin: bytes | None = None) -> bytes:
        """git's output; a failure raises ``GitError`` with git's own reason."""
        code, out = self.run(*args, stdin=stdin)
        if code != 0:
            raise failure(args, code, self.last_error)
        return out

    def _answer(self, *args: str, stdin: bytes | None = None) -> tuple[bool, bytes]:
        """Whether git said yes (exit status 0) or no (1), and its output; any other
        status is a failure: ``GitError`` with git's own reason, never a "no"."""
        code, out = self.run(*args, stdin=stdin)
        if code not in (0, 1):
            raise failure(args, code, self.last_error)
        return code == 0, out

    # -- where are we -----------------------------------------------------------------
    def locate(self) -> Location:
        """Work tree, git dir, HEAD, its branch and ``origin/HEAD``'s target: one process
        (``_LOCATE``). The two paths sit between answers of known shape, so a path holding
        a newline is still read whole. An unborn HEAD or no work tree takes the slow path.
        """
        started, self._where = self._where, None
        if started is not None:  # asked already (``prepare_locate``)
            code, raw, self.last_error = started.result()
        else:
            code, raw = self.run(*_LOCATE)
        lines = _lines(raw.decode("utf-8", "surrogateescape"))
        if code == 0 and lines and lines[-1] == "--":
            lines.pop()  # rev-parse echoes the separator once every name resolved
        origin = None
        if code == 0 and len(lines) >= 6 and lines[-1].startswith("refs/remotes/"):
            origin = lines.pop()
        if len(lines) >= 5 and lines[0] == "true" and files.is_sha(lines[1]):
            head, ref = lines[1], lines[2]
            paths = _split_paths(lines[3:], 2)
            if paths is not None:
                git_dir, top = paths
                return Location(top, git_dir, branch_of(ref), head, _short_remote(origin))
        if code != 0 and not lines:
            raise failure(("rev-parse",), code, self.last_error)
        return self._locate_slow()

    def _locate_slow(self) -> Location:
        """The unusual places: no work tree (bare, inside .git), unborn HEAD. One answer
        per process, so each path is the whole output less its final newline."""
        inside = self._one("rev-parse", "--is-inside-work-tree")
        git_dir = self._one("rev-parse", "--absolute-git-dir")
        top: str | None = None
        try:
            top = self._one("rev-parse", "--show-toplevel") or None
        except GitError:
            # outside a work tree git may still work on one (``GIT_WORK_TREE``, a
            # submodule's ``core.worktree``); a bare repository or a plain ``.git`` has none
            if inside == "true":
                raise
        ref = (self._out("symbolic-ref", "-q", "HEAD") or "").strip()
        head = (self._out("rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
        origin = (self._out("symbolic-ref", "-q", "--end-of-options",
                            "refs/remotes/origin/HEAD") or "").strip() or None
        return Location(top, git_dir, branch_of(ref), head, _short_remote(origin))

    def _one(self, *args: str) -> str:
        """A one-value answer, whole (a path may hold a newline); ``GitError`` on failure."""
        out = self._must(*args).decode("utf-8", "surrogateescape")
        return out[:-1] if out.endswith("\n") else out

    def common_dir(self) -> str:
        """The git directory shared by every work tree (absolute)."""
        path = self._one("rev-parse", "--git-common-dir")
        return os.path.normpath(os.path.join(self.cwd or os.getcwd(), path))

    # -- objects ----------------------------------------------------------------------
    def objects(self, names: Sequence[str]) -> list[ObjectInfo]:
        """Resolve names (shas, abbreviations, refs) with one ``cat-file --batch``, the
        names on stdin (none can act as an option); a commit's time is read from its header.

        In a partial clone, a git without ``GIT_NO_LAZY_FETCH`` may die with the refused
        fetch of a missing object (``NO_NETWORK``), and any git dies on a reflog entry past
        the log's end (``HEAD@{1}`` with one entry): its answers up to then stand, the name
        it died on is missing, and the names after it are asked again.
        """
        clean = [n for n in names if n and "\n" not in n]
        if not clean:
            self.drop_prepared()
            return [ObjectInfo(n, None, None) for n in names]
        found: dict[str, ObjectInfo] = {}
        todo = clean
        while todo:
            given = "".join(n + "\n" for n in todo).encode("utf-8", "surrogateescape")
            started, self._batch = self._batch, None
            if started is not None:
                started.send(given)
                code, raw, self.last_error = started.result()
            else:
                code, raw = self.run(*_BATCH, stdin=given)
            answered = 0
            for name, header, body in _batch_answers(todo, raw):
                if header is None:
                    found[name] = ObjectInfo(name, None, None)
                elif header[1] == "commit":
                    found[name] = ObjectInfo(name, header[0], "commit", _commit_time(body))
                else:
                    found[name] = ObjectInfo(name, header[0], header[1])
                answered += 1
            if code == 0:
                break
            err = self.last_error  # NO_NETWORK refused a fetch: git died of SIGPIPE or said so
            refused = code in (-13, 128 + 13) or b"not allowed" in err or b"fetch subprocess" in err
            beyond = b"fatal: log for " in err  # a reflog entry past the log's end
            if answered >= len(todo) or not (refused or beyond):
                raise failure(("cat-file",), code, err)
            found[todo[answered]] = ObjectInfo(todo[answered], None, None)
            todo = todo[answered + 1:]
        return [found.get(n, ObjectInfo(n, None, None)) for n in names]

    def prepare_objects(self) -> None:
        """Start the ``cat-file --batch`` the next ``objects`` asks, its names to come:
        git sets itself up beside the questions asked before it."""
        if self._batch is None:
            self._batch = self._started(_BATCH, fed=True)

    def prepare_locate(self) -> None:
        """Start the ``rev-parse`` the next ``locate`` asks: its answer comes while the
        caller does other work (a command's own imports)."""
        if self._where is None:
            self._where = self._started(_LOCATE)

    def _started(self, args: Sequence[str], fed: bool = False) -> Started | None:
        """``git ARGS`` started, to be waited for later; None without memory files (then
        it is asked when needed). Guard: ``benchmarks/bench_boundary.py --trace``."""
        if not _MEMFD:
            return None
        try:
            started = _start(_in_folder([self.git, *args], self.cwd), None, fed)
        except _NoMemoryFiles:
            return None
        self.calls += 1
        return started

    def drop_prepared(self) -> None:
        """The prepared ``cat-file`` and ``rev-parse`` are not needed (the command ended
        before asking)."""
        for started in (self._batch, self._where):
            if started is not None:
                started.drop()
        self._batch = self._where = None

    def identities(self, shas: Sequence[str]) -> dict[str, bytes]:
        """Each commit's author line (name, mail, date) and message, in one ``cat-file
        --batch``: what a rebase's pick keeps and a new commit does not."""
        _require_sha(*shas)
        if not shas:
            return {}
        raw = self._must(*_BATCH, stdin=_revs(shas))
        found: dict[str, bytes] = {}
        for sha, header, body in _batch_answers(shas, raw):
            if header is None or header[1] != "commit":
                continue
            head, _, message = body.partition(b"\n\n")
            author = next((line for line in head.split(b"\n") if line.startswith(b"author ")),
                          b"")
            found[sha] = author + b"\n\n" + message
        return found

    # -- the index ----------------------------------------------------------------------
    def tracked(self, prefix: str) -> list[str]:
        """Paths in the index at or under ``prefix`` (a constant of the caller's, after
        ``--``), relative to the work tree top, where the repository must be opened."""
        if not prefix or prefix.startswith(("-", ":")):
            raise GitError(f"refusing to pass {prefix!r} to git as a path")
        raw = self._must("ls-files", "-z", "--full-name", "--", prefix)
        return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]

    def skipped(self, prefix: str) -> bool:
        """Is any file under ``prefix`` in the index but left out of the work tree by a
        sparse checkout (marked skip-worktree: ``ls-files -t`` tags it ``S``)?"""
        code, out = self.run("ls-files", "-t", "-z", "--", prefix)
        return code == 0 and any(entry.startswith(b"S ") for entry in out.split(b"\0"))

    def listed_files(self) -> list[str]:
        """The files git knows of under the folder the repository was opened at: tracked
        ones and untracked ones it does not ignore, relative to that folder, each once."""
        raw = self._must("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        names = (p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p)
        return list(dict.fromkeys(names))  # an unmerged path is listed once per stage

    def status_entries(self) -> list[tuple[str, str]]:
        """The working tree's changes as ``(XY, path)`` pairs, ``XY`` being the two status
        letters of ``git status --porcelain`` (index, then work tree; ``??`` untracked).
        ``--no-optional-locks``: it never takes the index lock another git command needs.
        """
        raw = self._must("--no-optional-locks", "status", "--porcelain", "-z")
        fields = iter(raw.split(b"\0"))
        entries: list[tuple[str, str]] = []
        for field in fields:
            if len(field) < 4 or field[2:3] != b" ":
                continue
            code = field[:2].decode("ascii", "replace")
            entries.append((code, field[3:].decode("utf-8", "surrogateescape")))
            if "R" in code or "C" in code:
                next(fields, None)  # the original path of a rename or copy
        return entries

    def is_ignored(self, path: str) -> bool:
        """Does git ignore ``path`` (relative to the top; it need not exist)?"""
        if not path or path.startswith(("-", ":")):
            raise GitError(f"refusing to pass {path!r} to git as a path")
        return self._answer("check-ignore", "-q", "--", path)[0]

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` (relative to the top; they need not exist) git ignores: one
        ``check-ignore -z --stdin``, the paths on stdin, never as arguments."""
        clean = [path for path in paths if path and "\0" not in path]
        if not clean:
            return set()
        _, out = self._answer("check-ignore", "-z", "--stdin", stdin=b"".join(
            path.encode("utf-8", "surrogateescape") + b"\0" for path in clean))
        return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}

    # -- history ----------------------------------------------------------------------
    def merge_base(self, a: str, b: str) -> str | None:
        """``git merge-base a b`` of two shas (the first ``--all`` prints, as git takes);
        None when they have no common ancestor."""
        bases = Repo.merge_bases(self, a, b)  # git's, also under a ``BatchRepo``
        return bases[0] if bases else None

    def is_ancestor(self, a: str, b: str) -> bool:
        """``git merge-base --is-ancestor a b``; a failure raises, never reads as "no"."""
        _require_sha(a, b)
        return self._answer("merge-base", "--is-ancestor", a, b)[0]

    def listing(self, head: str, exclude: Sequence[str]) -> list[str]:
        """The commits reachable from ``head`` and from none of ``exclude``, children
        first (``rev-list --topo-order``), in one process; the names travel on stdin."""
        _require_sha(head, *exclude)
        out = self._must("rev-list", "--topo-order", "--stdin", stdin=_revs([head], exclude))
        return _lines(out.decode("ascii", "replace"))

    def above(self, base: str, head: str) -> tuple[bool, list[str]]:
        """(whether ``base`` is an ancestor of ``head``, and then ``base..head`` in git's
        default order): one ``rev-list --boundary`` walk, which prints ``-base`` exactly
        when ``head`` reaches it. No ``--topo-order``: its sort is the slowest part of a
        long merge-heavy walk (benchmarks/bench_boundary.py, walk-heavy)."""
        _require_sha(base, head)
        if base == head:
            return True, []
        out = self._must(*_ABOVE, stdin=_revs([head], [base]))
        text = out.decode("ascii", "replace")
        # git prints the boundary after every listed commit, one ``-sha`` a line: read
        # back from the end, not searched for through a 4 MB list (nor copied)
        cut = len(text) - 1 if text.endswith("\n") else len(text)
        found = False
        boundaries = 0
        while cut > 0:
            start = text.rfind("\n", 0, cut) + 1
            if text[start] != "-":
                break
            found = found or text[start + 1:cut] == base
            boundaries += 1
            cut = start - 1
        if not found:
            return False, []  # not an ancestor: the list is never asked for
        listed = _lines(text)
        del listed[len(listed) - boundaries:]
        return True, listed

    def touch_a_common_path(self, base: str, a: str, b: str) -> bool:
        """Do ``a`` and ``b`` change some path in common from ``base`` (the changes a soft
        reset took off, committed again, whether or not edited further)? Two ``diff-tree
        -r``, no renames."""
        _require_sha(base, a, b)
        # "-z": ":<mode> <mode> <old> <new> <status>" NUL "<path>" NUL: every second field a path
        left, right = (set(out.split(b"\0")[1::2])
                       for out in (self._must("diff-tree", "-r", "-z", "--no-renames", base, a),
                                   self._must("diff-tree", "-r", "-z", "--no-renames", base, b)))
        return bool(left & right)

    def merge_bases(self, a: str, b: str) -> list[str]:
        """``git merge-base --all a b``."""
        _require_sha(a, b)
        found, out = self._answer("merge-base", "--all", a, b)  # 1: no common ancestor
        return out.decode("ascii", "replace").split() if found else []

    def reached(self, tip: str, candidates: Sequence[str]) -> list[str]:
        """Which of ``candidates`` ``tip`` reaches: one ``rev-list`` of what they reach
        and ``tip`` does not (as long as they are far from ``tip``'s history). A candidate
        the repository lacks (a ledger line names a commit since pruned) is reached by
        nothing: when the walk fails, the commits among them are asked again alone."""
        _require_sha(tip, *candidates)
        if not candidates:
            return []
        try:
            out = self._must("rev-list", "--stdin", stdin=_revs(candidates, [tip]))
        except GitError:
            present = [i.name for i in self.objects(candidates) if i.type == "commit"]
            if len(present) == len(candidates):
                raise
            return self.reached(tip, present)
        apart = set(out.decode("ascii", "replace").split())
        return [c for c in candidates if c not in apart]

    def on_first_parent_line(self, tip: str, commit: str) -> bool:
        """Is ``commit`` on ``tip``'s first-parent line (committed or pulled there, not on
        the side a merge brought in)? One walk, as long as ``tip`` is ahead of ``commit``."""
        _require_sha(tip, commit)
        if tip == commit:
            return True
        out = self._must("rev-list", "--first-parent", tip, "--not", commit + "^@")
        return commit in _lines(out.decode("ascii", "replace"))

    def first_parents_above(self, tip: str, stops: Sequence[str]) -> list[str]:
        """``tip``'s first-parent line down to where one of ``stops`` reaches it: one walk
        that prints the line alone; the names travel on stdin."""
        _require_sha(tip, *stops)
        out = self._must("rev-list", "--first-parent", "--stdin", stdin=_revs([tip], stops))
        return _lines(out.decode("ascii", "replace"))

    def on_first_parent_lines(self, tips: Sequence[str], commits: Sequence[str]) -> set[str]:
        """Which of ``commits`` lie on the first-parent line of one of ``tips`` (the merge
        branch's own line: committed or pulled there). Only those a tip reaches are walked
        for, the first 64 of them; the rest are said not to."""
        found: set[str] = set()
        for tip in tips:
            left = [c for c in commits if c not in found]
            for commit in self.reached(tip, left)[:64] if left else []:
                if self.on_first_parent_line(tip, commit):
                    found.add(commit)
        return found

    def reflog_entries(self, refs: Sequence[str], limit: int, remotes: bool = False
                       ) -> list[tuple[str, int, str]] | None:
        """(new sha, time, message) of the reflogs of ``refs`` (with ``remotes``, of every
        remote-tracking ref too), each newest first, at most ``limit`` in all: one ``git log
        -g`` (the ``reftable`` backend keeps reflogs where no file can be read); None when
        git fails."""
        out = (self._out(*_REFLOG, f"-n{limit}", "--remotes", "--end-of-options", *refs, "--")
               if remotes else self._out(*_REFLOG, f"-n{limit}", "--end-of-options", *refs, "--"))
        if out is None:
            return None
        found = []
        for line in out.split("\n"):
            sha, _, rest = line.partition(" ")
            selector, _, message = rest.partition(" ")
            stamp = selector[selector.find("{") + 1:-1] if selector.endswith("}") else ""
            if files.is_sha(sha) and stamp.isdigit():
                found.append((sha, int(stamp), message))
        return found

    def first_parent_floor(self, head: str, stops: Sequence[str]) -> Floor | None:
        """Walk ``head``'s first-parent line down to the first commit reachable from any
        of ``stops`` (a stop reaches itself), and list what is reachable from ``head``
        and from no stop (``Floor.commits``). None when git fails.

        One ``git rev-list --parents head ^stops...`` (no ``--topo-order``: nothing here
        needs it, benchmarks/bench_history.py, seen; dates running backwards can mislead
        git's ``^``, not ``lets_hooks.graph``). With no merge printed, the lines are the
        first-parent line and the last one's parent is the floor: that is measured, never
        split (all lines are ``2*width+1`` bytes but a root's, the last). Else the first
        parents are followed.
        """
        _require_sha(head, *stops)
        code, out = self.run(*_FLOOR, stdin=_revs([head], stops))
        if code != 0:
            return None
        if not out:  # head itself is reachable from a stop
            if len(head) not in (40, 64):  # abbreviated: the floor is named in full
                full = self.ref_commit(head)
                return Floor(full, 0, True) if full else None
            return Floor(head, 0, True)
        if not out.endswith(b"\n"):
            out += b"\n"
        first_end = out.find(b"\n")
        space = out.find(b" ", 0, first_end)
        width = space if space >= 0 else first_end
        lines = out.count(b"\n")
        start = out.rfind(b"\n", 0, len(out) - 1) + 1  # the last line
        last = out[start:-1]
        step = 2 * width + 2
        if (len(last) in (width, 2 * width + 1) and start == (lines - 1) * step
                and out[step - 1:start:step] == b"\n" * (lines - 1)):
            stop = last[width + 1:2 * width + 1].decode("ascii") if len(last) > width else None
            return Floor(stop, lines, True, out, width)
        return _follow_first_parents(out, width)

    # -- for the hooks, status and install ----------------------------------------------
    def branches(self) -> list[tuple[str, str]]:
        """Every local branch as (short name, tip sha), in one ``for-each-ref``."""
        return self.branches_and_remotes(remotes=False)[0]

    def branches_and_remotes(self, remotes: bool = True
                             ) -> tuple[list[tuple[str, str]], list[str]]:
        """Every local branch as (short name, tip sha), and the tips of the
        remote-tracking refs, in one ``for-each-ref``."""
        if remotes:
            raw = self._must("for-each-ref", "--format=%(objectname) %(refname)%00",
                             "refs/heads/", "refs/remotes/")
        else:
            raw = self._must("for-each-ref", "--format=%(objectname) %(refname)%00",
                             "refs/heads/")
        found = []
        tips: list[str] = []
        for record in raw.split(b"\0"):
            line = record.lstrip(b"\n").decode("utf-8", "surrogateescape")
            sha, _, ref = line.partition(" ")
            if not (files.is_hex(sha) and sha):
                continue
            if ref.startswith("refs/remotes/"):
                tips.append(sha)
                continue
            name = branch_of(ref)
            if name is not None:
                found.append((name, sha))
        return found, list(dict.fromkeys(tips))

    def origin_branches(self) -> list[str]:
        """The branch names of ``origin`` (``refs/remotes/origin/*``, less ``HEAD``)."""
        raw = self._must("for-each-ref", "--format=%(refname)%00", "refs/remotes/origin/")
        names = (_short_remote(r.lstrip(b"\n").decode("utf-8", "surrogateescape"))
                 for r in raw.split(b"\0"))
        return [name for name in names if name is not None and name != "HEAD"]

    def _worktree_records(self) -> list[dict[str, str]]:
        """``git worktree list --porcelain``, one dict per work tree, asked once for this
        ``Repo``; NUL-separated (``-z``, git 2.36 on) so that a path may hold a newline."""
        if self._worktree_list is not None:
            return self._worktree_list
        code, raw = self.run("worktree", "list", "--porcelain", "-z")
        sep = b"\0"
        if code != 0:
            raw = self._must("worktree", "list", "--porcelain")
            sep = b"\n"
        records: list[dict[str, str]] = []
        for block in raw.split(sep + sep):  # an empty field ends a record
            fields = [f.decode("utf-8", "surrogateescape").partition(" ")
                      for f in block.split(sep) if f]
            if fields:
                records.append({key: value for key, _, value in fields})
        self._worktree_list = records
        return records

    def worktrees(self) -> dict[str, str]:
        """Checked-out branch (short name) -> that work tree's top, in one process."""
        return {name: top for top, _, name in self.worktree_heads() if name is not None}

    def worktree_heads(self) -> list[tuple[str, str | None, str | None]]:
        """Every work tree as (top, HEAD commit or None, checked-out branch or None)."""
        found: list[tuple[str, str | None, str | None]] = []
        for record in self._worktree_records():
            if "worktree" not in record or "bare" in record:
                continue
            head = record.get("HEAD")
            found.append((record["worktree"], head if head and files.is_sha(head) else None,
                          branch_of(record.get("branch", ""))))
        return found

    def reflog(self, git_dir: str, ref: str, count: int) -> list[tuple[str, str]]:
        """The newest ``count`` entries of a ref's reflog as (commit, message), newest
        first: ``HEAD`` (this work tree's own) or ``refs/heads/<name>``; none: an empty
        list. The ``files`` backend's log is read with no process; ``reftable``'s by git.
        """
        if not ref or ref.startswith("-") or "\n" in ref or ".." in ref:
            raise GitError(f"refusing to read the reflog of {ref!r}")
        if gitfiles.uses_reftable(git_dir):
            return [(sha, message) for sha, _, message in self.reflog_entries((ref,), count) or ()]
        return reflog.tail(gitfiles.log_path(git_dir, ref), count)

    def hooks_dir(self) -> str:
        """The folder git runs hooks from (``core.hooksPath`` honoured), as an absolute path.
        git before 2.31 prints an unknown ``--path-format`` back instead of failing: the
        answer is judged by its shape, not by the exit status."""
        out = self._out("rev-parse", "--path-format=absolute", "--git-path", "hooks")
        if out is None or "--path-format" in out or out.rstrip("\n").count("\n"):
            out = self._one("rev-parse", "--git-path", "hooks")
        path = out[:-1] if out.endswith("\n") else out
        return os.path.normpath(os.path.join(self.cwd or os.getcwd(), path))

    def config_origin(self, key: str) -> tuple[str, str] | None:
        """(where, value) of the value of ``key`` that git uses, or None when it is unset;
        ``where`` is ``--show-origin``'s (``--show-scope`` is unknown to git 2.25)."""
        if not key or key.startswith("-"):
            raise GitError(f"refusing to pass {key!r} to git as a config key")
        found, out = self._answer("config", "--show-origin", "-z", "--get",
                                  "--end-of-options", key)
        if not found:
            return None
        origin, _, value = out.decode("utf-8", "surrogateescape").partition("\0")
        return origin, value.rstrip("\0")

    def is_bare(self) -> bool:
        """Where ``locate`` finds no work tree: a bare repository (``core.bare``), not the
        ``.git`` folder of one that has a work tree."""
        value = self.config_origin("core.bare")
        return value is not None and value[1].strip().lower() in ("true", "yes", "on", "1")

    def config_matching(self, pattern: str) -> list[tuple[str, str, str]]:
        """Every (where, key, value) of the config whose key matches the regular expression
        ``pattern``, in the order git reads them (``--get-regexp``, one process)."""
        found, out = self._answer("config", "--show-origin", "-z", "--get-regexp",
                                  "--end-of-options", pattern)
        if not found:
            return []
        fields = out.decode("utf-8", "surrogateescape").split("\0")
        entries = (entry.partition("\n") for entry in fields[1::2])
        return [(origin, key, value) for origin, (key, _, value) in zip(fields[0::2], entries)]

    def version(self) -> tuple[int, ...]:
        """git's version as numbers (``git version 2.39.5`` -> (2, 39, 5))."""
        out = self._must("--version").decode("ascii", "replace").split()
        text = out[2] if len(out) >= 3 else ""
        return tuple(int(part) for part in takewhile(str.isdigit, text.split(".")))

    def runs_config_hooks(self) -> bool:
        """Does this git run hooks set in its config (``hook.<name>.command``)? Asked by
        behaviour, not version (snapshots report older numbers): only such a git lists a
        hook given on the command line in ``git hook list``. Nothing is run."""
        code, out = self.run("-c", "hook.lets-hooks-probe.command=true",
                             "-c", "hook.lets-hooks-probe.event=pre-push",
                             "hook", "list", "pre-push")
        return code == 0 and b"lets-hooks-probe" in out

    def count_head(self, limit: int) -> int | None:
        """HEAD's commits, counted up to ``limit`` (``rev-list --count --max-count``): a
        cheap "more than N?" that never walks a long history to its root."""
        out = self._out("rev-list", "--count", f"--max-count={limit}", "HEAD", "--")
        text = (out or "").strip()
        return int(text) if text.isdigit() else None

    def walk(self, tips: Sequence[str], exclude: Sequence[str] = ()) -> bytes:
        """``rev-list --parents --topo-order`` of everything reachable from ``tips`` and not
        from ``exclude``: one process; the names travel on stdin."""
        _require_sha(*tips, *exclude)
        return self._must("rev-list", "--parents", "--topo-order", "--stdin",
                          stdin=_revs(tips, exclude))

    def window(self, head: str, count: int) -> bytes:
        """``rev-list --parents`` of the newest ``count`` commits ``head`` reaches (git
        streams them without walking the rest): one process."""
        _require_sha(head)
        return self._must("rev-list", "--parents", f"--max-count={count}", head, "--")

    def commits_since_time(self, head: str, since: int, limit: int
                           ) -> tuple[list[tuple[str, int, list[str]]], bool]:
        """The commits of ``head``'s history whose committer time is ``since`` (seconds
        since the epoch) or later, newest first, as (sha, committer time, the paths each
        changed), at most ``limit`` of them, and whether more were left unread.
        A rename shows both paths (``--no-renames``), a merge none; paths are relative to
        the folder the repository was opened at (``--relative``), split on NUL only.
        """
        _require_sha(head)
        since = max(0, since)
        out = self._must("log", "-z", "--no-renames", "--no-show-signature", "--relative",
                         f"--max-count={limit + 1}", f"--since=@{since}",
                         "--format=\x01lets\x01%H %ct", "--name-only", head, "--")
        commits: list[tuple[str, int, list[str]]] = []
        fresh = False
        for field in out.split(b"\0"):
            text = field.decode("utf-8", "surrogateescape")
            if text.startswith(_MARK):
                sha, stamp = text[len(_MARK):].split()
                commits.append((sha, int(stamp) if stamp.isdigit() else 0, []))
                fresh = True
                continue
            if fresh and text.startswith("\n"):
                text = text[1:]  # git puts a line end between a commit's header and paths
            fresh = False
            if text and commits:
                commits[-1][2].append(text)
        return commits[:limit], len(commits) > limit

    def deleted(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` (literal, relative to the folder the repository was opened
        at) a commit of HEAD's history deleted (a rename deletes the old name)."""
        clean = [path for path in paths if path and "\0" not in path]
        if not clean:
            return set()
        out = self._must("--literal-pathspecs", "log", "-z", "--no-renames",
                         "--no-show-signature", "--relative", "--diff-filter=D",
                         "--format=", "--name-only", "HEAD", "--", *clean)
        wanted = set(clean)
        return {name for name in (p.decode("utf-8", "surrogateescape").lstrip("\n")
                                  for p in out.split(b"\0")) if name in wanted}

    def touched(self, commits: Sequence[str]
                ) -> list[tuple[str, str, list[tuple[str, str, str | None]]]]:
        """What each of ``commits`` changed against its first parent, in the order given:
        (sha, subject, [(status letter and score, path, new path of a rename or None)]).
        One ``log --no-walk=unsorted --stdin``, no walk; merges left out (what a merge
        brings in is its other parent's); paths relative to the top, split on NUL only."""
        if not commits:
            return []
        _require_sha(*commits)
        out = self._must("log", "--no-walk=unsorted", "--stdin", "-z", "--name-status", "-M",
                         "--root", "--no-merges", "--no-show-signature", "--no-color",
                         "--format=\x01lets\x01%H %s", "--", stdin=_revs(commits))
        found: list[tuple[str, str, list[tuple[str, str, str | None]]]] = []
        fields = iter(out.split(b"\0"))
        for field in fields:
            text = field.decode("utf-8", "surrogateescape")
            if text.startswith("\n"):
                text = text[1:]  # git puts a line end between a commit's header and paths
            if text.startswith(_MARK):
                sha, _, subject = text[len(_MARK):].partition(" ")
                found.append((sha, subject, []))
            elif text and found:
                paths = 2 if text[:1] in ("R", "C") else 1
                names = [f.decode("utf-8", "surrogateescape") for f in islice(fields, paths)]
                if len(names) == paths:
                    found[-1][2].append((text, names[0], names[1] if paths == 2 else None))
        return found

    def patch_ids(self, head: str, exclude: Sequence[str]) -> list[tuple[str, str]]:
        """(patch id, commit) of each non-merge commit reachable from ``head`` and not from
        ``exclude``, oldest first. Two processes: ``git log -p`` and ``git patch-id
        --stable`` fed its output."""
        _require_sha(head, *exclude)
        diff = self._must("log", "--reverse", "--no-merges", "-p", "--no-color",
                          "--format=commit %H", "--stdin", "--", stdin=_revs([head], exclude))
        if not diff:
            return []
        out = self._must("patch-id", "--stable", stdin=diff).decode("ascii", "replace")
        pairs = (line.split() for line in out.split("\n"))
        return [(parts[0], parts[1]) for parts in pairs if len(parts) == 2]

    def ref_commit(self, name: str) -> str | None:
        """The commit a ref names (``ORIG_HEAD``, ``refs/heads/x``), read by git from
        whichever ref store the repository uses; None when there is none."""
        if not name or name.startswith("-") or "\n" in name:
            raise GitError(f"refusing to pass {name!r} to git as a ref")
        out = self._out("rev-parse", "--verify", "-q", "--end-of-options",
                        name + "^{commit}")
        sha = (out or "").strip()
        return sha if files.is_sha(sha) else None


def _lines(text: str) -> list[str]:
    """git's answer of one sha a line, as a list (split on line breaks only, faster than on
    any blank: benchmarks/bench_boundary.py, walk-heavy)."""
    if not text:
        return []
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()
    return lines


def _split_paths(lines: list[str], count: int) -> list[str] | None:
    """``count`` paths printed one a line, when a path may itself hold newlines: the
    plain split when it has ``count`` lines, else the one grouping whose every path
    exists (None when that is not exactly one)."""
    if len(lines) == count:
        return lines
    if len(lines) < count:
        return None
    found = None
    for cuts in combinations(range(1, len(lines)), count - 1):
        bounds = (0, *cuts, len(lines))
        paths = ["\n".join(lines[bounds[i]:bounds[i + 1]]) for i in range(count)]
        if all(os.path.isabs(p) and os.path.exists(p) for p in paths):
            if found is not None:
                return None
            found = paths
    return found


def branch_of(ref: str | None) -> str | None:
    """The branch a full ref name names (``refs/heads/x``: ``x``), else None."""
    prefix = "refs/heads/"
    return ref[len(prefix):] if ref and ref.startswith(prefix) else None


def _short_remote(ref: str | None) -> str | None:
    prefix = "refs/remotes/origin/"
    return ref[len(prefix):] if ref and ref.startswith(prefix) else None


def _batch_answers(asked: Sequence[str], raw: bytes
                   ) -> Iterator[tuple[str, list[str] | None, bytes]]:
    """``cat-file --batch``'s answer to each of ``asked``: (name, [sha, type, size] or None
    when missing, the object), up to where git's output is cut short (it died)."""
    pos = 0
    for name in asked:
        end = raw.find(b"\n", pos)
        if end < 0:
            return
        header = raw[pos:end].decode("utf-8", "surrogateescape").split(" ")
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():
            yield name, None, b""
            continue
        size = int(header[2])
        if pos + size > len(raw):
            return
        yield name, header, raw[pos:pos + size]
        pos += size + 1


def _commit_time(body: bytes) -> int | None:
    """A commit's committer time, from its header (None when unreadable)."""
    for line in body.split(b"\n"):
        if not line:
            break  # end of the header
        if line.startswith(b"committer "):  # "committer Name <mail> 1700000000 +0000"
            stamp = line.rsplit(b" ", 2)[-2]
            return int(stamp) if stamp.isdigit() else None
    return None


def _follow_first_parents(out: bytes, width: int) -> Floor:
    """The floor from a ``rev-list --parents`` listing that holds merges."""
    first: dict[str, str | None] = {}
    merges: set[str] = set()
    for line in out.decode("ascii").split("\n"):
        parts = line.split()
        if parts:
            first[parts[0]] = parts[1] if len(parts) > 1 else None
            if len(parts) > 2:
                merges.add(parts[0])
    count = 0
    linear = True
    commit: str | None = out[:width].decode("ascii")
    while commit is not None and commit in first:
        count += 1
        linear = linear and commit not in merges
        commit = first[commit]
    return Floor(commit, count, linear, out, width)


def _revs(heads: Sequence[str], negated: Sequence[str] = ()) -> bytes:
    """``heads`` and ``^name`` for each of ``negated``, one a line, for git's ``--stdin``."""
    return "".join([*(h + "\n" for h in heads), *("^" + n + "\n" for n in negated)]).encode()


def _require_sha(*names: str) -> None:
    """``GitError`` unless every name is a non-empty lowercase hex string: what is passed
    on to git as an object name can then never act as an option or a range."""
    for name in names:
        if not name or not files.is_hex(name):
            raise GitError(f"refusing to pass {name!r} to git: not a hex object name")


