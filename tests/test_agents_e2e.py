"""Proof against the real programs: each agent's command-line program, installed from npm
at a pinned version, with the plugin (Codex CLI, Claude Code) or the extension (Gemini
CLI) installed as the README says, drives real sessions against a stand-in for its model
API on 127.0.0.1. Codex and Claude Code: the model asks for a shell command that commits,
then for ``lets-session-boundary``; the test checks that the branch's line holds the
agent's own session id, that the second command saw ``exact`` with 1 commit (the
repository has no git hook: git ran the agents' hooks folder the tool hook or the env file
gave the command), that the model's first request held the summary, and that the
end-of-session hook ran: where ``lets-session-checkpoint`` is installed, that it refreshed
the handoff; where it is not, that a stand-in for it got the agent's end-of-session JSON.
Gemini, with and without ``lets-hooks install``: a branch switched to, a commit and the
contract in one command, an amend, all ``exact``; the summary once on resume.

The programs are installed once into a cache folder (``LETS_AGENTS_CACHE``, default
``~/.cache/lets-hooks-agents``), under a file lock so parallel test workers never race.
Where npm's registry cannot be reached (or node is missing) the tests are skipped, and say
so. Only loopback addresses are used.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import BIN
from hookbox import needs_git

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("LETS_AGENTS_CACHE")
             or os.path.join(os.path.expanduser("~"), ".cache", "lets-hooks-agents"))
CODEX = ("@openai/codex", "0.171.0")
GEMINI = ("@google/gemini-cli", "0.61.0")
CLAUDE = ("@anthropic-ai/claude-code", "2.1.332")
BOUNDARY_KEYS = ("SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC")
# the stand-in model's two shell commands: a commit; then the contract and the ids the
# command sees. Two calls: with no git hook installed, the tool hook writes the commit down
# when the call that made it ends (in that same call, the count is best-effort only).
COMMANDS = ("git commit -q --allow-empty -m 'made by the agent'",
            "lets-session-boundary; printf 'SEEN_IDS=%s|%s|%s|%s\\n' \"$LETS_SESSION_ID\" "
            "\"$CLAUDE_CODE_SESSION_ID\" \"$CODEX_THREAD_ID\" \"$GEMINI_SESSION_ID\"")
CHECKPOINT = shutil.which("lets-session-checkpoint", path=str(BIN))

pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="node and npm are not installed: the agents' "
                                       "programs cannot be installed")


# -- installing the programs ---------------------------------------------------------------

# the agents' hooks folder reaches git through GIT_CONFIG_COUNT, read from git 2.31 on
GIT_CONFIG_ENV = needs_git(2, 31, "GIT_CONFIG_COUNT needs git 2.31")


def installed(package: str, version: str) -> Path:
    """The folder ``package@version`` is installed in (installed once, under a lock)."""
    folder = CACHE / f"{package.replace('/', '+')}@{version}"
    CACHE.mkdir(parents=True, exist_ok=True)
    stamp = folder / ".installed"
    with open(CACHE / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists():
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        done = subprocess.run(["npm", "install", "--prefix", str(folder), "--no-audit",
                               "--no-fund", "--no-save", f"{package}@{version}"],
                              capture_output=True, text=True, check=False, timeout=600)
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            pytest.skip(f"npm could not install {package}@{version} (registry not "
                        f"reachable?): {tail}")
        stamp.write_text(version + "\n")
    return folder


# -- a stand-in for the model's API ----------------------------------------------------------


class StandIn:
    """An HTTP server on 127.0.0.1 answering each POST with ``answer(path, body)``; every
    request is kept."""

    def __init__(self, answer: Callable[[str, dict[str, object]], tuple[str, bytes]]) -> None:
        self.requests: list[tuple[str, dict[str, object]]] = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(size)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                stand_in.requests.append((self.path, body))
                kind, data = answer(self.path, body)
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def sse(events: list[tuple[str | None, dict[str, object]]]) -> tuple[str, bytes]:
    text = "".join((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
                   for name, data in events)
    return "text/event-stream", text.encode()


# -- the project -------------------------------------------------------------------------------


@contextmanager
def project(tmp_path: Path) -> Iterator[Path]:
    """A repository with one commit and no git hook, and a handoff the end hook refreshes."""
    repo = tmp_path / "project"
    (repo / "memory").mkdir(parents=True)
    (repo / "memory" / "session-handoff-LATEST.md").write_text(
        "---\nupdated: 2026-11-28\n---\n\n<!-- state-snapshot v1 -->\n```yaml\n"
        "ts: 2026-11-28T10:00:00Z\nctx: the previous session\nnext:\n"
        "  - wire the agents' hooks\n```\n\n## Notes\n\nWritten by hand.\n")
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Agent Test"],
                 ["config", "user.email", "agent@example.com"], ["add", "-A"],
                 ["commit", "-q", "-m", "before the session"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    yield repo


def agent_env(tmp_path: Path, extra: dict[str, str]) -> dict[str, str]:
    """No session variable of an agent this test is not running, lets-hooks on PATH, and
    in front of ``lets-session-checkpoint`` a script that keeps each end-of-session hook's
    JSON (``ended``) and hands it on to the command where it is installed, so the wiring
    of each end event is checked whether or not the command is there."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "CODEX_", "GEMINI", "LETS_", "ANTHROPIC",
                                "OPENAI", "GOOGLE_"))}
    stand_in = tmp_path / "stand-in-bin"
    stand_in.mkdir(exist_ok=True)
    (tmp_path / "ended").mkdir(exist_ok=True)
    script = stand_in / "lets-session-checkpoint"
    keep = f'"{tmp_path}/ended/$$.json"'
    script.write_text("#!/bin/sh\n" + (f'cat > {keep}\nexit 0\n' if CHECKPOINT is None else
                                       f'tee {keep} | "{CHECKPOINT}" "$@"\n'))
    script.chmod(0o755)
    env["PATH"] = f"{stand_in}{os.pathsep}{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1"
    env.update(extra)
    return env


def ended(tmp_path: Path, events: set[str]) -> None:
    """The checkpoint ran with ``--hook`` for each of ``events`` (``agent_env``'s script
    kept its JSON; where the command is installed, ``check_session`` reads its handoff)."""
    folder = tmp_path / "ended"
    seen: set[object] = set()
    for _ in range(50):  # an agent may start its end hook without waiting for it
        for kept in folder.glob("*.json"):
            with contextlib.suppress(ValueError):  # (one still being written)
                seen.add(json.loads(kept.read_text() or "{}").get("hook_event_name"))
        if seen >= events:
            return
        time.sleep(0.1)
    raise AssertionError(f"no end-of-session hook ran ({events}); seen: {seen}")


def run(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "",
        timeout: int = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, check=False, timeout=timeout)


def task_line(repo: Path) -> list[str]:
    text = (repo / ".lets" / "sessions" / ".task-main").read_text()
    [line] = [x for x in text.splitlines() if x.startswith("session: ")]
    return line.split()[1:]


def contract(output: str) -> dict[str, str]:
    found = dict(re.findall(r"(?:^|\s)(SESSION_[A-Z_]+|SEEN_IDS)=(.*)$", output, flags=re.M))
    assert all(key in found for key in BOUNDARY_KEYS), output[-2000:]
    return found


def check_session(repo: Path, output: str, sid: str, first_request: str) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()
    boundary, recorded_sid = task_line(repo)
    assert recorded_sid == sid
    seen = contract(output)
    print("\n".join(f"{key}={seen[key]}" for key in BOUNDARY_KEYS))  # shown with -s
    assert (seen["SESSION_TRUST"], seen["SESSION_COMMITS"]) == ("exact", "1"), seen
    assert seen["SESSION_BOUNDARY"] == boundary
    assert "## Session Ready" in first_request  # the summary reached the model
    ledger = (repo / ".git" / "lets-hooks" / "ledger").read_text().splitlines()
    assert f"c {head} {sid}" in ledger  # the tool hook's line (no git hook ran)
    if CHECKPOINT is not None:  # the end hook refreshed the handoff (perhaps not waited for)
        handoff = repo / "memory" / "session-handoff-LATEST.md"
        for _ in range(50):
            if "### Range" in handoff.read_text():
                break
            time.sleep(0.1)
        text = handoff.read_text()
        assert "### Range" in text and "wire the agents' hooks" in text, text


# -- Codex CLI --------------------------------------------------------------------------------


def responses_api(path: str, body: dict[str, object]) -> tuple[str, bytes]:
    """The Responses API: the shell tool's two calls, then a closing message."""
    inputs = body.get("input")
    answered = sum(1 for i in inputs if isinstance(i, dict)
                   and i.get("type") == "function_call_output") \
        if isinstance(inputs, list) else 0
    item: dict[str, object] = (
        {"type": "message", "role": "assistant", "id": "msg_1",
         "content": [{"type": "output_text", "text": "Committed."}]}
        if answered >= len(COMMANDS) else
        {"type": "function_call", "id": f"fc_{answered}", "call_id": f"call_{answered}",
         "name": "exec_command",
         "arguments": json.dumps({"cmd": COMMANDS[answered], "login": False})})
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
             "input_tokens_details": None, "output_tokens_details": None}
    return sse([("response.created", {"type": "response.created", "response": {"id": "r"}}),
                ("response.output_item.done", {"type": "response.output_item.done",
                                               "item": item}),
                ("response.completed", {"type": "response.completed",
                                        "response": {"id": "r", "usage": usage}})])


@GIT_CONFIG_ENV
def test_codex_cli_session(tmp_path: Path) -> None:
    folder = installed(*CODEX)
    codex = str(folder / "node_modules" / ".bin" / "codex")
    home = tmp_path / "codex-home"
    home.mkdir()
    with StandIn(responses_api) as model, project(tmp_path) as repo:
        (home / "config.toml").write_text(
            'model = "stand-in"\nmodel_provider = "stand-in"\n\n'
            '[model_providers.stand-in]\nname = "stand-in"\n'
            f'base_url = "{model.url}/v1"\nwire_api = "responses"\n')
        env = agent_env(tmp_path, {"CODEX_HOME": str(home)})
        # installed as the README says
        for argv in (["plugin", "marketplace", "add", str(ROOT / "agent-plugin")],
                     ["plugin", "add", "lets-hooks@lets-hooks"]):
            done = run([codex, *argv], repo, env)
            assert done.returncode == 0, done.stderr
        done = run([codex, "exec", "--dangerously-bypass-hook-trust",
                    "--dangerously-bypass-approvals-and-sandbox", "commit the work"],
                   repo, env)
        assert done.returncode == 0, done.stderr[-3000:]
        output = done.stdout + done.stderr
        [sid] = set(re.findall(r"^session id: (\S+)$", output, flags=re.M))
        seen = contract(output)["SEEN_IDS"].split("|")
        assert seen[2] == sid  # the shell command's CODEX_THREAD_ID is the hook's id
        first = json.dumps(model.requests[0][1])
        check_session(repo, output, sid, first)
        ended(tmp_path, {"Stop", "SessionEnd"})  # after the turn, and at exit
        assert "clamping" not in done.stderr  # a SessionEnd timeout Codex takes as it is


# -- Gemini CLI -------------------------------------------------------------------------------


# the Gemini session's commands: on a branch the shell switches to, a commit and the
# contract in the same command; then an amend of it and the contract again (SPEC §4: the
# switch carries the boundary; post-checkout and post-rewrite run though Gemini's shell
# turns git's hooks off)
GEMINI_COMMANDS = (
    "git switch -q -c topic && git commit -q --allow-empty -m 'made by the agent' && "
    "lets-session-boundary; printf 'SEEN_IDS=%s|%s|%s|%s\\n' \"$LETS_SESSION_ID\" "
    "\"$CLAUDE_CODE_SESSION_ID\" \"$CODEX_THREAD_ID\" \"$GEMINI_SESSION_ID\"",
    "git commit -q --amend --allow-empty -m 'amended by the agent' && lets-session-boundary")


def function_responses(body: dict[str, object]) -> list[str]:
    contents = body.get("contents")
    return [str(part["functionResponse"].get("response", {}).get("output", ""))
            for c in (contents if isinstance(contents, list) else []) if isinstance(c, dict)
            for part in c.get("parts", [])
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)]


def gemini_api(path: str, body: dict[str, object]) -> tuple[str, bytes]:
    """The Gemini API: run_shell_command's calls, then a closing text."""
    if ":countTokens" in path:
        return "application/json", json.dumps({"totalTokens": 10}).encode()
    answered = len(function_responses(body))
    part: dict[str, object] = (
        {"text": "Committed."} if answered >= len(GEMINI_COMMANDS) else
        {"functionCall": {"name": "run_shell_command",
                          "args": {"command": GEMINI_COMMANDS[answered],
                                   "description": "commit the work"}}})
    chunk: dict[str, object] = {"candidates": [{"content": {"role": "model", "parts": [part]},
                             "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                               "totalTokenCount": 15}}
    return sse([(None, chunk)])


def last_prompt(body: dict[str, object]) -> str:
    """The text of the request's last user turn that is not a tool's answer."""
    contents = body.get("contents")
    turns = [c for c in (contents if isinstance(contents, list) else [])
             if isinstance(c, dict) and c.get("role") == "user"
             and not any("functionResponse" in part for part in c.get("parts", []))]
    return "\n".join(str(part.get("text", "")) for part in turns[-1]["parts"]) \
        if turns else ""


@GIT_CONFIG_ENV
@pytest.mark.parametrize("hooks", ["no git hook", "lets-hooks install"])
def test_gemini_cli_session(tmp_path: Path, hooks: str) -> None:
    folder = installed(*GEMINI)
    gemini = str(folder / "node_modules" / ".bin" / "gemini")
    home = Path(os.environ["HOME"])  # the test's own home (conftest)
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    with StandIn(gemini_api) as model, project(tmp_path) as repo:
        env = agent_env(tmp_path, {"HOME": str(home), "GEMINI_API_KEY": "stand-in",
                                   "GOOGLE_GEMINI_BASE_URL": model.url})
        if hooks == "lets-hooks install":  # Gemini's shell turns them off all the same
            done = run([str(BIN / "lets-hooks"), "install"], repo, env)
            assert done.returncode == 0, done.stderr
        # installed as the README says (its question, whether to trust the folder: yes)
        done = run([gemini, "extensions", "install", str(ROOT / "gemini-extension"),
                    "--consent"], repo, env, stdin="y\n")
        assert done.returncode == 0, done.stdout + done.stderr
        done = run([gemini, "-p", "commit the work", "--yolo", "-m", "gemini-2.5-flash"],
                   repo, env)
        assert done.returncode == 0, done.stderr[-3000:]
        calls = [b for p, b in model.requests if ":countTokens" not in p]
        outputs = function_responses(calls[-1])  # the tools' output went back to the model
        assert len(outputs) == len(GEMINI_COMMANDS), outputs
        first, amended = contract(outputs[0]), contract(outputs[1])
        sid = task_line(repo)[1]
        assert first["SEEN_IDS"].split("|")[0] == sid  # BeforeTool handed the hook's id
        # the branch the shell switched to got its line, carried from main's
        text = (repo / ".lets" / "sessions" / ".task-topic").read_text()
        [line] = [x for x in text.splitlines() if x.startswith("session: ")]
        assert line.split()[1:] == task_line(repo)
        for seen in (first, amended):  # the commit and the boundary in one command; the amend
            print("\n".join(f"{key}={seen[key]}" for key in BOUNDARY_KEYS))  # with -s
            assert (seen["SESSION_TRUST"], seen["SESSION_COMMITS"]) == ("exact", "1"), seen
        assert "## Session Ready" in json.dumps(calls[0])  # the summary reached the model
        ledger = (repo / ".git" / "lets-hooks" / "ledger").read_text().splitlines()
        assert any(x.startswith("c ") and x.endswith(f" {sid}") for x in ledger)
        ended(tmp_path, {"SessionEnd"})
        if hooks != "no git hook":
            return
        # resumed: the summary reaches the model once, with the next prompt
        model.requests.clear()
        done = run([gemini, "--resume", "latest", "-p", "go on", "--yolo", "-m",
                    "gemini-2.5-flash"], repo, env)
        assert done.returncode == 0, done.stderr[-3000:]
        calls = [b for p, b in model.requests if ":countTokens" not in p]
        prompt = last_prompt(calls[0])
        assert "go on" in prompt and prompt.count("## Session Ready") == 1, prompt[-2000:]
        assert not (repo / ".git" / "lets-agent").exists() or not any(
            (repo / ".git" / "lets-agent").iterdir())  # delivered: nothing kept


def gemini_text_api(path: str, body: dict[str, object]) -> tuple[str, bytes]:
    """The Gemini API answering every prompt with a short text."""
    if ":countTokens" in path:
        return "application/json", json.dumps({"totalTokens": 10}).encode()
    chunk: dict[str, object] = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Noted."}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                          "totalTokenCount": 15}}
    return sse([(None, chunk)])


class Screen:
    """A program on a pseudo-terminal: what it printed is read while waiting."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)

    def wait_for(self, done: Callable[[], bool], seconds: float = 90) -> bool:
        import select

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if done():
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    os.read(self.fd, 1 << 16)
                except OSError:
                    return done()
        return done()

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())
        self.wait_for(lambda: False, 1)  # the screen takes the text, then the return
        os.write(self.fd, b"\r")

    def close(self) -> None:
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)


def test_gemini_cli_summary_after_clear(tmp_path: Path) -> None:
    """Gemini's interactive screen, driven on a pseudo-terminal: the start's summary
    reaches the model, and after /clear (whose start hook's context Gemini drops) the new
    one comes with the next prompt."""
    folder = installed(*GEMINI)
    gemini = str(folder / "node_modules" / "@google" / "gemini-cli" / "bundle" / "gemini.js")
    home = Path(os.environ["HOME"])
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(
        {"security": {"auth": {"selectedType": "gemini-api-key"},
                      "folderTrust": {"enabled": False}}}))
    with StandIn(gemini_text_api) as model, project(tmp_path) as repo:
        env = agent_env(tmp_path, {"HOME": str(home), "GEMINI_API_KEY": "stand-in",
                                   "GOOGLE_GEMINI_BASE_URL": model.url,
                                   "TERM": "xterm-256color"})
        done = run([gemini, "extensions", "install", str(ROOT / "gemini-extension"),
                    "--consent"], repo, env, stdin="y\n")
        assert done.returncode == 0, done.stdout + done.stderr
        node = shutil.which("node")
        assert node is not None

        def asked(words: str) -> list[str]:
            return [last_prompt(b) for p, b in list(model.requests)
                    if ":countTokens" not in p and words in last_prompt(b)]

        screen = Screen([node, gemini, "-m", "gemini-2.5-flash", "-i", "first prompt"],
                        repo, env)
        try:
            assert screen.wait_for(lambda: bool(asked("first prompt"))), model.requests
            # the start hook may still be writing its line when the first prompt is asked
            assert screen.wait_for((repo / ".lets" / "sessions" / ".task-main").exists)
            first_sid = task_line(repo)[1]
            screen.wait_for(lambda: False, 3)  # the answer is shown
            screen.type("/clear")
            assert screen.wait_for(lambda: task_line(repo)[1] != first_sid)  # a new id
            screen.wait_for(lambda: False, 2)
            screen.type("after the clear")
            assert screen.wait_for(lambda: bool(asked("after the clear"))), model.requests
        finally:
            screen.close()
        # after /clear: with the next prompt, once (the start's own is added to the
        # history, after the first prompt when that one came with the command)
        [after] = asked("after the clear")
        assert after.count("## Session Ready") == 1, after[-2000:]


# -- Claude Code ------------------------------------------------------------------------------


def messages_api(path: str, body: dict[str, object]) -> tuple[str, bytes]:
    """The Messages API: two Bash tool calls, then a closing text (streamed or not)."""
    if "count_tokens" in path:
        return "application/json", json.dumps({"input_tokens": 10}).encode()
    tools = body.get("tools")
    names = {t.get("name") for t in tools if isinstance(t, dict)} \
        if isinstance(tools, list) else set()
    messages = body.get("messages")
    answered = sum(1 for m in messages if isinstance(m, dict)
                   and isinstance(m.get("content"), list) for c in m["content"]
                   if isinstance(c, dict) and c.get("type") == "tool_result") \
        if isinstance(messages, list) else 0
    call = "Bash" in names and answered < len(COMMANDS)
    usage = {"input_tokens": 10, "output_tokens": 5}
    arguments = {"command": COMMANDS[min(answered, len(COMMANDS) - 1)],
                 "description": "commit the work"}
    tool_id = f"toolu_{answered}"
    stop = "tool_use" if call else "end_turn"
    if not body.get("stream"):
        content = [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": arguments}] \
            if call else [{"type": "text", "text": "Committed."}]
        return "application/json", json.dumps({
            "id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": usage}).encode()
    block: dict[str, object] = {"type": "tool_use", "id": tool_id, "name": "Bash",
                                "input": {}} if call else {"type": "text", "text": ""}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)} if call \
        else {"type": "text_delta", "text": "Committed."}
    message = {"id": "msg_1", "type": "message", "role": "assistant",
               "model": body.get("model"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": usage}
    return sse([
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                           "delta": {"stop_reason": stop, "stop_sequence": None}}),
        ("message_stop", {"type": "message_stop"})])


def result_text(content: object) -> str:
    """A tool_result's content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def claude_binary(folder: Path) -> str:
    """The native program the package ships for this platform (npm may leave the
    package's own launcher unlinked when it does not run install scripts)."""
    found = sorted((folder / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude"))
    launcher = folder / "node_modules" / ".bin" / "claude"
    if not found and not launcher.exists():
        pytest.skip("npm installed no Claude Code program for this platform")
    return str(found[0] if found else launcher)


@GIT_CONFIG_ENV
def test_claude_code_session(tmp_path: Path) -> None:
    claude = claude_binary(installed(*CLAUDE))
    home = Path(os.environ["HOME"])  # the test's own home (conftest)
    with StandIn(messages_api) as model, project(tmp_path) as repo:
        env = agent_env(tmp_path, {
            "HOME": str(home), "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-stand-in", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1"})
        # installed as the README says
        for argv in (["plugin", "marketplace", "add", str(ROOT / "agent-plugin")],
                     ["plugin", "install", "lets-hooks@lets-hooks"]):
            done = run([claude, *argv], repo, env)
            assert done.returncode == 0, done.stdout + done.stderr
        done = run([claude, "-p", "commit the work", "--allowedTools", "Bash"], repo, env)
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        calls = [b for p, b in model.requests if "count_tokens" not in p
                 and "Bash" in json.dumps(b.get("tools", []))]
        messages = calls[-1].get("messages")
        assert isinstance(messages, list)
        results = [c for m in messages if isinstance(m, dict)
                   and isinstance(m.get("content"), list) for c in m["content"]
                   if isinstance(c, dict) and c.get("type") == "tool_result"]
        text = "\n".join(result_text(r.get("content")) for r in results)
        sid = task_line(repo)[1]
        assert contract(text)["SEEN_IDS"].split("|")[1] == sid  # CLAUDE_CODE_SESSION_ID
        check_session(repo, text, sid, json.dumps(calls[0]))
        ended(tmp_path, {"SessionEnd"})
