"""``lets-hooks status``: the ladder's answer for every branch, in a fixed number of git
processes."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import OTHER, SID, isolate
from hookbox import HookBox, git_version, make, with_remote

from lets_hooks import config, ladder, status
from lets_hooks.repo import Repo

GIT_PROCESSES = 5  # rev-parse, for-each-ref, worktree list, cat-file, rev-list
if git_version() < (2, 36):
    GIT_PROCESSES += 1  # no `worktree list -z` before 2.36: asked again without it


def per_branch(box: HookBox, branch: str, current: bool, sid: str | None) -> dict[str, str]:
    """The contract command's answer for one branch, the ordinary way."""
    args = () if current else ("--branch", branch)
    env = {"LETS_SESSION_ID": sid} if sid else None
    return box.boundary(*args, env=env)


def assert_same_as_the_ladder(box: HookBox, sid: str | None) -> list[status.Row]:
    env = {"LETS_SESSION_ID": sid} if sid else {}
    table, repo = status.rows(str(box.path), env, int(time.time()))
    # + at most a criss-cross pick, the witness's question of git (does a boundary reach
    # the session's own commits on another branch), and the merge branch's own line where
    # a range holds commits of it (its first parents above a boundary; is a commit on it):
    # a few, not one a branch
    assert repo.calls <= GIT_PROCESSES + 6, repo.calls
    for row in table:
        fields = per_branch(box, row.branch, row.current, sid)
        b = row.boundary
        assert b.lines() == [f"{k}={fields[k]}" for k in (
            "SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC")], (
            row.branch)
    return table


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    made = with_remote(tmp_path)
    made.sh("remote", "set-head", "origin", "main")
    return made


@pytest.fixture(scope="module")
def every_kind_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``every_kind_of_branch`` built once for the module (a few dozen git commands with
    their hooks); each test gets a copy (``kinds``)."""
    where = tmp_path_factory.mktemp("every-kind")
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, tmp_path_factory.mktemp("home"))
        made = with_remote(where)
        made.sh("remote", "set-head", "origin", "main")
        every_kind_of_branch(made)
        made.repo.close()
    return where


@pytest.fixture
def kinds(every_kind_template: Path, tmp_path: Path) -> HookBox:
    """A copy of the module's ``every_kind_of_branch`` repository, this test's own."""
    shutil.copytree(every_kind_template, tmp_path / "copy", symlinks=True)
    return HookBox(tmp_path / "copy" / "work")


def every_kind_of_branch(box: HookBox) -> None:
    # exact: this session's line
    box.sh("checkout", "-q", "-b", "exact", "main", sid=SID)
    box.file_commit("e.txt", "e\n", sid=SID)
    # prior-session: another session's line
    box.sh("checkout", "-q", "-b", "prior", "main", sid=OTHER)
    box.file_commit("p.txt", "p\n", sid=OTHER)
    # estimate: nothing recorded, and a merge of main into it
    box.sh("checkout", "-q", "-b", "estimate", "main")
    box.file_commit("x.txt", "x\n")
    # rejected: not a commit / not an ancestor / predates the branch point / too old
    box.sh("checkout", "-q", "-b", "not-commit", "main")
    box.write_task("not-commit", "session: " + "c" * 40 + f" {SID}\n")
    box.sh("checkout", "-q", "-b", "not-ancestor", "main")
    box.write_task("not-ancestor", f"session: {box.rev('exact')} {SID}\n")
    box.sh("checkout", "-q", "-b", "predates", "main")
    box.file_commit("q.txt", "q\n")
    box.write_task("predates", f"session: {box.rev('main~1')} {SID}\n")
    box.sh("checkout", "-q", "-b", "too-old", "main~1")
    box.write_task("too-old", f"session: {box.rev('main~1')} {SID}\n")
    # abbreviated, legacy, malformed
    box.sh("checkout", "-q", "-b", "short", "main", sid=SID)
    box.file_commit("s.txt", "s\n", sid=SID)
    box.write_task("short", f"session: {box.rev('main')[:9]} {SID}\n")
    box.sh("checkout", "-q", "-b", "legacy", "main")
    box.task("legacy").unlink()
    (box.sessions() / ".session-start-ref-legacy").write_text(box.head() + "\n")
    box.sh("checkout", "-q", "-b", "malformed", "main")
    box.write_task("malformed", "session: NOT-HEX\n")
    # main moves on; a branch merges it in; a criss-cross pair
    box.sh("checkout", "-q", "main")
    box.file_commit("m2.txt", "m2\n")
    box.sh("checkout", "-q", "estimate")
    box.sh("merge", "-q", "--no-edit", "main")
    box.sh("checkout", "-q", "-b", "cross-a", "main~1")
    box.file_commit("ca.txt", "a\n")
    box.sh("checkout", "-q", "-b", "cross-b", "main")
    box.file_commit("cb.txt", "b\n")
    box.sh("merge", "-q", "--no-edit", "cross-a")
    box.sh("checkout", "-q", "cross-a")
    box.sh("merge", "-q", "--no-edit", "main")
    box.sh("checkout", "-q", "exact", sid=SID)
    box.task("estimate").unlink()
    box.task("main").unlink()


@pytest.mark.parametrize("sid", [SID, None])
def test_every_row_is_the_ladders_answer(kinds: HookBox, sid: str | None) -> None:
    box = kinds
    table = assert_same_as_the_ladder(box, sid)
    trusts = {row.branch: row.boundary.trust for row in table}
    assert trusts["exact"] == ("exact" if sid else "prior-session")
    assert trusts["estimate"] == "estimate"
    reasons = {row.branch: row.boundary.reason or "" for row in table}
    assert reasons["not-commit"] == "not a commit in this repository"
    assert reasons["not-ancestor"].startswith("not an ancestor of HEAD")
    assert reasons["predates"] == "older than this branch's point off main"
    assert reasons["too-old"].startswith("30 days old")
    assert {trusts[b] for b in reasons if reasons[b]} == {"estimate"}  # the fallback


def test_the_table(kinds: HookBox) -> None:
    box = kinds
    done = box.run("lets-hooks", "status", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["BRANCH", "BOUNDARY", "TRUST", "COMMITS", "WHY"]
    rows = {line[2:].split()[0]: line for line in lines[1:]}
    assert rows["exact"].startswith("* exact ")
    assert rows["exact"].split()[2:5] == [box.rev("exact~1")[:12], "exact", "1"]
    assert "rejected: not a commit in this repository" in rows["not-commit"]
    assert "estimated from the branch point off main" in rows["estimate"]
    assert rows["main"].split() == ["main", "none", "none", "-", "nothing", "recorded"]
    done = box.run("lets-hooks", "status", "--json")
    data = json.loads(done.stdout)
    assert {d["branch"] for d in data} == set(rows)
    assert next(d for d in data if d["branch"] == "exact")["current"] is True


def test_colliding_slugs_and_other_worktrees(box: HookBox, tmp_path: Path) -> None:
    box.sh("checkout", "-q", "-b", "feat-x", sid=SID)
    box.sh("branch", "feat/x")
    linked = tmp_path / "linked"
    box.sh("worktree", "add", "-q", "-b", "wt", str(linked), sid=SID)
    table, _ = status.rows(str(box.path), {"LETS_SESSION_ID": SID}, int(time.time()))
    by = {row.branch: row for row in table}
    assert by["feat/x"].shares_with == ["feat-x"] and by["feat-x"].shares_with == ["feat/x"]
    assert "shares .task-feat-x with 'feat-x'" in by["feat/x"].reason()
    assert by["wt"].boundary.trust == "exact"  # read from the linked work tree's .lets
    assert by["wt"].top == str(linked)


def test_a_shared_task_file_is_said_by_the_contract_and_its_advice_works(tmp_path: Path
                                                                          ) -> None:
    """``feat-x``'s line, written while it was the only one of the two, is what ``feat/x``
    reads too. An exact answer is checked against the ledger wherever its line came from
    (the ladder's ``_checked``): here the session's own commits on ``feat/x`` are counted
    exactly. Any other answer says the line may be the other branch's, and advises the
    rename first, since a record is refused while the two share the file."""
    box = make(tmp_path)
    box.install()
    box.sh("switch", "-q", "-c", "feat-x", sid=SID)
    box.file_commit("a.txt", "a\n", "on feat-x", sid=SID)
    box.sh("switch", "-q", "-c", "feat/x", sid=SID)  # carried from feat-x (refused: shared)
    box.file_commit("b.txt", "b\n", "on feat/x", sid=SID)
    mine = box.boundary(env={"LETS_SESSION_ID": SID})
    assert (mine["SESSION_TRUST"], mine["SESSION_COMMITS"]) == ("exact", "2")
    done = box.run("lets-session-boundary", env={"LETS_SESSION_ID": OTHER})
    assert "SESSION_TRUST=prior-session" in done.stdout
    assert ("branch 'feat/x' shares .task-feat-x with 'feat-x' ('/' and '-' read alike): "
            "the line read may be that branch's") in done.stderr
    assert "first rename one of the branches that share its task file" in done.stderr
    refused = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER})
    assert refused.returncode != 0 and "share the state file" in refused.stderr
    box.sh("branch", "-m", "feat-x", "feat-x-old")  # the advice, followed
    box.task("feat/x").rename(box.task("feat-x-old"))
    assert box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER}).returncode == 0
    again = box.run("lets-session-boundary", env={"LETS_SESSION_ID": OTHER})
    assert "SESSION_TRUST=exact" in again.stdout and "shares" not in again.stderr


def test_the_hooks_advice_under_a_shared_task_file_renames_first(tmp_path: Path) -> None:
    """The session's first touch of ``feat/x`` is not recorded while ``feat-x`` shares its
    task file; pre-push's advice names the rename before the record (a bare record is
    refused), and followed, it gives the exact answer."""
    box = make(tmp_path)
    box.install()
    box.sh("branch", "feat-x")
    start = box.head()
    box.sh("switch", "-q", "-c", "feat/x", sid=SID)
    box.file_commit("b.txt", "b\n", "on feat/x", sid=SID)
    remote = tmp_path / "remote.git"
    box.sh("init", "-q", "--bare", str(remote))
    box.sh("remote", "add", "origin", str(remote))
    pushed = box.sh("push", "-q", "origin", "feat/x", sid=SID)
    assert ("Fix: rename one of the branches 'feat/x', 'feat-x' (they share a task file), "
            "then: lets-hooks record --at REV") in pushed.stderr, pushed.stderr
    env = {"LETS_SESSION_ID": SID}
    assert box.run("lets-hooks", "record", "--at", start, env=env).returncode != 0
    box.sh("branch", "-m", "feat-x", "feat-x-old")  # the advice, followed
    assert box.run("lets-hooks", "record", "--at", start, env=env).returncode == 0
    mine = box.boundary(env=env)
    assert (mine["SESSION_TRUST"], mine["SESSION_COMMITS"]) == ("exact", "1")


def test_outside_a_repository(tmp_path: Path) -> None:
    box = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    done = box.run("lets-hooks", "status", cwd=outside)
    assert (done.returncode, done.stderr) == (1, "lets-hooks status: not inside a git repository\n")


def thousand_branches(path: Path, branches: int = 1000, seed: int = 7) -> list[str]:
    """main with 300 commits; ``branches`` branches of 1-3 commits off random points of it,
    half of them with a recorded boundary. Built with one fast-import."""
    rng = random.Random(seed)
    now = int(time.time()) - 3600
    out = ["reset refs/heads/main\n"]
    for n in range(1, 301):
        out.append(f"commit refs/heads/main\nmark :{n}\n"
                   f"committer T <t@example.com> {now - 400 + n} +0000\ndata 2\nm\n")
        if n > 1:
            out.append(f"from :{n - 1}\n")
    mark = 300
    starts = {}
    for b in range(branches):
        base = rng.randint(250, 300)
        name = f"topic/{b:04d}"
        out.append(f"reset refs/heads/{name}\nfrom :{base}\n")
        for _ in range(rng.randint(1, 3)):
            mark += 1
            out.append(f"commit refs/heads/{name}\nmark :{mark}\n"
                       f"committer T <t@example.com> {now} +0000\ndata 2\nb\n")
        starts[name] = base
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"],
                   input="".join(out).encode(), check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "main"], check=True)
    names = sorted(starts)
    shas = subprocess.run(["git", "-C", str(path), "rev-parse",
                           *[f"{n}~1" for n in names[::2]]],
                          check=True, capture_output=True, text=True).stdout.split()
    sessions = path / ".lets" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    for name, sha in zip(names[::2], shas):
        (sessions / (".task-" + name.replace("/", "-"))).write_text(f"session: {sha} {SID}\n")
    return names


def test_a_thousand_branches_cost_the_same_five_git_processes(tmp_path: Path) -> None:
    path = tmp_path / "many"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    names = thousand_branches(path)
    table, repo = status.rows(str(path), {"LETS_SESSION_ID": SID}, int(time.time()))
    assert len(table) == 1001
    assert repo.calls == GIT_PROCESSES  # the work, counted: not one process per branch
    without_session, again = status.rows(str(path), {}, int(time.time()))
    assert again.calls == GIT_PROCESSES and len(without_session) == 1001
    # a sample of rows against the ladder run the ordinary way, one branch at a time
    by = {row.branch: row for row in table}
    settings = config.load(str(path), {})
    for name in random.Random(1).sample(names, 40):
        one = Repo(str(path))
        expected = ladder.resolve(one, settings, SID, int(time.time()), branch=name,
                                  head="refs/heads/" + name)
        assert by[name].boundary.lines() == expected.lines(), name
    trusts = {row.boundary.trust for row in table}
    assert trusts == {"exact", "estimate", "none"}


def test_the_ledger_is_parsed_once_for_every_branch(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A hundred branches whose lines carry no mark (written before marks, or by hand) each
    need the whole ledger: it is parsed once, not once a branch (1,000 branches over a
    10,000-line ledger took 12 s: ``benchmarks/bench_hooks.py``, status)."""
    from lets_hooks import ledger

    path = tmp_path / "many"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    thousand_branches(path, branches=100)
    tips = subprocess.run(["git", "-C", str(path), "for-each-ref", "--format=%(objectname)",
                           "refs/heads/topic/"], check=True, capture_output=True,
                          text=True).stdout.split()
    folder = path / ".git" / ledger.FOLDER
    folder.mkdir()
    (folder / ledger.NAME).write_text("".join(f"c {sha} {SID}\n" for sha in tips))
    parsed: list[int] = []
    parse = ledger.parse

    def counted_parse(data: bytes) -> ledger.Ledger:
        parsed.append(len(data))
        return parse(data)

    monkeypatch.setattr(ledger, "parse", counted_parse)
    monkeypatch.setattr(ledger, "_last_whole", None, raising=False)
    table, _ = status.rows(str(path), {"LETS_SESSION_ID": SID}, int(time.time()))
    assert len(table) == 101 and any(row.boundary.trust == "exact" for row in table)
    assert len(parsed) == 1


def _status_output(box: HookBox, terminal: bool, no_color: str | None) -> bytes:
    """``lets-hooks status`` with stdout on a pseudo-terminal or a pipe."""
    import os
    import pty

    from helpers import BIN

    env = dict(os.environ, LETS_SESSION_ID=SID)
    env.pop("NO_COLOR", None)
    if no_color is not None:
        env["NO_COLOR"] = no_color
    if not terminal:
        return subprocess.run([str(BIN / "lets-hooks"), "status"], cwd=box.path, env=env,
                              capture_output=True, check=True).stdout
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([str(BIN / "lets-hooks"), "status"], cwd=box.path, env=env,
                                stdout=follower, stderr=subprocess.DEVNULL)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(leader)
    return b"".join(chunks)


def test_trust_is_coloured_only_on_a_terminal_without_no_color(kinds: HookBox) -> None:
    box = kinds
    """no-color.org: any non-empty NO_COLOR turns colour off; an empty one is as if unset."""
    assert b"\x1b[32mexact\x1b[0m" in _status_output(box, terminal=True, no_color=None)
    assert b"\x1b[32mexact\x1b[0m" in _status_output(box, terminal=True, no_color="")
    assert b"\x1b[" not in _status_output(box, terminal=True, no_color="1")
    assert b"\x1b[" not in _status_output(box, terminal=True, no_color="0")
    assert b"\x1b[" not in _status_output(box, terminal=False, no_color=None)


def json_answer(box: HookBox, branch: str, current: bool) -> dict[str, object]:
    args = ["--json"] if current else ["--json", "--branch", branch]
    done = box.run("lets-session-boundary", *args, env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


WITNESSED = ("boundary", "trust", "commits", "desc", "excluded", "elsewhere", "witness",
             "reason")


@pytest.mark.parametrize("seed", range(4))
def test_rows_agree_with_the_contract_command_witness_included(box: HookBox, tmp_path: Path,
                                                               seed: int) -> None:
    """Random work on a few branches (the session's commits, a teammate's pushed and
    pulled, a teammate's branch merged in, main merged in, a rebase): every row's answer,
    what it counts and what it leaves out, and the session's commits, are the contract
    command's."""
    rng = random.Random(seed)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 2))
    mate_path = tmp_path / "mate"
    box.sh("clone", "-q", str(tmp_path / "remote.git"), str(mate_path))
    mate = HookBox(mate_path)  # opens the clone (init on an existing repository)
    mate.sh("config", "user.name", "Teammate")
    mate.sh("config", "user.email", "mate@example.com")
    branches = ["one", "two", "three"]
    for name in branches:
        box.sh("checkout", "-q", "-b", name, "main")
        box.write_task(name, f"session: {box.head()} {SID}\n"
                             f"session-recorded: {box.head()} {stamp}\n")
        box.file_commit(f"{name}.txt", f"{name}\n", sid=SID)
        box.sh("push", "-q", "-u", "origin", name)
    for step in range(8):
        name = rng.choice(branches)
        box.sh("checkout", "-q", name)
        move = rng.choice(["commit", "pulled", "lib", "main", "rebase"])
        if move == "commit":
            box.file_commit(f"{name}-{step}.txt", f"{step}\n", sid=SID)
        elif move == "pulled":
            box.sh("push", "-q", "--force", "origin", name)
            mate.sh("fetch", "-q", "origin")
            mate.sh("checkout", "-q", "-B", name, f"origin/{name}")
            mate.file_commit(f"mate-{step}.txt", f"{step}\n")
            mate.sh("push", "-q", "origin", name)
            box.sh("pull", "-q", "--ff-only", "origin", name, sid=SID)
        elif move == "lib":
            mate.sh("checkout", "-q", "-B", f"lib{step}", "origin/main")
            mate.file_commit(f"lib-{step}.txt", f"{step}\n")
            mate.sh("push", "-q", "origin", f"lib{step}")
            box.sh("fetch", "-q", "origin")
            box.sh("merge", "-q", "--no-ff", "--no-edit", f"origin/lib{step}", sid=SID)
        elif move == "main":
            mate.sh("checkout", "-q", "-B", "main", "origin/main")
            mate.file_commit(f"main-{step}.txt", f"{step}\n")
            mate.sh("push", "-q", "origin", "main")
            box.sh("fetch", "-q", "origin")
            box.sh("merge", "-q", "--no-edit", "origin/main", sid=SID)
        else:
            box.sh("rebase", "-q", "-i", "--force-rebase", "HEAD~1", sid=SID,
                   extra={"GIT_SEQUENCE_EDITOR": "true",
                          "GIT_COMMITTER_DATE": f"@{int(time.time()) + 60} +0000"})
    table, _ = status.rows(str(box.path), {"LETS_SESSION_ID": SID}, int(time.time()))
    for row in table:
        data = json_answer(box, row.branch, row.current)
        mine = row.as_dict()
        assert {k: mine[k] for k in WITNESSED} == {k: data[k] for k in WITNESSED}, row.branch
        listed = mine["session_commits"]
        theirs = data["session_commits"]
        assert isinstance(listed, dict) and isinstance(theirs, dict)
        assert sorted(listed["items"]) == sorted(theirs["items"]), row.branch
    counted = {row.branch: row.boundary for row in table}
    # the session ledger vouches for the session's, HEAD's log says where the rest are from
    assert all(counted[b].witness in ("ledger", "reflog") for b in branches), {
        b: (counted[b].witness, counted[b].trust, counted[b].notes) for b in branches}
