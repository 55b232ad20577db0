"""Each agent's hooks, run as the agent runs them (its JSON on stdin, its environment):
the start hook records the branch's line with the agent's own id and gives the summary in
the shape the agent takes; the shell tool's pre-tool hook hands the command the git
environment (Codex, Gemini; Claude Code from its env file) under which git writes the
session ledger for the commits that very command makes, and only those (a person's commit
meanwhile is never the agent's), with the repository's own hooks still run as before (off
under Gemini, whose shell turns them off); Gemini gets the summary with the next prompt
after /clear; and whatever arrives, every hook exits 0, writes nothing outside the project
and gives the agent nothing to take as context. ``lets-hooks doctor`` says whose session
it sees.

The shapes are read from each agent's source (docs/agents.md); the real programs are
driven in tests/test_agents_e2e.py."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers import AGENT_SID, BIN, Sandbox
from hookbox import needs_git

from lets_hooks import agents, ledger, state

HOSTILE = "it's-$(touch${IFS}PWNED)-`id`-\"q\"-\\;|&"
AGENT_VARIABLES = ("CLAUDECODE", "CLAUDE_ENV_FILE", "CLAUDE_PROJECT_DIR", "GEMINI_CLI",
                   "GEMINI_PROJECT_DIR", "LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID",
                   "CODEX_THREAD_ID", "GEMINI_SESSION_ID")
SHELL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command"}

# The agents' hooks folder reaches git through GIT_CONFIG_COUNT, which git reads from 2.31 on
# (docs/agents.md: before it, an agent's commits with no git hook are counted, not vouched for).
GIT_CONFIG_ENV = needs_git(2, 31, "GIT_CONFIG_COUNT needs git 2.31")


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
    body = {"session_id": AGENT_SID, "cwd": str(box.path), "source": "startup",
            "hook_event_name": "SessionStart", **fields}
    return run(box, ["lets-session-start", "--agent-hook", agent, "--today", "2026-11-29"],
               json.dumps(body).encode())


def tool(box: Sandbox, agent: str, event: str, command: str = "git commit",
         sid: str = AGENT_SID, **fields: object) -> subprocess.CompletedProcess[bytes]:
    body = {"session_id": sid, "cwd": str(box.path), "tool_name": SHELL[agent],
            "tool_input": {"command": command}, **fields}
    return run(box, ["lets-agent-hook", event, "--agent", agent], json.dumps(body).encode())


def ledger_lines(box: Sandbox) -> list[str]:
    """The ledger's ``c`` lines: which session made which commit (its other lines, such
    as where a session's line was written, are not the tool hooks'), each once (a
    repository's own post-commit shim and the agent's hooks folder may both write one;
    the ledger reads the two as one)."""
    path = Path(ledger.path(str(box.path / ".git")))
    lines = path.read_text().splitlines() if path.exists() else []
    return list(dict.fromkeys(line for line in lines if line.startswith("c ")))


def recorded(box: Sandbox, branch: str = "main") -> bytes | None:
    path = box.path / ".lets" / "sessions" / f".task-{branch}"
    return state.find_session_line(path.read_bytes()) if path.exists() else None


# What each agent's shell gives the commands it runs (docs/agents.md): Claude Code and Codex
# their id; Gemini no id, and git's config through GIT_CONFIG_COUNT with core.hooksPath empty
# (its shellExecutionService), so no git hook of the repository runs.
GEMINI_SHELL = {"GEMINI_CLI": "1", "GIT_CONFIG_COUNT": "3",
                "GIT_CONFIG_KEY_0": "credential.helper", "GIT_CONFIG_VALUE_0": "",
                "GIT_CONFIG_KEY_1": "core.hooksPath", "GIT_CONFIG_VALUE_1": "",
                "GIT_CONFIG_KEY_2": "core.pager", "GIT_CONFIG_VALUE_2": "cat"}


def shell_env(agent: str, sid: str = AGENT_SID) -> dict[str, str]:
    given = {"claude": {"CLAUDE_CODE_SESSION_ID": sid}, "codex": {"CODEX_THREAD_ID": sid},
             "gemini": GEMINI_SHELL}[agent]
    return environment({**given, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})


def handed(box: Sandbox, agent: str, command: str, sid: str = AGENT_SID,
           cwd: str | None = None) -> str:
    """The command as the agent's shell runs it after the pre-tool hook: Gemini's
    BeforeTool ``tool_input``, Codex's PreToolUse ``updatedInput``; Claude Code's as it
    was, with the env file its start hook wrote sourced first (as Claude Code does)."""
    fields = {"cwd": cwd} if cwd else {}
    done = tool(box, agent, "pre-tool", command=command, sid=sid, **fields)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    if agent == "claude":
        assert done.stdout == b""  # its input is never changed (that needs a permission)
        env_file = box.path.parent / "claude.env"
        return f". {env_file}; {command}" if env_file.exists() else command
    output = json.loads(done.stdout)["hookSpecificOutput"]
    if agent == "codex":
        assert (output["hookEventName"], output["permissionDecision"]) == ("PreToolUse",
                                                                           "allow")
        changed = output["updatedInput"]["command"]
    else:
        assert output["hookEventName"] == "BeforeTool"
        changed = output["tool_input"]["command"]
    assert changed.endswith("; " + command)
    return str(changed)


def begin(box: Sandbox, agent: str, sid: str = AGENT_SID, **fields: object) -> None:
    """The agent's start hook (Claude Code's with its env file)."""
    body = {"session_id": sid, "cwd": str(box.path), "source": "startup", **fields}
    extra = {"CLAUDE_ENV_FILE": str(box.path.parent / "claude.env")} \
        if agent == "claude" else {}
    done = run(box, ["lets-session-start", "--agent-hook", agent, "--today", "2026-11-29"],
               json.dumps(body).encode(), extra)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr


def shell_call(box: Sandbox, agent: str, command: str, sid: str = AGENT_SID,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One call of the agent's shell tool: its pre-tool hook, the command as handed back,
    run in the agent's shell environment, then its post-tool hook."""
    where = cwd or box.path
    changed = handed(box, agent, command, sid, cwd=str(where))
    done = subprocess.run(["bash", "-c", changed], cwd=where, env=shell_env(agent, sid),
                          capture_output=True, text=True, check=False, timeout=120)
    after = tool(box, agent, "post-tool", command=command, sid=sid, cwd=str(where))
    assert (after.returncode, after.stdout, after.stderr) == (0, b"", b"")
    return done


def made_by_the_tool(box: Sandbox, agent: str, message: str = "by the agent") -> str:
    """One shell tool call that commits."""
    done = shell_call(box, agent, f"git commit -q --allow-empty -m '{message}'")
    assert done.returncode == 0, done.stderr
    return box.head()


def trust(box: Sandbox, branch_env: dict[str, str] | None = None) -> tuple[str, str]:
    found = box.boundary(env={"LETS_SESSION_ID": AGENT_SID, **(branch_env or {})})
    return found["SESSION_TRUST"], found["SESSION_COMMITS"]


# -- the shapes ------------------------------------------------------------------------------


def test_each_agent_takes_context_in_its_own_shape() -> None:
    assert agents.context(agents.CLAUDE_CODE, "## Session Ready\n") == "## Session Ready\n"
    assert agents.context(agents.CODEX_CLI, "## Session Ready\n") == "## Session Ready\n"
    answer = json.loads(agents.context(agents.GEMINI_CLI, "## Session Ready\n"))
    assert answer == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": "## Session Ready\n"}}
    for agent in agents.AGENTS.values():
        budget = agents.context_budget(agent, None)
        assert budget is not None and budget <= agents.CONTEXT_CAP


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
    assert len(context) <= agents.CONTEXT_CAP
    assert recorded(sandbox) == f"{head} {AGENT_SID}".encode()


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_a_resumed_session_keeps_its_line_a_cleared_one_takes_it(
        sandbox: Sandbox, agent: str) -> None:
    first = sandbox.head()
    assert start(sandbox, agent).returncode == 0
    sandbox.commit("later, by someone else")
    assert start(sandbox, agent, source="resume").returncode == 0
    assert recorded(sandbox) == f"{first} {AGENT_SID}".encode()  # the same session: kept
    other = "a-session-after-clear"
    assert start(sandbox, agent, session_id=other, source="clear").returncode == 0
    assert recorded(sandbox) == f"{sandbox.head()} {other}".encode()  # a new session
    assert start(sandbox, agent, session_id=other, source="fork").returncode == 0
    assert recorded(sandbox) == f"{sandbox.head()} {other}".encode()  # no such source


def test_codex_has_no_env_file_and_gets_none(sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "session.env"
    body = json.dumps({"session_id": AGENT_SID, "cwd": str(sandbox.path), "source": "startup"})
    done = run(sandbox, ["lets-session-start", "--agent-hook", "codex"], body.encode(),
               {"CLAUDE_ENV_FILE": str(env_file)})
    assert done.returncode == 0 and done.stdout.startswith(b"## Session Ready\n")
    assert not env_file.exists()
    assert recorded(sandbox) == f"{sandbox.head()} {AGENT_SID}".encode()


def test_claude_codes_env_file_gets_the_git_environment_once(sandbox: Sandbox) -> None:
    env_file = sandbox.path.parent / "claude.env"
    env_file.write_bytes(b"export KEPT=1")  # another hook's line, with no line end
    begin(sandbox, "claude")
    begin(sandbox, "claude", source="resume")
    text = env_file.read_text()
    assert text.startswith("export KEPT=1\n") and text.count("agent-hooks/git-env") == 2
    folder = sandbox.path / ".git" / "lets-hooks" / "agent-hooks"
    assert str(folder) in text and (folder / "post-commit").is_file()


# -- the shell tool: git writes the ledger for the commits of the command itself -------------


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_commit_the_tool_made_is_the_sessions_with_no_git_hook(
        sandbox: Sandbox, agent: str) -> None:
    begin(sandbox, agent)
    sha = made_by_the_tool(sandbox, agent)
    assert ledger_lines(sandbox) == [f"c {sha} {AGENT_SID}"]
    assert trust(sandbox) == ("exact", "1")


@GIT_CONFIG_ENV
@pytest.mark.parametrize("other", ["person", "second agent"])
@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_person_committing_meanwhile_is_never_the_agents(
        sandbox: Sandbox, tmp_path: Path, agent: str, other: str) -> None:
    """While the agent's shell command runs (it commits, then works on), a person commits
    at another terminal in the same work tree, or a second agent's command does: only the
    agent's commit is the session's."""
    begin(sandbox, agent)
    made, done = tmp_path / "made", tmp_path / "person-done"
    command = (f"git commit -q --allow-empty -m agent && touch {made} && i=0; "
               f"while [ ! -f {done} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done")
    changed = handed(sandbox, agent, command)
    call = subprocess.Popen(["bash", "-c", changed], cwd=sandbox.path,
                            env=shell_env(agent))
    try:
        for _ in range(1200):
            if made.exists() or call.poll() is not None:
                break
            time.sleep(0.05)
        assert made.exists()
        agents_commit = sandbox.head()
        if other == "person":
            persons = sandbox.commit("by the person, at another terminal")  # no session id
        else:
            second = shell_call(sandbox, "gemini", "git commit -q --allow-empty -m second",
                                sid="the-second-agent")
            assert second.returncode == 0, second.stderr
            persons = sandbox.head()
        done.touch()
        assert call.wait(timeout=120) == 0
    finally:
        done.touch()
        call.wait(timeout=120)
    after = tool(sandbox, agent, "post-tool", command=command)
    assert (after.returncode, after.stdout, after.stderr) == (0, b"", b"")
    theirs = [] if other == "person" else [f"c {persons} the-second-agent"]
    assert ledger_lines(sandbox) == [f"c {agents_commit} {AGENT_SID}", *theirs]
    assert trust(sandbox) != ("exact", "2")


def test_a_call_that_made_no_commit_writes_nothing(sandbox: Sandbox) -> None:
    done = shell_call(sandbox, "codex", "ls")
    assert done.returncode == 0
    assert ledger_lines(sandbox) == []


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", agents.NAMES)
def test_an_amend_of_the_sessions_commit_stays_exact(sandbox: Sandbox, agent: str) -> None:
    """post-rewrite runs for the command's amend (Gemini's shell turns git's hooks off):
    the copy is the session's own."""
    begin(sandbox, agent)
    made_by_the_tool(sandbox, agent)
    done = shell_call(sandbox, agent, "git commit -q --amend --allow-empty -m amended")
    assert done.returncode == 0, done.stderr
    assert trust(sandbox) == ("exact", "1")


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_rebase_of_the_sessions_commits_stays_exact(sandbox: Sandbox, agent: str) -> None:
    sandbox.git.checkout("-q", "-b", "topic")
    begin(sandbox, agent)
    made_by_the_tool(sandbox, agent, "one")
    made_by_the_tool(sandbox, agent, "two")
    sandbox.git.checkout("-q", "main")
    sandbox.commit("main moves on, by a person")
    sandbox.git.checkout("-q", "topic")
    done = shell_call(sandbox, agent, "git rebase -q main")
    assert done.returncode == 0, done.stderr
    assert trust(sandbox) == ("exact", "2")


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", agents.NAMES)
def test_a_branch_the_shell_switches_to_gets_its_line(sandbox: Sandbox, agent: str) -> None:
    """post-checkout runs for the command's switch: the new branch carries the session's
    boundary (SPEC §4), and the session's commits on it are exact."""
    begin(sandbox, agent)
    done = shell_call(sandbox, agent, "git switch -q -c topic")
    assert done.returncode == 0, done.stderr
    assert recorded(sandbox, "topic") == recorded(sandbox)
    made_by_the_tool(sandbox, agent, "on the topic")
    assert trust(sandbox) == ("exact", "1")


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", agents.NAMES)
def test_the_boundary_in_the_command_that_committed_says_exact(
        sandbox: Sandbox, agent: str) -> None:
    begin(sandbox, agent)
    done = shell_call(sandbox, agent, "git commit -q --allow-empty -m agent && "
                                      "lets-session-boundary")
    assert done.returncode == 0, done.stderr
    assert "SESSION_TRUST=exact\nSESSION_COMMITS=1\n" in done.stdout


@GIT_CONFIG_ENV
@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_repositorys_own_hooks_run_as_before(
        sandbox: Sandbox, tmp_path: Path, agent: str) -> None:
    """The repository's hooks folder (core.hooksPath here) still runs, with git's
    arguments and stdin, and a hook that fails still stops the commit."""
    hooks = sandbox.path / "my-hooks"
    hooks.mkdir()
    seen = tmp_path / "seen"
    for hook in ("pre-commit", "post-commit", "post-rewrite", "commit-msg"):
        script = hooks / hook
        script.write_text(f'#!/bin/sh\necho "{hook} $# $(cat </dev/null)" >> {seen}\n'
                          + ('cat >> ' + str(seen) + '\n' if hook == "post-rewrite" else ""))
        script.chmod(0o755)
    sandbox.git.config("core.hooksPath", "my-hooks")
    begin(sandbox, agent)
    made_by_the_tool(sandbox, agent)
    done = shell_call(sandbox, agent, "git commit -q --amend --allow-empty -m again")
    assert done.returncode == 0, done.stderr
    lines = seen.read_text().splitlines()
    assert lines[:3] == ["pre-commit 0 ", "commit-msg 1 ", "post-commit 0 "]
    assert "post-rewrite 1 " in lines and any(line.count(" ") == 1 and len(line) == 81
                                               for line in lines)  # the amend's pair
    assert trust(sandbox) == ("exact", "1")
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 1\n")
    done = shell_call(sandbox, agent, "git commit -q --allow-empty -m refused")
    assert done.returncode != 0  # the repository's failing hook still refuses it


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_husky_and_lets_hooks_installed_in_it_run_as_before(
        sandbox: Sandbox, tmp_path: Path, agent: str) -> None:
    """husky's folder (core.hooksPath=.husky/_, stubs that find their helper by $0) runs
    the team's hook; lets-hooks' line in it writes the ledger, and post-rewrite's record is
    written once."""
    from hookbox import HookBox
    from managers import fake_husky, team_hook

    box = HookBox(sandbox.path)
    try:
        seen = tmp_path / "seen"
        user = fake_husky(box)
        team_hook(user / "pre-commit", f"echo team >> {seen}\n")
        assert sandbox.run("lets-hooks", "install").returncode == 0
        begin(sandbox, agent)
        sha = made_by_the_tool(sandbox, agent)
        assert seen.read_text() == "team\n"
        assert ledger_lines(sandbox) == [f"c {sha} {AGENT_SID}"]
        done = shell_call(sandbox, agent, "git commit -q --amend --allow-empty -m amended")
        assert done.returncode == 0, done.stderr
        path = Path(ledger.path(str(sandbox.path / ".git")))
        assert len([x for x in path.read_text().splitlines() if x.startswith("r ")]) == 1
        assert trust(sandbox) == ("exact", "1")
    finally:
        box.repo.close()


@GIT_CONFIG_ENV
def test_under_gemini_the_repositorys_hooks_stay_off(sandbox: Sandbox, tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    hook = sandbox.path / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho ran >> {seen}\n")
    hook.chmod(0o755)
    begin(sandbox, "gemini")
    made_by_the_tool(sandbox, "gemini")
    assert not seen.exists()  # as Gemini's shell has it: no hook of the repository
    assert trust(sandbox) == ("exact", "1")


@pytest.mark.parametrize("agent", agents.NAMES)
def test_with_git_hooks_installed_the_tool_hook_adds_nothing(
        sandbox: Sandbox, agent: str) -> None:
    """With ``lets-hooks install`` done, post-commit's line decides: the agent's hooks
    folder writes the same line (or, under Gemini, the only one), never another."""
    assert sandbox.run("lets-hooks", "install").returncode == 0
    begin(sandbox, agent)
    sha = made_by_the_tool(sandbox, agent)
    assert ledger_lines(sandbox) == [f"c {sha} {AGENT_SID}"]
    sandbox.commit("by a person, hooks on")  # post-commit: no session
    done = shell_call(sandbox, agent, "git commit -q --amend --allow-empty -m amended")
    assert done.returncode == 0, done.stderr
    path = Path(ledger.path(str(sandbox.path / ".git")))
    rewrites = [line for line in path.read_text().splitlines() if line.startswith("r ")]
    assert len(rewrites) == 1  # post-rewrite ran once, not once more by the chain
    assert trust(sandbox)[0] != "exact"  # an amend of the person's commit: mixed


@GIT_CONFIG_ENV
def test_a_linked_work_tree_shares_the_ledger(sandbox: Sandbox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    sandbox.git.worktree("add", "-q", "-b", "side", str(linked))
    done = shell_call(sandbox, "codex", "git commit -q --allow-empty -m there", cwd=linked)
    assert done.returncode == 0, done.stderr
    sha = sandbox.rev("side")
    assert ledger_lines(sandbox) == [f"c {sha} {AGENT_SID}"]
    assert not (linked / ".git").is_dir()


# -- Gemini: the command gets the id --------------------------------------------------------


@pytest.mark.parametrize("sid", [AGENT_SID, HOSTILE])
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


@GIT_CONFIG_ENV
@pytest.mark.parametrize("shell", ["sh", "bash", "zsh", "dash"])
def test_the_git_environment_works_in_each_shell_and_only_once(
        sandbox: Sandbox, shell: str) -> None:
    import shutil

    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    changed = handed(sandbox, "codex", "git config core.hooksPath; echo $GIT_CONFIG_COUNT")
    twice = changed.replace("; git config", "; " + changed.split("; ")[0] + "; git config")
    for text in (changed, twice):
        done = subprocess.run([shell, "-c", text], cwd=sandbox.path, env=shell_env("gemini"),
                              capture_output=True, text=True, check=True)
        folder, count = done.stdout.splitlines()
        assert folder.endswith("agent-hooks") and count == "4"


def test_claude_codes_commands_are_never_changed(sandbox: Sandbox) -> None:
    done = tool(sandbox, "claude", "pre-tool", command="git commit -m x")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_gemini_dir_path_is_where_the_command_ran(sandbox: Sandbox, tmp_path: Path) -> None:
    foreign = Sandbox(tmp_path / "foreign")
    try:
        foreign.commit("theirs")
        body = {"session_id": AGENT_SID, "cwd": str(sandbox.path), "tool_name": "run_shell_command",
                "tool_input": {"command": "git commit", "dir_path": str(foreign.path)}}
        done = run(sandbox, ["lets-agent-hook", "pre-tool", "--agent", "gemini"],
                   json.dumps(body).encode())
        assert str(foreign.path / ".git" / "lets-hooks" / "agent-hooks") in \
            json.loads(done.stdout)["hookSpecificOutput"]["tool_input"]["command"]
        assert not (sandbox.path / ".git" / "lets-hooks").exists()
    finally:
        foreign.repo.close()


# -- Gemini: the summary after /clear ---------------------------------------------------------


def before_agent(box: Sandbox, prompt: str, sid: str = AGENT_SID
                 ) -> subprocess.CompletedProcess[bytes]:
    body = {"session_id": sid, "cwd": str(box.path), "hook_event_name": "BeforeAgent",
            "prompt": prompt}
    return run(box, ["lets-agent-hook", "before-agent", "--agent", "gemini"],
               json.dumps(body).encode())


@pytest.mark.parametrize("source", ["clear", "resume"])
def test_gemini_gets_the_summary_with_the_next_prompt_after_clear_or_resume(
        sandbox: Sandbox, source: str) -> None:
    done = start(sandbox, "gemini", source=source)
    summary = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    given = before_agent(sandbox, "go on")
    assert given.returncode == 0
    answer = json.loads(given.stdout)["hookSpecificOutput"]
    assert answer == {"hookEventName": "BeforeAgent", "additionalContext": summary}
    assert before_agent(sandbox, "and then").stdout == b""  # once


def test_gemini_gets_no_summary_twice(sandbox: Sandbox) -> None:
    assert start(sandbox, "gemini").returncode == 0  # startup: the start hook's own
    assert before_agent(sandbox, "go").stdout == b""
    done = start(sandbox, "gemini", source="resume")
    summary = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    # a run that put the start hook's context into the prompt itself (gemini -p)
    assert before_agent(sandbox, f"<hook_context>{summary}</hook_context>\n\ngo").stdout \
        == b""
    assert before_agent(sandbox, "go").stdout == b""
    assert start(sandbox, "gemini", source="clear").returncode == 0
    assert before_agent(sandbox, "go", sid="another-session").stdout == b""
    assert start(sandbox, "codex", source="clear").returncode == 0  # Codex takes its own
    assert before_agent(sandbox, "go").stdout != b""  # Gemini's, kept from before
    assert before_agent(sandbox, "go").stdout == b""


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
    """Nothing as context but from the agent's own JSON object (or from what is not UTF-8
    text, which cannot be told from it: the summary, nothing recorded)."""
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
            summary = raw.startswith(b'{"session_id": "s"') or raw == b"\xff\xfe\x00"
            if done.stdout and argv[:2] == ["lets-agent-hook", "pre-tool"] \
                    and b'"/nowhere' in raw and agent == "codex":
                # a cwd that is no folder is the folder the hook runs in: a shell call
                # there, handed back, and no context
                answer = json.loads(done.stdout)["hookSpecificOutput"]
                assert "additionalContext" not in answer and answer["updatedInput"]
            elif argv[0] == "lets-agent-hook" or not summary:
                assert done.stdout == b"", (argv, raw[:60], done.stdout[:80])
    assert snapshot(outside) == before
    assert recorded(sandbox) is None
    changed = set(snapshot(sandbox.path / ".git")) - set(git_before)
    assert all(p.startswith("lets-hooks") for p in changed), changed
    assert agent == "codex" or not changed


@GIT_CONFIG_ENV
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
        before = foreign.head()
        done = shell_call(sandbox, "codex", "git commit -q --allow-empty -m there",
                          cwd=foreign.path)
        assert done.returncode == 0, done.stderr
        assert snapshot(sandbox.path) == here
        assert list(outside.iterdir()) == []
        assert recorded(foreign) == f"{before} {AGENT_SID}".encode()
        assert ledger_lines(foreign) == [f"c {foreign.head()} {AGENT_SID}"]
    finally:
        foreign.repo.close()


def test_a_cwd_outside_any_repository_writes_nothing(sandbox: Sandbox) -> None:
    here = snapshot(sandbox.path)
    for event in ("pre-tool", "post-tool"):
        done = tool(sandbox, "codex", event, cwd="/")
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    body = json.dumps({"session_id": AGENT_SID, "cwd": "/", "source": "startup"})
    assert run(sandbox, ["lets-session-start", "--agent-hook", "gemini"],
               body.encode()).returncode == 0
    assert snapshot(sandbox.path) == here


def test_outside_any_repository_nothing_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    body = json.dumps({"session_id": AGENT_SID, "cwd": str(folder), "tool_name": "Bash",
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
    ({"CODEX_THREAD_ID": AGENT_SID}, "CODEX_THREAD_ID is set (a Codex CLI session)"),
    ({"CLAUDE_CODE_SESSION_ID": AGENT_SID},
     "CLAUDE_CODE_SESSION_ID is set (a Claude Code session)"),
    ({"GEMINI_CLI": "1", "LETS_SESSION_ID": AGENT_SID},
     "LETS_SESSION_ID is set (a Gemini CLI session)"),
    ({"LETS_SESSION_ID": AGENT_SID}, "LETS_SESSION_ID is set"),
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
    given, printed = (line.replace("/tmp/project", str(sandbox.path))
                      for line in (lines[1], lines[3]))
    done = run(sandbox, ["lets-agent-hook", "pre-tool", "--agent", "gemini"], given.encode())
    assert done.stdout.decode() == printed + "\n"


# -- input that is not UTF-8, under strict IO encodings ------------------------------------

STRICT_IO = [{"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
             {"LC_ALL": "C", "PYTHONIOENCODING": "ascii:strict"}]
NOT_UTF8 = [b'{"session_id": "s\xff1", "cwd": ".", "source": "startup", "tool_name": "Bash",'
            b' "tool_input": {"command": "git commit"}, "hook_event_name": "Stop"}',
            b"\xff\xfe\x00"]


@pytest.mark.parametrize("env", STRICT_IO)
@pytest.mark.parametrize("raw", NOT_UTF8)
def test_every_hook_that_reads_stdin_survives_input_that_is_not_utf8(
        sandbox: Sandbox, env: dict[str, str], raw: bytes) -> None:
    """Every agent's start hook still gives the summary, in the agent's shape, with one
    line saying the input was unusable; the tool and end hooks do nothing, in a line."""
    sandbox.commit("recent")
    for agent in agents.NAMES:
        for argv in (["lets-session-start", "--agent-hook", agent],
                     *([["lets-session-start", "--claude-hook"]] if agent == "claude" else [])):
            done = run(sandbox, argv, raw, env)
            assert (done.returncode, done.stderr) == (
                0, b"lets-session-start: hook input on stdin is not UTF-8 text; nothing "
                   b"recorded\n"), argv
            text = done.stdout.decode("utf-8")  # UTF-8 whatever the locale: the JSON's
            if agent == "gemini":
                text = json.loads(text)["hookSpecificOutput"]["additionalContext"]
            assert text.startswith("## Session Ready\n"), (argv, text[:80])
        for argv in (["lets-agent-hook", "pre-tool", "--agent", agent],
                     ["lets-agent-hook", "post-tool", "--agent", agent],
                     ["lets-session-checkpoint", "--hook"]):
            done = run(sandbox, argv, raw, env)
            assert (done.returncode, done.stdout) == (0, b""), argv
            assert b"Traceback" not in done.stderr
            assert len(done.stderr.splitlines()) == 1, (argv, done.stderr)
    assert recorded(sandbox) is None
    assert not (sandbox.path / ".lets" / "HANDOFF.md").exists()


@pytest.mark.parametrize("env", STRICT_IO)
def test_gemini_gets_json_back_whatever_its_command_holds(
        sandbox: Sandbox, env: dict[str, str]) -> None:
    """A command holding what is not Unicode (a lone surrogate the agent's JSON escaped)
    comes back as JSON Gemini can read, the command as it was."""
    body = (b'{"session_id": "s1", "tool_name": "run_shell_command", "tool_input": '
            b'{"command": "ls \\udcff \\u00e9"}}')
    done = run(sandbox, ["lets-agent-hook", "pre-tool", "--agent", "gemini"], body, env)
    assert (done.returncode, done.stderr) == (0, b"")
    answer = json.loads(done.stdout.decode("utf-8"))
    assert answer["hookSpecificOutput"]["tool_input"]["command"].endswith(
        "; ls \udcff \u00e9")


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
