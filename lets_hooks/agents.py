"""What each coding agent hands its hooks and what it takes back, in one place, so the hook
commands stay the same for Claude Code, Codex CLI and Gemini CLI: their hook JSON, where
context goes, the id their shell commands see, env files and shell tools (docs/agents.md
says where each shape was read). Nothing here runs git or touches a file: the CLI
(``cli.summary``, ``cli.agent``) reads and writes; these functions say what the shapes are.
"""

from __future__ import annotations

import json
import os
import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

CLAUDE = "claude"
CODEX = "codex"
GEMINI = "gemini"
NAMES = (CLAUDE, CODEX, GEMINI)

# The variable a command of the session sees, the one ``lets-session-boundary`` reads.
HANDOFF_ENV = "LETS_SESSION_ID"
CONTEXT_CAP = 10_000  # characters of a hook's context each of them keeps


class Agent:
    """One agent's hook input and output."""

    __slots__ = ("context_json", "env_file", "hook_id_env", "name", "shell_id_env",
                 "shell_tools", "sources", "title")

    def __init__(self, name: str, title: str, *, shell_id_env: str | None,
                 hook_id_env: str | None, sources: frozenset[str], env_file: str | None,
                 context_json: bool, shell_tools: frozenset[str]) -> None:
        self.name = name
        self.title = title
        self.shell_id_env = shell_id_env  # what its shell commands see (None: nothing)
        self.hook_id_env = hook_id_env  # what its hooks see besides the JSON
        self.sources = sources  # the SessionStart ``source`` values it sends
        self.env_file = env_file  # a file its SessionStart hooks may append exports to
        self.context_json = context_json  # context only inside its JSON
        self.shell_tools = shell_tools  # its shell tool's names in hook input

    def __repr__(self) -> str:
        return f"Agent({self.name!r})"


CLAUDE_CODE = Agent(
    CLAUDE, "Claude Code", shell_id_env="CLAUDE_CODE_SESSION_ID", hook_id_env=None,
    sources=frozenset({"startup", "resume", "clear", "compact"}), env_file="CLAUDE_ENV_FILE",
    context_json=False, shell_tools=frozenset({"Bash"}))
CODEX_CLI = Agent(
    CODEX, "Codex CLI", shell_id_env="CODEX_THREAD_ID", hook_id_env=None,
    sources=frozenset({"startup", "resume", "clear", "compact"}), env_file=None,
    context_json=False, shell_tools=frozenset({"Bash"}))
GEMINI_CLI = Agent(
    GEMINI, "Gemini CLI", shell_id_env=None, hook_id_env="GEMINI_SESSION_ID",
    sources=frozenset({"startup", "resume", "clear"}), env_file=None,
    context_json=True, shell_tools=frozenset({"run_shell_command"}))

AGENTS = {agent.name: agent for agent in (CLAUDE_CODE, CODEX_CLI, GEMINI_CLI)}


def detect(payload: Mapping[str, object], environ: Mapping[str, str]) -> Agent:
    """Which agent runs a hook of the plugin Claude Code and Codex share, by the
    variables each sets and Codex's hook JSON (``turn_id``, a transcript under its home);
    Claude Code when nothing tells. Gemini runs its own extension's commands, which name it.
    """
    if environ.get(GEMINI_CLI.hook_id_env or "") and "GEMINI_PROJECT_DIR" in environ:
        return GEMINI_CLI
    if environ.get("CLAUDECODE") == "1" or "CLAUDE_ENV_FILE" in environ \
            or "CLAUDE_PROJECT_DIR" in environ:
        return CLAUDE_CODE
    transcript = payload.get("transcript_path")
    if isinstance(payload.get("turn_id"), str) or (
            isinstance(transcript, str) and "/.codex/" in transcript.replace(os.sep, "/")):
        return CODEX_CLI
    if any(name.startswith("CODEX_") for name in environ):
        return CODEX_CLI
    return CLAUDE_CODE


def _answer(event: str, encoding: str, **fields: object) -> str:
    """A hook's answer, ``{"hookSpecificOutput": {"hookEventName": event, **fields}}``, as
    one line of JSON in ``encoding`` (stdout's): where the encoding cannot carry all of it
    (an ASCII locale, an undecodable byte, a lone surrogate), every character outside
    ASCII escaped the JSON way, so the line still reads back as it was."""
    answer = {"hookSpecificOutput": {"hookEventName": event, **fields}}
    line = json.dumps(answer, ensure_ascii=False)
    try:
        line.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        line = json.dumps(answer)
    return line + "\n"


def context(agent: Agent, text: str, encoding: str = "utf-8") -> str:
    """The summary as that agent takes context from a SessionStart hook's stdout."""
    if not agent.context_json:
        return text
    return _answer("SessionStart", encoding, additionalContext=text)


def context_budget(agent: Agent, budget: int | None) -> int | None:
    """The summary's character budget under this agent's cap (room left for the JSON
    around it, where the agent wants JSON)."""
    room = CONTEXT_CAP - (200 if agent.context_json else 0)
    return room if budget is None else min(budget, room)


def export_line(agent: Agent, session_id: str) -> bytes | None:
    """The line for the agent's env file that gives later commands the id, or None
    where it has no env file. The id is shell-quoted whatever it holds."""
    if agent.env_file is None or agent.shell_id_env is None:
        return None
    return f"export {agent.shell_id_env}={shlex.quote(session_id)}\n".encode()


def shell_tool_input(agent: Agent, payload: Mapping[str, object]) -> dict[str, object] | None:
    """The shell tool's input of a tool hook (None when the tool is not the shell)."""
    name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(name, str) or name not in agent.shell_tools:
        return None
    return dict(tool_input) if isinstance(tool_input, dict) else None


def tool_folder(agent: Agent, cwd: str, tool_input: Mapping[str, object] | None) -> str:
    """Where the shell tool ran its command: Gemini's ``dir_path`` (relative to the
    session's folder), else the hook's ``cwd``."""
    if agent is GEMINI_CLI and tool_input is not None:
        folder = tool_input.get("dir_path")
        if isinstance(folder, str) and folder and "\0" not in folder:
            return os.path.normpath(os.path.join(cwd, folder))
    return cwd


HANDOFF_PREFIX = f"export {HANDOFF_ENV}="
GIT_ENV = "git-env"  # in the agent's hooks folder: what a command sources (cli.agent)


def git_env(folder: str) -> str:
    """Shell text (sh, bash, zsh) that makes git, in this shell and what it starts, run
    its hooks from ``folder``: the folder's ``git-env`` sourced where it exists (no
    ``$(...)``, which Gemini refuses in a command)."""
    path = shlex.quote(os.path.join(folder, GIT_ENV))
    return f"[ -f {path} ] && . {path}"


def wrap(agent: Agent, tool_input: Mapping[str, object], session_id: str,
         folder: str | None, encoding: str = "utf-8") -> str | None:
    """The pre-tool hook's answer handing the shell tool its command with what its agent
    does not give it in front: Gemini's commands get ``export LETS_SESSION_ID=<id>`` and,
    with a hooks ``folder``, the git environment, as BeforeTool ``tool_input``; Codex's the
    git environment, as PreToolUse ``updatedInput``, taken only with ``permissionDecision``
    ``allow`` (its approvals and sandbox stay). None where nothing is to change (Claude
    Code has its env file; no folder; a command that has it already)."""
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip() or command.startswith(
            HANDOFF_PREFIX) or (folder is not None and command.startswith(git_env(folder))):
        return None
    parts = []
    if agent is GEMINI_CLI:
        parts.append(f"{HANDOFF_PREFIX}{shlex.quote(session_id)}")
    if folder is not None and agent is not CLAUDE_CODE:
        parts.append(git_env(folder))
    if not parts:
        return None
    changed = {**tool_input, "command": "; ".join([*parts, command])}
    if agent is GEMINI_CLI:
        return _answer("BeforeTool", encoding, tool_input=changed)
    return _answer("PreToolUse", encoding, permissionDecision="allow", updatedInput=changed)


def env_file_lines(folder: str) -> bytes:
    """The line for an agent's env file that gives every later command the git
    environment (Claude Code sources it before each command)."""
    return f"{git_env(folder)}\n".encode("utf-8", "surrogateescape")


def pending_after(agent: Agent, source: str | None) -> bool:
    """Is a start hook's summary kept for the next prompt? Under Gemini after ``clear``
    (its /clear drops the start hook's context: ``clearCommand.ts``) and ``resume`` (the
    resumed history may replace it); not after ``startup``, where it would come twice."""
    return agent is GEMINI_CLI and source in ("clear", "resume")


def prompt_context(text: str, encoding: str = "utf-8") -> str:
    """A BeforeAgent hook's answer that adds ``text`` to the prompt as context."""
    return _answer("BeforeAgent", encoding, additionalContext=text)


def seen_from(environ: Mapping[str, str]) -> tuple[Agent, str] | None:
    """Which agent's session a command runs in, by the variable that agent gives its
    commands (Gemini gives none; its hooks hand ``LETS_SESSION_ID`` over, which names no
    agent): the agent and the variable, or None."""
    for agent in (CLAUDE_CODE, CODEX_CLI):
        name = agent.shell_id_env
        if name and environ.get(name, "").strip():
            return agent, name
    if environ.get("GEMINI_CLI") == "1" or environ.get(GEMINI_CLI.hook_id_env or ""):
        return GEMINI_CLI, HANDOFF_ENV if environ.get(HANDOFF_ENV) else ""
    return None
