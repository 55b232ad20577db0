"""Faults: crashes, races, read-only and full file systems, a missing git, failing hooks.

Real processes throughout: writers are ``python -c`` calling the product's writer, a
``bash`` writer takes the same ``flock`` the ``lets`` tool takes, and git runs the
installed hook shims.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import BIN, OTHER, SID, Sandbox, write_session_line

from lets_hooks import state

ROOT = os.geteuid() == 0
HAS_SETPRIV = shutil.which("setpriv") is not None


def lets(box: Sandbox, *args: str, env: dict[str, str] | None = None,
         wrap: list[str] | None = None,
         preexec: Callable[[], object] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(
        [*(wrap or []), str(BIN / "lets-hooks"), *args], cwd=box.path, env=full,
        capture_output=True, text=True, check=False, timeout=120,
        preexec_fn=preexec)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and its mode (symlinks by their target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            found[str(path)] = (os.readlink(path).encode(), info.st_mode)
        elif stat.S_ISREG(info.st_mode):
            found[str(path)] = (path.read_bytes(), info.st_mode)
        else:
            found[str(path)] = (b"", info.st_mode)
    return found


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# -- a writer killed at random points -----------------------------------------------------

TESTS = str(Path(__file__).resolve().parent)

KILL_WRITER = r"""
import sys
sys.path.insert(0, sys.argv.pop(1))  # the tests folder
from helpers import write_session_line
top, branch = sys.argv[1], sys.argv[2]
values = [v.split(":") for v in sys.argv[3:]]
out = sys.stdout
out.write("R"); out.flush()
i = 0
while True:
    sha, sid = values[i % len(values)]
    write_session_line(top, branch, sha, sid)
    out.write("."); out.flush()
    i += 1
"""


def without_recorded(data: bytes) -> bytes:
    """The file less the writer's own ``session-recorded:`` line (its time varies)."""
    at = data.find(b"\nsession-recorded: ")
    if at < 0:
        return data
    end = data.index(b"\n", at + 1)
    return data[:at] + data[end:]


def body(value: bytes) -> bytes:
    """A task file as the lets tool leaves it, padded so a write takes a while."""
    filler = b"".join(b"- note %05d \xe2\x9c\x93 with some text\r\n" % i for i in range(6000))
    return (b"task: t\nstart: s\nsession: " + value + b"\norigin: o\norc: x\n\n## Notes\n"
            + filler + b"\x00 trailing bytes, no final newline")


def test_sigkill_at_random_points_leaves_old_or_new_content(sandbox: Sandbox) -> None:
    top = str(sandbox.path)
    values = [(f"{n:x}" * 40)[:40] for n in (10, 11, 12, 13)]
    pairs = [f"{sha}:sid-{i}" for i, sha in enumerate(values)]
    allowed = {body(f"{sha} sid-{i}".encode()) for i, sha in enumerate(values)}
    initial = body(b"0123456789abcdef0123456789abcdef01234567 first")
    allowed.add(initial)
    path = sandbox.write_task("feat/kill", initial)
    os.chmod(path, 0o640)
    rng = random.Random(20261129)
    kills = writes = 0
    while (kills < 40 or writes < 300) and kills < 2000:
        child = subprocess.Popen(
            [sys.executable, "-c", KILL_WRITER, TESTS, top, "feat/kill", *pairs],
            stdout=subprocess.PIPE)
        assert child.stdout is not None
        assert child.stdout.read(1) == b"R"
        time.sleep(rng.uniform(0, 0.08))
        child.send_signal(signal.SIGKILL)
        writes += child.stdout.read().count(b".")
        child.wait()
        kills += 1
        content = without_recorded(path.read_bytes())
        assert content in allowed, f"torn or lost file after kill {kills}"
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert kills >= 40 and writes >= 300, (kills, writes)
    # leftovers of a killed write are the writer's temp names only, and harmless
    names = os.listdir(state.sessions_dir(top))
    assert all(n == ".task-feat-kill" or (n.startswith(".task-feat-kill.")
                                          and n.endswith(".tmp")) for n in names)
    assert write_session_line(top, "feat/kill", values[0], "after")
    assert state.read_recorded(top, "feat/kill").sid == "after"
    # ... and the next write, under the lock, swept every one of them
    assert os.listdir(state.sessions_dir(top)) == [".task-feat-kill"]


STOP_BEFORE_RENAME = r"""
import os, time
import sys
sys.path.insert(0, sys.argv.pop(1))  # the tests folder
from helpers import write_session_line
def stop(src, dst):
    sys.stdout.write("T"); sys.stdout.flush()
    time.sleep(600)
os.replace = stop
write_session_line(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
"""


def test_temporary_files_of_killed_writers_are_swept(sandbox: Sandbox) -> None:
    """Writers SIGKILLed after writing their temporary file and before renaming it: the
    next writer removes what they left, under the lock; a young temporary file of a live
    writer is left alone until it is stale."""
    top = str(sandbox.path)
    base = sandbox.commit("base")
    sandbox.git.checkout("-q", "-b", "feat")
    assert lets(sandbox, "record", "--sid", SID).returncode == 0
    sessions = Path(state.sessions_dir(top))
    for n in range(5):
        child = subprocess.Popen([sys.executable, "-c", STOP_BEFORE_RENAME, TESTS, top, "feat",
                                  base, f"killed-{n}"], stdout=subprocess.PIPE)
        assert child.stdout is not None
        assert child.stdout.read(1) == b"T"  # its temporary file is written and synced
        child.send_signal(signal.SIGKILL)
        child.wait()
    left = sorted(n for n in os.listdir(sessions) if n.endswith(".tmp"))
    assert len(left) == 5 and all(n.startswith(".task-feat.") for n in left)
    live = sessions / f".task-feat.{os.getpid() * 1000}.tmp"  # a writer still running
    live.write_bytes(b"in progress")
    foreign = sessions / ".task-feat.4242.tmp"  # another tool's name, writer unknown
    foreign.write_bytes(b"old")
    old = time.time() - 3600
    os.utime(foreign, (old, old))
    assert lets(sandbox, "record", "--sid", OTHER).returncode == 0
    assert sorted(n for n in os.listdir(sessions) if n.endswith(".tmp")) == [live.name]
    assert state.read_recorded(top, "feat").sid == OTHER  # the killed writers changed nothing
    os.utime(live, (old, old))  # stale now: its writer would have finished long ago
    assert lets(sandbox, "record", "--sid", SID).returncode == 0
    assert [n for n in os.listdir(sessions) if n.endswith(".tmp")] == []


# -- twenty writers at once ----------------------------------------------------------------

PY_WRITER = r"""
import sys
sys.path.insert(0, sys.argv.pop(1))  # the tests folder
from helpers import write_session_line
top, branch, sha, sid, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
for i in range(rounds):
    write_session_line(top, branch, sha, f"{sid}-{i}")
"""

BASH_WRITER = r"""
set -eu
top=$1; slug=$2; me=$3; rounds=$4
file="$top/.lets/sessions/.task-$slug"
lock="$top/.lets/locks/task-$slug.lock"
for i in $(seq 1 "$rounds"); do
  (
    flock -x 9
    tmp="$file.$$$i.tmp"
    cat "$file" > "$tmp"
    printf 'log: %s-%s\n' "$me" "$i" >> "$tmp"
    chmod 600 "$tmp"
    mv -f "$tmp" "$file"
  ) 9>>"$lock"
done
"""


@pytest.mark.skipif(shutil.which("flock") is None or shutil.which("bash") is None,
                    reason="needs bash and flock(1) from util-linux")
def test_twenty_concurrent_writers_lose_nothing(sandbox: Sandbox) -> None:
    top = str(sandbox.path)
    branch, slug = "feat/race", "feat-race"
    initial = b"task: race\nstart: now\nsession: abcdef0 none\norigin: o\n"
    path = sandbox.write_task(branch, initial)
    (sandbox.path / ".lets" / "locks").mkdir()
    rounds = 15
    shas = [(f"{n:02x}" * 20) for n in range(10)]
    procs = []
    for n in range(10):
        procs.append(subprocess.Popen(
            [sys.executable, "-c", PY_WRITER, TESTS, top, branch, shas[n], f"py{n}", str(rounds)],
            stderr=subprocess.PIPE))
        procs.append(subprocess.Popen(
            ["bash", "-c", BASH_WRITER, "bash", top, slug, f"sh{n}", str(rounds)],
            stderr=subprocess.PIPE))
    assert len(procs) == 20
    for proc in procs:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    content = path.read_bytes()
    lines = content.split(b"\n")
    logged = sorted(line for line in lines if line.startswith(b"log: "))
    expected = sorted(f"log: sh{n}-{i}".encode() for n in range(10)
                      for i in range(1, rounds + 1))
    assert logged == expected, "a bash writer's line was lost"
    assert lines[:2] == [b"task: race", b"start: now"] and b"origin: o" in lines
    assert sum(1 for line in lines if line.startswith(b"session: ")) == 1
    recorded = state.read_recorded(top, branch)
    assert recorded.sha in shas and recorded.sid is not None
    assert recorded.sid.endswith(f"-{rounds - 1}")  # some writer's last write stands
    assert not [n for n in os.listdir(state.sessions_dir(top)) if n.endswith(".tmp")]


# -- read-only .lets -----------------------------------------------------------------------

def unprivileged() -> list[str]:
    """A prefix that makes root obey file permissions (drops the override capabilities)."""
    if not ROOT:
        return []
    if not HAS_SETPRIV:
        pytest.skip("running as root without setpriv: permissions cannot be enforced")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"]


@contextlib.contextmanager
def chmod_read_only(folder: Path) -> Iterator[None]:
    paths = [folder, *folder.rglob("*")]
    modes = {p: p.lstat().st_mode for p in paths}
    for p in paths:
        if not p.is_symlink():
            os.chmod(p, stat.S_IMODE(modes[p]) & ~0o222)
    try:
        yield
    finally:
        for p in reversed(paths):
            if not p.is_symlink():
                os.chmod(p, stat.S_IMODE(modes[p]))


def with_state(box: Sandbox) -> Path:
    box.commit("fresh", age_days=1)
    box.git.checkout("-q", "-b", "feat")
    path = box.write_task("feat", f"task: t\nsession: {box.rev('main')} {OTHER}\nmore\n")
    (box.path / ".lets" / "locks").mkdir()
    (box.path / ".lets" / "locks" / "task-feat.lock").write_bytes(b"")
    box.commit("work", age_days=0)
    return path


def test_read_only_lets_record_is_one_line_and_changes_nothing(sandbox: Sandbox) -> None:
    with_state(sandbox)
    lets_dir = sandbox.path / ".lets"
    with chmod_read_only(lets_dir):
        before = snapshot(lets_dir)
        done = lets(sandbox, "record", "--sid", SID, wrap=unprivileged())
        after = snapshot(lets_dir)
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert "not recorded" in line and "permission denied" in line, line
    assert after == before


def test_read_only_lets_post_checkout_hook_exits_0(sandbox: Sandbox) -> None:
    with_state(sandbox)
    lets_dir = sandbox.path / ".lets"
    head = sandbox.head()
    with chmod_read_only(lets_dir):
        before = snapshot(lets_dir)
        done = lets(sandbox, "post-checkout", head, head, "1", env={"LETS_SESSION_ID": SID},
                    wrap=unprivileged())
        after = snapshot(lets_dir)
    assert done.returncode == 0
    assert "permission denied" in done.stderr
    assert "Traceback" not in done.stderr
    assert after == before


@contextlib.contextmanager
def mounted(*args: str) -> Iterator[None]:
    """Run ``mount ARGS``; skip the test when mounting is not permitted here."""
    if not ROOT or shutil.which("mount") is None:
        pytest.skip("mounting needs root")
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"mount not permitted here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", args[-1]], check=False)


def test_read_only_file_system_under_lets(sandbox: Sandbox) -> None:
    with_state(sandbox)
    lets_dir = str(sandbox.path / ".lets")
    before = snapshot(sandbox.path / ".lets")
    with mounted("--bind", lets_dir, lets_dir):
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", lets_dir], check=False)
        if remount.returncode != 0:
            pytest.skip("read-only remount not permitted here")
        done = lets(sandbox, "record", "--sid", SID)
        after = snapshot(sandbox.path / ".lets")
    assert done.returncode == 1
    assert "read-only" in one_line(done.stderr)
    assert after == before


# -- a full disk ---------------------------------------------------------------------------

def test_full_disk_tmpfs_is_one_line_and_changes_nothing(sandbox: Sandbox) -> None:
    sandbox.commit("fresh", age_days=1)
    sandbox.git.checkout("-q", "-b", "feat")
    lets_dir = sandbox.path / ".lets"
    lets_dir.mkdir()
    with mounted("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(lets_dir)):
        (lets_dir / "locks").mkdir()
        (lets_dir / "locks" / "task-feat.lock").write_bytes(b"")
        path = sandbox.write_task("feat", body(f"{sandbox.rev('main')} {OTHER}".encode()[:40]
                                               + b" old")[:36 * 1024])
        filler = lets_dir / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        with contextlib.suppress(OSError):  # fill the file system to the last byte
            while True:
                os.write(fd, b"\0" * 512)
        os.close(fd)
        before = snapshot(lets_dir)
        done = lets(sandbox, "record", "--sid", SID)
        after = snapshot(lets_dir)
        assert done.returncode == 1
        assert "no space left" in one_line(done.stderr)
        assert after == before
        assert path.read_bytes() == before[str(path)][0]


def test_failing_write_file_size_limit_is_one_line_and_changes_nothing(
        sandbox: Sandbox) -> None:
    """No privileges needed: a file-size limit makes the temporary file's write fail."""
    sandbox.commit("fresh", age_days=1)
    sandbox.git.checkout("-q", "-b", "feat")
    path = sandbox.write_task("feat", body(b"abcdef0 old"))
    (sandbox.path / ".lets" / "locks").mkdir()
    (sandbox.path / ".lets" / "locks" / "task-feat.lock").write_bytes(b"")
    before = snapshot(sandbox.path / ".lets")

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))

    done = lets(sandbox, "record", "--sid", SID, preexec=limit)
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert "cannot write .lets/sessions/.task-feat" in line, line
    assert snapshot(sandbox.path / ".lets") == before
    assert path.stat().st_size > 16 * 1024


# -- no git --------------------------------------------------------------------------------

NO_GIT = {"PATH": "/nonexistent"}


def test_missing_git_record_is_one_line(sandbox: Sandbox) -> None:
    path = sandbox.write_task("main", "session: abcdef0 x\n")
    done = lets(sandbox, "record", env=NO_GIT)
    assert done.returncode == 1
    assert "git is not installed or not on PATH" in one_line(done.stderr)
    assert path.read_bytes() == b"session: abcdef0 x\n"


@pytest.mark.parametrize("hook, args, stdin", [
    ("post-checkout", ["0" * 40, "0" * 40, "1"], ""),
    ("post-rewrite", ["amend"], "a b\n"),
    ("pre-push", ["origin", "url"], "refs/heads/main " + "1" * 40 + " refs/heads/main "
     + "0" * 40 + "\n"),
])
def test_missing_git_hooks_exit_0_with_one_line(sandbox: Sandbox, hook: str, args: list[str],
                                                stdin: str) -> None:
    path = sandbox.write_task("main", "session: abcdef0 x\n")
    full = dict(os.environ, **NO_GIT)
    done = subprocess.run([str(BIN / "lets-hooks"), hook, *args], cwd=sandbox.path, env=full,
                          input=stdin, capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "git is not installed or not on PATH" in one_line(done.stderr)
    assert path.read_bytes() == b"session: abcdef0 x\n"


def test_missing_git_boundary_still_prints_four_lines(sandbox: Sandbox) -> None:
    done = sandbox.run("lets-session-boundary", env=NO_GIT)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "SESSION_BOUNDARY=none", "SESSION_TRUST=none", "SESSION_COMMITS=unknown",
        "SESSION_RANGE_DESC=boundary unknown - no valid session boundary for this branch"]
    assert "git is not installed" in done.stderr


# -- a hook never makes the git command fail ----------------------------------------------

def git(box: Sandbox, *args: str, env: dict[str, str] | None = None,
        wrap: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    full["PATH"] = f"{BIN}{os.pathsep}{full.get('PATH', '')}"
    full.update(env or {})
    return subprocess.run([*(wrap or []), "git", *args], cwd=box.path, env=full,
                          capture_output=True, text=True, check=False, timeout=120)


@pytest.fixture
def hooked(sandbox: Sandbox) -> Sandbox:
    done = sandbox.run("lets-hooks", "install")
    assert done.returncode == 0, done.stderr
    sandbox.commit("fresh", age_days=1)
    return sandbox


def test_hook_with_lets_as_a_file_does_not_fail_checkout(hooked: Sandbox) -> None:
    (hooked.path / ".lets").write_text("not a folder\n")
    done = git(hooked, "checkout", "-q", "-b", "feat", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    assert "lets-hooks" in done.stderr and "Traceback" not in done.stderr
    assert hooked.git.branch("--show-current") == "feat"
    assert (hooked.path / ".lets").read_text() == "not a folder\n"


def test_hook_with_symlinked_task_file_does_not_fail_checkout(hooked: Sandbox,
                                                              tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("precious\n")
    os.symlink(outside, hooked.sessions() / ".task-feat")
    done = git(hooked, "checkout", "-q", "-b", "feat", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    assert "symbolic link" in done.stderr
    assert outside.read_text() == "precious\n"  # never written through
    assert (hooked.sessions() / ".task-feat").is_symlink()


def test_hook_with_bad_config_does_not_fail_checkout(hooked: Sandbox) -> None:
    (hooked.path / ".lets").mkdir()
    (hooked.path / ".lets" / "config.toml").write_bytes(b"max_age_days = \xff\x00[[[\n")
    done = git(hooked, "checkout", "-q", "-b", "feat", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    assert "config.toml" in done.stderr and "Traceback" not in done.stderr


def test_hook_with_read_only_lets_does_not_fail_checkout_or_amend(hooked: Sandbox) -> None:
    path = hooked.write_task("feat", f"session: {hooked.head()} {OTHER}\n")
    hooked.git.branch("feat")
    lets_dir = hooked.path / ".lets"
    with chmod_read_only(lets_dir):
        before = snapshot(lets_dir)
        done = git(hooked, "checkout", "-q", "feat", env={"LETS_SESSION_ID": SID},
                   wrap=unprivileged())
        assert done.returncode == 0, done.stderr
        assert "permission denied" in done.stderr
        amend = git(hooked, "commit", "-q", "--amend", "--allow-empty", "-m", "amended",
                    env={"LETS_SESSION_ID": SID}, wrap=unprivileged())
        assert amend.returncode == 0, amend.stderr
        assert snapshot(lets_dir) == before
    assert path.read_text() == f"session: {hooked.rev('main')} {OTHER}\n"


def test_hook_after_lets_hooks_was_uninstalled_does_not_fail_checkout(hooked: Sandbox) -> None:
    """The shims stay behind when the package goes: git must keep working."""
    for hook in ("post-checkout", "post-rewrite", "pre-push"):
        shim = hooked.path / ".git" / "hooks" / hook
        text = shim.read_text()
        assert str(BIN) in text  # the shim names this installation...
        shim.write_text(text.replace(str(BIN), "/nonexistent/bin"))  # ...which is gone
    env = {"PATH": "/usr/bin:/bin"}
    if shutil.which("lets-hooks", path=env["PATH"]):
        pytest.skip("lets-hooks is installed system-wide here")
    done = git(hooked, "checkout", "-q", "-b", "feat", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("lets-hooks: post-checkout hook skipped: the Python that "
                                  "installed it (/nonexistent/bin/")
    assert hooked.git.branch("--show-current") == "feat"


def test_pre_push_warns_but_pushes_and_only_strict_mode_blocks(hooked: Sandbox,
                                                                tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    hooked.git.remote("add", "origin", str(remote))
    hooked.git.checkout("-q", "-b", "feat")
    hooked.commit("work", age_days=0)
    hooked.write_task("feat", "session: " + "e" * 40 + f" {SID}\n")  # not a commit here
    done = git(hooked, "push", "-q", "origin", "feat", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    assert "rejected" in done.stderr and "pushed anyway" in done.stderr
    (hooked.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    hooked.commit("more", age_days=0)
    strict = git(hooked, "push", "-q", "origin", "feat", env={"LETS_SESSION_ID": SID})
    assert strict.returncode != 0
    assert "push blocked" in strict.stderr
