"""Hostile inputs: names, lines and bytes someone else chose must stay data.

Each case is its own test and would fail if its guard were removed. Two tests watch every
git process the product starts (the real git runs; the argument list is only recorded)
and the source of ``repo.py`` itself, so that no string from a branch name, a state file,
a config file or the command line can reach git where an option could go.
"""

from __future__ import annotations

import ast
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Sandbox

import lets_hooks.repo as repo_module
from lets_hooks import config, ladder, lint, state
from lets_hooks.repo import Repo

SID = "11111111-2222-3333-4444-555555555555"
REPO_SOURCE = Path(repo_module.__file__).read_text()
SHA_SHAPES = re.compile(r"\^?[0-9a-f]{4,64}(\.\.\.?[0-9a-f]{4,64})?")
SEPARATORS = ("--", "--end-of-options")


# -- watching git --------------------------------------------------------------------------

def _literals(source: str) -> frozenset[str]:
    """Every plain string constant in repo.py: the only vocabulary git may hear as options."""
    tree = ast.parse(source)
    joined = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
              for v in node.values}
    return frozenset(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str)
                     and id(node) not in joined)


def _templates(source: str) -> re.Pattern[str]:
    """repo.py's f-strings as patterns, each placeholder standing for hex digits or a number
    (``f"{base}...{head}"``, ``f"-n{count}"``): the only shapes a built argument may take."""
    shapes = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            shapes.append("".join(
                re.escape(str(v.value)) if isinstance(v, ast.Constant) else "[0-9a-f]+"
                for v in node.values))
    return re.compile("|".join(f"(?:{shape})" for shape in shapes) or "(?!)")


VOCABULARY = _literals(REPO_SOURCE)
TEMPLATES = _templates(REPO_SOURCE)


class GitCalls:
    def __init__(self) -> None:
        self.argvs: list[list[str]] = []
        self.stdins: list[bytes] = []

    def unchecked(self) -> list[tuple[str, list[str]]]:
        """Arguments that reached git before a separator without being ours or a sha."""
        bad = []
        for argv in self.argvs:
            args = argv[1:]
            if args[:1] == ["-C"]:  # the work-tree folder _spawn adds (git's own -C)
                args = args[2:]
            for arg in args:
                if arg in SEPARATORS:
                    break
                if not (arg in VOCABULARY or SHA_SHAPES.fullmatch(arg)
                        or TEMPLATES.fullmatch(arg)):
                    bad.append((arg, argv))
        return bad

    def mentions(self, text: str) -> bool:
        return any(text in arg for argv in self.argvs for arg in argv)


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[GitCalls]:
    """Record every argument list the product hands git; git itself still runs."""
    calls = GitCalls()
    real = repo_module._spawn

    def recording(argv: list[str], cwd: str | None, stdin: bytes | None) -> tuple[int, bytes]:
        calls.argvs.append(list(argv))
        calls.stdins.append(stdin or b"")
        return real(argv, cwd, stdin)

    monkeypatch.setattr(repo_module, "_spawn", recording)
    yield calls
    assert calls.argvs, "the product started no git process: this test checks nothing"
    assert calls.unchecked() == [], "a string reached git where an option could go"


def resolve(box: Sandbox, sid: str | None = SID, **kw: str) -> ladder.Boundary:
    environ = {"LETS_SESSION_ID": sid} if sid else {}
    environ.update(kw)
    return ladder.resolve_path(str(box.path), environ, time.time())


def on_branch(box: Sandbox, name: str) -> None:
    """Check out a branch of any name git accepts, however odd, without git's porcelain."""
    box.git.update_ref(f"refs/heads/{name}", "HEAD")
    box.git.symbolic_ref("HEAD", f"refs/heads/{name}")


def test_static_every_git_argument_in_repo_py_is_literal_checked_or_after_a_separator() -> None:
    """Reads repo.py: a variable reaches git only after ``--``/``--end-of-options``, or after
    ``_require_sha`` vouched for it in the same function (or it is an ``int`` parameter)."""
    tree = ast.parse(REPO_SOURCE)
    problems = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef) or func.name in ("run", "_out", "_spawn"):
            continue
        vouched = {a.arg for a in func.args.args
                   if isinstance(a.annotation, ast.Name) and a.annotation.id == "int"}
        for node in ast.walk(func):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "_require_sha"):
                for arg in node.args:
                    target = arg.value if isinstance(arg, ast.Starred) else arg
                    if isinstance(target, ast.Name):
                        vouched.add(target.id)
        for node in ast.walk(func):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
                    and node.func.attr in ("run", "_out")):
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant) and arg.value in SEPARATORS:
                    break
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    continue
                names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
                if not names or not names <= vouched:
                    problems.append(f"{func.name}: line {node.lineno}: {ast.unparse(arg)}")
    assert problems == []


def test_static_check_sees_a_bad_call() -> None:
    """The checker above is not vacuous: an unguarded variable is caught."""
    bad = "class Repo:\n    def f(self, name):\n        self.run('log', name)\n"
    tree = ast.parse(bad)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert isinstance(call.args[1], ast.Name)
    calls = GitCalls()
    calls.argvs.append(["git", "log", "--output=x"])
    assert calls.unchecked() == [("--output=x", ["git", "log", "--output=x"])]


# -- branch names --------------------------------------------------------------------------

ODD_BRANCHES = [
    "-x",
    "--output=PWNED",
    "--end-of-options",
    "--exec=touch${IFS}PWNED",
    "-",
    "é-ünï/ブランチ",
    "HEAD",
    "@",
    "x;touch PWNED".replace(" ", ""),
    "origin/main",
    "a|b",
]


@pytest.mark.parametrize("name", ODD_BRANCHES)
def test_odd_branch_name_is_data(sandbox: Sandbox, git_calls: GitCalls, name: str) -> None:
    """The branch's own task file is found and trusted: the name travelled as data."""
    sandbox.commit("main tip", age_days=2)
    on_branch(sandbox, name)
    start = sandbox.head()
    sandbox.commit("work", age_days=1)
    path = sandbox.write_task(name, f"session: {start} {SID}\n")
    assert path.name == ".task-" + name.replace("/", "-")
    result = resolve(sandbox)
    assert (result.trust, result.boundary, result.commits) == ("exact", start, 1)
    assert result.branch == name
    assert not (sandbox.path / "PWNED").exists()
    assert not git_calls.mentions(name) or name in VOCABULARY or name in SEPARATORS


def test_branch_named_like_another_commits_sha(sandbox: Sandbox, git_calls: GitCalls) -> None:
    """``--branch <abbreviated sha of another commit>`` means the branch, not the commit."""
    old = sandbox.commit("old", age_days=3)
    tip = sandbox.commit("tip", age_days=2)
    name = old[:12]
    sandbox.git.branch(name, tip)
    done = sandbox.run("lets-session-boundary", "--json", "--branch", name)
    assert done.returncode == 0
    assert json.loads(done.stdout)["head"] == tip
    # and in-process, where every git call is watched
    result = ladder.resolve(Repo(str(sandbox.path)), _config(), None, int(time.time()),
                            branch=name, head="refs/heads/" + name)
    assert result.head == tip


def _config() -> config.Config:
    return config.load(None, {})


def test_branch_name_of_300_characters(sandbox: Sandbox, git_calls: GitCalls) -> None:
    """Its slug is too long for a file name: reported in a note, never a crash."""
    sandbox.commit("main tip", age_days=2)
    name = "/".join(["a" * 100, "b" * 100, "c" * 98])
    assert len(name) == 300
    sandbox.sessions()  # the folder exists, so the file name itself is what fails
    on_branch(sandbox, name)
    sandbox.commit("work", age_days=1)
    result = resolve(sandbox)
    assert result.trust == "estimate"
    assert any("too long a file name" in note for note in result.notes), result.notes
    done = sandbox.run("lets-session-boundary")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "SESSION_TRUST=estimate" in done.stdout


@pytest.mark.parametrize("name", ["a b", "feat x/y", "HEAD~1", "main..HEAD", "main^{tree}",
                                  "-x", "--output=PWNED", "@{-1}", "a\nHEAD", "\x00", ""])
def test_branch_option_that_is_no_branch(sandbox: Sandbox, name: str) -> None:
    """``--branch`` with names git would never accept (spaces, revisions): four lines, none."""
    done = sandbox.run("lets-session-boundary", "--branch=" + name.replace("\x00", "\\0"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert [line.split("=", 1)[0] for line in lines] == [
        "SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
    assert "SESSION_TRUST=none" in lines
    assert not (sandbox.path / "PWNED").exists()


@pytest.mark.parametrize("name", ["a b", "HEAD~1", "main..HEAD", "--output=PWNED", "-x"])
def test_branch_option_in_process_never_reaches_git_as_an_option(
        sandbox: Sandbox, git_calls: GitCalls, name: str) -> None:
    result = ladder.resolve(Repo(str(sandbox.path)), _config(), None, int(time.time()),
                            branch=name, head="refs/heads/" + name)
    assert result.trust == "none"


# -- session lines -------------------------------------------------------------------------

HOSTILE_LINES = [
    "--output=PWNED",
    "-n1",
    "--all",
    "HEAD",
    "HEAD~3..HEAD",
    "main..HEAD",
    "^HEAD",
    "@{-1}",
    "HEAD@{1}",
    ":/work",
    "$(touch PWNED)",
    "`touch PWNED`",
    "deadbeef..HEAD",
    "DEADBEEF",
    "abc123\x00--all",
]


@pytest.mark.parametrize("value", HOSTILE_LINES)
def test_session_line_that_looks_like_git_syntax(sandbox: Sandbox, git_calls: GitCalls,
                                                 value: str) -> None:
    sandbox.commit("main tip", age_days=2)
    sandbox.git.checkout("-q", "-b", "feat")
    sandbox.commit("work", age_days=1)
    sandbox.write_task("feat", f"task: t\nsession: {value} {SID}\n".encode())
    result = resolve(sandbox)
    assert result.trust == "estimate"  # the line was ignored, loudly
    assert any("does not hold a lowercase hex sha" in n for n in result.notes), result.notes
    if value not in VOCABULARY:
        assert not git_calls.mentions(value.split("\x00")[0])
    assert not (sandbox.path / "PWNED").exists()


@pytest.mark.parametrize("value", ["--output=PWNED", "HEAD~1..HEAD", "main"])
def test_legacy_file_that_looks_like_git_syntax(sandbox: Sandbox, git_calls: GitCalls,
                                                value: str) -> None:
    sandbox.commit("main tip", age_days=2)
    sandbox.git.checkout("-q", "-b", "feat")
    (sandbox.sessions() / ".session-start-ref-feat").write_text(value + "\n")
    result = resolve(sandbox)
    assert result.trust == "estimate"
    assert any("does not hold a lowercase hex sha" in n for n in result.notes)
    assert not git_calls.mentions(value)


def test_hostile_merge_branch_setting_is_refused(sandbox: Sandbox, git_calls: GitCalls) -> None:
    sandbox.git.checkout("-q", "-b", "feat")
    result = resolve(sandbox, LETS_MERGE_BRANCH="--output=PWNED")
    assert any("LETS_MERGE_BRANCH" in n for n in result.notes)
    assert not git_calls.mentions("PWNED")


def test_hostile_merge_branch_in_config_file_is_refused(sandbox: Sandbox,
                                                        git_calls: GitCalls) -> None:
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").write_text('merge_branch = "-x..HEAD"\n')
    sandbox.git.checkout("-q", "-b", "feat")
    result = resolve(sandbox)
    assert any("merge_branch" in n for n in result.notes)
    assert not git_calls.mentions("-x..HEAD")


# -- bytes that are not text ---------------------------------------------------------------

def test_task_file_with_nul_and_invalid_utf8_around_a_good_line(sandbox: Sandbox) -> None:
    start = sandbox.commit("fresh", age_days=1)
    body = b"\x00" * 64 + b"\xff\xfe garbage \xc3\x28\n" + f"session: {start} {SID}\n".encode()
    sandbox.write_task("main", body + b"\x00\x00\xff")
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    assert (result.trust, result.boundary) == ("exact", start)


def test_task_file_session_line_with_nul_in_the_sha(sandbox: Sandbox) -> None:
    sandbox.write_task("main", f"session: {sandbox.head()[:20]}\x00{sandbox.head()[20:]}\n")
    result = resolve(sandbox)
    assert result.trust == "none"
    assert any("does not hold a lowercase hex sha" in n for n in result.notes)


def test_task_file_session_line_with_invalid_utf8_sid(sandbox: Sandbox) -> None:
    start = sandbox.commit("fresh", age_days=1)
    sandbox.write_task("main", f"session: {start} ".encode() + b"\xff\xfe\n")
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    assert (result.trust, result.boundary) == ("prior-session", start)
    done = sandbox.run("lets-session-boundary", "--json", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0 and "Traceback" not in done.stderr


def test_legacy_file_of_nul_bytes(sandbox: Sandbox) -> None:
    (sandbox.sessions() / ".session-start-ref-main").write_bytes(b"\x00" * 4096)
    done = sandbox.run("lets-session-boundary")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "SESSION_TRUST=none" in done.stdout


@pytest.mark.parametrize("where", [".lets/config.toml", "pyproject.toml"])
@pytest.mark.parametrize("junk", [b"[tool.lets]\nmax_age_days = 3\x00\n",
                                  b"[tool.lets]\nmerge_branch = \"\xff\xfe\"\n"])
def test_config_file_with_nul_or_invalid_utf8(sandbox: Sandbox, where: str, junk: bytes) -> None:
    body = junk if where == "pyproject.toml" else junk.replace(b"[tool.lets]\n", b"")
    path = sandbox.path / where
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(body)
    done = sandbox.run("lets-session-boundary")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert len(done.stdout.splitlines()) == 4
    [problem] = [line for line in done.stderr.splitlines() if where in line]
    assert "ignored" in problem
    assert path.read_bytes() == body


def test_lint_on_task_file_of_random_bytes(sandbox: Sandbox) -> None:
    sandbox.write_task("main", os.urandom(4096).replace(b"\n", b"") + b"\nsession: \xff\x00\n")
    done = sandbox.run("lets-hooks", "lint") if _has_lint_command() else None
    found = lint.lint(Repo(str(sandbox.path)), str(sandbox.path))
    assert [f.path for f in found] == [".lets/sessions/.task-main"]
    assert all(str(f).isprintable() for f in found)
    if done is not None:
        assert done.returncode == 1 and "Traceback" not in done.stderr


def _has_lint_command() -> bool:
    hooks = Path(repo_module.__file__).parent / "cli" / "hooks.py"
    return hooks.exists() and '"lint"' in hooks.read_text()


# -- a huge task file ----------------------------------------------------------------------

GIB = 1 << 30


def _bytes_read() -> int:
    with open("/proc/self/io") as handle:
        for line in handle:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar")


needs_proc_io = pytest.mark.skipif(not os.path.exists("/proc/self/io"),
                                   reason="needs /proc/self/io to count bytes read")


def sparse_task(box: Sandbox, head: bytes, size: int = GIB) -> Path:
    path = box.write_task("main", head)
    with open(path, "r+b") as handle:
        handle.truncate(size)  # sparse: costs no disk
    assert path.stat().st_size == size
    return path


@needs_proc_io
def test_one_gigabyte_task_file_is_not_read_whole(sandbox: Sandbox) -> None:
    start = sandbox.commit("fresh", age_days=1)
    path = sparse_task(sandbox, f"session: {start} {SID}\n".encode())
    before = _bytes_read()
    clock = time.monotonic()
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    elapsed = time.monotonic() - clock
    read = _bytes_read() - before
    assert (result.trust, result.boundary) == ("exact", start)
    assert read < 8 * state.MAX_SCAN, f"read {read} bytes of a 1 GiB file"
    assert elapsed < 5
    assert path.stat().st_size == GIB


@needs_proc_io
def test_session_line_past_the_first_mebibyte_is_never_reached(sandbox: Sandbox) -> None:
    path = sparse_task(sandbox, b"task: t\n")
    with open(path, "r+b") as handle:
        handle.seek(GIB - 100)
        handle.write(f"\nsession: {sandbox.head()} {SID}\n".encode())
    before = _bytes_read()
    result = resolve(sandbox)
    assert result.trust == "none"  # on main, nothing recorded within reach
    assert _bytes_read() - before < 8 * state.MAX_SCAN


@needs_proc_io
def test_lint_on_one_gigabyte_task_file_is_bounded(sandbox: Sandbox) -> None:
    sparse_task(sandbox, b"session: not-a-sha\n")
    before = _bytes_read()
    found = lint.lint(Repo(str(sandbox.path)), str(sandbox.path))
    assert [f.path for f in found] == [".lets/sessions/.task-main"]
    assert _bytes_read() - before < 8 * state.MAX_SCAN


# -- symlinks ------------------------------------------------------------------------------

def test_task_file_symlinked_outside_is_never_followed(sandbox: Sandbox, tmp_path: Path) -> None:
    """Followed, the outside file would grant ``exact``; refused, it grants nothing."""
    start = sandbox.commit("fresh", age_days=1)
    outside = tmp_path / "elsewhere.md"
    outside.write_text(f"session: {start} {SID}\n")
    os.symlink(outside, sandbox.sessions() / ".task-main")
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    assert result.trust == "none"
    assert any("symbolic link - refused, not followed" in n for n in result.notes)
    assert outside.read_text() == f"session: {start} {SID}\n"


def test_legacy_file_symlinked_outside_is_never_followed(sandbox: Sandbox,
                                                         tmp_path: Path) -> None:
    outside = tmp_path / "ref"
    outside.write_text(sandbox.commit("fresh", age_days=1) + "\n")
    os.symlink(outside, sandbox.sessions() / ".session-start-ref-main")
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    assert result.trust == "none"
    assert any("symbolic link" in n for n in result.notes)


def test_task_file_that_is_a_fifo_does_not_hang(sandbox: Sandbox) -> None:
    os.mkfifo(sandbox.sessions() / ".task-main")
    clock = time.monotonic()
    result = resolve(sandbox)
    assert time.monotonic() - clock < 10
    assert any("not a regular file" in n for n in result.notes)


def test_symlinked_lets_folder_keeps_working(sandbox: Sandbox, tmp_path: Path) -> None:
    """Linked worktrees share one .lets by a symlink: that is allowed and read."""
    shared = tmp_path / "shared-lets"
    (shared / "sessions").mkdir(parents=True)
    start = sandbox.commit("fresh", age_days=1)
    (shared / "sessions" / ".task-main").write_text(f"session: {start} {SID}\n")
    os.symlink(shared, sandbox.path / ".lets")
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    assert (result.trust, result.boundary) == ("exact", start)


# -- refs someone else named -------------------------------------------------------------

def test_tag_named_like_the_merge_branch_cannot_move_the_branch_point(
        sandbox: Sandbox, git_calls: GitCalls) -> None:
    """A fetched tag called ``main`` must not stand in for the branch ``main``: git's
    name lookup prefers tags to branches, so the ladder asks for full ref names."""
    sandbox.commit("main tip", age_days=3)
    sandbox.git.checkout("-q", "-b", "feat")
    start = sandbox.head()
    sandbox.commit("work 1", age_days=2)
    sandbox.commit("work 2", age_days=1)
    sandbox.git.tag("main", "HEAD~1")  # e.g. pushed by someone else, fetched with tags
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    result = resolve(sandbox)
    assert (result.trust, result.boundary, result.commits) == ("exact", start, 2), result.notes


def test_local_branch_named_like_the_remote_branch(sandbox: Sandbox, git_calls: GitCalls) -> None:
    """A local branch called ``origin/main`` is not the remote-tracking ``origin/main``."""
    sandbox.commit("main tip", age_days=3)
    sandbox.git.checkout("-q", "-b", "feat")
    start = sandbox.head()
    sandbox.commit("work", age_days=1)
    sandbox.git.branch("origin/main", "HEAD")
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    result = resolve(sandbox)
    assert (result.trust, result.boundary, result.commits) == ("exact", start, 1), result.notes
