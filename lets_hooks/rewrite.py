"""Move a session boundary along with rewritten history (``commit --amend``, ``rebase``).

Pure: the facts about the repository come in as arguments (the old-to-new mapping git
reports, the session's commits before the rewrite, and two small questions answered by
callables), and a ``Move`` comes out. Recovering the mapping from git is the hook's job,
through ``repo.py``.

The rules, in order:

1. The boundary commit itself was rewritten: the boundary becomes its new image.
2. Otherwise walk the session's commits from the oldest (along first parents from the old
   tip down to the boundary). The first one that was rewritten puts the boundary at the
   first parent of its image: ``boundary..HEAD`` then again counts exactly the session's
   commits, whatever new base they were replayed on. The first one that was left as it
   was (still in the new history) means the rewrite happened above the boundary: the
   boundary stays. One that was dropped is skipped.
3. No session commit is left: the boundary stays if it is still in the new history (the
   session now has no commits), else it becomes the new tip.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

HEXDIGITS = frozenset("0123456789abcdef")


class Move:
    """Where the boundary goes: ``boundary`` is None when it stays where it was."""

    __slots__ = ("boundary", "why")

    def __init__(self, boundary: str | None, why: str) -> None:
        self.boundary = boundary
        self.why = why

    def __repr__(self) -> str:
        return f"Move({self.boundary!r}, {self.why!r})"


def parse_pairs(data: bytes) -> list[tuple[str, str]]:
    """``old new`` lines (git's post-rewrite stdin, a rebase's rewritten-list).

    Extra fields after the two shas are ignored; lines that are not two full hex shas are
    skipped, so nothing from this input can reach git as anything but a sha.
    """
    pairs = []
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) >= 2 and _is_sha(parts[0]) and _is_sha(parts[1]):
            pairs.append((parts[0], parts[1]))
    return pairs


def mapping(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Old commit -> its final image. Several olds may share an image (squash, fixup);
    an old listed twice (a commit amended during a rebase) takes its last image, and an
    image that is itself rewritten later in the list is followed to its end."""
    images: dict[str, str] = {}
    for old, new in pairs:
        images[old] = new
    for old in list(images):
        seen = {old}
        new = images[old]
        while new in images and new not in seen:
            seen.add(new)
            new = images[new]
        images[old] = new
    return images


def first_parent_chain(walk: Sequence[tuple[str, Sequence[str]]], old_head: str,
                       boundary: str) -> list[str]:
    """The session's commits, oldest first.

    ``walk`` is ``boundary..old_head`` with parents (any order). Along first parents from
    the old tip down to the boundary when that path exists; otherwise (the boundary sits
    on a merged side line) every commit of the walk, in its order.
    """
    parents = {sha: list(ps) for sha, ps in walk}
    chain = []
    current = old_head
    while current in parents:
        chain.append(current)
        ps = parents[current]
        if not ps:
            break
        current = ps[0]
        if current == boundary:
            chain.reverse()
            return chain
    return [sha for sha, _ in walk]


def move(boundary: str, images: Mapping[str, str], chain: Sequence[str],
         parent_of: Callable[[str], str | None], in_new_history: Callable[[str], bool],
         new_head: str) -> Move:
    """Apply the rules above. ``boundary`` is a full sha; ``chain`` the session's commits
    oldest first; ``parent_of(image)`` the first parent of a new commit;
    ``in_new_history(commit)`` whether an old commit is still an ancestor of the new tip."""
    image = images.get(boundary)
    if image is not None:
        return Move(image, "the boundary commit was rewritten: it moves to its new image")
    for commit in chain:
        image = images.get(commit)
        if image is not None:
            parent = parent_of(image)
            if parent is None:
                return Move(None, "the first session commit's image has no parent: the "
                                  "boundary is left as it was")
            if parent == boundary:
                return Move(None, "the session's first commit was rewritten in place")
            return Move(parent, "the session's commits were replayed onto a new base: the "
                                "boundary moves to the parent of the first one")
        if in_new_history(commit):
            return Move(None, "the rewrite left the session's first commit as it was")
    if in_new_history(boundary):
        return Move(None, "no session commit is left; the boundary is still in the history")
    return Move(new_head, "no session commit is left: the boundary moves to the new tip")


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in HEXDIGITS for c in text)
