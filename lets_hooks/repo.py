"""The one door to git.

Every git process the product starts is started here, as a plain argument list (never a
shell). Callers ask for answers, not for commands: one ``rev-parse`` for the work tree,
the git dir, HEAD's branch and HEAD's commit; one ``cat-file`` for several objects; one
``rev-list`` walk for an ancestor test and a count together.

Processes are spawned with ``os.posix_spawnp`` where it exists: importing ``subprocess``
costs more than a whole git call does on a hook's hot path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs milliseconds to import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Sequence

NULL_SHA = "0" * 40
_PIPE_SAFE = 60_000  # below one pipe buffer: a write this size never blocks


class GitError(Exception):
    """git could not be run or gave an answer that cannot be used."""


class GitMissing(GitError):
    """No git executable on PATH."""


class NotARepository(GitError):
    """The folder is not inside a git repository."""


def _spawn(argv: list[str], cwd: str | None, stdin: bytes | None) -> tuple[int, bytes]:
    """Run ``argv`` and return (exit status, stdout). stderr is discarded."""
    if not hasattr(os, "posix_spawnp"):  # pragma: no cover - non-POSIX
        import subprocess

        try:
            done = subprocess.run(
                argv, cwd=cwd, input=stdin or b"", stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, check=False,
            )
        except FileNotFoundError as exc:
            raise GitMissing("git is not installed or not on PATH") from exc
        return done.returncode, done.stdout
    if cwd is not None:
        # posix_spawn has no cwd; git's own -C does the same job.
        argv = [argv[0], "-C", cwd, *argv[1:]]
    out_r, out_w = os.pipe()
    in_r = -1
    in_w = -1
    tmp_fd = -1
    if stdin is not None and len(stdin) > _PIPE_SAFE:
        import tempfile

        tmp_fd, tmp_name = tempfile.mkstemp(prefix="lets-git-")
        os.unlink(tmp_name)
        os.write(tmp_fd, stdin)
        os.lseek(tmp_fd, 0, os.SEEK_SET)
        in_r = tmp_fd
    elif stdin is not None:
        in_r, in_w = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [
        (os.POSIX_SPAWN_DUP2, in_r if in_r >= 0 else devnull, 0),
        (os.POSIX_SPAWN_DUP2, out_w, 1),
        (os.POSIX_SPAWN_DUP2, devnull, 2),
    ]
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    except FileNotFoundError as exc:
        raise GitMissing("git is not installed or not on PATH") from exc
    finally:
        os.close(out_w)
        os.close(devnull)
        if in_r >= 0:
            os.close(in_r)
    if in_w >= 0:
        try:
            if stdin:
                os.write(in_w, stdin)
        except BrokenPipeError:
            pass
        finally:
            os.close(in_w)
    chunks = []
    try:
        while True:
            chunk = os.read(out_r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(out_r)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else (
        status >> 8
    )
    return code, b"".join(chunks)


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
    """What ``cat-file`` says of one name: its object, type, and commit time if a commit."""

    __slots__ = ("commit_time", "name", "sha", "type")

    def __init__(self, name: str, sha: str | None, type: str | None,
                 commit_time: int | None = None) -> None:
        self.name = name
        self.sha = sha
        self.type = type
        self.commit_time = commit_time


class Floor:
    """Where a commit's first-parent line meets the history of some stops.

    ``stop`` is the first commit of the line (full sha) reachable from a stop, or None
    when the line ends at a root without meeting one; ``count`` is how many commits of the
    line come before it; ``linear`` is True when none of those has more than one parent.
    """

    __slots__ = ("count", "linear", "stop")

    def __init__(self, stop: str | None, count: int, linear: bool) -> None:
        self.stop = stop
        self.count = count
        self.linear = linear

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Floor):
            return NotImplemented
        return (self.stop, self.count, self.linear) == (other.stop, other.count, other.linear)

    def __repr__(self) -> str:
        return f"Floor(stop={self.stop!r}, count={self.count}, linear={self.linear})"


class Repo:
    """A repository, reached through git processes. Counts the processes it starts."""

    def __init__(self, cwd: str | None = None, git: str = "git") -> None:
        self.cwd = cwd
        self.git = git
        self.calls = 0

    # -- plumbing ---------------------------------------------------------------------
    def run(self, *args: str, stdin: bytes | None = None) -> tuple[int, bytes]:
        self.calls += 1
        return _spawn([self.git, *args], self.cwd, stdin)

    def _out(self, *args: str, stdin: bytes | None = None) -> str | None:
        code, out = self.run(*args, stdin=stdin)
        if code != 0:
            return None
        return out.decode("utf-8", "surrogateescape")

    # -- where are we -----------------------------------------------------------------
    def locate(self) -> Location:
        """Work tree, git dir, HEAD, its branch and ``origin/HEAD``'s target: one process.

        ``rev-parse`` prints its answers in order and stops at the first name it cannot
        resolve, so a missing ``origin/HEAD`` just shortens the answer. An unborn HEAD or
        a folder with no work tree takes the slow path.
        """
        code, raw = self.run(
            "rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-toplevel",
            "HEAD", "--symbolic-full-name", "HEAD", "refs/remotes/origin/HEAD", "--",
        )
        lines = raw.decode("utf-8", "surrogateescape").split("\n")
        if len(lines) >= 6 and lines[0] == "true":
            _, git_dir, top, head, ref = lines[:5]
            origin_head = lines[5] if code == 0 and len(lines) >= 7 else None
            if hex_only(head) and len(head) >= 40:
                return Location(top, git_dir, _branch_of(ref), head, _short_remote(origin_head))
        return self._locate_slow()

    def _locate_slow(self) -> Location:
        """The unusual places: no work tree (bare, inside .git), unborn HEAD."""
        code, raw = self.run("rev-parse", "--is-inside-work-tree", "--absolute-git-dir")
        lines = raw.decode("utf-8", "surrogateescape").splitlines()
        if code != 0 or len(lines) != 2:
            raise NotARepository("not inside a git repository")
        inside, git_dir = lines
        top: str | None = None
        if inside == "true":
            top = (self._out("rev-parse", "--show-toplevel") or "").rstrip("\n") or None
        ref = (self._out("symbolic-ref", "-q", "HEAD") or "").strip()
        head = (self._out("rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
        origin = self.symref("refs/remotes/origin/HEAD")
        return Location(top, git_dir, _branch_of(ref) if ref else None, head,
                        _short_remote(origin))

    # -- objects ----------------------------------------------------------------------
    def objects(self, names: Sequence[str]) -> list[ObjectInfo]:
        """Resolve names (shas, abbreviations, refs) with one ``cat-file --batch``.

        Names travel on stdin, never as arguments, so no name can act as an option.
        A commit's committer time is read from its header.
        """
        clean = [n for n in names if n and "\n" not in n]
        if not clean:
            return [ObjectInfo(n, None, None) for n in names]
        code, raw = self.run("cat-file", "--batch", stdin="".join(n + "\n" for n in clean).encode(
            "utf-8", "surrogateescape"))
        found: dict[str, ObjectInfo] = {}
        pos = 0
        for name in clean:
            end = raw.find(b"\n", pos)
            if end < 0:
                break
            header = raw[pos:end].decode("utf-8", "surrogateescape").split(" ")
            pos = end + 1
            if len(header) == 3 and header[2].isdigit():
                sha, kind, size = header[0], header[1], int(header[2])
                body = raw[pos:pos + size]
                pos += size + 1
                found[name] = ObjectInfo(name, sha, kind,
                                         _committer_time(body) if kind == "commit" else None)
            else:
                found[name] = ObjectInfo(name, None, None)
        if code != 0:
            raise GitError("git cat-file failed")
        return [found.get(n, ObjectInfo(n, None, None)) for n in names]

    def symref(self, ref: str) -> str | None:
        """The target of a symbolic ref (e.g. ``refs/remotes/origin/HEAD``), or None."""
        out = self._out("symbolic-ref", "-q", "--end-of-options", ref)
        return out.strip() or None if out else None

    # -- the index ----------------------------------------------------------------------
    def tracked(self, prefix: str) -> list[str]:
        """Paths in the index at or under ``prefix``, relative to the work tree top.

        One ``ls-files -z`` (no quoting, any byte in a name survives). ``prefix`` is a
        constant of the caller's, passed after ``--`` so it can only ever be a path; the
        repository must have been opened at its top.
        """
        if not prefix or prefix.startswith(("-", ":")):
            raise GitError(f"refusing to pass {prefix!r} to git as a path")
        code, raw = self.run("ls-files", "-z", "--full-name", "--", prefix)
        if code != 0:
            raise GitError("git ls-files failed")
        return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]

    # -- history ----------------------------------------------------------------------
    def merge_base(self, a: str, b: str) -> str | None:
        """``git merge-base a b`` for two object names already checked to be shas."""
        _require_sha(a, b)
        out = self._out("merge-base", a, b)
        return out.strip() or None if out else None

    def is_ancestor(self, a: str, b: str) -> bool:
        _require_sha(a, b)
        code, _ = self.run("merge-base", "--is-ancestor", a, b)
        return code == 0

    def ahead_behind(self, base: str, head: str) -> tuple[int, int] | None:
        """(commits only in base, commits only in head) in one walk of ``base...head``.

        ``base`` is an ancestor of ``head`` exactly when the first number is 0, and then
        the second is ``git rev-list --count base..head``.
        """
        _require_sha(base, head)
        out = self._out("rev-list", "--left-right", "--count", f"{base}...{head}", "--")
        if out is None:
            return None
        parts = out.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return None
        return int(parts[0]), int(parts[1])

    def count(self, base: str, head: str) -> int | None:
        _require_sha(base, head)
        out = self._out("rev-list", "--count", f"{base}..{head}", "--")
        return int(out) if out is not None and out.strip().isdigit() else None

    def count_outside(self, head: str, base: str, excluded: Sequence[str]) -> int | None:
        """Commits reachable from ``head`` and from neither ``base`` nor any of
        ``excluded``: ``git rev-list --count head ^base ^excluded...``, one process.

        The names travel on stdin (``--stdin``), so however many there are none can act as
        an option. Like every ``rev-list`` with a ``^`` name, git decides "reachable from
        ``base``" with a commit-date heuristic: a history whose committer dates run
        backwards for long stretches can make it count commits it should not (the graph
        in ``lets_hooks.graph`` answers by topology and is exact).
        """
        _require_sha(head, base, *excluded)
        out = self._out("rev-list", "--count", "--stdin", stdin=_revs(head, [base, *excluded]))
        return int(out) if out is not None and out.strip().isdigit() else None

    def first_parent_floor(self, head: str, stops: Sequence[str]) -> Floor | None:
        """Walk ``head``'s first-parent line down to the first commit reachable from any
        of ``stops`` (a stop reaches itself): see ``Floor``. None when git fails.

        One process: ``git rev-list --first-parent --parents head ^stops...``. A ``^`` name
        excludes everything reachable from it through every parent (``--first-parent``
        limits only the walk from ``head``; git 2.39 checked, and only the separate
        ``--exclude-first-parent-only`` would change that), so git prints exactly the line
        above the floor, head first, each commit with all its parents. The last line's
        first parent is the floor. The output can run to 100,000 lines: it is measured,
        never split. Every line of a one-parent commit is ``2*width+1`` bytes (40-hex or
        64-hex names), a merge's is longer and only the last line can be a root's, so the
        line is linear exactly when the last line has at most one parent and the bytes
        before it number ``(lines-1)*(2*width+2)``. (The date heuristic noted at
        ``count_outside`` applies here too.)
        """
        _require_sha(head, *stops)
        code, out = self.run("rev-list", "--first-parent", "--parents", "--stdin",
                             stdin=_revs(head, stops))
        if code != 0:
            return None
        if not out:  # head itself is reachable from a stop
            if len(head) not in (40, 64):  # abbreviated: the floor is named in full
                full = self._out("rev-parse", "--verify", "-q", "--end-of-options",
                                 head + "^{commit}")
                return Floor(full.strip(), 0, True) if full else None
            return Floor(head, 0, True)
        if not out.endswith(b"\n"):
            out += b"\n"
        first_end = out.find(b"\n")
        space = out.find(b" ", 0, first_end)
        width = space if space >= 0 else first_end
        lines = out.count(b"\n")
        start = out.rfind(b"\n", 0, len(out) - 1) + 1  # the last line
        last = out[start:-1]
        stop = last[width + 1:2 * width + 1].decode("ascii") if len(last) > width else None
        linear = len(last) <= 2 * width + 1 and start == (lines - 1) * (2 * width + 2)
        return Floor(stop, lines, linear)

    # -- for the hooks, status and install ----------------------------------------------
    def branches(self) -> list[tuple[str, str]]:
        """Every local branch as (short name, tip sha), in one ``for-each-ref``."""
        out = self._out("for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/")
        if out is None:
            raise GitError("git for-each-ref failed")
        found = []
        for line in out.splitlines():
            sha, _, ref = line.partition(" ")
            name = _branch_of(ref)
            if name is not None and hex_only(sha):
                found.append((name, sha))
        return found

    def worktrees(self) -> dict[str, str]:
        """Checked-out branch (short name) -> that work tree's top, in one process."""
        out = self._out("worktree", "list", "--porcelain")
        found: dict[str, str] = {}
        path: str | None = None
        for line in (out or "").splitlines():
            if line.startswith("worktree "):
                path = line[len("worktree "):]
            elif line.startswith("branch ") and path is not None:
                name = _branch_of(line[len("branch "):])
                if name is not None:
                    found[name] = path
            elif not line:
                path = None
        return found

    def hooks_dir(self) -> str:
        """The folder git runs hooks from (``core.hooksPath`` honoured), as an absolute path."""
        out = self._out("rev-parse", "--path-format=absolute", "--git-path", "hooks")
        if out is None:  # git before 2.31 has no --path-format
            out = self._out("rev-parse", "--git-path", "hooks")
            if out is None:
                raise GitError("git rev-parse --git-path hooks failed")
        path = out.strip()
        if not os.path.isabs(path):
            path = os.path.join(self.cwd or os.getcwd(), path)
        return os.path.normpath(path)

    def session_walk(self, head: str, boundary: str) -> list[tuple[str, list[str]]]:
        """The commits in ``boundary..head`` with their parents, oldest first (topo order)."""
        _require_sha(head, boundary)
        out = self._out("rev-list", "--parents", "--topo-order", "--reverse", head,
                        "^" + boundary, "--")
        if out is None:
            raise GitError("git rev-list failed")
        return _parent_lines(out)

    def parents(self, shas: Sequence[str]) -> dict[str, list[str]]:
        """Each commit's parents, in one ``rev-list --no-walk``; names travel on stdin."""
        _require_sha(*shas)
        if not shas:
            return {}
        out = self._out("rev-list", "--no-walk=unsorted", "--parents", "--stdin",
                        stdin="".join(s + "\n" for s in shas).encode())
        if out is None:
            raise GitError("git rev-list --no-walk failed")
        return dict(_parent_lines(out))

    def head_reflog(self, count: int = 2) -> list[tuple[str, str]]:
        """The newest ``count`` entries of HEAD's reflog as (sha, subject), newest first."""
        out = self._out("log", "-g", f"-n{count}", "--format=%H %gs", "HEAD", "--")
        entries = []
        for line in (out or "").splitlines():
            sha, _, subject = line.partition(" ")
            if hex_only(sha) and len(sha) >= 40:
                entries.append((sha, subject))
        return entries

    def patch_ids(self, head: str, exclude: str) -> list[tuple[str, str]]:
        """(patch id, commit) of each non-merge commit in ``exclude..head``, oldest first.

        Two processes: ``git log -p`` and ``git patch-id --stable`` fed its output.
        """
        _require_sha(head, exclude)
        code, diff = self.run("log", "--reverse", "--no-merges", "-p", "--no-color",
                              "--format=commit %H", head, "^" + exclude, "--")
        if code != 0:
            raise GitError("git log -p failed")
        if not diff:
            return []
        out = self._out("patch-id", "--stable", stdin=diff)
        if out is None:
            raise GitError("git patch-id failed")
        found = []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2:
                found.append((parts[0], parts[1]))
        return found

    def rebase_state(self, git_dir: str) -> tuple[bytes | None, str | None, str | None]:
        """A rebase still in progress (as while its post-rewrite hook runs): its
        rewritten list, the tip it started from, and its backend (``rebase-merge`` or
        ``rebase-apply``). Read from files, no process. With no rebase in progress:
        (None, ``ORIG_HEAD``, None)."""
        orig_head = _sha_or_none(_read_small(os.path.join(git_dir, "ORIG_HEAD")))
        for folder, listing in (("rebase-merge", "rewritten-list"),
                                ("rebase-apply", "rewritten")):
            base = os.path.join(git_dir, folder)
            pairs = _read_small(os.path.join(base, listing))
            if pairs is not None:
                orig = _sha_or_none(_read_small(os.path.join(base, "orig-head")))
                return pairs, orig or orig_head, folder
        return None, orig_head, None

    def walk_graph(self, tips: Sequence[str]) -> bytes:
        """``rev-list --parents --topo-order`` over everything reachable from ``tips``:
        one process for the whole graph; tips travel on stdin."""
        _require_sha(*tips)
        code, out = self.run("rev-list", "--parents", "--topo-order", "--stdin",
                             stdin="".join(t + "\n" for t in tips).encode())
        if code != 0:
            raise GitError("git rev-list failed")
        return out


def _branch_of(ref: str) -> str | None:
    prefix = "refs/heads/"
    return ref[len(prefix):] if ref.startswith(prefix) else None


def _short_remote(ref: str | None) -> str | None:
    prefix = "refs/remotes/origin/"
    return ref[len(prefix):] if ref and ref.startswith(prefix) else None


def _committer_time(body: bytes) -> int | None:
    for line in body.split(b"\n"):
        if not line:
            return None  # end of the header
        if line.startswith(b"committer "):
            # "committer Name <mail> 1700000000 +0000"
            parts = line.rsplit(b" ", 2)
            if len(parts) == 3 and parts[1].isdigit():
                return int(parts[1])
            return None
    return None


def _read_small(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 26)
    except OSError:
        return None


def _sha_or_none(data: bytes | None) -> str | None:
    text = (data or b"").decode("ascii", "replace").strip()
    return text if len(text) >= 40 and hex_only(text) else None


def _parent_lines(out: str) -> list[tuple[str, list[str]]]:
    found = []
    for line in out.splitlines():
        parts = line.split()
        if parts:
            found.append((parts[0], parts[1:]))
    return found


def _revs(head: str, negated: Sequence[str]) -> bytes:
    """``head`` and ``^name`` for each of ``negated``, one a line, for ``rev-list --stdin``."""
    return "".join([head + "\n", *("^" + name + "\n" for name in negated)]).encode()


def _require_sha(*names: str) -> None:
    for name in names:
        if not name or not all(c in "0123456789abcdef" for c in name):
            raise GitError(f"refusing to pass {name!r} to git: not a hex object name")


def hex_only(text: str) -> bool:
    """True when ``text`` is made only of lowercase hex digits (the shape guard)."""
    return all(c in "0123456789abcdef" for c in text)
