"""Output streams: a closed stderr never costs the result on stdout, a reader that went
away ends the output quietly, and names that are not valid UTF-8 are printed escaped.
Every console script, run as a user would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID, Sandbox

COMMANDS = [
    ["lets-session-boundary"],
    ["lets-session-boundary", "--json"],
    ["lets-hooks", "status"],
    ["lets-hooks", "status", "--json"],
    ["lets-hooks", "lint"],
    ["lets-hooks", "record"],
    ["lets-session-start", "--today", "2026-11-29"],
    ["lets-observability", "model-tag-count"],
]


@pytest.fixture
def noisy(sandbox: Sandbox, tmp_path: Path) -> Sandbox:
    """A repository where every command has something to say on both streams: a rejected
    boundary (NOTEs), lint findings, a malformed memory file."""
    sandbox.commit("tip", age_days=1)
    sandbox.write_task("main", "session: not-a-sha\n")
    (sandbox.path / ".lets" / "sessions" / ".session-start-ref").write_text("x\n")
    (sandbox.path / "memory").mkdir()
    (sandbox.path / "memory" / "context-log.md").write_text("## not a header\n")
    return sandbox


def run(box: Sandbox, argv: list[str], shell_suffix: str,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    line = " ".join(f"'{BIN / argv[0]}'" if i == 0 else f"'{a}'" for i, a in enumerate(argv))
    full = dict(os.environ, LETS_SESSION_ID=SID, **(env or {}))
    return subprocess.run(["sh", "-c", line + " " + shell_suffix], cwd=box.path, env=full,
                          capture_output=True, check=False, timeout=60)


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_closed_stderr_costs_nothing_on_stdout(noisy: Sandbox, argv: list[str]) -> None:
    with_err = run(noisy, argv, "")
    without = run(noisy, argv, "2>&-")
    if argv[0] == "lets-session-boundary":
        assert with_err.stderr, "nothing said on stderr: this test would check nothing"
    assert without.returncode == with_err.returncode, without
    if argv[0] != "lets-hooks" or argv[1] != "record":  # record writes a new time each run
        assert without.stdout == with_err.stdout
    if argv == ["lets-session-boundary"]:
        assert len(without.stdout.splitlines()) == 4


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_reader_that_went_away_ends_the_output_quietly(noisy: Sandbox,
                                                         argv: list[str]) -> None:
    full = dict(os.environ, LETS_SESSION_ID=SID)
    proc = subprocess.Popen([str(BIN / argv[0]), *argv[1:]], cwd=noisy.path, env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes a byte: every write meets a broken pipe
    err = proc.stderr.read()
    code = proc.wait(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err
    assert b"internal error" not in err, err
    assert code in (0, 1), err


def test_a_branch_name_that_is_not_utf8_is_printed_escaped(sandbox: Sandbox) -> None:
    head = sandbox.head()
    name = b"caf\xe9-\xff"
    subprocess.run([b"git", b"update-ref", b"refs/heads/" + name, head.encode()],
                   cwd=sandbox.path, check=True)
    env = {"PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
    for argv in (["lets-hooks", "status"], ["lets-hooks", "status", "--json"]):
        done = run(sandbox, argv, "", env)
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr
        assert b"caf\\xe9-\\xff" in done.stdout.replace(b"\\\\", b"\\"), done.stdout
    subprocess.run([b"git", b"symbolic-ref", b"HEAD", b"refs/heads/" + name],
                   cwd=sandbox.path, check=True)
    done = run(sandbox, ["lets-hooks", "record", "--sid", SID], "", env)
    assert done.returncode == 0, done.stderr
    assert b"caf\\xe9-\\xff" in done.stderr, done.stderr  # the four lines on stdout


def test_the_contract_reaches_a_file_whole(noisy: Sandbox, tmp_path: Path) -> None:
    """The contract command leaves its process without the interpreter's teardown: what it
    printed is out first. Into regular files (block-buffered, not a pipe) both streams
    are there in full, byte for byte what a pipe gets; onto a full disk (``/dev/full``)
    it still exits 0 and says nothing of it."""
    command = f"'{BIN / 'lets-session-boundary'}'"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as users run it
    env["LETS_SESSION_ID"] = SID

    def shell(suffix: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["sh", "-c", f"{command} {suffix}"], cwd=noisy.path, env=env,
                              capture_output=True, check=False, timeout=60)

    piped = shell("")
    out, err = tmp_path / "out", tmp_path / "err"
    done = shell(f"> '{out}' 2> '{err}'")
    assert done.returncode == 0 and piped.returncode == 0
    assert out.read_bytes() == piped.stdout and len(piped.stdout.splitlines()) == 4
    assert err.read_bytes() == piped.stderr and piped.stderr.startswith(b"NOTE: ")
    if Path("/dev/full").exists():
        full = shell("> /dev/full")
        assert full.returncode == 0, full.stderr
        assert b"Traceback" not in full.stderr and b"Exception" not in full.stderr
