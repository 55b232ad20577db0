"""``lets-hooks install``: write the plain shims into this repository's hooks folder."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PROG = "lets-hooks install"


def _own_command() -> tuple[str, str]:
    """This ``lets-hooks`` by its absolute path, and the interpreter running it: the shims
    then work without the virtual environment on PATH, and start faster calling the
    interpreter directly than through the console script."""
    import shutil

    here = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(here) != "lets-hooks" or not os.access(here, os.X_OK):
        beside = os.path.join(os.path.dirname(sys.executable), "lets-hooks")
        here = beside if os.access(beside, os.X_OK) else shutil.which("lets-hooks") or ""
    if not here:
        return "lets-hooks", ""
    return here, os.path.abspath(sys.executable) if sys.executable else ""


def main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write the post-checkout, post-rewrite and pre-push shims into the "
                    "folder git runs hooks from (core.hooksPath honoured). A hook already "
                    "there is kept as <hook>.pre-lets and still runs first. Safe to run "
                    "again.")
    parser.add_argument("--command", metavar="PATH", default=None,
                        help="the lets-hooks the shims call (default: this one, by its "
                             "absolute path; 'lets-hooks' for the one on PATH)")
    opts = parser.parse_args(list(argv))
    from lets_hooks.cli import out, say
    from lets_hooks.install import InstallError, install
    from lets_hooks.repo import GitError, reason

    try:
        command, python = _own_command()
        if opts.command is not None:
            command, python = opts.command, ""
        lines = install(None, command, python)
    except (InstallError, GitError) as exc:
        say(f"{PROG}: {reason(exc)}")
        return 1
    for line in lines:
        out(line + "\n")
    return 1 if any(": left alone" in line for line in lines) else 0
