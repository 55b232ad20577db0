"""The ledger's writers share one rule, and each case runs against both: the plain
post-commit shim (its shell appends the line itself, or hands over to lets-hooks) and the
Python writer (``ledger.note_made``, as an agent's tool hook writes). Never block (a FIFO),
never follow a link out (the ledger or its folder), never leave a torn line readable; and
compaction bounded in bytes and memory, with no line lost to it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import OTHER, SID, note_made_in
from hookbox import HookBox, make

from lets_hooks import files, ledger

WRITERS = ("shell", "python")


def _box(tmp_path: Path, writer: str) -> HookBox:
    box = make(tmp_path)
    if writer == "shell":
        box.install()
    return box


def _commit(box: HookBox, writer: str) -> tuple[int, str]:
    """One commit, its line written by ``writer``: (git's exit status, what was said).
    git runs under a timeout, so a writer that blocks fails the test, never hangs it."""
    extra = [] if writer == "shell" else ["-c", f"core.hooksPath={box.path / 'no-hooks'}"]
    done = subprocess.run(["git", *extra, "commit", "-q", "--allow-empty", "-m", "work"],
                          cwd=box.path, env=box.environ(SID), capture_output=True,
                          text=True, timeout=60, check=False)
    said = done.stderr
    if writer == "python" and done.returncode == 0:
        said += note_made_in(str(box.path / ".git"), [box.head()], SID) or ""
    return done.returncode, said


@pytest.mark.parametrize("writer", WRITERS)
def test_a_fifo_ledger_never_blocks_the_commit(tmp_path: Path, writer: str) -> None:
    """A FIFO at ``<git dir>/lets-hooks/ledger`` (a tarball or ``cp -a`` keeps one): the
    shim's append blocked ``git commit`` for ever. Now it is refused, said, and the
    commit returns."""
    box = _box(tmp_path, writer)
    folder = box.path / ".git" / ledger.FOLDER
    folder.mkdir(exist_ok=True)
    os.mkfifo(folder / ledger.NAME)
    code, said = _commit(box, writer)
    assert code == 0
    assert "not a regular file" in said, said
    assert (folder / ledger.NAME).is_fifo()
    assert ledger.read(str(box.path / ".git")).lines == 0


@pytest.mark.parametrize("writer", WRITERS)
def test_a_file_where_the_ledgers_folder_goes_is_said_in_words(tmp_path: Path,
                                                               writer: str) -> None:
    """A file named ``lets-hooks`` in the git directory: the hook said "[Errno 17] File
    exists: '/.../.git/lets-hooks'"."""
    box = _box(tmp_path, writer)
    (box.path / ".git" / ledger.FOLDER).write_text("mine\n")
    code, said = _commit(box, writer)
    assert code == 0
    assert "cannot write lets-hooks/ledger: a file stands where a folder should be" in said
    assert "Errno" not in said and len(said.splitlines()) == 1, said
    assert (box.path / ".git" / ledger.FOLDER).read_text() == "mine\n"


def test_a_write_the_file_system_refuses_is_said_in_words(tmp_path: Path) -> None:
    """The append itself failing (here past the file-size limit, as a full disk would):
    the hook said Python's "[Errno 27] File too large"; now what it could not write, and
    why, and the commit still succeeds."""
    import resource
    import signal

    from helpers import BIN

    box = _box(tmp_path, "python")
    box.sh("commit", "-q", "--allow-empty", "-m", "work", sid=SID)
    folder = box.path / ".git" / ledger.FOLDER
    folder.mkdir(exist_ok=True)
    (folder / ledger.NAME).write_text(f"c {box.head()} {SID}\n" * 40)
    size = (folder / ledger.NAME).stat().st_size

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    done = subprocess.run([str(BIN / "lets-hooks"), "post-commit"], cwd=box.path,
                          env=box.environ(SID), capture_output=True, text=True, timeout=60,
                          check=False, preexec_fn=small_files)
    assert done.returncode == 0
    assert done.stderr == ("lets-hooks: post-commit: the session ledger was not written:"
                           " cannot write lets-hooks/ledger: File too large\n")
    assert (folder / ledger.NAME).stat().st_size == size


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_linked_ledger_or_folder_is_never_written_through(
        tmp_path: Path, writer: str, link: str) -> None:
    """A ledger that is a symbolic link, or a ``lets-hooks`` folder that is one: the shell
    appended through them to files outside the repository. Both writers refuse."""
    box = _box(tmp_path, writer)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ledger.NAME).write_text("theirs\n")
    folder = box.path / ".git" / ledger.FOLDER
    if link == "folder":
        folder.symlink_to(outside)
    else:
        folder.mkdir(exist_ok=True)
        (folder / ledger.NAME).symlink_to(outside / ledger.NAME)
    code, said = _commit(box, writer)
    assert code == 0
    assert "symbolic link" in said, said
    assert (outside / ledger.NAME).read_text() == "theirs\n"
    assert sorted(os.listdir(outside)) == [ledger.NAME]


@pytest.mark.parametrize("writer", WRITERS)
def test_both_writers_write_the_same_line(tmp_path: Path, writer: str) -> None:
    box = _box(tmp_path, writer)
    code, said = _commit(box, writer)
    assert code == 0 and said == "", said
    text = (box.path / ".git" / ledger.FOLDER / ledger.NAME).read_text()
    assert text == f"c {box.head()} {SID}\n"
    assert os.stat(box.path / ".git" / ledger.FOLDER / ledger.NAME).st_mode & 0o077 == 0


def test_a_repositorys_first_commit_is_written_quietly(tmp_path: Path) -> None:
    """A repository's first commit: HEAD's log has one entry, from the null sha, and git
    dies on ``HEAD@{1}`` instead of saying it is missing. The post-commit hook said
    "skipped (git cat-file failed: log for 'HEAD' only has 1 entries)" on a commit where
    all was well, and wrote no line: the session's first commit was vouched for by
    nothing."""
    box = HookBox(tmp_path / "work")
    box.install()
    done = box.sh("commit", "-q", "--allow-empty", "-m", "first", sid=SID)
    assert done.stderr == ""
    text = (box.path / ".git" / ledger.FOLDER / ledger.NAME).read_text()
    assert text.splitlines() == [f"c {box.head()} {SID}"], text


AMEND_CASES = {"commit": "c", "amend": "a", "commit, no log": "a", "amend, no log": "a"}


def _no_log(box: HookBox) -> None:
    """No ref logs (``core.logAllRefUpdates=false``, and none kept from before: git still
    appends to a log that exists, and reads a branch's where HEAD has none)."""
    box.sh("config", "core.logAllRefUpdates", "false")
    shutil.rmtree(box.path / ".git" / "logs")


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("case", AMEND_CASES)
def test_one_amend_rule_for_the_shell_and_python(tmp_path: Path, writer: str,
                                                 case: str) -> None:
    """The shim's shell and the Python hook tell an amend the same way (``ledger.made_kind``):
    a commit HEAD's log recorded on top of where HEAD was is made (``c``); an amend, or a
    commit no log recorded (where an amend cannot be told), is vouched for only through its
    rewrite line (``a``), never written as made."""
    box = _box(tmp_path, writer)
    if case.endswith("no log"):
        _no_log(box)
    extra = [] if writer == "shell" else ["-c", f"core.hooksPath={box.path / 'no-hooks'}"]
    amend = ["--amend"] if case.startswith("amend") else []
    box.sh(*extra, "commit", "-q", "--allow-empty", "-m", "work", *amend, sid=SID)
    if writer == "python":
        done = box.run("lets-hooks", "post-commit", env={"LETS_SESSION_ID": SID})
        assert done.returncode == 0 and done.stderr == "", done.stderr
    text = (box.path / ".git" / ledger.FOLDER / ledger.NAME).read_text()
    written = [line for line in text.splitlines() if line[:2] in ("c ", "a ")]
    assert written[-1:] == [f"{AMEND_CASES[case]} {box.head()} {SID}"], text


def test_an_amend_no_log_records_is_never_made_by_the_session(tmp_path: Path) -> None:
    """No HEAD log and no post-rewrite hook: session B amends a commit A made. The amend
    was written as made by B (``c``, the Python hook's reading of a missing log), and B's
    answer was ``exact``, counting A's work as B's; now it is vouched for by nothing."""
    box = make(tmp_path)
    box.install()
    (box.path / ".git" / "hooks" / "post-rewrite").unlink()
    _no_log(box)
    box.sh("checkout", "-q", "-b", "topic", sid=OTHER)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    box.file_commit("a.txt", "a\n", "theirs", sid=OTHER)
    box.sh("commit", "-q", "--amend", "-m", "theirs, amended", sid=SID)
    assert box.field(SID, "SESSION_TRUST") != "exact"


def test_a_torn_last_line_is_ended_so_it_can_never_be_read(tmp_path: Path) -> None:
    """A writer killed mid-line (or a full disk) left ``c <sha> sessi``: the next Python
    append ends it with a blank field, so it is never read as session "sessi"'s line."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    sha, other = "a" * 40, "b" * 40
    (folder / ledger.NAME).write_bytes(f"c {sha} sessi".encode())
    assert note_made_in(str(tmp_path), [other], SID) is None
    book = ledger.read(str(tmp_path))
    assert book.status(sha, "sessi") == ledger.UNKNOWN
    assert book.status(other, SID) == ledger.SESSION


# -- compaction --------------------------------------------------------------------------------

def _ledger_file(tmp_path: Path) -> Path:
    folder = tmp_path / ledger.FOLDER
    folder.mkdir(exist_ok=True)
    return folder / ledger.NAME


def test_one_huge_line_is_dropped_and_the_ledger_gets_under_its_limits(tmp_path: Path) -> None:
    """One 10 MB line kept the file over the reader's 8 MiB cap for good (the whole ledger
    ignored, every checkout rewriting 10 MB). A line longer than the grammar allows is
    dropped; the valid lines around it are kept."""
    path = _ledger_file(tmp_path)
    before = "".join(f"c {n:040x} {SID}\n" for n in range(1000))
    after = "".join(f"c {n:040x} {SID}\n" for n in range(1000, 2000))
    path.write_bytes(before.encode() + b"x" * (10 << 20) + b"\n" + after.encode())
    ledger.maintain(str(tmp_path))
    assert path.stat().st_size <= ledger.KEEP_BYTES
    book = ledger.read(str(tmp_path))
    assert book.lines == 2000
    assert path.read_text() == before + after


def test_long_ids_get_under_the_limit_and_stay_there(tmp_path: Path) -> None:
    """20,000 lines of valid 200-character ids never got under 4 MiB, so every checkout
    compacted again: compaction keeps bytes, not lines, and a second one finds nothing
    to do."""
    path = _ledger_file(tmp_path)
    sid = "s" * 200
    path.write_text("".join(f"c {n:040x} {sid}\n" for n in range(25_000)))
    assert path.stat().st_size > ledger.LIMIT
    ledger.maintain(str(tmp_path))
    assert path.stat().st_size <= ledger.KEEP_BYTES < ledger.LIMIT
    first = path.stat().st_ino
    ledger.maintain(str(tmp_path))
    assert path.stat().st_ino == first  # not compacted again
    book = ledger.read(str(tmp_path))
    assert book.status(f"{24_999:040x}", sid) == ledger.SESSION  # the newest kept


def test_compaction_memory_stays_within_what_is_kept(tmp_path: Path) -> None:
    """Compacting a 40 MB ledger held all of it (a 140 MB one took 404 MB): it is read
    backwards a chunk at a time, so the memory it takes is about what it keeps."""
    import tracemalloc

    path = _ledger_file(tmp_path)
    block = "".join(f"c {n:040x} {SID}\n" for n in range(20_000)).encode()
    with open(path, "wb") as handle:
        for _ in range(40 * (1 << 20) // len(block) + 1):
            handle.write(block)
    tracemalloc.start()
    try:
        ledger.maintain(str(tmp_path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.stat().st_size <= ledger.KEEP_BYTES
    assert peak < 4 * ledger.KEEP_BYTES, peak


_PYTHON_APPENDER = """
import sys, time
from lets_hooks import ledger
common, first, count, sid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for n in range(first, first + count):
    problem = ledger.append(common, [ledger.line(ledger.MADE, f"{n:040x}", sid)])
    if problem:
        print(problem, file=sys.stderr)
    time.sleep(0.002)
"""

# the shim's append, as its shell writes it: one printf of a whole line to ``>>``
_SHELL_APPENDER = """
f=$1/lets-hooks/ledger; n=$2; end=$(($2 + $3))
while [ "$n" -lt "$end" ]; do
  printf 'c %040x %s\\n' "$n" "$4" >>"$f"
  n=$((n + 1))
done
"""


@pytest.mark.parametrize("writer", WRITERS)
def test_no_line_is_lost_while_compactions_follow_each_other(
        tmp_path: Path, writer: str) -> None:
    """Four writers append 150 lines each while compactions of a 1 MB ledger run back to
    back (each keeps it whole: nothing is old enough to go): writers
    waited on the compaction's lock for one second, then gave up (14 to 27 of 600 lines
    lost). Appends take no lock, and a compaction copies over what lands in the old
    file meanwhile: every line is there at the end."""
    path = _ledger_file(tmp_path)
    # what a compaction keeps whole (under KEEP lines and KEEP_BYTES): each one takes a
    # while, and the next starts as soon as it ends
    path.write_text("".join(f"c {n:040x} other-session\n" for n in range(10_000, 25_000)))
    count = 150
    if writer == "python":
        procs = [subprocess.Popen([sys.executable, "-c", _PYTHON_APPENDER, str(tmp_path),
                                   str(k * 1000), str(count), SID], stderr=subprocess.PIPE)
                 for k in range(4)]
    else:
        procs = [subprocess.Popen(["sh", "-c", _SHELL_APPENDER, "sh", str(tmp_path),
                                   str(k * 1000), str(count), SID], stderr=subprocess.PIPE)
                 for k in range(4)]
    compactions = 0
    lock = str(path.parent / ledger.LOCK)
    try:
        while any(proc.poll() is None for proc in procs) or compactions < 3:
            with files.locked(lock, shown=ledger.LOCK):
                ledger._compact(str(path), ledger.NAME)
            compactions += 1
    finally:
        said = [proc.communicate(timeout=120)[1] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert not any(said), said
    made = ledger.read(str(tmp_path)).made
    lost = [n for k in range(4) for n in range(k * 1000, k * 1000 + count)
            if f"{n:040x}" not in made]
    lost += [n for n in range(10_000, 25_000) if f"{n:040x}" not in made]
    assert not lost, (len(lost), compactions)


def _stopped_in(box: HookBox, state: str) -> None:
    """``box`` left in a rebase (``rebase-merge``, ``rebase-apply``: each backend stopped
    by a conflict), in ``git am`` stopped by one (``am``: the same ``rebase-apply``
    folder, without ``rebasing``), or in none (``none``)."""
    box.sh("checkout", "-q", "-b", "feat")
    box.file_commit("base.txt", "feat's\n")
    box.sh("checkout", "-q", "main")
    box.file_commit("base.txt", "main's\n")
    if state == "am":
        patch = box.sh("format-patch", "-1", "--stdout", "feat").stdout
        assert box.sh("am", "-q", stdin=patch, check=False).returncode != 0
        return
    box.sh("checkout", "-q", "feat")
    if state != "none":
        backend = "--merge" if state == "rebase-merge" else "--apply"
        assert box.sh("rebase", "-q", backend, "main", check=False).returncode != 0


@pytest.mark.parametrize("state", ["rebase-merge", "rebase-apply", "am", "none"])
def test_the_shim_and_python_agree_on_a_rebase_in_progress(tmp_path: Path, state: str
                                                            ) -> None:
    """The post-commit shim asks its own shell whether a rebase is in progress (it then
    leaves the lines to post-rewrite); ``gitfiles.rebasing`` is the Python rule. Over the
    same repository states both give the same answer. The shim runs with no lets-hooks to
    hand over to, so what it does is its shell's own decision: it writes HEAD's line
    exactly when it sees no rebase."""
    from lets_hooks import gitfiles, install

    box = make(tmp_path)
    _stopped_in(box, state)
    git_dir = box.path / ".git"
    folders = {"rebase-merge": ["rebase-merge"], "rebase-apply": ["rebase-apply"],
               "am": ["rebase-apply"], "none": []}
    assert sorted(p.name for p in git_dir.glob("rebase-*")) == folders[state]
    folder = tmp_path / "hooks"
    folder.mkdir()
    shim = folder / "post-commit"
    shim.write_text(install.shim("post-commit", command=str(tmp_path / "absent")))
    git = shutil.which("git")
    assert git is not None
    env = {"PATH": os.pathsep.join([os.path.dirname(git), "/usr/bin", "/bin"]),
           "HOME": str(tmp_path), "LETS_SESSION_ID": SID}
    done = subprocess.run(["sh", str(shim)], cwd=box.path, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and "skipped" not in done.stderr, done.stderr
    kept = git_dir / ledger.FOLDER / ledger.NAME
    written = kept.exists() and box.head() in kept.read_text()
    assert gitfiles.rebasing(str(git_dir)) == state.startswith("rebase-")
    assert written == (not gitfiles.rebasing(str(git_dir)))
