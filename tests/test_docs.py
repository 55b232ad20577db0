"""The README and docs/ tell the truth about what ships: every command, the contract's forms,
and every sample, run as printed where it can be and compared where its output is fixed."""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import BIN, Sandbox
from hookbox import TOOLS_NEED_GIT_2_31

import lets_hooks

ROOT = Path(__file__).resolve().parent.parent
README_ONLY = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
README = "\n".join([README_ONLY, *(p.read_text() for p in DOCS)])
COUNT = r"\(\d+ commits(?:, not counting \d+ already on [\w./-]+)?\)"
FORMS = [
    r"session: [0-9a-f]+\.\.HEAD " + COUNT,
    r"approx: [0-9a-f]+\.\.HEAD " + COUNT + " - boundary recorded by an earlier session",
    r"approx: [0-9a-f]+\.\.HEAD " + COUNT + " - estimated from the branch point, "
    r"no boundary was recorded",
    r"boundary unknown - no valid session boundary for this branch",
    r"boundary unknown - detached HEAD",
    r"boundary unknown - not a git repository",
]


def console_scripts() -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg")
    entries = parser["options.entry_points"]["console_scripts"].strip().splitlines()
    return [entry.split("=")[0].strip() for entry in entries]


def test_every_console_script_is_shown_running() -> None:
    scripts = console_scripts()
    assert len(scripts) == 6
    for name in scripts:
        assert f"$ {name}" in README, name


def test_the_two_commands_exist() -> None:
    for script in ("scripts/run", "scripts/test"):
        assert f"bash {script}" in README_ONLY
        assert (ROOT / script).exists()
    assert "bash scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_every_sample_description_is_one_of_the_contract_forms() -> None:
    samples = re.findall(r"^SESSION_RANGE_DESC=(.*)$", README, flags=re.M)
    assert len(samples) >= 3
    for sample in samples:
        assert any(re.fullmatch(form, sample) for form in FORMS), sample


def test_sample_blocks_have_the_four_lines_in_order() -> None:
    keys = ["SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
    lines = README.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("SESSION_BOUNDARY=")]
    assert starts
    for i in starts:
        assert [line.split("=", 1)[0] for line in lines[i:i + 4]] == keys


def test_readme_is_a_page_people_read() -> None:
    assert len(README_ONLY.encode()) <= 18_000  # about 15-17 KB: depth goes to docs/


def test_every_docs_page_is_linked_from_the_readme() -> None:
    assert DOCS
    for page in DOCS:
        assert f"(docs/{page.name})" in README_ONLY, page.name


# -- every sample works as printed ------------------------------------------------------------


def blocks(text: str, language: str) -> list[str]:
    """The fenced blocks of ``language`` in ``text``, in order."""
    return re.findall(r"^```" + language + r"\n(.*?)^```$", text, flags=re.M | re.S)


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


SHA = re.compile(r"\b[0-9a-f]{40}\b")


def test_no_sample_pins_a_tag_a_copy_may_lack() -> None:
    """``rev: v0.2.0`` named a tag a clone does not have; pins are commits, with the
    command that prints them."""
    assert not re.search(r"rev:\s*v\d", README), "a tag pinned as rev:"
    assert not re.search(r"lets-hooks@v\d", README), "a tag pinned in a pip URL"
    assert "git -C /path/to/lets-hooks rev-parse HEAD" in README_ONLY
    assert "git -C /path/to/lets-hooks rev-parse HEAD" in (ROOT / "docs" / "lint.md").read_text()


def test_start_a_session_runs_as_printed(sandbox: Sandbox) -> None:
    """The README's first sample, in a fresh repository: its commands run in one shell,
    the output is the printed one (the sha aside)."""
    [console] = blocks(section(README_ONLY, "## Start a session"), "console")
    commands = [line[2:] for line in console.splitlines() if line.startswith("$ ")]
    printed = [line for line in console.splitlines() if not line.startswith("$ ")]
    head = sandbox.commit("today's first commit")
    env = {k: v for k, v in os.environ.items() if k != "LETS_SESSION_ID"}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    done = subprocess.run(["/bin/sh", "-ec", "\n".join(commands)], cwd=sandbox.path,
                          env=env, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert SHA.sub("<sha>", done.stdout).splitlines() == [SHA.sub("<sha>", line)
                                                          for line in printed]
    assert head in done.stdout
    task = (sandbox.path / ".lets" / "sessions" / ".task-main").read_text()
    sid = re.search(r"^session: [0-9a-f]{40} (\S+)$", task, flags=re.M)
    assert sid and len(sid.group(1)) == 36  # the uuid the sample exported


def test_lint_sample_is_what_lint_prints(sandbox: Sandbox) -> None:
    """The README's lint sample, rebuilt: the same three findings, the same words."""
    [console] = blocks(section(README_ONLY, "## `lets-hooks lint`"), "console")
    printed = [line for line in console.splitlines() if not line.startswith("$ ")]
    sandbox.write_task("main", f"session: {sandbox.head()} s1\n")
    sandbox.git.add("-f", ".lets/sessions/.task-main")
    sandbox.git.commit("-q", "-m", "state committed by mistake")
    sandbox.write_task("feat-login", "session: HEAD~3..HEAD\n")
    (sandbox.path / "memory").mkdir()
    (sandbox.path / "memory" / "context-log.md").write_text(
        "# Context log\n\n## a header without its date and ref\n")
    done = sandbox.run("lets-hooks", "lint")
    assert done.returncode == 1
    assert sorted(done.stdout.splitlines()) == sorted(printed)


def tool_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LETS_SESSION_ID"}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    env["PRE_COMMIT_HOME"] = str(home)
    return env


@TOOLS_NEED_GIT_2_31
def test_pre_commit_snippet_runs_as_printed(sandbox: Sandbox, hook_repo: tuple[Path, str],
                                            pre_commit_home: Path) -> None:
    """The README's pre-commit block, with only the clone's path put in, in a real
    repository with the real pre-commit: the config pins the clone's commit, every
    checkout records, and commits pass."""
    [script] = [b for b in blocks(README_ONLY, "sh") if ".pre-commit-config.yaml" in b]
    clone, rev = hook_repo
    script = script.replace("/path/to/lets-hooks", str(clone))
    env = tool_env(pre_commit_home)
    done = subprocess.run(["/bin/sh", "-ec", script], cwd=sandbox.path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    config = (sandbox.path / ".pre-commit-config.yaml").read_text()
    assert f"    rev: {rev}\n" in config and f"-   repo: {clone}\n" in config

    def git(*args: str, sid: str | None = None) -> subprocess.CompletedProcess[str]:
        run_env = dict(env, **({"LETS_SESSION_ID": sid} if sid else {}))
        return subprocess.run(["git", *args], cwd=sandbox.path, env=run_env,
                              capture_output=True, text=True, check=False, timeout=900)

    assert git("add", ".pre-commit-config.yaml").returncode == 0
    committed = git("commit", "-q", "-m", "use lets-hooks")
    assert committed.returncode == 0, committed.stdout + committed.stderr
    switched = git("switch", "-q", "-c", "feat", sid="docs-1")
    assert switched.returncode == 0, switched.stdout + switched.stderr
    assert "error" not in (switched.stdout + switched.stderr).lower()
    task = (sandbox.path / ".lets" / "sessions" / ".task-feat").read_text()
    assert f"session: {sandbox.head()} docs-1\n" in task
    (sandbox.path / "work.txt").write_text("work\n")
    assert git("add", "work.txt").returncode == 0
    again = git("commit", "-q", "-m", "work", sid="docs-1")
    assert again.returncode == 0, again.stdout + again.stderr


@TOOLS_NEED_GIT_2_31
def test_lint_docs_pre_commit_snippet_runs(sandbox: Sandbox, hook_repo: tuple[Path, str],
                                           pre_commit_home: Path) -> None:
    """docs/lint.md's block, its placeholders replaced by what its comment says to run."""
    clone, rev = hook_repo
    lint_page = (ROOT / "docs" / "lint.md").read_text()
    [config] = [b for b in blocks(lint_page, "yaml") if "# .pre-commit-config.yaml" in b]
    printed = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert printed == rev
    config = config.replace("/path/to/lets-hooks", str(clone))
    config = re.sub(r"rev: [0-9a-f]{40}", f"rev: {printed}", config)
    (sandbox.path / ".pre-commit-config.yaml").write_text(config)
    env = tool_env(pre_commit_home)
    clean = subprocess.run([str(BIN / "pre-commit"), "run", "lets-state-lint", "--all-files"],
                           cwd=sandbox.path, env=env, capture_output=True, text=True,
                           check=False, timeout=900)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    sandbox.write_task("main", f"session: {sandbox.head()} s1\n")
    sandbox.git.add("-f", ".lets/sessions/.task-main")
    found = subprocess.run([str(BIN / "pre-commit"), "run", "lets-state-lint", "--all-files"],
                           cwd=sandbox.path, env=env, capture_output=True, text=True,
                           check=False, timeout=900)
    assert found.returncode == 1
    assert ".lets/sessions/.task-main: tracked by git" in found.stdout


def test_scripts_run_installs_once_then_only_on_change(tmp_path: Path,
                                                      hook_repo: tuple[Path, str]) -> None:
    """``bash scripts/run`` in a fresh clone: the first call sets up, the second prints the
    four lines without installing again, and a changed package file is installed."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(hook_repo[0]), str(clone)], check=True)
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(VENV=str(venv), PIP_DISABLE_PIP_VERSION_CHECK="1",
               LETS_SESSION_ID="5e55104e-0000-4000-8000-00000000d0c5")  # a session's hint
    env["PATH"] = os.pathsep.join(folder for folder in env["PATH"].split(os.pathsep)
                                  if not (Path(folder) / "lets-hooks").exists())

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(clone / "scripts" / "run")], cwd=clone, env=env,
                              capture_output=True, text=True, check=False, timeout=900)

    first = run()
    assert first.returncode == 0, first.stderr
    # lets-hooks is not on PATH: the hint names it where scripts/run installed it
    assert f"run: {venv}/bin/lets-hooks record" in first.stderr, first.stderr
    assert [line.split("=", 1)[0] for line in first.stdout.splitlines()] == [
        "SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
    installed = sorted(venv.glob("lib/python*/site-packages/lets_hooks/__init__.py"))
    assert len(installed) == 1
    stamp = (venv / ".lets-hooks-installed").read_text()
    before = installed[0].stat().st_mtime_ns
    second = run()
    assert (second.returncode, second.stdout) == (0, first.stdout)
    assert installed[0].stat().st_mtime_ns == before  # pip did not run
    with (clone / "lets_hooks" / "__init__.py").open("a") as handle:
        handle.write("# changed\n")
    third = run()
    assert third.returncode == 0 and third.stdout == first.stdout
    assert installed[0].read_text().endswith("# changed\n")
    assert (venv / ".lets-hooks-installed").read_text() != stamp


def test_the_pipx_line_puts_the_commands_on_path_in_a_fresh_login_shell(
        tmp_path: Path, hook_repo: tuple[Path, str]) -> None:
    """The README's first install line, as printed, with pipx (from PyPI, in a virtual
    environment of the test's) on PATH: the next login shell has the six commands."""
    import pytest

    [script] = blocks(section(README_ONLY, "## Install"), "sh")
    [line] = [line.split("  #")[0] for line in script.splitlines() if line.startswith("pipx ")]
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True)
    got = subprocess.run([str(tools / "bin" / "pip"), "install", "-q", "pipx"],
                         capture_output=True, text=True, check=False, timeout=600)
    if got.returncode != 0:
        pytest.skip(f"pipx cannot be installed here: {got.stderr.strip()[-200:]}")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(hook_repo[0]), str(clone)], check=True)
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    pip_config = Path.home() / ".config" / "pip"
    if pip_config.is_dir():
        shutil.copytree(pip_config, home / ".config" / "pip")
    command = f'export PATH="{tools / "bin"}:$PATH"\n' + line.replace(
        "/path/to/lets-hooks", str(clone))
    done = login_shell(home, "set -e\n" + command, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in console_scripts():
        found = login_shell(home, f"command -v {name} && {name} --version", tmp_path)
        assert found.returncode == 0, (name, found.stderr)
        assert found.stdout.splitlines() == [str(home / ".local" / "bin" / name),
                                             f"{name} {lets_hooks.__version__}"]


def test_claude_hook_sample_in_docs_runs_as_printed(tmp_path: Path) -> None:
    """docs/summary.md's ``--claude-hook`` sample on the demo project the tests build: the
    lines it shows (up to its ``...``) and the task line it greps, byte for byte."""
    from test_summary_output import build_demo

    project, home = build_demo(tmp_path)
    page = (ROOT / "docs" / "summary.md").read_text()
    [console] = [b for b in blocks(page, "console") if "--claude-hook" in b]
    first, grep = console.split("\n$ grep ")
    command, shown = first.split("\n## Session Ready\n", 1)
    command = command[2:].replace("\\\n", "").replace("/tmp/demo/project", str(project))
    env = {k: v for k, v in os.environ.items()
           if k not in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CLAUDE_ENV_FILE")}
    env.update(PATH=f"{BIN}{os.pathsep}{env['PATH']}", HOME=str(home))
    done = subprocess.run(["/bin/sh", "-c", command], cwd=project, env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    expected = "## Session Ready\n" + shown.rsplit("\n...", 1)[0] + "\n"
    assert done.stdout.startswith(expected)
    grep_command, grep_output = grep.split("\n", 1)
    found = subprocess.run(["/bin/sh", "-c", "grep " + grep_command], cwd=project,
                           capture_output=True, text=True, check=False)
    assert found.stdout == grep_output.split("\n```")[0].rstrip("\n") + "\n"


def canonical(text: str) -> str:
    """``text`` with each distinct abbreviated sha named by the order it first appears."""
    names: dict[str, str] = {}
    return re.sub(r"\b[0-9a-f]{12}\b",
                  lambda m: names.setdefault(m.group(0), f"<sha{len(names)}>"), text)


def test_status_sample_is_what_status_prints(sandbox: Sandbox) -> None:
    """The README's status table, rebuilt branch by branch: the same rows, trust levels,
    counts and reasons, the same columns (the shas aside)."""
    [console] = blocks(section(README_ONLY, "### `lets-hooks record`"), "console")
    printed = "\n".join(line for line in console.splitlines() if not line.startswith("$ "))
    sid = "readme-sample"
    git = sandbox.git
    split = sandbox.commit("where spike and stale leave main", age_days=1)
    tip = sandbox.commit("main's tip", sid=sid)
    git.switch("-q", "--detach", split)
    login = sandbox.commit("where feature/login starts")  # made by no session
    git.switch("-q", "main")
    assert sandbox.head() == tip
    for name, base, commits in (("spike", split, 2), ("stale", split, 1),
                                ("feature/login", login, 2)):
        git.switch("-q", "-c", name, base)
        for n in range(commits):
            sandbox.commit(f"{name} {n}", sid=sid)
    sandbox.write_task("main", f"session: {split} {sid}\n")
    sandbox.write_task("stale", f"session: 0123456789ab {sid}\n")
    sandbox.write_task("feature/login", f"session: {login} {sid}\n")
    done = sandbox.run("lets-hooks", "status", env={"LETS_SESSION_ID": sid})
    assert done.returncode == 0, done.stderr
    assert canonical(done.stdout.rstrip("\n")) == canonical(printed)


def login_shell(home: Path, script: str, cwd: Path, stdin: str = ""
                ) -> subprocess.CompletedProcess[str]:
    """``env -i HOME=<home> bash -lc <script>``: a fresh login shell, as a new terminal or
    Codex's shell gets one, PATH from the system's and the home's profile alone (pip's own
    settings of this machine passed on, so that it finds its packages)."""
    keep = [f"{k}={v}" for k, v in os.environ.items() if k.startswith("PIP_")]
    return subprocess.run(["env", "-i", f"HOME={home}", *keep, "bash", "-lc", script],
                          cwd=cwd, input=stdin, capture_output=True, text=True, check=False,
                          timeout=900)


def test_install_lines_put_the_commands_on_path_in_a_fresh_login_shell(
        tmp_path: Path, hook_repo: tuple[Path, str]) -> None:
    """The README's install lines (the virtual environment and its PATH line; pipx and uv
    are the same install, run by those tools), run as printed in a fresh login shell with
    only the clone's path put in: the next login shell has the six commands on PATH, and
    the plugins' start hook, run there, records and prints the summary."""
    [script] = blocks(section(README_ONLY, "## Install"), "sh")
    lines = [line.split("  #")[0] for line in script.splitlines()
             if not line.startswith(("pipx ", "uv ", "#"))]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(hook_repo[0]), str(clone)], check=True)
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    pip_config = Path.home() / ".config" / "pip"
    if pip_config.is_dir():  # where this machine's pip finds its packages
        shutil.copytree(pip_config, home / ".config" / "pip")
    command = "\n".join(lines).replace("/path/to/lets-hooks", str(clone))
    done = login_shell(home, "set -e\n" + command, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    bin_folder = home / ".venvs" / "lets-hooks" / "bin"
    for name in console_scripts():
        found = login_shell(home, f"command -v {name} && {name} --version", tmp_path)
        assert found.returncode == 0, (name, found.stderr)
        assert found.stdout.splitlines() == [str(bin_folder / name),
                                             f"{name} {lets_hooks.__version__}"]
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "-c", "user.name=t", "-c",
                    "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"],
                   check=True)
    hooks = json.loads((ROOT / "agent-plugin" / "hooks" / "codex.json").read_text())
    [start] = [hook["command"] for group in hooks["hooks"]["SessionStart"]
               for hook in group["hooks"]]
    payload = json.dumps({"session_id": "login-1", "cwd": str(project), "source": "startup",
                          "hook_event_name": "SessionStart"})
    started = login_shell(home, start, project, payload)
    assert started.returncode == 0, started.stderr
    assert started.stdout.startswith("## Session Ready\n"), started.stdout
    assert "session: " in (project / ".lets" / "sessions" / ".task-main").read_text()
