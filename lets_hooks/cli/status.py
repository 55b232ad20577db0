"""``lets-hooks status``: one row per local branch (boundary, trust, commits, reason)."""

from __future__ import annotations

import os
import sys

from lets_hooks.cli import command_parser, out, say, use_color
from lets_hooks.files import show

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from lets_hooks.status import Row

PROG = "lets-hooks status"
HEADER = ("BRANCH", "BOUNDARY", "TRUST", "COMMITS", "WHY")


def parser() -> argparse.ArgumentParser:
    made = command_parser(
        PROG,
        "List every local branch with its session boundary, trust level, "
        "commit count and, when it is not exact, why. The current branch is "
        "marked '*'. Trust is judged for the current session (LETS_SESSION_ID "
        "or CLAUDE_CODE_SESSION_ID).")
    made.add_argument("--json", action="store_true", help="print one JSON list instead")
    return made


def main(argv: Sequence[str]) -> int:
    import time

    opts = parser().parse_args(list(argv))
    from lets_hooks import status
    from lets_hooks.repo import GitError, reason

    try:
        table, _ = status.rows(None, os.environ, int(time.time()))
    except GitError as exc:
        say(f"{PROG}: {reason(exc)}")
        return 1
    if opts.json:
        import json

        out(json.dumps([row.as_dict() for row in table], indent=2) + "\n")
    else:
        out(render(table, color=use_color(sys.stdout)))
    return 0


def render(table: list[Row], color: bool = False) -> str:
    """The table; with ``color``, the trust column in colour (a terminal, no NO_COLOR)."""
    from lets_hooks.ladder import ESTIMATE, EXACT, NONE, PRIOR

    if not table:
        return "no local branches\n"
    colors = {EXACT: "32", PRIOR: "33", ESTIMATE: "33", NONE: "31"}
    lines = [("  " + HEADER[0], *HEADER[1:])]
    for row in table:
        b = row.boundary
        lines.append((
            ("* " if row.current else "  ") + show(row.branch),
            b.boundary[:12] if b.boundary else "none",
            b.trust,
            "-" if b.commits is None else str(b.commits),
            show(row.reason()),
        ))
    widths = [max(len(line[k]) for line in lines) for k in range(4)]
    out = []
    for line in lines:
        cells = [line[k].ljust(widths[k]) for k in range(4)]
        if color and line[2] in colors:
            cells[2] = f"\033[{colors[line[2]]}m{line[2]}\033[0m" + cells[2][len(line[2]):]
        out.append("  ".join([*cells, line[4]]).rstrip())
    return "\n".join(out) + "\n"
