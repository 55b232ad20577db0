"""How git's answers come back: through memory files where the system has them (Linux),
through ``subprocess`` elsewhere. Both ways give the same answers, whole, for long outputs and for
inputs larger than a pipe holds, and say git's reason when it fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lets_hooks import repo as repo_module
from lets_hooks.repo import GitError, GitMissing, Location, Repo

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


def listed_with(history: Path, monkeypatch: pytest.MonkeyPatch,
                memory: bool) -> tuple[Repo, str, list[str]]:
    """A ``Repo`` of ``history`` whose answers come through memory files or ``subprocess``, its
    HEAD and every commit (two processes)."""
    if memory and not repo_module._MEMFD:
        pytest.skip("no memory files on this system")
    monkeypatch.setattr(repo_module, "_MEMFD", memory)
    repo = Repo(str(history))
    head = repo.locate().head
    assert head is not None
    return repo, head, repo.listing(head, [])


@pytest.mark.parametrize("memory", [True, False], ids=["memory-files", "subprocess"])
def test_long_answers_and_large_inputs_come_back_whole(
        history: Path, monkeypatch: pytest.MonkeyPatch, memory: bool) -> None:
    repo, head, listed = listed_with(history, monkeypatch, memory)
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


def test_an_answer_a_single_read_cuts_short_is_read_on(
        history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One read of a file returns at most about 2 GiB on Linux: an answer longer than what
    one read gives is read on from where it stopped, never taken cut short (here each read
    gives at most 4,096 bytes of a 123 KB listing)."""
    if not repo_module._MEMFD:
        pytest.skip("no memory files on this system")
    whole = os.pread
    reads: list[int] = []

    def short(fd: int, size: int, offset: int) -> bytes:
        reads.append(offset)
        return whole(fd, min(size, 4096), offset)

    repo, head, listed = listed_with(history, monkeypatch, True)
    monkeypatch.setattr(os, "pread", short)
    assert repo.listing(head, []) == listed and len(listed) == COMMITS
    assert len(reads) > 30  # read on, 4,096 bytes at a time


def test_memory_files_refused_fall_back_to_subprocess(
        history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A system whose Python has ``memfd_create`` but refuses it (a sandbox's seccomp, an
    old kernel) still gets every answer: through ``subprocess``, from the first refusal on."""
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
    repo.prepare_locate()  # nothing started beside: asked in turn instead
    assert repo._where is None
    assert repo.locate().head == head
    assert repo.merge_bases(head, head) == [head]


def _fields(where: Location) -> tuple[str | None, ...]:
    return where.top, where.git_dir, where.branch, where.head, where.origin_head


@pytest.mark.parametrize("memory", [True, False], ids=["memory-files", "subprocess"])
def test_a_prepared_cat_file_answers_as_one_asked_then(
        history: Path, monkeypatch: pytest.MonkeyPatch, memory: bool) -> None:
    """``prepare_objects`` starts the next ``objects``'s cat-file before its names are
    known: the answers are the same, a 126 KB batch of names included (written to it
    through a pipe as it answers), one process either way, and none is left behind."""
    plain, head, listed = listed_with(history, monkeypatch, memory)
    names = [*listed, "refs/heads/main", "refs/heads/no-such-branch", "HEAD^{commit}"]
    expected = [(i.name, i.sha, i.type, i.commit_time) for i in plain.objects(names)]
    prepared = Repo(str(history))
    prepared.prepare_objects()
    prepared.prepare_locate()  # "where are we" asked before it is wanted, too
    where = prepared.locate()
    assert _fields(where) == _fields(plain.locate()) and where.head == head
    found = [(i.name, i.sha, i.type, i.commit_time) for i in prepared.objects(names)]
    assert found == expected
    assert prepared.calls == 2  # where are we, and the one cat-file
    again = prepared.objects(["refs/heads/main"])  # the next asks in turn
    assert again[0].sha == head and prepared.calls == 3
    assert _fields(prepared.locate()) == _fields(where) and prepared.calls == 4  # again
    dropped = Repo(str(history))
    dropped.prepare_objects()
    dropped.prepare_locate()
    dropped.drop_prepared()  # never asked: stopped and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("state", ["detached", "not a repository", "answered"])
def test_the_contract_command_leaves_no_git_process_behind(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str) -> None:
    """The contract command prepares its cat-file before it knows whether it will ask
    it: where it never does (a detached HEAD, no repository) it is stopped and reaped."""
    from lets_hooks.cli import boundary

    where = history
    if state == "not a repository":
        where = tmp_path / "plain"
        where.mkdir()
        monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    elif state == "detached":
        subprocess.run(["git", "checkout", "-q", "--detach"], cwd=history, check=True)
    else:  # a topic off main: nothing recorded, so estimated (cat-file asked)
        subprocess.run(["git", "checkout", "-q", "-B", "topic", "main~5"], cwd=history,
                       check=True)
    monkeypatch.chdir(where)
    try:
        result, _ = boundary.compute([])
    finally:
        subprocess.run(["git", "checkout", "-q", "main"], cwd=history, check=True)
    expected = {"detached": "none", "not a repository": "none", "answered": "estimate"}
    assert result.trust == expected[state], result.lines()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("memory", [True, False], ids=["memory-files", "subprocess"])
def test_a_folder_that_is_gone_is_gits_to_say_not_git_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: bool) -> None:
    """Either transport runs git with ``-C``: a working folder removed under a command is
    git's own failure, never "git is not installed"."""
    if memory and not repo_module._MEMFD:
        pytest.skip("no memory files on this system")
    monkeypatch.setattr(repo_module, "_MEMFD", memory)
    with pytest.raises(GitError) as raised:
        Repo(str(tmp_path / "gone")).locate()
    assert not isinstance(raised.value, GitMissing), raised.value
