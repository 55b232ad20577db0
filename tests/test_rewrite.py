"""The pure core of post-rewrite: pairs in, the boundary's new place out."""

from __future__ import annotations

from collections.abc import Callable

from lets_hooks import rewrite


def sha(n: int) -> str:
    return f"{n:040x}"


B, S1, S2, S3 = sha(1), sha(2), sha(3), sha(4)
N1, N2, N3, M = sha(12), sha(13), sha(14), sha(20)
LINEAR = [(S1, [B]), (S2, [S1]), (S3, [S2])]


def test_parse_pairs_keeps_only_two_full_shas() -> None:
    data = (f"{S1} {N1}\n{S2} {N2} extra\n--exec=x {N3}\nshort {N1}\n\n"
            f"{'A' * 40} {N1}\n").encode()
    assert rewrite.parse_pairs(data) == [(S1, N1), (S2, N2)]


def test_mapping_follows_chains_and_squashes() -> None:
    images = rewrite.mapping([(S1, N1), (S2, N1), (N1, N2), (S3, N3)])
    assert images == {S1: N2, S2: N2, N1: N2, S3: N3}
    assert rewrite.mapping([(S1, S2), (S2, S1)])[S1] in (S1, S2)  # a cycle ends


def test_first_parent_chain() -> None:
    assert rewrite.first_parent_chain(LINEAR, S3, B) == [S1, S2, S3]
    merge = [(S1, [B]), (N1, [M]), (S2, [S1, N1])]
    assert rewrite.first_parent_chain(merge, S2, B) == [S1, S2]
    # the boundary on a merged side line: every commit, in the walk's order
    side = [(N1, [M]), (S1, [B]), (S2, [N1, S1])]
    assert rewrite.first_parent_chain(side, S2, B) == [N1, S1, S2]


def parents(table: dict[str, str]) -> Callable[[str], str | None]:
    return lambda image: table.get(image)


def history(*alive: str) -> Callable[[str], bool]:
    return lambda commit: commit in alive


def test_boundary_rewritten_moves_to_its_image() -> None:
    moved = rewrite.move(B, {B: N1}, [], parents({}), history(), N1)
    assert moved.boundary == N1


def test_replayed_onto_a_new_base() -> None:
    images = {S1: N1, S2: N2, S3: N3}
    moved = rewrite.move(B, images, [S1, S2, S3], parents({N1: M}), history(), N3)
    assert moved.boundary == M


def test_first_commit_rewritten_in_place_keeps_the_boundary() -> None:
    moved = rewrite.move(B, {S1: N1}, [S1, S2], parents({N1: B}), history(B), N1)
    assert moved.boundary is None


def test_partial_rewrite_above_the_first_commit_keeps_the_boundary() -> None:
    moved = rewrite.move(B, {S3: N3}, [S1, S2, S3], parents({N3: S2}), history(B, S1, S2), N3)
    assert moved.boundary is None


def test_dropped_first_commit_is_skipped() -> None:
    moved = rewrite.move(B, {S2: N2, S3: N3}, [S1, S2, S3], parents({N2: M}), history(), N3)
    assert moved.boundary == M
    kept = rewrite.move(B, {S2: N2}, [S1, S2], parents({N2: B}), history(B), N2)
    assert kept.boundary is None


def test_every_session_commit_dropped() -> None:
    assert rewrite.move(B, {}, [S1], parents({}), history(B), B).boundary is None
    assert rewrite.move(B, {}, [S1], parents({}), history(), M).boundary == M


def test_image_without_a_parent_leaves_the_boundary() -> None:
    assert rewrite.move(B, {S1: N1}, [S1], parents({}), history(), N1).boundary is None
