"""Command-line entry points: the only code that reads argv and the environment, prints,
and chooses exit codes. One module per command family keeps each command's imports small:

- ``boundary``: ``lets-session-boundary`` (the four-line contract)
- ``hooks``: ``lets-hooks`` (the git hooks, ``record``, ``status``, ``install``, ``lint``)
- ``summary``: ``lets-session-start`` and ``lets-observability``

Every line goes out through ``out`` (results, stdout) or ``say`` (diagnostics, stderr,
each line through ``files.show``), which keep three promises: a closed or broken stderr
never costs the result on stdout; a reader that went away (``| head -1``) ends the output
quietly; text that cannot be encoded (a name that is not valid UTF-8) is printed escaped.
"""

from __future__ import annotations

import io
import os
import sys

from lets_hooks import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import NoReturn, TextIO


def command_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The argument parser of ``prog``, with ``--version`` (``lets-hooks 0.2.0`` for every
    ``lets-hooks`` command)."""
    import argparse

    made = argparse.ArgumentParser(prog=prog, description=description)
    made.add_argument("--version", action="version", version=f"{prog.split()[0]} {__version__}")
    return made


def parse_or_hook(parser: argparse.ArgumentParser, argv: Sequence[str], hook: bool
                  ) -> argparse.Namespace | None:
    """``parser``'s reading of ``argv``. For an agent's hook (``hook``), which always exits
    0 (SPEC sections 6 and 9: an agent runs the hook with the options its plugin names, an
    installed command older than the plugin must not stop the agent), a usage error is
    argparse's one error line on stderr and None, not exit status 2."""
    if not hook:
        return parser.parse_args(list(argv))
    import contextlib

    caught = io.StringIO()
    try:
        with contextlib.redirect_stderr(caught):
            return parser.parse_args(list(argv))
    except SystemExit as exc:
        if exc.code in (0, None):  # --help or --version, printed on stdout
            raise
        lines = caught.getvalue().strip().splitlines()
        say(lines[-1] if lines else f"{parser.prog}: usage error")
        return None


def _escaped(stream: TextIO, text: str) -> str:
    """``text`` as ``stream``'s encoding can carry it: what it cannot is backslash-escaped
    (an undecodable byte kept by surrogateescape shows as ``\\xff``)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return raw.encode(encoding, "backslashreplace").decode(encoding, "replace")
    except LookupError:
        return text


def _silence_stdout() -> None:
    """The reader went away: stdout to /dev/null, so not even the flush at exit complains."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def out_encoding() -> str:
    """The encoding ``out`` writes in (what a JSON answer must fit, escaped the JSON way)."""
    return getattr(sys.stdout, "encoding", None) or "utf-8"


def out(text: str) -> None:
    """Write a result on stdout (add the line ends yourself); a closed pipe ends quietly."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        stream.write(_escaped(stream, text))
        stream.flush()
    except BrokenPipeError:
        _silence_stdout()
    except (OSError, ValueError):
        pass


def say(message: str) -> None:
    """A diagnostic line on stderr, each line through ``files.show`` (no control character,
    escape sequence or bidi control reaches the terminal); never raises."""
    stream = sys.stderr
    if stream is None:
        return
    from lets_hooks.files import show

    text = "\n".join(show(line) for line in message.rstrip("\n").split("\n"))
    try:
        stream.write(_escaped(stream, text) + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def own_process() -> None:
    """A command run as a process of its own (a console script, a hook): the cyclic
    collector is off for the run, nothing it builds outlives it (guard:
    benchmarks/bench_boundary.py)."""
    import gc

    gc.disable()


def leave(code: int) -> NoReturn:
    """End a command's own process with ``code`` once its streams are flushed, without the
    interpreter's teardown (guard: benchmarks/bench_boundary.py). For console scripts
    only, never for a caller in the same process; a file a command writes is closed where
    it is written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # what could not be written then would not be at exit either
    os._exit(code)


def use_color(stream: object) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (an
    empty one is as if unset: no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def guarded(main: Callable[[Sequence[str]], int], argv: Sequence[str]) -> int:
    """Run a command's ``main`` with streams that cannot break it: a stream closed at start
    (``2>&-``) becomes a sink, and a broken pipe anywhere ends the output quietly with
    the status the command chose (or 0 when it never got to choose)."""
    if sys.stderr is None:
        sys.stderr = io.StringIO()  # written to, never read
    if sys.stdout is None:
        sys.stdout = io.StringIO()
    try:
        return main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return 0
