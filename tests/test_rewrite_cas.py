"""post-rewrite writes under the task file's lock and never loses another writer's line.

The other writer (the ``lets`` tool) takes an exclusive ``flock`` on
``.lets/locks/task-<slug>.lock`` and renames a temporary sibling over the task file.
post-rewrite must read the line it is about to replace under that lock, compare it with
what it read before working out the move, and keep a line that changed meanwhile, saying
so on stderr.

The interleaving is made deterministic with a ``git`` first on the hook's PATH: it runs
the real git, and on the first call whose arguments or input name the recorded boundary
(the hook can only ask git about it after reading the line, and asks about it while
working out where the session's commits went) it plays the other writer once, under the
lock, before handing git's answer back to the hook. Every call is logged beside it, so a
hook that asks in another order shows which call to pick instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from helpers import BIN, OTHER, SID
from hookbox import HookBox, make
from scenarios import move_main, start

WRITER = r'''
import fcntl, os, sys

top, sha, sid, folder = sys.argv[1:5]
lock = os.path.join(top, ".lets", "locks", "task-feat.lock")
task = os.path.join(top, ".lets", "sessions", ".task-feat")
os.makedirs(os.path.dirname(lock), exist_ok=True)
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    open(os.path.join(folder, "locked"), "w").close()
    sys.exit(0)
with open(task, "rb") as f:
    lines = f.read().split(b"\n")
for i, line in enumerate(lines):
    if line.startswith(b"session: "):
        lines[i] = ("session: %s %s" % (sha, sid)).encode()
        break
data = b"\n".join(lines)
tmp = "%s.%d.tmp" % (task, os.getpid())
out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(out, data)
os.close(out)
os.replace(tmp, task)
with open(os.path.join(folder, "wrote"), "wb") as f:
    f.write(data)
os.close(fd)
'''

WRAPPER = """#!/bin/sh
dir={dir}
echo "$*" >> "$dir/git.log"
in="$dir/in.$$"
out="$dir/out.$$"
cat > "$in"
{git} "$@" < "$in" > "$out"
status=$?
if [ ! -e "$dir/fired" ] && {{ printf '%s\\n' "$*" | cat - "$in" | grep -q {sha}; }}
then
  printf '%s\\n' "$*" > "$dir/fired"
  {python} "$dir/writer.py" {top} {other_sha} {other_sid} "$dir"
fi
cat "$out"
rm -f "$in" "$out"
exit $status
"""

HOOK = """#!/bin/sh
PATH={dir}:"$PATH" exec {lets} post-rewrite "$@"
"""


def other_writer(box: HookBox, folder: Path, boundary: str, other_sha: str) -> None:
    """Put the interfering ``git`` in ``folder`` and make post-rewrite run with it first
    on PATH (git puts its own directory first for hooks, so the hook script does it)."""
    real = shutil.which("git")
    assert real
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "writer.py").write_text(WRITER)
    q = shlex.quote
    wrapper = folder / "git"
    wrapper.write_text(WRAPPER.format(
        dir=q(str(folder)), git=q(real), sha=boundary, python=q(sys.executable),
        top=q(str(box.path)), other_sha=other_sha, other_sid=q(OTHER)))
    wrapper.chmod(0o755)
    hook = box.path / ".git" / "hooks" / "post-rewrite"
    hook.write_text(HOOK.format(dir=q(str(folder)), lets=q(str(BIN / "lets-hooks"))))
    hook.chmod(0o755)


def _session_after_main_moved(box: HookBox) -> tuple[str, str]:
    """A session of two commits that began at main's tip, main moved since; returns the
    boundary and main's new tip. The task file carries other text too."""
    boundary = start(box, session=2)
    task = box.task("feat")
    task.write_bytes(b"task: cas\n" + task.read_bytes() + b"\nnotes kept by another tool\n")
    tip = move_main(box)
    return boundary, tip


def test_a_line_changed_meanwhile_is_kept(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    boundary, _ = _session_after_main_moved(box)
    root = box.rev("main~2")
    folder = tmp_path / "interfere"
    other_writer(box, folder, boundary, root)
    done = box.sh("rebase", "-q", "main", sid=SID)
    log = (folder / "git.log").read_text() if (folder / "git.log").exists() else ""
    assert (folder / "fired").exists(), ("no git call of the hook named the boundary", log,
                                         done.stderr)
    if (folder / "locked").exists():
        # The hook held the lock through its git calls: no other writer could get in
        # between its read and its write, which is the other way to lose nothing.
        assert box.line("feat") == f"{box.rev('main')} {SID}", done.stderr
        return
    assert (folder / "wrote").exists(), log
    written = (folder / "wrote").read_bytes()
    assert box.task("feat").read_bytes() == written, (
        "the other writer's line was lost", (folder / "fired").read_text(), log, done.stderr)
    assert box.line("feat") == f"{root} {OTHER}"
    assert "lets-hooks: post-rewrite" in done.stderr and "feat" in done.stderr, done.stderr


def test_the_move_is_written_under_the_lock(tmp_path: Path) -> None:
    box = make(tmp_path)
    box.install()
    _session_after_main_moved(box)
    locks = box.path / ".lets" / "locks"
    shutil.rmtree(locks, ignore_errors=True)
    before = box.task("feat").read_bytes()
    done = box.sh("rebase", "-q", "main", sid=SID)
    assert (locks / "task-feat.lock").exists()
    tip = box.rev("main")
    assert box.line("feat") == f"{tip} {SID}", done.stderr
    after = box.task("feat").read_bytes()
    assert after.startswith(b"task: cas\n") and after.endswith(b"\nnotes kept by another "
                                                                b"tool\n")
    assert after != before
    assert not [name for name in os.listdir(box.path / ".lets" / "sessions")
                if name.endswith(".tmp")]
