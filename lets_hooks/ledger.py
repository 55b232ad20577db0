"""The session ledger: which session made each commit, written when it is made.

Git records where and when a commit was made (the reflog), never which session made it;
that is a fact only while the commit is being made, in the environment of the command
that makes it. The hooks that see a commit being made (post-commit, post-merge,
post-applypatch, post-rewrite) and the agents' tool hooks write it down here, and the
witness reads it back by id (docs/witness.md has the format and why).

The file is ``<git common dir>/lets-hooks/ledger``: in the repository's common git
directory, so every work tree shares it (a session that moves between work trees is one
session), and no repository can ship it or track it (a clone never copies a git
directory). One line an event, appended; the oldest go first past ``KEEP`` lines::

    c <commit> <sid>                  made by session <sid> ("-": no session)
    a <commit> <sid>                  an amend made by <sid> (vouched only by its r line)
    r <new> <sid> <old> <how>         a rewrite by <sid>: <new> copies <old>; <how> is "="
                                      for a plain pick, "*" when the rewrite changed it
                                      (amend, reword, edit, squash, fixup)
    k <commit> <sid>                  ``lets-hooks record --at`` claimed it for <sid>
    s <commit> <sid>                  a session line of <sid> was written at <commit>: what
                                      the ledger names after it cannot be below it

Appends are single ``write(2)`` calls of one short line on a file opened ``O_APPEND`` (the
plain shims append with the shell's ``>>``), so concurrent writers never interleave and a
SIGKILL leaves at worst one line not written; a line that does not parse is skipped.
Compaction (over ``LIMIT`` bytes) rewrites the file whole under the lock, through a
temporary file renamed over it. No clock is read or written: the order of the lines is
the only order there is.
"""

from __future__ import annotations

import os

from lets_hooks import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

FOLDER = "lets-hooks"  # in the git common dir
NAME = "ledger"
LOCK = "ledger.lock"
LIMIT = 4 << 20  # compacted past this many bytes (about 40,000 lines)
KEEP = 20_000  # lines a compaction keeps, the newest
SEARCHED = 32  # up to this many commits are searched for in the bytes, not picked out
READ_LIMIT = 2 * LIMIT  # a larger file (a shell append raced a compaction) is read capped
NO_SESSION = "-"

MADE = b"c"
AMEND = b"a"
REWRITE = b"r"
CLAIM = b"k"
WRITTEN = b"s"

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
    rule (one printable token), else "-" (no session)."""
    from lets_hooks import state

    if not sid or state.sid_problem(sid) is not None:
        return NO_SESSION
    return sid


class Ledger:
    """The ledger read whole, as maps keyed by commit."""

    __slots__ = ("amended", "by_sid", "claims", "copies", "lines", "made", "order", "placed",
                 "said", "written")

    def __init__(self) -> None:
        self.made: dict[str, set[str]] = {}  # commit -> sids that made it
        self.amended: dict[str, set[str]] = {}
        self.copies: dict[str, list[tuple[str, str, bool]]] = {}  # new -> [(old, sid, changed)]
        self.claims: dict[str, set[str]] = {}
        self.order: dict[str, int] = {}  # commit -> its newest line's place (the log's order)
        self.by_sid: dict[str, list[str]] = {}  # sid -> the commits its lines name
        self.written: dict[tuple[str, str], int] = {}  # (boundary, sid) -> its newest s line
        self.placed = False  # read from an ``s`` line on (``read_from``)
        self.lines = 0
        self.said: dict[str | None, dict[str, str]] = {}  # sid -> what ``status`` answered

    def __bool__(self) -> bool:
        return self.lines > 0

    def knows(self, sha: str) -> bool:
        """Is there a line that says who made ``sha`` (or what it copies)?"""
        return sha in self.made or sha in self.copies or sha in self.amended

    def named(self) -> set[str]:
        """Every commit a line says something of (who made it, what it copies, an amend,
        a claim): the only ones ``status`` can decide."""
        found = set(self.made)
        found.update(self.copies, self.amended, self.claims)
        return found

    def originals(self) -> dict[str, str]:
        """new -> old for every rewrite pair (the newest pair of each copy)."""
        return {new: pairs[-1][0] for new, pairs in self.copies.items()}

    def status(self, sha: str, sid: str | None) -> str:
        """What the ledger says ``sha`` is for session ``sid`` (None: no session is
        known, and then every commit made here under any id is "the session's": the
        prior-session reading). Each answer is kept: the witness asks of a long
        session's commits twice (``read_from``, then the verdict)."""
        said = self.said.get(sid)
        if said is None:
            said = self.said[sid] = {}
        found = said.get(sha)
        if found is None:
            found = said[sha] = self._status(sha, sid, 0, {})
        return found

    def statuses(self, shas: Iterable[str], sid: str | None) -> dict[str, str]:
        """``status`` of each of ``shas``, as a map (each answer kept for the next ask). A
        commit its maker's line alone decides (no rewrite pair: nearly every one), or that
        no line names, is decided here without a call; the rest as ``status`` decides
        them."""
        said = self.said.get(sid)
        if said is None:
            said = self.said[sid] = {}
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
                return SESSION if all(o == SESSION for o in olds) else \
                    UNKNOWN if any(o == UNKNOWN for o in olds) else MIXED
            if not changed:
                return olds[-1]  # a plain pick is what it copies, whoever replayed it
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
            if mine is None:
                return SESSION
            if makers == {mine}:
                return SESSION
            if mine in makers:
                return UNKNOWN  # two writers disagree on who made it: nothing decided
            return OTHER
        if sha in self.amended:
            return UNKNOWN  # an amend whose pair post-rewrite never gave
        claimed = self.claims.get(sha)
        if claimed and (mine is None or mine in claimed):
            return SESSION
        return UNKNOWN

    def session_commits(self, sid: str, boundary: str | None = None) -> list[str]:
        """The commits this session made or changed, and the plain copies of them anyone
        made (a copy is what it copies, whoever replayed it: another session's ``pull
        --rebase`` or autosquash), in the ledger's own order, newest first: where a
        boundary must never be above. With ``boundary``, only those the ledger names
        before a line of this session was written at it (``s``): a commit made after
        ``boundary`` existed cannot be one of its ancestors."""
        before = self.written.get((boundary, sid)) if boundary is not None else None
        named = dict.fromkeys(self.by_sid.get(sid, ()))
        named.update(dict.fromkeys(self.copies))
        if before is not None:
            named = {sha: None for sha in named if self.order[sha] < before}
        found = [sha for sha in named if self.status(sha, sid) in (SESSION, MIXED)]
        found.sort(key=self.order.__getitem__, reverse=True)
        return found


def parse(data: bytes) -> Ledger:
    """Every line that parses; the rest (a torn or foreign line) is skipped. Byte slicing
    and one decode a field: a 20,000-line ledger is read in a few milliseconds."""
    ledger = Ledger()
    made, amended = ledger.made, ledger.amended
    copies, claims, order, by_sid = ledger.copies, ledger.claims, ledger.order, ledger.by_sid
    written = ledger.written
    sids: dict[bytes, str] = {}  # a few sessions write most lines: each id decoded once
    at = 0
    for raw in data.split(b"\n"):
        fields = raw.split(b" ")
        count = len(fields)
        if count < 3 or len(fields[0]) != 1 or len(fields[1]) not in (40, 64):
            continue
        kind = fields[0]
        sha = fields[1].decode("ascii", "replace")
        sid = sids.get(fields[2])
        if sid is None:
            sid = sids[fields[2]] = fields[2].decode("utf-8", "replace")
        at += 1
        if kind == MADE and count == 3:
            found = made.get(sha)
            if found is None:
                made[sha] = {sid}
            else:
                found.add(sid)
        elif kind == REWRITE and count == 5:
            old = fields[3].decode("ascii", "replace")
            if len(old) != len(sha) or old == sha:
                continue
            copies.setdefault(sha, []).append((old, sid, fields[4] != b"="))
        elif kind == AMEND and count == 3:
            amended.setdefault(sha, set()).add(sid)
        elif kind == WRITTEN and count == 3:
            written[(sha, sid)] = at
            continue
        elif kind == CLAIM and count == 3:
            claims.setdefault(sha, set()).add(sid)
        else:
            continue
        order[sha] = at
        named = by_sid.get(sid)
        if named is None:
            by_sid[sid] = [sha]
        else:
            named.append(sha)
    for sha, pairs in copies.items():
        # several pairs for one copy from one rewrite are a squash; from a later rewrite
        # (a copy of a copy kept as it was) only the newest rewrite's pairs count
        if len(pairs) > 1:
            copies[sha] = _last_rewrite(pairs)
    ledger.lines = at
    return ledger


def _last_rewrite(pairs: list[tuple[str, str, bool]]) -> list[tuple[str, str, bool]]:
    unique: dict[str, tuple[str, str, bool]] = {}
    for pair in pairs:
        unique[pair[0]] = pair
    return list(unique.values())


def read(common_dir: str | None) -> Ledger:
    """The ledger of the repository whose common git dir is ``common_dir`` (empty when
    there is none, or it cannot be read: then nothing is vouched for by it)."""
    if common_dir is None:
        return Ledger()
    data = read_bytes(common_dir)
    if not data:
        return Ledger()
    return parse(data)


def read_bytes(common_dir: str) -> bytes:
    """The ledger file's bytes (capped; empty when there is none or it cannot be read)."""
    return files.read_capped(path(common_dir), READ_LIMIT)[0] or b""


def read_from(common_dir: str | None, boundary: str | None, sid: str | None,
              wanted: Collection[str], data: bytes | None = None) -> Ledger:
    """What the ledger says of ``wanted``, read from the newest line that says this
    session's line was written at ``boundary`` (``s``, written only where the writer kept
    every commit of the session below it: ``record.place``) when every one of ``wanted``
    is decided by what follows that line; else from every line about ``wanted``, and
    without that line from the whole ledger. The session's recent work is at the end: a
    long ledger costs the happy path its tail, and only the lines about ``wanted`` are
    parsed. ``placed`` says whether the line was found. With no session (a prior-session
    reading) or no boundary, every line about ``wanted`` is read, and only those.
    ``data``: the file's bytes as ``read_bytes`` read them for this answer (else read
    here)."""
    if common_dir is None:
        return Ledger()
    if data is None:
        data = read_bytes(common_dir)
    if not data:
        return Ledger()
    if not boundary or not sid:
        found = _about_many(data, wanted) if len(wanted) > SEARCHED else None
        book = _about(data, 0, wanted) if found is None else found
        book.lines = max(book.lines, 1)  # a ledger, even when no line names them
        return book
    marker = b" ".join([WRITTEN, boundary.encode("ascii", "replace"),
                        token(sid).encode("utf-8")])
    at = _last_line(data, marker)
    # the lines after the mark matter only next to the commits asked (more asked than
    # lines there, or most of those lines about them): counted that far, no further
    tail = _lines_upto(data, at, 2 * len(wanted)) if at >= 0 else 0
    if at >= 0 and len(wanted) > max(tail, SEARCHED):
        # More commits asked of than lines after the mark (a clone's history in the
        # range): each line decides one commit at most, so some are left undecided there
        # and every line about them is read, as below; here each line's commit is looked
        # up among the many asked (the asked are not each searched for, or encoded).
        picked = _about_many(data, wanted)
        book = parse(data) if picked is None else picked
        book.lines = max(book.lines, 1)
        book.placed = True
        return book
    if at >= 0:
        raw, book = _about_raw(data, at, wanted, tail)
        if UNKNOWN in book.statuses(wanted, sid).values():
            # some of ``wanted`` (a teammate's pulled commits, say) are not decided after
            # the mark: an older line may name them, so every line about them is read
            book = _with_older(data, at, wanted, book, raw)
        book.lines = max(book.lines, 1)  # the mark itself: a ledger, not an empty one
        book.placed = True
        return book
    book = parse(data)
    book.placed = (boundary, token(sid)) in book.written
    return book


def _last_line(data: bytes, line: bytes) -> int:
    """Where the last whole line equal to ``line`` starts in ``data``, or -1."""
    at = data.rfind(line)
    while at >= 0:
        end = at + len(line)
        if (at == 0 or data[at - 1] == 10) and (end == len(data) or data[end] == 10):
            return at
        at = data.rfind(line, 0, at)
    return -1


def _lines_upto(data: bytes, start: int, most: int) -> int:
    """The lines of ``data[start:]`` (its newlines) when there are at most ``most``, else
    ``most + 1``: a few commits asked of a long tail stop the count after a few lines. Many
    asked are counted in C at once (a find a line would cost more)."""
    if most > SEARCHED:
        return min(data.count(b"\n", start), most + 1)
    found = 0
    at = start
    while found <= most:
        at = data.find(b"\n", at) + 1
        if not at:
            break
        found += 1
    return found


def _about(data: bytes, start: int, wanted: Collection[str], lines_after: int = -1) -> Ledger:
    """The lines of ``data[start:]`` whose commit is one of ``wanted``, or one a copy of
    them copies, parsed (the rest never decoded): ``_about_raw``."""
    return _about_raw(data, start, wanted, lines_after)[1]


def _about_raw(data: bytes, start: int, wanted: Collection[str], lines_after: int = -1,
               end: int = -1) -> tuple[bytes, Ledger]:
    """The lines of ``data[start:end]`` (``end`` -1: to the end) whose commit is one of
    ``wanted``, or one a copy of them copies, in order, and what they say: a few commits
    are searched for in the bytes, many picked out line by line (a slice and a set lookup
    each). Where ``wanted`` are at least half of the ``lines_after`` lines, those lines are
    taken all: what the others say of other commits decides nothing about these (each line
    is about its own commit), and picking would cost more than their parse."""
    stop = len(data) if end < 0 else end
    if 0 <= lines_after <= 2 * len(wanted):
        return data[start:stop], parse(data[start:stop])
    asked = {sha.encode("ascii", "replace") for sha in wanted}
    lines: list[bytes] | None = None
    while True:
        if len(asked) <= SEARCHED:
            picked = _naming(data, start, asked, stop)
        else:
            if lines is None:
                lines = data[start:stop].split(b"\n")
            picked = _picked(lines, asked)
        raw = b"\n".join(picked)
        book = parse(raw)
        olds = {old.encode("ascii") for pairs in book.copies.values() for old, _, _ in pairs}
        if olds <= asked:
            return raw, book
        asked |= olds


def _with_older(data: bytes, at: int, wanted: Collection[str], tail: Ledger,
                tail_raw: bytes) -> Ledger:
    """Every line about ``wanted`` (and the commits their copies copy), where ``tail`` is
    what the lines from ``at`` on say of them (``tail_raw``: those lines): only the lines
    before ``at`` are searched, for the commits the tail's reading asked about. Should one
    of them copy a commit not asked about, the whole ledger is read again for it."""
    asked = set(wanted)
    asked.update(old for pairs in tail.copies.values() for old, _, _ in pairs)
    older, found = _about_raw(data, 0, asked, -1, at)
    if any(old not in asked for pairs in found.copies.values() for old, _, _ in pairs):
        return _about(data, 0, wanted)
    return parse(older + b"\n" + tail_raw if older else tail_raw)


def _about_many(data: bytes, wanted: Collection[str]) -> Ledger | None:
    """The lines of ``data`` whose commit is one of ``wanted`` (many: a 100,000-commit
    range), parsed; None when a copy among them copies a commit outside ``wanted`` (a
    rebase's originals): then the whole ledger is the reading. Each line's commit is
    sliced, decoded and looked up in C (``map``); the rest is never parsed."""
    from _operator import itemgetter, methodcaller
    from itertools import compress

    asked = wanted if isinstance(wanted, (set, frozenset)) else set(wanted)
    # a repository's commits are all SHA-1 or all SHA-256: the asked are one width, and
    # a line about a commit of the other cannot be about one of them
    width = len(next(iter(asked), ""))
    if width not in (40, 64):
        return None
    lines = data.split(b"\n")
    text = methodcaller("decode", "ascii", "replace")
    found = compress(lines, map(asked.__contains__,
                                map(text, map(itemgetter(slice(2, 2 + width)), lines))))
    book = parse(b"\n".join(found))
    if any(old not in asked for pairs in book.copies.values() for old, _, _ in pairs):
        return None
    return book


def _picked(lines: list[bytes], asked: set[bytes]) -> list[bytes]:
    """The lines whose commit (after the one-letter kind) is one of ``asked``, in order.
    The loop runs in C (``map`` of a slice getter and a set's ``__contains__``): the
    happy path picks its few dozen lines out of a long tail this way (docs/speed.md)."""
    from _operator import itemgetter
    from itertools import compress

    found: list[bytes] = []
    widths = set(map(len, asked))  # SHA-1, SHA-256: one pass over the asked, in C
    for width in widths:
        key = itemgetter(slice(2, 2 + width))
        found += compress(lines, map(asked.__contains__, map(key, lines)))
    if len(found) > 1 and len(widths) > 1:
        place = {id(raw): i for i, raw in enumerate(lines)}
        found.sort(key=lambda raw: place[id(raw)])
    return found


def _naming(data: bytes, start: int, shas: set[bytes], stop: int = -1) -> list[bytes]:
    """The lines of ``data[start:stop]`` (``stop`` -1: to the end; both line starts) about
    ``shas`` (the commit each line is about comes after its one-letter kind), in the
    ledger's order."""
    found: list[tuple[int, bytes]] = []
    stop = len(data) if stop < 0 else stop
    for sha in shas:
        at = data.find(sha, start, stop)
        while at >= 0:
            if at - 2 >= start and data[at - 1] == 32 and (at == 2 or data[at - 3] == 10):
                end = data.find(b"\n", at)
                found.append((at, data[at - 2:end if end >= 0 else len(data)]))
            at = data.find(sha, at + 1, stop)
    found.sort()
    return [line for _, line in found]


# -- writing ----------------------------------------------------------------------------------

def line(kind: bytes, sha: str, sid: str | None, *rest: str) -> bytes:
    return b" ".join([kind, sha.encode("ascii"), token(sid).encode("utf-8"),
                      *(r.encode("ascii") for r in rest)]) + b"\n"


def note_made(common_dir: str, shas: Sequence[str], sid: str | None) -> str | None:
    """Write down that session ``sid`` made each of ``shas``, unless a line already says
    who made it (the git hook and an agent's tool hook both see a commit: the first
    writer's line stands, so the two never disagree). Returns why nothing was written, or
    None; never raises."""
    wanted = [s for s in dict.fromkeys(shas) if files.is_sha(s)]
    if not wanted:
        return None
    known = read(common_dir)
    lines = [line(MADE, s, sid) for s in wanted if not known.knows(s)]
    return append(common_dir, lines)


def note_rewrite(common_dir: str, pairs: Sequence[tuple[str, str]], sid: str | None,
                 changed: Iterable[str] = (), made: Sequence[str] = ()) -> str | None:
    """A rewrite's ``(old, new)`` pairs, as ``r`` lines (``changed``: the old commits the
    rewrite changed rather than replayed as they were; every pair of an amend), and ``c``
    lines for ``made``, the commits made at the rebase's stops (an ``exec`` step's, one
    typed at an ``edit`` stop that git lists as no copy). Never raises."""
    altered = set(changed)
    lines = [line(REWRITE, new, sid, old, "*" if old in altered else "=")
             for old, new in pairs if files.is_sha(old) and files.is_sha(new) and old != new]
    lines += [line(MADE, sha, sid) for sha in made if files.is_sha(sha)]
    return append(common_dir, lines)


def note_written(common_dir: str, sha: str, sid: str | None) -> str | None:
    """A session line of ``sid`` was written at ``sha`` (``s``). Never raises."""
    if not sid or token(sid) == NO_SESSION or not files.is_sha(sha):
        return None
    return append(common_dir, [line(WRITTEN, sha, sid)])


def note_claims(common_dir: str, shas: Sequence[str], sid: str) -> str | None:
    """``record --at``'s claims for session ``sid``, each commit once. Never raises."""
    known = read(common_dir)
    lines = [line(CLAIM, s, sid) for s in dict.fromkeys(shas)
             if files.is_sha(s) and sid not in known.claims.get(s, ())]
    return append(common_dir, lines)


def append(common_dir: str, lines: Sequence[bytes]) -> str | None:
    """Append ``lines`` (each ending in a newline) under the ledger's lock, on a line of
    their own; compact the file when it grew past ``LIMIT``. Never raises: returns why
    nothing was written, or None."""
    if not lines:
        return None
    where = folder(common_dir)
    target = os.path.join(where, NAME)
    shown = f"{FOLDER}/{NAME}"
    try:
        if os.path.islink(where):
            return f"{where} is a symbolic link - the ledger was not written"
        os.makedirs(where, mode=0o700, exist_ok=True)
        with files.locked(os.path.join(where, LOCK), shown=f"{FOLDER}/{LOCK}"):
            fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT
                         | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                size = os.fstat(fd).st_size
                data = b"".join(lines)
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a torn last line stays a line of its own
                os.write(fd, data)
                size += len(data)
            finally:
                os.close(fd)
            if size > LIMIT:
                _compact(target, shown)
    except (OSError, files.Refused) as exc:
        return str(exc)
    return None


def maintain(common_dir: str) -> None:
    """Compact the ledger when the shell's appends grew it past ``LIMIT`` (one ``stat``
    when they did not). Never raises."""
    target = path(common_dir)
    try:
        if os.stat(target).st_size <= LIMIT:
            return
        with files.locked(os.path.join(folder(common_dir), LOCK), shown=f"{FOLDER}/{LOCK}"):
            if os.stat(target).st_size > LIMIT:
                _compact(target, f"{FOLDER}/{NAME}")
    except (OSError, files.Refused):
        pass


def _compact(target: str, shown: str) -> None:
    """Keep the newest ``KEEP`` lines (under the lock). A shell append that lands in the
    old file between the read and the rename is copied over after it."""
    fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        data = _read_all(fd)
        kept = data.split(b"\n")
        if kept and kept[-1] == b"":
            kept.pop()
        body = b"\n".join(kept[-KEEP:]) + b"\n"
        files.atomic_write(target, body, mode=0o600, shown=shown)
        late = _read_all(fd, len(data))
        if late:
            with open(target, "ab") as handle:
                handle.write(late if late.endswith(b"\n") else late + b"\n")
    finally:
        os.close(fd)


def _read_all(fd: int, start: int = 0) -> bytes:
    chunks: list[bytes] = []
    at = start
    while True:
        chunk = os.pread(fd, 1 << 20, at)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        at += len(chunk)
