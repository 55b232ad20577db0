"""``lets-session-boundary``: print the four-line session-boundary contract.

Fails closed: whatever goes wrong, the four lines are printed (``none``/``unknown``) and
the exit status is 0. ``--json`` prints one object instead.
"""

from __future__ import annotations

import os
import sys

from lets_hooks.cli import command_parser, guarded, leave, out, own_process, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

    from lets_hooks.ladder import Boundary

def _parse(argv: Sequence[str]) -> tuple[bool, str | None, str | None]:
    """(json, branch, head). The plain call skips argparse: it costs more than git does
    (guard: benchmarks/bench_boundary.py, happy path)."""
    if not argv:
        return False, None, None
    parser = command_parser(
        "lets-session-boundary",
        "Resolve and validate this branch's session boundary and print the four-line "
        "contract (SESSION_BOUNDARY, SESSION_TRUST, SESSION_COMMITS, SESSION_RANGE_DESC). "
        "Diagnostics go to stderr; the exit status is 0.")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--branch", metavar="NAME",
                        help="resolve for this local branch instead of the checked-out one")
    parser.add_argument("--head", metavar="REV",
                        help="with --branch: the commit to measure to (default: the branch tip)")
    args = parser.parse_args(list(argv))
    if args.head is not None and args.branch is None:
        parser.error("--head needs --branch")
    return bool(args.json), args.branch, args.head


def compute(argv: Sequence[str]) -> tuple[Boundary, bool]:
    from lets_hooks.repo import GitError, NotARepository, Repo, reason

    as_json, branch, head = _parse(argv)
    repo = Repo()
    try:
        # "where are we" and the ladder's one cat-file are asked first: git answers while
        # the rest of the command is imported (guard: benchmarks/bench_boundary.py)
        repo.prepare_objects()
        repo.prepare_locate()
        import time

        from lets_hooks import config, ladder

        where = repo.locate()
        settings = config.load(where.top, os.environ, where.git_dir)
        if branch is not None and head is None:
            head = "refs/heads/" + branch
        advise = ""
        if branch is not None and branch != where.branch and where.top is not None:
            from lets_hooks.status import location_for  # where status reads it too

            tops = repo.worktrees()
            where = location_for(repo, where, branch, tops)
            advise = ladder.advise_from(branch, tops)
        result = ladder.resolve(repo, settings, settings.session_id(os.environ),
                                int(time.time()), branch=branch, head=head, where=where,
                                advise=advise)
        result.notes[:0] = settings.problems
    except NotARepository:
        from lets_hooks.ladder import not_a_repository

        result = not_a_repository()
    except GitError as exc:  # git is missing: the first start already says so
        from lets_hooks.ladder import unknown

        result = unknown(reason(exc))
    finally:
        repo.drop_prepared()  # never asked (not a repository, a detached HEAD, ...)
    return result, as_json


def main(argv: Sequence[str] | None = None) -> int:
    return guarded(_main, sys.argv[1:] if argv is None else argv)


def run() -> NoReturn:
    """The console script: ``main``, then out of the process at once (``leave``)."""
    own_process()
    leave(main())


def _main(args: Sequence[str]) -> int:
    try:
        result, as_json = compute(args)
    except SystemExit as exc:  # argparse: --help, or a usage error (already on stderr)
        if exc.code not in (0, None):  # fail closed even then: the four lines, status 0
            out("\n".join(_fallback_lines()) + "\n")
        return 0
    except Exception as exc:  # fail closed, whatever happened
        say(f"NOTE: internal error ({type(exc).__name__}: {exc}) - reporting no boundary")
        out("\n".join(_fallback_lines()) + "\n")
        return 0
    if as_json:
        import json

        out(json.dumps(result.as_dict(), sort_keys=True) + "\n")
    else:
        out("\n".join(result.lines()) + "\n")
    for line in result.notes:
        say(f"NOTE: {line}")
    return 0


def _fallback_lines() -> list[str]:
    from lets_hooks.ladder import unknown

    return unknown("").lines()


if __name__ == "__main__":
    raise SystemExit(main())
