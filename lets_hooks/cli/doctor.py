"""``lets-hooks doctor``: one screen saying what is installed and what would help."""

from __future__ import annotations

import os

from lets_hooks import __version__
from lets_hooks.cli import command_parser, out

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from lets_hooks.doctor import Diagnosis

PROG = "lets-hooks doctor"
MARKS = {"ok": "ok  ", "warn": "WARN", "info": "--  ", "note": "note"}


def parser() -> argparse.ArgumentParser:
    made = command_parser(
        PROG,
        "Say which hooks run lets-hooks and through what (plain shims, husky, "
        "lefthook, pre-commit), whether git will run them, the git version, "
        "the merge branch, whether a session id is set, whether .lets/ is "
        "ignored, and whether a long history lacks a commit-graph. Exits 0 "
        "when all is well (notes included), 1 when something needs fixing. "
        "Changes nothing.")
    made.add_argument("--json", action="store_true", help="print one JSON object instead")
    return made


def main(argv: Sequence[str]) -> int:
    opts = parser().parse_args(list(argv))
    from lets_hooks import doctor

    found = doctor.diagnose(None, os.environ)
    if opts.json:
        import json

        out(json.dumps({"version": __version__, "ok": found.healthy,
                        "checks": [c.as_dict() for c in found.checks]}, indent=2) + "\n")
    else:
        out(render(found))
    return 0 if found.healthy else 1


def render(found: Diagnosis) -> str:
    from lets_hooks.files import show

    width = max((len(c.name) for c in found.checks), default=0)
    lines = []
    for check in found.checks:
        lines.append(f"{MARKS.get(check.status, check.status)}  {check.name.ljust(width)}  "
                     f"{show(check.text)}")
        if check.fix and check.status != "ok":
            lines.append(f"      {' ' * width}  fix: {show(check.fix)}")
    warnings = sum(1 for c in found.checks if c.status == "warn")
    notes = sum(1 for c in found.checks if c.status == "note")
    lines.append((f"all is well ({notes} note{'s' if notes != 1 else ''} above)" if notes
                  else "all is well") if not warnings else
                 f"{warnings} thing{'s' if warnings != 1 else ''} to look at")
    return "\n".join(lines) + "\n"
