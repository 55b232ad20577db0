"""Property tests of the task-file parser and writer (hypothesis).

- any bytes in, no exception out: the reader, the ladder's reading and the lint step take
  any file content; the writer takes any existing content and either writes or refuses
  with ``StateError``, never anything else;
- a write followed by a read returns what was written;
- every other line survives a write unchanged, byte for byte.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from helpers import write_session_line
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from lets_hooks import lint, state

HEXDIGITS = "0123456789abcdef"
PROFILE = settings(max_examples=300, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
FILE_PROFILE = settings(max_examples=150, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])

shas = st.text(HEXDIGITS, min_size=7, max_size=64)
# the ledger's own marks (-, =, *) are no session's id: the one session-id rule refuses them
sids = st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9._:@+=-]{1,80}", fullmatch=True)
                 .filter(lambda sid: sid not in ("-", "=", "*")))
# text with many line shapes: session lines, near misses, CRLF, lone CR, NUL, bad UTF-8
fragments = st.sampled_from([
    b"session: ", b"session:", b"Session: ", b" session: ", b"\n", b"\r\n", b"\r", b"\x00",
    b"\xff\xfe", b"task: t", b"start: s", b"origin: o", b"orc: x", b"# title", b"---",
    b"deadbeef", b" ", b"\t", b"abc 123",
])
contents = st.one_of(
    st.binary(max_size=400),
    st.lists(st.one_of(fragments, st.binary(max_size=12)), max_size=40).map(b"".join),
)
branches = st.from_regex(r"[A-Za-z0-9._é-]{1,20}(/[A-Za-z0-9._é-]{1,20}){0,2}",
                         fullmatch=True).filter(lambda b: b not in (".", ".."))


@contextmanager
def work_tree() -> Iterator[str]:
    top = tempfile.mkdtemp(prefix="lets-prop-")
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def session_lines(data: bytes) -> tuple[int, int] | None:
    """(start, end) of the first session line's value, found independently of state.py:
    by splitting into lines the way a reader of the format would."""
    offset = 0
    for line in data.split(b"\n"):
        if line.startswith(state.SESSION_PREFIX):
            begin = offset + len(state.SESSION_PREFIX)
            end = offset + len(line)
            if line.endswith(b"\r"):
                end -= 1
            return begin, end
        offset += len(line) + 1
    return None


NOW = 1_796_040_000
STAMP = "2026-11-30T12:00:00Z"


def value_of(sha: str, sid: str | None) -> bytes:
    return (sha if not sid else f"{sha} {sid}").encode()


# -- the parser ----------------------------------------------------------------------------

@PROFILE
@given(contents)
def test_parser_takes_any_bytes(data: bytes) -> None:
    line = state.find_session_line(data)
    found = session_lines(data)
    if found is None:
        assert line is None
    else:
        assert line == data[found[0]:found[1]]
        state.tokens(line)
    state.first_line(data)


@FILE_PROFILE
@given(contents)
@example(b"\x00" * 10)
@example(b"session: \xff\xfe \x00\n")
def test_reading_a_task_file_of_any_bytes_never_raises(data: bytes) -> None:
    with work_tree() as top:
        folder = state.sessions_dir(top)
        os.makedirs(folder)
        for name in (".task-b", ".session-start-ref-b"):
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        recorded = state.read_recorded(top, "b")
        if recorded.sha is not None:
            assert state.is_hex(recorded.sha)
        for finding in lint.state_files(state.open_store(top)):
            assert str(finding).isprintable()


# -- the writer, in memory -----------------------------------------------------------------

@PROFILE
@given(contents, shas, sids)
@example(b"", "abcdef0", None)
@example(b"task: t\r\nstart: s\r\norigin: o", "abcdef0", "sid")
@example(b"session: old\r", "abcdef0", "sid")
@example(b"x\nsession: old", "abcdef0", None)
def test_write_then_read_returns_what_was_written(data: bytes, sha: str,
                                                  sid: str | None) -> None:
    value = value_of(sha, sid)
    new = state.replace_session_line(data, value)
    assert state.find_session_line(new) == value
    parts = state.tokens(state.find_session_line(new) or b"")
    assert parts[0].decode() == sha
    assert (parts[1].decode() if len(parts) > 1 else None) == (sid or None)


@PROFILE
@given(contents, shas, sids)
def test_every_other_byte_survives_a_write(data: bytes, sha: str, sid: str | None) -> None:
    value = value_of(sha, sid)
    new = state.replace_session_line(data, value)
    old_span = session_lines(data)
    if old_span is not None:
        begin, end = old_span
        assert new == data[:begin] + value + data[end:]
        return
    # no session line before: exactly one line was added, and nothing else changed
    begin, end = session_lines(new) or (0, 0)
    start = begin - len(state.SESSION_PREFIX)
    assert new[start:end] == state.SESSION_PREFIX + value
    without = []
    for eol in (b"\n", b"\r\n"):
        if new[end:].startswith(eol):  # "session: ...<eol>" inserted
            without.append(new[:start] + new[end + len(eol):])
        if new[:start].endswith(eol) and end == len(new):  # "<eol>session: ..." appended
            without.append(new[:start - len(eol)])
    assert data in without
    assert len(new) - len(data) in (len(state.SESSION_PREFIX) + len(value) + n for n in (1, 2))


@PROFILE
@given(contents, shas, sids, shas, sids)
def test_a_second_write_changes_only_the_value(data: bytes, sha1: str, sid1: str | None,
                                               sha2: str, sid2: str | None) -> None:
    once = state.replace_session_line(data, value_of(sha1, sid1))
    twice = state.replace_session_line(once, value_of(sha2, sid2))
    begin, end = session_lines(once) or (0, 0)
    assert twice == once[:begin] + value_of(sha2, sid2) + once[end:]
    assert state.replace_session_line(twice, value_of(sha2, sid2)) == twice


# -- the writer, on disk -------------------------------------------------------------------

@FILE_PROFILE
@given(contents, shas, sids, branches)
@example(b"task: t\nstart: s\nsession: abc1234 old\norigin: o\norc: x\n", "abcdef0", "s",
         "feat/x")
def test_written_file_reads_back_and_keeps_the_rest(data: bytes, sha: str, sid: str | None,
                                                    branch: str) -> None:
    with work_tree() as top:
        os.makedirs(state.sessions_dir(top))
        path = state.Store(top).task_path(branch)
        with open(path, "wb") as handle:
            handle.write(data)
        write_session_line(top, branch, sha, sid, now=NOW)
        with open(path, "rb") as handle:
            written = handle.read()
        if state.RECORDED_PREFIX not in data and state.APPROX_PREFIX not in data:
            # every byte but the session line's value is kept; one line is added beside it
            stamp = state.RECORDED_PREFIX + f"{sha} {STAMP}".encode()
            at = written.index(stamp)
            end = at + len(stamp)
            eol = b"\r\n" if written[end:end + 2] == b"\r\n" else b"\n"
            before, after = written[:at], written[end:]
            if after.startswith(eol):
                after = after[len(eol):]
            else:  # the last line: the added line came after a line end of its own
                assert before.endswith(eol)
                before = before[:-len(eol)]
            assert before + after == state.replace_session_line(data, value_of(sha, sid))
        recorded = state.read_recorded(top, branch)
        assert (recorded.sha, recorded.sid, recorded.source) == (sha, sid or None, "task")
        assert recorded.recorded_at == STAMP
        leftovers = [n for n in os.listdir(state.sessions_dir(top)) if n.endswith(".tmp")]
        assert leftovers == []


@FILE_PROFILE
@given(contents, st.text(max_size=30), st.one_of(st.none(), st.text(max_size=30)),
       st.text(min_size=1, max_size=30))
def test_writer_takes_any_input_and_only_ever_refuses_cleanly(data: bytes, sha: str,
                                                               sid: str | None,
                                                               branch: str) -> None:
    assume("\x00" not in branch and "\x00" not in sha)
    with work_tree() as top:
        os.makedirs(state.sessions_dir(top))
        before = None
        path = state.Store(top).task_path(branch)
        try:
            with open(path, "wb") as handle:
                handle.write(data)
            before = data
        except (OSError, ValueError):
            pass  # a branch name no file system takes; the writer must still not crash
        try:
            changed = write_session_line(top, branch, sha, sid)
        except state.StateError as exc:
            assert "\n" not in str(exc)
            if before is not None:
                with open(path, "rb") as handle:
                    assert handle.read() == before  # refused: left as it was
            return
        assert isinstance(changed, bool)
        recorded = state.read_recorded(top, branch)
        assert recorded.sha == sha
