"""Find the installed console script to time, as a user runs it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def command(name: str) -> str:
    """The console script next to this interpreter (else on PATH); warns on an editable
    install, whose import hook adds about 10 ms to every start."""
    installed = Path(sys.executable).parent / name
    found = str(installed) if installed.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed (pip install .)")
    site = Path(sys.executable).parent.parent.glob("lib/python*/site-packages/__editable__*")
    if any(site):
        print("warning: this is an editable install, whose import hook adds to every start; "
              "time a plain `pip install .` for the figures users see", file=sys.stderr)
    return found
