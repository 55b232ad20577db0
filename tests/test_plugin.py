"""The Claude Code plugin in ``claude-plugin/``: its files have the documented shape, its
SessionStart hook runs ``lets-session-start --claude-hook``, and the hook (and the settings
snippet in docs/summary.md) is harmless where lets-hooks is not installed.

The shape checked here is Claude Code's plugin format: ``.claude-plugin/plugin.json`` (a
JSON object whose only required field is a kebab-case ``name``; ``version``, ``description``,
``author`` object, ``license``, ``keywords`` optional; components live at the plugin root,
not inside ``.claude-plugin/``), ``hooks/hooks.json`` (loaded by convention, so the manifest
must not name it again: ``{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command",
"command", "timeout"?}]}]}}``), and ``skills/<name>/SKILL.md`` (YAML frontmatter with
``name``, lowercase letters, digits and hyphens, at most 64, equal to its folder's name, and
``description``, at most 1024 characters).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import BIN, Sandbox

import lets_hooks

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "claude-plugin"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MANIFEST_KEYS = {"name", "version", "description", "author", "homepage", "repository",
                 "license", "keywords", "commands", "agents", "skills", "hooks",
                 "mcpServers", "outputStyles", "lspServers"}
HOOK_EVENTS = {"PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop",
               "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"}
SESSION_START_SOURCES = {"startup", "resume", "clear", "compact"}
SID = "9b2f0c4e-1111-4a5b-8c9d-0e1f2a3b4c5d"


def load(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict), path
    return data


def frontmatter(path: Path) -> tuple[dict[str, object], str]:
    text = path.read_text()
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, flags=re.S)
    assert match, f"{path}: no YAML frontmatter"
    meta = yaml.safe_load(match.group(1))
    assert isinstance(meta, dict)
    return meta, match.group(2)


# -- the files ----------------------------------------------------------------------------


def test_manifest_has_the_documented_shape() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert set(manifest) <= MANIFEST_KEYS, set(manifest) - MANIFEST_KEYS
    name = manifest["name"]
    assert isinstance(name, str) and KEBAB.fullmatch(name)
    assert manifest["version"] == lets_hooks.__version__  # released together
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(manifest["version"]))
    assert isinstance(manifest["description"], str) and manifest["description"]
    author = manifest["author"]
    assert isinstance(author, dict) and isinstance(author.get("name"), str)
    keywords = manifest["keywords"]
    assert isinstance(keywords, list) and all(isinstance(k, str) for k in keywords)
    # hooks/hooks.json is loaded by convention; naming it again loads it twice
    assert "hooks" not in manifest
    # the components live at the plugin root, never inside .claude-plugin/
    inside = sorted(p.name for p in (PLUGIN / ".claude-plugin").iterdir())
    assert inside == ["marketplace.json", "plugin.json"]


def test_the_folder_is_its_own_one_plugin_marketplace() -> None:
    market = load(PLUGIN / ".claude-plugin" / "marketplace.json")
    assert isinstance(market["name"], str) and KEBAB.fullmatch(market["name"])
    owner = market["owner"]
    assert isinstance(owner, dict) and isinstance(owner.get("name"), str)
    plugins = market["plugins"]
    assert isinstance(plugins, list) and len(plugins) == 1
    entry = plugins[0]
    assert entry["name"] == load(PLUGIN / ".claude-plugin" / "plugin.json")["name"]
    assert entry["source"] == "./"


def session_start_commands(config: dict[str, object]) -> list[dict[str, object]]:
    """Every command hook of a hooks configuration, checked against the format."""
    hooks = config["hooks"]
    assert isinstance(hooks, dict) and set(hooks) <= HOOK_EVENTS
    found: list[dict[str, object]] = []
    for event, groups in hooks.items():
        assert isinstance(groups, list) and groups
        for group in groups:
            assert isinstance(group, dict) and set(group) <= {"matcher", "hooks"}
            if event == "SessionStart" and "matcher" in group:
                matcher = group["matcher"]
                assert isinstance(matcher, str)
                assert set(matcher.split("|")) <= SESSION_START_SOURCES
            entries = group["hooks"]
            assert isinstance(entries, list) and entries
            for entry in entries:
                assert isinstance(entry, dict)
                assert set(entry) <= {"type", "command", "timeout"}
                assert entry["type"] == "command" and isinstance(entry["command"], str)
                timeout = entry.get("timeout", 60)
                assert isinstance(timeout, int) and 0 < timeout <= 600
                if event == "SessionStart":
                    found.append(entry)
    return found


def test_hooks_file_runs_the_summary_at_session_start() -> None:
    config = load(PLUGIN / "hooks" / "hooks.json")
    assert set(config) <= {"description", "hooks"}
    commands = session_start_commands(config)
    assert len(commands) == 1
    assert "lets-session-start --claude-hook" in str(commands[0]["command"])
    groups = config["hooks"]
    assert isinstance(groups, dict)
    assert groups["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"


def test_skill_has_the_documented_frontmatter_and_procedure() -> None:
    skills = sorted((PLUGIN / "skills").iterdir())
    assert [s.name for s in skills] == ["session-boundary"]
    meta, body = frontmatter(skills[0] / "SKILL.md")
    name, description = meta["name"], meta["description"]
    assert name == "session-boundary"
    assert isinstance(name, str) and KEBAB.fullmatch(name) and len(name) <= 64
    assert isinstance(description, str) and 0 < len(description) <= 1024
    assert "lets-session-boundary" in description
    assert "```sh\n   lets-session-boundary\n   ```" in body  # the one command it runs
    for key in ("SESSION_BOUNDARY=", "SESSION_TRUST=", "SESSION_COMMITS=",
                "SESSION_RANGE_DESC="):
        assert key in body
    for trust in ("exact", "prior-session", "estimate", "none"):
        assert f"| `{trust}` |" in body


# -- the hook, run as Claude Code runs it ---------------------------------------------------


def docs_settings_commands() -> list[str]:
    """The SessionStart commands of the settings snippet in docs/summary.md."""
    text = (ROOT / "docs" / "summary.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    configs = [json.loads(b) for b in blocks if '"SessionStart"' in b]
    assert len(configs) == 1
    return [str(c["command"]) for c in session_start_commands(configs[0])]


def all_commands() -> list[str]:
    plugin = session_start_commands(load(PLUGIN / "hooks" / "hooks.json"))
    return [str(c["command"]) for c in plugin] + docs_settings_commands()


def bare_path(tmp_path: Path) -> str:
    """A PATH with a shell and git but no lets-hooks."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for tool in ("git", "sh"):
        found = shutil.which(tool)
        assert found
        target = folder / tool
        if not target.exists():
            target.symlink_to(found)
    return str(folder)


def run_hook(command: str, cwd: Path, path: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_ENV_FILE"}
    env["PATH"] = path
    return subprocess.run(["/bin/sh", "-c", command], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.parametrize("which", ["plugin", "docs"])
def test_without_lets_hooks_installed_the_hook_does_nothing(
        sandbox: Sandbox, tmp_path: Path, which: str) -> None:
    command = all_commands()[0 if which == "plugin" else 1]
    payload = json.dumps({"session_id": SID, "cwd": str(sandbox.path), "source": "startup",
                          "hook_event_name": "SessionStart"})
    done = run_hook(command, sandbox.path, bare_path(tmp_path), payload)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not (sandbox.path / ".lets").exists()


@pytest.mark.parametrize("which", ["plugin", "docs"])
def test_with_lets_hooks_installed_the_hook_records_and_prints_the_summary(
        sandbox: Sandbox, tmp_path: Path, which: str) -> None:
    head = sandbox.commit("recent")
    command = all_commands()[0 if which == "plugin" else 1]
    payload = json.dumps({"session_id": SID, "cwd": str(sandbox.path), "source": "startup",
                          "hook_event_name": "SessionStart"})
    done = run_hook(command, sandbox.path, f"{BIN}:{bare_path(tmp_path)}", payload)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "## Session Ready"
    assert lines[2] == f"**Session range:** session: {head}..HEAD (0 commits)"
    task = (sandbox.path / ".lets" / "sessions" / ".task-main").read_text()
    assert f"session: {head} {SID}\n" in task


def test_a_broken_install_costs_one_line_at_most(sandbox: Sandbox, tmp_path: Path) -> None:
    """A ``lets-session-start`` whose interpreter is gone (a venv rebuilt elsewhere): the
    shell's one complaint, and the session still starts."""
    folder = tmp_path / "broken"
    folder.mkdir()
    script = folder / "lets-session-start"
    script.write_text("#!/nonexistent/python\n")
    script.chmod(0o755)
    for command in all_commands():
        done = run_hook(command, sandbox.path, f"{folder}:{bare_path(tmp_path)}", "{}")
        assert done.returncode == 0 and done.stdout == ""
        assert len(done.stderr.splitlines()) <= 1
