"""Whole outputs of ``lets-session-start`` against expected files, with ``--today`` fixed.

Each case under ``tests/fixtures/summary/<case>/`` is a small project folder and home
folder; ``<case>.expected.md`` and ``<case>.expected.json`` beside them are the exact
outputs. Set ``LETS_UPDATE_EXPECTED=1`` to rewrite the expected files after a deliberate
change (and read the diff before committing it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import git
import pytest

from lets_hooks.cli.summary import session_start_main
from lets_hooks.summary import collect
from lets_hooks.summary.sources.worktree import look

FIXTURES = Path(__file__).parent / "fixtures" / "summary"
CASES = ["full", "prose", "fresh", "malformed", "written", "done"]
TODAY = "2026-11-29"


def copy_case(case: str, tmp_path: Path) -> tuple[Path, Path]:
    """The case's project and home, copied where nothing else can reach them."""
    project, home = tmp_path / "project", tmp_path / "home"
    shutil.copytree(FIXTURES / case / "project", project)
    shutil.copytree(FIXTURES / case / "home", home)
    return project, home


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = session_start_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def check_expected(name: str, actual: str) -> None:
    path = FIXTURES / name
    if os.environ.get("LETS_UPDATE_EXPECTED") == "1":
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def no_repository_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copied project is not inside any git repository, whatever the temp folder is."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


@pytest.mark.parametrize("case", CASES)
def test_markdown_output_matches_expected_file(case: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    project, home = copy_case(case, tmp_path)
    code, out, err = run(capsys, "--root", str(project), "--home", str(home), "--today", TODAY)
    assert (code, err) == (0, "")
    check_expected(f"{case}.expected.md", out)


@pytest.mark.parametrize("case", CASES)
def test_json_output_matches_expected_file(case: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    project, home = copy_case(case, tmp_path)
    code, out, err = run(capsys, "--root", str(project), "--home", str(home), "--today", TODAY,
                         "--json")
    assert (code, err) == (0, "")
    json.loads(out)  # one object, parseable
    check_expected(f"{case}.expected.json", out)


@pytest.mark.parametrize("case", CASES)
def test_json_has_the_same_content_as_the_block(case: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Every list item, metric line and warning of the block is in the JSON object."""
    project, home = copy_case(case, tmp_path)
    common = ["--root", str(project), "--home", str(home), "--today", TODAY]
    _, block, _ = run(capsys, *common)
    _, raw, _ = run(capsys, *common, "--json")
    data = json.loads(raw)
    flat = json.dumps(data, ensure_ascii=False)
    for line in block.splitlines():
        text = line.strip()
        if text.startswith("- ") and "… and" not in text:
            assert json.dumps(text[2:], ensure_ascii=False)[1:-1] in flat, text
        elif text.startswith(("model_tags:", "context_rot:", "autoimmunity:")):
            assert json.dumps(text, ensure_ascii=False)[1:-1] in flat, text
        elif text.startswith("**Priority 1:**"):
            assert data["handoff"]["priority_1"] == text.split(":** ", 1)[1]
    assert data["starting_fresh"] is ("[No handoff — starting fresh]" in block)


def test_output_does_not_depend_on_file_times(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Ages come from the entries' own dates: touching every file changes nothing."""
    project, home = copy_case("full", tmp_path)
    argv = ["--root", str(project), "--home", str(home), "--today", TODAY]
    _, before, _ = run(capsys, *argv)
    for folder in (project, home):
        for path in folder.rglob("*"):
            os.utime(path, (0, 0))
    _, old_times, _ = run(capsys, *argv)
    for folder in (project, home):
        for path in folder.rglob("*"):
            os.utime(path, None)
    _, new_times, _ = run(capsys, *argv)
    assert before == old_times == new_times


def test_same_day_gives_the_same_bytes_twice(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    project, home = copy_case("full", tmp_path)
    argv = ["--root", str(project), "--home", str(home), "--today", TODAY]
    assert run(capsys, *argv) == run(capsys, *argv)
    later = run(capsys, "--root", str(project), "--home", str(home), "--today", "2027-03-01")
    assert later[1] != run(capsys, *argv)[1]  # the date really is an input


# --------------------------------------------------------------------------- in a repository

DEMO_SESSION = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def build_demo(tmp_path: Path) -> tuple[Path, Path]:
    """The ``demo`` case as a git repository, the same bytes on every run: commits with
    fixed dates and identity, a session boundary at the first, two commits of work, then
    one staged, one modified and one untracked file."""
    project, home = copy_case("demo", tmp_path)
    repo = git.Repo.init(project, initial_branch="main")
    try:
        def commit(message: str, when: str) -> str:
            stamp = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
            repo.git.commit("-q", "-m", message, env=stamp)
            return str(repo.git.rev_parse("HEAD"))

        repo.git.add("-A")
        start = commit("the project as the last session left it", "2026-11-25T09:00:00+00:00")
        (project / "src" / "app" / "reader.py").write_text(
            (project / "src" / "app" / "reader.py").read_text() + "\n\ndef count(text: str)"
            " -> int:\n    return len(read_lines(text))\n")
        repo.git.add("-A")
        commit("count lines", "2026-11-27T10:00:00+00:00")
        (project / "src" / "app" / "main.py").write_text("print('count')\n")
        repo.git.add("-A")
        commit("main prints the count", "2026-11-27T11:30:00+00:00")
        sessions = project / ".lets" / "sessions"
        sessions.mkdir(parents=True)
        (sessions / ".task-main").write_text(f"task: summary\nsession: {start} {DEMO_SESSION}\n")
        # A boundary this old would be past the age limit by the time the test runs later.
        (project / ".lets" / "config.toml").write_text("max_age_days = 100000\n")
        (project / ".git" / "info" / "exclude").write_text(".lets/\n")
        (project / "src" / "app" / "writer.py").write_text("def write() -> None: ...\n")
        repo.git.add("src/app/writer.py")
        (project / "src" / "app" / "main.py").write_text("print('count, again')\n")
        (project / "notes.txt").write_text("scratch\n")
    finally:
        repo.close()
    return project, home


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("LETS_SESSION_ID", DEMO_SESSION)
    return build_demo(tmp_path)


@pytest.mark.parametrize("form", ["md", "json"])
def test_demo_repository_output_matches_expected_file(
        demo: tuple[Path, Path], capsys: pytest.CaptureFixture[str], form: str) -> None:
    project, home = demo
    extra = ["--json"] if form == "json" else []
    code, out, err = run(capsys, "--root", str(project), "--home", str(home), "--today", TODAY,
                         *extra)
    assert (code, err) == (0, "")
    check_expected(f"demo.expected.{form}", out)


def test_readme_sample_is_the_demo_output() -> None:
    """The README shows the demo's real output, byte for byte."""
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    match = re.search(r"\$ lets-session-start --today 2026-11-29\n(.*?)\n```", readme, re.S)
    assert match is not None
    assert match.group(1) + "\n" == (FIXTURES / "demo.expected.md").read_text()


def test_demo_git_processes_are_few(demo: tuple[Path, Path]) -> None:
    """Every git process goes through one counted door: the ladder's, one status, one
    cat-file for the boundary's time, one ls-files for the function names."""
    project, home = demo
    inputs = collect(project, home, look(project, os.environ, 1.8e9))
    assert inputs.where is not None
    assert inputs.where.git_calls <= 7, inputs.where.git_calls


# --------------------------------------------------------------------------- placeholders

PLACEHOLDERS = ["_none_", "*None*", "**None**", "(none)", "[none]", "`none`", "None.",
                "None at the moment.", "No blockers.", "No open questions at this time",
                "no decisions pending", "nothing yet", "Nothing.", "n/a", "N/A", "—", "-",
                "None (all resolved)", "none so far"]
NOT_PLACEHOLDERS = ["none of the tests pass", "No network access on the CI runner",
                    "Nothing is cached, so reads are slow", "N/A values break the parser",
                    "None: the deploy still fails on ARM", "no", "No tests for reader.py"]


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_placeholders_are_recognised(text: str) -> None:
    from lets_hooks.summary.sources.text import is_placeholder

    assert is_placeholder(text)
    assert is_placeholder(f"  {text}  ")


@pytest.mark.parametrize("text", NOT_PLACEHOLDERS)
def test_items_that_say_something_are_not_placeholders(text: str) -> None:
    from lets_hooks.summary.sources.text import is_placeholder

    assert not is_placeholder(text)


def test_a_long_text_is_never_a_placeholder_and_costs_nothing() -> None:
    from lets_hooks.summary.sources.text import is_placeholder

    assert not is_placeholder("(" * 1_000_000 + "none" + ")" * 1_000_000)
    assert not is_placeholder("none " * 200)


def _placeholder_project(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / "memory").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    listed = "\n".join(f"- {text}" for text in PLACEHOLDERS)
    (project / "memory" / "session-handoff-LATEST.md").write_text(
        "# Handoff\n\n"
        f"## Next steps\n{listed}\n- Wire the reader into the hook\n\n"
        f"## Open questions\n{listed}\n- Keep the 32 MiB cap?\n\n"
        f"## Blockers\n{listed}\n- CI runner has no network\n\n"
        f"## Failed approaches\n{listed}\n- Parsing with a regex per line\n")
    (home / ".claude" / "STATE.md").write_text(
        f"# State\n\n## Open decisions\n{listed}\n\n## Active blockers\n{listed}\n"
        "- VPN certificate expired\n")
    return project, home


def _shown_items(block: str) -> list[str]:
    return [line.strip()[2:] for line in block.splitlines()
            if line.strip().startswith("- ") and "… and" not in line]


def test_placeholders_are_never_shown_as_items(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """In every section that lists items, of the handoff and of STATE.md."""
    from lets_hooks.summary.sources.text import is_placeholder

    project, home = _placeholder_project(tmp_path)
    common = ["--root", str(project), "--home", str(home), "--today", TODAY]
    _, block, _ = run(capsys, *common)
    items = _shown_items(block)
    assert "Keep the 32 MiB cap?" in items
    assert "CI runner has no network" in items
    assert "Parsing with a regex per line" in items
    assert "blocker: VPN certificate expired" in items
    assert "**Priority 1:** Wire the reader into the hook" in block
    assert "**Priority 2:**" not in block  # every other next step was a placeholder
    for item in items:
        assert not is_placeholder(item.split(": ", 1)[-1]), item
    _, raw, _ = run(capsys, *common, "--json")
    data = json.loads(raw)
    handoff = data["handoff"]
    for name in ("outstanding_decisions", "active_blockers", "do_not_repeat"):
        assert len(handoff[name]["items"]) == 1, (name, handoff[name])
        assert handoff[name]["more"] == 0
    assert data["global"]["items"] == ["blocker: VPN certificate expired"]


def test_a_state_file_of_placeholders_says_none(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    project, home = _placeholder_project(tmp_path)
    (home / ".claude" / "STATE.md").write_text(
        "## Open decisions\n- _none_\n\n## Blockers\n- *None*\n- No blockers.\n")
    _, block, _ = run(capsys, "--root", str(project), "--home", str(home), "--today", TODAY)
    assert "**Global:** none" in block


def test_a_snapshot_of_placeholders_lists_nothing(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    project, home = _placeholder_project(tmp_path)
    (project / "memory" / "session-handoff-LATEST.md").write_text(
        "<!-- state-snapshot v1 -->\n```yaml\nts: 2026-11-28\n"
        "next: [Ship the reader, _none_, N/A]\n"
        "diff: [none]\n"
        "blocked: [{item: none yet, risk: L}, '(none)', '*None*']\n```\n")
    _, block, _ = run(capsys, "--root", str(project), "--home", str(home), "--today", TODAY)
    assert "**Priority 1:** Ship the reader" in block
    assert "**Priority 2:**" not in block
    assert "**Active blockers:** none" in block
    assert "**Recent changes:** none" in block
