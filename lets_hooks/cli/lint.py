"""``lets-hooks lint`` (pre-commit id ``lets-state-lint``): the CI lint step.

Prints one ``path: problem`` line per finding on stdout and exits 1; exits 0 silently on a
clean repository; exits 2 with one line on stderr when the check itself cannot run (no
git, not a repository, run inside the .git folder), so a CI job never passes a lint that
did not happen. A bare repository has nothing to check: exit 0.
"""

from __future__ import annotations

import sys

from lets_hooks.cli import command_parser, guarded, out, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG = "lets-hooks lint"
CLEAN, FOUND, BROKEN = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    return guarded(_main, sys.argv[1:] if argv is None else argv)


def parser() -> argparse.ArgumentParser:
    made = command_parser(
        PROG,
        "Fail (exit 1, one 'path: problem' line each) when session state under "
        ".lets/sessions/ or .lets/locks/ is tracked by git, when a .lets link "
        "came with the repository, when the non-slugged .session-start-ref "
        "exists, when a task file's session line is malformed, or when a memory "
        "file lets-session-start reads does not parse. Silent and exit 0 "
        "otherwise.")
    made.add_argument("--root", metavar="DIR", default=None,
                      help="a folder inside the repository to check (default: here)")
    return made


def _main(argv: Sequence[str]) -> int:
    root = parser().parse_args(list(argv)).root
    from lets_hooks import lint
    from lets_hooks.repo import GitError, Repo, reason

    try:
        where = Repo(root).locate()
        if where.top is None and not Repo(root).is_bare():  # a lint that did not happen
            say(f"{PROG}: inside the .git folder: run it from the work tree - nothing was "
                "checked")
            return BROKEN
        if where.top is None:
            say(f"{PROG}: no work tree here (a bare repository) - nothing to check")
            return CLEAN
        findings = lint.lint(Repo(where.top), where.top, where.git_dir)
    except GitError as exc:
        say(f"{PROG}: {reason(exc)} - nothing was checked")
        return BROKEN
    except Exception as exc:  # a CI step must fail loudly, but in one line
        say(f"{PROG}: internal error ({type(exc).__name__}: {exc}) - nothing was checked")
        return BROKEN
    for finding in findings:
        out(str(finding) + "\n")
    return FOUND if findings else CLEAN


if __name__ == "__main__":
    raise SystemExit(main())
