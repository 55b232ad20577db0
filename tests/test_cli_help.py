"""Every command's ``--version`` and ``--help``: what help says matches the parser; and
no message says the same phrase twice."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, SID
from hookbox import make, with_remote

from lets_hooks import __version__
from lets_hooks.cli import hooks as cli

SCRIPTS = ("lets-session-boundary", "lets-hooks", "lets-session-start", "lets-observability")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True,
                          check=False, cwd=cwd, timeout=60)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_console_script_has_version(script: str) -> None:
    done = run(script, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{script} {__version__}\n"


@pytest.mark.parametrize("command", ["model-tag-count", "rejection-rate"])
def test_every_lets_observability_command_has_version(command: str) -> None:
    """SPEC section 4: every command takes --version (it was a usage error, exit 2)."""
    done = run("lets-observability", command, "--version")
    assert (done.returncode, done.stdout) == (0, f"lets-observability {__version__}\n")


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_lets_hooks_command_has_version_and_help(command: str, tmp_path: Path) -> None:
    done = run("lets-hooks", command, "--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"lets-hooks {__version__}\n")
    done = run("lets-hooks", command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli.parser_of(command).format_help()
    assert done.stdout.startswith(f"usage: lets-hooks {command} ")


def test_install_help_names_every_hook_it_installs() -> None:
    """It said "the post-checkout, post-rewrite and pre-push hooks" while it installs six."""
    from lets_hooks.install import HOOKS

    done = run("lets-hooks", "--help")
    said = done.stdout.split("lets-hooks install ", 1)[1].split("lets-hooks uninstall", 1)[0]
    for hook in HOOKS:
        assert hook in said, (hook, said)


def test_a_hooks_help_does_not_run_the_hook(tmp_path: Path) -> None:
    box = make(tmp_path)
    done = box.run("lets-hooks", "post-checkout", "--help", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0 and "git's post-checkout hook" in done.stdout
    assert not (box.path / ".lets").exists()


def usages(text: str) -> dict[str, str]:
    """Command -> its usage line, as ``lets-hooks --help`` lists them."""
    found = {}
    for line in text.splitlines():
        if line.startswith("  lets-hooks "):
            found[line.split()[1]] = line.strip()
    return found


def test_lets_hooks_help_lists_each_command_as_its_parser_says() -> None:
    done = run("lets-hooks", "--help")
    assert done.returncode == 0
    listed = usages(done.stdout)
    assert list(listed) == list(cli.COMMANDS)
    for command, line in listed.items():
        parser = cli.parser_of(command)
        assert line == " ".join(parser.format_usage().split())[len("usage: "):]
        known = {option for action in parser._actions for option in action.option_strings}
        for option in re.findall(r"(--?[a-z][a-z-]*)", line.split(command, 1)[1]):
            assert option in known, (command, option)
    assert "--force" not in done.stdout  # once advertised, never implemented


def test_an_unknown_command_names_the_commands() -> None:
    done = run("lets-hooks", "instal")
    assert done.returncode == 2
    assert "unknown command 'instal'" in done.stderr and "uninstall" in done.stderr


def doubled(line: str, size: int = 4) -> str | None:
    """A run of ``size`` words said twice in one line, if any."""
    words = re.findall(r"[a-z][a-z'-]*", line.lower())
    seen = set()
    for i in range(len(words) - size + 1):
        phrase = " ".join(words[i:i + size])
        if phrase in seen:
            return phrase
        seen.add(phrase)
    return None


def test_no_message_says_a_phrase_twice(tmp_path: Path) -> None:
    box = with_remote(tmp_path)
    said: list[str] = []
    box.commit("main moves on")  # main: nothing recorded, no branch point to estimate
    box.sh("branch", "spike")  # never checked out: nothing recorded, an estimate
    box.commit("and on")
    said += box.sh("push", "origin", "spike", "main", check=False).stderr.splitlines()
    box.write_task("spike", "session: " + "d" * 40 + f" {SID}\n")
    said += box.sh("checkout", "-q", "main", sid=SID).stderr.splitlines()
    said += box.sh("checkout", "-q", "spike", sid=SID).stderr.splitlines()
    said += box.sh("push", "origin", "spike", sid=SID, check=False).stderr.splitlines()
    box.sh("checkout", "-q", "--detach", "main")
    said += box.sh("push", "origin", "HEAD:refs/heads/x", check=False).stderr.splitlines()
    said += box.run("lets-hooks", "doctor", env={"LETS_MERGE_BRANCH": "mian"}).stdout.split(
        "\n")
    said += box.run("lets-hooks", "install").stdout.splitlines()
    said += box.run("lets-hooks", "uninstall").stdout.splitlines()
    said += box.run("lets-hooks", "status").stdout.splitlines()
    assert any("no session boundary" in line or "no usable" in line for line in said)
    for line in said:
        assert doubled(line) is None, line
