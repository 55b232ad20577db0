"""``lets-agent-hook``: the hooks an agent runs around its shell tool and its prompts
(``HELP`` lists them).

Which session made a commit is a fact only while git makes it, in the environment of the
command that makes it. So ``pre-tool`` hands the agent the shell command back with a
prefix (``agents.wrap``) that sources the folder's ``git-env``: through
``GIT_CONFIG_COUNT`` / ``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` git runs the hooks of
``<git common dir>/lets-hooks/agent-hooks``, the ledger's writers (the plain shims) for
the commits that very command makes, then the repository's own hook of the same name,
found and run as git would have without us. Only processes the command starts inherit
the prefix: a commit made at another terminal, or by a second agent, is never written as
this session's. Claude Code's commands get the same environment from its env file
(``CLAUDE_ENV_FILE``); its PreToolUse could change the input only together with a
permission decision, which would skip the user's prompts.

A command that cannot be so wrapped gets nothing (``post-tool`` writes nothing: a commit
seen after the call may be anyone's). A hook never stops the agent: whatever arrives,
exit 0, nothing on stdout but what the agent is meant to read, at most one line on stderr.
"""

from __future__ import annotations

import os
import sys

from lets_hooks import __version__, files, gitfiles
from lets_hooks.cli import out, out_encoding, say  # never raise, a closed stream included
from lets_hooks.cli.hooks import WRITERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

INPUT_LIMIT = 1024 * 1024
HOOKS_FOLDER = "agent-hooks"  # in the common git dir's lets-hooks folder
STAMP = ".lets-made-for"  # what the folder's scripts were written for (version, Python)
PENDING = "lets-agent"  # in the work tree's git dir: a summary not yet delivered
EVENTS = ("pre-tool", "post-tool", "before-agent")
USAGE = ("usage: lets-agent-hook {pre-tool,post-tool,before-agent} "
         "[--agent claude|codex|gemini]")
HELP = f"""{USAGE}

The hooks an agent runs, reading the hook's JSON on stdin:
  pre-tool      before a shell command (PreToolUse, Gemini's BeforeTool): hand the
                command back with the session id and git's hooks folder set, so git
                writes the session ledger for the commits that command makes
  post-tool     after it: nothing (kept for plugins installed before)
  before-agent  before the model gets a prompt (Gemini's BeforeAgent): the summary a
                start hook made that the model has not received yet (after /clear)
  --agent       whose hook this is (default: Claude Code or Codex CLI, read from the input)

A hook always exits 0 (a usage error: 2); see docs/agents.md."""

# every hook git looks for in its hooks folder (githooks(5)): those the ledger's writers
# do not use only run the repository's own
GIT_HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
             "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
             "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive",
             "update", "proc-receive", "post-receive", "post-update",
             "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
             "sendemail-validate", "fsmonitor-watchman", "p4-changelist",
             "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
             "post-index-change")

CHAIN = """#!/bin/sh
# lets-hooks: the hooks folder an agent's shell command runs git with (lets-agent-hook).
# Runs the repository's own hook of this name, found and run as git would have without it.
hook=${0##*/}
hook=${hook%.pre-lets}
if [ -n "${LETS_AGENT_GIT_CONFIG_COUNT-}" ]; then
  GIT_CONFIG_COUNT=$LETS_AGENT_GIT_CONFIG_COUNT; export GIT_CONFIG_COUNT
else
  unset GIT_CONFIG_COUNT
fi
unset LETS_AGENT_GIT_CONFIG_COUNT LETS_AGENT_GIT_CONFIG_AT
theirs=$(git rev-parse --git-path hooks 2>/dev/null) || exit 0
if [ -z "$theirs" ] || [ ! -f "$theirs/$hook" ] || [ ! -x "$theirs/$hook" ]; then exit 0; fi
here=$(cd "${0%/*}" && pwd -P) && there=$(cd "$theirs" && pwd -P) || exit 0
if [ "$here" = "$there" ]; then exit 0; fi
case $0 in  # the ledger's writer ran for this hook: a lets-hooks of the repository skips it
  *.pre-lets) LETS_HOOKS_DONE=$hook; export LETS_HOOKS_DONE ;;
esac
exec "$theirs/$hook" "$@"
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        out(HELP + "\n")
        return 0
    if args and args[0] == "--version":
        out(f"lets-agent-hook {__version__}\n")
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

    if event not in EVENTS or (name is not None and name not in agents.NAMES):
        say(USAGE)
        return 2
    try:
        _hook(event, name, os.environ)
    except Exception as exc:  # a hook never breaks the agent
        say(f"lets-agent-hook: internal error ({type(exc).__name__}: {exc})")
    return 0


def read_stdin() -> bytes:
    """Up to one byte past ``INPUT_LIMIT`` of stdin, as bytes (never decoded here, so no
    locale can make reading fail); nothing from a terminal or a closed stream."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return b""
        raw = getattr(stream, "buffer", stream).read(INPUT_LIMIT + 1)
    except (OSError, ValueError, UnicodeError):
        return b""
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape")
    return raw if isinstance(raw, bytes) else b""


NOT_UTF8 = "hook input on stdin is not UTF-8 text"


def hook_json(raw: bytes) -> tuple[dict[str, object] | None, str | None]:
    """A hook's JSON object from ``raw`` (``read_stdin``'s bytes), else None and the one
    problem that kept it from being read; never raises. Every command that reads a hook's
    JSON reads it through this."""
    import json

    if not raw.strip():
        return None, "no hook input on stdin"
    if len(raw) > INPUT_LIMIT:
        return None, f"hook input on stdin is over {INPUT_LIMIT // 1024} KiB"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, NOT_UTF8
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None, "hook input on stdin is not valid JSON"
    if not isinstance(data, dict):
        return None, "hook input on stdin is not a JSON object"
    return data, None


def _hook(event: str, name: str | None, environ: Mapping[str, str]) -> None:
    from lets_hooks import agents, state

    payload, _ = hook_json(read_stdin())
    if payload is None:
        say(f"lets-agent-hook {event}: no hook JSON object on stdin; nothing done")
        return
    if event == "post-tool":
        return  # a commit seen after the call may be anyone's: nothing is written
    agent = agents.AGENTS[name] if name else agents.detect(payload, environ)
    value = payload.get("session_id")
    sid = value.strip() if isinstance(value, str) else ""
    problem = state.sid_problem(sid) if sid else None  # the one session-id rule
    if not sid or problem is not None:
        if problem is not None and event == "pre-tool":  # once a call, not twice
            say(f"lets-agent-hook: the hook input's session_id {state.shown_sid(sid)} is "
                f"{problem}; read as no session id, nothing written")
        return
    cwd = payload.get("cwd")
    start = cwd if isinstance(cwd, str) and files.is_folder(cwd) else os.getcwd()
    if event == "before-agent":
        text = take_pending(start, sid, payload.get("prompt"))
        if text:
            out(agents.prompt_context(text, out_encoding()))
        return
    tool_input = agents.shell_tool_input(agent, payload)
    if tool_input is None or agent is agents.CLAUDE_CODE:
        return  # not the shell tool; Claude Code's commands have its env file
    # where the command runs: only that repository's git dir is written; outside any
    # work tree the command gets the session id alone
    git_dir = gitfiles.git_dir_holding(agents.tool_folder(agent, start, tool_input))
    folder = None
    if git_dir is not None:
        folder, why = hooks_folder(gitfiles.common_dir(git_dir))
        if why:
            say(f"lets-agent-hook: {why}")
    answer = agents.wrap(agent, tool_input, sid, folder, out_encoding())
    if answer is not None:
        out(answer)


# -- the hooks folder git runs for the agent's commands ----------------------------------------

def hooks_folder(common_dir: str) -> tuple[str | None, str | None]:
    """``<common dir>/lets-hooks/agent-hooks``, written (again) when it was made for
    another version or Python than this one: (its path, None), or (None, the problem)."""
    from lets_hooks import ledger
    from lets_hooks.cli.install import _own_command

    folder = os.path.join(ledger.folder(common_dir), HOOKS_FOLDER)
    command, python, lib = _own_command()
    made_for = (f"lets-hooks {__version__}\n{command}\n{python}\n{':'.join(lib)}\n"
                f"{folder}\n").encode("utf-8", "surrogateescape")
    found, _ = files.read_capped(os.path.join(folder, STAMP), 1 << 16)
    if found == made_for:
        return folder, None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for name, text in sorted(scripts(command, python, lib, folder).items()):
            files.atomic_write(os.path.join(folder, name),
                               text.encode("utf-8", "surrogateescape"), mode=0o755,
                               keep_mode=False)
        files.atomic_write(os.path.join(folder, STAMP), made_for, keep_mode=False)
    except (OSError, files.Refused) as exc:
        why = files.why(exc, "cannot write") if isinstance(exc, OSError) else str(exc)
        return None, f"the agent's hooks folder: {why}; its commits go unrecorded"
    return folder, None


# Sourced by the command (``agents.git_env``): one GIT_CONFIG_KEY_n/VALUE_n pair
# (core.hooksPath: this folder) appended to what GIT_CONFIG_COUNT holds (Gemini's shell puts
# its own there, core.hooksPath empty among them: the last pair wins), the count as it was
# kept for the chain. Once: where the last pair is ours already, nothing changes.
GIT_ENV = """# lets-hooks: sourced by an agent's shell command (lets-agent-hook): git runs the hooks
# of this folder, which write the session ledger, then the repository's own
if [ "${GIT_CONFIG_COUNT-}" != "${LETS_AGENT_GIT_CONFIG_AT-x}" ]; then
  LETS_AGENT_GIT_CONFIG_COUNT=${GIT_CONFIG_COUNT-}
  lets_n=${GIT_CONFIG_COUNT:-0}
  export LETS_AGENT_GIT_CONFIG_COUNT "GIT_CONFIG_KEY_$lets_n=core.hooksPath" \\
    "GIT_CONFIG_VALUE_$lets_n="@FOLDER@
  GIT_CONFIG_COUNT=$((lets_n + 1))
  LETS_AGENT_GIT_CONFIG_AT=$GIT_CONFIG_COUNT
  export GIT_CONFIG_COUNT LETS_AGENT_GIT_CONFIG_AT
  unset lets_n
fi
"""


def scripts(command: str, python: str, lib: Sequence[str], folder: str) -> dict[str, str]:
    """The folder's files: the ledger's writers as the plain shims, each with the
    repository's own hook chained (``<hook>.pre-lets``); every other hook chained alone;
    and ``git-env``, which the command sources."""
    import shlex

    from lets_hooks import agents, install

    found = {hook: CHAIN for hook in GIT_HOOKS}
    found[agents.GIT_ENV] = GIT_ENV.replace("@FOLDER@", shlex.quote(folder))
    for hook in WRITERS:
        found[hook] = install.shim(hook, command, python, lib)
        found[hook + install.CHAINED] = CHAIN
    return found


# -- a summary the model has not received yet (Gemini's /clear) --------------------------------

def _pending_path(folder: str, sid: str) -> str | None:
    """Where the summary for this session is kept, in the git dir holding ``folder``."""
    import hashlib

    git_dir = gitfiles.git_dir_holding(folder)
    if git_dir is None:
        return None
    digest = hashlib.sha256(sid.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(git_dir, PENDING, f"summary-{digest}")


def keep_pending(folder: str, sid: str, text: str) -> str | None:
    """Keep the summary a start hook made, for the next prompt (Gemini drops a start
    hook's context after /clear). Returns the problem, if it could not be kept."""
    path = _pending_path(folder, sid)
    if path is None:
        return None
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        files.atomic_write(path, text.encode("utf-8", "surrogateescape"), keep_mode=False)
    except (OSError, files.Refused) as exc:
        return files.why(exc, "cannot keep the summary") if isinstance(exc, OSError) \
            else str(exc)
    return None


def take_pending(folder: str, sid: str, prompt: object) -> str | None:
    """The summary kept for this session, once (the file is removed), unless the prompt
    already holds it (a non-interactive run puts the start hook's context there)."""
    path = _pending_path(folder, sid)
    if path is None:
        return None
    data, _ = files.read_capped(path, INPUT_LIMIT)
    if data is None:
        return None
    try:
        os.unlink(path)
    except OSError:
        return None  # another hook took it
    text = data.decode("utf-8", "replace")
    first = text.strip().splitlines()[0] if text.strip() else ""
    if not first or (isinstance(prompt, str) and first in prompt):
        return None
    return text


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
