"""``lets-hooks``: the git hooks, and the commands people type.

    lets-hooks post-checkout PREV NEW FLAG    (git's post-checkout, or pre-commit's)
    lets-hooks post-rewrite amend|rebase      (old new pairs on stdin)
    lets-hooks pre-push REMOTE URL            (pushed refs on stdin)
    lets-hooks post-commit | post-merge [SQUASH] | post-applypatch   (the session ledger)
    lets-hooks record | status | install | uninstall | doctor | lint

``lets-hooks --help`` lists every command with its usage, taken from the command's own
parser, so the list cannot promise an option that does not exist.

The hooks are the hot path: this module imports only what the chosen command needs, and
argparse only for the commands people type (and a hook's ``--help``). Hooks exit 0
whatever happens (their trouble goes to stderr), except a strict pre-push.
"""

from __future__ import annotations

import os
import sys
import time

from lets_hooks import __version__
from lets_hooks.cli import command_parser, guarded, leave, out, own_process, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from lets_hooks.hooks import Result

PROG = "lets-hooks"
USAGE = f"usage: {PROG} [--help] [--version] COMMAND [ARGS]"


def _now() -> int:
    return int(time.time())


def _stdin() -> bytes:
    """git's stdin for the hook; nothing when it is a terminal (run by hand)."""
    try:
        return b"" if os.isatty(0) else sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        return b""


def _emit(result: Result) -> int:
    for line in result.messages:
        say(line)
    return result.code


# the ledger's writers, which an agent's hooks folder runs before the repository's own
# hook (``lets_hooks.cli.agent``): LETS_HOOKS_DONE set to the hook's name, they have run
WRITERS = ("post-checkout", "post-rewrite", "post-commit", "post-merge", "post-applypatch")
HOOKS = (*WRITERS, "pre-push")


def _post_checkout(args: Sequence[str]) -> int:
    if len(args) >= 3 and args[2] != "1":
        return 0  # a file checkout: the cheapest possible no-op
    if not args and os.environ.get("PRE_COMMIT_CHECKOUT_TYPE", "1") != "1":
        return 0
    from lets_hooks import hooks

    return _emit(hooks.post_checkout(args, os.environ, _now()))


def _post_rewrite(args: Sequence[str]) -> int:
    from lets_hooks import hooks

    return _emit(hooks.post_rewrite(args, _stdin(), os.environ, _now()))


def _noting(hook: str) -> Callable[[Sequence[str]], int]:
    """post-commit, post-merge, post-applypatch: the session ledger's line."""

    def run(args: Sequence[str]) -> int:
        from lets_hooks import hooks

        return _emit(hooks.note_commit(hook, args, os.environ))

    return run


def _pre_push(args: Sequence[str]) -> int:
    from lets_hooks import hooks

    return _emit(hooks.pre_push(args, _stdin(), os.environ, _now()))


# each hook's --help: what it does, and git's arguments to it (name, metavar, help)
_HOOK_HELP: dict[str, tuple[str, tuple[tuple[str, str, str], ...]]] = {
    "post-checkout": (
        "git's post-checkout hook: on a branch checkout, record the branch's session boundary "
        "the first time a session touches it, then warn if the recorded boundary is "
        "rejected. Under pre-commit the three values come from PRE_COMMIT_FROM_REF, "
        "PRE_COMMIT_TO_REF and PRE_COMMIT_CHECKOUT_TYPE. Always exits 0.",
        (("prev", "PREV", "the previous HEAD"), ("new", "NEW", "the new HEAD"),
         ("flag", "FLAG", "1 for a branch checkout, 0 for a file checkout"))),
    "post-rewrite": (
        "git's post-rewrite hook: after commit --amend or rebase (old new pairs on stdin), "
        "move the session boundary with the rewritten history, then warn if it is rejected. "
        "Under pre-commit the pairs are recovered from git. Always exits 0.",
        (("command", "amend|rebase", "what rewrote the commits"),)),
    "pre-push": (
        "git's pre-push hook: for every pushed branch (git's ref lines on stdin), warn when "
        "its session boundary is rejected or only estimated. Exits 1 only in strict mode "
        "(pre_push.strict) on a rejected boundary.",
        (("remote", "REMOTE", "the remote's name"), ("url", "URL", "the remote's address"))),
    "post-commit": (
        "git's post-commit hook (also run for every commit cherry-pick, revert and rebase "
        "make): write down in the session ledger which session made the commit just made. "
        "No ladder, no history walk. Always exits 0.", ()),
    "post-merge": (
        "git's post-merge hook: write down in the session ledger which session made the merge "
        "commit just made (nothing for a fast-forward or a squash). No ladder, no history "
        "walk. Always exits 0.",
        (("squash", "SQUASH", "1 for a squash merge (git's own argument)"),)),
    "post-applypatch": (
        "git's post-applypatch hook (git am): write down in the session ledger which session "
        "made the commit just made. No ladder, no history walk. Always exits 0.", ()),
}


def _hook_parser(hook: str) -> argparse.ArgumentParser:
    description, arguments = _HOOK_HELP[hook]
    parser = command_parser(f"{PROG} {hook}", description)
    for dest, metavar, text in arguments:
        parser.add_argument(dest, nargs="?", metavar=metavar, help=text)
    return parser


def _record_parser() -> argparse.ArgumentParser:
    parser = command_parser(f"{PROG} record",
                            "Record the checked-out branch's session boundary at HEAD, or at "
                            "REV (the 'session:' line of .lets/sessions/.task-<branch>), then "
                            "print the four contract lines as the ladder reads it.")
    parser.add_argument("--at", metavar="REV", default=None,
                        help="record the boundary at this commit instead of HEAD: the "
                             "commit the session started from, an ancestor of HEAD not "
                             "older than the branch's point off the merge branch (refused, "
                             "with the reason, when the ladder would reject it)")
    whose = parser.add_mutually_exclusive_group()  # (both: which one was meant?)
    whose.add_argument("--sid", metavar="ID", default=None,
                       help="the session id to record (default: the current session's, "
                            "the first of session_id_env that is set)")
    whose.add_argument("--no-sid", action="store_true",
                       help="record the boundary without a session id")
    return parser


def _record(args: Sequence[str]) -> int:
    opts = _record_parser().parse_args(list(args))
    from lets_hooks import files, hooks

    sid = "" if opts.no_sid else opts.sid
    try:
        result, boundary = hooks.record(None, sid, os.environ, _now(), at=opts.at)
    except hooks.UsageError as exc:
        say(f"{PROG} record: {exc}")
        return 1
    code = _emit(result)
    if boundary is not None:  # stdout: exactly the four lines, as the contract command
        out("\n".join(boundary.lines()) + "\n")
        say(f"{PROG} record: recorded {boundary.recorded} for branch "
            f"{files.quoted(boundary.branch)}")
        for line in boundary.notes:
            say(f"NOTE: {line}")
        if boundary.reason is not None:
            say(f"{PROG} record: the ladder rejects this boundary: {boundary.reason}")
    return code


# the commands of the other modules of lets_hooks.cli: (module, its main, its parser)
_ELSEWHERE = {"status": ("status", "main", "parser"),
              "install": ("install", "install_main", "install_parser"),
              "uninstall": ("install", "uninstall_main", "uninstall_parser"),
              "doctor": ("doctor", "main", "parser"), "lint": ("lint", "main", "parser")}


def _elsewhere(module: str, function: str) -> Callable[[Sequence[str]], int]:
    """A command of ``lets_hooks.cli.<module>``, imported only when it runs."""

    def run(args: Sequence[str]) -> int:
        import importlib

        command: Callable[[Sequence[str]], int] = getattr(
            importlib.import_module(f"lets_hooks.cli.{module}"), function)
        return command(args)

    return run


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "post-checkout": _post_checkout,
    "post-rewrite": _post_rewrite,
    "pre-push": _pre_push,
    **{hook: _noting(hook) for hook in ("post-commit", "post-merge", "post-applypatch")},
    "record": _record,
    **{name: _elsewhere(module, run) for name, (module, run, _) in _ELSEWHERE.items()},
}


def parser_of(name: str) -> argparse.ArgumentParser:
    """The parser of command ``name``: what its ``--help`` prints and what it accepts."""
    if name in _HOOK_HELP:
        return _hook_parser(name)
    if name == "record":
        return _record_parser()
    import importlib

    module, _, function = _ELSEWHERE[name]
    made: Callable[[], argparse.ArgumentParser] = getattr(
        importlib.import_module(f"lets_hooks.cli.{module}"), function)
    return made()


def help_text() -> str:
    """``lets-hooks --help``: each command's usage line from its own parser, and the
    first sentence of its description."""
    import textwrap

    lines = [USAGE, "", "Commands:"]
    for name in COMMANDS:
        parser = parser_of(name)
        usage = " ".join(parser.format_usage().split())
        lines.append("  " + usage[len("usage: "):])
        first = (parser.description or "").split(". ")[0].rstrip(".") + "."
        lines.extend(textwrap.wrap(first, 88, initial_indent="      ",
                                   subsequent_indent="      "))
    lines += ["", f"{PROG} COMMAND --help says more about each."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``lets-hooks``: the console script and git's hooks (``argv`` None: a process of
    its own, ended by ``leave``, guard benchmarks/bench_hooks.py), or a caller's ``argv``."""
    if argv is not None:
        return guarded(_main, argv)
    own_process()
    leave(guarded(_main, sys.argv[1:]))


def _main(argv: Sequence[str]) -> int:
    args = list(argv)
    if not args:
        say(help_text())
        return 2
    if args[0] in ("-h", "--help"):
        out(help_text())
        return 0
    if args[0] == "--version":
        out(f"{PROG} {__version__}\n")
        return 0
    handler = COMMANDS.get(args[0])
    if handler is None:
        say(f"{PROG}: unknown command {args[0]!r}\n{USAGE}\n"
            f"(commands: {', '.join(COMMANDS)}; {PROG} --help lists them)")
        return 2
    if os.environ.get("LETS_HOOKS_DONE") == args[0] and args[0] in WRITERS:
        return 0  # an agent's hooks folder ran this writer, then chained here
    try:
        if args[0] in HOOKS and args[1:] and args[1] in ("-h", "--help", "--version"):
            parser_of(args[0]).parse_args(args[1:])  # exits (git never passes these)
        return handler(args[1:])
    except KeyboardInterrupt:
        return 130
    except SystemExit as exc:  # argparse: --help or a usage error
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BrokenPipeError:
        raise
    except Exception as exc:  # one line, never a traceback
        say(f"{PROG} {args[0]}: internal error ({type(exc).__name__}: {exc})")
        return 0 if args[0] in HOOKS else 1


if __name__ == "__main__":
    raise SystemExit(main())
