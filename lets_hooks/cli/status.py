"""``lets-hooks status``: one row per local branch (boundary, trust, commits, reason)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    sys.stderr.write("lets-hooks status: not yet\n")
    return 1
