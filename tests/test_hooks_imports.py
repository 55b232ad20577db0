"""The hooks run on every checkout: they must not pull in the heavy modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SID
from hookbox import make

HEAVY = {"argparse", "typing", "dataclasses", "subprocess", "json", "re", "tempfile",
         "tomllib", "tomli", "yaml", "git"}
PROBE = """
import sys
before = set(sys.modules)
from lets_hooks.cli.hooks import main
main(sys.argv[1:])
print(" ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("args", [["post-checkout", "0", "0", "1"],
                                  ["post-rewrite", "amend"],
                                  ["pre-push", "origin", "url"]])
def test_hook_imports_stay_light(tmp_path: Path, args: list[str]) -> None:
    box = make(tmp_path)
    box.sh("checkout", "-q", "-b", "feat", sid=SID)
    stdin = f"refs/heads/feat {box.head()} refs/heads/feat {'0' * 40}\n" if (
        args[0] == "pre-push") else ""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=box.path, input=stdin,
                          capture_output=True, text=True, check=True,
                          env=box.environ(SID))
    added = set(done.stdout.split())
    assert "lets_hooks.hooks" in added
    assert not added & HEAVY, added & HEAVY
