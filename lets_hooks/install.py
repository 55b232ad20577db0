"""``lets-hooks install``: write the plain git hook shims into the repository's hooks folder.

The folder is the one git runs hooks from (``core.hooksPath`` honoured; from a linked work
tree, the shared one). A hook that is already there and is not ours is kept beside the
shim as ``<hook>.pre-lets`` and still runs, first, with the same arguments and stdin.
Running it again changes nothing.
"""

from __future__ import annotations

import contextlib
import os

from lets_hooks.repo import Repo

HOOKS = ("post-checkout", "post-rewrite", "pre-push")
MARKER = "# lets-hooks shim"
CHAINED = ".pre-lets"

_HEAD = """#!/bin/sh
{marker} for git's {hook} hook: hands git's arguments{stdin_note} to `lets-hooks {hook}`.
# Written by `lets-hooks install`. A {hook} hook that was here before is kept as
# {hook}{chained} and runs first.
lets={command}
py={python}
lets_hooks() {{
  if [ -n "$py" ] && [ -x "$py" ] && [ -x "$lets" ]; then
    "$py" -c "$run" "$@"
  elif command -v "$lets" >/dev/null 2>&1; then
    "$lets" "$@"
  elif command -v lets-hooks >/dev/null 2>&1; then
    lets-hooks "$@"
  else
    echo "lets-hooks: not found on PATH; its {hook} hook did nothing" >&2
  fi
}}
run='import sys
try:
    from lets_hooks.cli.hooks import main
except ImportError:
    sys.stderr.write("lets-hooks: not installed for %s; hook skipped\\n" % sys.executable)
    sys.exit(0)
sys.exit(main())'
"""

_PLAIN = """[ -x "${{0%/*}}/{hook}{chained}" ] && "${{0%/*}}/{hook}{chained}" "$@"
lets_hooks {hook} "$@"
"""

_WITH_STDIN = """if [ -x "${{0%/*}}/{hook}{chained}" ]; then
  input=$(cat)
  if [ -n "$input" ]; then printf '%s\\n' "$input"; fi | "${{0%/*}}/{hook}{chained}" "$@"
  first=$?
  if [ -n "$input" ]; then printf '%s\\n' "$input"; fi | lets_hooks {hook} "$@"
  ours=$?
  [ "$first" -ne 0 ] && exit "$first"
  exit "$ours"
fi
lets_hooks {hook} "$@"
"""


def shim(hook: str, command: str = "lets-hooks", python: str = "") -> str:
    """The text of the shim for ``hook``, calling ``command`` (a name, or the absolute path
    of the ``lets-hooks`` that installed it). With ``python``, the interpreter of that
    ``lets-hooks``, the shim runs lets_hooks with it directly while both are there (it
    starts faster than the console script); else ``command``, else ``lets-hooks`` from
    PATH, else it says so and lets git go on."""
    if hook not in HOOKS:
        raise ValueError(f"no shim for {hook!r}")
    takes_stdin = hook != "post-checkout"
    fields = {
        "marker": MARKER,
        "hook": hook,
        "chained": CHAINED,
        "command": _sh_quote(command),
        "python": _sh_quote(python) if python else "",
        "stdin_note": " and stdin" if takes_stdin else "",
    }
    body = _WITH_STDIN if takes_stdin else _PLAIN
    return _HEAD.format(**fields) + body.format(**fields)


def _sh_quote(text: str) -> str:
    if text and all(c.isalnum() or c in "/._-+" for c in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


class InstallError(Exception):
    """The shims could not be installed; one line for the user."""


def install(cwd: str | None, command: str = "lets-hooks", python: str = "") -> list[str]:
    """Install the three shims; returns one line per hook saying what was done."""
    repo = Repo(cwd)
    where = repo.locate()
    folder = Repo(where.top).hooks_dir() if where.top else repo.hooks_dir()
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InstallError(f"cannot create the hooks folder {folder}: "
                           f"{exc.strerror or exc}") from exc
    return [_install_one(folder, hook, command, python) for hook in HOOKS]


def _install_one(folder: str, hook: str, command: str, python: str) -> str:
    path = os.path.join(folder, hook)
    chained = path + CHAINED
    text = shim(hook, command, python)
    kept = ""
    if os.path.lexists(path):
        current = _read(path)
        if current is not None and MARKER in current:
            if current == text and os.access(path, os.X_OK):
                return f"{path}: up to date"
        elif os.path.lexists(chained):
            return (f"{path}: left alone - it is not a lets-hooks shim and {hook}{CHAINED} "
                    "exists too; move one of them away and run install again")
        else:
            try:
                os.rename(path, chained)
            except OSError as exc:
                raise InstallError(f"cannot move {path} aside: {exc.strerror or exc}") from exc
            kept = f" (the hook that was there is kept as {hook}{CHAINED} and runs first)"
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise InstallError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return f"{path}: installed{kept}"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 20)
    except OSError:
        return None
