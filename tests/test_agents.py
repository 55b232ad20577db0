"""Each agent's hooks, run as the agent runs them (its JSON on stdin, its environment):
the start hook records the branch's line with the agent's own id and gives the summary in
the shape the agent takes; the shell tool's hooks write the session ledger for the commits
that tool call made (so a session is ``exact`` with no git hook installed, as under Gemini
CLI, whose shell runs git with its hooks off), and hand Gemini's commands the session id;
and whatever arrives, every hook exits 0, writes nothing outside the project and gives the
agent nothing to take as context. ``lets-hooks doctor`` says whose session it sees.

The shapes are read from each agent's source (docs/agents.md); the real programs are
driven in tests/test_agents_e2e.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import BIN, Sandbox

from lets_hooks import agents, ledger, state

SID = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
HOSTILE = "it's-$(touch${IFS}PWNED)-`id`-\"q\"-\\;|&"
AGENT_VARIABLES = ("CLAUDECODE", "CLAUDE_ENV_FILE", "CLAUDE_PROJECT_DIR", "GEMINI_CLI",
                   "GEMINI_PROJECT_DIR", "LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID",
                   "CODEX_THREAD_ID", "GEMINI_SESSION_ID")
SHELL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command"}


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in AGENT_VARIABLES and not k.startswith("CODEX_")}
    env.update(extra or {})
    return env


def run(box: Sandbox, argv: list[str], stdin: bytes, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=cwd or box.path,
                          env=environment(env), input=stdin, capture_output=True,
                          check=False, timeout=120)


def start(box: Sandbox, agent: str, **fields: object) -> subprocess.CompletedProcess[bytes]:
    body = {"session_id": SID, "cwd": str(box.path), "source": "startup",
            "hook_event_name": "SessionStart", **fields}
    return run(box, ["lets-session-start", "--agent-hook", agent, "--today", "2026-11-29"],
               json.dumps(body).encode())


def tool(box: Sandbox, agent: str, event: str, command: str = "git commit",
         sid: str = SID, **fields: object) -> subprocess.CompletedProcess[bytes]:
    body = {"session_id": sid, "cwd": str(box.path), "tool_name": SHELL[agent],
            "tool_input": {"command": command}, **fields}
    return run(box, ["lets-agent-hook", event, "--agent", agent], json.dumps(body).encode())


def ledger_lines(box: Sandbox) -> list[str]:
    """The ledger's ``c`` lines: which session made which commit (its other lines, such
    as where a session's line was written, are not the tool hooks')."""
    path = Path(ledger.path(str(box.path / ".git")))
    lines = path.read_text().splitlines() if path.exists() else []
    return [line for line in lines if line.startswith("c ")]


def recorded(box: Sandbox) -> bytes | None:
    path = box.path / ".lets" / "sessions" / ".task-main"
    return state.find_session_line(path.read_bytes()) if path.exists() else None


def made_by_the_tool(box: Sandbox, agent: str, message: str = "by the agent") -> str:
    """One shell tool call that commits, between the agent's two hooks."""
    assert tool(box, agent, "pre-tool").returncode == 0
    sha = box.commit(message)
    done = tool(box, agent, "post-tool")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    return sha


# -- the shapes ------------------------------------------------------------------------------


def test_each_agent_takes_context_in_its_own_shape() -> None:
    assert agents.context(agents.CLAUDE_CODE, "## Session Ready\n") == "## Session Ready\n"
    assert agents.context(agents.CODEX_CLI, "## Session Ready\n") == "## Session Ready\n"
    answer = json.loads(agents.context(agents.GEMINI_CLI, "## Session Ready\n"))
    assert answer == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": "## Session Ready\n"}}
    for agent in agents.AGENTS.values():
        budget = agents.context_budget(agent, None)
        assert budget is not None and budget <= agent.context_cap


@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_resume_or_compact_is_no_new_session_startup_and_clear_are(agent: str) -> None:
    shape = agents.by_name(agent)
    assert agents.begins_session(shape, "startup") and agents.begins_session(shape, "clear")
    for source in ("resume", "compact", None, "fork", ""):
        assert not agents.begins_session(shape, source)


def test_the_shared_plugin_tells_claude_code_from_codex() -> None:
    assert agents.detect({}, {"CLAUDECODE": "1"}) is agents.CLAUDE_CODE
    assert agents.detect({}, {"CLAUDE_ENV_FILE": "/tmp/x"}) is agents.CLAUDE_CODE
    assert agents.detect({"turn_id": "t1"}, {}) is agents.CODEX_CLI
    assert agents.detect({"transcript_path": "/home/u/.codex/sessions/r.jsonl"}, {}) \
        is agents.CODEX_CLI
    assert agents.detect({}, {"CODEX_HOME": "/h"}) is agents.CODEX_CLI
    assert agents.detect({}, {}) is agents.CLAUDE_CODE


# -- session start ---------------------------------------------------------------------------


def test_gemini_start_records_its_id_and_gives_only_json(sandbox: Sandbox) -> None:
    head = sandbox.head()
    done = start(sandbox, "gemini")
    assert (done.returncode, done.stderr) == (0, b"")
    answer = json.loads(done.stdout)  # the whole of stdout is one JSON object
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("## Session Ready\n")
    assert len(context) <= agents.GEMINI_CLI.context_cap
    assert recorded(sandbox) == f"{head} {SID}".encode()


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_a_resumed_session_keeps_its_line_a_cleared_one_takes_it(
        sandbox: Sandbox, agent: str) -> None:
    first = sandbox.head()
    assert start(sandbox, agent).returncode == 0
    sandbox.commit("later, by someone else")
    assert start(sandbox, agent, source="resume").returncode == 0
    assert recorded(sandbox) == f"{first} {SID}".encode()  # the same session: kept
    other = "a-session-after-clear"
    assert start(sandbox, agent, session_id=other, source="clear").returncode == 0
    assert recorded(sandbox) == f"{sandbox.head()} {other}".encode()  # a new session
    assert start(sandbox, agent, session_id=other, source="fork").returncode == 0
    assert recorded(sandbox) == f"{sandbox.head()} {other}".encode()  # no such source


def test_codex_has_no_env_file_and_gets_none(sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "session.env"
    body = json.dumps({"session_id": SID, "cwd": str(sandbox.path), "source": "startup"})
    done = run(sandbox, ["lets-session-start", "--agent-hook", "codex"], body.encode(),
               {"CLAUDE_ENV_FILE": str(env_file)})
    assert done.returncode == 0 and done.stdout.startswith(b"## Session Ready\n")
    assert not env_file.exists()
    assert recorded(sandbox) == f"{sandbox.head()} {SID}".encode()


# -- the shell tool's hooks: the ledger ------------------------------------------------------


@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_commit_the_tool_made_is_the_sessions_with_no_git_hook(
        sandbox: Sandbox, agent: str) -> None:
    assert start(sandbox, agent).returncode == 0
    sha = made_by_the_tool(sandbox, agent)
    assert ledger_lines(sandbox) == [f"c {sha} {SID}"]
    found = sandbox.boundary(env={"LETS_SESSION_ID": SID})
    assert (found["SESSION_TRUST"], found["SESSION_COMMITS"]) == ("exact", "1")


def test_a_call_that_made_no_commit_writes_nothing(sandbox: Sandbox) -> None:
    assert tool(sandbox, "claude", "pre-tool").returncode == 0
    positions = sorted((sandbox.path / ".git" / "lets-agent").iterdir())
    before = [p.read_bytes() for p in positions]
    done = tool(sandbox, "claude", "post-tool", command="ls")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert ledger_lines(sandbox) == []
    assert [p.read_bytes() for p in positions] == before


def test_commits_between_tool_calls_are_not_the_tools(sandbox: Sandbox) -> None:
    """A commit someone made between two tool calls (another terminal, the same work
    tree) is not written down as the session's: each call reads from its own start."""
    assert tool(sandbox, "codex", "pre-tool").returncode == 0
    assert tool(sandbox, "codex", "post-tool").returncode == 0
    sandbox.commit("by the person, between calls")
    made_by_the_tool(sandbox, "codex", "by the agent")
    assert [line.split()[1] for line in ledger_lines(sandbox)] == [sandbox.head()]


def test_an_amend_is_left_to_the_rewrite_record(sandbox: Sandbox) -> None:
    assert tool(sandbox, "claude", "pre-tool").returncode == 0
    sandbox.git.commit("--amend", "--allow-empty", "-q", "-m", "amended")
    assert tool(sandbox, "claude", "post-tool").returncode == 0
    assert ledger_lines(sandbox) == []  # it holds what it replaced: not all the session's


def test_with_a_git_hook_writing_too_the_commit_is_written_once(sandbox: Sandbox) -> None:
    """The git hook sees the commit first and writes its line; the tool hook, after the
    call, finds the commit known and adds nothing: one line, one count."""
    assert tool(sandbox, "claude", "pre-tool").returncode == 0
    sha = sandbox.commit("made with git's hooks on")
    assert ledger.note_made(str(sandbox.path / ".git"), [sha], SID) is None  # the git hook
    assert tool(sandbox, "claude", "post-tool").returncode == 0
    assert ledger_lines(sandbox) == [f"c {sha} {SID}"]


def test_a_linked_work_tree_keeps_its_position_and_shares_the_ledger(
        sandbox: Sandbox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    sandbox.git.worktree("add", "-q", "-b", "topic", str(linked))
    other = Sandbox(linked)
    try:
        made_by_the_tool_in = made_by_the_tool(other, "gemini")
    finally:
        other.repo.close()
    assert ledger_lines(sandbox) == [f"c {made_by_the_tool_in} {SID}"]
    assert (sandbox.path / ".git" / "worktrees" / "linked" / "lets-agent").is_dir()
    assert not (sandbox.path / ".git" / "lets-agent").exists()


# -- Gemini: the command gets the id --------------------------------------------------------


@pytest.mark.parametrize("sid", [SID, HOSTILE])
def test_gemini_before_tool_hands_the_command_the_id(
        sandbox: Sandbox, tmp_path: Path, sid: str) -> None:
    command = 'printf %s "$LETS_SESSION_ID" > seen'
    done = tool(sandbox, "gemini", "pre-tool", command=command, sid=sid,
                hook_event_name="BeforeTool")
    assert (done.returncode, done.stderr) == (0, b"")
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
    changed = answer["hookSpecificOutput"]["tool_input"]
    assert changed["command"].endswith("; " + command)
    subprocess.run(["bash", "-c", changed["command"]], cwd=tmp_path, check=True,
                   env=environment())
    assert (tmp_path / "seen").read_text() == sid
    assert not (tmp_path / "PWNED").exists() and not (sandbox.path / "PWNED").exists()
    # handed over once: a command that has it already is left as it is
    again = tool(sandbox, "gemini", "pre-tool", command=changed["command"], sid=sid)
    assert (again.returncode, again.stdout) == (0, b"")


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_other_agents_commands_are_never_changed(sandbox: Sandbox, agent: str) -> None:
    done = tool(sandbox, agent, "pre-tool", command="git commit -m x")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_gemini_dir_path_is_where_the_command_ran(sandbox: Sandbox) -> None:
    (sandbox.path / "sub").mkdir()
    body = {"session_id": SID, "cwd": str(sandbox.path), "tool_name": "run_shell_command",
            "tool_input": {"command": "git commit", "dir_path": "sub"}}
    raw = json.dumps(body).encode()
    assert run(sandbox, ["lets-agent-hook", "pre-tool", "--agent", "gemini"], raw,
               cwd=sandbox.path / "sub").returncode == 0
    sha = sandbox.commit("in sub")
    assert run(sandbox, ["lets-agent-hook", "post-tool", "--agent", "gemini"], raw,
               cwd=sandbox.path / "sub").returncode == 0
    assert ledger_lines(sandbox) == [f"c {sha} {SID}"]


# -- bad input --------------------------------------------------------------------------------


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


JUNK = [b"", b"\xff\xfe\x00", b"not json", b"[" * 100_000, b'"a string"', b"[1, 2]",
        b'{"session_id": "a b", "tool_name": "Bash", "tool_input": {"command": "x"}}',
        b'{"session_id": "a\\nb", "tool_name": "run_shell_command", "tool_input": {}}',
        b'{"session_id": 7, "tool_name": "Bash", "tool_input": {"command": "x"}}',
        b'{"session_id": "s", "tool_name": "Bash", "tool_input": "x"}',
        b'{"session_id": "s", "tool_name": ["Bash"], "tool_input": {"command": "x"}}',
        b'{"session_id": "s", "cwd": "/nowhere\\u0000", "tool_name": "Bash",'
        b' "tool_input": {"command": "x"}}',
        b'{"session_id": "s", "pad": "' + b"x" * (3 << 20) + b'"}']


@pytest.mark.parametrize("agent", agents.NAMES)
def test_every_hook_survives_junk_and_gives_nothing_as_context(
        sandbox: Sandbox, tmp_path: Path, agent: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    before = snapshot(outside)
    git_before = snapshot(sandbox.path / ".git")
    for raw in JUNK:
        for argv in (["lets-agent-hook", "pre-tool", "--agent", agent],
                     ["lets-agent-hook", "post-tool", "--agent", agent],
                     ["lets-session-start", "--agent-hook", agent]):
            done = run(sandbox, argv, raw)
            assert done.returncode == 0, (argv, raw[:60])
            assert b"Traceback" not in done.stderr
            assert len(done.stderr.splitlines()) <= 1, done.stderr
            if argv[0] == "lets-agent-hook" or not raw.startswith(b'{"session_id": "s"'):
                assert done.stdout == b"", (argv, raw[:60], done.stdout[:80])
    assert snapshot(outside) == before
    assert recorded(sandbox) is None
    changed = set(snapshot(sandbox.path / ".git")) - set(git_before)
    assert changed <= {"lets-agent", *(f"lets-agent/{p.name}" for p in
                                       (sandbox.path / ".git" / "lets-agent").glob("*"))}


def test_a_cwd_in_another_repository_is_written_there_only(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """The agent's ``cwd`` names the session's folder, which may be another repository
    than the one the hook runs in: that one's own files are written, and nothing of the
    repository the hook runs in, nor anything outside both."""
    foreign = Sandbox(tmp_path / "foreign")
    outside = tmp_path / "outside"
    outside.mkdir()
    try:
        foreign.commit("theirs")
        here = snapshot(sandbox.path)
        assert start(sandbox, "codex", cwd=str(foreign.path)).returncode == 0
        made = made_by_the_tool_at(sandbox, foreign, "claude")
        assert snapshot(sandbox.path) == here
        assert list(outside.iterdir()) == []
        assert recorded(foreign) == f"{made[0]} {SID}".encode()
        assert ledger_lines(foreign) == [f"c {made[1]} {SID}"]
    finally:
        foreign.repo.close()


def made_by_the_tool_at(box: Sandbox, where: Sandbox, agent: str) -> tuple[str, str]:
    """(HEAD before, the commit) of one tool call that commits in ``where``, its hooks run
    in ``box``."""
    before = where.head()
    assert tool(box, agent, "pre-tool", cwd=str(where.path)).returncode == 0
    sha = where.commit("by the agent, there")
    done = tool(box, agent, "post-tool", cwd=str(where.path))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    return before, sha


def test_a_cwd_outside_any_repository_writes_nothing(sandbox: Sandbox) -> None:
    here = snapshot(sandbox.path)
    for event in ("pre-tool", "post-tool"):
        done = tool(sandbox, "codex", event, cwd="/")
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    body = json.dumps({"session_id": SID, "cwd": "/", "source": "startup"})
    assert run(sandbox, ["lets-session-start", "--agent-hook", "gemini"],
               body.encode()).returncode == 0
    assert snapshot(sandbox.path) == here


def test_outside_any_repository_nothing_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    body = json.dumps({"session_id": SID, "cwd": str(folder), "tool_name": "Bash",
                       "tool_input": {"command": "true"}}).encode()
    for event in ("pre-tool", "post-tool"):
        done = subprocess.run([str(BIN / "lets-agent-hook"), event], cwd=folder,
                              env=environment(), input=body, capture_output=True,
                              check=False, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(folder.iterdir()) == []


def test_usage_errors_are_one_line_and_status_2(sandbox: Sandbox) -> None:
    for argv in (["lets-agent-hook"], ["lets-agent-hook", "during-tool"],
                 ["lets-agent-hook", "pre-tool", "--agent", "cursor"]):
        done = run(sandbox, argv, b"{}")
        assert done.returncode == 2 and done.stdout == b""
        assert done.stderr.startswith(b"usage: lets-agent-hook")


# -- doctor ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("env", "said"), [
    ({"CODEX_THREAD_ID": SID}, "CODEX_THREAD_ID is set (a Codex CLI session)"),
    ({"CLAUDE_CODE_SESSION_ID": SID}, "CLAUDE_CODE_SESSION_ID is set (a Claude Code session)"),
    ({"GEMINI_CLI": "1", "LETS_SESSION_ID": SID},
     "LETS_SESSION_ID is set (a Gemini CLI session)"),
    ({"LETS_SESSION_ID": SID}, "LETS_SESSION_ID is set"),
])
def test_doctor_says_whose_session_it_sees(sandbox: Sandbox, env: dict[str, str],
                                           said: str) -> None:
    done = run(sandbox, ["lets-hooks", "doctor", "--json"], b"", env)
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["session id"]["text"] == said


def test_doctor_in_a_gemini_shell_without_the_extension_says_what_to_install(
        sandbox: Sandbox) -> None:
    done = run(sandbox, ["lets-hooks", "doctor", "--json"], b"", {"GEMINI_CLI": "1"})
    found = {c["name"]: c for c in json.loads(done.stdout)["checks"]}["session id"]
    assert "Gemini CLI shell" in found["text"] and "extension" in found["fix"]



def test_version_and_help(sandbox: Sandbox) -> None:
    from lets_hooks import __version__

    done = run(sandbox, ["lets-agent-hook", "--version"], b"")
    assert (done.returncode, done.stdout) == (0, f"lets-agent-hook {__version__}\n".encode())
    done = run(sandbox, ["lets-agent-hook", "--help"], b"")
    assert done.returncode == 0 and done.stdout.startswith(b"usage: lets-agent-hook ")
    assert not (sandbox.path / ".git" / "lets-agent").exists()  # help runs no hook


def test_the_docs_before_tool_sample_is_what_the_hook_prints(sandbox: Sandbox) -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text()
    [block] = [b for b in page.split("```console\n")[1:] if "lets-agent-hook" in b]
    lines = block.split("```")[0].splitlines()
    given, printed = lines[1], lines[3]
    done = run(sandbox, ["lets-agent-hook", "pre-tool", "--agent", "gemini"], given.encode())
    assert done.stdout.decode() == printed + "\n"


def test_a_refused_session_id_is_no_session_id_with_one_note(sandbox: Sandbox) -> None:
    """The hook input's ``session_id`` is held to the one session-id rule: ``-`` (the
    ledger's "no session") is no id at all. Nothing is written as that session's, and
    the call says so once (before the call, not again after it)."""
    before = tool(sandbox, "claude", "pre-tool", sid="-")
    sandbox.commit("by the agent, with no usable id")
    after = tool(sandbox, "claude", "post-tool", sid="-")
    assert before.returncode == after.returncode == 0
    assert before.stderr.count(b"read as no session id") == 1, before.stderr
    assert b"session ledger's own marks" in before.stderr
    assert after.stderr == b""
    assert ledger_lines(sandbox) == []
