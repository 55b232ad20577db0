"""The session ledger itself: its reading by id, its appends (the shell's and Python's),
concurrent writers, SIGKILL, compaction, and where it lives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BIN, Sandbox, note_made_in
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import files, ledger

A, B = "session-a", "session-b"
X, Y, Z, W = "1" * 40, "2" * 40, "3" * 40, "4" * 40


def book(text: str) -> ledger.Ledger:
    return ledger.parse(text.encode())


def test_a_commit_is_the_session_that_made_it() -> None:
    found = book(f"c {X} {A}\nc {Y} {B}\nc {Z} -\n")
    assert found.status(X, A) == ledger.SESSION
    assert found.status(Y, A) == ledger.OTHER
    assert found.status(Z, A) == ledger.OTHER  # no session id: never this session's
    assert found.status(W, A) == ledger.UNKNOWN
    assert found.status(Y, None) == ledger.SESSION  # the prior-session reading: made here


def test_copies_replayed_as_they_were_are_what_they_copy() -> None:
    found = book(f"c {X} {A}\nc {Y} {B}\nr {Z} {B} {X} =\nr {W} {A} {Y} =\n")
    assert found.status(Z, A) == ledger.SESSION  # another replayed this session's commit
    assert found.status(W, A) == ledger.OTHER  # this session replayed another's


def test_a_changed_copy_of_anothers_commit_is_mixed() -> None:
    amended = book(f"c {X} {B}\na {Y} {A}\nr {Y} {A} {X} *\n")
    assert amended.status(Y, A) == ledger.MIXED
    assert amended.status(Y, B) == ledger.MIXED  # B's commit, changed by A
    own = book(f"c {X} {A}\nr {Y} {A} {X} *\n")
    assert own.status(Y, A) == ledger.SESSION
    squash = book(f"c {X} {A}\nc {Y} {B}\nr {Z} {A} {X} =\nr {Z} {A} {Y} *\n")
    assert squash.status(Z, A) == ledger.MIXED


def test_an_amend_whose_pair_was_never_written_vouches_for_nothing() -> None:
    assert book(f"a {X} {A}\n").status(X, A) == ledger.UNKNOWN


def test_claims_are_the_named_sessions_and_never_override_a_maker() -> None:
    found = book(f"k {X} {A}\nc {Y} {B}\nk {Y} {A}\n")
    assert found.status(X, A) == ledger.SESSION
    assert found.status(X, B) == ledger.UNKNOWN  # another session's claim says nothing
    assert found.status(Y, A) == ledger.OTHER


def test_torn_and_foreign_lines_are_skipped() -> None:
    found = book(f"c {X} {A}\nc {Y[:20]}\ngarbage line\nc {Z} {A}c {W} {A}\n\nr {Y} {A}\n")
    assert found.status(X, A) == ledger.SESSION
    assert found.status(Z, A) == ledger.UNKNOWN
    assert found.status(W, A) == ledger.UNKNOWN


def test_a_copy_of_itself_decides_nothing() -> None:
    assert book(f"r {X} {A} {Y} =\nr {Y} {A} {X} =\n").status(X, A) == ledger.UNKNOWN


_SHAS = [f"{n:x}" * 40 for n in range(1, 10)]
_LINE = st.one_of(
    st.builds(lambda k, c, w: f"{k} {c} {w}", st.sampled_from("cak"), st.sampled_from(_SHAS),
              st.sampled_from([A, B, "-"])),
    st.builds(lambda n, w, o, m: f"r {n} {w} {o} {m}", st.sampled_from(_SHAS),
              st.sampled_from([A, B]), st.sampled_from(_SHAS), st.sampled_from("=*")))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINE, max_size=24),
       wanted=st.lists(st.sampled_from(_SHAS), min_size=1, max_size=9, unique=True))
def test_many_statuses_at_once_are_each_one_s(lines: list[str], wanted: list[str]) -> None:
    """``statuses`` (a maker's line alone decided in one pass, the rest one by one) says
    what ``status`` says of each commit, for this session, another and none, asked once or
    again; and a tail whose lines are mostly about the commits asked, parsed whole, says
    of them what the lines picked out say."""
    data = "".join(f"{x}\n" for x in lines).encode()
    for sid in (A, B, None):
        once = ledger.parse(data)
        for _ in range(2):
            assert once.statuses(wanted, sid) == {
                sha: ledger.parse(data).status(sha, sid) for sha in wanted}, sid


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=24),
       wanted=st.lists(st.sampled_from(_SHAS), min_size=1, max_size=9, unique=True),
       boundary=st.sampled_from([None, "f" * 40]))
def test_a_prior_session_reads_what_the_whole_ledger_says_of_the_commits_asked(
        tmp_path_factory: pytest.TempPathFactory, lines: list[str], wanted: list[str],
        boundary: str | None) -> None:
    """With no session (a prior-session reading), only the lines about the commits asked
    (and the commits their copies copy) are read, through the index or picked out: every
    status, for any session or none, is the whole ledger's."""
    common = tmp_path_factory.mktemp("common")
    (common / "lets-hooks").mkdir()
    (common / "lets-hooks" / "ledger").write_text("".join(f"{x}\n" for x in lines))
    whole = ledger.read(str(common))
    for indexed in (ledger.INDEXED, 0):
        kept, ledger.INDEXED = ledger.INDEXED, indexed
        try:
            found = ledger.read_from(str(common), boundary, None, wanted)
        finally:
            ledger.INDEXED = kept
        assert found  # a ledger, even when no line names them
        for sha in wanted:
            for sid in (None, A, B):
                assert found.status(sha, sid) == whole.status(sha, sid), (sha, sid, indexed)


def test_a_prior_session_parses_only_the_lines_about_its_commits(tmp_path: Path) -> None:
    """A long ledger of other commits costs a prior-session reading of a few commits only
    their lines: counted in lines parsed, whether few or many are asked; the whole ledger
    is parsed only when it is read whole."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    others = "".join(f"c {n:040x} {B}\n" for n in range(1, 5001))
    (folder / ledger.NAME).write_text(f"c {X} {A}\n{others}r {Y} {A} {X} =\nc {Z} {B}\n")
    many = [Y, Z, *(f"{n:040x}" for n in range(6000, 6100))]
    for wanted in ([Y], many):  # Y's copy line and its original's, and Z's for many
        found = ledger.read_from(str(tmp_path), X, None, wanted)
        assert found.lines == (2 if wanted == [Y] else 3)
        assert found.status(Y, None) == ledger.SESSION
    assert ledger.read(str(tmp_path)).lines == 5003


def test_a_long_ledger_after_the_mark_costs_only_the_lines_asked_about(
        tmp_path: Path) -> None:
    """More lines after the mark than a compaction keeps: the commits asked are searched
    for (the whole ledger is not parsed), and the answer is the whole ledger's."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    mine, theirs = "a" * 40, "b" * 40
    others = "".join(f"c {n:040x} {B}\n" for n in range(1, ledger.KEEP + 10))
    (folder / ledger.NAME).write_text(f"c {theirs} {B}\ns {X} {A}\nc {mine} {A}\n{others}")
    found = ledger.read_from(str(tmp_path), X, A, [mine, theirs])
    assert found.placed
    assert found.lines == 2  # mine's line and theirs' older one, no other
    assert found.status(mine, A) == ledger.SESSION and found.status(theirs, A) == ledger.OTHER


def test_a_long_ledger_is_read_through_its_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``INDEXED`` bytes the first reader makes the ledger's index and keeps it beside
    the ledger; the next ones pass over only the lines appended after it, until more than
    ``INDEXED`` bytes were (then it is made again). An index that does not hold for the
    ledger (the ledger rewritten, the index damaged) is made again, never used. Every
    answer is the whole ledger's."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    target, index = folder / ledger.NAME, folder / ledger.INDEX
    mine, theirs, later = "a" * 40, "b" * 40, "c" * 40
    older = f"c {theirs} {B}\n" + "".join(f"c {n:040x} {B}\n" for n in range(1, 2001))
    target.write_text(f"{older}s {X} {A}\nc {mine} {A}\n")
    passed: list[int] = []
    picked = ledger._picked

    def counted(data: bytes, shas: object, start: int = 0) -> dict[int, bytes]:
        passed.append(len(data) - start)
        return picked(data, shas, start)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger, "_picked", counted)

    def check(wanted: list[str], expected: dict[str, str]) -> None:
        found = ledger.read_from(str(tmp_path), X, A, wanted)
        assert found.placed
        assert {sha: found.status(sha, A) for sha in wanted} == expected

    check([mine, theirs], {mine: ledger.SESSION, theirs: ledger.OTHER})
    assert index.is_file() and passed[-1] == 0  # made now: nothing past it
    made = index.stat().st_mtime_ns
    with target.open("a") as out:
        out.write(f"c {later} {B}\n")
    check([mine, theirs, later], {mine: ledger.SESSION, theirs: ledger.OTHER,
                                  later: ledger.OTHER})
    assert passed[-1] == len(f"c {later} {B}\n")  # only the line appended since
    assert index.stat().st_mtime_ns == made  # kept, not made again
    with target.open("a") as out:
        out.write("".join(f"c {n:040x} {B}\n" for n in range(3000, 5000)))
    check([mine], {mine: ledger.SESSION})
    assert passed[-1] == 0 and index.stat().st_mtime_ns != made  # made again
    # the same bytes in a new file (as a compaction writes it): made again, not trusted
    made = index.stat().st_mtime_ns
    fresh = folder / "fresh"
    fresh.write_bytes(target.read_bytes())
    fresh.replace(target)
    monkeypatch.setattr(ledger, "_last_index", None)  # as a new process finds it
    check([mine], {mine: ledger.SESSION})
    assert passed[-1] == 0 and index.stat().st_mtime_ns != made
    # rewritten in place, as long as it was: another session's line about the same commit
    # where the index knows another commit's
    target.write_text(target.read_text().replace(f"c {1:040x} {B}", f"c {mine} {B}"))
    check([mine], {mine: ledger.UNKNOWN})  # two sessions say they made it
    assert passed[-1] == 0
    index.write_bytes(index.read_bytes()[:-1] + b"?")  # one byte damaged
    monkeypatch.setattr(ledger, "_last_index", None)  # as a new process finds it
    check([mine], {mine: ledger.UNKNOWN})
    assert passed[-1] == 0


def test_python_appends_start_on_a_line_of_their_own(tmp_path: Path) -> None:
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    (folder / ledger.NAME).write_bytes(f"c {X} {A}\nc {Y[:30]}".encode())  # torn by a kill
    assert note_made_in(str(tmp_path), [Z], A) is None
    assert ledger.read(str(tmp_path)).status(Z, A) == ledger.SESSION
    lines = (folder / ledger.NAME).read_bytes().split(b"\n")
    assert lines[-2] == f"c {Z} {A}".encode()


def test_the_second_writer_of_a_commit_keeps_the_first_line(tmp_path: Path) -> None:
    note_made_in(str(tmp_path), [X], A)
    note_made_in(str(tmp_path), [X], B)  # an agent's hook after the git hook
    assert (tmp_path / ledger.FOLDER / ledger.NAME).read_text() == f"c {X} {A}\n"


def test_claims_are_written_once(tmp_path: Path) -> None:
    for _ in range(3):
        ledger.note_claims(str(tmp_path), [X, Y], A)
    assert (tmp_path / ledger.FOLDER / ledger.NAME).read_text().count("\n") == 2


def test_compaction_keeps_the_newest_lines_whole(tmp_path: Path) -> None:
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    width = len(f"c {0:040x} {B}\n")
    old = [f"c {n:040x} {B}\n" for n in range(ledger.LIMIT // width + 10)]
    (folder / ledger.NAME).write_text("".join(old))
    assert note_made_in(str(tmp_path), [X], A) is None
    found = ledger.read(str(tmp_path))
    assert found.status(X, A) == ledger.SESSION
    assert found.lines <= ledger.KEEP
    assert found.status(f"{len(old) - 1:040x}", B) == ledger.SESSION  # the newest kept
    assert found.status(f"{0:040x}", B) == ledger.UNKNOWN  # the oldest gone
    text = (folder / ledger.NAME).read_text()
    assert text.endswith("\n") and all(len(line.split()) == 3 for line in text.splitlines())


_APPENDER = """
import sys
sys.path.insert(0, sys.argv.pop(1))  # the tests folder
from helpers import note_made_in
common, sid = sys.argv[1], sys.argv[2]
note_made_in(common, [f"{0:040x}"], sid)
print("wrote", flush=True)  # the test kills it at a random moment from here on
for n in range(1, 100000):
    note_made_in(common, [f"{n:040x}"], sid)
"""


def test_writers_killed_at_any_point_leave_whole_lines(tmp_path: Path) -> None:
    """Four writers appending at once, each killed with SIGKILL at a random moment, in
    rounds: every line that is in the file is whole, and each parses."""
    import random

    rng = random.Random(7)
    for round_ in range(6):
        procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, str(Path(__file__).parent),
                                   str(tmp_path), f"writer-{round_}-{k}"],
                                  stdout=subprocess.PIPE) for k in range(4)]
        for proc in procs:  # each has started writing, however busy the machine is
            assert proc.stdout is not None and proc.stdout.readline() == b"wrote\n"
        time.sleep(rng.random() * 0.3)
        for proc in procs:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            assert proc.stdout is not None
            proc.stdout.close()
    data = (tmp_path / ledger.FOLDER / ledger.NAME).read_bytes()
    lines = data.split(b"\n")
    whole = [line for line in lines[:-1]]
    assert whole, "no writer wrote anything"
    parsed = ledger.parse(data)
    torn = [line for line in whole if not ledger.is_line(line)]
    assert len(torn) <= 24, torn  # at most the line a killed writer was writing, each
    assert parsed.lines >= len(whole) - len(torn)


def test_the_ledger_lives_in_the_git_directory_shared_by_work_trees(sandbox: Sandbox) -> None:
    sandbox.run("lets-hooks", "install")
    env = dict(os.environ, LETS_SESSION_ID=A, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    other = sandbox.path.parent / "second"
    subprocess.run(["git", "worktree", "add", "-q", "-b", "side", str(other)],
                   cwd=sandbox.path, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "in the second tree"],
                   cwd=other, env=env, check=True)
    made = subprocess.run(["git", "rev-parse", "HEAD"], cwd=other, capture_output=True,
                          text=True, check=True).stdout.strip()
    text = (sandbox.path / ".git" / ledger.FOLDER / ledger.NAME).read_text()
    assert f"c {made} {A}\n" in text
    assert not (sandbox.path / ".lets" / "sessions" / ledger.NAME).exists()
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=sandbox.path,
                            capture_output=True, text=True, check=True).stdout
    assert "lets-hooks" not in status  # never in the work tree, never committed


def test_an_agents_tool_hook_reads_only_the_lines_about_its_commits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``note_made`` (an agent's tool hook, after each shell call) parsed the whole ledger
    to learn whether its commits have a line already (0.5 to 0.75 s on an 8 MiB one):
    now only the lines about them are parsed, and the answer is the same."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    others = "".join(f"c {n:040x} {B}\n" for n in range(1, 5001))
    (folder / ledger.NAME).write_text(f"c {X} {B}\n{others}")
    parsed: list[int] = []
    parse = ledger.parse

    def counted(data: bytes) -> ledger.Ledger:
        parsed.append(data.count(b"\n"))
        return parse(data)

    monkeypatch.setattr(ledger, "parse", counted)
    assert note_made_in(str(tmp_path), [X, Y], A) is None
    assert max(parsed) <= 2, parsed
    monkeypatch.setattr(ledger, "parse", parse)
    found = ledger.read(str(tmp_path))
    assert found.status(X, B) == ledger.SESSION  # the first writer's line stands
    assert found.status(Y, A) == ledger.SESSION


def test_without_the_mark_the_session_s_commits_are_found_anywhere(tmp_path: Path) -> None:
    """With no mark of the session, which commits it made (and the plain copies anyone
    made of them) is read from the lines that name the session and from the rewrite lines,
    not from the whole ledger; it is what the whole ledger says, in its order."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    others = "".join(f"c {n:040x} {B}\n" for n in range(1, 3001))
    text = f"r {W} {B} {Z} =\nc {X} {A}\n{others}r {Y} {B} {X} =\nc {Z} {A}\nc {X} {A}\n"
    (folder / ledger.NAME).write_text(text)
    ledger._targeted, ledger._last_whole = False, None
    found = ledger.read_from(str(tmp_path), None, A, [])
    assert ledger._last_whole is None  # not read whole
    assert found.session_work(A) == ledger.parse(text.encode()).session_work(A)
    assert found.session_work(A)[0] == [X, Z, Y, W]


def test_the_index_is_read_once_a_process(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` and pre-push read the same ledger for each branch: its index is read
    and checked once, not once a branch."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    (folder / ledger.NAME).write_text(
        "".join(f"c {n:040x} {B}\n" for n in range(1, 3001)) + f"s {X} {A}\nc {Y} {A}\n")
    ledger.read_from(str(tmp_path), X, A, [Y])  # makes it
    monkeypatch.setattr(ledger, "_last_index", None)
    loaded: list[str] = []
    load = ledger._load_index

    def counted(where: str, data: bytes, file: int) -> ledger.Index | None:
        loaded.append(where)
        return load(where, data, file)

    monkeypatch.setattr(ledger, "_load_index", counted)
    for _ in range(5):
        assert ledger.read_from(str(tmp_path), X, A, [Y]).status(Y, A) == ledger.SESSION
    assert len(loaded) == 1


def test_the_ledger_is_read_once_a_process_while_it_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` reads the ledger for every branch: a ledger unchanged for a while is read
    once; one that grows, or was changed just before (its times may not show a second
    change within the same tick), is read again."""
    folder = tmp_path / ledger.FOLDER
    folder.mkdir()
    target = folder / ledger.NAME
    target.write_text(f"c {X} {A}\n")
    reads: list[str] = []
    read = files.read_capped

    def counted(where: str, limit: int) -> tuple[bytes | None, str | None]:
        reads.append(where)
        return read(where, limit)

    monkeypatch.setattr(files, "read_capped", counted)
    monkeypatch.setattr(ledger, "_last_read", None)
    for _ in range(3):  # just written: read each time
        assert ledger.read_bytes(str(tmp_path)) == f"c {X} {A}\n".encode()
    assert len(reads) == 3
    monkeypatch.setattr(files, "SETTLED", -60.0)  # every change long enough ago
    for _ in range(3):
        assert ledger.read_bytes(str(tmp_path)) == f"c {X} {A}\n".encode()
    assert len(reads) == 4
    with target.open("a") as out:
        out.write(f"c {Y} {B}\n")
    assert ledger.read_bytes(str(tmp_path)).endswith(f"c {Y} {B}\n".encode())
    assert len(reads) == 5


def test_no_index_is_written_through_a_link(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The index is written as the ledger is: never into a ``lets-hooks`` folder that is a
    symbolic link (the reader still answers, picking the lines out)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ledger.NAME).write_text(f"s {X} {A}\nc {Y} {A}\n")
    common = tmp_path / "common"
    common.mkdir()
    (common / ledger.FOLDER).symlink_to(elsewhere)
    monkeypatch.setattr(ledger, "INDEXED", 0)
    monkeypatch.setattr(ledger, "_last_index", None)
    assert ledger.read_from(str(common), X, A, [Y]).status(Y, A) == ledger.SESSION
    assert sorted(p.name for p in elsewhere.iterdir()) == [ledger.NAME]
