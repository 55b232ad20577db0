"""``lets-hooks install`` and ``lets-hooks uninstall``."""

from __future__ import annotations

import os
import sys

from lets_hooks.cli import command_parser, out, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from lets_hooks.install import Report, Setup


def _own_command() -> tuple[str, str, list[str]]:
    """This ``lets-hooks`` by its absolute path, the interpreter running it, and the
    folders it imports from (``import_folders``): the shims then work without the virtual
    environment on PATH, and start the interpreter directly, without ``site``."""
    import shutil

    here = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(here) != "lets-hooks" or not os.access(here, os.X_OK):
        beside = os.path.join(os.path.dirname(sys.executable), "lets-hooks")
        here = beside if os.access(beside, os.X_OK) else shutil.which("lets-hooks") or ""
    if not here or not sys.executable:
        return "lets-hooks", "", []
    return here, os.path.abspath(sys.executable), import_folders()


def import_folders() -> list[str]:
    """Where this interpreter imports lets_hooks and its dependencies from (none when a
    folder's name holds a ':', which the shim's list cannot carry: it then uses site)."""
    import sysconfig

    import lets_hooks

    package = os.path.dirname(os.path.dirname(os.path.abspath(lets_hooks.__file__)))
    paths = sysconfig.get_paths()
    found = list(dict.fromkeys([package, paths["purelib"], paths["platlib"]]))
    return [] if any(":" in folder for folder in found) else found


def install_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "lets-hooks install",
        "Make git run the six hooks (post-checkout, post-rewrite, pre-push, post-commit, "
        "post-merge, post-applypatch). "
        "Without a hook manager, shims go into the folder git runs hooks from "
        "(core.hooksPath honoured; a hook already there is kept as "
        "<hook>.pre-lets and runs first). With husky, one marked line goes "
        "into .husky/<hook>. With pre-commit, shims go beside its scripts for "
        "the hooks it has none for (one it has is left to it, and said). With "
        "lefthook nothing is written: it says what to add to its configuration "
        "and exits 1. Safe to run again; a newer version upgrades the shims in "
        "place.")
    parser.add_argument("--command", metavar="PATH", default=None,
                        help="the lets-hooks the shims call (default: this one, by its "
                             "absolute path; 'lets-hooks' for the one on PATH)")
    parser.add_argument("--hooks-dir-ok", action="store_true",
                        help="write into a hooks folder that is tracked by git or set in "
                             "a global git config (refused without it)")
    return parser


def uninstall_parser() -> argparse.ArgumentParser:
    return command_parser(
        "lets-hooks uninstall",
        "Remove what lets-hooks install added (the shims, or the husky lines) "
        "and put every hook it had kept as <hook>.pre-lets back, byte for "
        "byte. A shim edited since is kept as <hook>.lets-backup. Leaves "
        "husky, lefthook and pre-commit as they were. Safe to run again.")


def install_main(argv: Sequence[str]) -> int:
    opts = install_parser().parse_args(list(argv))
    from lets_hooks import install

    command, python, lib = (_own_command() if opts.command is None
                            else (opts.command, "", []))
    return _run("install", lambda setup: install.install(setup, command, python,
                                                         opts.hooks_dir_ok, lib))


def uninstall_main(argv: Sequence[str]) -> int:
    uninstall_parser().parse_args(list(argv))
    from lets_hooks import install

    return _run("uninstall", install.uninstall)


def _run(name: str, act: Callable[[Setup], Report]) -> int:
    from lets_hooks import install
    from lets_hooks.files import Refused, show
    from lets_hooks.repo import GitError, reason

    try:
        report = act(install.survey(None))
    except (install.InstallError, Refused, GitError) as exc:
        say(f"lets-hooks {name}: {reason(exc) if isinstance(exc, GitError) else exc}")
        return 1
    for line in report.lines:  # paths and hook names came from the disk: shown, not obeyed
        out("\n".join(show(part) for part in line.split("\n")) + "\n")
    return report.code
