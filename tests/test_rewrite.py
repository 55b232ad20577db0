"""The pure core of post-rewrite: the rule that places a boundary after a rewrite, on
small hand-made histories (the property tests in test_rebase_properties.py drive it with
real rebases).

Names: ``P*`` commits from before the session, ``B`` the boundary, ``S*`` the session's
commits, ``OLD`` the old base the branch forked from, ``M*`` main's new commits; a trailing
``'`` (written ``x`` here) is a rewritten copy.
"""

from __future__ import annotations

from lets_hooks import rewrite
from lets_hooks.rewrite import History, place


def sha(n: int) -> str:
    return f"{n:040x}"


OLD, P1, B, S1, S2, S3 = sha(1), sha(2), sha(3), sha(4), sha(5), sha(6)
M1, M2 = sha(7), sha(8)
P1x, Bx, S1x, S2x, S3x, X1, X2 = (sha(n) for n in range(20, 27))


def walk(*edges: tuple[str, list[str]]) -> bytes:
    """``rev-list --parents`` output for these commits (their parents as named)."""
    return "".join(" ".join([c, *ps]) + "\n" for c, ps in edges).encode()


def old_history(exclude_below: str = OLD) -> History:
    """OLD <- P1 <- B <- S1 <- S2 <- S3, walked from S3 and B, excluding ``exclude_below``
    and its ancestors."""
    chain = [(P1, [OLD]), (B, [P1]), (S1, [B]), (S2, [S1]), (S3, [S2])]
    keep = {OLD: 0, P1: 1, B: 2, S1: 3, S2: 4, S3: 5}
    cut = keep[exclude_below]
    return History(walk(*[(c, ps) for c, ps in chain if keep[c] > cut]))


def test_parse_pairs_keeps_only_two_full_shas() -> None:
    data = (f"{S1} {S1x}\n{S2} {S2x} extra\n--exec=x {S3x}\nshort {S1x}\n\n"
            f"{'A' * 40} {S1x}\n").encode()
    assert rewrite.parse_pairs(data) == [(S1, S1x), (S2, S2x)]


def test_mapping_follows_chains_and_squashes() -> None:
    images = rewrite.mapping([(S1, S1x), (S2, S1x), (S1x, S2x), (S3, S3x)])
    assert images == {S1: S2x, S2: S2x, S1x: S2x, S3: S3x}
    assert rewrite.mapping([(S1, S2), (S2, S1)])[S1] in (S1, S2)  # a cycle ends
    assert rewrite.originals({S1: S2x, S2: S2x})[S2x] == [S1, S2]


def test_history_reach_and_edges_out_of_the_walk() -> None:
    old = old_history()
    assert old.reach(S2) == {P1, B, S1, S2}
    assert old.reaches_out_to(S3, OLD) and not old.reaches_out_to(S3, M1)
    assert list(old.first_parents(S3)) == [S3, S2, S1, B, P1]


def test_whole_session_onto_a_moved_main() -> None:
    """git rebase main, main moved from B to M2: the boundary becomes onto."""
    old = old_history(exclude_below=B)
    new = History(walk((S1x, [M2]), (S2x, [S1x]), (S3x, [S2x])))
    images = {S1: S1x, S2: S2x, S3: S3x}
    move = place(B, S3, S3x, M2, images, old, new)
    assert (move.boundary, move.approx) == (M2, None)


def test_reordered_split_and_inserted_commits_count_whole() -> None:
    """rebase -i main with main unchanged (onto = B): S3 first, S1 split in two (its
    first half has no original), an exec commit inserted at the very start."""
    old = old_history(exclude_below=B)
    new = History(walk((X1, [B]), (S3x, [X1]), (X2, [S3x]), (S1x, [X2]), (S2x, [S1x])))
    images = {S3: S3x, S1: S1x, S2: S2x}
    move = place(B, S3, S2x, B, images, old, new)
    assert move.boundary is None  # it stays, and B..HEAD counts all five


def test_base_inside_the_session_keeps_the_boundary() -> None:
    """rebase -i HEAD~2: onto = S1, inside the session."""
    old = old_history(exclude_below=S1)
    new = History(walk((S3x, [S1]), (S2x, [S3x])))
    move = place(B, S3, S2x, S1, {S2: S2x, S3: S3x}, old, new)
    assert move.boundary is None


def test_boundary_rewritten_with_the_earlier_commits_below_the_session() -> None:
    """rebase main with commits from before the session on the branch (P1, B) and main
    moved: P1 and B are replayed first, so B's copy is the new boundary."""
    old = old_history(exclude_below=OLD)
    new = History(walk((P1x, [M1]), (Bx, [P1x]), (S1x, [Bx]), (S2x, [S1x]), (S3x, [S2x])))
    images = {P1: P1x, B: Bx, S1: S1x, S2: S2x, S3: S3x}
    move = place(B, S3, S3x, M1, images, old, new)
    assert (move.boundary, move.approx) == (Bx, None)


def test_amend_of_the_boundary_with_no_session_commits() -> None:
    old = History(walk((B, [P1])))
    new = History(walk((Bx, [P1])))
    move = place(B, B, Bx, P1, {B: Bx}, old, new)
    assert move.boundary == Bx


def test_amend_of_a_session_commit_keeps_the_boundary() -> None:
    old = History(walk((S3, [S2])))
    new = History(walk((S3x, [S2])))
    assert place(B, S3, S3x, S2, {S3: S3x}, old, new).boundary is None


def test_session_commit_moved_below_an_earlier_one_is_approximate() -> None:
    """rebase -i over P1, B and the session, S1 moved first: no boundary counts exactly."""
    old = old_history(exclude_below=OLD)
    new = History(walk((S1x, [OLD]), (P1x, [S1x]), (Bx, [P1x]), (S2x, [Bx]), (S3x, [S2x])))
    images = {P1: P1x, B: Bx, S1: S1x, S2: S2x, S3: S3x}
    move = place(B, S3, S3x, OLD, images, old, new)
    assert move.approx is not None
    assert move.boundary == OLD  # below the lowest session commit: nothing of it is lost


def test_squash_of_an_earlier_commit_with_a_session_commit_is_approximate() -> None:
    old = old_history(exclude_below=OLD)
    new = History(walk((P1x, [OLD]), (Bx, [P1x]), (S2x, [Bx]), (S3x, [S2x])))
    images = {P1: P1x, B: Bx, S1: Bx, S2: S2x, S3: S3x}  # S1 fixed up into B
    move = place(B, S3, S3x, OLD, images, old, new)
    assert move.approx is not None and "squash" in move.approx


def test_every_session_commit_dropped_onto_a_moved_main() -> None:
    old = old_history(exclude_below=B)
    new = History(b"")
    move = place(B, S3, M2, M2, {}, old, new)
    assert move.boundary == M2


def test_pairs_matched_by_patch_id_with_new_commits_are_approximate() -> None:
    old = old_history(exclude_below=B)
    new = History(walk((S1x, [M2]), (X1, [S1x]), (S2x, [X1]), (S3x, [S2x])))
    move = place(B, S3, S3x, M2, {S1: S1x, S2: S2x, S3: S3x}, old, new, guessed=True)
    assert move.boundary == M2 and move.approx is not None


def test_onto_derived_from_the_lowest_copy() -> None:
    fresh = History(walk((S2x, [S1x]), (S1x, [M2]), (M2, [M1])))
    assert rewrite.derive_onto(S2x, {S1: S1x, S2: S2x}, fresh) == M2


def test_commits_made_at_an_edit_stop_are_new_work() -> None:
    """``edit P1``, then a commit at the stop: git lists P1 -> X1 (HEAD when the rebase
    went on), and P1's own copy has no entry. The copy is known by what a pick keeps
    (author, author date, message); X1 is new, so the session's."""
    old = History(walk((P1, [OLD]), (B, [P1]), (S1, [B])))
    new = History(walk((P1x, [M1]), (X1, [P1x]), (Bx, [X1]), (S1x, [Bx])))
    images = {P1: X1, B: Bx, S1: S1x}
    identity = {P1: b"p1 author", P1x: b"p1 author", X1: b"new", B: b"b", Bx: b"b",
                S1: b"s1", S1x: b"s1"}
    copies = rewrite.recognize(rewrite.originals(images), images, [P1x], identity)
    assert copies[P1x] == [P1] and X1 not in copies
    move = place(B, S1, S1x, M1, images, old, new, copies)
    assert move.approx is not None  # X1 (new work) sits below B's copy: no exact place
    # the same stop on the boundary itself: its copy is the boundary, X1 the session's
    images = {B: X1, S1: S1x}
    new = History(walk((Bx, [M1]), (X1, [Bx]), (S1x, [X1])))
    identity = {B: b"b", Bx: b"b", X1: b"x", S1: b"s1", S1x: b"s1"}
    copies = rewrite.recognize(rewrite.originals(images), images, [Bx], identity)
    old = History(walk((B, [OLD]), (S1, [B])))
    move = place(B, S1, S1x, M1, images, old, new, copies)
    assert (move.boundary, move.approx) == (Bx, None)


def test_a_second_pick_of_an_old_commit_is_not_taken_for_its_copy() -> None:
    """An ``exec git cherry-pick P1`` makes a second commit with P1's identity; git's
    listed copy of P1 carries it too, so it stays P1's copy (the pick is new work)."""
    images = {P1: P1x, B: Bx}
    identity = {P1: b"p1", P1x: b"p1", X1: b"p1", B: b"b", Bx: b"b"}
    copies = rewrite.recognize(rewrite.originals(images), images, [X1], identity)
    assert copies == rewrite.originals(images)


# -- only what was replayed moves the boundary; what came in through a merge is not the
# session's ----------------------------------------------------------------------------

T1, MG, F = sha(40), sha(41), sha(42)


def test_pull_rebase_replaying_part_of_the_session_keeps_the_boundary() -> None:
    """You pushed S1, a teammate built T1 on it, ``git pull --rebase`` replays only S2
    (and S3) onto T1: S1 is in onto's history, not replayed, so the boundary may not move
    above it."""
    old = History(walk((S2, [S1]), (S3, [S2])))  # the walk excluded T1 and so S1, B
    new = History(walk((S2x, [T1]), (S3x, [S2x])))
    images = {S2: S2x, S3: S3x}
    asked: list[str] = []

    def below(commit: str) -> bool:
        asked.append(commit)
        return commit == S1  # B is an ancestor of S1

    move = place(B, S3, S3x, T1, images, old, new, below=below)
    assert move.boundary is None and "not replayed" in move.why
    assert asked == [S1]
    # without git to ask, the same answer (the boundary stays)
    assert place(B, S3, S3x, T1, images, old, new).boundary is None


def test_rebase_after_main_caught_up_with_a_merge_moves_to_the_fork_point() -> None:
    """The session merged main (M1, M2) into the topic (MG), then ``git rebase main`` with
    main at M2 (onto is the merge's second parent): every session commit was replayed and
    the merge dropped; the boundary moves from below the fork point to onto."""
    old = History(walk((S1, [B]), (MG, [S1, M2]), (S2, [MG])))  # B, M1, M2 excluded
    new = History(walk((S1x, [M2]), (S2x, [S1x])))
    move = place(B, S2, S2x, M2, {S1: S1x, S2: S2x}, old, new, below=lambda c: False)
    assert (move.boundary, move.approx) == (M2, None)


def test_rebase_merges_that_keeps_the_merge_places_the_boundary_on_the_first_parent_line(
        ) -> None:
    """``--rebase-merges`` onto a main that moved to M2: S1 stays where it was (on F, the
    fork point), the merge is remade with M2; onto is off HEAD's first-parent line, so the
    boundary goes where that line meets onto's history (F), not to onto."""
    old = History(walk((S1, [F]), (MG, [S1, M1]), (S2, [MG])))
    mgx = sha(43)
    new = History(walk((S1, [F]), (mgx, [S1, M2]), (S2x, [mgx])))
    move = place(B, S2, S2x, M2, {MG: mgx, S2: S2x, S1: S1}, old, new, below=lambda c: False)
    assert move.boundary == F and move.approx is None


def test_copies_of_merged_in_commits_are_neither_session_nor_earlier() -> None:
    """The topic holds P1 and B from before the session, then a merge of main's M1 (MG),
    then S1. ``git rebase`` onto a new base flattens it: M1's copy lands between the
    earlier commits and the session's. It is not session work, so the boundary still
    moves to B's copy, exactly."""
    old = History(walk((P1, [OLD]), (B, [P1]), (M1, [OLD]), (MG, [B, M1]), (S1, [MG])))
    m1x = sha(44)
    new = History(walk((P1x, [M2]), (Bx, [P1x]), (m1x, [Bx]), (S1x, [m1x])))
    images = {P1: P1x, B: Bx, M1: m1x, S1: S1x}
    move = place(B, S1, S1x, M2, images, old, new)
    assert (move.boundary, move.approx) == (Bx, None)
    # the same copy below the earlier ones: the boundary is B's copy all the same
    new = History(walk((m1x, [M2]), (P1x, [m1x]), (Bx, [P1x]), (S1x, [Bx])))
    assert place(B, S1, S1x, M2, images, old, new).boundary == Bx


def test_a_session_commit_below_an_earlier_copy_is_never_skipped() -> None:
    """An earlier commit's copy on top of a session commit: the boundary cannot go to it
    (that would drop S1); it goes below S1 and is marked approximate."""
    old = old_history(exclude_below=OLD)
    new = History(walk((S1x, [OLD]), (P1x, [S1x]), (Bx, [P1x])))
    move = place(B, S1, Bx, OLD, {P1: P1x, B: Bx, S1: S1x}, old, new)
    assert move.approx is not None and move.boundary == OLD


def test_many_earlier_commits_are_sorted_in_one_pass() -> None:
    """``rebase --root`` of a long branch whose session began at its tip: 5,000 earlier
    commits replayed. The newest copy is found without comparing every pair (this took
    minutes when every earlier commit was checked against every other one)."""
    count = 5_000
    olds = [sha(100_000 + k) for k in range(count)]
    news = [sha(200_000 + k) for k in range(count)]
    old = History(walk(*[(c, [olds[k - 1]] if k else []) for k, c in enumerate(olds)]))
    new = History(walk(*[(c, [news[k - 1]] if k else []) for k, c in enumerate(news)]))
    images = dict(zip(olds, news))
    move = place(olds[-1], olds[-1], news[-1], news[0], images, old, new)
    assert (move.boundary, move.approx) == (news[-1], None)


def test_picks_a_rebase_dropped_are_no_ones_copies() -> None:
    """A pick whose change was already in the base becomes empty and is dropped (``pull
    --rebase`` after a teammate pushed the same change); git lists it as rewritten into
    whatever HEAD was: ``onto``, the copy made just before, or a pick kept as it was (not
    listed). None of those is its copy. A fixup or squash shares its image by right."""
    onto, kept, s1, s2, s2x, s3, p1 = (c * 40 for c in "0123456")  # names unique by prefix
    done = (f"pick {kept[:7]} kept\npick {s1[:7]} s1\npick {s2} s2\nfixup {s3[:9]} s3\n"
            f"pick {p1[:7]} p1\nexec make\n").encode()
    pairs = [(s1, onto), (s2, s2x), (s3, s2x), (p1, s2x)]
    assert rewrite.without_dropped(pairs, onto, done) == [(s2, s2x), (s3, s2x)]
    assert rewrite.without_dropped([(s1, kept), (s2, s2x)], onto, done) == [(s2, s2x)]
    # a plain list (no done list, no onto): only an image listed before gives one away
    assert rewrite.without_dropped([(s1, onto), (s2, s2x), (s3, s2x)], None, None) == [
        (s1, onto), (s2, s2x)]


def test_a_long_done_list_is_read_in_one_pass() -> None:
    """A rebase that replayed 20,000 commits: its ``done`` list is matched against its
    pairs by lookup, not each name against each sha (400 million prefix tests)."""
    count = 20_000
    olds = [sha(300_000 + k) for k in range(count)]
    news = [sha(400_000 + k) for k in range(count)]
    done = "".join(f"pick {old} s\n" for old in olds).encode()
    pairs = list(zip(olds, news))
    assert rewrite.without_dropped(pairs, None, done) == pairs
    assert rewrite.without_dropped([(olds[1], olds[0]), *pairs[2:]], None, done) == pairs[2:]
