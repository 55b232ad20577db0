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
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import BIN, SID, Sandbox, resolve_path, write_session_line

import lets_hooks.repo as repo_module
from lets_hooks import config, ladder, lint, state
from lets_hooks.repo import Repo

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

    def recording(argv: list[str], cwd: str | None,
                  stdin: bytes | None) -> tuple[int, bytes, bytes]:
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
    return resolve_path(str(box.path), environ, time.time())


def on_branch(box: Sandbox, name: str) -> None:
    """Check out a branch of any name git accepts, however odd, without git's porcelain."""
    box.git.update_ref(f"refs/heads/{name}", "HEAD")
    box.git.symbolic_ref("HEAD", f"refs/heads/{name}")


def test_static_every_git_argument_in_repo_py_is_literal_checked_or_after_a_separator() -> None:
    """Reads repo.py: a variable reaches git only after ``--``/``--end-of-options``, or after
    ``_require_sha`` vouched for it in the same function (or it is an ``int`` parameter).
    A module-level tuple of literal words (``_LOCATE``) is literal; ``start`` is a door
    to git like ``run``."""
    tree = ast.parse(REPO_SOURCE)
    literal_tuples = {
        target.id for node in tree.body if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Tuple)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                for e in node.value.elts)
        for target in node.targets if isinstance(target, ast.Name)}
    assert "_LOCATE" in literal_tuples
    problems = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef) or func.name in ("run", "_out", "_must", "_one",
                                                                  "_answer", "_spawn"):
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
                    and node.func.attr in ("run", "_out", "_must", "_one", "_answer",
                                           "start")):
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant) and arg.value in SEPARATORS:
                    break
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    continue
                if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name) \
                        and arg.value.id in literal_tuples:
                    continue
                names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
                if not names or not names <= vouched:
                    problems.append(f"{func.name}: line {node.lineno}: {ast.unparse(arg)}")
    assert problems == []


def test_static_only_repo_py_starts_processes() -> None:
    """One door to git: no other module of the product can start a process."""
    package = Path(repo_module.__file__).parent
    spawners = re.compile(r"\bsubprocess\b|posix_spawn|\bos\.(system|popen|exec\w*|fork\w*)\b"
                          r"|\bPopen\b|\bpty\b|\bmultiprocessing\b")
    found = [f"{path.relative_to(package)}: {line.strip()}"
             for path in sorted(package.rglob("*.py")) if path.name != "repo.py"
             for line in path.read_text().splitlines()
             if spawners.search(line.split("#", 1)[0])]
    assert found == []


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
    sandbox.commit("work", age_days=1, sid=SID)
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
    """Over the limit the writer refuses, the reader does not act on part of it either:
    it is ignored with a note, and costs no more than a look at its size."""
    start = sandbox.commit("fresh", age_days=1)
    path = sparse_task(sandbox, f"session: {start} {SID}\n".encode())
    before = _bytes_read()
    result = resolve(sandbox, LETS_MERGE_BRANCH="trunk")
    read = _bytes_read() - before
    assert (result.trust, result.boundary) == ("none", None)
    assert any("over the 1 MiB limit" in n for n in result.notes), result.notes
    assert read < 8 * state.MAX_BYTES, f"read {read} bytes of a 1 GiB file"
    assert path.stat().st_size == GIB


@needs_proc_io
def test_session_line_past_the_first_mebibyte_is_never_reached(sandbox: Sandbox) -> None:
    path = sparse_task(sandbox, b"task: t\n")
    with open(path, "r+b") as handle:
        handle.seek(GIB - 100)
        handle.write(f"\nsession: {sandbox.head()} {SID}\n".encode())
    before = _bytes_read()
    result = resolve(sandbox)
    assert result.trust == "none"  # on main, and the file is over the limit: not read
    assert _bytes_read() - before < 8 * state.MAX_BYTES


@needs_proc_io
def test_lint_on_one_gigabyte_task_file_is_bounded(sandbox: Sandbox) -> None:
    sparse_task(sandbox, b"session: not-a-sha\n")
    before = _bytes_read()
    found = lint.lint(Repo(str(sandbox.path)), str(sandbox.path))
    assert [f.path for f in found] == [".lets/sessions/.task-main"]
    assert _bytes_read() - before < 8 * state.MAX_BYTES


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
    """Opened for reading, a FIFO blocks until a writer comes: the reader must open it
    without blocking and look before it reads. Run beside the test, so that a reader
    that blocked is a failure (a hang guard of a minute, not a time budget)."""
    import threading

    os.mkfifo(sandbox.sessions() / ".task-main")
    found: list[list[str]] = []
    reader = threading.Thread(target=lambda: found.append(resolve(sandbox).notes),
                              daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "reading the FIFO blocked"
    assert any("not a regular file" in n for n in found[0])


def test_symlinked_lets_folder_keeps_working(sandbox: Sandbox, tmp_path: Path) -> None:
    """Linked worktrees share one .lets by a symlink to the main work tree's: that is
    allowed and read."""
    start = sandbox.commit("fresh", age_days=1)
    linked = tmp_path / "linked"
    sandbox.git.worktree("add", "-q", "-b", "feat", str(linked))
    shared = sandbox.sessions()
    (shared / ".task-feat").write_text(f"session: {start} {SID}\n")
    os.symlink(sandbox.path / ".lets", linked / ".lets")
    result = resolve_path(
        str(linked), {"LETS_SESSION_ID": SID, "LETS_MERGE_BRANCH": "trunk"}, time.time())
    assert (result.trust, result.boundary) == ("exact", start), result.notes


def test_lets_link_that_came_with_the_repository_is_never_followed(sandbox: Sandbox,
                                                                   tmp_path: Path) -> None:
    """A committed ``.lets -> <another project>/.lets`` is neither read nor written: the
    hooks of whoever clones it say why and write nothing there, and lint flags it."""
    victim = tmp_path / "other-project" / ".lets"
    (victim / "sessions").mkdir(parents=True)
    theirs = b"session: " + b"a" * 40 + b" theirs\n"
    (victim / "sessions" / ".task-main").write_bytes(theirs)
    os.symlink(victim, sandbox.path / ".lets")
    sandbox.git.add(".lets")
    sandbox.git.commit("-q", "-m", "a link that came with the repository")
    hook = lets_hooks(sandbox, "post-checkout", "0" * 40, sandbox.head(), "1",
                      env={"LETS_SESSION_ID": SID})
    assert hook.returncode == 0
    assert b"came with the repository" in hook.stderr
    assert (victim / "sessions" / ".task-main").read_bytes() == theirs
    assert not (victim / "locks").exists()
    result = resolve(sandbox)
    assert result.recorded is None and any("came with the repository" in n
                                           for n in result.notes)
    lint_run = lets_hooks(sandbox, "lint")
    assert lint_run.returncode == 1 and b".lets: tracked by git" in lint_run.stdout


# -- refs someone else named -------------------------------------------------------------

def test_tag_named_like_the_merge_branch_cannot_move_the_branch_point(
        sandbox: Sandbox, git_calls: GitCalls) -> None:
    """A fetched tag called ``main`` must not stand in for the branch ``main``: git's
    name lookup prefers tags to branches, so the ladder asks for full ref names."""
    sandbox.commit("main tip", age_days=3)
    sandbox.git.checkout("-q", "-b", "feat")
    start = sandbox.head()
    sandbox.commit("work 1", age_days=2, sid=SID)
    sandbox.commit("work 2", age_days=1, sid=SID)
    sandbox.git.tag("main", "HEAD~1")  # e.g. pushed by someone else, fetched with tags
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    result = resolve(sandbox)
    assert (result.trust, result.boundary, result.commits) == ("exact", start, 2), result.notes


def test_local_branch_named_like_the_remote_branch(sandbox: Sandbox, git_calls: GitCalls) -> None:
    """A local branch called ``origin/main`` is not the remote-tracking ``origin/main``."""
    sandbox.commit("main tip", age_days=3)
    sandbox.git.checkout("-q", "-b", "feat")
    start = sandbox.head()
    sandbox.commit("work", age_days=1, sid=SID)
    sandbox.git.branch("origin/main", "HEAD")
    sandbox.write_task("feat", f"session: {start} {SID}\n")
    result = resolve(sandbox)
    assert (result.trust, result.boundary, result.commits) == ("exact", start, 1), result.notes


# -- the writer meets the same inputs ------------------------------------------------------

def lets_hooks(box: Sandbox, *args: str, stdin: str | bytes = b"",
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full = dict(os.environ)
    full.update(env or {})
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([str(BIN / "lets-hooks"), *args], cwd=box.path, env=full,
                          input=data, capture_output=True, check=False, timeout=120)


@pytest.mark.parametrize("name", ODD_BRANCHES)
def test_record_on_an_odd_branch_writes_its_own_file(sandbox: Sandbox, git_calls: GitCalls,
                                                     name: str) -> None:
    from lets_hooks import hooks

    sandbox.commit("main tip", age_days=2)
    on_branch(sandbox, name)
    head = sandbox.head()
    result, found = hooks.record(str(sandbox.path), SID, {"LETS_SESSION_ID": SID},
                                 int(time.time()))
    assert result.messages == [] and found is not None
    assert (found.trust, found.boundary) == ("exact", head)
    task = sandbox.sessions() / (".task-" + name.replace("/", "-"))
    first, second = task.read_text().splitlines()
    assert first == f"session: {head} {SID}"
    assert second.startswith(f"session-recorded: {head} ")
    assert not (sandbox.path / "PWNED").exists()


def test_record_on_a_300_character_branch_is_refused_in_one_line(sandbox: Sandbox) -> None:
    sandbox.sessions()
    on_branch(sandbox, "/".join(["a" * 100, "b" * 100, "c" * 98]))
    done = lets_hooks(sandbox, "record", "--sid", SID)
    assert done.returncode == 1
    [line] = done.stderr.decode().splitlines()
    assert "too long" in line
    assert os.listdir(sandbox.sessions()) == []


REFUSED_TASK_FILES = {
    "a symbolic link": "is a symbolic link - refused, not followed",
    "a folder": "is not a regular file - ignored",
    "a FIFO": "is not a regular file - ignored",
    "too large": "over the 1 MiB limit - ignored",
}


@pytest.mark.parametrize("kind", list(REFUSED_TASK_FILES))
def test_a_refused_task_file_is_said_never_nothing_recorded(tmp_path: Path, kind: str) -> None:
    """Something is there, refused: the contract, status and pre-push name the refusal,
    none says that nothing was recorded, and the advice works when followed (a record
    alone would be refused too)."""
    from hookbox import make

    box = make(tmp_path)
    box.install()
    box.sh("switch", "-q", "-c", "topic", sid=SID)
    box.file_commit("a.txt", "a\n", "work", sid=SID)
    task = box.task("topic")
    task.unlink()
    line = f"session: {box.head()} {SID}\n"
    if kind == "a symbolic link":
        (tmp_path / "elsewhere").write_text(line)
        task.symlink_to(tmp_path / "elsewhere")
    elif kind == "a folder":
        task.mkdir()
    elif kind == "a FIFO":
        os.mkfifo(task)
    else:
        task.write_text(line + "x" * state.MAX_BYTES)
    said = REFUSED_TASK_FILES[kind]
    env = {"LETS_SESSION_ID": SID}
    done = box.run("lets-session-boundary", env=env)
    assert "SESSION_TRUST=estimate" in done.stdout
    notes = done.stderr.splitlines()
    assert any(said in n for n in notes), notes
    assert not any("nothing recorded" in n for n in notes), notes
    for branch in ("topic", "main"):  # estimated; and with nothing to estimate from
        box.sh("switch", "-q", branch, sid=SID)
        if branch == "main":
            (box.task("main")).unlink(missing_ok=True)
            os.symlink(tmp_path / "elsewhere-main", box.task("main"))
            done = box.run("lets-session-boundary", env=env)
            assert "SESSION_TRUST=none" in done.stdout
            assert "first move what was refused out of the way" in done.stderr, done.stderr
            assert "run: lets-hooks record" in done.stderr
    rows = json.loads(box.run("lets-hooks", "status", "--json", env=env).stdout)
    why = {row["branch"]: row["why"] for row in rows}
    assert said in why["topic"] and "nothing recorded" not in why["topic"], why
    assert "symbolic link" in why["main"] and "nothing recorded" not in why["main"], why
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    pushed = box.sh("push", "-q", "origin", "topic", sid=SID)
    assert said in pushed.stderr and "no session boundary recorded" not in pushed.stderr
    assert "move what was refused out of the way, then" in pushed.stderr
    # the advice, followed: moved away, then recorded
    box.sh("switch", "-q", "topic", sid=SID)
    if task.is_dir() and not task.is_symlink():
        task.rmdir()
    else:
        task.unlink()
    assert box.run("lets-hooks", "record", env=env).returncode == 0
    assert "SESSION_TRUST=exact" in box.run("lets-session-boundary", env=env).stdout


def test_writer_never_writes_through_a_symlinked_task_file(sandbox: Sandbox,
                                                          tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"precious, and no session line\n")
    link = sandbox.sessions() / ".task-main"
    os.symlink(outside, link)
    done = lets_hooks(sandbox, "record", "--sid", SID)
    assert done.returncode == 1
    assert b"symbolic link - refused, not followed" in done.stderr
    assert outside.read_bytes() == b"precious, and no session line\n"
    assert link.is_symlink() and os.readlink(link) == str(outside)
    with pytest.raises(state.StateError, match="symbolic link"):
        write_session_line(str(sandbox.path), "main", sandbox.head(), SID)
    assert outside.read_bytes() == b"precious, and no session line\n"


def test_writer_never_follows_a_planted_temporary_name(sandbox: Sandbox,
                                                       tmp_path: Path) -> None:
    """Symlinks planted at every temporary name the writer could pick are not written
    through: it creates its temporary file exclusively, never following a link."""
    outside = tmp_path / "victim"
    outside.write_bytes(b"victim\n")
    sandbox.write_task("main", "task: t\n")
    folder = sandbox.sessions()
    # the writer's names are derived from its pid; plant a few for this process
    base = os.getpid() * 1000
    for n in range(5):
        os.symlink(outside, folder / f".task-main.{base + n}.tmp")
    assert write_session_line(str(sandbox.path), "main", sandbox.head(), SID)
    assert outside.read_bytes() == b"victim\n"
    assert state.read_recorded(str(sandbox.path), "main").sid == SID


@needs_proc_io
def test_writer_refuses_a_one_gigabyte_task_file_without_reading_it(sandbox: Sandbox) -> None:
    path = sparse_task(sandbox, b"task: huge\nsession: abcdef0 old\n")
    before = _bytes_read()
    with pytest.raises(state.StateError, match="over the 1 MiB limit"):
        write_session_line(str(sandbox.path), "main", sandbox.head(), SID)
    assert _bytes_read() - before < 8 * state.MAX_BYTES
    assert path.stat().st_size == GIB
    with open(path, "rb") as handle:
        assert handle.read(64).startswith(b"task: huge\nsession: abcdef0 old\n")
    assert not [n for n in os.listdir(sandbox.sessions()) if n.endswith(".tmp")]


# -- NUL and non-UTF-8 bytes in every file the product reads ---------------------------------

JUNK = b"\n\x00\x00\xff\xfe\xc3\x28 \x00junk\xe2\x82\n"
PROJECT_FILES = {
    ".lets/sessions/.task-main": b"task: t\nsession: " + b"a" * 40 + b" s\n",
    ".lets/sessions/.session-start-ref-main": b"a" * 40 + b"\n",
    ".lets/config.toml": b"max_age_days = 7\n",
    "pyproject.toml": b"[tool.lets]\nmax_age_days = 7\n",
    "memory/session-handoff-LATEST.md": b"<!-- state-snapshot v1 -->\n```yaml\nnext: [x]\n```\n",
    "memory/context-log.md": b"## [2026-11-01][note][ttl:7d][ref:3] t\nbody\n",
    "memory/MEMORY.md": b"# Memory\n## Core <!-- #always -->\nx\n",
    "tasks/lessons.md": ("### [2026-11-20] t\n> conf: 0.7 \u00b7 seen: 2026-11-20 \u00b7 obs: 3\n"
                         .encode()),
}
HOME_FILES = {
    ".claude/STATE.md": b"# State\n## Outstanding decisions\n- x\n",
    ".claude/settings.json": b'{"model": "opus"}\n',
    ".claude/settings.local.json": b'{"permissions": {"allow": ["a"]}}\n',
    ".claude/.harness/interventions/log.jsonl":
        b'{"ts": "2026-11-20T10:00:00", "type": "rejection", "model": "opus"}\n',
    ".claude/memory/model-diff-ledger.md": b"last-analysis: 2026-11-01\n",
}


def every_command(box: Sandbox, home: Path) -> list[subprocess.CompletedProcess[bytes]]:
    env = {"HOME": str(home), "LETS_SESSION_ID": "s"}  # the session the task file names
    runs = [
        lets_hooks(box, "post-checkout", "0" * 40, box.head(), "1", env=env),
        lets_hooks(box, "lint", env=env),
        lets_hooks(box, "status", env=env),
    ]
    for argv in (["lets-session-boundary"], ["lets-session-boundary", "--json"],
                 ["lets-session-start", "--today", "2026-11-29", "--home", str(home)],
                 ["lets-session-start", "--json", "--today", "2026-11-29", "--home", str(home)],
                 ["lets-observability", "--home", str(home), "model-tag-count"],
                 ["lets-observability", "--home", str(home), "--today", "2026-11-29",
                  "rejection-rate"]):
        full = dict(os.environ, **env)
        runs.append(subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=box.path, env=full,
                                   capture_output=True, check=False, timeout=120))
    return runs


@pytest.mark.parametrize("where", sorted(PROJECT_FILES) + sorted(HOME_FILES))
@pytest.mark.parametrize("position", ["inside", "whole"])
def test_nul_and_invalid_utf8_in_every_file_read(sandbox: Sandbox, tmp_path: Path,
                                                  where: str, position: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    files = {sandbox.path / k: v for k, v in PROJECT_FILES.items()}
    files.update({home / k: v for k, v in HOME_FILES.items()})
    target = (sandbox.path if where in PROJECT_FILES else home) / where
    for path, good in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if path == target:
            good = good + JUNK + good if position == "inside" else JUNK * 50
        path.write_bytes(good)
    before = {path: path.read_bytes() for path in files}
    for done in every_command(sandbox, home):
        err = done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr, (done.args, err)
        assert done.returncode in (0, 1), (done.args, err)
        if done.args[0].endswith("lets-session-boundary") and "--json" not in done.args:
            assert len(done.stdout.splitlines()) == 4
        if done.args[0].endswith("lets-session-start"):
            assert done.returncode == 0 and done.stdout
    task = sandbox.path / ".lets/sessions/.task-main"
    for path, data in before.items():
        after = path.read_bytes()
        if path == task and after != data:  # post-checkout may record: only its lines change
            value = state.find_session_line(after)
            assert value is not None and value.startswith(sandbox.head().encode())
            stamp = state.find_key_line(after, state.RECORDED_PREFIX)
            assert stamp is not None and stamp.startswith(sandbox.head().encode())
            assert after == state.set_own_line(state.replace_session_line(data, value),
                                               state.RECORDED_PREFIX, stamp)
        else:
            assert after == data, path  # read, never rewritten


@pytest.mark.parametrize("hook, args", [("post-rewrite", ["rebase"]),
                                        ("post-rewrite", ["amend"]),
                                        ("pre-push", ["origin", "url"])])
def test_hook_stdin_of_nul_and_invalid_utf8(sandbox: Sandbox, hook: str,
                                            args: list[str]) -> None:
    head = sandbox.head().encode()
    stdin = (b"\x00" * 10 + b"\xff\xfe\n" + head + b" \x00" + head + b"\n"
             + b"refs/heads/\xff " + head + b" refs/heads/x " + b"0" * 40 + b"\n"
             + b"--output=PWNED " + head + b" -x " + head + b"\n")
    done = lets_hooks(sandbox, hook, *args, stdin=stdin)
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    assert not (sandbox.path / "PWNED").exists()


def test_rebase_rewritten_list_of_junk(sandbox: Sandbox) -> None:
    """The rewritten list a rebase leaves in .git is read as data: junk is skipped."""
    start = sandbox.commit("fresh", age_days=1)
    sandbox.write_task("main", f"session: {start} {SID}\n")
    folder = sandbox.path / ".git" / "rebase-merge"
    folder.mkdir()
    (folder / "rewritten-list").write_bytes(b"\x00\xff --output=PWNED -x\n" + JUNK)
    (folder / "orig-head").write_bytes(b"\xff\xfe\n")
    done = lets_hooks(sandbox, "post-rewrite", "rebase", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert state.read_recorded(str(sandbox.path), "main").sha == start
    assert not (sandbox.path / "PWNED").exists()


@pytest.mark.parametrize("stdin", [b"\x00\xff\xfe",
                                   b'{"session_id": "a\\u0000b", "cwd": "\xff"}',
                                   b'{"session_id": "--output=PWNED", "source": "startup"}',
                                   b'{"session_id": "x y\\nsession: deadbeef", '
                                   b'"source": "startup"}'])
def test_claude_hook_input_of_junk(sandbox: Sandbox, stdin: bytes) -> None:
    sandbox.write_task("main", "task: t\n")
    full = dict(os.environ)
    done = subprocess.run([str(BIN / "lets-session-start"), "--claude-hook", "--today",
                           "2026-11-29"], cwd=sandbox.path, env=full, input=stdin,
                          capture_output=True, check=False, timeout=120)
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    data = (sandbox.sessions() / ".task-main").read_bytes()
    assert data.startswith(b"task: t\n")
    line = state.find_session_line(data)
    if line is not None:  # recorded: a sha, and a session id that is one clean token
        parts = state.tokens(line)
        assert parts[0] == sandbox.head().encode()
        assert len(parts) <= 2 and all(b"\x00" not in p for p in parts)
    assert not (sandbox.path / "PWNED").exists()


@pytest.mark.parametrize("name", ["-x", "--output=PWNED", "--end-of-options", "HEAD", "@"])
def test_hooks_on_odd_branches_never_hand_git_an_option(sandbox: Sandbox, git_calls: GitCalls,
                                                        name: str) -> None:
    """post-checkout, post-rewrite, pre-push and lint, in-process, every git call watched."""
    from lets_hooks import hooks

    sandbox.commit("main tip", age_days=2)
    on_branch(sandbox, name)
    old = sandbox.commit("work", age_days=1)
    top, now, env = str(sandbox.path), int(time.time()), {"LETS_SESSION_ID": SID}
    assert hooks.post_checkout(["0" * 40, old, "1"], env, now, cwd=top).messages == []
    sandbox.git.commit("-q", "--amend", "--allow-empty", "-m", "amended")
    new = sandbox.head()
    pairs = f"{old} {new}\n".encode()
    assert hooks.post_rewrite(["amend"], pairs, env, now, cwd=top).code == 0
    # the session amended the boundary commit (made by no session): its image holds the
    # session's work and another's, so the boundary went to its first parent
    assert state.read_recorded(top, name).sha == sandbox.rev(f"{new}~1")
    push = f"refs/heads/{name} {new} refs/heads/{name} {'0' * 40}\n".encode()
    assert hooks.pre_push(["origin", "url"], push, env, now, cwd=top).code == 0
    assert lint.lint(Repo(top), top) == []
    assert not (sandbox.path / "PWNED").exists()


@pytest.mark.parametrize("where", ["pyproject.toml", ".lets/config.toml"])
def test_config_file_that_is_a_symlink_to_a_fifo_does_not_hang(sandbox: Sandbox, tmp_path: Path,
                                                              where: str) -> None:
    """A committed ``pyproject.toml -> /dev/tty`` (here: a FIFO nobody writes to) must not
    hang a hook, and with it the git command it rides on. (A link out of the work tree is
    refused before it is opened; this FIFO sits inside it.)"""
    fifo = sandbox.path / "fifo"
    os.mkfifo(fifo)
    link = sandbox.path / where
    link.parent.mkdir(exist_ok=True)
    os.symlink(fifo, link)
    done = subprocess.run([str(BIN / "lets-session-boundary")], cwd=sandbox.path,
                          capture_output=True, text=True, check=False, timeout=20)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 4
    assert f"{where}: not a regular file" in done.stderr
    hook = lets_hooks(sandbox, "post-checkout", "0" * 40, sandbox.head(), "1")
    assert hook.returncode == 0


def test_a_head_log_that_is_a_fifo_does_not_hang(sandbox: Sandbox) -> None:
    """The HEAD log read where the ledger names no commit is opened as every git file the
    product reads: never waiting on a FIFO. With none to read, nothing is vouched for."""
    start = sandbox.commit("start")
    write_session_line(sandbox.path, "main", start, SID)
    sandbox.commit("unvouched")
    log = sandbox.path / ".git" / "logs" / "HEAD"
    log.unlink()
    os.mkfifo(log)
    fields = sandbox.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] != "exact" and "Traceback" not in fields["stderr"]


# -- terminal escapes: what a file, a name or a setting holds is shown, never obeyed ----------

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # a clipboard write
TITLE = "\x1b]0;all good\x07"  # a window title change
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e"
                       "\u2066-\u2069\ufeff\u3164]")


def _terminal_safe(text: bytes) -> str | None:
    decoded = text.decode("utf-8", "surrogateescape")
    found = FORBIDDEN.search(decoded)
    return None if found is None else ascii(decoded[max(0, found.start() - 30):found.end() + 30])


def test_terminal_escapes_never_reach_the_terminal(sandbox: Sandbox, tmp_path: Path) -> None:
    """A branch named with a C1 control and U+202E, a task file whose session-recorded time
    carries OSC 52 and a title change (and is read as ahead of the clock), a configured
    merge_branch holding U+202E and one holding a zero-width space: every command's stdout
    and stderr hold none of it raw, and the notes still say what they are about."""
    start = sandbox.commit("base")
    branch = "feat\u202etxt.exe\u009b31m"
    on_branch(sandbox, branch)
    sandbox.commit("work")
    sandbox.write_task(branch.replace("/", "-"), (
        f"session: {start} {SID}\n"
        f"session-recorded: {start} 2099-01-01T00:00:00.{OSC52}{TITLE}Z\n").encode())
    (sandbox.path / ".lets" / "config.toml").write_text(
        'merge_branch = "ma\\u202ein"\nmax_age_days = 30\n'
        '"\\u001b[2J" = 1\n')
    env = {"LETS_SESSION_ID": SID}
    runs = {
        "boundary": subprocess.run([str(BIN / "lets-session-boundary")], cwd=sandbox.path,
                                   env=dict(os.environ, **env), capture_output=True,
                                   check=False, timeout=120),
        "boundary --json": subprocess.run([str(BIN / "lets-session-boundary"), "--json"],
                                          cwd=sandbox.path, env=dict(os.environ, **env),
                                          capture_output=True, check=False, timeout=120),
        "status": lets_hooks(sandbox, "status", env=env),
        "status --json": lets_hooks(sandbox, "status", "--json", env=env),
        "doctor": lets_hooks(sandbox, "doctor", env=env),
        "record": lets_hooks(sandbox, "record", env=env),
        "post-checkout": lets_hooks(sandbox, "post-checkout", start, sandbox.head(), "1",
                                    env=env),
        "pre-push": lets_hooks(sandbox, "pre-push", "origin", "/nowhere", env=env,
                               stdin=f"refs/heads/{branch} {sandbox.head()} "
                                     f"refs/heads/{branch} {'0' * 40}\n"),
        "lint": lets_hooks(sandbox, "lint", env=env),
    }
    for name, done in runs.items():
        for stream in (done.stdout, done.stderr):
            assert _terminal_safe(stream) is None, (name, _terminal_safe(stream))
        assert b"Traceback" not in done.stderr, name
    said = runs["boundary"].stderr.decode()
    assert "ahead of the clock" in said and "\\x1b]52;c;" in said
    assert "merge_branch: 'ma\\u202ein' is not a valid branch name" in said
    assert "unknown key '\\x1b[2J'" in said
    status = runs["status"].stdout.decode()
    assert "feat\\u202etxt.exe\\x9b31m" in status


def test_a_note_with_an_escape_sequence_is_shown_in_json_too(sandbox: Sandbox) -> None:
    start = sandbox.commit("base")
    sandbox.write_task("main", (f"session: {start} {SID}\nsession-recorded: {start} "
                                f"2099-01-01T00:00:00.{OSC52}Z\n").encode())
    result = resolve(sandbox)
    data = json.loads(json.dumps(result.as_dict()))
    note = next(n for n in data["notes"] if "ahead of the clock" in n)
    assert "\x1b" not in note and "\\x1b]52;c;" in note


@pytest.mark.parametrize(("text", "shown"), [
    ("main", "main"),
    ("caf\u00e9 \u65e5\u672c \u2764\ufe0f", "caf\u00e9 \u65e5\u672c \u2764\ufe0f"),
    ("\x1b]52;c;eA==\x07", "\\x1b]52;c;eA==\\x07"),
    ("a\x9bb", "a\\x9bb"),
    ("a\u202eb\u2066c\u2069", "a\\u202eb\\u2066c\\u2069"),
    ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
    ("tag\U000e0041", "tag\\U000e0041"),
    ("hidden\U000e0100\U000e0101", "hidden\\U000e0100\\U000e0101"),
    ("\u2764\ufe0f\ufe00\ufe01", "\u2764\ufe0f\\ufe00\\ufe01"),
    ("filler\u3164\u115f", "filler\\u3164\\u115f"),
    ("nbsp\u00a0", "nbsp\\xa0"),
    ("line\nbreak\u2028", "line\\nbreak\\u2028"),
    ("not utf-8 \udcff", "not utf-8 \\xff"),
])
def test_show_escapes_what_a_terminal_would_obey_or_a_reader_cannot_see(text: str,
                                                                        shown: str) -> None:
    from lets_hooks import files

    assert files.show(text) == shown
    assert files.show(shown) == shown  # showing what was shown changes nothing
    assert files.is_shown_as_is(text) == (text == shown)
    assert files.show is files.show


def test_a_link_at_the_id_mark_is_replaced_never_followed(sandbox: Sandbox,
                                                            tmp_path: Path) -> None:
    """The mark that hands a configured ``session_id_env`` over to the post-commit shim is
    created by the hooks: a dangling link in its place is replaced by the mark, and nothing
    is created where the link points."""
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").write_text('session_id_env = ["TOOL_SESSION_ID"]\n')
    folder = sandbox.path / ".git" / "lets-hooks"
    folder.mkdir(exist_ok=True)
    target = tmp_path / "elsewhere" / "created-through-the-link"
    target.parent.mkdir()
    (folder / "ids-configured").symlink_to(target)
    done = sandbox.run("lets-hooks", "record", env={"TOOL_SESSION_ID": "tool-session-1"})
    assert done.returncode == 0, done.stderr
    assert not os.path.lexists(target)
    mark = folder / "ids-configured"
    assert mark.is_file() and not mark.is_symlink()
