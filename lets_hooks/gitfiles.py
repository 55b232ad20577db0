"""git's on-disk facts, in one place: what the files git keeps in its directory say, read
with no process (only ``lets_hooks.repo`` runs git; it asks here first, and asks git where
these files cannot answer plainly: each function answers None, or True for "may").

``index_may_hold`` spares post-checkout's first touch one git process
(``benchmarks/bench_hooks.py``). ``ORIG_HEAD`` is a ref (in the ref store on
``reftable``), so it is asked of git (``Repo.ref_commit``), never read here.
"""

from __future__ import annotations

import os

from lets_hooks import files

REBASE_MERGE = "rebase-merge"
REBASE_APPLY = "rebase-apply"


def _small(path: str) -> bytes | None:
    """A file git wrote in its own directory (trusted, but never a FIFO, never huge)."""
    data, _ = files.read_capped(path, 1 << 26, follow=True)
    return data


def _one_line(data: bytes | None) -> str | None:
    """The one line of a pointer file, or None when it holds no line or more than one."""
    if data is None:
        return None
    text = data.rstrip(b"\r\n").decode("utf-8", "surrogateescape")
    return text if text and "\n" not in text else None


def git_dir_holding(folder: str) -> str | None:
    """The git dir of the repository holding ``folder``, as git's discovery finds it
    (the first ``.git`` at or above, never in a ``GIT_CEILING_DIRECTORIES`` entry; a
    ``core.worktree`` moves only the work tree); None outside any, or where ``GIT_DIR``
    or ``GIT_WORK_TREE`` decides (ask git then)."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None
    ceilings = {os.path.normpath(c) for c in
                os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if c}
    try:
        here = os.path.abspath(folder)
    except (OSError, ValueError):
        return None
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return git_dir_at(here)
        parent = os.path.dirname(here)
        if parent == here or parent in ceilings:
            return None
        here = parent


def git_dir_at(top: str) -> str | None:
    """The git dir of the work tree at ``top``: its ``.git`` folder, or the folder a
    ``gitdir:`` file points at; None when git's environment names another
    (``GIT_DIR``, ``GIT_COMMON_DIR``) or ``.git`` does not say plainly (ask git then)."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_COMMON_DIR"):
        return None
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    data, _ = files.read_capped(dot, 1 << 12)
    if data is None or not data.startswith(b"gitdir: "):
        return None
    path = _one_line(data[len(b"gitdir: "):])
    if path is None:
        return None
    path = os.path.normpath(os.path.join(top, path))
    return path if os.path.isdir(path) else None


def common_dir(git_dir: str) -> str:
    """The git dir every work tree shares, from a work tree's own (its ``commondir``
    file; none: it is the common one)."""
    pointer = _one_line(_small(os.path.join(git_dir, "commondir")))
    return git_dir if pointer is None else os.path.normpath(os.path.join(git_dir, pointer))


def uses_reftable(git_dir: str) -> bool:
    """The ``reftable`` ref backend (``extensions.refStorage = reftable``) keeps its
    tables in ``reftable/`` of the common git dir; ``files`` has no such folder."""
    return os.path.isdir(os.path.join(common_dir(git_dir), "reftable"))


def log_path(git_dir: str, ref: str) -> str:
    """The file the ``files`` backend keeps ``ref``'s log in (``HEAD``: this work tree's;
    ``refs/...``: the common git dir's)."""
    base = git_dir if ref == "HEAD" else common_dir(git_dir)
    return os.path.join(base, "logs", *ref.split("/"))


def has_commit_graph(git_dir: str) -> bool:
    """Does this repository have a commit-graph (``git commit-graph write``, ``git gc``)?"""
    info = os.path.join(common_dir(git_dir), "objects", "info")
    return (os.path.isfile(os.path.join(info, "commit-graph"))
            or os.path.isdir(os.path.join(info, "commit-graphs")))


_INDEX_SCAN_LIMIT = 32 << 20  # a bigger index: git is asked instead


def index_may_hold(top: str, rel: str) -> bool:
    """Could the index of the work tree at ``top`` hold ``rel``? False only when it
    certainly does not: a version 2 or 3 index (each entry's full path, then NUL) without
    a split or sparse index, read whole, that has no ``rel`` followed by NUL. Anything
    unusual is left to git."""
    git_dir = git_dir_at(top)
    if git_dir is None or os.environ.get("GIT_INDEX_FILE"):
        return True
    data, problem = files.read_capped(os.path.join(git_dir, "index"), _INDEX_SCAN_LIMIT)
    if problem is not None:
        return True
    if data is None:
        return False  # no index yet: nothing is tracked
    if data[:4] != b"DIRC" or data[4:8] not in (b"\0\0\0\2", b"\0\0\0\3"):
        return True
    if b"link" in data or b"sdir" in data:  # perhaps a split or sparse index: ask git
        return True
    return rel.encode("utf-8", "surrogateescape") + b"\0" in data


class RebaseState:
    """What git keeps in ``rebase-merge/`` or ``rebase-apply/`` during a rebase."""

    __slots__ = ("backend", "done", "head_name", "onto", "orig_head", "rewritten",
                 "update_refs")

    def __init__(self) -> None:
        self.backend: str | None = None  # REBASE_MERGE, REBASE_APPLY, or None
        self.done: bytes | None = None  # the todo lines done so far (rebase-merge only)
        self.rewritten: bytes | None = None  # the old -> new list so far
        self.orig_head: str | None = None  # the tip the rebase started from
        self.onto: str | None = None  # the commit the rebased commits went onto
        self.head_name: str | None = None  # "refs/heads/x", or None when detached
        self.update_refs: list[tuple[str, str, str]] = []  # (ref, before, after)


def rebasing(git_dir: str) -> bool:
    """Is a rebase in progress in this work tree? ``rebase-merge/``, or ``rebase-apply/``
    holding ``rebasing`` (``git am`` keeps the same folder, without it). The plain
    post-commit shim asks its shell the same question the same way (``install._NOTE``);
    tests/test_ledger_writers.py runs both over the same states."""
    return (os.path.isdir(os.path.join(git_dir, REBASE_MERGE))
            or os.path.exists(os.path.join(git_dir, REBASE_APPLY, "rebasing")))


def rebase_state(git_dir: str) -> RebaseState:
    """The state of a rebase (or ``git am``) under ``git_dir``, from its folder."""
    state = RebaseState()
    for folder, listing in ((REBASE_MERGE, "rewritten-list"), (REBASE_APPLY, "rewritten")):
        base = os.path.join(git_dir, folder)
        if not os.path.isdir(base):
            continue
        state.backend = folder
        state.rewritten = _small(os.path.join(base, listing))
        if folder == REBASE_MERGE:
            state.done = _small(os.path.join(base, "done"))
        state.orig_head = _sha_in(_small(os.path.join(base, "orig-head")))
        state.onto = _sha_in(_small(os.path.join(base, "onto")))
        name = (_small(os.path.join(base, "head-name")) or b"").decode(
            "utf-8", "surrogateescape").strip()
        state.head_name = name if name.startswith("refs/heads/") else None
        fields = (_small(os.path.join(base, "update-refs")) or b"").decode(
            "utf-8", "surrogateescape").split("\n")
        for i in range(0, len(fields) - 2, 3):
            ref, before, after = fields[i:i + 3]
            if ref.startswith("refs/heads/") and files.is_sha(before) and files.is_sha(after):
                state.update_refs.append((ref, before, after))
        break
    return state


def _sha_in(data: bytes | None) -> str | None:
    text = (data or b"").decode("ascii", "replace").strip()
    return text if files.is_sha(text) else None
