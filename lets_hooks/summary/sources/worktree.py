"""Where the work stands, from git: the ladder's answer, the branch, the working tree.

Every git process goes through one ``Repo``, which counts them: ``open_repository`` one
``rev-parse``; ``Git.boundary`` the ladder's few; ``Git.settle`` those and one ``status``;
``Git.commits_since`` one ``log`` when the handoff has a date; ``Git.listed_files`` one
``ls-files`` when the handoff names functions or paths not found where written. Never
raises: outside a repository, or when git fails, the answer says so and the summary goes
on without git.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path

from lets_hooks import config, ladder
from lets_hooks.ladder import Boundary
from lets_hooks.repo import GitError, Location, NotARepository, Repo, reason
from lets_hooks.summary.records import Since, TreeCounts, Where

SINCE_LIMIT = 1000  # commits from the handoff's time on, read for its age


class Git:
    """The summary's handle on git: the repository, where it is, and what it says."""

    def __init__(self, repo: Repo, location: Location | None, outside: Boundary) -> None:
        self.repo = repo
        self.location = location  # None outside a repository (or when git failed)
        self.outside = outside  # the answer there, as the ladder words it
        self.where = Where(repository=False, range_desc=outside.desc, branch=None, head=None,
                           tree=None)
        # for the fences: nothing in the git directory is read as a project file
        self.git_dir = location.git_dir if location is not None else None

    def boundary(self, environ: Mapping[str, str], now: float, session_id: str | None = None,
                 advise: str = "") -> Boundary:
        """The ladder's answer for the checked-out branch (its session id: ``session_id``,
        else the environment's through ``session_id_env``), the configuration's problems
        first among its notes; fails closed as the contract command does."""
        if self.location is None:
            return self.outside
        try:
            settings = config.load(self.location.top, environ)
            current = session_id or settings.session_id(environ)
            boundary = ladder.resolve(self.repo, settings, current, int(now),
                                      where=self.location, advise=advise)
            boundary.notes[:0] = settings.problems
        except Exception as exc:
            boundary = ladder.unknown(reason(exc))
        return boundary

    def settle(self, environ: Mapping[str, str], now: float,
               session_id: str | None = None) -> Where:
        """Ask the ladder and ``git status``; the answer is also kept as ``where``."""
        location = self.location
        if location is None:
            return self.where
        boundary = self.boundary(environ, now, session_id)
        tree = None
        with suppress(GitError):
            if location.top is not None:
                tree = count_entries(code for code, _ in self.repo.status_entries())
        self.where = Where(repository=location.top is not None, range_desc=boundary.desc,
                           branch=location.branch, head=location.head, tree=tree)
        return self.where

    def commits_since(self, since: int) -> Since | None:
        """HEAD's commits from ``since`` (seconds since the epoch) on (one ``log``), else
        None when git cannot say."""
        head = self.where.head
        if head is None:
            return None
        with suppress(GitError):
            commits, more = self.repo.commits_since_time(head, since, SINCE_LIMIT)
            return Since(tuple((sha, when, tuple(paths)) for sha, when, paths in commits), more)
        return None

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` git ignores (one ``check-ignore``); none when it cannot say."""
        if not self.where.repository or not paths:
            return set()
        with suppress(GitError):
            return self.repo.ignored(paths)
        return set()

    def deleted(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` a commit deleted or renamed away (one ``log``); none when git
        cannot say."""
        if not self.where.repository or self.where.head is None or not paths:
            return set()
        with suppress(GitError):
            return self.repo.deleted(paths)
        return set()

    def listed_files(self) -> list[str] | None:
        """Tracked and untracked-but-not-ignored files (one ``ls-files``), else None."""
        if not self.where.repository:
            return None
        with suppress(GitError):
            return self.repo.listed_files()
        return None


def open_repository(root: Path) -> Git:
    """The repository at ``root``: one ``rev-parse``. Never raises."""
    repo = Repo(str(root))
    try:
        location = repo.locate()
    except NotARepository:
        return Git(repo, None, ladder.not_a_repository())
    except Exception as exc:  # git missing, git refusing: say so, go on without git
        return Git(repo, None, ladder.unknown(reason(exc)))
    return Git(repo, location, ladder.unknown("not asked yet"))


UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})


def count_entries(codes: Iterable[str]) -> TreeCounts:
    """Staged, modified, untracked and conflicted paths of ``status --porcelain`` (a path
    staged and modified again counts in both; an unmerged one only as conflicted)."""
    staged = modified = untracked = conflicted = 0
    for code in codes:
        if code == "??":
            untracked += 1
        elif code in UNMERGED:
            conflicted += 1
        else:
            if code[0] not in " ?!":
                staged += 1
            if code[1] not in " ?!":
                modified += 1
    return TreeCounts(staged, modified, untracked, conflicted)
