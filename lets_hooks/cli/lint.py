"""``lets-hooks lint`` (pre-commit id ``lets-state-lint``): the CI lint step.

Prints one ``path: problem`` line per finding on stdout and exits 1; exits 0 silently on a
clean repository; exits 2 with one line on stderr when the check itself cannot run (no
git, not a repository), so a CI job never passes a lint that did not happen.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

PROG = "lets-hooks lint"
CLEAN, FOUND, BROKEN = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Fail (exit 1, one 'path: problem' line each) when session state under "
                    ".lets/sessions/ is tracked by git, when the non-slugged "
                    ".session-start-ref exists, when a task file's session line is "
                    "malformed, or when a memory file lets-session-start reads does not "
                    "parse. Silent and exit 0 otherwise.")
    parser.add_argument("--root", metavar="DIR", default=None,
                        help="a folder inside the repository to check (default: here)")
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    return run(args.root, sys.stdout, sys.stderr)


def run(root: str | None, out: TextIO, err: TextIO) -> int:
    from lets_hooks import lint
    from lets_hooks.repo import GitError, Repo

    try:
        where = Repo(root).locate()
        if where.top is None:
            _emit(err, f"{PROG}: no work tree here (bare repository, or inside .git) - "
                       "nothing to check")
            return CLEAN
        findings = lint.lint(Repo(where.top), where.top)
    except GitError as exc:
        _emit(err, f"{PROG}: {exc} - nothing was checked")
        return BROKEN
    except Exception as exc:  # a CI step must fail loudly, but in one line
        _emit(err, f"{PROG}: internal error ({type(exc).__name__}: {exc}) - nothing was checked")
        return BROKEN
    for finding in findings:
        _emit(out, str(finding))
    return FOUND if findings else CLEAN


def _emit(stream: TextIO, line: str) -> None:
    """One line, whatever the stream's encoding can show (never a UnicodeEncodeError)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    safe = line.encode(encoding, "backslashreplace").decode(encoding, "replace")
    stream.write(safe + "\n")
    stream.flush()


if __name__ == "__main__":
    raise SystemExit(main())
