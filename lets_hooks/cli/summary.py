"""``lets-session-start`` (the session-start summary) and ``lets-observability``.

The only code of the summary that reads argv, the environment and stdin, prints, and
chooses exit codes. Everything it prints on stdout is the result (through ``out``);
diagnostics (what ``--promote`` did, what ``--claude-hook`` recorded) go to stderr
(through ``say``). Both commands run under ``guarded``: a closed stderr never costs the
result, and a reader that goes away ends the output quietly. No colour is used.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from lets_hooks import files
from lets_hooks.cli import command_parser, guarded, out, out_encoding, parse_or_hook, say
from lets_hooks.cli.agent import NOT_UTF8, hook_json, hooks_folder, keep_pending, read_stdin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lets_hooks.agents import Agent

ENV_FILE_TAIL = 1024 * 1024  # the part of an env file read to find the line written already


def _date(text: str) -> dt.date:
    from lets_hooks.summary.interventions import iso_date

    day = iso_date(text)
    if day is None:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD date: {text!r}")
    return day


def _budget(text: str) -> int:
    from lets_hooks.summary.render import MIN_BUDGET

    value = -1
    with suppress(ValueError):
        value = int(text)
    if value != 0 and value < MIN_BUDGET:
        raise argparse.ArgumentTypeError(
            f"must be 0 (no limit) or a number of characters of at least {MIN_BUDGET},"
            f" not {text!r}")
    return value


def find_top(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a ``.git`` entry (a folder, or a
    file: a linked worktree, a submodule), else ``start``; no git call, so the summary
    stays one process."""
    start = start.absolute()
    return next((f for f in (start, *start.parents) if os.path.lexists(f / ".git")), start)


@dataclass(frozen=True)
class HookInput:
    session_id: str | None
    cwd: str | None
    source: str | None
    fields: Mapping[str, object] | None = None  # the whole JSON object


NO_INPUT = HookInput(None, None, None)


def parse_hook_input(raw: bytes) -> tuple[HookInput, str | None]:
    """A SessionStart hook's JSON (``session_id``, ``cwd``, ``source``) and the one
    problem that kept it from being read, if any (``agent.hook_json``). Whatever ``raw``
    holds, never raises: a field of the wrong type is absent."""
    data, problem = hook_json(raw)
    if data is None:
        return NO_INPUT, problem

    def field(name: str) -> str | None:
        value = data.get(name)
        return value.strip() or None if isinstance(value, str) else None

    odd = [name for name in ("session_id", "cwd", "source")
           if data.get(name) is not None and not isinstance(data[name], str)]
    problem = f"the hook input's {odd[0]} is not a string" if odd else None
    return HookInput(field("session_id"), field("cwd"), field("source"), data), problem


def hook_problem(hook: HookInput) -> tuple[HookInput, str | None]:
    """The hook input with what cannot be used dropped (a ``session_id`` that is no
    session id, a ``cwd`` that is no folder), and the first such problem."""
    from lets_hooks import state

    problem: str | None = None
    session_id, cwd = hook.session_id, hook.cwd
    if session_id is not None and state.sid_problem(session_id) is not None:
        problem = (f"the hook input's session_id {state.shown_sid(session_id)} is "
                   f"{state.sid_problem(session_id)}; nothing recorded")
        session_id = None
    if cwd is not None and not files.is_folder(cwd):
        if problem is None:
            problem = (f"the hook input's cwd {files.quoted(cwd)} is not a folder here; the "
                       "current folder is used")
        cwd = None
    return HookInput(session_id, cwd, hook.source, hook.fields), problem


def fill_env_file(root: Path, environ: Mapping[str, str], session_id: str, agent: Agent
                  ) -> str | None:
    """Append to the agent's env file (Claude Code sources ``$CLAUDE_ENV_FILE`` before each
    command) its ``export`` line (``agents.export_line``) when the environment does not
    carry this id already (an older Claude Code), then the git environment under which git
    writes the session ledger for the commits each later command makes
    (``lets_hooks.cli.agent``); each line once. Returns the first problem, if any."""
    from lets_hooks import agents, gitfiles

    variable = agent.env_file
    path = environ.get(variable or "", "")
    if variable is None or not path:
        return None
    line = agents.export_line(agent, session_id)
    if line is not None and environ.get(agent.shell_id_env or "") != session_id:
        problem = append_env_line(path, variable, line)
        if problem:
            return problem
    git_dir = gitfiles.git_dir_holding(str(root))
    if git_dir is None:
        return None
    folder, problem = hooks_folder(gitfiles.common_dir(git_dir))
    if folder is not None:
        problem = append_env_line(path, variable, agents.env_file_lines(folder))
    return problem


def append_env_line(path: str, variable: str, line: bytes) -> str | None:
    """Append ``line`` to the env file at ``path`` (named ``variable``), on a line of its
    own, every byte already there kept; nothing when it is there already (the hook ran
    twice). Returns the problem, if the line could not be written."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            start = max(0, size - ENV_FILE_TAIL)
            held = os.pread(fd, size - start, start)
            if (start == 0 and held.startswith(line)) or b"\n" + line in held:
                return None  # written already (the hook ran twice)
            if held and not held.endswith(b"\n"):
                line = b"\n" + line
            os.write(fd, line)
        finally:
            os.close(fd)
    except (OSError, ValueError) as exc:  # (ValueError: a path with a NUL byte)
        why = getattr(exc, "strerror", None) or type(exc).__name__
        return f"{variable}: cannot write it ({why})"
    return None


def _record(root: Path, hook: HookInput, environ: Mapping[str, str], quiet: bool,
            agent: Agent) -> None:
    # every source the agent sends is recorded, by the one rule (record.touch); a source
    # it does not send records nothing
    if hook.source not in agent.sources:
        return
    if not hook.session_id:
        if not quiet:  # the input's problem was said already
            say("lets-session-start: the hook input has no session_id; nothing recorded")
        return
    from lets_hooks.hooks import record_session

    for message in record_session(str(root), hook.session_id, environ):
        say(message)


def session_start_main(argv: Sequence[str] | None = None) -> int:
    return guarded(_session_start, sys.argv[1:] if argv is None else argv)


def _session_start(argv: Sequence[str]) -> int:
    parser = command_parser(
        "lets-session-start",
        "Print the session-start summary (the 'Session Ready' block) from the project's"
        " handoff and memory files and the user's ~/.claude files.")
    parser.add_argument("--root", help="project folder (default: the git top level above"
                                       " the current folder, else the current folder)")
    parser.add_argument("--home", help="the user's home folder (default: ~)")
    parser.add_argument("--today", type=_date, metavar="YYYY-MM-DD",
                        help="the date ages are counted to (default: today)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--budget", type=_budget, metavar="N", default=None,
                        help="the most characters the block may print (default 8000, under"
                             " the 10,000 Claude Code keeps of a hook's output; 0: no"
                             " limit); what does not fit is left out by priority and named"
                             " on the last line. --json is never cut")
    parser.add_argument("--promote", action="store_true",
                        help="copy context-log entries with [ref:N], N >= 3, into"
                             " memory/MEMORY.md (the only write), then print the summary")
    parser.add_argument("--claude-hook", action="store_true",
                        help="run as the SessionStart hook of the plugin Claude Code and"
                             " Codex CLI share (which of them runs it is read from its"
                             " input): read its JSON from stdin, record the session"
                             " boundary on startup and clear")
    parser.add_argument("--agent-hook", choices=("claude", "codex", "gemini"),
                        metavar="AGENT",
                        help="run as AGENT's SessionStart hook (claude, codex, gemini):"
                             " the same, with the summary in the shape AGENT takes")
    hook = any(arg.startswith(("--claude", "--agent")) for arg in argv)
    args = parse_or_hook(parser, argv, hook)
    if args is None:  # a usage error of a SessionStart hook: said, and exit 0 as it always does
        return 0

    environ: Mapping[str, str] = os.environ
    if args.claude_hook or args.agent_hook:
        return _as_hook(args, environ)
    return _summary(args, environ, None)


def _as_hook(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """A SessionStart hook: whatever arrives on stdin, exit 0 and at most one line on
    stderr about the input. The summary goes to stdout in the agent's shape, and only for
    input the agent sent: what is not its JSON object, or names a session id no session
    has, gets nothing. Input that is not UTF-8 (a path's raw bytes in the JSON, say)
    records nothing, and the summary still goes out."""
    from lets_hooks import agents

    hook, problem = parse_hook_input(read_stdin())
    if problem:
        say(f"lets-session-start: {problem}; nothing recorded")
        if problem != NOT_UTF8:
            return 0
    agent = agents.AGENTS[args.agent_hook] if args.agent_hook \
        else agents.detect(hook.fields or {}, environ)
    given_sid = hook.session_id
    hook, problem = hook_problem(hook)
    if problem:
        say(f"lets-session-start: {problem}")
        if given_sid is not None and hook.session_id is None:
            return 0  # not a session's id: no context from such input
    return _summary_anyway(args, environ, hook, agent, quiet=problem is not None)


def _summary_anyway(args: argparse.Namespace, environ: Mapping[str, str], hook: HookInput,
                    agent: Agent, quiet: bool) -> int:
    """The hook's summary; whatever goes wrong, one line and exit 0 (never a traceback,
    never a failed start)."""
    try:
        _summary(args, environ, hook, quiet=quiet, agent=agent)
    except Exception as exc:
        say(f"lets-session-start: internal error ({type(exc).__name__}: {exc})")
    return 0


def _summary(args: argparse.Namespace, environ: Mapping[str, str],
             hook: HookInput | None, quiet: bool = False, agent: Agent | None = None) -> int:
    start = Path(hook.cwd) if hook is not None and hook.cwd else Path.cwd()
    root = Path(args.root) if args.root else find_top(start)
    home = Path(args.home) if args.home else Path(os.path.expanduser("~"))
    today: dt.date = args.today or dt.date.today()

    from lets_hooks.summary import build_summary, render
    from lets_hooks.summary.sources.worktree import open_repository

    status = 0
    if hook is not None and agent is not None:
        _record(root, hook, environ, quiet, agent)
        if hook.session_id:
            problem = fill_env_file(root, environ, hook.session_id, agent)
            if problem:
                say(f"lets-session-start: {problem}")
    git = open_repository(root)
    if args.promote:  # before git is asked about the working tree, which it changes
        from lets_hooks.summary.promote import promote

        result = promote(root, git.git_dir)
        for line in result.lines:
            say(f"lets-session-start: {line}" if not line.startswith(" ") else line)
        status = 0 if result.ok else 1
    # A hook's session id is the current session's (Claude Code does not put it in a
    # hook's environment), whatever session_id_env says.
    git.settle(environ, time.time(), hook.session_id if hook is not None else None)

    summary = build_summary(root, home, today, git)
    budget = render.DEFAULT_BUDGET if args.budget is None else args.budget or None
    if hook is None or agent is None:
        out(render.render_json(summary) if args.json else render.render_markdown(summary, budget))
        return status
    from lets_hooks import agents

    text = render.render_json(summary) if args.json \
        else render.render_markdown(summary, agents.context_budget(agent, budget))
    out(agents.context(agent, text, out_encoding()))
    if hook.session_id and agents.pending_after(agent, hook.source):
        problem = keep_pending(str(root), hook.session_id, text)
        if problem:
            say(f"lets-session-start: {problem}")
    return 0  # a hook never stops a session


def observability_main(argv: Sequence[str] | None = None) -> int:
    return guarded(_observability, sys.argv[1:] if argv is None else argv)


def _observability(argv: Sequence[str]) -> int:
    parser = command_parser(
        "lets-observability",
        "Deterministic counters over ~/.claude/.harness/interventions/*.jsonl.")
    parser.add_argument("--home", help="the user's home folder (default: ~)")
    parser.add_argument("--today", type=_date, metavar="YYYY-MM-DD",
                        help="the date the period ends on (default: today)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    count = commands.add_parser("model-tag-count", help="records with a model tag: count=N")
    rate = commands.add_parser(
        "rejection-rate", help="rejections among records in the period:"
                               " rejections=N total=M rate=X%%")
    rate.add_argument("--period", default="30d", help="Nd, the days up to today (default 30d)")
    from lets_hooks import __version__

    for sub in (count, rate):  # accepted after the command too
        sub.add_argument("--version", action="version",
                         version=f"lets-observability {__version__}")
        sub.add_argument("--home", dest="sub_home", help=argparse.SUPPRESS)
        sub.add_argument("--today", dest="sub_today", type=_date, help=argparse.SUPPRESS)
    args = parser.parse_args(list(argv))

    from lets_hooks.summary import interventions as observability

    period: int | None = None
    if args.command == "rejection-rate":
        period = observability.parse_period(args.period)
        if period is None:
            parser.error(f"--period must look like 30d, not {args.period!r}")

    home_arg = args.sub_home or args.home
    home = Path(home_arg) if home_arg else Path(os.path.expanduser("~"))
    today: dt.date = args.sub_today or args.today or dt.date.today()
    read = observability.read_interventions(home)
    for warning in read.warnings:
        say(f"lets-observability: {warning}")
    log = read.log or observability.InterventionLog(())
    if period is None:
        out(f"count={observability.model_tag_count(log)}\n")
    else:
        counted = observability.rejection_rate(log, today, period)
        out(f"rejections={counted.part} total={counted.whole} rate={counted.text}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(session_start_main())
