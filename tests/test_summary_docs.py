"""Every sample of docs/summary.md, run as printed.

Each ``console`` block runs on a fresh copy of the demo project the tests build
(``test_summary_output.build_demo``), its commands in order, in the project's folder with
the demo's home as ``HOME``; what it prints (stdout and stderr, as a terminal shows them)
is the block's text, byte for byte, up to a closing ``...`` line where the sample stops
early. The settings sample is parsed and its command run as Claude Code would; the
left-out line is the one the big project of ``test_summary_output`` gets.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from helpers import BIN
from test_summary_output import DEMO_SESSION, _big_project, build_demo

from lets_hooks.summary import build_summary
from lets_hooks.summary.render import render_markdown

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "summary.md").read_text()


def fenced(language: str) -> list[str]:
    """The page's fenced blocks of three backticks in ``language`` ("": none named), each
    with its lines (a fence of four, which may hold a block of three, is shown, not run)."""
    found = []
    lines = PAGE.split("\n")
    index = 0
    while index < len(lines):
        opening = re.match(r"(`{3,})([^`]*)$", lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group(1)
        end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == fence)
        if len(fence) == 3 and opening.group(2) == language:
            found.append("".join(line + "\n" for line in lines[index + 1:end]))
        index = end + 1
    return found


CONSOLE = fenced("console")


def steps(block: str) -> list[tuple[str, list[str]]]:
    """(command, the lines it prints) for each ``$`` line of a block (a ``\\`` at a line's
    end continues the command)."""
    found: list[tuple[str, list[str]]] = []
    lines = block.rstrip("\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        assert line.startswith("$ "), line
        command = line[2:]
        while command.endswith("\\"):
            index += 1
            command = command[:-1] + lines[index].strip()
        index += 1
        printed: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            printed.append(lines[index])
            index += 1
        found.append((command, printed))
    return found


def test_every_console_sample_is_found() -> None:
    assert len(CONSOLE) >= 4
    assert sum(len(steps(block)) for block in CONSOLE) >= 8


@pytest.mark.parametrize("number", range(len(CONSOLE)))
def test_console_sample_runs_as_printed(tmp_path: Path, number: int) -> None:
    project, home = build_demo(tmp_path)
    env = {key: value for key, value in os.environ.items()
           if key not in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CLAUDE_ENV_FILE")}
    env.update(PATH=f"{BIN}{os.pathsep}{env['PATH']}", HOME=str(home))
    block = CONSOLE[number]
    if "--claude-hook" not in block:  # the hook sample gives its session id on stdin
        env["LETS_SESSION_ID"] = DEMO_SESSION
    for command, printed in steps(block):
        command = (command.replace("/tmp/demo/project", str(project))
                   .replace("/tmp/demo/nohome", str(tmp_path / "nohome")))
        done = subprocess.run(["/bin/sh", "-c", f"{{ {command}\n}} 2>&1"], cwd=project, env=env,
                              capture_output=True, text=True, check=False, timeout=120)
        if printed and printed[-1] == "...":
            expected = "\n".join(printed[:-1]) + "\n"
            assert done.stdout.startswith(expected), (command, done.stdout)
        else:
            assert done.stdout == "".join(line + "\n" for line in printed), command


def test_the_settings_sample_runs_as_claude_code_runs_it(tmp_path: Path) -> None:
    [settings] = [block for block in fenced("json") if '"SessionStart"' in block]
    [entry] = json.loads(settings)["hooks"]["SessionStart"]
    [hook] = entry["hooks"]
    project, home = build_demo(tmp_path)
    env = {key: value for key, value in os.environ.items() if key != "LETS_SESSION_ID"}
    env.update(PATH=f"{BIN}{os.pathsep}{env['PATH']}", HOME=str(home))
    stdin = json.dumps({"session_id": "docs-sample", "cwd": str(project),
                        "hook_event_name": "SessionStart", "source": "startup"})
    done = subprocess.run(["/bin/sh", "-c", hook["command"]], cwd=project, env=env,
                          input=stdin, capture_output=True, text=True, check=False,
                          timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("## Session Ready\n")
    env["PATH"] = str(tmp_path / "no-such-folder") + os.pathsep + "/usr/bin:/bin"
    without = subprocess.run(["/bin/sh", "-c", hook["command"]], cwd=project, env=env,
                             input=stdin, capture_output=True, text=True, check=False)
    assert (without.returncode, without.stdout) == (0, "")  # not installed: nothing


def test_the_left_out_sample_is_what_the_big_project_gets(tmp_path: Path) -> None:
    [sample] = [block for block in fenced("") if block.startswith("[Left out to fit")]
    project, home = _big_project(tmp_path)
    block = render_markdown(build_summary(project, home, dt.date(2026, 11, 29)))
    assert block.splitlines()[-1] + "\n" == sample
