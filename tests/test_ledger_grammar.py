"""The session ledger read strictly: one grammar, one rule for a session id, and the
reader's two strategies (the lines about a few commits, found through the index and picked
out of the rest; a whole parse) held to each other."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookbox import HookBox, make
from hypothesis import given, settings
from hypothesis import strategies as st

from lets_hooks import config, ledger, state

A, B = "session-a", "session-b"
# every name holds hex letters (an uppercase damage changes it); some are SHA-256 wide
_SHAS = [f"{n:x}a" * 20 for n in range(1, 7)] + [f"{n:x}e" * 32 for n in range(1, 4)]
# one more that the index cannot tell from the first by its key (the first 8 bytes)
_SHAS.insert(6, "1a" * 8 + "f" * 24)


_MADE = st.builds(lambda k, c, w: f"{k} {c} {w}", st.sampled_from("caks"),
                  st.sampled_from(_SHAS), st.sampled_from([A, B, "-"]))
_COPY = st.builds(lambda n, w, o, m: f"r {n} {w} {o} {m}", st.sampled_from(_SHAS),
                  st.sampled_from([A, B, "-"]), st.sampled_from(_SHAS),
                  st.sampled_from("=*")).filter(
    lambda text: len(text.split()[1]) == len(text.split()[3]))
LINE = st.one_of(_MADE, _COPY)

DAMAGES = ("crlf", "nul", "short", "long", "upper", "stray", "missing", "empty-sid",
           "bad-sid", "dash-how", "torn")


def damaged(line: str, how: str, at: int, following: str) -> str:
    """``line`` damaged as ``how`` says (``at``: where, for the damages that need a
    place; ``following``: the next line, which a torn line runs into)."""
    kind, sha, sid, *rest = line.split(" ")
    if how == "crlf":
        return line + "\r"
    if how == "nul":
        place = at % (len(line) + 1)
        return line[:place] + "\0" + line[place:]
    if how == "short":
        return " ".join([kind, sha[:-1], sid, *rest])
    if how == "long":
        return " ".join([kind, sha + "a", sid, *rest])
    if how == "upper":
        return " ".join([kind, sha.upper(), sid, *rest])
    if how == "stray":
        return line + " x"
    if how == "missing":
        return " ".join([kind, sha, *rest[:-1]]) if rest else f"{kind} {sha}"
    if how == "empty-sid":
        return " ".join([kind, sha, "", *rest])
    if how == "bad-sid":
        return " ".join([kind, sha, sid + "\x07", *rest])
    if how == "dash-how":
        return " ".join([kind, sha, sid, *rest[:-1], "-"]) if rest else line + "\t"
    # torn: the start of the line (never all of it), run into the next one
    return line[:1 + at % (len(line) - 1)] + following


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=20),
       hits=st.lists(st.tuples(st.integers(0, 19), st.sampled_from(DAMAGES),
                               st.integers(0, 500)), max_size=6))
def test_a_damaged_line_is_skipped_and_decides_nothing(
        lines: list[str], hits: list[tuple[int, str, int]]) -> None:
    """Property: take a valid ledger, damage some of its lines (CRLF ends, a NUL anywhere,
    a short or long sha, uppercase hex, a stray or missing field, an empty or refused
    session id, a rewrite's bad how-marker, a line torn and run into the next, which
    damages both). Then for every commit and every reader (this session, another, none):

        status(damaged ledger) == status(the undamaged lines alone)

    so a damaged line can never make a commit this session's, another's or mixed beyond
    what the undamaged lines say: at most a commit is left "not vouched for" (UNKNOWN)
    where the damaged line would have decided it. Every damaged line is also refused by
    ``is_line``, and the search for a few commits says what the whole parse says."""
    text: list[str | None] = list(lines)
    broken: set[int] = set()
    for index, how, at in hits:
        index %= len(lines)
        if index in broken:
            continue
        if how == "torn":
            if index + 1 >= len(lines) or index + 1 in broken:
                continue
            text[index] = damaged(lines[index], how, at, lines[index + 1])
            text[index + 1] = None  # inside the torn line now
            broken |= {index, index + 1}
        else:
            text[index] = damaged(lines[index], how, at, "")
            broken.add(index)
    for index in broken:
        raw = text[index]
        if raw is not None:
            assert not ledger.is_line(raw.encode("utf-8", "surrogateescape")), repr(raw)
    data = "".join(f"{raw}\n" for raw in text if raw is not None).encode()
    kept = "".join(f"{raw}\n" for i, raw in enumerate(lines) if i not in broken).encode()
    whole, reference = ledger.parse(data), ledger.parse(kept)
    for sid in (A, B, None):
        for sha in _SHAS:
            assert whole.status(sha, sid) == reference.status(sha, sid), (sha, sid, text)
        assert ledger.about(data, _SHAS[:3]).statuses(_SHAS[:3], sid) == \
            {sha: whole.status(sha, sid) for sha in _SHAS[:3]}


def test_crlf_and_nul_after_the_id_are_not_another_sessions_line() -> None:
    """The issue's case: a line of session A ended by CRLF, or with a NUL after the id,
    was read as a line of some other session ("exact 0, not counting 1 from
    elsewhere"): skipped, it leaves the commit undecided."""
    sha = _SHAS[0]
    for raw in (f"c {sha} {A}\r\n", f"c {sha} {A}\0\n", f"c {sha} {A}\0\r\n"):
        found = ledger.parse(raw.encode())
        assert found.status(sha, A) == ledger.UNKNOWN, repr(raw)
        assert found.status(sha, B) == ledger.UNKNOWN, repr(raw)
        assert not found.lines


def test_the_grammar_exactly() -> None:
    x, y, wide = "a" * 40, "b" * 40, "c" * 64
    good = [f"c {x} {A}", f"a {x} -", f"k {x} {A}", f"s {x} {A}", f"r {y} {A} {x} =",
            f"r {y} {A} {x} *", f"c {wide} {A}", "c " + x + " " + "\u00e9" * 200]
    bad = ["", f"c {x}", f"c {x} {A} ", f" c {x} {A}", f"c  {x} {A}", f"c\t{x} {A}",
           f"x {x} {A}", f"C {x} {A}", f"c {x[:-1]} {A}", f"c {x}0 {A}", f"c {x.upper()} {A}",
           f"c {x} {A} {y} =", f"r {y} {A} {x}", f"r {y} {A} {x} +", f"r {y} {A} {wide} =",
           f"r {x} {A} {x} =", f"c {x} =", f"c {x} *", f"c {x} {'i' * 201}",
           f"c {x} a\u200bb", f"c {x} {A}\r", f"c {x} \x00", f"rr {y} {A} {x} ="]
    for raw in good:
        assert ledger.is_line(raw.encode()), raw
    for raw in bad:
        assert not ledger.is_line(raw.encode()), repr(raw)
    assert not ledger.is_line(f"c {x} ".encode() + b"\xff\xfe")  # not UTF-8
    # a last line with no newline is not read (torn, or still being written)
    assert ledger.parse(f"c {x} {A}\nc {y} {A}".encode()).status(y, A) == ledger.UNKNOWN


_ANY = st.one_of(LINE, st.builds(damaged, LINE, st.sampled_from(DAMAGES), st.integers(0, 99),
                                 LINE))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_ANY, max_size=30),
       wanted=st.lists(st.sampled_from(_SHAS), min_size=1, max_size=len(_SHAS), unique=True),
       indexed=st.sampled_from([ledger.INDEXED, 0]),
       lookup=st.sampled_from([ledger.LOOKUP, 0]),
       cut=st.integers(0, 30),
       mark=st.sampled_from([None, A, B]))
def test_the_index_and_the_whole_parse_say_the_same(
        lines: list[str], wanted: list[str], indexed: int, lookup: int, cut: int,
        mark: str | None, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Property: the reader's two strategies agree. For any ledger (valid and damaged
    lines, both hash widths, names alike in the index's key, copies of copies), any
    commits asked and any reader: what ``read_from`` says of them (the lines about them
    found through the ledger's index, and picked out of what was appended after it; every
    line parsed when they may be most of the lines), with this session's mark in the
    ledger or not, is what ``parse`` of the whole file says; ``placed`` is whether the
    mark is there. Without the mark, which commits the session made is the whole
    ledger's answer too. An index of any first part of the ledger says the same, and,
    extended by the lines after that part, is the index of the whole."""
    boundary = _SHAS[-1]
    if mark is not None:
        lines = [*lines, f"s {boundary} {mark}"]
    data = "".join(f"{raw}\n" for raw in lines).encode()
    common = tmp_path_factory.mktemp("common")
    (common / ledger.FOLDER).mkdir()
    (common / ledger.FOLDER / ledger.NAME).write_bytes(data)
    whole = ledger.parse(data)
    kept = ledger.INDEXED, ledger.LOOKUP
    ledger.INDEXED, ledger.LOOKUP = indexed, lookup
    try:
        for sid in (A, B, None):
            ledger._targeted, ledger._last_whole = False, None  # this process's first
            found = ledger.read_from(str(common), boundary, sid, wanted)
            assert found.placed == (sid is not None and (boundary, sid) in whole.written)
            if sid is not None and not found.placed:  # the session's commits, all of them
                assert found.session_work(sid) == whole.session_work(sid)
            for sha in wanted:
                for reader in (A, B, None):
                    assert found.status(sha, reader) == whole.status(sha, reader), \
                        (sha, sid, reader)
            first = "".join(f"{raw}\n" for raw in lines[:cut]).encode()
            for index in (None, ledger.build_index(first)):
                assert ledger.about(data, wanted, index).statuses(wanted, sid) == \
                    {sha: whole.status(sha, sid) for sha in wanted}
            # an index of the first part, extended by the lines after it, is the whole's
            made, extended = ledger.build_index(data), ledger.build_index(
                data, ledger.build_index(first))
            assert [getattr(extended, name) for name in ledger.Index.__slots__] == \
                [getattr(made, name) for name in ledger.Index.__slots__]
            # the whole parse kept for the next reader is never marked by this one
            assert not ledger.read(str(common)).placed
    finally:
        ledger.INDEXED, ledger.LOOKUP = kept


# -- the session-id rule ----------------------------------------------------------------------

@pytest.mark.parametrize("sid", ["-", "=", "*", "", "a b", "x" * 201, "a\u200bb", "\ud800"])
def test_the_session_id_rule_refuses_what_the_ledger_cannot_write_as_itself(sid: str) -> None:
    assert state.sid_problem(sid) is not None
    assert ledger.token(sid) == ledger.NO_SESSION
    if sid not in ("-", "\ud800"):  # "-" is the ledger's "no session"; the other no UTF-8
        assert not ledger.is_line(f"c {'a' * 40} {sid}".encode())


def test_every_id_the_rule_takes_is_written_and_read_as_itself() -> None:
    for sid in (A, "x" * 200, "\u00e9" * 200, "\ud55c\uad6d\uc5b4", "a=b", "-a", "a*"):
        assert state.sid_problem(sid) is None
        raw = ledger.line(ledger.MADE, "a" * 40, sid)
        assert ledger.fields(raw[:-1]) == (ledger.MADE, "a" * 40, sid, "", False)
        assert ledger.parse(raw).status("a" * 40, sid) == ledger.SESSION


def test_a_refused_id_in_the_environment_is_no_session_id_with_one_note() -> None:
    settings_ = config.load(None, {"LETS_SESSION_ID": "-"})
    assert settings_.session_id({"LETS_SESSION_ID": "-"}) is None
    assert [p for p in settings_.problems if "LETS_SESSION_ID" in p] == [
        "LETS_SESSION_ID: the session id '-' is one of the session ledger's own marks "
        "(-, =, *); read as no session id"]
    # not the next variable either: the id given was refused, not missing
    both = {"LETS_SESSION_ID": "-", "CLAUDE_CODE_SESSION_ID": A}
    assert config.load(None, both).session_id(both) is None


def test_a_session_named_dash_does_not_own_the_commits_made_with_no_id(
        tmp_path: Path) -> None:
    """The issue's case: ``-`` is the ledger's own "no session"; a session with that id
    counted every commit people made with no id as its own, ``exact``. Now it is no
    session id: the contract says so once, and nothing is exact."""
    box: HookBox = make(tmp_path)
    box.install()
    box.sh("checkout", "-q", "-b", "topic")
    box.run("lets-hooks", "record", env=box.environ("-"))  # the session "-" starts
    box.sh("commit", "--allow-empty", "-m", "a person's, no session id")
    text = (box.path / ".git" / ledger.FOLDER / ledger.NAME).read_text()
    assert text.endswith(f"c {box.head()} -\n")
    found = box.boundary(env=box.environ("-"))
    assert found["SESSION_TRUST"] != "exact", found
    assert found["stderr"].count("read as no session id") == 1, found["stderr"]


def test_the_shim_hands_a_refused_id_to_lets_hooks(tmp_path: Path) -> None:
    """The shell asks the rule's question for the ids it writes: ``-`` (and any id it
    cannot judge) goes to lets-hooks, which writes "no session" and says why, once."""
    box: HookBox = make(tmp_path)
    box.install()
    for sid in ("-", "=", "x" * 201):
        done = box.sh("commit", "--allow-empty", "-m", f"with {sid[:5]}", sid=sid)
        line = (box.path / ".git" / ledger.FOLDER / ledger.NAME).read_text().splitlines()[-1]
        assert line == f"c {box.head()} -", (sid, line)
        assert done.stderr.count("read as no session id") == 1, done.stderr
