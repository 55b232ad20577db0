"""Where a session boundary goes when history is rewritten (``commit --amend``, ``rebase``).

The rule (``place``) is pure: git's old -> new pairs, the rebase's ``onto`` and two walks
of history (``History``) come in, a ``Move`` comes out; ``follow`` gathers those facts
through ``repo.py`` and writes the moves.

Before the rewrite the session's commits were ``B..O`` (``B`` the boundary, ``O`` the old
tip): those on ``O``'s first-parent line above ``B`` are the session's (the rest of
``B..O`` came in through a merge). Every commit the rewrite produced (``onto..N``, ``N``
the new tip) is sorted by where it came from:

- *session*: a copy of session commits (picked, reworded, edited, squashed, fixed up, one
  half of a split), or a commit the rebase made with no original (an ``exec`` that
  commits, a commit made at an ``edit`` stop);
- *earlier*: a copy of commits from before the boundary (the boundary commit included);
- *foreign*: a copy of a commit that came in through a merge (a flattened merge of main):
  not the session's work, and no reason to move the boundary either way;
- *mixed*: a squash of an earlier commit with a session commit.

Then:

1. No earlier or mixed commit. When a commit of ``O``'s first-parent line above ``B`` was
   not replayed (it is in ``onto``'s history: ``pull --rebase`` after a teammate built on
   your pushed commits, ``rebase -i HEAD~2``) the boundary stays. Otherwise the boundary
   becomes the commit where the new tip's first-parent line meets ``onto``'s history
   (``onto`` for a plain rebase; the fork point when ``--rebase-merges`` kept a merge of
   main), so that ``boundary..N`` is the session's commits, inserted ones included.
2. Earlier commits, all of them below every session commit: the boundary becomes the
   one earlier commit on top of them all (usually the boundary's own new copy).
3. Anything else (a session commit moved below an earlier one, a mixed squash): the
   boundary goes below the lowest session commit on the first-parent line, and the move
   is marked *approximate*: the ladder then never says ``exact`` for it.

Every step is linear in the commits the rewrite touched (``benchmarks/bench_rewrite.py``).
"""

from __future__ import annotations

from functools import partial

from lets_hooks import files, gitfiles, reflog, state
from lets_hooks.repo import GitError, branch_of

# the fix when the session's copies cannot be told apart: recording at HEAD would leave
# them out of the range, so the person names where the session's work starts
FIX_AT = ("lets-hooks record --at REV, REV being the commit the session's work starts after "
          "(lets-hooks record alone starts the session anew at HEAD)")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from lets_hooks.gitfiles import RebaseState
    from lets_hooks.repo import Location, Repo

SESSION, EARLIER, MIXED, FOREIGN = "session", "earlier", "mixed", "foreign"


class Move:
    """Where the boundary goes (None: it stays), whether that is only approximate, and
    why, in words for the hook's message."""

    __slots__ = ("approx", "boundary", "why")

    def __init__(self, boundary: str | None, why: str, approx: str | None = None) -> None:
        self.boundary = boundary
        self.why = why
        self.approx = approx


def parse_pairs(data: bytes) -> list[tuple[str, str]]:
    """``old new`` lines (git's post-rewrite stdin, a rebase's rewritten-list); extra
    fields are ignored, lines that are not two full hex shas skipped."""
    rows = (line.split() for line in data.decode("ascii", "replace").split("\n"))
    return [(r[0], r[1]) for r in rows if len(r) >= 2 and files.is_sha(r[0]) and files.is_sha(r[1])]


def mapping(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Old commit -> its final image. Several olds may share an image (squash, fixup);
    an old listed twice (a commit amended during a rebase) takes its last image, and an
    image that is itself rewritten later in the list is followed to its end."""
    images = dict(pairs)
    for old in list(images):
        seen = {old}
        new = images[old]
        while new in images and new not in seen:
            seen.add(new)
            new = images[new]
        images[old] = new
    return images


def originals(images: Mapping[str, str]) -> dict[str, list[str]]:
    """New commit -> the old commits it is a copy of."""
    found: dict[str, list[str]] = {}
    for old, new in images.items():
        found.setdefault(new, []).append(old)
    return found


class History:
    """Part of the commit graph: ``rev-list --parents`` output of a walk that excluded
    some commits (named as parents, not in the walk)."""

    __slots__ = ("_reach", "parents")

    def __init__(self, raw: bytes) -> None:
        rows = (line.split() for line in raw.decode("ascii", "replace").split("\n"))
        self.parents: dict[str, list[str]] = {row[0]: row[1:] for row in rows if row}
        self._reach: dict[str, frozenset[str]] = {}

    def __contains__(self, sha: str) -> bool:
        return sha in self.parents

    def reach(self, tip: str) -> frozenset[str]:
        """The commits of this walk reachable from ``tip`` (itself included)."""
        known = self._reach.get(tip)
        if known is None:
            known = self._reach[tip] = frozenset(self.below([tip]))
        return known

    def below(self, tips: Iterable[str]) -> set[str]:
        """The commits of this walk reachable from ``tips`` (themselves included)."""
        parents = self.parents
        seen: set[str] = set()
        stack = [tip for tip in tips if tip in parents]
        while stack:
            sha = stack.pop()
            if sha not in seen:
                seen.add(sha)
                stack.extend(p for p in parents[sha] if p not in seen and p in parents)
        return seen

    def reaches_out_to(self, tip: str, outside: str) -> bool:
        """Is ``outside`` (a commit the walk excluded) a parent of something reachable
        from ``tip``, i.e. an ancestor of ``tip`` through this walk?"""
        return tip == outside or any(outside in self.parents[c] for c in self.reach(tip))

    def first_parents(self, tip: str) -> Iterable[str]:
        """``tip``'s first-parent line while it stays in this walk."""
        current: str | None = tip
        while current is not None and current in self.parents:
            yield current
            ps = self.parents[current]
            current = ps[0] if ps else None

    def line_from(self, tip: str) -> list[str]:
        """``tip``'s first-parent line down to the first commit not in this walk (that
        one included, when the line leaves the walk rather than ending at a root)."""
        line = [tip]
        while self.parents.get(line[-1]):
            line.append(self.parents[line[-1]][0])
        return line


def place(boundary: str, old_tip: str, new_tip: str, onto: str, images: Mapping[str, str],
          old: History, new: History, copies: Mapping[str, list[str]] | None = None,
          guessed: bool = False, below: Callable[[str], bool] | None = None) -> Move:
    """The rule above for one branch. ``old``: a walk of ``old_tip`` and ``boundary`` (and
    other branches') excluding ``onto``; ``new``: of ``new_tip`` excluding ``onto``.
    ``guessed``: the pairs came from patch ids (a commit without an original may be an
    edited copy: the move is only approximate). ``below(commit)``: is the boundary an
    ancestor of ``commit`` (asked at most once; without it, the boundary stays)."""
    if copies is None:
        copies = originals(images)
    side = _session_test(boundary, old_tip, old)
    produced = new.reach(new_tip)
    kept = {c for c in produced if c in old}  # old commits left as they were
    kinds: dict[str, str] = {}
    inserted = False
    for commit in produced:
        # git lists a commit stopped at by ``edit`` as rewritten into whatever HEAD is
        # when the rebase goes on: when that commit is still here as it was, the commits
        # made at the stop are new, not copies of it.
        olds = [o for o in copies.get(commit, ()) if o not in kept]
        if not olds:
            if commit in kept:
                olds = [commit]  # kept as it was (a pick git fast-forwarded)
            else:
                kinds[commit] = SESSION  # made by the rebase itself
                inserted = True
                continue
        kinds[commit] = _kind({side(o) for o in olds})
    earlier = [c for c, kind in kinds.items() if kind == EARLIER]
    mixed = any(kind == MIXED for kind in kinds.values())
    if not mixed and not earlier:
        left = _left_behind(boundary, old_tip, onto, old, below)
        if left is not None:
            return Move(None, f"the session's commit {left[:12]} was not replayed (it is in "
                              "the history of the rebase's base): the boundary stays")
        target = _meets(new_tip, new) or onto
        if target == boundary:
            return Move(None, "the rewrite kept the session on the boundary: it stays")
        if new_tip == onto or not produced:
            return Move(target, "every session commit is gone: the boundary moves to the "
                                "new tip")
        move = Move(target, "the session was replayed onto a new base: the boundary moves "
                            "to where the new first-parent line meets it")
        return _maybe_guessed(move, guessed and inserted)
    if not mixed:
        top = _single_top(earlier, new)
        if top is not None and not any(kinds.get(c) in (SESSION, MIXED)
                                       for c in new.reach(top)):
            move = Move(top, "the rebase kept the earlier commits below the session's: the "
                             "boundary moves to the newest of them")
            return _maybe_guessed(move, guessed and inserted)
    return _approximate(new_tip, onto, new, kinds, mixed)


def _kind(sides: set[str]) -> str:
    """What a new commit is, from what its old commits were."""
    if SESSION in sides:
        return MIXED if EARLIER in sides else SESSION
    if EARLIER in sides:
        return EARLIER
    return FOREIGN


def _session_test(boundary: str, old_tip: str, old: History) -> Callable[[str], str]:
    """Sorts an old commit: SESSION (on ``old_tip``'s first-parent line above the
    boundary), FOREIGN (elsewhere in ``boundary..old_tip``: brought in by a merge), or
    EARLIER (anything else: the boundary, what is below it, other branches' commits)."""
    mine = old.reach(old_tip)
    before = old.reach(boundary)
    line = {c for c in old.first_parents(old_tip) if c not in before}

    def side(commit: str) -> str:
        if commit in line:
            return SESSION
        if commit in mine and commit not in before:
            return FOREIGN
        return EARLIER

    return side


def _left_behind(boundary: str, old_tip: str, onto: str, old: History,
                 below: Callable[[str], bool] | None) -> str | None:
    """A session commit the rewrite did not replay (where ``old_tip``'s first-parent line
    leaves the old walk, when that is above the boundary), or None."""
    if boundary in old:
        return None  # the boundary was replayed or kept: so was everything above it
    exit_at = _meets(old_tip, old)
    if exit_at is None or exit_at == boundary:
        return None
    # at onto, the boundary is in onto's history, below it: no need to ask git
    if exit_at != onto and below is not None and not below(exit_at):
        return None  # the line met onto's history at or below the boundary
    return exit_at


def _meets(tip: str, walk: History) -> str | None:
    """Where ``tip``'s first-parent line leaves ``walk`` (the first commit of it the walk
    excluded): ``tip`` itself when it is not in the walk; None at a root."""
    if tip not in walk:
        return tip
    parents = walk.parents[list(walk.first_parents(tip))[-1]]
    return parents[0] if parents else None


def _single_top(earlier: list[str], new: History) -> str | None:
    """The one earlier commit every other earlier commit is an ancestor of, if any (one
    walk down from their parents)."""
    under = new.below(p for c in earlier for p in new.parents.get(c, ()))
    tops = [c for c in earlier if c not in under]
    return tops[0] if len(tops) == 1 else None


def _approximate(new_tip: str, onto: str, new: History, kinds: Mapping[str, str],
                 mixed: bool) -> Move:
    ours = [c for c in new.first_parents(new_tip) if kinds.get(c) in (SESSION, MIXED)]
    parents = new.parents.get(ours[-1], []) if ours else []
    place_at = parents[0] if parents else onto
    what = ("a squash mixed an earlier commit with a session commit" if mixed else
            "session commits and earlier commits were interleaved")
    return Move(place_at, f"{what}: no boundary counts exactly; it goes below the lowest "
                          "session commit and is marked approximate",
                approx=f"rewrite: {what}")


def _maybe_guessed(move: Move, guessed: bool) -> Move:
    if guessed:
        move.approx = "rewrite: matched by patch id, a new commit may be an edited copy"
        move.why += " (matched by patch id only: marked approximate)"
    return move


def recognize(copies: Mapping[str, list[str]], images: Mapping[str, str],
              unpaired: Sequence[str], identity: Mapping[str, bytes]) -> dict[str, list[str]]:
    """``copies`` corrected for ``edit`` stops at which new commits were made.

    git lists a stopped commit as rewritten into whatever HEAD is when the rebase goes on
    (the last commit made at the stop). A pick keeps the author, date and message, so an
    unlisted new commit with an old commit's identity is that commit's copy and the listed
    one is new work, unless it carries the identity too (a second pick: nothing moves).
    """
    fixed = {new: list(olds) for new, olds in copies.items()}
    by_identity: dict[bytes, list[str]] = {}
    for old in images:
        if old in identity:
            by_identity.setdefault(identity[old], []).append(old)
    for commit in unpaired:
        matches = by_identity.get(identity.get(commit, b""), [])
        if len(matches) != 1:
            continue  # no old commit, or several alike: not a copy that can be named
        old = matches[0]
        listed = images[old]
        if listed == commit or identity.get(listed) == identity[old]:
            continue  # git's listed copy is a copy too (a second pick, a cherry-pick)
        fixed[commit] = [old]
        rest = [o for o in fixed.get(listed, []) if o != old]
        if rest:
            fixed[listed] = rest
        else:
            fixed.pop(listed, None)
    return fixed


def derive_onto(new_tip: str, images: Mapping[str, str], fresh: History) -> str | None:
    """The base a rebase replayed onto, when git did not keep it: the first parent of the
    lowest copy on the new tip's first-parent line. ``fresh`` is a walk of the new tip
    excluding the old one (the commits the rewrite made, and any new base's own)."""
    copies = set(images.values())
    lowest = [c for c in fresh.first_parents(new_tip) if c in copies][-1:]
    parents = fresh.parents[lowest[0]] if lowest else []
    return parents[0] if parents else None


# -- the facts, from git ------------------------------------------------------------------------

class Target:
    """One branch the rewrite moved: its tips before and after, and its recorded line."""

    __slots__ = ("boundary", "branch", "new_tip", "old_tip", "recorded")

    def __init__(self, branch: str, old_tip: str, new_tip: str, recorded: state.Recorded) -> None:
        self.branch = branch
        self.old_tip = old_tip
        self.new_tip = new_tip
        self.recorded = recorded
        self.boundary: str | None = None  # the recorded sha as a full commit name


def follow(repo: Repo, where: Location, command: str, stdin: bytes,
           sid: str | None = None, merge: str | None = None) -> list[str]:
    """Write the rewrite's pairs into the session ledger (by session ``sid``), then move
    the boundary of every branch the rewrite moved (``--update-refs`` too), each under its
    own lock; returns what to tell the user. ``merge``: the configured merge branch."""
    assert where.top is not None and where.head is not None
    rebase = gitfiles.rebase_state(where.git_dir)
    if command == "amend" and rebase.backend is not None:
        return []  # an amend at a rebase stop: the rebase's own list will carry it
    if where.branch is None:
        _apply_context(repo, where.git_dir, rebase)
    given, old_tip = recover_pairs(repo, where.git_dir, command, stdin, rebase)
    # a no-op amend, a pick git kept as it was: the same commit
    listed = [(old, new) for old, new in given if old != new]
    pairs = listed if command == "amend" else _not_into_made(repo, where, [
        (old, new) for old, new in without_dropped(given, rebase.onto, rebase.done)
        if old != new], rebase.done)
    problem = _note(repo, where, command, pairs, rebase, sid)
    said = [] if problem is None else [f"the session ledger was not written: {problem}"]
    if command == "amend" and not pairs:
        return said
    branch = where.branch or branch_of(rebase.head_name)  # checked out, or being rebased
    # every listed commit dropped: their pairs into onto still tell place where the line
    # went (a pair into onto copies nothing it sorts), and keep patch ids from guessing
    return said + _move(repo, where, command, rebase, branch, pairs or listed, old_tip, sid,
                        merge)


def without_dropped(pairs: list[tuple[str, str]], onto: str | None, done: bytes | None
                    ) -> list[tuple[str, str]]:
    """A rebase's pairs less those of the picks it dropped. A pick whose change is already
    in the base (a teammate pushed the same change, and ``pull --rebase`` or ``rebase``
    drops the commit that became empty) has no copy, yet git lists it as rewritten into
    whatever HEAD was: the rebase's ``onto``, the copy made just before, or a pick git kept
    as it was (not listed itself). Taken as a copy, that commit would be counted as the
    dropped one's (another's commit as the session's, the session's as another's, a copy
    as mixed). A squash or fixup shares its image with the pick it folds into by right;
    any other pair into ``onto``, into an image listed before it, or into a commit the
    ``done`` list names (one from before the rebase) is a dropped pick's."""
    steps = _done_steps(done)
    folded = _named([name for command, name in steps if name and command in _FOLDING],
                    [old for old, _ in pairs])
    before = _named([name for _, name in steps if name], [new for _, new in pairs])
    seen: set[str] = set()
    kept: list[tuple[str, str]] = []
    for old, new in pairs:
        if old not in folded and (new == onto or new in seen or new in before):
            continue
        seen.add(new)
        kept.append((old, new))
    return kept


_STOPPING = frozenset((b"exec", b"x", b"break", b"b", b"edit", b"e"))


def _not_into_made(repo: Repo, where: Location, pairs: list[tuple[str, str]],
                   done: bytes | None) -> list[tuple[str, str]]:
    """``pairs`` less those of picks dropped right after an ``exec`` step or a stop that
    made a commit (``--empty=drop``, a change already in the base): git lists such a pick
    as rewritten into that commit, HEAD when it was dropped. It is no copy when the ledger
    says ``git commit`` made it (a pick's copy has no such line) and it has neither the
    pick's author nor its message (a pick keeps both; so does a commit typed to end the
    pick's own conflict)."""
    steps = _done_steps(done)
    after = [name for (before, _), (command, name) in zip(steps, steps[1:])
             if name and before in _STOPPING and command in _PICKING]
    if not after:
        return pairs
    followed = _named(after, [old for old, _ in pairs])
    asked = [(old, new) for old, new in pairs if old in followed]
    if not asked:
        return pairs
    from lets_hooks import ledger

    known = ledger.about(ledger.read_bytes(gitfiles.common_dir(where.git_dir)),
                         [new for _, new in asked])
    asked = [(old, new) for old, new in asked if new in known.made]
    if not asked:
        return pairs
    try:
        ids = repo.identities(sorted({sha for pair in asked for sha in pair}))
    except GitError:
        return pairs
    made = {(old, new) for old, new in asked if ids.get(old) != ids.get(new)}
    return [pair for pair in pairs if pair not in made]


def _move(repo: Repo, where: Location, command: str, rebase: RebaseState,
          branch: str | None, pairs: list[tuple[str, str]], old_tip: str | None,
          sid: str | None, merge: str | None = None) -> list[str]:
    """``follow``'s moves of the boundaries, once the rewrite's pairs are known."""
    assert where.top is not None and where.head is not None
    if branch is None:
        return []
    store = state.open_store(where.top, repo)
    if store.problem is not None:
        return [f"branch {files.quoted(branch)}: the boundary was not moved: {store.problem}"]
    if old_tip is None and command != "amend":
        old_tip = repo.ref_commit("ORIG_HEAD")  # through git: reftable keeps it as a ref
    targets = _targets(store, branch, old_tip, where.head, rebase)
    if not any(t.recorded.sha for t in targets):
        return []
    _resolve_boundaries(repo, targets)
    targets = [t for t in targets if t.boundary is not None]
    if not targets:
        return []  # no recorded line names a commit here: the ladder says so, not a move
    current = targets[0] if targets[0].branch == branch else None
    guessed = False
    if not pairs and current is not None:
        assert current.boundary is not None
        pairs = _pairs_by_patch_id(repo, current.boundary, current.old_tip, current.new_tip)
        guessed = bool(pairs)
    if not pairs:
        return _lost(repo, targets)
    images = mapping(pairs)
    onto, new = _onto(repo, command, rebase, images, targets)
    if onto is None:
        # with no rebase state (an amend, rebase --apply): the branches --update-refs moved
        # come from a rebase's state, which keeps its onto beside them
        first = targets[0]
        assert first.boundary is not None
        return [f"branch {files.quoted(first.branch)}: could not tell which base the "
                f"rewrite replayed onto; the boundary {first.boundary[:12]} is left as it "
                f"was. Fix: {FIX_AT}"]
    old = History(repo.walk([*{t.old_tip for t in targets}, *{t.boundary for t in targets
                                                               if t.boundary}], [onto]))
    if new is None:
        new = History(repo.walk(sorted({t.new_tip for t in targets}), [onto]))
    copies = originals(images)
    unpaired = [c for c in new.parents if c not in copies and c not in old]
    if unpaired:
        copies = recognize(copies, images, unpaired,
                           repo.identities(sorted({*unpaired, *images, *images.values()})))
    names = [name for name, _ in repo.branches()]
    messages: list[str] = []
    for target in targets:
        assert target.boundary is not None
        if not _bounded(repo, target, old, onto):
            continue  # it did not bound this history before the rewrite either
        moved = place(target.boundary, target.old_tip, target.new_tip, onto, images, old, new,
                      copies, guessed, partial(repo.is_ancestor, target.boundary))
        moved = _not_above_session(repo, where, target, moved, old, sid, merge)
        moved = _below_a_changed_boundary(where, target, moved, new, sid)
        messages += _write(store, target, moved, names)
    return messages


def _note(repo: Repo, where: Location, command: str, pairs: list[tuple[str, str]],
          rebase: RebaseState, sid: str | None) -> str | None:
    """The session ledger's lines for the rewrite: each copy's original, whether the rewrite
    changed it (an amend; a reword, edit, squash, fixup, or a pick an ``exec`` may have
    amended), and the commits made at a rebase's stops (post-commit writes none there)."""
    from lets_hooks import ledger

    common = gitfiles.common_dir(where.git_dir)
    made: list[str] = []
    if command == "amend":
        changed = {old for old, _ in pairs}
    else:
        olds = [old for old, _ in pairs]
        changed, before_exec, edited = _changed_in(rebase.done, olds)
        copies = {new for _, new in pairs}
        floor = [c for c in (rebase.onto, rebase.orig_head) if c]
        try:
            walked = repo.walk([where.head], floor) if floor and where.head else b""
        except GitError:  # the pairs are written all the same
            walked = b""
        parents = History(walked).parents
        made = [c for c in parents if c not in copies]
        pairs = _at_edit_stops(pairs, edited, parents, made)
        images = dict(pairs)
        # a pick an exec step followed was amended by it, unless the step made a commit on
        # top of the pick's copy (which then stayed as git picked it)
        built_on = {parents[c][0] for c in made if parents.get(c)}
        changed |= {old for old in before_exec if images.get(old) not in built_on}
    return ledger.note_rewrite(common, pairs, sid, changed, made)


_CHANGING = frozenset((b"reword", b"r", b"edit", b"e", b"squash", b"s", b"fixup", b"f"))
_PICKING = frozenset((b"pick", b"p", *_CHANGING))
_FOLDING = frozenset((b"squash", b"s", b"fixup", b"f"))


def _at_edit_stops(pairs: list[tuple[str, str]], edited: set[str],
                   parents: dict[str, list[str]], made: list[str]) -> list[tuple[str, str]]:
    """Where git kept a commit stopped at by ``edit`` as it was and commits were made on it
    at the stop, the one git listed as its copy and those under it were made there: they
    join ``made``, and the pair goes. (On a moved base they cannot be told apart without
    reading the commits: the pair stays, marked changed.)"""
    fixed = dict(pairs)
    unlisted = set(made)
    for old in edited:
        new = fixed.get(old)
        if new is None:
            continue
        chain = [new]
        up = parents.get(new, [])[:1]
        while up and up[0] in unlisted and up[0] != old:
            chain.append(up[0])
            up = parents.get(up[0], [])[:1]
        if up and up[0] == old:  # the stop kept the commit as it was: all made there
            del fixed[old]
            made.extend(c for c in chain if c not in made)
    return list(fixed.items())


def _changed_in(done: bytes | None, olds: list[str]
                ) -> tuple[set[str], set[str], set[str]]:
    """The commits a rebase's ``done`` list reworded, edited, squashed or fixed up; those
    it picked right before an ``exec`` step (which may have amended them); and those it
    stopped at with ``edit``."""
    execs: list[str] = []
    edits: list[str] = []
    marked: list[str] = []
    last: str | None = None  # the pick an exec step that follows may have amended
    for command, name in _done_steps(done):
        if command in (b"exec", b"x"):
            if last is not None:
                execs.append(last)
            continue
        last = name
        if name is None:
            continue
        if command in _CHANGING:
            marked.append(name)
        if command in (b"edit", b"e"):
            edits.append(name)
    return _named(marked, olds), _named(execs, olds), _named(edits, olds)


def _done_steps(done: bytes | None) -> list[tuple[bytes, str | None]]:
    """A rebase's ``done`` list: each line's command, with the commit a picking command
    names (its name abbreviated, in lower case; None for any other command)."""
    steps: list[tuple[bytes, str | None]] = []
    for raw in (done or b"").split(b"\n"):
        words = raw.split()
        if not words:
            continue
        if words[0] not in _PICKING or len(words) < 2:
            steps.append((words[0], None))
            continue
        name = words[2] if words[1] in (b"-C", b"-c") and len(words) > 2 else words[1]
        steps.append((words[0], name.decode("ascii", "replace").lower()))
    return steps


def _named(names: list[str], shas: list[str]) -> set[str]:
    """The full ``shas`` some abbreviated name of ``names`` is a prefix of: each sha's
    prefix of each length the names have, looked up (a 10,000-pick rebase's ``done``
    list against its 10,000 pairs, not every name against every sha)."""
    by_length: dict[int, set[str]] = {}
    for name in names:
        if name:
            by_length.setdefault(len(name), set()).add(name)
    return {sha for sha in shas
            if any(sha[:size] in group for size, group in by_length.items())}


def _below_a_changed_boundary(where: Location, target: Target, move: Move,
                              new: History, sid: str | None) -> Move:
    """A boundary commit the rewrite changed (amended, reworded, squashed into) holds the
    work of whoever changed it: unless it is the session's own, its first parent becomes
    the boundary, so the ladder judges the changed commit (mixed: never exact)."""
    from lets_hooks import ledger

    boundary = move.boundary or target.boundary
    if boundary is None:
        return move
    book = ledger.read_from(gitfiles.common_dir(where.git_dir), None, None, [boundary])
    pairs = book.copies.get(boundary)
    if not pairs or not (len(pairs) > 1 or any(changed for _, _, changed in pairs)):
        return move
    if sid and book.status(boundary, sid) == ledger.SESSION:
        return move
    ups = new.parents.get(boundary)
    if not ups:
        return move
    return Move(ups[0], "the boundary commit was changed by the rewrite: its first parent "
                "bounds the range, so the change is in it", move.approx)


def _not_above_session(repo: Repo, where: Location, target: Target, move: Move,
                       old: History, sid: str | None, merge: str | None) -> Move:
    """A boundary is never moved up past a commit the session made (SPEC section 4; the
    ladder's rule, ``ladder._checked``): a move that would put below it a commit the session
    made (its ledger lines) or a commit the session's old range copied (the rewrite lines,
    every original of a squash: a pushed commit back through the upstream under ``pull
    --rebase``) goes under the oldest such one. Off the merge branch, the session's commits
    on that branch's own line are its work: a topic's boundary goes above them."""
    boundary = move.boundary
    if boundary is None or target.boundary is None or boundary == target.boundary:
        return move
    from lets_hooks import ledger as session_ledger

    walk = History(repo.walk([boundary], [target.boundary]))
    above = [c for c in walk.parents if c not in old]  # what the move puts below it
    if not above:
        return move
    mine = old.reach(target.old_tip)
    # only the lines about these commits (and what their copies copy) are read
    book = session_ledger.read_from(gitfiles.common_dir(where.git_dir), None, None,
                                    {*mine, *above})
    came_from = book.copied_from(mine)
    made = set(book.worked_on(above, sid)) if sid else set()
    found = [c for c in above if c in came_from or c in made]
    own = [c for c in found if c not in came_from]
    if own:
        from lets_hooks.ladder import on_merge_line

        on_main = on_merge_line(repo, merge or where.origin_head, target.branch, own)
        found = [c for c in found if c not in on_main]
    if not found:
        return move
    # the walk is in topological order: the last found reaches no other (dates decide nothing)
    parents = walk.parents[found[-1]]
    if not parents:
        return Move(None, f"the session's commit {found[-1][:12]} would fall below the "
                          "boundary: it stays")
    return Move(parents[0], f"the session's commit {found[-1][:12]} came back below where "
                            "the rewrite would put the boundary: the boundary goes under it")


def rebased_branch(repo: Repo, where: Location) -> str | None:
    """The branch a rebase in progress is rewriting, while HEAD is detached (``rebase
    --apply`` runs post-rewrite before it moves the branch back)."""
    rebase = gitfiles.rebase_state(where.git_dir)
    _apply_context(repo, where.git_dir, rebase)
    return branch_of(rebase.head_name)


def _apply_context(repo: Repo, git_dir: str, rebase: RebaseState) -> None:
    """``rebase --apply`` keeps no ``head-name`` or ``onto`` while ``git am`` runs the hook:
    ``onto`` is the rebase's start entry in HEAD's reflog; the branch is the one the newest
    entry before it names, if that was at the old tip (no such entry: the one branch there)."""
    if rebase.backend != gitfiles.REBASE_APPLY or rebase.head_name is not None:
        return
    log = repo.reflog(git_dir, "HEAD", 100)
    start = next((i for i, (_, subject) in enumerate(log) if reflog.starts_rebase(subject)),
                 None)
    if start is None:
        return
    rebase.onto = log[start][0]
    if rebase.orig_head is None:
        rebase.orig_head = repo.ref_commit("ORIG_HEAD")
    at_old_tip = [name for name, sha in repo.branches() if sha == rebase.orig_head]
    for _, subject in log[start + 1:]:
        name = reflog.branch_after(subject)
        if name is not None:
            if name in at_old_tip:
                rebase.head_name = "refs/heads/" + name
            return
    if len(at_old_tip) == 1:
        rebase.head_name = "refs/heads/" + at_old_tip[0]


def recover_pairs(repo: Repo, git_dir: str, command: str, stdin: bytes, rebase: RebaseState
                  ) -> tuple[list[tuple[str, str]], str | None]:
    """The rewrite's old -> new pairs and the tip before it: from git's stdin, else the
    rebase's own list (the pre-commit framework does not pass stdin on), else for an amend
    ``HEAD@{1}`` -> ``HEAD`` when the reflog says so. Patch ids are the caller's last resort."""
    pairs = parse_pairs(stdin) if stdin else []
    if not pairs and rebase.rewritten is not None:
        pairs = parse_pairs(rebase.rewritten)
    if not pairs and command in ("amend", ""):
        log = repo.reflog(git_dir, "HEAD", 2)
        if len(log) == 2 and reflog.amends(log[0][1]):
            pairs = [(log[1][0], log[0][0])]
    if command == "amend" and pairs:
        return pairs, pairs[-1][0]
    return pairs, rebase.orig_head


def _targets(store: state.Store, branch: str, old_tip: str | None, new_tip: str,
             rebase: RebaseState) -> list[Target]:
    found = []
    if old_tip is not None:
        found.append(Target(branch, old_tip, new_tip, state.read_recorded(store, branch)))
    for ref, before, after in rebase.update_refs:
        name = branch_of(ref)
        if name is not None and name != branch and before != after:
            found.append(Target(name, before, after, state.read_recorded(store, name)))
    return found


def _resolve_boundaries(repo: Repo, targets: list[Target]) -> None:
    asked = [t.recorded.sha + "^{commit}" for t in targets if t.recorded.sha]
    found = {info.name: info.sha for info in repo.objects(asked)}
    for target in targets:
        if target.recorded.sha:
            target.boundary = found.get(target.recorded.sha + "^{commit}")


def _onto(repo: Repo, command: str, rebase: RebaseState, images: Mapping[str, str],
          targets: list[Target]) -> tuple[str | None, History | None]:
    """The base the rewritten commits went onto (git's ``onto`` during a rebase, the new
    tip's parent for an amend, else derived), and the walk of the new tips when finding
    it already made that walk."""
    if rebase.onto is not None:
        return rebase.onto, None
    current = targets[0]
    fresh = History(repo.walk([current.new_tip], [current.old_tip]))
    if command == "amend":
        parents = fresh.parents.get(current.new_tip) or []
        return (parents[0] if parents else None), fresh
    return derive_onto(current.new_tip, images, fresh), None


def _bounded(repo: Repo, target: Target, old: History, onto: str) -> bool:
    """Was the boundary an ancestor of the branch's old tip (did it bound anything)?"""
    boundary = target.boundary
    assert boundary is not None
    if boundary in old:
        return boundary in old.reach(target.old_tip)
    if old.reaches_out_to(target.old_tip, onto):
        return True  # it is in onto's history, and onto was below the old tip
    return repo.is_ancestor(boundary, target.old_tip)


def _write(store: state.Store, target: Target, moved: Move, names: list[str]) -> list[str]:
    """Write the moved line under the lock, unless another writer changed it since it was
    read (then theirs is kept, and said)."""
    seen, boundary = target.recorded, moved.boundary
    if boundary is None or (boundary == target.boundary and not moved.approx):
        return []
    changed: list[str] = []

    def decide(current: state.Recorded) -> state.Line | None:
        if current.line != seen.line:
            changed.append(current.sha or "nothing")
            return None
        return state.Line(boundary, seen.sid, seen.recorded_at, moved.approx or seen.approx)

    said = f"post-rewrite: branch {files.quoted(target.branch)}: "
    try:
        state.update(store, target.branch, decide, names)
    except state.StateError as exc:
        return [f"{said}the boundary could not follow the rewrite: {exc}"]
    if changed:
        return [f"{said}another writer changed the session line while the rewrite was followed "
                f"(now {changed[0][:12]}); their line is kept"]
    unkept = [store.unkept] if store.unkept else []
    return [said + moved.why, *unkept] if moved.approx else unkept


def _lost(repo: Repo, targets: list[Target]) -> list[str]:
    """No pairs at all: say so when the boundary no longer bounds the new history."""
    for target in targets[:1]:
        assert target.boundary is not None
        if target.old_tip != target.new_tip and not repo.is_ancestor(target.boundary,
                                                                      target.new_tip):
            return [f"post-rewrite: branch {files.quoted(target.branch)}: could not tell how "
                    f"the rewrite moved the session's commits; the boundary "
                    f"{target.boundary[:12]} is left as it was. Fix: {FIX_AT}"]
    return []


def _pairs_by_patch_id(repo: Repo, boundary: str, old_tip: str,
                       new_tip: str) -> list[tuple[str, str]]:
    """The last resort: match the session's old commits to new ones by patch id."""
    if old_tip == new_tip or not repo.is_ancestor(boundary, old_tip):
        return []
    old = repo.patch_ids(old_tip, [boundary])
    if not old:
        return []
    base = repo.merge_base(boundary, new_tip)
    new = dict(repo.patch_ids(new_tip, [base] if base else []))
    return [(commit, new[pid]) for pid, commit in old if pid in new]

