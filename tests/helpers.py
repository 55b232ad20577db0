"""What the tests share besides fixtures (``conftest.py`` holds those alone): the session
ids, the ``Sandbox`` work tree and its builders, and the writers the tests use to set up
state as the hooks would. Test modules import from here, never from ``conftest``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import git
import pytest

from lets_hooks.ladder import Boundary
from lets_hooks.summary.sources.worktree import Git, open_repository

SID = "11111111-2222-3333-4444-555555555555"
OTHER = "99999999-8888-7777-6666-555555555555"
AGENT_SID = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"  # a Codex thread id's shape (UUIDv7)
CLAUDE_SID = "9b2f0c4e-1111-4a5b-8c9d-0e1f2a3b4c5d"
WORKFLOW_SID = "5e55104e-0000-4000-8000-00000000c0de"

BIN = Path(sys.executable).parent
DAY = 86400



def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """``git_identity``'s environment, for a fixture of a wider scope (one that builds a
    repository once for many tests, before any test's own fixtures are set up), through
    ``pytest.MonkeyPatch.context()``."""
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
        "[protocol \"file\"]\n\tallow = always\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                     "GEMINI_SESSION_ID", "LETS_MERGE_BRANCH",
                 "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


def note_made(work: Path, shas: list[str], sid: str | None) -> None:
    """The session ledger's lines for ``shas``, made by ``sid``, as the post-commit hook
    writes them (a commit that already has its line keeps it)."""
    import subprocess


    # no --path-format=absolute: git before 2.31 prints it back as a line of its answer
    common = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=work,
                            capture_output=True, text=True, check=True).stdout.strip()
    assert note_made_in(str(Path(work, common)), shas, sid) is None


def note_made_in(common_dir: str, shas: list[str], sid: str | None) -> str | None:
    """``note_made`` on a common git dir: the lines of the commits no line names yet (why
    nothing was written, or None)."""
    from lets_hooks import files, ledger

    wanted = [s for s in dict.fromkeys(shas) if files.is_sha(s)]
    book = ledger.about(ledger.read_bytes(common_dir), wanted)
    known = {*book.made, *book.copies, *book.amended}  # who made it, or what it copies
    return ledger.append(common_dir, [ledger.line(ledger.MADE, s, sid) for s in wanted
                                      if s not in known])


class Sandbox:
    """A work tree under test, with the few moves the tests need."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # a repository made beforehand (a reftable one) is opened, never initialised again:
        # git 2.55's `git init` over a reftable repository drops extensions.refStorage
        self.repo = (git.Repo(path) if (path / ".git").exists()
                     else git.Repo.init(path, initial_branch="main"))
        self.git = self.repo.git

    def commit(self, message: str = "change", age_days: float = 0.0,
               sid: str | None = None) -> str:
        """An empty commit dated ``age_days`` ago (author and committer), made by session
        ``sid`` (None: by no session): its id in the commit's environment, and its line in
        the session ledger as the post-commit hook writes it (written here when no hook
        is installed)."""
        when = f"@{int(time.time() - age_days * DAY)} +0000"
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        if sid is not None:
            env["LETS_SESSION_ID"] = sid
        self.git.commit("--allow-empty", "-q", "-m", message, env=env)
        head = self.head()
        if sid is not None:
            note_made(self.path, [head], sid)
        return head

    def head(self) -> str:
        return str(self.git.rev_parse("HEAD"))

    def rev(self, name: str) -> str:
        return str(self.git.rev_parse(name))

    def sessions(self) -> Path:
        folder = self.path / ".lets" / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def write_task(self, branch: str, body: str | bytes) -> Path:
        path = self.sessions() / (".task-" + branch.replace("/", "-"))
        if isinstance(body, str):
            body = body.encode()
        path.write_bytes(body)
        return path

    def run(self, command: str, *args: str, env: dict[str, str] | None = None,
            cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run an installed console script as a user would."""
        full = dict(os.environ)
        full.update(env or {})
        return subprocess.run(
            [str(BIN / command), *args], cwd=cwd or self.path, env=full, input=stdin,
            capture_output=True, text=True, check=False, timeout=120,
        )

    def boundary(self, *args: str, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> dict[str, str]:
        """Run ``lets-session-boundary`` and return its four fields (checking the shape)."""
        done = self.run("lets-session-boundary", *args, env=env, cwd=cwd)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        keys = ["SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
        assert [line.split("=", 1)[0] for line in lines] == keys, done.stdout
        fields = dict(line.split("=", 1) for line in lines)
        fields["stderr"] = done.stderr
        return fields


def write_session_line(where: object, branch: str, sha: str, sid: str | None,
                       branches: object = None, now: float | None = None,
                       approx: str | None = None) -> bool:
    """Set ``branch``'s session line to ``session: <sha> <sid>`` whatever it says now
    (recorded ``now``), as ``lets-hooks record`` would; True if the file changed."""
    from lets_hooks import state

    state.session_value(sha, sid)  # refuse a bad sha or id before touching anything
    stamp = state.utc_stamp(time.time() if now is None else now)
    return state.update(where, branch,  # type: ignore[arg-type]
                        lambda _: state.Line(sha, sid, stamp, approx),
                        branches)  # type: ignore[arg-type]


def resolve_path(path: str, environ: Mapping[str, str], now: float,
                 session_id: str | None = None) -> Boundary:
    """The ladder's answer for the repository holding ``path``, as a consumer in the same
    process asks it; never raises (fails closed)."""
    from lets_hooks import config, ladder
    from lets_hooks.repo import NotARepository, Repo, reason

    try:
        repo = Repo(path)
        where = repo.locate()
        settings = config.load(where.top, environ)
        current = session_id or settings.session_id(environ)
        result = ladder.resolve(repo, settings, current, int(now), where=where)
        result.notes[:0] = settings.problems
        return result
    except NotARepository:
        return ladder.not_a_repository()
    except Exception as exc:  # fail closed: a consumer always gets an answer
        return ladder.unknown(reason(exc))


def look(root: Path, environ: Mapping[str, str], now: float) -> Git:
    """The summary's git handle on the repository at ``root``, settled: the ladder's
    answer (the session from ``environ``) and the state of its working tree."""
    handle = open_repository(root)
    handle.settle(environ, now)
    return handle


def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """``name``, a folder built once for the whole test run by ``build(folder)``: in the
    temporary folder every worker of the run shares (the parent of a worker's own), under
    an exclusive lock, so one worker builds it and the others wait, then use it. A build
    that failed (no mark of completion) is removed and made again."""
    import fcntl
    import shutil

    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # .../pytest-N/popen-gwK: pytest-N is the run's
    dest = root / name
    done = root / (name + ".done")
    with open(root / (name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            if dest.exists():
                shutil.rmtree(dest)
            dest.mkdir(parents=True)
            build(dest)
            done.write_text("")
    return dest
