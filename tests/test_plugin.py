"""The plugin folder Claude Code and Codex CLI both install (``agent-plugin/``, reached by
its old path ``claude-plugin/`` too) and the Gemini CLI extension (``gemini-extension/``):
their files have each agent's documented shape, their hooks run the lets-hooks commands,
and every hook is harmless where lets-hooks is not installed.

The shapes checked here are the agents' own (docs/agents.md says where each was read):

- Claude Code: ``.claude-plugin/plugin.json`` (a JSON object whose only required field is a
  kebab-case ``name``; components live at the plugin root, not inside
  ``.claude-plugin/``), ``hooks/hooks.json`` (loaded by convention, so the manifest must not
  name it again: ``{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command",
  "command", "timeout"?}]}]}}``), and ``skills/<name>/SKILL.md`` (YAML frontmatter with
  ``name``, lowercase letters, digits and hyphens, at most 64, equal to its folder's name,
  and ``description``, at most 1024 characters).
- Codex CLI: ``.codex-plugin/plugin.json`` (the same fields; ``skills`` and ``hooks`` name
  paths that start with ``./`` and stay inside the plugin; a ``hooks`` path replaces the
  default ``hooks/hooks.json``), the same hooks format with Codex's event names.
- Gemini CLI: ``gemini-extension.json`` (``name``, ``version``, ``description``; hooks are
  not named in it), ``hooks/hooks.json`` with Gemini's event names (timeouts in
  milliseconds), and ``skills/`` like the plugin's.
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
from helpers import BIN, CLAUDE_SID, Sandbox

import lets_hooks

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "agent-plugin"
OLD_PLUGIN = ROOT / "claude-plugin"
EXTENSION = ROOT / "gemini-extension"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MANIFEST_KEYS = {"name", "version", "description", "author", "homepage", "repository",
                 "license", "keywords", "commands", "agents", "skills", "hooks",
                 "mcpServers", "outputStyles", "lspServers"}
CODEX_MANIFEST_KEYS = MANIFEST_KEYS | {"interface", "apps"}
HOOK_EVENTS = {"PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop",
               "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"}
# Codex CLI 0.171.0's events (its binary's hook input schemas, one per event)
CODEX_EVENTS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact",
                "PostCompact", "SessionStart", "SessionEnd", "UserPromptSubmit",
                "SubagentStart", "SubagentStop", "Stop", "Interrupt"}
CODEX_SESSION_END_CAP = 3  # seconds: Codex clamps a longer SessionEnd timeout, and warns
GEMINI_EVENTS = {"BeforeTool", "AfterTool", "BeforeAgent", "Notification", "AfterAgent",
                 "SessionStart", "SessionEnd", "PreCompress", "BeforeModel", "AfterModel",
                 "BeforeToolSelection"}
SESSION_START_SOURCES = {"startup", "resume", "clear", "compact"}
SKILLS = ["session-boundary", "session-checkpoint"]
CHECKPOINT = "lets-session-checkpoint --hook"


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


def test_claude_manifest_has_the_documented_shape() -> None:
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


def test_codex_manifest_names_the_same_plugin_and_its_own_hooks() -> None:
    claude = load(PLUGIN / ".claude-plugin" / "plugin.json")
    codex = load(PLUGIN / ".codex-plugin" / "plugin.json")
    assert set(codex) <= CODEX_MANIFEST_KEYS, set(codex) - CODEX_MANIFEST_KEYS
    for key in ("name", "version", "description", "author", "license", "keywords"):
        assert codex[key] == claude[key], key
    assert sorted(p.name for p in (PLUGIN / ".codex-plugin").iterdir()) == ["plugin.json"]
    for key, kind in (("skills", "dir"), ("hooks", "file")):
        value = codex[key]
        assert isinstance(value, str) and value.startswith("./"), key
        target = (PLUGIN / value).resolve()
        assert target.is_relative_to(PLUGIN.resolve())
        assert target.is_dir() if kind == "dir" else target.is_file()
    assert codex["hooks"] == "./hooks/codex.json"  # Codex reads it in place of hooks.json


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


def test_the_old_install_path_is_the_same_folder() -> None:
    assert OLD_PLUGIN.is_symlink() and os.readlink(OLD_PLUGIN) == "agent-plugin"
    assert OLD_PLUGIN.resolve() == PLUGIN.resolve()


def commands(config: dict[str, object], events: set[str], timeout_limit: int,
             extra_keys: frozenset[str] = frozenset()) -> dict[str, list[dict[str, object]]]:
    """Every command hook of a hooks configuration by event, checked against the format."""
    hooks = config["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) <= events, set(hooks) - events
    found: dict[str, list[dict[str, object]]] = {}
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
                assert set(entry) <= {"type", "command", "timeout"} | extra_keys
                assert entry["type"] == "command" and isinstance(entry["command"], str)
                timeout = entry.get("timeout", 60)
                assert isinstance(timeout, int) and 0 < timeout <= timeout_limit
                found.setdefault(event, []).append(entry)
    return found


def claude_hooks() -> dict[str, list[dict[str, object]]]:
    config = load(PLUGIN / "hooks" / "hooks.json")
    assert set(config) <= {"description", "hooks"}
    return commands(config, HOOK_EVENTS, 600)


def codex_hooks() -> dict[str, list[dict[str, object]]]:
    config = load(PLUGIN / "hooks" / "codex.json")
    assert set(config) <= {"description", "hooks"}
    return commands(config, CODEX_EVENTS, 600)


def gemini_hooks() -> dict[str, list[dict[str, object]]]:
    config = load(EXTENSION / "hooks" / "hooks.json")
    assert set(config) <= {"description", "hooks"}
    return commands(config, GEMINI_EVENTS, 600_000, frozenset({"name", "description"}))


def only(found: dict[str, list[dict[str, object]]], event: str) -> str:
    assert len(found[event]) == 1, event
    return str(found[event][0]["command"])


def test_claude_hooks_start_and_end_the_session() -> None:
    """No tool hook: Claude Code's commands get the git environment from its env file
    (its PreToolUse could change a command only with a permission decision)."""
    found = claude_hooks()
    assert set(found) == {"SessionStart", "PreCompact", "SessionEnd"}
    assert "lets-session-start --claude-hook" in only(found, "SessionStart")
    assert CHECKPOINT in only(found, "PreCompact") and CHECKPOINT in only(found, "SessionEnd")
    config = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert isinstance(config, dict)
    assert config["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"


def test_codex_hooks_start_hand_over_and_checkpoint_after_each_turn_and_at_exit() -> None:
    """Stop after every turn keeps the handoff at most a turn old (a killed Codex runs no
    SessionEnd); SessionEnd at exit covers a turn that was interrupted (no Stop), within
    the 3 seconds Codex gives it (a longer timeout is clamped with a warning on screen)."""
    found = codex_hooks()
    assert set(found) == {"SessionStart", "PreToolUse", "Stop", "SessionEnd"}
    assert "lets-session-start --claude-hook" in only(found, "SessionStart")
    assert "lets-agent-hook pre-tool" in only(found, "PreToolUse")
    assert CHECKPOINT in only(found, "Stop") and CHECKPOINT in only(found, "SessionEnd")
    timeout = found["SessionEnd"][0].get("timeout", 60)
    assert isinstance(timeout, int) and timeout <= CODEX_SESSION_END_CAP
    config = load(PLUGIN / "hooks" / "codex.json")["hooks"]
    assert isinstance(config, dict)
    assert config["PreToolUse"][0]["matcher"] == "Bash"  # Codex names its shell tool so


def test_gemini_hooks_start_hand_over_deliver_and_end_the_session() -> None:
    found = gemini_hooks()
    assert set(found) == {"SessionStart", "BeforeAgent", "BeforeTool", "SessionEnd"}
    assert "lets-session-start --agent-hook gemini" in only(found, "SessionStart")
    assert "lets-agent-hook before-agent --agent gemini" in only(found, "BeforeAgent")
    assert "lets-agent-hook pre-tool --agent gemini" in only(found, "BeforeTool")
    assert CHECKPOINT in only(found, "SessionEnd")
    config = load(EXTENSION / "hooks" / "hooks.json")["hooks"]
    assert isinstance(config, dict)
    assert config["BeforeTool"][0]["matcher"] == "run_shell_command"


def test_gemini_extension_manifest() -> None:
    manifest = load(EXTENSION / "gemini-extension.json")
    assert set(manifest) <= {"name", "version", "description", "contextFileName",
                             "mcpServers", "excludeTools", "settings"}
    assert manifest["name"] == load(PLUGIN / ".claude-plugin" / "plugin.json")["name"]
    assert manifest["version"] == lets_hooks.__version__
    assert "hooks" not in manifest  # Gemini reads hooks/hooks.json, never the manifest


@pytest.mark.parametrize("folder", [PLUGIN, EXTENSION])
def test_skills_have_the_documented_frontmatter_and_procedure(folder: Path) -> None:
    skills = sorted((folder / "skills").iterdir())
    assert [s.name for s in skills] == SKILLS
    for skill in skills:
        meta, body = frontmatter(skill / "SKILL.md")
        name, description = meta["name"], meta["description"]
        assert name == skill.name
        assert isinstance(name, str) and KEBAB.fullmatch(name) and len(name) <= 64
        assert isinstance(description, str) and 0 < len(description) <= 1024
    meta, body = frontmatter(folder / "skills" / "session-boundary" / "SKILL.md")
    assert "lets-session-boundary" in str(meta["description"])
    assert "```sh\n   lets-session-boundary\n   ```" in body  # the one command it runs
    for key in ("SESSION_BOUNDARY=", "SESSION_TRUST=", "SESSION_COMMITS=",
                "SESSION_RANGE_DESC="):
        assert key in body
    for trust in ("exact", "prior-session", "estimate", "none"):
        assert f"| `{trust}` |" in body
    meta, body = frontmatter(folder / "skills" / "session-checkpoint" / "SKILL.md")
    assert "lets-session-checkpoint" in str(meta["description"])
    assert 'lets-session-checkpoint --next "' in body and '(risk: H)"' in body


def test_the_extension_carries_the_plugins_skills_byte_for_byte() -> None:
    for name in SKILLS:
        ours = (PLUGIN / "skills" / name / "SKILL.md").read_bytes()
        assert (EXTENSION / "skills" / name / "SKILL.md").read_bytes() == ours


# -- the hook, run as Claude Code runs it ---------------------------------------------------


def docs_settings_commands() -> list[str]:
    """The SessionStart commands of the settings snippet in docs/summary.md."""
    text = (ROOT / "docs" / "summary.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    configs = [json.loads(b) for b in blocks if '"SessionStart"' in b]
    assert len(configs) == 1
    return [str(c["command"]) for c in session_start_commands(configs[0])]


def all_commands() -> list[str]:
    """Every hook command the plugin, the extension and docs/summary.md ship, each once."""
    found = [str(entry["command"]) for hooks in (claude_hooks(), codex_hooks(), gemini_hooks())
             for entries in hooks.values() for entry in entries]
    return list(dict.fromkeys(found + docs_settings_commands()))


def session_start_commands(config: dict[str, object]) -> list[dict[str, object]]:
    return commands(config, HOOK_EVENTS, 600).get("SessionStart", [])


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


def start_commands() -> list[tuple[str, str]]:
    """(agent, command) of every SessionStart hook shipped, the docs' snippet too."""
    return [("claude", only(claude_hooks(), "SessionStart")),
            ("codex", only(codex_hooks(), "SessionStart")),
            ("gemini", only(gemini_hooks(), "SessionStart")),
            ("docs", docs_settings_commands()[0])]


def test_without_lets_hooks_installed_every_hook_does_nothing(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """Nothing written, nothing said; only the plugins' start hooks say, in the agent's
    context, that the commands are missing (next test)."""
    sandbox.commit("recent")
    payload = json.dumps({"session_id": CLAUDE_SID, "cwd": str(sandbox.path), "source": "startup",
                          "hook_event_name": "SessionStart", "tool_name": "Bash",
                          "tool_input": {"command": "true"}})
    starts = {command for agent, command in start_commands() if agent != "docs"}
    for command in all_commands():
        done = run_hook(command, sandbox.path, bare_path(tmp_path), payload)
        assert (done.returncode, done.stderr) == (0, ""), command
        assert command in starts or done.stdout == "", command
    assert not (sandbox.path / ".lets").exists()
    assert not (sandbox.path / ".git" / "lets-agent").exists()


MISSING = "lets-hooks: lets-session-start is not on PATH"


@pytest.mark.parametrize("which", ["claude", "codex", "gemini"])
def test_without_the_commands_the_start_hook_says_so_in_the_agents_context(
        sandbox: Sandbox, tmp_path: Path, which: str) -> None:
    """One line of context, in the shape the agent takes context in (Gemini: only inside
    its JSON), saying the commands are not on PATH and how to install them."""
    sandbox.commit("recent")
    command = dict(start_commands())[which]
    payload = json.dumps({"session_id": CLAUDE_SID, "cwd": str(sandbox.path), "source": "startup",
                          "hook_event_name": "SessionStart"})
    done = run_hook(command, sandbox.path, bare_path(tmp_path), payload)
    assert (done.returncode, done.stderr) == (0, "")
    text = done.stdout
    if which == "gemini":
        answer = json.loads(text)
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        text = answer["hookSpecificOutput"]["additionalContext"] + "\n"
    assert text.startswith(MISSING) and text.count("\n") == 1, text
    assert "pipx install" in text and "PATH" in text


@pytest.mark.parametrize("which", ["claude", "codex", "gemini", "docs"])
def test_with_lets_hooks_installed_the_start_hook_records_and_prints_the_summary(
        sandbox: Sandbox, tmp_path: Path, which: str) -> None:
    head = sandbox.commit("recent")
    command = dict(start_commands())[which]
    payload = json.dumps({"session_id": CLAUDE_SID, "cwd": str(sandbox.path), "source": "startup",
                          "hook_event_name": "SessionStart"})
    done = run_hook(command, sandbox.path, f"{BIN}:{bare_path(tmp_path)}", payload)
    assert (done.returncode, done.stderr) == (0, "")
    text = done.stdout
    if which == "gemini":  # Gemini takes context only inside its JSON
        answer = json.loads(text)
        assert set(answer) == {"hookSpecificOutput"}
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        text = answer["hookSpecificOutput"]["additionalContext"]
    lines = text.splitlines()
    assert lines[0] == "## Session Ready"
    assert lines[2] == f"**Session range:** session: {head}..HEAD (0 commits)"
    task = (sandbox.path / ".lets" / "sessions" / ".task-main").read_text()
    assert f"session: {head} {CLAUDE_SID}\n" in task


def test_a_broken_install_costs_one_line_at_most(sandbox: Sandbox, tmp_path: Path) -> None:
    """Commands whose interpreter is gone (a venv rebuilt elsewhere): the shell's one
    complaint, and the session still starts and its tools still run."""
    folder = tmp_path / "broken"
    folder.mkdir()
    for name in ("lets-session-start", "lets-agent-hook", "lets-session-checkpoint"):
        script = folder / name
        script.write_text("#!/nonexistent/python\n")
        script.chmod(0o755)
    for command in all_commands():
        done = run_hook(command, sandbox.path, f"{folder}:{bare_path(tmp_path)}", "{}")
        assert done.returncode == 0 and done.stdout == ""
        assert len(done.stderr.splitlines()) <= 1
