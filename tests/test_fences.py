"""The fences, one test per class of defect: one size limit and one session-id rule for
reader, writer and lint; paths split on NUL only; git's own reason reaching the user; state
kept out of commits. Each test drives the installed commands on real repositories."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import BIN, SID, Sandbox, resolve_path, write_session_line

from lets_hooks import state
from lets_hooks.repo import GitError, Repo


def lets(box: Sandbox | Path, *args: str, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    cwd = box.path if isinstance(box, Sandbox) else box
    return subprocess.run([str(BIN / "lets-hooks"), *args], cwd=cwd, capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})), check=False,
                          timeout=60)


# -- one size limit ---------------------------------------------------------------------------

def test_past_the_limit_the_writer_refuses_and_says_so(sandbox: Sandbox) -> None:
    """The reader scans at most MAX_BYTES; a file past it is not a task file to the
    reader, the writer or lint, and ``record`` says so and fails (it once printed
    "recorded None" and exited 0)."""
    body = b"task: big\n" + b"x" * state.MAX_BYTES + b"\n"
    path = sandbox.write_task("main", body)
    done = lets(sandbox, "record", "--sid", SID)
    assert done.returncode == 1
    assert "over the 1 MiB limit" in done.stderr and "recorded" not in done.stdout
    assert path.read_bytes() == body
    lint = lets(sandbox, "lint")
    assert lint.returncode == 1 and "over the 1 MiB limit" in lint.stdout
    fields = sandbox.boundary(env={"LETS_SESSION_ID": SID})
    assert fields["SESSION_TRUST"] == "none" and "over the 1 MiB limit" in fields["stderr"]


def test_the_writer_never_grows_a_file_past_the_limit(sandbox: Sandbox) -> None:
    body = b"task: t\n" + b"x" * (state.MAX_BYTES - 20) + b"\n"
    path = sandbox.write_task("main", body)
    done = lets(sandbox, "record", "--sid", SID)
    assert done.returncode == 1 and "would grow past the 1 MiB limit" in done.stderr
    assert path.read_bytes() == body


# -- one session-id rule ----------------------------------------------------------------------

@pytest.mark.parametrize("sid", ["abc\ufeffdef", "abc\u200bdef", "a\u2028b", "tab\there"])
def test_one_rule_for_a_session_id(sandbox: Sandbox, sid: str) -> None:
    """Invisible format characters, separators and blanks: the writer refuses the id (so
    lint never fails on the product's own file), the ladder never grants ``exact`` on it,
    and lint flags a file another writer put it in."""
    assert state.sid_problem(sid) is not None
    done = lets(sandbox, "record", "--sid", sid)
    assert done.returncode == 1 and "refusing to record session id" in done.stderr
    assert not Path(state.Store(str(sandbox.path)).task_path("main")).exists()
    sandbox.write_task("main", f"session: {sandbox.head()} {sid}\n")
    fields = sandbox.boundary(env={"LETS_SESSION_ID": sid})
    assert fields["SESSION_TRUST"] != "exact"
    lint = lets(sandbox, "lint")
    if "\t" not in sid:  # a tab splits the token: the id is "tab", which is fine
        assert lint.returncode == 1 and "session id" in lint.stdout


def test_a_valid_unusual_session_id_round_trips(sandbox: Sandbox) -> None:
    sid = "sess:2026-11-30/\u00e9t\u00e9#1"
    done = lets(sandbox, "record", "--sid", sid)
    assert done.returncode == 0, done.stderr
    assert lets(sandbox, "lint").returncode == 0
    fields = sandbox.boundary(env={"LETS_SESSION_ID": sid})
    assert fields["SESSION_TRUST"] == "exact"


# -- paths split on NUL only ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["new\nline", "sep\u2028arator", "tab\tand space"])
@pytest.mark.parametrize("empty", [False, True])
def test_a_repository_path_with_unusual_characters(tmp_path: Path, name: str,
                                                   empty: bool) -> None:
    top = tmp_path / name
    top.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=top, check=True)
    if not empty:
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=top,
                       check=True)
        done = lets(top, "record", "--sid", SID)
        assert done.returncode == 0, done.stderr
    where = Repo(str(top)).locate()
    assert where.top == os.path.realpath(top)
    assert lets(top, "lint").returncode == 0
    result = resolve_path(str(top), {"LETS_SESSION_ID": SID}, 0)
    assert "not a git repository" not in result.desc
    if not empty:
        assert result.trust == "exact", result.notes


# -- git's own reason ---------------------------------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root to hand the repository to another user")
def test_a_safe_directory_refusal_is_said_as_such(sandbox: Sandbox) -> None:
    subprocess.run(["chown", "-R", "nobody", str(sandbox.path)], check=True)
    try:
        fields = sandbox.boundary()
        assert fields["SESSION_RANGE_DESC"] == (
            "boundary unknown - no valid session boundary for this branch")
        assert "dubious ownership" in fields["stderr"] and "safe.directory" in fields["stderr"]
        lint = lets(sandbox, "lint")
        assert lint.returncode == 2 and "safe.directory" in lint.stderr
        assert "not inside a git repository" not in lint.stderr
    finally:
        subprocess.run(["chown", "-R", "root", str(sandbox.path)], check=True)


def test_outside_a_repository_the_description_says_so(tmp_path: Path) -> None:
    done = subprocess.run([str(BIN / "lets-session-boundary")], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == (
        "SESSION_RANGE_DESC=boundary unknown - not a git repository")


def test_git_errors_name_the_subcommand_and_git_s_reason(sandbox: Sandbox) -> None:
    repo = Repo(str(sandbox.path))
    missing = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(GitError, match=r"git merge-base failed: .*"):
        repo.is_ancestor(missing, sandbox.head())  # never read as "no"
    with pytest.raises(GitError, match=r"git rev-list failed: .*"):
        repo.listing(missing, [sandbox.head()])


# -- state kept out of commits ------------------------------------------------------------------

def test_the_first_write_keeps_lets_out_of_commits(sandbox: Sandbox) -> None:
    assert lets(sandbox, "record", "--sid", SID).returncode == 0
    exclude = (sandbox.path / ".git" / "info" / "exclude").read_text()
    assert ".lets/" in exclude.splitlines()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=sandbox.path, capture_output=True, text=True, check=True)
    assert ".lets" not in status.stdout  # the lock files included
    subprocess.run(["git", "add", "-A"], cwd=sandbox.path, check=True)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=sandbox.path,
                            capture_output=True, text=True, check=True)
    assert ".lets" not in staged.stdout


def test_an_existing_ignore_rule_is_respected(sandbox: Sandbox) -> None:
    (sandbox.path / ".gitignore").write_text(".lets\n")
    before = (sandbox.path / ".git" / "info" / "exclude").read_bytes()
    assert lets(sandbox, "record", "--sid", SID).returncode == 0
    assert (sandbox.path / ".git" / "info" / "exclude").read_bytes() == before


def test_a_linked_work_tree_writes_the_common_exclude(sandbox: Sandbox, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    sandbox.git.worktree("add", "-q", "-b", "wt", str(linked))
    assert lets(linked, "record", "--sid", SID).returncode == 0
    assert ".lets/" in (sandbox.path / ".git" / "info" / "exclude").read_text().splitlines()


def _git(box: Sandbox, *args: str, sid: str | None = None) -> str:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    if sid is not None:
        env["LETS_SESSION_ID"] = sid
    done = subprocess.run(["git", *args], cwd=box.path, capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout + done.stderr


def _staged_after_add_all(box: Sandbox) -> list[str]:
    _git(box, "add", "-A")
    return _git(box, "diff", "--cached", "--name-only").splitlines()


def test_a_committed_config_toml_still_keeps_state_out_of_commits(sandbox: Sandbox,
                                                                  tmp_path: Path) -> None:
    """A team commits .lets/config.toml (where SPEC puts settings): every clone has .lets
    already, so 'the first write' never comes; each write still excludes the state."""
    sandbox.commit("base")
    (sandbox.path / ".lets").mkdir()
    (sandbox.path / ".lets" / "config.toml").write_text("max_age_days = 10\n")
    _git(sandbox, "add", ".lets/config.toml")
    _git(sandbox, "commit", "-q", "-m", "settings")
    clone_path = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(sandbox.path), str(clone_path)], check=True)
    clone = Sandbox(clone_path)
    assert lets(clone, "install").returncode == 0
    _git(clone, "switch", "-q", "-c", "feat")  # post-checkout records
    assert lets(clone, "record", "--sid", SID).returncode == 0
    assert (clone.path / ".lets" / "sessions" / ".task-feat").exists()
    exclude = (clone.path / ".git" / "info" / "exclude").read_text().splitlines()
    assert ".lets/sessions/" in exclude and ".lets/locks/" in exclude
    assert ".lets/" not in exclude  # the settings file can still be changed and committed
    assert _staged_after_add_all(clone) == []
    (clone.path / ".lets" / "config.toml").write_text("max_age_days = 11\n")
    assert _staged_after_add_all(clone) == [".lets/config.toml"]
    # written again, not added twice
    assert lets(clone, "record", "--sid", "another-session").returncode == 0
    again = (clone.path / ".git" / "info" / "exclude").read_text().splitlines()
    assert again.count(".lets/sessions/") == 1
    doctor = lets(clone, "doctor").stdout
    assert any(line.startswith("ok") and ".lets/sessions/ and .lets/locks/ ignored" in line
               for line in doctor.splitlines()), doctor


def test_every_write_excludes_not_only_the_first(sandbox: Sandbox) -> None:
    sandbox.commit("base")
    assert lets(sandbox, "record", "--sid", SID).returncode == 0
    exclude = sandbox.path / ".git" / "info" / "exclude"
    exclude.write_text("# emptied by someone\n")
    assert lets(sandbox, "record", "--sid", "next-session").returncode == 0
    assert ".lets/sessions/" in exclude.read_text().splitlines()
    assert _staged_after_add_all(sandbox) == []


UNKEPT = "lets-hooks: git does not ignore the session state, so git add -A would commit it"


def test_a_git_info_that_is_no_folder_is_said_once_a_line(sandbox: Sandbox) -> None:
    """``.git/info`` a file: the state could not be kept out of commits, and nothing said
    so (``git add -A`` then committed a session's id). install, the hooks, record and
    doctor each say it in one line with the fix, none with a traceback; the git commands
    the hooks run under go on, and what is recorded is recorded."""
    sandbox.commit("base")
    shutil.rmtree(sandbox.path / ".git" / "info")
    (sandbox.path / ".git" / "info").write_text("not a folder\n")
    installed = lets(sandbox, "install")
    assert installed.returncode == 0 and installed.stderr == "", installed.stderr
    doctor = lets(sandbox, "doctor", env={"LETS_SESSION_ID": SID})
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    assert "WARN  .lets/           not there yet, and the first write cannot add .lets/ to " \
        ".git/info/exclude (info in the git directory is not a folder)\n" \
        "                       fix: add .lets/ to .gitignore\n" in doctor.stdout, doctor.stdout
    switched = _git(sandbox, "switch", "-q", "-c", "feat", sid=SID)  # post-checkout records
    assert switched == f"{UNKEPT} (info in the git directory is not a folder): add .lets/ " \
        "to .gitignore\n", switched
    recorded = lets(sandbox, "record", "--sid", "next-session")
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stderr.splitlines()[0].startswith(UNKEPT), recorded.stderr
    assert "Traceback" not in recorded.stderr
    assert (sandbox.path / ".lets" / "sessions" / ".task-feat").exists()
    again = lets(sandbox, "doctor", env={"LETS_SESSION_ID": SID}).stdout
    assert "fix: add .lets/ to .gitignore\n" in again, again
    (sandbox.path / ".gitignore").write_text(".lets/\n")  # the fix, followed
    recorded = lets(sandbox, "record", "--sid", SID)
    assert recorded.returncode == 0 and UNKEPT not in recorded.stderr, recorded.stderr


def test_an_unwritable_git_info_is_said(sandbox: Sandbox) -> None:
    """``.git/info`` that cannot be written (immutable here: the suite runs as root too)."""
    sandbox.commit("base")
    info = sandbox.path / ".git" / "info"
    (info / "exclude").write_text("")
    made = shutil.which("chattr") and subprocess.run(["chattr", "+i", str(info)],
                                                     capture_output=True, check=False)
    if not made or made.returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        done = lets(sandbox, "record", "--sid", SID)
    finally:
        subprocess.run(["chattr", "-i", str(info)], check=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    said = done.stderr.splitlines()
    assert said[0].startswith(UNKEPT) and said[0].endswith("): add .lets/ to .gitignore"), said


def test_an_exclude_file_that_is_a_link_is_read_and_never_replaced(sandbox: Sandbox,
                                                                    tmp_path: Path) -> None:
    """``info/exclude`` a symbolic link (a file shared between clones): git reads through
    it, and so do we. Where it already keeps the state out, nothing is said; where it does
    not, the link is not replaced by a file, and the write says so with the fix (it went
    silently un-ignored into the next ``git add -A``)."""
    sandbox.commit("base")
    exclude = sandbox.path / ".git" / "info" / "exclude"
    shared = tmp_path / "shared-exclude"
    shared.write_text("# shared\n.lets/\n")
    exclude.unlink(missing_ok=True)
    exclude.symlink_to(shared)
    quiet = lets(sandbox, "record", "--sid", SID)
    assert quiet.returncode == 0 and UNKEPT not in quiet.stderr, quiet.stderr
    shared.write_text("# shared\n")
    said = lets(sandbox, "record", "--sid", "next-session")
    assert said.returncode == 0, said.stderr
    assert said.stderr.splitlines()[0] == f"{UNKEPT} (info/exclude is a symbolic link, " \
        "not replaced): add .lets/sessions/ and .lets/locks/ to .gitignore", said.stderr
    assert exclude.is_symlink() and shared.read_text() == "# shared\n"
    assert _staged_after_add_all(sandbox) != []  # what the line warns about
    _git(sandbox, "reset", "-q")
    doctor = lets(sandbox, "doctor", env={"LETS_SESSION_ID": SID}).stdout
    assert "(info/exclude is a symbolic link, not replaced)\n" \
        "                       fix: add .lets/ to .gitignore\n" in doctor, doctor
    (sandbox.path / ".gitignore").write_text(".lets/\n")  # the fix, followed
    again = lets(sandbox, "record", "--sid", SID)
    assert again.returncode == 0 and UNKEPT not in again.stderr, again.stderr
    assert _staged_after_add_all(sandbox) == [".gitignore"]


def test_the_command_to_untrack_a_state_file_is_one_shell_word(sandbox: Sandbox) -> None:
    """A branch named ``a;b$(c)`` (git allows it): the advice read 'git rm --cached
    .lets/sessions/.task-a;b$(c)', two commands and a substitution to a shell."""
    base = sandbox.commit("base")
    sandbox.git.checkout("-q", "-b", "a;b$(c)")
    sandbox.write_task("a;b$(c)", f"session: {base} someone-elses-session\n")
    _git(sandbox, "add", "-f", ".lets/sessions/.task-a;b$(c)")
    _git(sandbox, "commit", "-q", "-m", "oops, state committed")
    recorded = lets(sandbox, "record", "--sid", SID)
    assert recorded.returncode != 0
    assert "'git rm --cached '.lets/sessions/.task-a;b$(c)'' keeps it out" in recorded.stderr


@pytest.mark.parametrize("text", ["main", "feat/x-1", "a;b$(c)", "it's", "", "x&y", "é"])
def test_shell_word_quotes_as_shlex_does(text: str) -> None:
    import shlex

    from lets_hooks import files

    assert files.shell_word(text) == shlex.quote(text)


def test_a_tracked_state_file_is_never_written(sandbox: Sandbox) -> None:
    """A task file that came with the repository: record, post-checkout and post-rewrite
    leave it byte for byte and say so in one line; the hooks still exit 0."""
    base = sandbox.commit("base")
    sandbox.git.checkout("-q", "-b", "feat")
    shipped = f"task: shipped\nsession: {base} someone-elses-session\n".encode()
    task = sandbox.write_task("feat", shipped)
    _git(sandbox, "add", "-f", ".lets/sessions/.task-feat")
    _git(sandbox, "commit", "-q", "-m", "oops, state committed")
    assert lets(sandbox, "install").returncode == 0
    recorded = lets(sandbox, "record", "--sid", SID)
    assert recorded.returncode != 0
    said = [line for line in recorded.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and "tracked by git" in said[0]
    assert "'git rm --cached .lets/sessions/.task-feat' keeps it out" in said[0]
    _git(sandbox, "switch", "-q", "main", sid=SID)
    switched = _git(sandbox, "switch", "-q", "feat", sid=SID)  # a new session: would record
    said = [line for line in switched.splitlines() if line.strip()]
    assert len(said) == 1 and "tracked by git" in said[0], switched
    _git(sandbox, "commit", "-q", "--allow-empty", "-m", "work", sid=SID)
    _git(sandbox, "commit", "-q", "--amend", "--allow-empty", "-m", "work again", sid=SID)
    _git(sandbox, "rebase", "-q", "--force-rebase", "HEAD~2", sid=SID)
    assert task.read_bytes() == shipped
    assert _git(sandbox, "status", "--porcelain") == ""


def test_lint_flags_committed_locks(sandbox: Sandbox) -> None:
    locks = sandbox.path / ".lets" / "locks"
    locks.mkdir(parents=True)
    (locks / "task-main.lock").write_bytes(b"")
    sandbox.git.add("-f", ".lets/locks/task-main.lock")
    lint = lets(sandbox, "lint")
    assert lint.returncode == 1
    assert ".lets/locks/task-main.lock: tracked by git" in lint.stdout


# -- a partial clone never reaches the network ------------------------------------------------

def _partial_clone(tmp_path: Path, spec: str) -> tuple[Sandbox, Path, str]:
    """A ``--filter`` clone of a local bare remote, whose remote is then a helper that only
    notes that it was started: any lazy fetch would start it."""
    source = Sandbox(tmp_path / "source")
    source.commit("base", age_days=1)
    (source.path / "f.txt").write_text("content\n")
    source.git.add("f.txt")
    source.git.commit("-q", "-m", "file")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source.path), str(remote)], check=True)
    subprocess.run(["git", "-C", str(remote), "config", "uploadpack.allowFilter", "true"],
                   check=True)
    clone_path = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", f"--filter={spec}", f"file://{remote}",
                    str(clone_path)], check=True)
    unpushed = source.commit("never pushed")  # a sha recorded elsewhere: not in the clone
    log = tmp_path / "remote-started.log"
    helper = tmp_path / "remote.sh"
    helper.write_text(f"#!/bin/sh\necho started >> '{log}'\nexit 1\n")
    helper.chmod(0o755)
    box = Sandbox(clone_path)  # git init again: an existing repository is kept as it is
    box.git.config("protocol.ext.allow", "always")
    box.git.config("remote.origin.url", f"ext::{helper}")
    box.git.checkout("-q", "-b", "feat")
    box.commit("work")
    return box, log, unpushed


@pytest.mark.parametrize("spec", ["blob:none", "tree:0"])
def test_a_partial_clone_never_fetches(tmp_path: Path, spec: str) -> None:
    box, log, unpushed = _partial_clone(tmp_path, spec)
    # The trap is live: git itself, asked plainly for the missing object, starts the remote.
    plain = subprocess.run(["git", "cat-file", "-e", unpushed], cwd=box.path,
                           capture_output=True, timeout=60, check=False,
                           env={k: v for k, v in os.environ.items()
                                if k not in ("GIT_NO_LAZY_FETCH", "GIT_ALLOW_PROTOCOL")})
    assert plain.returncode != 0
    for _ in range(100):
        if log.exists():
            break
        time.sleep(0.05)
    assert log.exists(), "the helper remote was not started: the test proves nothing"
    log.unlink()

    box.write_task("feat", f"session: {unpushed} {SID}\n")
    env = {"LETS_SESSION_ID": SID}
    contract = box.boundary(env=env)
    assert contract["SESSION_TRUST"] == "estimate"
    runs = [
        box.run("lets-session-boundary", "--json", env=env),
        box.run("lets-hooks", "post-checkout", box.rev("main"), box.head(), "1", env=env),
        box.run("lets-hooks", "pre-push", "origin", "ext::remote", env=env,
                stdin=f"refs/heads/feat {box.head()} refs/heads/feat {'0' * 40}\n"),
        box.run("lets-hooks", "status", env=env),
        box.run("lets-session-start", "--today", "2026-11-29", "--home", str(tmp_path),
                env=env),
    ]
    assert json.loads(runs[0].stdout)["reason"] == "not a commit in this repository"
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    assert "not a commit in this repository" in runs[2].stderr  # pre-push names it
    assert not log.exists(), "a lets-hooks command made git contact the remote"
    # and a switch of branches, with the installed hook, stays instant too
    assert box.run("lets-hooks", "install").returncode == 0
    switched = subprocess.run(["git", "switch", "-q", "main"], cwd=box.path, env=dict(
        os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", **env),
        capture_output=True, text=True, timeout=60, check=False)
    assert switched.returncode == 0, switched.stderr
    assert not log.exists()


def _git_without_the_switch(folder: Path, trace: Path) -> dict[str, str]:
    """PATH with a ``git`` that acts like one from before ``GIT_NO_LAZY_FETCH`` (2.44, and
    the 2.39.4 line of security releases): the variable is dropped before git runs, and
    git's own trace is kept."""
    real = shutil.which("git")
    assert real
    folder.mkdir()
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nGIT_TRACE="{trace}" '
                       f'exec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{BIN}{os.pathsep}{os.environ['PATH']}"}


def test_without_the_no_lazy_fetch_switch_no_transport_starts(tmp_path: Path) -> None:
    """A git that lacks GIT_NO_LAZY_FETCH still starts its internal fetch for a missing
    object; with every transport refused it ends there, and git's own trace shows that no
    remote helper, no fetch-pack and no remote command ever starts. The answer is still
    "not a commit in this repository" (cat-file may die with the refused fetch: its
    answers up to then stand and the rest are asked again), for every command."""
    box, log, unpushed = _partial_clone(tmp_path, "blob:none")
    box.write_task("feat", f"session: {unpushed} {SID}\n")
    trace = tmp_path / "trace.txt"
    env = {"LETS_SESSION_ID": SID, **_git_without_the_switch(tmp_path / "old-git", trace)}
    for _ in range(5):  # whether cat-file dies of the refused fetch is a race: run it again
        done = box.run("lets-session-boundary", "--json", env=env)
        assert json.loads(done.stdout)["reason"] == "not a commit in this repository", \
            done.stderr
    runs = [
        box.run("lets-hooks", "post-checkout", box.rev("main"), box.head(), "1", env=env),
        box.run("lets-hooks", "pre-push", "origin", "ext::remote", env=env,
                stdin=f"refs/heads/feat {box.head()} refs/heads/feat {'0' * 40}\n"),
        box.run("lets-hooks", "status", env=env),
        box.run("lets-session-start", "--today", "2026-11-29", "--home", str(tmp_path),
                env=env),
    ]
    for done in runs:
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "not a commit in this repository" in runs[1].stderr
    traced = trace.read_text()
    assert " fetch origin" in traced  # the fallback is what held: git did try
    for started in ("remote-ext", "fetch-pack", "remote.sh"):
        assert started not in traced, started
    assert not log.exists()


@pytest.mark.parametrize("index", ["v2", "v3", "v4", "split"])
def test_a_tracked_state_file_is_seen_whatever_the_index_looks_like(sandbox: Sandbox,
                                                                    index: str) -> None:
    """The writer reads the index to spare itself a git process when the file is certainly
    not there; with a prefix-compressed (v4) or split index it asks git."""
    base = sandbox.commit("base")
    task = sandbox.write_task("main", f"session: {base} someone\n")
    _git(sandbox, "add", "-f", ".lets/sessions/.task-main")
    _git(sandbox, "commit", "-q", "-m", "state committed")
    if index == "split":
        _git(sandbox, "update-index", "--split-index")
    else:
        _git(sandbox, "update-index", "--index-version", index[1])
    before = task.read_bytes()
    with pytest.raises(state.StateError, match="tracked by git"):
        write_session_line(str(sandbox.path), "main", base, SID)
    assert task.read_bytes() == before
    # an untracked branch's file beside it is written as ever
    assert write_session_line(str(sandbox.path), "other", base, SID)


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 65_537, 300_001])
def test_a_file_is_read_whole_up_to_its_limit_and_refused_past_it(tmp_path: Path,
                                                                  size: int) -> None:
    """``files.read_capped`` asks for a file's whole size in one read: every size around
    the old 64 KiB chunk reads back byte for byte; a limit of exactly its size reads it,
    one byte less refuses it (never a part); a file whose size says 0 (``/proc``) is
    still read to its end."""
    from lets_hooks import files

    body = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "f"
    path.write_bytes(body)
    assert files.read_capped(str(path), max(size, 1)) == (body, None)
    if size:
        data, problem = files.read_capped(str(path), size - 1)
        assert data is None and problem is not None and "limit" in problem
    status = Path("/proc/self/status")
    if status.exists():
        data, problem = files.read_capped(str(status), 1 << 20)
        assert problem is None and data is not None and b"\nPid:" in data
