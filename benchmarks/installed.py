"""Find the installed console script to time, as a user runs it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def command(name: str) -> str:
    """The console script next to this interpreter (else on PATH); warns on an editable
    install whose import hook adds 10 to 40 ms to every start, and on a console script an
    older pip wrote, which imports ``re`` (about 7 ms a start) to strip a suffix."""
    installed = Path(sys.executable).parent / name
    found = str(installed) if installed.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed (pip install .)")
    # the default editable mode's import hook (a "compat" install is a plain path: no hook)
    site = Path(sys.executable).parent.parent.glob(
        "lib/python*/site-packages/__editable___*finder.py")
    if any(site):
        print("warning: this is an editable install, whose import hook adds to every start; "
              "time a plain `pip install .` for the figures users see", file=sys.stderr)
    try:
        head = Path(found).read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        head = ""
    if "import re\n" in head:
        print("warning: this console script imports re (written by an older pip): "
              "upgrade pip and reinstall for the figures users of a current pip see",
              file=sys.stderr)
    return found
