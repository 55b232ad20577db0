"""``lets-session-start --claude-hook`` whatever arrives on stdin: exit 0, at most one line
on stderr, and on stdout the summary for input the agent sent (and for input that is not
UTF-8 text, which cannot be read at all), nothing for input that is not its JSON object
or names no session's id (nothing the agent would take as context);
and ``$CLAUDE_ENV_FILE`` gets the session id when the environment lacks it (older Claude
Code), shell-quoted, and the git environment of the agents' hooks folder, each once, on a
line of its own."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, CLAUDE_SID, Sandbox
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lets_hooks import state
from lets_hooks.cli.agent import INPUT_LIMIT as HOOK_INPUT_LIMIT
from lets_hooks.cli.summary import session_start_main


def hook(box: Sandbox, stdin: bytes, env: dict[str, str] | None = None,
         *argv: str) -> subprocess.CompletedProcess[bytes]:
    full = {k: v for k, v in os.environ.items() if k != "CLAUDE_ENV_FILE"}
    full.update(env or {})
    return subprocess.run([str(BIN / "lets-session-start"), "--claude-hook", "--today",
                           "2026-11-29", *argv], cwd=box.path, env=full, input=stdin,
                          capture_output=True, check=False, timeout=120)


def payload(**fields: object) -> bytes:
    return json.dumps(fields).encode()


def assert_survived(done: subprocess.CompletedProcess[bytes], context: bool = True) -> None:
    """Exit 0, at most one line on stderr, and the summary on stdout (``context``) or
    nothing at all."""
    assert done.returncode == 0
    if context:
        assert done.stdout.startswith(b"## Session Ready\n")
    else:
        assert done.stdout == b""
    assert b"Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) <= 1, done.stderr


def recorded(box: Sandbox) -> bytes | None:
    path = box.path / ".lets" / "sessions" / ".task-main"
    return state.find_session_line(path.read_bytes()) if path.exists() else None


# -- malformed input ------------------------------------------------------------------------


STRICT = {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"}


@pytest.mark.parametrize(("stdin", "said", "context"), [
    (b'{"session_id": "s1", "cwd": "/tmp\\u0000x", "source": "startup"}',
     b"the hook input's cwd '/tmp\\x00x' is not a folder here; the current folder is used",
     True),
    (b'{"session_id": "s\xff1", "cwd": ".", "source": "startup"}',
     b"hook input on stdin is not UTF-8 text; nothing recorded", True),
    (b"\xff\xfe\x00", b"hook input on stdin is not UTF-8 text; nothing recorded", True),
    (b"session_id=s1", b"hook input on stdin is not valid JSON; nothing recorded", False),
    (b"[" * 100_000, b"hook input on stdin is not valid JSON; nothing recorded", False),
    (b'"startup"', b"hook input on stdin is not a JSON object; nothing recorded", False),
    (b"{}", b"", True),
    (b'{"source": "startup"}', b"the hook input has no session_id; nothing recorded", True),
    (b'{"session_id": 7, "source": "startup"}',
     b"the hook input's session_id is not a string; nothing recorded", False),
    (b'{"session_id": "s1", "cwd": ["/"], "source": "startup"}',
     b"the hook input's cwd is not a string; nothing recorded", False),
    (b'{"session_id": "s1", "source": {"a": 1}}',
     b"the hook input's source is not a string; nothing recorded", False),
    (b'{"session_id": "s 1", "source": "startup"}',
     b"the hook input's session_id 's 1' is not printable text (blanks, control and "
     b"invisible format characters are not allowed in it); nothing recorded", False),
    (b'{"session_id": "s1\\nsession: 0000", "source": "startup"}',
     b"the hook input's session_id 's1\\nsession: 0000' is not printable text (blanks, "
     b"control and invisible format characters are not allowed in it); nothing recorded",
     False),
    (b'{"session_id": "s1", "cwd": "relative/path", "source": "startup"}',
     b"the hook input's cwd 'relative/path' is not a folder here; the current folder is "
     b"used", True),
])
def test_malformed_input_costs_one_line(sandbox: Sandbox, stdin: bytes, said: bytes,
                                        context: bool) -> None:
    sandbox.commit("recent")
    done = hook(sandbox, stdin, STRICT)
    assert_survived(done, context)
    expected = b"lets-session-start: " + said + b"\n" if said else b""
    assert done.stderr == expected
    if not context or b"not UTF-8" in said:
        assert recorded(sandbox) is None


def test_huge_input_is_not_read_whole(sandbox: Sandbox) -> None:
    body = b'{"session_id": "s1", "pad": "' + b"x" * (HOOK_INPUT_LIMIT * 3) + b'"}'
    done = hook(sandbox, body)
    assert_survived(done, context=False)
    assert done.stderr == b"lets-session-start: hook input on stdin is over 1024 KiB; " \
                          b"nothing recorded\n"
    assert recorded(sandbox) is None


@pytest.mark.parametrize(("argv", "said"), [
    (("--no-such-option",), b"lets-session-start: error: unrecognized arguments:"
                            b" --no-such-option\n"),
    (("--agent-hook", "nosuch"), b"lets-session-start: error: argument --agent-hook: invalid"
                                 b" choice: 'nosuch' (choose from 'claude', 'codex',"
                                 b" 'gemini')\n"),
    (("--budget",), b"lets-session-start: error: argument --budget: expected one argument\n"),
])
def test_a_usage_error_of_the_hook_is_one_line_and_exit_0(sandbox: Sandbox,
                                                          argv: tuple[str, ...], said: bytes
                                                          ) -> None:
    """SPEC section 6: the hook always exits 0 (an option a newer plugin passes to an older
    command stops no agent); the command run by hand still says exit 2."""
    done = hook(sandbox, payload(session_id="s1", source="startup"), None, *argv)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", said)
    assert recorded(sandbox) is None
    by_hand = subprocess.run([str(BIN / "lets-session-start"), "--no-such-option"],
                             cwd=sandbox.path, capture_output=True, check=False, timeout=120)
    assert by_hand.returncode == 2 and b"usage: lets-session-start" in by_hand.stderr


def test_a_cwd_with_a_nul_still_records_where_the_hook_runs(sandbox: Sandbox) -> None:
    head = sandbox.commit("recent")
    done = hook(sandbox, payload(session_id=CLAUDE_SID, cwd="/nowhere\x00", source="startup"))
    assert_survived(done)
    assert recorded(sandbox) == f"{head} {CLAUDE_SID}".encode()


# -- the fuzz --------------------------------------------------------------------------------


class _Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["startup", "clear", "resume", "compact", CLAUDE_SID, "/", ".", "/tmp\x00", "\u202e", ""])
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6)
OBJECTS = st.fixed_dictionaries({}, optional={"session_id": VALUES, "cwd": VALUES,
                                              "source": VALUES, "hook_event_name": VALUES})
INPUTS = (st.binary(max_size=200)
          | OBJECTS.map(lambda d: json.dumps(d).encode())
          | st.tuples(OBJECTS.map(json.dumps), st.binary(max_size=4), st.integers(0, 80))
          .map(lambda t: t[0].encode()[:t[2]] + t[1] + t[0].encode()[t[2]:]))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(raw=INPUTS)
def test_fuzz_whatever_arrives_exit_0_the_summary_or_nothing_one_line(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, raw: bytes) -> None:
    monkeypatch.chdir(sandbox.path)
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    monkeypatch.setattr("sys.stdin", _Stdin(io.BytesIO(raw), encoding="utf-8",
                                            errors="strict"))
    code = session_start_main(["--claude-hook", "--today", "2026-11-29"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out == "" or captured.out.startswith("## Session Ready\n")
    assert len(captured.err.splitlines()) <= 1, captured.err
    line = recorded(sandbox)
    if line is not None:  # whatever was recorded is a sha and one clean session id
        parts = state.tokens(line)
        assert parts[0] == sandbox.head().encode()
        assert len(parts) == 2 and state.sid_problem(parts[1].decode()) is None


# -- CLAUDE_ENV_FILE ----------------------------------------------------------------------------


def git_env(box: Sandbox) -> str:
    """The env file's line that points git at the agents' hooks folder (docs/agents.md)."""
    from lets_hooks import agents

    return agents.git_env(str(box.path / ".git" / "lets-hooks" / "agent-hooks"))


def sourced(env_file: Path) -> str:
    """What ``CLAUDE_CODE_SESSION_ID`` is after a shell sources the file."""
    done = subprocess.run(["/bin/sh", "-c", '. "$1"; printf %s "$CLAUDE_CODE_SESSION_ID"',
                           "sh", str(env_file)], capture_output=True, text=True, check=True,
                          env={"PATH": os.environ["PATH"]})
    return done.stdout


@pytest.mark.parametrize("sid", [CLAUDE_SID, "it's-$(touch${IFS}PWNED)-`id`-\"q\"-\\",
                                 "ünïcödé-42"])
def test_env_file_gets_the_id_when_the_environment_lacks_it(
        sandbox: Sandbox, tmp_path: Path, sid: str) -> None:
    sandbox.commit("recent")
    env_file = tmp_path / "session.env"
    env_file.write_text("export OTHER=1")  # no newline at the end: ours starts a new line
    done = hook(sandbox, payload(session_id=sid, cwd=str(sandbox.path), source="startup"),
                {"CLAUDE_ENV_FILE": str(env_file)})
    assert_survived(done)
    assert done.stderr == b""
    lines = env_file.read_text().splitlines()
    assert lines[0] == "export OTHER=1" and len(lines) == 3
    assert lines[1].startswith("export CLAUDE_CODE_SESSION_ID=")
    assert lines[2] == git_env(sandbox)
    assert sourced(env_file) == sid
    assert not (tmp_path / "PWNED").exists() and not (sandbox.path / "PWNED").exists()
    # and with it, the contract command run later in the session is exact
    env = {"CLAUDE_CODE_SESSION_ID": sourced(env_file)}
    assert sandbox.boundary(env=env)["SESSION_TRUST"] == "exact"


def test_env_file_is_written_once_and_on_resume_too(sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "session.env"
    for source in ("startup", "resume", "compact"):
        done = hook(sandbox, payload(session_id=CLAUDE_SID, source=source),
                    {"CLAUDE_ENV_FILE": str(env_file)})
        assert_survived(done)
    assert env_file.read_text() == \
        f"export CLAUDE_CODE_SESSION_ID={CLAUDE_SID}\n{git_env(sandbox)}\n"


def test_env_file_gets_only_the_git_environment_when_the_environment_has_the_id(
        sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "session.env"
    done = hook(sandbox, payload(session_id=CLAUDE_SID, source="startup"),
                {"CLAUDE_ENV_FILE": str(env_file), "CLAUDE_CODE_SESSION_ID": CLAUDE_SID})
    assert_survived(done)
    assert env_file.read_text() == git_env(sandbox) + "\n"


def test_a_new_id_after_clear_is_exported_over_the_old_one(
        sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "session.env"
    done = hook(sandbox, payload(session_id="after-clear", source="clear"),
                {"CLAUDE_ENV_FILE": str(env_file), "CLAUDE_CODE_SESSION_ID": CLAUDE_SID})
    assert_survived(done)
    assert sourced(env_file) == "after-clear"


@pytest.mark.parametrize("sid", ["a b", "a\nexport X=1", "\u200bzero-width", "x" * 201])
def test_env_file_never_gets_what_is_not_a_session_id(
        sandbox: Sandbox, tmp_path: Path, sid: str) -> None:
    env_file = tmp_path / "session.env"
    done = hook(sandbox, payload(session_id=sid, source="startup"),
                {"CLAUDE_ENV_FILE": str(env_file)})
    assert_survived(done, context=False)
    assert b"nothing recorded" in done.stderr
    assert not env_file.exists() and recorded(sandbox) is None


def test_an_env_file_that_cannot_be_written_is_one_line(
        sandbox: Sandbox, tmp_path: Path) -> None:
    env_file = tmp_path / "no-such-folder" / "session.env"
    done = hook(sandbox, payload(session_id=CLAUDE_SID, source="resume"),
                {"CLAUDE_ENV_FILE": str(env_file)})
    assert_survived(done)
    assert done.stderr.startswith(b"lets-session-start: CLAUDE_ENV_FILE: cannot write it (")


def test_env_file_over_a_mebibyte_without_a_final_newline_gets_a_line_of_its_own(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """A large env file another program wrote: the export starts on a line of its own, and
    every byte that was there stays as it was."""
    env_file = tmp_path / "session.env"
    held = b"".join(b"export V%d=%d\n" % (n, n) for n in range(90_000)) + b"export LAST=1"
    assert len(held) > HOOK_INPUT_LIMIT
    env_file.write_bytes(held)
    for _ in range(2):  # the second run finds it written already
        done = hook(sandbox, payload(session_id=CLAUDE_SID, source="startup"),
                    {"CLAUDE_ENV_FILE": str(env_file)})
        assert_survived(done)
    data = env_file.read_bytes()
    assert data == \
        held + f"\nexport CLAUDE_CODE_SESSION_ID={CLAUDE_SID}\n{git_env(sandbox)}\n".encode()
    assert sourced(env_file) == CLAUDE_SID
