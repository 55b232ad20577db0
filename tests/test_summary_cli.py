"""``lets-session-start`` as a command: options, the session-range line from the ladder,
the default root, and ``--claude-hook`` in real git repositories."""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers import BIN, Sandbox, resolve_path

from lets_hooks.cli.summary import find_top, parse_hook_input, session_start_main

HANDOFF = "memory/session-handoff-LATEST.md"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = session_start_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         payload: object, *argv: str) -> tuple[int, str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    return run(capsys, "--claude-hook", "--today", "2026-11-29", *argv)


def task_line(box: Sandbox, branch: str = "main") -> str | None:
    path = box.path / ".lets" / "sessions" / f".task-{branch}"
    if not path.exists():
        return None
    return next((line for line in path.read_text().splitlines()
                 if line.startswith("session: ")), None)


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("today", ["29/11/2026", "2026-W48-7", "20261129", "2026-02-30"])
def test_bad_today_is_a_usage_error(capsys: pytest.CaptureFixture[str], today: str) -> None:
    with pytest.raises(SystemExit) as stop:
        session_start_main(["--today", today])
    assert stop.value.code == 2
    assert f"not a YYYY-MM-DD date: '{today}'" in capsys.readouterr().err


def test_no_colour_and_no_escape_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / HANDOFF).write_text("## Next\n- one\n")
    code, out, err = run(capsys, "--root", str(tmp_path), "--home", str(tmp_path / "h"),
                         "--today", "2026-11-29")
    assert code == 0 and "\x1b" not in out + err


def test_find_top_walks_up_to_the_git_entry(tmp_path: Path) -> None:
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    (tmp_path / "repo" / ".git").write_text("gitdir: elsewhere\n")  # a linked worktree
    assert find_top(tmp_path / "repo" / "a" / "b") == tmp_path / "repo"
    assert find_top(tmp_path / "plain") == tmp_path / "plain"


def test_default_root_is_the_repository_top(sandbox: Sandbox, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (sandbox.path / "memory").mkdir()
    (sandbox.path / HANDOFF).write_text("## Next steps\n- from the top level\n")
    (sandbox.path / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(sandbox.path / "deep" / "er")
    code, out, _ = run(capsys, "--home", str(tmp_path / "nohome"), "--today", "2026-11-29")
    assert code == 0 and "**Priority 1:** from the top level" in out.splitlines()


def test_session_range_line_is_the_ladders_description(
        sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:

    start = sandbox.commit("recent")  # the root commit is older than max_age_days
    sandbox.commit("one", sid="sid-1")
    sandbox.commit("two", sid="sid-1")
    sandbox.write_task("main", f"task: x\nsession: {start} sid-1\n")
    monkeypatch.setenv("LETS_SESSION_ID", "sid-1")
    code, out, _ = run(capsys, "--root", str(sandbox.path), "--home", str(tmp_path / "h"),
                       "--today", "2026-11-29", "--json")
    expected = resolve_path(str(sandbox.path), os.environ, time.time()).desc
    assert expected == f"session: {start}..HEAD (2 commits)"
    assert (code, json.loads(out)["session_range"]) == (0, expected)
    _, block, _ = run(capsys, "--root", str(sandbox.path), "--home", str(tmp_path / "h"),
                      "--today", "2026-11-29")
    assert block.splitlines()[2] == f"**Session range:** {expected}"


# --------------------------------------------------------------------------- --claude-hook


@pytest.mark.parametrize("source", ["startup", "clear"])
def test_hook_records_the_session_on_startup_and_clear(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    head = sandbox.commit("recent")  # the root commit is older than max_age_days
    code, out, err = hook(capsys, monkeypatch, {
        "session_id": "3f2a9c1e-0000-4000-8000-000000000001", "cwd": str(sandbox.path),
        "source": source, "hook_event_name": "SessionStart"})
    assert (code, err) == (0, "")
    assert task_line(sandbox) == f"session: {head} 3f2a9c1e-0000-4000-8000-000000000001"
    lines = out.splitlines()
    assert lines[0] == "## Session Ready"
    assert lines[2] == f"**Session range:** session: {head}..HEAD (0 commits)"
    assert "[No handoff — starting fresh]" in lines


@pytest.mark.parametrize("source", ["resume", "compact"])
def test_hook_records_on_resume_or_compact_by_the_one_rule(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """A resumed or compacted session records by the rule every start follows: its own
    line is kept, and a branch with none (or another session's) gets this session's."""
    code, out, err = hook(capsys, monkeypatch, {
        "session_id": "abc", "cwd": str(sandbox.path), "source": source})
    assert (code, err) == (0, "")
    assert task_line(sandbox) == f"session: {sandbox.head()} abc"
    assert out.startswith("## Session Ready\n")
    code, _, _ = hook(capsys, monkeypatch, {
        "session_id": "abc", "cwd": str(sandbox.path), "source": source})
    assert code == 0 and task_line(sandbox) == f"session: {sandbox.head()} abc"


def test_clear_starts_a_new_session_over_an_older_one(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    old = sandbox.commit("recent")
    sandbox.write_task("main", f"task: keep me\nsession: {old} older-session\n")
    new = sandbox.commit("work of the older session")
    code, out, _ = hook(capsys, monkeypatch, {
        "session_id": "newer-session", "cwd": str(sandbox.path), "source": "clear"})
    assert code == 0
    assert task_line(sandbox) == f"session: {new} newer-session"
    task = (sandbox.path / ".lets" / "sessions" / ".task-main").read_text()
    assert task.startswith("task: keep me\n")
    assert f"**Session range:** session: {new}..HEAD (0 commits)" in out.splitlines()


def test_resume_keeps_the_range_of_the_running_session(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    start = sandbox.commit("recent")
    sandbox.write_task("main", f"session: {start} sess-7\n")
    sandbox.commit("did some work", sid="sess-7")
    _, out, _ = hook(capsys, monkeypatch, {
        "session_id": "sess-7", "cwd": str(sandbox.path), "source": "resume"})
    assert task_line(sandbox) == f"session: {start} sess-7"
    assert f"**Session range:** session: {start}..HEAD (1 commits)" in out.splitlines()


def test_hook_session_id_is_exact_whatever_session_id_env_says(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's own id is the current session, even with a custom ``session_id_env``."""
    start = sandbox.commit("recent")
    (sandbox.path / ".lets").mkdir(exist_ok=True)
    (sandbox.path / ".lets" / "config.toml").write_text('session_id_env = ["MY_TOOL_SID"]\n')
    sandbox.write_task("main", f"session: {start} sess-9\n")
    monkeypatch.setenv("MY_TOOL_SID", "someone-else")
    _, out, _ = hook(capsys, monkeypatch, {
        "session_id": "sess-9", "cwd": str(sandbox.path), "source": "resume"})
    assert f"**Session range:** session: {start}..HEAD (0 commits)" in out.splitlines()


def test_hook_root_comes_from_the_hook_cwd(
        sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (sandbox.path / "memory").mkdir()
    (sandbox.path / HANDOFF).write_text("## Next\n- hooked\n")
    (sandbox.path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    _, out, _ = hook(capsys, monkeypatch, {
        "session_id": "s", "cwd": str(sandbox.path / "sub"), "source": "startup"},
        "--home", str(tmp_path / "h"))
    assert "**Priority 1:** hooked" in out.splitlines()
    assert task_line(sandbox) is not None


@pytest.mark.parametrize(("payload", "problem"), [
    ("", "no hook input on stdin"),
    ("{not json", "hook input on stdin is not valid JSON"),
    ("[1, 2]", "hook input on stdin is not a JSON object"),
])
def test_bad_hook_input_gives_the_agent_no_context(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, payload: str, problem: str) -> None:
    code, out, err = hook(capsys, monkeypatch, payload, "--root", str(tmp_path))
    assert code == 0
    assert err == f"lets-session-start: {problem}; nothing recorded\n"
    assert out == ""  # what is not the agent's input gets nothing the agent would read


def test_hook_without_session_id_records_nothing(
        sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = hook(capsys, monkeypatch, {"cwd": str(sandbox.path), "source": "startup"})
    assert code == 0 and task_line(sandbox) is None
    assert err == "lets-session-start: the hook input has no session_id; nothing recorded\n"


def test_hook_never_fails_even_when_promotion_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_bytes(b"\xff")
    (tmp_path / "memory" / "context-log.md").write_text("## [2026-11-01][N][ttl:1d][ref:3] x\n")
    code, _, err = hook(capsys, monkeypatch, {"source": "resume"}, "--root", str(tmp_path),
                        "--promote")
    assert code == 0 and "nothing written" in err


def test_parse_hook_input_fields() -> None:
    parsed, problem = parse_hook_input(json.dumps(
        {"session_id": " s1 ", "cwd": "/x", "source": "startup", "model": {"id": "m"}}).encode())
    assert problem is None
    assert (parsed.session_id, parsed.cwd, parsed.source) == ("s1", "/x", "startup")
    odd, _ = parse_hook_input(json.dumps({"session_id": 5, "cwd": None, "source": ""}).encode())
    assert (odd.session_id, odd.cwd, odd.source) == (None, None, None)


def test_installed_command_runs_as_a_hook(sandbox: Sandbox) -> None:
    sandbox.commit("recent")
    done = sandbox.run("lets-session-start", "--claude-hook", "--today", "2026-11-29",
                       stdin=json.dumps({"session_id": "cli-1", "cwd": str(sandbox.path),
                                         "source": "startup"}))
    assert (done.returncode, done.stderr) == (0, "")
    assert task_line(sandbox) == f"session: {sandbox.head()} cli-1"
    assert done.stdout.startswith("## Session Ready\n\n**Session range:** session: ")


def test_a_reader_that_stops_early_is_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_text("# M\n" + "- a fact worth keeping\n" * 20000)
    reader = subprocess.Popen(
        [str(BIN / "lets-session-start"), "--root", str(tmp_path), "--today", "2026-11-29"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.readline() == b"## Session Ready\n"
    reader.stdout.close()
    assert (reader.wait(timeout=60), reader.stderr.read()) == (0, b"")
    reader.stderr.close()


def test_a_closed_stderr_never_costs_the_summary(tmp_path: Path) -> None:
    """``2>&-``: the promotion's report and the warnings have nowhere to go; the summary
    (and the counters) still reach stdout, with the status the command chose."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_text("# M\n")
    (tmp_path / "memory" / "context-log.md").write_text("## [2026-11-01][N][ttl:1d][ref:3] x\n")
    home = tmp_path / "home"
    (home / ".claude" / ".harness" / "interventions").mkdir(parents=True)
    (home / ".claude" / ".harness" / "interventions" / "a.jsonl").write_text("not json\n")
    for argv, first in (
            (["lets-session-start", "--root", str(tmp_path), "--home", str(home), "--today",
              "2026-11-29", "--promote"], "## Session Ready"),
            (["lets-observability", "--home", str(home), "model-tag-count"], "count=0")):
        done = subprocess.run([str(BIN / argv[0]), *argv[1:]], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, check=False, timeout=60,
                              pass_fds=(), preexec_fn=lambda: os.close(2))
        assert (done.returncode, done.stdout.decode().splitlines()[0]) == (0, first)
    assert "x (ref:3)" in (tmp_path / "memory" / "MEMORY.md").read_text()
