"""Command-line entry points: the only code that reads argv and the environment, prints,
and chooses exit codes. One module per command family keeps each command's imports small:

- ``boundary``: ``lets-session-boundary`` (the four-line contract)
- ``hooks``: ``lets-hooks`` (the git hooks, ``record``, ``status``, ``install``, ``lint``)
- ``summary``: ``lets-session-start`` and ``lets-observability``
"""

from __future__ import annotations

import os
import sys


def say(message: str) -> None:
    """A diagnostic line on stderr."""
    sys.stderr.write(message.rstrip("\n") + "\n")


def note(message: str) -> None:
    say(f"NOTE: {message}")


def use_color(stream: object = None) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (to anything)."""
    target = sys.stderr if stream is None else stream
    if "NO_COLOR" in os.environ:
        return False
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())
