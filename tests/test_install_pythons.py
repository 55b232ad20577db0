"""The shims after the Python under lets-hooks changed: the real pipx, two real Pythons.

``pipx reinstall --python 3.12`` (what ``pipx reinstall-all`` does after a Python upgrade)
rebuilds the virtual environment at the same path: the shim's Python is there again, but
the folders it imported lets-hooks from are not. Skipped where two Python versions, or
pipx, cannot be had.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SID
from hookbox import make
from managers import bare_remote

from lets_hooks.install import HOOKS

ROOT = Path(__file__).resolve().parent.parent


def pythons() -> list[str]:
    """Two or more interpreters of different minor versions (3.9 and later)."""
    home = pwd.getpwuid(os.getuid()).pw_dir
    found: dict[str, str] = {}
    candidates = [shutil.which(f"python3.{minor}") for minor in range(9, 15)]
    candidates += sorted(glob.glob(os.path.join(home, ".pyenv", "versions", "3.*", "bin",
                                                "python3.*[0-9]")))
    for path in candidates:
        if not path or not os.access(path, os.X_OK):
            continue
        done = subprocess.run([path, "-c", "import sys, venv; print(sys.version_info[1])"],
                              capture_output=True, text=True, check=False)
        minor = done.stdout.strip()
        if done.returncode == 0 and minor.isdigit() and int(minor) >= 9 and minor not in found:
            found[minor] = path
    return [found[m] for m in sorted(found, key=int)]


@pytest.fixture(scope="session")
def pipx(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A pipx command: this interpreter's, or one pip-installed into a new venv."""
    import importlib.util

    if importlib.util.find_spec("pipx") is not None:
        return [sys.executable, "-m", "pipx"]
    venv = tmp_path_factory.mktemp("pipx") / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True,
                          text=True, check=False)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pipx"],
                          capture_output=True, text=True, check=False, timeout=600)
    if made.returncode != 0 or done.returncode != 0:
        pytest.skip(f"pipx could not be installed: {(made.stderr + done.stderr)[-300:]}")
    return [str(venv / "bin" / "python"), "-m", "pipx"]


def source_copy(where: Path) -> Path:
    """The package's sources, so that building them writes nothing into this checkout."""
    for name in ("setup.cfg", "setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, where / name)
    shutil.copytree(ROOT / "lets_hooks", where / "lets_hooks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return where


def test_pipx_reinstall_with_another_python_keeps_the_hooks_running(
        pipx: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a PYTHONPATH naming a checkout would let the hooks import lets_hooks from there, and
    # the reinstalled venv's lost folders would never show
    monkeypatch.delenv("PYTHONPATH", raising=False)
    found = pythons()
    if len(found) < 2:
        pytest.skip("two Python versions (3.9 or later) are needed")
    first, second = found[-2], found[-1]
    home = tmp_path / "pipx-home"
    env = {**os.environ, "PIPX_HOME": str(home / "home"), "PIPX_BIN_DIR": str(home / "bin"),
           "PIPX_MAN_DIR": str(home / "man"), "PIPX_DEFAULT_PYTHON": first}
    (tmp_path / "src").mkdir()
    source = source_copy(tmp_path / "src")

    def run_pipx(*args: str) -> None:
        done = subprocess.run([*pipx, *args], env=env, capture_output=True, text=True,
                              check=False, timeout=900)
        if done.returncode != 0:
            pytest.skip(f"pipx {args[0]} failed: {done.stderr.strip()[-300:]}")

    run_pipx("install", "--python", first, str(source))
    bin_dir = home / "bin"
    path = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    box = make(tmp_path)
    installed = subprocess.run([str(bin_dir / "lets-hooks"), "install"], cwd=box.path,
                               env={**os.environ, **path}, capture_output=True, text=True,
                               check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "py=" + str(home / "home" / "venvs" / "lets-hooks" / "bin" / "python") in (
        box.path / ".git" / "hooks" / "post-checkout").read_text()

    run_pipx("reinstall", "--python", second, "lets-hooks")
    venv_python = home / "home" / "venvs" / "lets-hooks" / "bin" / "python"
    version = subprocess.run([str(venv_python), "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, check=True).stdout
    assert version.startswith(subprocess.run(
        [second, "-c", "import sys; print(sys.version)"], capture_output=True, text=True,
        check=True).stdout.strip())  # the same path, now another Python

    # every hook still runs, and says nothing
    done = box.sh("checkout", "-q", "-b", "feat", sid=SID, extra=path)
    assert done.stderr == ""
    assert box.line("feat") == f"{box.head()} {SID}"
    box.file_commit("a.txt", "a\n", sid=SID)  # the session's, so its amend is too
    done = box.sh("commit", "-q", "--amend", "-m", "amended", sid=SID, extra=path)
    assert done.stderr == ""
    bare_remote(box, tmp_path)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    done = box.sh("push", "-q", "origin", "feat", sid=SID, extra=path)
    assert "lets-hooks: pre-push: branch 'feat'" in done.stderr  # pre-push ran and warned

    # doctor: the hooks run, through the rebuilt venv's own site; install again to refresh
    doctor = subprocess.run([str(bin_dir / "lets-hooks"), "doctor", "--json"], cwd=box.path,
                            env={**os.environ, **path, "LETS_SESSION_ID": SID},
                            capture_output=True, text=True, check=False)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.returncode == 1
    for hook in HOOKS:
        assert checks[hook]["status"] == "warn"
        assert "the folders it imports lets-hooks from are gone" in checks[hook]["text"]
        assert checks[hook]["fix"] == "lets-hooks install"
    again = subprocess.run([str(bin_dir / "lets-hooks"), "install"], cwd=box.path,
                           env={**os.environ, **path}, capture_output=True, text=True,
                           check=False)
    assert again.returncode == 0
    doctor = subprocess.run([str(bin_dir / "lets-hooks"), "doctor"], cwd=box.path,
                            env={**os.environ, **path, "LETS_SESSION_ID": SID},
                            capture_output=True, text=True, check=False)
    assert doctor.returncode == 0, doctor.stdout
