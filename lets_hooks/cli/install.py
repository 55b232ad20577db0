"""``lets-hooks install``: write the plain shims into this repository's hooks folder."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PROG = "lets-hooks install"


def _own_python() -> str:
    """The interpreter running this command: it can import lets_hooks, and the shims start
    faster calling it directly than through the ``lets-hooks`` console script."""
    return os.path.abspath(sys.executable) if sys.executable else ""


def main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write the post-checkout, post-rewrite and pre-push shims into the "
                    "folder git runs hooks from (core.hooksPath honoured). A hook already "
                    "there is kept as <hook>.pre-lets and still runs first. Safe to run "
                    "again.")
    parser.add_argument("--python", metavar="PATH", default=None,
                        help="the Python the shims run lets-hooks with (default: the one "
                             "running this command; '' for lets-hooks from PATH)")
    opts = parser.parse_args(list(argv))
    from lets_hooks.install import InstallError, install
    from lets_hooks.repo import GitError, GitMissing, NotARepository

    try:
        lines = install(None, _own_python() if opts.python is None else opts.python)
    except GitMissing:
        sys.stderr.write(f"{PROG}: git is not installed or not on PATH\n")
        return 1
    except NotARepository:
        sys.stderr.write(f"{PROG}: not inside a git repository\n")
        return 1
    except (InstallError, GitError) as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    for line in lines:
        sys.stdout.write(line + "\n")
    return 1 if any(": left alone" in line for line in lines) else 0
