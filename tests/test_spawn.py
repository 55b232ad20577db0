"""How git's answers come back: through memory files where the system has them (Linux),
through pipes elsewhere. Both ways give the same answers, whole, for long outputs and for
inputs larger than a pipe holds, and say git's reason when it fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lets_hooks import repo as repo_module
from lets_hooks.repo import GitError, Repo

COMMITS = 3000  # a listing of 123 KB and a batch of names of 126 KB: past any pipe's buffer


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository of ``COMMITS`` commits on main, made with fast-import (each commit
    of a branch continues from the one before)."""
    path = tmp_path_factory.mktemp("spawn") / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    stream = []
    for n in range(COMMITS):
        message = f"commit {n}\n".encode()
        stream.append(b"commit refs/heads/main\n"
                      + f"committer T <t@example.com> {1_700_000_000 + n} +0000\n".encode()
                      + f"data {len(message)}\n".encode() + message + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(stream),
                   check=True)
    return path


@pytest.mark.parametrize("memory", [True, False], ids=["memory-files", "pipes"])
def test_long_answers_and_large_inputs_come_back_whole(
        history: Path, monkeypatch: pytest.MonkeyPatch, memory: bool) -> None:
    if memory and not repo_module._MEMFD:
        pytest.skip("no memory files on this system")
    monkeypatch.setattr(repo_module, "_MEMFD", memory)
    repo = Repo(str(history))
    head = repo.locate().head
    assert head is not None
    listed = repo.listing(head, [])
    assert len(listed) == COMMITS and listed[0] == head
    # every commit's name on stdin (126 KB), answered one by one
    found = repo.objects(listed)
    assert [info.sha for info in found] == listed
    assert all(info.type == "commit" for info in found)
    assert found[-1].commit_time == 1_700_000_000
    # git's own reason for a failure, from its stderr
    with pytest.raises(GitError, match=r"bad revision|unknown revision|not a valid"):
        repo._must("rev-list", "no-such-revision")
    assert repo.calls == 4  # one process a question


def test_memory_files_refused_fall_back_to_pipes(
        history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A system whose Python has ``memfd_create`` but refuses it (a sandbox's seccomp, an
    old kernel) still gets every answer: through pipes, from the first refusal on."""
    if not repo_module._MEMFD:
        pytest.skip("no memory files on this system")

    def refused(name: str, flags: int = 0) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(repo_module, "_MEMFD", True)
    monkeypatch.setattr(os, "memfd_create", refused)
    repo = Repo(str(history))
    head = repo.locate().head
    assert head is not None
    assert repo_module._MEMFD is False
    assert len(repo.listing(head, [])) == COMMITS
    assert repo.start("merge-base", "--all", head, head) is None  # asked in turn instead
    assert repo.merge_bases(head, head) == [head]
