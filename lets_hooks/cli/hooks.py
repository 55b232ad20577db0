"""``lets-hooks``: the git hooks, and ``record``, ``status``, ``install``, ``lint``.

    lets-hooks post-checkout PREV NEW FLAG    (git's post-checkout, or pre-commit's)
    lets-hooks post-rewrite amend|rebase      (old new pairs on stdin)
    lets-hooks pre-push REMOTE URL            (pushed refs on stdin)
    lets-hooks record [--sid SID]             record this branch's boundary at HEAD
    lets-hooks status [--json]                one row per local branch
    lets-hooks install [--force]              write the plain shims into the hooks folder
    lets-hooks lint [--root DIR]              the CI lint step

The three hooks are the hot path: they run on every checkout, so this module imports
only what the chosen command needs, and argparse only for the commands people type.
Hooks exit 0 whatever happens (their trouble goes to stderr), except a strict pre-push.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lets_hooks.hooks import Result

PROG = "lets-hooks"
USAGE = (f"usage: {PROG} {{post-checkout,post-rewrite,pre-push,record,status,install,lint}} "
         "[args]")


def _now() -> int:
    import time

    return int(time.time())


def _stdin() -> bytes:
    """git's stdin for the hook; nothing when it is a terminal (run by hand)."""
    try:
        if os.isatty(0):
            return b""
        return sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        return b""


def _emit(result: Result) -> int:
    from lets_hooks.cli import say

    for line in result.messages:
        say(line)
    return result.code


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


def _pre_push(args: Sequence[str]) -> int:
    from lets_hooks import hooks

    return _emit(hooks.pre_push(args, _stdin(), os.environ, _now()))


def _record(args: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"{PROG} record",
        description="Record the checked-out branch's session boundary at HEAD (the "
                    "'session:' line of .lets/sessions/.task-<branch>), then show how the "
                    "ladder reads it.")
    parser.add_argument("--sid", metavar="ID", default=None,
                        help="the session id to record (default: the current session, "
                             "from LETS_SESSION_ID or CLAUDE_CODE_SESSION_ID)")
    parser.add_argument("--no-sid", action="store_true",
                        help="record the boundary without a session id")
    opts = parser.parse_args(list(args))
    from lets_hooks import files, hooks
    from lets_hooks.cli import out, say

    sid = "" if opts.no_sid else opts.sid
    try:
        result, boundary = hooks.record(None, sid, os.environ, _now())
    except hooks.UsageError as exc:
        say(f"{PROG} record: {exc}")
        return 1
    code = _emit(result)
    if boundary is not None:
        out(f"recorded {boundary.recorded} for branch {files.quoted(boundary.branch)}\n")
        out("\n".join(boundary.lines()) + "\n")
        if boundary.reason is not None:
            say(f"{PROG} record: the ladder rejects this boundary: {boundary.reason}")
    return code


def _status(args: Sequence[str]) -> int:
    from lets_hooks.cli import status

    return status.main(args)


def _install(args: Sequence[str]) -> int:
    from lets_hooks.cli import install

    return install.main(args)


def _lint(args: Sequence[str]) -> int:
    from lets_hooks.cli import lint

    return lint.main(args)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "post-checkout": _post_checkout,
    "post-rewrite": _post_rewrite,
    "pre-push": _pre_push,
    "record": _record,
    "status": _status,
    "install": _install,
    "lint": _lint,
}
HOOKS = ("post-checkout", "post-rewrite", "pre-push")


def main(argv: Sequence[str] | None = None) -> int:
    from lets_hooks.cli import guarded

    return guarded(_main, sys.argv[1:] if argv is None else argv)


def _main(argv: Sequence[str]) -> int:
    from lets_hooks.cli import out, say

    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        text = USAGE + "\n" + (__doc__ or "").split("\n\n")[1] + "\n"
        if args:
            out(text)
        else:
            say(text)
        return 0 if args else 2
    handler = COMMANDS.get(args[0])
    if handler is None:
        say(f"{PROG}: unknown command {args[0]!r}\n{USAGE}")
        return 2
    try:
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
