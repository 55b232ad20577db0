"""``lets-hooks lint``: each finding of the CI lint step, against real repositories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BIN, SID, Sandbox
from hookbox import TOOLS_NEED_GIT_2_31

from lets_hooks import lint
from lets_hooks.repo import Repo


def run_lint(box: Sandbox, *args: str, cwd: Path | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The lint step as CI runs it: ``lets-hooks lint``, a process, in the repository."""
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(
        [str(BIN / "lets-hooks"), "lint", *args], cwd=cwd or box.path, env=full,
        capture_output=True, text=True, check=False, timeout=60)


def findings(box: Sandbox) -> list[tuple[str, str]]:
    return [(f.path, f.problem) for f in lint.lint(Repo(str(box.path)), str(box.path))]


def good_line(box: Sandbox) -> str:
    return f"session: {box.head()} {SID}\n"


# -- passes silently -----------------------------------------------------------------------

def test_clean_repository_passes_silently(sandbox: Sandbox) -> None:
    done = run_lint(sandbox)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_healthy_state_files_pass_silently(sandbox: Sandbox) -> None:
    sandbox.write_task("main", "task: x\n" + good_line(sandbox) + "origin: y\n")
    sandbox.write_task("feat/x", "# notes\r\n" + good_line(sandbox).replace("\n", "\r\n"))
    sandbox.write_task("no-line", "task: nothing recorded yet\n")
    (sandbox.sessions() / ".session-start-ref-main").write_text(sandbox.head() + "\n")
    (sandbox.sessions() / ".task-main.12345.tmp").write_text("half-written garbage")
    (sandbox.path / ".lets" / "locks").mkdir()
    (sandbox.path / ".lets" / "locks" / "task-main.lock").write_text("")
    done = run_lint(sandbox)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_gitignored_untracked_state_is_fine(sandbox: Sandbox) -> None:
    (sandbox.path / ".gitignore").write_text(".lets/\n")
    sandbox.write_task("main", good_line(sandbox))
    sandbox.git.add(".gitignore")
    sandbox.git.commit("-q", "-m", "ignore state")
    assert findings(sandbox) == []


# -- 1. tracked state ----------------------------------------------------------------------

def test_committed_task_file_fails(sandbox: Sandbox) -> None:
    sandbox.write_task("main", good_line(sandbox))
    sandbox.git.add("-f", ".lets/sessions/.task-main")
    sandbox.git.commit("-q", "-m", "oops, state committed")
    done = run_lint(sandbox)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        ".lets/sessions/.task-main: tracked by git: session state is per work tree and must "
        "not be committed (git rm --cached it)"]


def test_staged_state_fails_before_it_is_committed(sandbox: Sandbox) -> None:
    (sandbox.sessions() / ".session-start-ref-main").write_text(sandbox.head() + "\n")
    sandbox.git.add("-f", ".lets/sessions/.session-start-ref-main")
    assert [p for p, _ in findings(sandbox)] == [".lets/sessions/.session-start-ref-main"]


def test_lets_folder_committed_by_someone_else_is_caught(sandbox: Sandbox, tmp_path: Path) -> None:
    """A collaborator commits their .lets; a fresh clone inherits it and lint says so."""
    sandbox.write_task("main", good_line(sandbox))
    (sandbox.sessions() / ".session-start-ref-main").write_text(sandbox.head() + "\n")
    (sandbox.path / ".lets" / "config.toml").write_text("max_age_days = 7\n")
    sandbox.git.add("-f", ".lets")
    sandbox.git.commit("-q", "-m", "someone else's state")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(sandbox.path), str(clone)], check=True)
    done = subprocess.run([str(BIN / "lets-hooks"), "lint"], cwd=clone,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    paths = [line.split(":", 1)[0] for line in done.stdout.splitlines()]
    # config is shareable; the two state files are not
    assert paths == [".lets/sessions/.session-start-ref-main", ".lets/sessions/.task-main"]


def test_tracked_symlinked_lets_folder_fails(sandbox: Sandbox) -> None:
    """A committed .lets symlink would steer every writer into someone else's folder."""
    os.symlink("../elsewhere", sandbox.path / ".lets")
    sandbox.git.add("-f", ".lets")
    sandbox.git.commit("-q", "-m", "a symlink to somewhere")
    assert findings(sandbox) == [(".lets", "tracked by git: session state must never be "
                                           "committed (git rm --cached it)")]


def test_tracked_config_alone_is_fine(sandbox: Sandbox) -> None:
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").write_text("max_age_days = 7\n")
    sandbox.git.add("-f", ".lets/config.toml")
    sandbox.git.commit("-q", "-m", "shared settings")
    assert findings(sandbox) == []


def test_tracked_state_is_found_from_a_subfolder(sandbox: Sandbox) -> None:
    sandbox.write_task("main", good_line(sandbox))
    sandbox.git.add("-f", ".lets")
    sub = sandbox.path / "src" / "deep"
    sub.mkdir(parents=True)
    done = run_lint(sandbox, cwd=sub)
    assert done.returncode == 1
    assert done.stdout.startswith(".lets/sessions/.task-main: tracked by git")


def test_root_option_checks_another_folder(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.write_task("main", good_line(sandbox))
    sandbox.git.add("-f", ".lets")
    done = run_lint(sandbox, "--root", str(sandbox.path), cwd=tmp_path)
    assert done.returncode == 1
    assert ".lets/sessions/.task-main: tracked by git" in done.stdout


# -- 2. the non-slugged boundary file ------------------------------------------------------

def test_non_slugged_session_start_ref_fails(sandbox: Sandbox) -> None:
    (sandbox.sessions() / ".session-start-ref").write_text(sandbox.head() + "\n")
    done = run_lint(sandbox)
    assert done.returncode == 1
    assert done.stdout == (".lets/sessions/.session-start-ref: non-slugged boundary file: it "
                           "is never read (one file cannot answer for every branch) - "
                           "delete it\n")


def test_non_slugged_ref_as_dangling_symlink_still_fails(sandbox: Sandbox) -> None:
    os.symlink("/nonexistent/target", sandbox.sessions() / ".session-start-ref")
    assert [p for p, _ in findings(sandbox)] == [".lets/sessions/.session-start-ref"]


# -- 3. malformed session lines ------------------------------------------------------------

@pytest.mark.parametrize("value, complaint", [
    ("", "no boundary sha"),
    (" \t", "no boundary sha"),
    ("--output=/tmp/pwned", "'--output=/tmp/pwned' is not a lowercase hex sha"),
    ("-n", "'-n' is not a lowercase hex sha"),
    ("HEAD~3..HEAD", "'HEAD~3..HEAD' is not a lowercase hex sha"),
    ("main", "'main' is not a lowercase hex sha"),
    ("DEADBEEF", "'DEADBEEF' is not a lowercase hex sha"),
    ("abc", "a 3-digit sha cannot name a commit"),
    ("a" * 65, "a 65-digit sha cannot name a commit"),
])
def test_malformed_session_line_fails(sandbox: Sandbox, value: str, complaint: str) -> None:
    line = f"session: {value} {SID}" if value.strip() else f"session: {value}"
    sandbox.write_task("feat/x", f"task: t\n{line}\n")
    done = run_lint(sandbox)
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    assert line.startswith(".lets/sessions/.task-feat-x: malformed session line: ")
    assert complaint in line


def test_only_the_first_session_line_counts(sandbox: Sandbox) -> None:
    sandbox.write_task("main", good_line(sandbox) + "session: --not-read\n")
    assert findings(sandbox) == []
    sandbox.write_task("main", "session: --read\n" + good_line(sandbox))
    assert len(findings(sandbox)) == 1


def test_session_id_with_control_bytes_fails(sandbox: Sandbox) -> None:
    sandbox.write_task("main", f"session: {sandbox.head()} abc\x00\x1b[2Jdef\n".encode())
    [(path, problem)] = findings(sandbox)
    assert path == ".lets/sessions/.task-main"
    assert "session id" in problem and "not printable" in problem
    assert "\x1b" not in problem and "\x00" not in problem


def test_session_id_not_utf8_fails(sandbox: Sandbox) -> None:
    sandbox.write_task("main", f"session: {sandbox.head()} ".encode() + b"\xff\xfe\n")
    [(_, problem)] = findings(sandbox)
    assert "not printable" in problem


@pytest.mark.parametrize("sid", ["-", "=", "*"])
def test_session_id_the_ledger_uses_for_itself_fails(sandbox: Sandbox, sid: str) -> None:
    """The one session-id rule (``state.sid_problem``), as the ledger's reader and writers
    keep it: "-" is its "no session", never a session's id."""
    sandbox.write_task("main", f"session: {sandbox.head()} {sid}\n")
    [(_, problem)] = findings(sandbox)
    assert "session ledger's own marks" in problem


def test_sha_with_non_utf8_bytes_fails(sandbox: Sandbox) -> None:
    sandbox.write_task("main", b"session: ab\xffcd\n")
    done = run_lint(sandbox)
    assert done.returncode == 1
    assert "'ab\\xffcd' is not a lowercase hex sha" in done.stdout


def test_malformed_legacy_file_fails(sandbox: Sandbox) -> None:
    (sandbox.sessions() / ".session-start-ref-main").write_text("origin/main\n")
    assert findings(sandbox) == [(".lets/sessions/.session-start-ref-main",
                                  "malformed first line: 'origin/main' is not a lowercase hex "
                                  "sha (the ladder ignores it)")]


def test_task_file_symlink_is_reported_not_followed(sandbox: Sandbox, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("session: --output=/tmp/pwned\n")  # would be a finding if followed
    os.symlink(outside, sandbox.sessions() / ".task-main")
    assert findings(sandbox) == [(".lets/sessions/.task-main",
                                  "is a symbolic link - refused, not followed")]


def test_task_file_that_is_a_folder_fails(sandbox: Sandbox) -> None:
    (sandbox.sessions() / ".task-main").mkdir()
    assert findings(sandbox) == [(".lets/sessions/.task-main",
                                  "is not a regular file - ignored")]


def test_every_finding_is_listed_not_just_the_first(sandbox: Sandbox) -> None:
    sandbox.write_task("a", "session: x\n")
    sandbox.write_task("b", "session: y\n")
    (sandbox.sessions() / ".session-start-ref").write_text("z\n")
    sandbox.git.add("-f", ".lets/sessions/.task-a")
    done = run_lint(sandbox)
    assert done.returncode == 1
    assert [line.split(": ", 1)[0] for line in done.stdout.splitlines()] == [
        ".lets/sessions/.task-a",  # tracked
        ".lets/sessions/.session-start-ref",
        ".lets/sessions/.task-a",  # malformed
        ".lets/sessions/.task-b",
    ]


# -- output is one line per finding, whatever the names --------------------------------------

def test_file_name_with_newline_cannot_forge_output(sandbox: Sandbox) -> None:
    name = ".task-x\nREADME.md: all good"
    (sandbox.sessions() / name).write_text("session: nothex\n")
    done = run_lint(sandbox)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        ".lets/sessions/.task-x\\nREADME.md: all good: malformed session line: 'nothex' is "
        "not a lowercase hex sha (the ladder ignores it)"]


def test_non_utf8_file_name_is_shown_escaped(sandbox: Sandbox) -> None:
    name = os.fsencode(str(sandbox.sessions())) + b"/.task-\xff\xfe"
    with open(name, "wb") as handle:
        handle.write(b"session: zz\n")
    sandbox.git.add("-f", ".lets")
    done = run_lint(sandbox, env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith(
        ".lets/sessions/.task-\\xff\\xfe: tracked by git")
    assert "Traceback" not in done.stderr


# -- where lint cannot run -----------------------------------------------------------------

def test_not_a_repository_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([str(BIN / "lets-hooks"), "lint"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "lets-hooks lint: not inside a git repository - nothing was checked\n"


def test_git_missing_is_one_line_and_exit_2(sandbox: Sandbox) -> None:
    sandbox.write_task("main", "session: bad\n")
    done = run_lint(sandbox, env={"PATH": "/nonexistent"})
    assert done.returncode == 2
    assert done.stderr == ("lets-hooks lint: git is not installed or not on PATH - nothing "
                           "was checked\n")
    assert (sandbox.sessions() / ".task-main").read_text() == "session: bad\n"


def test_bare_repository_has_nothing_to_check(sandbox: Sandbox, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(sandbox.path), str(bare)], check=True)
    done = subprocess.run([str(BIN / "lets-hooks"), "lint"], cwd=bare,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stdout == ""
    assert "no work tree here" in done.stderr


def test_inside_the_git_folder_the_lint_did_not_happen(sandbox: Sandbox) -> None:
    """From inside ``.git`` (or ``--root .git``) of a repository with a work tree, nothing
    is checked: that exited 0, "nothing to check", a pass for a lint that did not run."""
    sandbox.write_task("main", "session: bad\n")
    for cwd, args in ((sandbox.path / ".git", ()), (sandbox.path, ("--root", ".git"))):
        done = subprocess.run([str(BIN / "lets-hooks"), "lint", *args], cwd=cwd,
                              capture_output=True, text=True, check=False)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == ("lets-hooks lint: inside the .git folder: run it from the"
                               " work tree - nothing was checked\n")


def test_lint_writes_nothing(sandbox: Sandbox) -> None:
    sandbox.write_task("main", "session: bad\n")
    (sandbox.sessions() / ".session-start-ref").write_text("x\n")
    before = {p: p.read_bytes() for p in sandbox.sessions().iterdir()}
    status = sandbox.git.status("--porcelain", "--ignored")
    assert run_lint(sandbox).returncode == 1
    assert {p: p.read_bytes() for p in sandbox.sessions().iterdir()} == before
    assert sandbox.git.status("--porcelain", "--ignored") == status
    assert not (sandbox.path / ".lets" / "locks").exists()


def test_module_entry_point_runs_the_same_lint(sandbox: Sandbox) -> None:
    sandbox.write_task("main", "session: nothex\n")
    by_module = subprocess.run([sys.executable, "-m", "lets_hooks.cli.lint"], cwd=sandbox.path,
                               capture_output=True, text=True, check=False)
    by_command = run_lint(sandbox)
    assert by_module.returncode == by_command.returncode == 1
    assert by_module.stdout == by_command.stdout != ""


# -- 4. memory files that do not parse -----------------------------------------------------

HANDOFF_OK = """---
title: handoff
---
<!-- state-snapshot v1 -->
```yaml
ts: 2026-11-28
ctx: lint work
next: [finish lint]
diff: []
blocked: []
```

## Notes
prose
"""
LOG_OK = """# Context log

## [2026-11-01][decision][ttl:30d][ref:2] chose the ladder
body

## [2026-11-02] [bug] [ttl:7d] [ref:0] [risk:H] spaced tags are fine
body
"""
LESSONS_OK = """# Lessons

## Graduated Gates
| id | trigger | check |
|----|---------|-------|
| G1 | commit | asked? |

### [2026-11-20] read before writing
> conf: 0.7 · seen: 2026-11-20 · obs: 3 · model: opus
Always read first.
"""


def memory(box: Sandbox, files: dict[str, str | bytes]) -> None:
    for name, body in files.items():
        path = box.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body.encode() if isinstance(body, str) else body)


def test_healthy_memory_files_pass_silently(sandbox: Sandbox) -> None:
    memory(sandbox, {"memory/session-handoff-LATEST.md": HANDOFF_OK,
                     "memory/context-log.md": LOG_OK, "tasks/lessons.md": LESSONS_OK,
                     "memory/MEMORY.md": "# Memory\n## Core <!-- #always -->\nx\n"})
    done = run_lint(sandbox)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def one_memory_finding(box: Sandbox, name: str, body: str | bytes) -> str:
    memory(box, {name: body})
    done = run_lint(box)
    assert done.returncode == 1, done
    [line] = done.stdout.splitlines()
    path, _, problem = line.partition(": ")
    assert path == name
    return problem


def test_snapshot_block_that_is_not_yaml_fails(sandbox: Sandbox) -> None:
    body = HANDOFF_OK.replace("next: [finish lint]", "next: [finish lint\n  : : ]]")
    problem = one_memory_finding(sandbox, "memory/session-handoff-LATEST.md", body)
    assert "state-snapshot block" in problem and "YAML" in problem


def test_snapshot_block_without_next_fails(sandbox: Sandbox) -> None:
    body = HANDOFF_OK.replace("next: [finish lint]\n", "")
    problem = one_memory_finding(sandbox, "memory/session-handoff-LATEST.md", body)
    assert "next" in problem


def test_handoff_without_snapshot_block_is_fine(sandbox: Sandbox) -> None:
    memory(sandbox, {"memory/session-handoff-LATEST.md": "# Handoff\n\nPriority 1: x\n"})
    assert findings(sandbox) == []


def test_context_log_header_without_date_or_ref_fails(sandbox: Sandbox) -> None:
    body = LOG_OK + "\n## 2026-11-03 forgot the brackets\nbody\n"
    problem = one_memory_finding(sandbox, "memory/context-log.md", body)
    assert "line 9" in problem


def test_context_log_header_without_ref_fails(sandbox: Sandbox) -> None:
    body = LOG_OK + "\n## [2026-11-03][note][ttl:7d] no ref tag\nbody\n"
    assert "line 9" in one_memory_finding(sandbox, "memory/context-log.md", body)


def test_lessons_metadata_that_cannot_be_read_fails(sandbox: Sandbox) -> None:
    body = LESSONS_OK + "\n### [2026-11-21] another\n> conf: high · seen: soon · obs: many\n"
    problem = one_memory_finding(sandbox, "tasks/lessons.md", body)
    assert "metadata" in problem


def test_memory_file_that_is_not_utf8_fails(sandbox: Sandbox) -> None:
    problem = one_memory_finding(sandbox, "memory/context-log.md",
                                 LOG_OK.encode() + b"\xff\xfe\x00 junk\n")
    assert "UTF-8" in problem


def test_memory_findings_come_after_state_findings(sandbox: Sandbox) -> None:
    sandbox.write_task("main", "session: nope\n")
    memory(sandbox, {"memory/context-log.md": "## broken\n"})
    assert [p for p, _ in findings(sandbox)] == [".lets/sessions/.task-main",
                                                 "memory/context-log.md"]


# -- under pre-commit, and documented --------------------------------------------------------

PROJECT = Path(__file__).resolve().parent.parent


def manifest_entry() -> dict[str, object]:
    from pre_commit.clientlib import load_manifest  # type: ignore[import-untyped]

    hooks = {hook["id"]: hook for hook in load_manifest(str(PROJECT / ".pre-commit-hooks.yaml"))}
    entry: dict[str, object] = hooks["lets-state-lint"]
    return entry


def test_manifest_entry_runs_lint_in_pre_commit_and_manual_stages() -> None:
    entry = manifest_entry()
    assert entry["entry"] == "lets-hooks lint"
    assert set(entry["stages"]) == {"pre-commit", "manual"}  # type: ignore[call-overload]
    assert entry["always_run"] is True
    assert entry["pass_filenames"] is False


@pytest.fixture
def pre_commit_box(sandbox: Sandbox, tmp_path: Path) -> tuple[Sandbox, dict[str, str]]:
    """The manifest's entry as a local hook (language: system, the package being
    installed here already), so pre-commit runs exactly the entry the manifest ships."""
    import yaml

    entry = manifest_entry()
    hook = {key: entry[key] for key in ("id", "name", "entry", "stages", "always_run",
                                        "pass_filenames")}
    hook["language"] = "system"
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (sandbox.path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    sandbox.git.add(".pre-commit-config.yaml")
    sandbox.git.commit("-q", "-m", "pre-commit config")
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    return sandbox, env


def pre_commit(box: Sandbox, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "pre-commit"), *args], cwd=box.path, env=env,
                          capture_output=True, text=True, check=False, timeout=120)


@TOOLS_NEED_GIT_2_31
def test_pre_commit_run_all_files_passes_on_a_clean_repository(
        pre_commit_box: tuple[Sandbox, dict[str, str]]) -> None:
    box, env = pre_commit_box
    done = pre_commit(box, env, "run", "lets-state-lint", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout


@TOOLS_NEED_GIT_2_31
def test_pre_commit_run_all_files_fails_on_tracked_state(
        pre_commit_box: tuple[Sandbox, dict[str, str]]) -> None:
    box, env = pre_commit_box
    box.write_task("main", good_line(box))
    box.git.add("-f", ".lets")
    box.git.commit("-q", "-m", "state")
    done = pre_commit(box, env, "run", "lets-state-lint", "--all-files")
    assert done.returncode == 1
    assert "Failed" in done.stdout
    assert ".lets/sessions/.task-main: tracked by git" in done.stdout


def test_pre_commit_manual_stage(pre_commit_box: tuple[Sandbox, dict[str, str]]) -> None:
    box, env = pre_commit_box
    (box.sessions() / ".session-start-ref").write_text("x\n")
    done = pre_commit(box, env, "run", "--hook-stage", "manual", "lets-state-lint")
    assert done.returncode == 1
    assert ".lets/sessions/.session-start-ref: non-slugged boundary file" in done.stdout


def test_pre_commit_stage_blocks_a_commit_of_state(
        pre_commit_box: tuple[Sandbox, dict[str, str]]) -> None:
    box, env = pre_commit_box
    installed = pre_commit(box, env, "install")
    assert installed.returncode == 0, installed.stderr
    (box.path / "ok.txt").write_text("fine\n")
    subprocess.run(["git", "add", "ok.txt"], cwd=box.path, env=env, check=True)
    ok = subprocess.run(["git", "commit", "-q", "-m", "fine"], cwd=box.path, env=env,
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    box.write_task("main", good_line(box))
    subprocess.run(["git", "add", "-f", ".lets"], cwd=box.path, env=env, check=True)
    blocked = subprocess.run(["git", "commit", "-q", "-m", "state"], cwd=box.path, env=env,
                             capture_output=True, text=True, check=False)
    assert blocked.returncode == 1
    assert ".lets/sessions/.task-main: tracked by git" in blocked.stdout + blocked.stderr
    assert ".lets" not in box.git.ls_tree("-r", "--name-only", "HEAD")


def test_readme_shows_the_ci_example() -> None:
    docs = (PROJECT / "README.md").read_text()
    assert "pre-commit run lets-state-lint --all-files" in docs
    assert "lets-hooks lint" in docs
    assert "lets-state-lint" in docs


# -- text the summary would have to escape ---------------------------------------------------

SUMMARY_FILES = ["memory/session-handoff-LATEST.md", "memory/context-log.md",
                 "tasks/lessons.md", "memory/MEMORY.md"]


@pytest.mark.parametrize("relative", SUMMARY_FILES)
@pytest.mark.parametrize("hidden", [
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: a clipboard write
    "\x1b]0;title\x07",  # a window title change
    "\x1b[8mconcealed\x1b[0m",  # text a person cannot see
    "\u009b31m",  # a C1 control sequence introducer
    "file\u202etxt.exe",  # a bidi override
    "\u2066isolate\u2069",
    "zero\u200bwidth",
    "tag\U000e0041\U000e0042",  # tag characters: invisible, read by a model
    "a lone\rreturn",
])
def test_control_characters_in_files_the_summary_reads_fail(sandbox: Sandbox, relative: str,
                                                            hidden: str) -> None:
    path = sandbox.path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    # bytes, so a lone CR stays one (write_text's newline= is 3.10+)
    path.write_bytes(f"# Notes\n\nfine line\nbefore {hidden} after\nfine again\n"
                     .encode())
    done = run_lint(sandbox)
    assert done.returncode == 1, done.stdout + done.stderr
    ours = [line for line in done.stdout.splitlines() if line.startswith(relative + ":")]
    assert len(ours) == 1, done.stdout
    assert ours[0].startswith(f"{relative}: line 4: control or invisible characters")
    assert ours[0].isprintable() and ours[0].isascii()


def test_ordinary_text_in_files_the_summary_reads_passes(sandbox: Sandbox) -> None:
    """Tabs, CRLF line ends, a byte-order mark, accents, CJK and emoji are text."""
    for relative in SUMMARY_FILES:
        path = sandbox.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
    (sandbox.path / SUMMARY_FILES[0]).write_bytes(
        "\ufeff# Handoff\r\n\r\n## Next\r\n- caf\u00e9\tna\u00efve \u65e5\u672c \u2764\ufe0f\r\n"
        .encode())
    hidden = [(p, f) for p, f in findings(sandbox) if "control or invisible" in f]
    assert hidden == []


def test_many_hidden_lines_are_one_finding(sandbox: Sandbox) -> None:
    path = sandbox.path / "tasks" / "lessons.md"
    path.parent.mkdir(parents=True)
    path.write_text("ok\n" + "x\x1b[31my\n" * 3)
    found = [f for p, f in findings(sandbox) if p == "tasks/lessons.md"]
    assert found == ["line 2 (and 2 more lines): control or invisible characters (\\x1b "
                     "first): a terminal escape sequence, a bidi control or text a reader "
                     "cannot see; the summary shows them escaped - remove them"]
