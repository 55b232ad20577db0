"""``lets-agent-hook``: the hooks an agent runs around its shell tool.

    lets-agent-hook pre-tool  [--agent claude|codex|gemini]   (PreToolUse, BeforeTool)
    lets-agent-hook post-tool [--agent claude|codex|gemini]   (PostToolUse, AfterTool)

Before the shell tool runs a command, ``pre-tool`` saves where the work tree's HEAD reflog
ends (``<git dir>/lets-agent/<session>``); under Gemini, whose commands get no session id,
it also hands the command ``LETS_SESSION_ID`` (the agent lets a BeforeTool hook change the
tool's input). After the command, ``post-tool`` reads the reflog entries appended since
that position and writes the session ledger for the commits git says it made there
(``commit``, ``merge``, ``cherry-pick``, ``revert``, ``am``; not an amend, which holds
what it replaced), so the
session's commits are vouched for where no git hook ran (none installed, or Gemini's shell
tool, which switches git's hooks off). With git's hooks installed too, both write the
same ledger line, which the ledger keeps once.

A hook never stops the agent: whatever arrives, exit 0, nothing on stdout but what the
agent is meant to read (Gemini's changed tool input), at most one line on stderr. The
common case (the command made no commit) reads one small file and stats another.
"""

from __future__ import annotations

import contextlib
import os
import sys

from lets_hooks import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

INPUT_LIMIT = 1024 * 1024
POSITIONS = "lets-agent"  # in the work tree's git dir: one file a session
READ_LIMIT = 8 << 20  # reflog bytes one tool call may have appended and still be read
USAGE = "usage: lets-agent-hook {pre-tool,post-tool} [--agent claude|codex|gemini]"
HELP = f"""{USAGE}

The hooks an agent runs around its shell tool, reading the hook's JSON on stdin:
  pre-tool   before a command (PreToolUse, Gemini's BeforeTool): note where the work
             tree's HEAD reflog ends; under Gemini, hand the command LETS_SESSION_ID
  post-tool  after it (PostToolUse, Gemini's AfterTool): write the session ledger for
             the commits the command made
  --agent    whose hook this is (default: Claude Code or Codex CLI, read from the input)

A hook always exits 0 (a usage error: 2); see docs/agents.md."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        _print(HELP + "\n")
        return 0
    if args and args[0] == "--version":
        from lets_hooks import __version__

        _print(f"lets-agent-hook {__version__}\n")
        return 0
    event = args[0] if args else ""
    rest = args[1:]
    name: str | None = None
    if len(rest) == 2 and rest[0] == "--agent":
        name = rest[1]
    elif len(rest) == 1 and rest[0].startswith("--agent="):
        name = rest[0].split("=", 1)[1]
    elif rest:
        name = "?"
    from lets_hooks import agents

    if event not in ("pre-tool", "post-tool") or (name is not None
                                                   and name not in agents.NAMES):
        _say(USAGE)
        return 2
    try:
        _hook(event, name, os.environ)
    except Exception as exc:  # a hook never breaks the agent
        _say(f"lets-agent-hook: internal error ({type(exc).__name__}: {exc})")
    return 0


def _say(message: str) -> None:
    try:
        from lets_hooks.cli import say

        say(message)
    except Exception:  # pragma: no cover - a closed stderr
        pass


def _print(text: str) -> None:
    from lets_hooks.cli import out

    out(text)


def read_input() -> dict[str, object] | None:
    """The hook's JSON object from stdin, or None (nothing, too large, not an object)."""
    import json

    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return None
        buffer = getattr(stream, "buffer", stream)
        raw = buffer.read(INPUT_LIMIT + 1)
    except (OSError, ValueError):
        return None
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    if not isinstance(raw, bytes) or len(raw) > INPUT_LIMIT:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _hook(event: str, name: str | None, environ: Mapping[str, str]) -> None:
    from lets_hooks import agents

    payload = read_input()
    if payload is None:
        _say(f"lets-agent-hook {event}: no hook JSON object on stdin; nothing done")
        return
    agent = agents.by_name(name) if name else agents.detect(payload, environ)
    tool_input = agents.shell_tool_input(agent, payload)
    if tool_input is None:
        return  # not the shell tool
    sid = session_id(payload)
    if sid is None:
        refused = sid_refused(payload)
        if refused is not None and event == "pre-tool":  # once a call, not twice
            _say(f"lets-agent-hook: {refused}; read as no session id, nothing written")
        return
    cwd = payload.get("cwd")
    start = cwd if isinstance(cwd, str) and files.is_folder(cwd) else os.getcwd()
    # where the command ran: only that work tree's git dir (and its repository's common
    # one, for the ledger) is written; outside any work tree, nothing
    git_dir = git_dir_at(agents.tool_folder(agent, start, tool_input))
    if event == "pre-tool":
        if git_dir is not None:
            save_position(git_dir, sid)
        handed = agents.hand_over(agent, tool_input, sid)
        if handed is not None:
            _print(agents.before_tool_output(handed))
        return
    if git_dir is not None:
        problem = note_commits(git_dir, sid)
        if problem:
            _say(f"lets-agent-hook: {problem}")


def session_id(payload: Mapping[str, object]) -> str | None:
    """The hook JSON's ``session_id`` when it passes the one session-id rule."""
    value = payload.get("session_id")
    if not isinstance(value, str) or not value.strip():
        return None
    from lets_hooks import state

    value = value.strip()
    return value if state.sid_problem(value) is None else None


def sid_refused(payload: Mapping[str, object]) -> str | None:
    """Why the hook JSON's ``session_id`` is refused by the session-id rule, or None."""
    value = payload.get("session_id")
    if not isinstance(value, str) or not value.strip():
        return None
    from lets_hooks import state

    problem = state.sid_problem(value.strip())
    if problem is None:
        return None
    return f"the hook input's session_id {state.shown_sid(value.strip())} is {problem}"


def top_of(folder: str) -> str | None:
    """The top of the work tree holding ``folder`` (a walk up to the first ``.git``; no
    git process), or None outside any work tree."""
    try:
        here = os.path.abspath(folder)
    except (OSError, ValueError):
        return None
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def git_dir_at(folder: str) -> str | None:
    """The git dir of the work tree holding ``folder``: its ``.git`` folder, or where a
    linked work tree's ``.git`` file points (no git process), or None."""
    top = top_of(folder)
    if top is None:
        return None
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, "rb") as handle:
            text = handle.read(4096).decode("utf-8", "surrogateescape").strip()
    except (OSError, ValueError):
        return None
    if not text.startswith("gitdir: "):
        return None
    found = os.path.normpath(os.path.join(top, text[len("gitdir: "):]))
    return found if os.path.isdir(found) else None


def _position_path(git_dir: str, sid: str) -> str:
    import hashlib

    digest = hashlib.sha256(sid.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(git_dir, POSITIONS, digest)


def _log_size(git_dir: str) -> int | None:
    try:
        return os.stat(os.path.join(git_dir, "logs", "HEAD")).st_size
    except (OSError, ValueError):
        return None


def _read_position(path: str) -> tuple[int, int] | None:
    """(size, inode) of the reflog when last seen, or None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(64)
    except (OSError, ValueError):
        return None
    parts = data.split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _log_identity(git_dir: str) -> tuple[int, int] | None:
    try:
        found = os.stat(os.path.join(git_dir, "logs", "HEAD"))
    except (OSError, ValueError):
        return None
    return found.st_size, found.st_ino


def save_position(git_dir: str, sid: str, where: tuple[int, int] | None = None) -> None:
    """Remember where the HEAD reflog ends now, for this session (a temporary file renamed
    over the old one; a failure only costs the next reading)."""
    where = where or _log_identity(git_dir)
    if where is None:
        return
    path = _position_path(git_dir, sid)
    if _read_position(path) == where:
        return
    folder = os.path.dirname(path)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        if not os.path.isdir(folder):
            os.mkdir(folder, 0o700)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, f"{where[0]} {where[1]}\n".encode())
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def made_since(git_dir: str, start: int, end: int) -> list[str]:
    """The commits the reflog entries between byte ``start`` and ``end`` made (git's own
    message for a commit it created), oldest first."""
    from lets_hooks import witness

    path = os.path.join(git_dir, "logs", "HEAD")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return []
    try:
        data = os.pread(fd, min(end - start, READ_LIMIT), start)
    except OSError:
        return []
    finally:
        os.close(fd)
    made: list[str] = []
    for line in data.split(b"\n"):
        entry = witness.parse_line(line) if line else None
        # an amend holds what the commit it replaced held: the session did not make all
        # of it, and only the rewrite's own record (post-rewrite) can say whose it was
        if entry is not None and entry.kind == witness.CREATED and not entry.replaces \
                and entry.new not in made:
            made.append(entry.new)
    return made


def note_commits(git_dir: str, sid: str) -> str | None:
    """After a tool call: write the ledger for the commits made since the saved position,
    then save the new one. Returns a problem to say, or None."""
    now = _log_identity(git_dir)
    if now is None:
        return None  # no reflog (reftable, or logging off): nothing to read
    path = _position_path(git_dir, sid)
    before = _read_position(path)
    if before is None or before[1] != now[1] or now[0] < before[0]:
        # no position (the pre-tool hook did not run), or the log was replaced or cut
        # (expired, rewritten): nothing can be said of what this call made
        save_position(git_dir, sid, now)
        return None
    if now[0] == before[0]:
        return None  # the common case: no commit
    shas = made_since(git_dir, before[0], now[0])
    problem = None
    if shas:
        problem = write_ledger(git_dir, shas, sid)
    save_position(git_dir, sid, now)
    return problem


def write_ledger(git_dir: str, shas: Sequence[str], sid: str) -> str | None:
    from lets_hooks import ledger, witness

    return ledger.note_made(witness.common_dir_of(git_dir), list(shas), sid)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
