"""Settings: environment > .lets/config.toml > [tool.lets] in pyproject.toml > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Sandbox
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import config


def write(top: Path, pyproject: str | None = None, own: str | None = None) -> None:
    if pyproject is not None:
        (top / "pyproject.toml").write_text(pyproject)
    if own is not None:
        (top / ".lets").mkdir(exist_ok=True)
        (top / ".lets" / "config.toml").write_text(own)


def test_defaults(tmp_path: Path) -> None:
    loaded = config.load(str(tmp_path), {})
    assert loaded.merge_branch is None
    assert loaded.max_age_days == 14
    assert loaded.session_id_env == ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID")
    assert loaded.pre_push_strict is False
    assert loaded.problems == []


def test_precedence_env_over_own_file_over_pyproject(tmp_path: Path) -> None:
    write(tmp_path,
          pyproject='[tool.lets]\nmerge_branch = "py"\nmax_age_days = 5\n'
                    'session_id_env = ["PY_SID"]\n[tool.lets.pre_push]\nstrict = true\n',
          own='merge_branch = "own"\nmax_age_days = 7\n')
    loaded = config.load(str(tmp_path), {})
    assert loaded.merge_branch == "own"
    assert loaded.max_age_days == 7
    assert loaded.session_id_env == ("PY_SID",)  # only pyproject sets it
    assert loaded.pre_push_strict is True
    loaded = config.load(str(tmp_path), {"LETS_MERGE_BRANCH": "env"})
    assert loaded.merge_branch == "env"
    assert loaded.sources["merge_branch"] == "LETS_MERGE_BRANCH"


def test_pyproject_that_cannot_hold_our_table_is_not_parsed(tmp_path: Path) -> None:
    # Invalid TOML with no key that could be ours: not parsed, so no complaint.
    write(tmp_path, pyproject="[project\nname = 'x'\n")
    assert config.load(str(tmp_path), {}).problems == []
    # ... but one that could be is parsed, and its error said.
    write(tmp_path, pyproject="[project\nname = 'lets-x'\n")
    assert any("invalid TOML" in p for p in config.load(str(tmp_path), {}).problems)


def test_session_id_is_first_non_empty_variable(tmp_path: Path) -> None:
    write(tmp_path, own='session_id_env = ["A", "B"]\n')
    loaded = config.load(str(tmp_path), {})
    assert loaded.session_id({"A": "", "B": "b-id"}) == "b-id"
    assert loaded.session_id({"A": "a-id", "B": "b-id"}) == "a-id"
    assert loaded.session_id({}) is None


@pytest.mark.parametrize(("text", "needle"), [
    ("merge_branch = [1\n", "invalid TOML"),
    ("max_age_days = -1\n", "max_age_days: must be a whole number"),
    ("max_age_days = true\n", "max_age_days: must be a whole number"),
    ('merge_branch = "--exec=x"\n', "merge_branch: '--exec=x' is not a valid branch name"),
    ("session_id_env = 3\n", "session_id_env: must be a list"),
    ("[pre_push]\nstrict = 'yes'\n", "pre_push: expected a table"),
    ("colour = 1\n", "unknown key 'colour'"),
])
def test_bad_values_are_one_line_naming_file_and_key(tmp_path: Path, text: str,
                                                     needle: str) -> None:
    write(tmp_path, own=text)
    loaded = config.load(str(tmp_path), {})
    assert len(loaded.problems) == 1
    assert loaded.problems[0].startswith(".lets/config.toml: ")
    assert needle in loaded.problems[0]
    assert "\n" not in loaded.problems[0]
    assert loaded.max_age_days == 14 and loaded.merge_branch is None


def test_non_utf8_config(tmp_path: Path) -> None:
    (tmp_path / ".lets").mkdir()
    (tmp_path / ".lets" / "config.toml").write_bytes(b"merge_branch = '\xff'\n")
    assert config.load(str(tmp_path), {}).problems == [
        ".lets/config.toml: not UTF-8 text; ignored"]


def test_pyproject_setting_drives_the_command(sandbox: Sandbox) -> None:
    sandbox.git.branch("-q", "-m", "trunk")
    point = sandbox.commit("point", age_days=2)
    sandbox.git.checkout("-q", "-b", "feat")
    sandbox.commit("work")
    write(sandbox.path, pyproject='[tool.lets]\nmerge_branch = "trunk"\n')
    fields = sandbox.boundary()
    assert fields["SESSION_TRUST"] == "estimate"
    assert fields["SESSION_BOUNDARY"] == point


# -- the table found by the TOML grammar, however it is spelled ------------------------------

SPELLINGS = [
    '[tool.lets.pre_push]\nstrict = true\n',
    '[tool."lets".pre_push]\nstrict = true\n',
    "[tool . lets]\npre_push = { strict = true }\n",
    '["tool".lets]\npre_push.strict = true\n',
    "[tool.'lets'.'pre_push']\nstrict = true\n",
    '[tool]\nlets = { pre_push = { strict = true } }\n',
    'tool.lets.pre_push.strict = true\n',
    '["tool"."\\u006cets".pre_push]\nstrict = true\n',  # an escape: no "lets" bytes at all
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_the_table_is_read(tmp_path: Path, text: str) -> None:
    write(tmp_path, pyproject="# a project\n" + text + '\n[project]\nname = "x"\n')
    loaded = config.load(str(tmp_path), {})
    assert loaded.problems == []
    assert loaded.pre_push_strict is True


@st.composite
def toml_keys(draw: st.DrawFn) -> str:
    """A TOML key naming "lets", spelled any way the grammar allows."""
    style = draw(st.sampled_from(["bare", "literal", "basic", "escaped"]))
    if style == "bare":
        return "lets"
    if style == "literal":
        return "'lets'"
    if style == "basic":
        return '"lets"'
    escaped = "".join(draw(st.sampled_from([c, f"\\u{ord(c):04x}", f"\\U{ord(c):08x}"]))
                      for c in "lets")
    return f'"{escaped}"'


@settings(max_examples=200, deadline=None)
@given(toml_keys(), st.sampled_from(["[tool.{k}]\nx = 1\n", "tool.{k}.x = 1\n",
                                     "[tool]\n{k} = {{ x = 1 }}\n", "[ tool . {k} ]\nx = 1\n"]))
def test_a_file_the_parse_is_skipped_for_cannot_hold_the_table(key: str, shape: str) -> None:
    """The parse is skipped only when no key could be ``lets``: for every spelling the
    grammar allows, the cheap test says "parse it", and the parser finds the table."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    text = shape.format(k=key)
    assert tomllib.loads(text)["tool"]["lets"] == {"x": 1}
    assert config.may_hold_lets(text.encode())


def test_the_parse_is_skipped_only_without_lets_and_backslashes() -> None:
    assert not config.may_hold_lets(b'[tool.ruff]\nline-length = 100\n')
    assert config.may_hold_lets(b'[tool.ruff]\nx = "a\\\\b"\n')
    assert config.may_hold_lets(b"# lets\n")


# -- the parse cache -----------------------------------------------------------------------------

def test_the_parse_is_cached_until_the_file_changes(sandbox: Sandbox) -> None:
    """With the git directory given, what the parser made of a file is kept beside it and
    used while the file is the same; any change of the file is parsed again."""
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    write(sandbox.path, pyproject='[tool."lets"]\nmax_age_days = 5\n',
          own="merge_branch = [1\n")
    first = config.load(top, {}, git_dir)
    assert first.max_age_days == 5
    assert len(first.problems) == 1 and "invalid TOML" in first.problems[0]
    cache = sandbox.path / ".git" / "lets-config.cache"
    assert cache.exists()
    again = config.load(top, {}, git_dir)
    assert (again.max_age_days, again.problems) == (5, first.problems)
    stamp = cache.stat().st_mtime_ns
    config.load(top, {}, git_dir)
    assert cache.stat().st_mtime_ns == stamp  # nothing new to keep: not rewritten
    write(sandbox.path, pyproject='[tool."lets"]\nmax_age_days = 6\n', own='merge_branch = "x"\n')
    changed = config.load(top, {}, git_dir)
    assert (changed.max_age_days, changed.merge_branch, changed.problems) == (6, "x", [])


def test_a_broken_cache_is_only_a_parse_more(sandbox: Sandbox) -> None:
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    write(sandbox.path, pyproject='[tool.lets]\nmax_age_days = 3\n')
    (sandbox.path / ".git" / "lets-config.cache").write_bytes(b"\x00garbage\xff")
    assert config.load(top, {}, git_dir).max_age_days == 3


def test_a_table_holding_a_date_is_parsed_each_time(sandbox: Sandbox) -> None:
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    write(sandbox.path, own="max_age_days = 4\nwhen = 2026-11-30\n")
    loaded = config.load(top, {}, git_dir)
    assert loaded.max_age_days == 4 and any("unknown key 'when'" in p for p in loaded.problems)
    assert config.load(top, {}, git_dir).max_age_days == 4
