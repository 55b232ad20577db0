"""The session ledger: which session made each commit, written when it is made.

Git records where and when a commit was made (the reflog), never which session made it:
that is known only while the commit is being made. The hooks that see it made
(post-commit, post-merge, post-applypatch, post-rewrite) and the agents' tool hooks write
it down here; the witness reads it back by id (docs/witness.md has the format and why).

The file is ``<git common dir>/lets-hooks/ledger``: every work tree shares it, and no
repository can ship or track it. One line an event, appended; the oldest go first past
``LIMIT`` bytes::

    c <commit> <sid>                  made by session <sid> ("-": no session)
    a <commit> <sid>                  an amend made by <sid> (vouched only by its r line)
    r <new> <sid> <old> <how>         a rewrite by <sid>: <new> copies <old>; <how> is "="
                                      for a plain pick, "*" when the rewrite changed it
                                      (amend, reword, edit, squash, fixup)
    k <commit> <sid>                  ``lets-hooks record --at`` claimed it for <sid>
    s <commit> <sid>                  a session line of <sid> was written at <commit>: what
                                      the ledger names after it cannot be below it

The grammar is strict (``fields``): single spaces, full lowercase object names of one
width, a session id that keeps the session-id rule (``state.sid_problem``) or "-", a line
ended by a newline. Anything else (CRLF, a NUL, a short sha, a stray field, a torn last
line) is skipped: it can leave a commit undecided, never make it some session's.

Beside it, ``ledger.index`` (``Index``) says where the lines about each commit start, so
that a long ledger is not passed over line by line for a few commits: checked against the
bytes it covers on every read, made again whenever it does not hold for them.

The writers' one rule (Python here, the plain shims' shell in ``install._NOTE``; the why in
docs/witness.md): never block, never follow a link, never take a lock to append (one
``write(2)`` of whole lines, ``O_APPEND``), never leave a torn line readable. Past ``LIMIT``
bytes a compaction under the lock keeps the newest valid lines; a Python writer whose file
was replaced under it writes its lines again. No clock is read or written: the order of
the lines is the only order there is.
"""

from __future__ import annotations

import os
import stat
import time
from itertools import accumulate, compress
from operator import itemgetter

from lets_hooks import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

FOLDER = "lets-hooks"  # in the git common dir
NAME = "ledger"
LOCK = "ledger.lock"
LIMIT = 4 << 20  # compacted past this many bytes (about 40,000 lines)
KEEP_BYTES = LIMIT // 2  # a compaction keeps at most this many bytes, the newest lines
KEEP = 20_000  # and at most this many lines
INDEXED = 1 << 16  # bytes: a longer ledger is read through its index (``Index``), which is
#                   made again once more than this many bytes were appended past it
INDEX = "ledger.index"
LOOKUP = 8  # lines: a look-up in the index costs what a pass over this many does
#             (benchmarks/bench_ledger.py); more commits asked are picked out instead
READ_LIMIT = 2 * LIMIT  # a larger file (shell appends, never compacted) is not read
NO_SESSION = "-"
LONGEST = 1024  # bytes: longer than any line the grammar allows (a 200-character id of
#                 4-byte characters and two SHA-256 names); a longer line is dropped
CHUNK = 1 << 16  # compaction reads backwards this many bytes at a time

MADE = b"c"
AMEND = b"a"
REWRITE = b"r"
CLAIM = b"k"
WRITTEN = b"s"

KINDS = frozenset({MADE, AMEND, REWRITE, CLAIM, WRITTEN})
HEX = b"0123456789abcdef"
HOW = frozenset({b"=", b"*"})

# The statuses of a commit for one session.
SESSION = "session"  # this session's own
OTHER = "other"  # made here by another session, or by none: never this session's
MIXED = "mixed"  # holds this session's work and another's (an amend, squash, reword)
UNKNOWN = "unknown"  # the ledger says nothing that decides


def folder(common_dir: str) -> str:
    return os.path.join(common_dir, FOLDER)


def path(common_dir: str) -> str:
    return os.path.join(common_dir, FOLDER, NAME)


def token(sid: str | None) -> str:
    """A session id as the ledger writes it: the id itself when it keeps the session-id
    rule (``state.sid_problem``: one printable token, not "-"), else "-" (no session)."""
    from lets_hooks import state

    if not sid or state.sid_problem(sid) is not None:
        return NO_SESSION
    return sid


class Ledger:
    """The ledger read whole, as maps keyed by commit."""

    __slots__ = ("amended", "by_sid", "claims", "copies", "lines", "made", "order", "placed",
                 "said", "sessions", "written")

    def __init__(self) -> None:
        self.made: dict[str, set[str]] = {}  # commit -> sids that made it
        self.amended: dict[str, set[str]] = {}
        self.copies: dict[str, list[tuple[str, str, bool]]] = {}  # new -> [(old, sid, changed)]
        self.claims: dict[str, set[str]] = {}
        self.order: dict[str, int] = {}  # commit -> its newest line's place (the log's order)
        self.by_sid: dict[str, list[str]] = {}  # sid -> the commits its lines name
        self.written: dict[tuple[str, str], int] = {}  # (boundary, sid) -> its newest s line
        self.placed = False  # the session's mark (``s``) at the boundary is there (``read_from``)
        self.lines = 0
        self.said: dict[str | None, dict[str, str]] = {}  # sid -> what ``status`` answered
        self.sessions: dict[str, tuple[list[str], set[str]]] = {}  # ``session_work``'s

    def __bool__(self) -> bool:
        return self.lines > 0

    def named(self, shas: Collection[str]) -> set[str]:
        """Those of ``shas`` a line names: the only ones ``status`` can decide. The shorter
        side is gone through (status: a few commits a branch over a whole ledger; a clone's
        100,000: benchmarks/bench_boundary.py, walk-heavy)."""
        made, copies, amended, claims = self.made, self.copies, self.amended, self.claims
        if len(shas) > len(made) + len(copies) + len(amended) + len(claims):
            return {*made, *copies, *amended, *claims}.intersection(shas)
        return {sha for sha in shas
                if sha in made or sha in copies or sha in amended or sha in claims}

    def copied_from(self, shas: Iterable[str]) -> set[str]:
        """Every commit one of ``shas`` is a copy of, through copies of copies: each of a
        squash's originals, not only its newest pair's."""
        copies = self.copies
        found: set[str] = set()
        todo = [sha for sha in shas if sha in copies]
        while todo:
            for old, _, _ in copies.get(todo.pop(), ()):
                if old not in found:
                    found.add(old)
                    todo.append(old)
        return found

    def status(self, sha: str, sid: str | None) -> str:
        """What the ledger says ``sha`` is for session ``sid`` (None: every commit made here
        under any id is "the session's", the prior-session reading). Each answer is kept."""
        said = self.said.setdefault(sid, {})
        found = said.get(sha)
        if found is None:
            found = said[sha] = self._status(sha, sid, 0, {})
        return found

    def statuses(self, shas: Iterable[str], sid: str | None) -> dict[str, str]:
        """``status`` of each of ``shas``, as a map: a commit its maker's line alone decides
        (nearly every one), or that no line names, without a call to ``status``
        (benchmarks/bench_boundary.py, the 10,000-commit session)."""
        said = self.said.setdefault(sid, {})
        copies, made, amended, claims = self.copies, self.made, self.amended, self.claims
        mine = sid if sid else None
        alone = {mine}
        found: dict[str, str] = {}
        for sha in shas:
            known = said.get(sha)
            if known is None:
                if sha in copies:
                    known = self.status(sha, sid)
                else:
                    makers = made.get(sha)
                    if makers is None:
                        known = UNKNOWN if sha not in amended and sha not in claims \
                            else self.status(sha, sid)
                    elif mine is None or makers == alone:
                        known = SESSION
                    else:
                        known = self.status(sha, sid)
                said[sha] = known
            found[sha] = known
        return found

    def _status(self, sha: str, sid: str | None, depth: int, seen: dict[str, str]) -> str:
        if sha in seen:
            return seen[sha]
        seen[sha] = UNKNOWN  # a cycle (a commit copied back into itself) decides nothing
        found = self._decide(sha, sid, depth, seen)
        seen[sha] = found
        return found

    def _decide(self, sha: str, sid: str | None, depth: int, seen: dict[str, str]) -> str:
        mine = sid if sid else None
        pairs = self.copies.get(sha)
        if pairs is not None and depth < 64:
            olds = [self._status(old, sid, depth + 1, seen) for old, _, _ in pairs]
            changed = len(pairs) > 1 or any(c for _, _, c in pairs)
            if mine is None:
                found = SESSION if all(o == SESSION for o in olds) else \
                    UNKNOWN if any(o == UNKNOWN for o in olds) else MIXED
                return self._claimed(sha, mine) if found == UNKNOWN and not changed \
                    else found
            if not changed:
                # a plain pick is what it copies, whoever replayed it; of a commit no line
                # decides, no line says who made it either: a claim may
                return olds[-1] if olds[-1] != UNKNOWN else self._claimed(sha, mine)
            by_me = all(s == mine for _, s, _ in pairs)
            if by_me and all(o == SESSION for o in olds):
                return SESSION
            if UNKNOWN in olds and not any(o == SESSION for o in olds):
                return UNKNOWN if not by_me else MIXED
            if by_me or SESSION in olds or MIXED in olds:
                return MIXED  # this session's work and another's in one commit
            return OTHER
        makers = self.made.get(sha)
        if makers:
            if mine is None or makers == {mine}:
                return SESSION
            if mine in makers:
                return UNKNOWN  # two writers disagree on who made it: nothing decided
            return OTHER
        if sha in self.amended:
            return UNKNOWN  # an amend whose pair post-rewrite never gave
        return self._claimed(sha, mine)

    def _claimed(self, sha: str, mine: str | None) -> str:
        """A commit no line says who made: the session's when it claimed it (``record
        --at``; with no session, any session's claim), else not known."""
        claimed = self.claims.get(sha)
        if claimed and (mine is None or mine in claimed):
            return SESSION
        return UNKNOWN

    def session_work(self, sid: str) -> tuple[list[str], set[str]]:
        """The commits this session made or changed and the plain copies of them, newest
        first in the ledger's order (a boundary must never be above them); and those that
        hold another's work too (``MIXED``). A commit this session's ``a`` or ``c`` line
        names is among them even where that line alone decides nothing (an amend with no
        rewrite pair, as every commit is where no HEAD log tells a commit from an amend):
        the session's work is in it. Kept per session: the caller must not change it."""
        found = self.sessions.get(sid)
        if found is None:
            named = dict.fromkeys(self.by_sid.get(sid, ()))
            named.update(dict.fromkeys(self.copies))
            said = self.statuses(named, sid)
            mine = self.worked_on(named, sid, said)
            mine.sort(key=self.order.__getitem__, reverse=True)
            found = self.sessions[sid] = (mine, {sha for sha in mine if said[sha] == MIXED})
        return found

    def worked_on(self, shas: Iterable[str], sid: str,
                  said: dict[str, str] | None = None) -> list[str]:
        """Those of ``shas`` session ``sid`` made or changed (``session_work``'s rule),
        in their order; ``said``: their ``statuses``, when known."""
        shas = list(shas)
        said = self.statuses(shas, sid) if said is None else said
        amended, made = self.amended, self.made
        return [sha for sha in shas if said[sha] in (SESSION, MIXED) or (
            said[sha] == UNKNOWN and (sid in amended.get(sha, ()) or sid in made.get(sha, ())))]


# The names the one amend rule (``made_kind``) is asked over, as the shell shim asks them
# (``install._NOTE``: ``git rev-parse HEAD@{0} HEAD^ HEAD@{1}``).
AMEND_NAMES = ("HEAD@{0}", "HEAD^", "HEAD@{1}")


def made_kind(head: str, logged: str | None, parent: str | None, before: str | None
              ) -> bytes:
    """The one amend rule: the kind of line post-commit writes for ``head``, from
    ``AMEND_NAMES`` as git resolves them (None: no such commit). ``c`` for a commit HEAD's
    log recorded whose first parent is where HEAD was before; any other (an amend, or a
    commit the log did not record) is vouched for only through its rewrite line (``a``).
    The shim's shell does the same (tests/test_ledger_writers.py runs both)."""
    return MADE if logged == head and parent == before else AMEND


def parse(data: bytes) -> Ledger:
    """Every line that keeps the grammar (``fields``), in order; the rest is skipped, and
    so is a last line with no newline (torn, or still being written)."""
    ledger = Ledger()
    made, amended = ledger.made, ledger.amended
    copies, claims, order, by_sid = ledger.copies, ledger.claims, ledger.order, ledger.by_sid
    written = ledger.written
    sids: dict[bytes, str | None] = {}  # a few sessions write most lines: each judged once
    at = 0
    lines = data.split(b"\n")
    lines.pop()  # after the last newline: empty, or a line not ended
    for raw in lines:
        found = fields(raw, sids)
        if found is None:
            continue
        kind, sha, sid, old, changed = found
        at += 1
        if kind == MADE:
            made.setdefault(sha, set()).add(sid)
        elif kind == REWRITE:
            copies.setdefault(sha, []).append((old, sid, changed))
        elif kind == AMEND:
            amended.setdefault(sha, set()).add(sid)
        elif kind == WRITTEN:
            written[(sha, sid)] = at
            continue
        else:
            claims.setdefault(sha, set()).add(sid)
        order[sha] = at
        by_sid.setdefault(sid, []).append(sha)
    for sha, pairs in copies.items():
        # several pairs for one copy from one rewrite are a squash; from a later rewrite
        # (a copy of a copy kept as it was) only the newest rewrite's pairs count
        if len(pairs) > 1:
            copies[sha] = list({pair[0]: pair for pair in pairs}.values())
    ledger.lines = at
    return ledger


def fields(raw: bytes, sids: dict[bytes, str | None] | None = None
           ) -> tuple[bytes, str, str, str, bool] | None:
    """One line (without its newline) as (kind, commit, sid, old, changed), or None when
    it does not keep the grammar (the module's docstring) exactly. ``sids``: ids judged
    already. No ``re``: the hooks start without it."""
    parts = raw.split(b" ")
    count = len(parts)
    if count == 3:
        kind, sha, who = parts
        if kind == REWRITE or kind not in KINDS:
            return None
        old = b""
    elif count == 5:
        kind, sha, who, old, how = parts
        if kind != REWRITE or how not in HOW or len(old) != len(sha) or old == sha \
                or old.translate(None, HEX):
            return None
    else:
        return None
    if len(sha) not in (40, 64) or sha.translate(None, HEX):
        return None
    sid = sids.get(who, "") if sids is not None else ""
    if sid == "":
        sid = _sid(who)
        if sids is not None:
            sids[who] = sid
    if sid is None:
        return None
    return kind, sha.decode("ascii"), sid, old.decode("ascii"), count == 5 and how == b"*"


def _sid(raw: bytes) -> str | None:
    """The session id a line names ("-": none), or None when the ledger cannot write it."""
    from lets_hooks import state

    try:
        sid = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return sid if sid == NO_SESSION or state.sid_problem(sid) is None else None


def is_line(raw: bytes) -> bool:
    """Does ``raw`` (one line, without its newline) keep the grammar?"""
    return fields(raw) is not None


def read(common_dir: str | None) -> Ledger:
    """The ledger of the repository whose common git dir is ``common_dir`` (empty when
    there is none, or it cannot be read: then nothing is vouched for by it)."""
    data = read_bytes(common_dir) if common_dir is not None else b""
    return _whole(data) if data else Ledger()


# The last ledger read whole, with its bytes: ``status`` and pre-push parse it once for
# every branch whose line has no mark (benchmarks/bench_hooks.py, status).
_last_whole: tuple[bytes, Ledger] | None = None


def _whole(data: bytes) -> Ledger:
    """``parse(data)``, once for the same bytes (callers read it, never change it)."""
    global _last_whole
    if _last_whole is not None and _last_whole[0] == data:
        return _last_whole[1]
    book = parse(data)
    _last_whole = (data, book)
    return book


def read_bytes(common_dir: str) -> bytes:
    """The ledger file's bytes (capped; empty when there is none or it cannot be read),
    read once a process while ``files.settled_key`` holds (``status``, a branch each)."""
    global _last_read
    where = path(common_dir)
    key = files.settled_key(where)
    if key is not None and _last_read is not None and _last_read[0] == key:
        return _last_read[1]
    data = files.read_capped(where, READ_LIMIT)[0] or b""
    if key is not None:
        _last_read = (key, data)
    return data


_last_read: tuple[tuple[object, ...], bytes] | None = None


def read_from(common_dir: str | None, boundary: str | None, sid: str | None,
              wanted: Collection[str]) -> Ledger:
    """What the ledger says of ``wanted`` (``about``), and ``placed`` when this session's
    ``s`` line at ``boundary`` is there (``record.place``). Without it, with a session, also
    what it says of the commits the session's lines and the rewrite lines name (for
    ``Ledger.session_work``)."""
    data = read_bytes(common_dir) if common_dir is not None else b""
    if common_dir is None or not data:
        return Ledger()
    placed = False
    asked = wanted
    if boundary and sid:
        mark = b" ".join([WRITTEN, boundary.encode("ascii", "replace"),
                          token(sid).encode("utf-8")])
        placed = token(sid) == sid and is_line(mark) and (
            (boundary, sid) in _last_whole[1].written if _last_whole and _last_whole[0] is data
            else _last_line(data, mark) >= 0)  # a process that parsed it whole: its marks
    index = _index(common_dir, data)
    lines = data.count(b"\n", index.covered) + index.lines if index else data.count(b"\n")
    if sid and not placed:
        global _targeted
        if token(sid) != sid or _targeted or (_last_whole and _last_whole[0] == data) \
                or len(wanted) * LOOKUP > lines:
            # a process that asks again (status, pre-push), or a range near the ledger's
            # length (benchmarks/bench_boundary.py, walk-heavy): parsed once, whole
            return _whole(data)
        _targeted = True
        asked = {*wanted, *_session_named(data, sid.encode("utf-8"))}
    if len(asked) <= lines <= 2 * len(asked):
        # the lines may be mostly about them: the whole parse (kept) costs less than
        # picking them out (a 10,000-commit session: benchmarks/bench_boundary.py)
        whole, book = _whole(data), Ledger()
        for name in Ledger.__slots__:  # the same lines; ``placed`` and ``lines`` its own
            setattr(book, name, getattr(whole, name))
    else:
        book = about(data, asked, index)
    book.lines = max(book.lines, 1)  # a ledger, even when no line names them
    book.placed = placed
    return book


_targeted = False  # a reading for a session without its mark was made in this process


def _session_named(data: bytes, sid: bytes) -> set[str]:
    """Every commit named by a line whose session field is ``sid``, and by a rewrite line
    (what ``Ledger.session_work`` looks at, and some more): found in the bytes."""
    found: set[str] = set()
    for needle in (b" " + sid + b"\n", b" " + sid + b" ", b"\nr "):
        at = data.find(needle)
        while at >= 0:
            start = at + 1 if needle == b"\nr " else data.rfind(b"\n", 0, at) + 1
            found.add(data[start + 2:start + 66].split(b" ", 1)[0].decode("ascii", "replace"))
            at = data.find(needle, at + 1)
    if data.startswith(b"r "):
        found.add(data[2:66].split(b" ", 1)[0].decode("ascii", "replace"))
    return found


def about(data: bytes, wanted: Collection[str], index: Index | None = None) -> Ledger:
    """What the ledger says of ``wanted``: only the lines about them (and about what their
    copies copy), found through ``index`` where it covers and picked out of the rest, are
    parsed. It says of each what ``parse(data)`` says (tests/test_ledger_grammar.py)."""
    asked = wanted if isinstance(wanted, (set, frozenset)) else set(wanted)
    found: dict[int, bytes] = {}
    todo: set[str] | frozenset[str] = asked
    while True:
        if index is not None and len(todo) * LOOKUP <= index.lines:
            found.update(index.lines_about(data, todo))
            found.update(_picked(data, todo, index.covered))
        else:
            found.update(_picked(data, todo))
        book = parse(b"".join(found[at] for at in sorted(found)))
        olds = {old for pairs in book.copies.values() for old, _, _ in pairs}
        todo = olds - asked
        if not todo:
            return book
        asked = asked | todo


def _picked(data: bytes, shas: Collection[str], start: int = 0) -> dict[int, bytes]:
    """The whole lines of ``data`` from ``start`` on (each with its newline) naming one of
    ``shas`` as their commit, by where they start: one pass, each step in C
    (``benchmarks/bench_ledger.py``)."""
    lines = data[start:].split(b"\n") if start else data.split(b"\n")
    lines.pop()  # after the last newline: empty, or a line not ended (never read)
    hits: set[int] = set()
    few = len(shas) <= len(lines)
    # a pass over the lines for each width asked; where the names outnumber the lines,
    # for each width a line's name may have (a space after it), found in C-speed passes
    # that stop at the first: cheaper than the lengths of 100,000 names
    # (benchmarks/bench_boundary.py --ledger-bytes, walk-heavy)
    widths = set(map(len, shas)) & {40, 64} if few else [
        width for width in (40, 64)
        if b" " in map(itemgetter(slice(2 + width, 3 + width)), lines)]
    for width in widths:
        names = map(itemgetter(slice(2, 2 + width)), lines)
        if few:  # the names asked as bytes
            asked = {sha.encode("ascii", "replace") for sha in shas if len(sha) == width}
            found = map(asked.__contains__, names)
        else:  # fewer lines than names asked: the lines' names as text
            found = map(shas.__contains__, [name.decode("ascii", "replace") for name in names])
        hits.update(compress(range(len(lines)), found))
    if not hits:
        return {}
    ends = list(accumulate(map(len, lines)))  # a line starts after those before it
    return {start + (ends[i - 1] + i if i else 0): lines[i] + b"\n" for i in sorted(hits)}


# -- the index --------------------------------------------------------------------------------
#
# Only the lines appended since the index was made are passed over, not a whole ledger near
# its compaction size (benchmarks/bench_boundary.py --ledger-bytes).

_BUCKETS = 1 << 14  # records grouped by the first 14 bits of their commit's name
_KEY = 8  # a record: the first 8 bytes of the commit's name, then its line's offset (4)
_RECORD = _KEY + 4
_INDEX_MAGIC = b"lets-ledger-index 2\n"


class Index:
    """Where the lines about each commit start in the ledger's first ``covered`` bytes
    (``lines`` lines): sorted records, and where each bucket of them starts. A record only
    points at a line: ``lines_about`` keeps the line only when it names the commit asked."""

    __slots__ = ("covered", "lines", "records", "starts")

    def __init__(self, covered: int, lines: int, records: bytes, starts: bytes) -> None:
        self.covered = covered
        self.lines = lines
        self.records = records
        self.starts = starts

    def lines_about(self, data: bytes, shas: Iterable[str]) -> dict[int, bytes]:
        """The whole lines of the bytes it covers (each with its newline) naming one of
        ``shas`` as their commit, by where they start."""
        records, starts, covered = self.records, self.starts, self.covered
        found: dict[int, bytes] = {}
        for sha in shas:
            if len(sha) not in (40, 64):
                continue  # another name has no line
            try:
                key = bytes.fromhex(sha[:2 * _KEY])
            except ValueError:
                continue
            at = _bucket(key) * 4
            named = sha.encode("ascii") + b" "
            for record in range(int.from_bytes(starts[at:at + 4], "big") * _RECORD,
                                int.from_bytes(starts[at + 4:at + 8], "big") * _RECORD,
                                _RECORD):
                if records[record:record + _KEY] == key:
                    start = int.from_bytes(records[record + _KEY:record + _RECORD], "big")
                    end = data.find(b"\n", start, covered)
                    if end > start and data.startswith(named, start + 2):
                        found[start] = data[start:end + 1]
        return found


def _bucket(name: bytes) -> int:
    return (name[0] << 8 | name[1]) >> 2


def build_index(data: bytes, kept: Index | None = None) -> Index:
    """The index of ``data``'s whole lines: a record for every line whose second field
    could be a commit's name (every line ``fields`` reads as naming one). ``kept``: an
    index that holds for the start of ``data`` (``_load_index`` checked it): only the
    lines past it are read, their records merged into its (benchmarks/bench_ledger.py,
    ``bench_index``)."""
    start = kept.covered if kept is not None else 0
    covered = max(data.rfind(b"\n") + 1, start)
    lines = data[start:covered].split(b"\n")
    lines.pop()
    records = []
    at = start
    for raw in lines:
        if raw[1:2] == b" " and raw.find(b" ", 2) in (42, 66) \
                and not raw[2:42].translate(None, HEX):
            records.append(bytes.fromhex(raw[2:2 + 2 * _KEY].decode("ascii"))
                           + at.to_bytes(4, "big"))
        at += len(raw) + 1
    counts = [0] * (_BUCKETS + 1)
    if kept is not None:
        old = kept.records
        records += [old[i:i + _RECORD] for i in range(0, len(old), _RECORD)]
        starts = [int.from_bytes(kept.starts[i:i + 4], "big")
                  for i in range(0, len(kept.starts), 4)]
        counts[1:] = [b - a for a, b in zip(starts, starts[1:])]
        for record in records[:len(records) - len(old) // _RECORD]:
            counts[_bucket(record) + 1] += 1
    else:
        for record in records:
            counts[_bucket(record) + 1] += 1
    records.sort()
    return Index(covered, len(lines) + (kept.lines if kept is not None else 0),
                 b"".join(records), b"".join(n.to_bytes(4, "big") for n in accumulate(counts)))


def _index(common_dir: str, data: bytes) -> Index | None:
    """The index for ``data`` (None for a short ledger): the one kept beside the ledger
    while it holds and little was appended past it; else one made now and kept for the
    next reader (where it cannot be kept, the lines are picked out instead). A process
    reading the same ledger again (status, pre-push) takes the one it has."""
    global _last_index
    if len(data) <= INDEXED:
        return None
    if _last_index is not None and _last_index[0] == data:
        return _last_index[1]
    home = folder(common_dir)
    where = os.path.join(home, INDEX)
    try:
        file = os.lstat(os.path.join(home, NAME)).st_ino
    except OSError:
        return None
    found = _load_index(where, data, file)
    if (found is None or len(data) - found.covered > INDEXED) \
            and os.access(home, os.W_OK) and not os.path.islink(home):  # as the ledger's
        import zlib
        from contextlib import suppress

        found = build_index(data, found)
        with suppress(files.Refused, OSError):  # not kept: the next reader makes it again
            files.atomic_write(where, files.sealed(_INDEX_MAGIC, (
                file, found.covered, zlib.crc32(memoryview(data)[:found.covered]),
                found.lines, found.records, found.starts)), mode=0o600,
                shown=f"{FOLDER}/{INDEX}")
    _last_index = (data, found)
    return found


_last_index: tuple[bytes, Index | None] | None = None


def _load_index(where: str, data: bytes, file: int) -> Index | None:
    """The index kept at ``where``, when it reads back whole and was made from this very
    ledger file (``file``: its inode; a compaction writes a new one) and its bytes, as far
    as it covers them (their CRC-32); else None."""
    kept, _ = files.read_capped(where, READ_LIMIT)
    value = files.unsealed(_INDEX_MAGIC, kept or b"")
    if not (isinstance(value, tuple) and len(value) == 6
            and all(isinstance(v, int) for v in value[:4])
            and all(isinstance(v, bytes) for v in value[4:])):
        return None
    inode, covered, crc, lines, records, starts = value
    import zlib

    if not (inode == file and 0 < covered <= len(data) and data[covered - 1] == 10
            and len(records) % _RECORD == 0 and len(starts) == 4 * (_BUCKETS + 1)
            and int.from_bytes(starts[-4:], "big") * _RECORD == len(records)
            and zlib.crc32(memoryview(data)[:covered]) == crc):
        return None
    return Index(covered, lines, records, starts)


def _last_line(data: bytes, line: bytes) -> int:
    """Where the last whole line equal to ``line`` (ended by a newline) starts, or -1."""
    at = data.rfind(line)
    while at >= 0:
        end = at + len(line)
        if (at == 0 or data[at - 1] == 10) and end < len(data) and data[end] == 10:
            return at
        at = data.rfind(line, 0, at)
    return -1


# -- writing ----------------------------------------------------------------------------------

def line(kind: bytes, sha: str, sid: str | None, *rest: str) -> bytes:
    return b" ".join([kind, sha.encode("ascii"), token(sid).encode("utf-8"),
                      *(r.encode("ascii") for r in rest)]) + b"\n"


def note_rewrite(common_dir: str, pairs: Sequence[tuple[str, str]], sid: str | None,
                 changed: Iterable[str] = (), made: Sequence[str] = ()) -> str | None:
    """A rewrite's ``(old, new)`` pairs, as ``r`` lines (``changed``: the old commits the
    rewrite changed, not replayed), and ``c`` lines for ``made``, the commits made at the
    rebase's stops that no line names yet (post-commit wrote those ``git commit`` made,
    under the id of whoever typed it: a person at another terminal is not this session).
    Never raises."""
    altered = set(changed)
    lines = [line(REWRITE, new, sid, old, "*" if old in altered else "=")
             for old, new in pairs if files.is_sha(old) and files.is_sha(new) and old != new]
    made = [sha for sha in made if files.is_sha(sha)]
    if made:
        known = about(read_bytes(common_dir), made)
        lines += [line(MADE, sha, sid) for sha in made
                  if sha not in known.made and sha not in known.amended]
    return append(common_dir, lines)


def note_written(common_dir: str, sha: str, sid: str | None) -> str | None:
    """A session line of ``sid`` was written at ``sha`` (``s``). Never raises."""
    if not sid or token(sid) == NO_SESSION or not files.is_sha(sha):
        return None
    return append(common_dir, [line(WRITTEN, sha, sid)])


def note_claims(common_dir: str, shas: Sequence[str], sid: str) -> str | None:
    """``record --at``'s claims for session ``sid``, each commit once. Never raises."""
    wanted = [s for s in dict.fromkeys(shas) if files.is_sha(s)]
    if not wanted:
        return None  # the ledger is not read for nothing
    known = about(read_bytes(common_dir), wanted)
    lines = [line(CLAIM, s, sid) for s in wanted if sid not in known.claims.get(s, ())]
    return append(common_dir, lines)


def append(common_dir: str, lines: Sequence[bytes]) -> str | None:
    """Append ``lines`` (each ending in a newline; one off the grammar is dropped) by the
    writers' rule; compact past ``LIMIT``. Never raises: returns why nothing was written."""
    data = b"".join(raw for raw in lines if raw.endswith(b"\n") and is_line(raw[:-1]))
    if not data:
        return None
    where = folder(common_dir)
    target = os.path.join(where, NAME)
    try:
        for _ in range(8):  # a compaction replaced the file under us: write again
            size, ours = _write_lines(where, target, data)
            now = os.lstat(target)
            if (now.st_dev, now.st_ino) == (ours.st_dev, ours.st_ino):
                break
        if size > LIMIT:
            maintain(common_dir)
    except files.Refused as exc:
        return str(exc)
    except OSError as exc:  # (a full disk, a read-only file system: in words)
        return files.why(exc, f"cannot write {FOLDER}/{NAME}")
    return None


def _open_append(where: str, target: str) -> int:
    """The ledger opened to append, after the writers' checks: its folder a folder (made
    0700 when missing), neither a link, the file a regular file (a FIFO or a device is
    opened without waiting, then refused)."""
    shown = f"{FOLDER}/{NAME}"
    if os.path.islink(where):
        raise files.Refused(f"{FOLDER} is a symbolic link - refused, not followed; "
                            "the ledger was not written")
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
    except OSError as exc:  # a file where the folder goes: said in words, not as an errno
        raise files.Refused(files.why(exc, f"cannot write {shown}")) from exc
    if os.path.islink(where) or not os.path.isdir(where):
        raise files.Refused(f"{FOLDER} is not a folder - the ledger was not written")
    try:
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
                     | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        if os.path.islink(target):
            raise files.Refused(f"{shown} is a symbolic link - refused, not followed") \
                from exc
        raise files.Refused(files.why(exc, f"cannot write {shown}")) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise files.Refused(f"{shown} is not a regular file - not written")
    return fd


def _write_lines(where: str, target: str, data: bytes) -> tuple[int, os.stat_result]:
    """Append ``data`` (whole lines) in one write (``_open_append``); returns the file's
    size after it, and what it was. A torn last line, or a short write, is ended by a blank
    field, which no line of the grammar has."""
    fd = _open_append(where, target)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b" \n" + data
        done = os.write(fd, data)
        if done < len(data):
            os.write(fd, b" \n")
            raise files.Refused(f"{FOLDER}/{NAME}: only {done} of {len(data)} bytes written")
        return size + done, os.fstat(fd)
    finally:
        os.close(fd)


def maintain(common_dir: str) -> None:
    """Compact the ledger when it grew past ``LIMIT`` (one ``stat`` when it did not),
    unless a compaction is under way already. Never raises."""
    target = path(common_dir)
    try:
        if os.lstat(target).st_size <= LIMIT:
            return
        with files.locked(os.path.join(folder(common_dir), LOCK), wait=0.0,
                          shown=f"{FOLDER}/{LOCK}"):
            if os.lstat(target).st_size > LIMIT:
                _compact(target, f"{FOLDER}/{NAME}")
    except (OSError, files.Refused):
        pass


def _compact(target: str, shown: str) -> None:
    """Keep the newest valid lines (``newest_lines``), under the lock; lines appended to
    the old file meanwhile are copied over after the rename."""
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        end = os.fstat(fd).st_size
        kept = newest_lines(fd, end)
        files.atomic_write(target, b"".join(reversed(kept)), mode=0o600, shown=shown)
        for pause in (0.0, 0.02, 0.05):  # a writer that opened the old file just before
            time.sleep(pause)
            end = _copy_late(fd, end, target)
    finally:
        os.close(fd)


def newest_lines(fd: int, end: int) -> list[bytes]:
    """The newest valid lines of the file's first ``end`` bytes, newest first, each with
    its newline: at most ``KEEP`` lines of ``KEEP_BYTES`` in all. Read backwards a chunk
    at a time; a line longer than ``LONGEST`` is skipped without being held whole, and
    so are the bytes after the last newline (not a line)."""
    kept: list[bytes] = []
    total = 0
    carry = b""  # the start of the region read, up to its first newline: a line's end
    skipping = True  # inside a line that is not kept, until a newline before it
    at = end
    while at > 0:
        size = min(CHUNK, at)
        at -= size
        chunk = os.pread(fd, size, at)
        if skipping:
            cut = chunk.rfind(b"\n")
            if cut < 0:
                continue
            chunk, carry, skipping = chunk[:cut + 1], b"", False
        parts = (chunk + carry).split(b"\n")
        carry = parts[0] if at else b""
        for raw in reversed(parts[1:] if at else parts):
            if not raw or len(raw) > LONGEST or not is_line(raw):
                continue
            if total + len(raw) + 1 > KEEP_BYTES or len(kept) >= KEEP:
                return kept
            kept.append(raw + b"\n")
            total += len(raw) + 1
        if len(carry) > LONGEST:
            carry, skipping = b"", True
    return kept


def _copy_late(fd: int, start: int, target: str) -> int:
    """Copy the whole valid lines appended to the old file (``fd``) after ``start`` to the
    new one; returns where the old file's copied lines end."""
    late = os.pread(fd, max(os.fstat(fd).st_size - start, 0), start)
    cut = late.rfind(b"\n") + 1
    lines = [raw + b"\n" for raw in late[:cut].split(b"\n")[:-1] if is_line(raw)]
    if lines:
        _write_lines(os.path.dirname(target), target, b"".join(lines))
    return start + cut
