"""Settings: environment > .lets/config.toml > [tool.lets] in pyproject.toml > defaults."""

from __future__ import annotations

import marshal
import os
import zlib
from pathlib import Path

import pytest
from helpers import Sandbox
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import config, files


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
    assert loaded.session_id_env == ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID",
                                     "CODEX_THREAD_ID", "GEMINI_SESSION_ID")
    assert loaded.pre_push_strict is False
    assert loaded.problems == []


def test_precedence_env_over_own_file_over_pyproject(tmp_path: Path) -> None:
    write(tmp_path,
          pyproject='[tool.lets]\nmerge_branch = "py"\nmax_age_days = 5\n'
                    'session_id_env = ["PY_SESSION_ID"]\n[tool.lets.pre_push]\nstrict = true\n',
          own='merge_branch = "own"\nmax_age_days = 7\n')
    loaded = config.load(str(tmp_path), {})
    assert loaded.merge_branch == "own"
    assert loaded.max_age_days == 7
    # only pyproject sets it; LETS_SESSION_ID stays first
    assert loaded.session_id_env == ("LETS_SESSION_ID", "PY_SESSION_ID")
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
    write(tmp_path, own='session_id_env = ["A_SESSION_ID", "B_SESSION_ID"]\n')
    loaded = config.load(str(tmp_path), {})
    assert loaded.problems == []
    assert loaded.session_id({"A_SESSION_ID": "", "B_SESSION_ID": "b-id-0001"}) == "b-id-0001"
    assert loaded.session_id({"A_SESSION_ID": "a-id-0001", "B_SESSION_ID": "b-id-0001"}
                             ) == "a-id-0001"
    assert loaded.session_id({}) is None


# -- what a repository ships cannot choose the session id --------------------------------------

@pytest.mark.parametrize("where", ["own", "pyproject"])
def test_the_environment_s_lets_session_id_always_wins(tmp_path: Path, where: str) -> None:
    text = 'session_id_env = ["TOOL_SESSION_ID"]\n'
    if where == "own":
        write(tmp_path, own=text)
    else:
        write(tmp_path, pyproject="[tool.lets]\n" + text)
    loaded = config.load(str(tmp_path), {})
    assert loaded.problems == []
    environ = {"LETS_SESSION_ID": "mine", "TOOL_SESSION_ID": "the-tool-s-own-id"}
    assert loaded.session_id(environ) == "mine"
    assert loaded.session_id({"TOOL_SESSION_ID": "the-tool-s-own-id"}) == "the-tool-s-own-id"


@pytest.mark.parametrize("name", ["HOME", "PATH", "USER", "PWD", "SHELL", "TERM",
                                  "XDG_SESSION_ID", "SESSION_ID", "lets_session_id",
                                  "MY-TOOL_SESSION_ID", "A_SESSION_ID\u202e", ""])
def test_a_committed_session_id_env_cannot_name_another_variable(tmp_path: Path,
                                                                  name: str) -> None:
    write(tmp_path, own=f"session_id_env = [{name!r}]\n".replace("'", '"'))
    loaded = config.load(str(tmp_path), {})
    assert loaded.session_id_env == config.DEFAULT_SESSION_ID_ENV
    assert len(loaded.problems) == 1 and "session_id_env" in loaded.problems[0]
    assert loaded.problems[0].isprintable()
    environ = {name: "/home/someone", "HOME": "/home/someone", "XDG_SESSION_ID": "2"}
    assert loaded.session_id(environ) is None


def test_home_committed_as_session_id_env_never_becomes_the_id(sandbox: Sandbox) -> None:
    """The whole way: a committed ``session_id_env = ["HOME"]``, two sessions, one $HOME:
    the second never reads ``exact`` over the first one's commits, and $HOME is never
    written as a session id."""
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").write_text('session_id_env = ["HOME"]\n')
    sandbox.git.add(".lets/config.toml")
    sandbox.commit("settings")
    sandbox.git.checkout("-q", "-b", "feat")
    home = os.environ["HOME"]
    first = sandbox.run("lets-hooks", "record", env={"LETS_SESSION_ID": "first-session"})
    assert first.returncode == 0, first.stderr
    task = (sandbox.path / ".lets" / "sessions" / ".task-feat").read_text()
    assert " first-session" in task and home not in task
    sandbox.commit("first session's work", sid="first-session")
    second = sandbox.boundary(env={"HOME": home})
    assert second["SESSION_TRUST"] != "exact"
    assert sandbox.boundary(env={"LETS_SESSION_ID": "first-session"})["SESSION_TRUST"] == "exact"
    no_id = sandbox.run("lets-hooks", "record", env={"HOME": home})
    assert home not in (sandbox.path / ".lets" / "sessions" / ".task-feat").read_text()
    assert "session_id_env" in no_id.stderr


def test_a_value_a_configured_variable_holds_must_be_a_session_s_id(tmp_path: Path) -> None:
    write(tmp_path, own='session_id_env = ["TOOL_SESSION_ID"]\n')
    loaded = config.load(str(tmp_path), {})
    for value in ("2", "c1", "has blank", "zero\u200bwidth", "x" * 201):
        assert loaded.session_id({"TOOL_SESSION_ID": value}) is None, value
    assert loaded.session_id({"TOOL_SESSION_ID": "0f3c9a7e-1"}) == "0f3c9a7e-1"
    # the defaults are the user's own environment: taken as they are
    assert config.load(str(tmp_path), {}).session_id({"LETS_SESSION_ID": "s"}) == "s"


@pytest.mark.parametrize(("text", "needle"), [
    ("merge_branch = [1\n", "invalid TOML"),
    ("max_age_days = -1\n", "max_age_days: must be a whole number"),
    ("max_age_days = true\n", "max_age_days: must be a whole number"),
    ('merge_branch = "--exec=x"\n', "merge_branch: '--exec=x' is not a valid branch name"),
    ("session_id_env = 3\n", "session_id_env: must be a list"),
    ("[pre_push]\nstrict = 'yes'\n", "pre_push: expected a table"),
    ("colour = 1\n", "unknown key 'colour'"),
    ('merge_branch = "ma\\u009bin"\n', "merge_branch: 'ma\\x9bin' is not a valid branch name"),
    ('merge_branch = "ma\\u202ein"\n', "merge_branch: 'ma\\u202ein' is not a valid branch name"),
    ('merge_branch = "ma\\u2066in"\n', "merge_branch: 'ma\\u2066in' is not a valid"),
    ('merge_branch = "ma\\u200bin"\n', "merge_branch: 'ma\\u200bin' is not a valid"),
    ('"\\u001b]0;title\\u0007" = 1\n', "unknown key '\\x1b]0;title\\x07'"),
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


def test_a_corrupt_five_byte_cache_is_ignored_and_rewritten(sandbox: Sandbox) -> None:
    """The five bytes that once made every command ask for gigabytes: a list of 2**31."""
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    write(sandbox.path, own="max_age_days = 3\n")
    cache = sandbox.path / ".git" / "lets-config.cache"
    cache.write_bytes(b"[\xff\xff\xff\x7f")
    loaded = config.load(top, {}, git_dir)
    assert (loaded.max_age_days, loaded.problems) == (3, [])
    assert config.load_cache(cache.read_bytes()) is not None  # rewritten, whole
    done = sandbox.run("lets-hooks", "status")
    assert done.returncode == 0 and "MemoryError" not in done.stderr


def _valid_cache(sandbox: Sandbox) -> bytes:
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    write(sandbox.path, pyproject='[tool.lets]\nmerge_branch = "trunk"\n',
          own='max_age_days = 3\nsession_id_env = ["T_SESSION_ID"]\n[pre_push]\nstrict = true\n')
    config.load(top, {}, git_dir)
    data = (sandbox.path / ".git" / "lets-config.cache").read_bytes()
    assert config.load_cache(data) is not None
    return data


@st.composite
def corruptions(draw: st.DrawFn, data: bytes) -> bytes:
    kind = draw(st.sampled_from(["cut", "flip", "splice", "length", "payload"]))
    if kind == "cut":
        return data[:draw(st.integers(0, len(data) - 1))]
    if kind == "flip":
        at = draw(st.integers(0, len(data) - 1))
        bit = 1 << draw(st.integers(0, 7))
        return data[:at] + bytes([data[at] ^ bit]) + data[at + 1:]
    if kind == "splice":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at:]
    if kind == "length":  # a header claiming a huge payload
        head, _, payload = data.partition(b"\n")[2].partition(b"\n")
        size = draw(st.sampled_from([2**31 - 1, 2**32, 10**18, len(payload) + 1]))
        return config.CACHE_MAGIC + b"%d " % size + head.split(b" ")[1] + b"\n" + payload
    # a payload that is no cache (other data, a value that is not a table), under a
    # checksum that matches it
    bad = draw(st.sampled_from([b"", b"\x00garbage", marshal.dumps([1, 2], 4),
                                marshal.dumps("text", 4), payload_of(data)[:-1]]))
    return config.CACHE_MAGIC + b"%d %08x\n" % (len(bad), zlib.crc32(bad)) + bad


def payload_of(data: bytes) -> bytes:
    return data.partition(b"\n")[2].partition(b"\n")[2]


def test_a_corrupt_cache_is_ignored_and_rewritten(sandbox: Sandbox) -> None:
    """Random corruptions of a real cache (cut short, a flipped bit, bytes spliced in, a
    length field of gigabytes, other data under a matching checksum): every load
    reads the files' true settings, never raises, and leaves a cache that reads back."""
    good = _valid_cache(sandbox)
    top, git_dir = str(sandbox.path), str(sandbox.path / ".git")
    cache = sandbox.path / ".git" / "lets-config.cache"
    expected = config.load(top, {}, git_dir)
    want = (expected.merge_branch, expected.max_age_days, expected.pre_push_strict,
            expected.session_id_env, expected.problems)
    assert want[:3] == ("trunk", 3, True)

    @settings(max_examples=300, deadline=None)
    @given(corruptions(good))
    def check(bad: bytes) -> None:
        cache.write_bytes(bad)
        loaded = config.load(top, {}, git_dir)
        assert (loaded.merge_branch, loaded.max_age_days, loaded.pre_push_strict,
                loaded.session_id_env, loaded.problems) == want
        assert config.load_cache(cache.read_bytes()) is not None

    check()


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats()
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=20))
@settings(max_examples=200, deadline=None)
def test_the_cache_format_reads_back_what_it_wrote(value: object) -> None:
    entries = {"/a/.lets/config.toml": ((1, 2, 3), {"k": value}, ["said"])}
    back = config.load_cache(files.sealed(config.CACHE_MAGIC, entries))
    assert back is not None
    assert repr(back) == repr(entries)  # repr: NaN is not equal to itself


def test_a_config_toml_link_out_of_the_repository_is_not_read(sandbox: Sandbox,
                                                              tmp_path: Path) -> None:
    """A committed .lets/config.toml that links to a file of whoever clones: not read,
    nothing of it printed; the same fence as pyproject.toml's."""
    private = tmp_path / "private.toml"
    private.write_text('merge_branch = "secret-value-1234"\nmax_age_days = 2\n')
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").symlink_to(private)
    (sandbox.path / "pyproject.toml").symlink_to(private)
    loaded = config.load(str(sandbox.path), {}, str(sandbox.path / ".git"))
    assert loaded.merge_branch is None and loaded.max_age_days == 14
    assert any(p.startswith(".lets/config.toml: ") and "leads out of" in p
               for p in loaded.problems)
    assert not any("secret-value" in p for p in loaded.problems)
    done = sandbox.run("lets-session-boundary")
    assert "secret-value" not in done.stdout + done.stderr
    # a link that stays inside the work tree is read
    (sandbox.path / "settings.toml").write_text("max_age_days = 5\n")
    (sandbox.path / ".lets" / "config.toml").unlink()
    (sandbox.path / ".lets" / "config.toml").symlink_to(sandbox.path / "settings.toml")
    assert config.load(str(sandbox.path), {}).max_age_days == 5
