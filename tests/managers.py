"""Hook set-ups the install tests build: a layout like husky's (9 and 8), a ``git`` that
answers ``rev-parse --path-format`` as git before 2.31 does, a bare remote, and hooks that
a team would write (one that records what it saw, one that blocks)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hookbox import HookBox

HOOK_NAMES = ("pre-commit", "post-checkout", "post-rewrite", "pre-push", "post-commit",
              "post-merge", "post-applypatch")  # husky lays a stub for every git hook

# husky 9 as far as git sees it: core.hooksPath=.husky/_, one stub per hook that sources
# `h`, and `h` running the user's .husky/<hook> with `sh -e` when that file exists.
HUSKY9_H = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
[ "${HUSKY-}" = "0" ] && exit 0
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
"""
HUSKY9_STUB = '#!/usr/bin/env sh\n. "${0%/*}/h"'

# husky 8: core.hooksPath=.husky; git runs .husky/<hook> itself, whose second line
# sources _/husky.sh, which runs the same file again with `sh -e`.
HUSKY8_SH = """#!/usr/bin/env sh
if [ -z "$husky_skip_init" ]; then
  readonly husky_skip_init=1
  export husky_skip_init
  sh -e "$0" "$@"
  exitCode="$?"
  exit $exitCode
fi
"""


def fake_husky(box: HookBox, version: int = 9) -> Path:
    """Lay out husky ``version`` as its install does (what `npm install` re-runs);
    returns the user hook folder, .husky."""
    user = box.path / ".husky"
    stubs = user / "_"
    if stubs.exists():
        shutil.rmtree(stubs)
    stubs.mkdir(parents=True)
    (stubs / ".gitignore").write_text("*")
    if version >= 9:
        (stubs / "h").write_text(HUSKY9_H)
        for hook in HOOK_NAMES:
            (stubs / hook).write_text(HUSKY9_STUB)
            (stubs / hook).chmod(0o755)
        box.sh("config", "core.hooksPath", ".husky/_")
    else:
        (stubs / "husky.sh").write_text(HUSKY8_SH)
        box.sh("config", "core.hooksPath", ".husky")
    return user


def team_hook(path: Path, body: str, version: int = 9) -> None:
    """A user hook as a team writes it for husky ``version``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if version >= 9:
        path.write_text(body)
    else:
        path.write_text('#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\n' + body)
        path.chmod(0o755)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and mode."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = (path.read_bytes(), path.stat().st_mode)
    return found


def bare_remote(box: HookBox, tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    return remote


def old_git(folder: Path) -> dict[str, str]:
    """An environment whose ``git`` answers ``rev-parse --path-format=...`` as git 2.30
    does: it prints the option back as a line of output, exit status 0, and the paths
    after it as if the option were not there (relative)."""
    real = shutil.which("git")
    assert real
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / "git"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = rev-parse ]; then
  n=$#
  for a in "$@"; do
    case $a in --path-format=*) printf '%s\\n' "$a" ;; *) set -- "$@" "$a" ;; esac
  done
  shift "$n"
fi
exec '{real}' "$@"
""")
    wrapper.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def git_at_least(major: int, minor: int) -> dict[str, str]:
    """An environment whose ``git`` is ``major.minor`` or newer: the git on PATH when it
    is, else the one in ``LETS_TEST_NEW_GIT`` (a folder; CI puts Debian's newest git
    there); the test is skipped when neither is."""
    import re
    import subprocess
    import sys

    import pytest

    bin_dir = os.path.dirname(sys.executable)
    for folder in ("", os.environ.get("LETS_TEST_NEW_GIT", "")):
        path = os.pathsep.join(p for p in (folder, bin_dir, os.environ.get("PATH", "")) if p)
        if folder == "" and not os.environ.get("PATH"):
            continue
        git = shutil.which("git", path=path)
        if git is None:
            continue
        done = subprocess.run([git, "--version"], capture_output=True, text=True, check=False)
        found = re.search(r"(\d+)\.(\d+)", done.stdout)
        if found and (int(found.group(1)), int(found.group(2))) >= (major, minor):
            return {"PATH": path}
    pytest.skip(f"needs git {major}.{minor} or newer (set LETS_TEST_NEW_GIT to a folder "
                "holding one)")
