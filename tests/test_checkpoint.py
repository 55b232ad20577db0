"""``lets-session-checkpoint`` (lets_hooks/summary/checkpoint.py, lets_hooks/cli/checkpoint.py)
in real repositories: the block and the Range section it writes, what feeds ``diff`` (the
session's own commits only), every other byte kept, the guarded write, ``--hook`` and
``--json``, and the summary reading back what was written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, make, teammate, with_remote

from lets_hooks.cli.agent import hook_json
from lets_hooks.summary import checkpoint as ck
from lets_hooks.summary.sources.handoff import read_handoff

HANDOFF = "memory/session-handoff-LATEST.md"
TS = re.compile(r'^ts: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\r?$', re.M)


def start(box: HookBox, branch: str = "topic") -> str:
    box.sh("switch", "-q", "-c", branch, sid=SID)
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0, done.stderr
    return box.head()


def commit(box: HookBox, message: str, *, write: dict[str, str] | None = None,
           remove: tuple[str, ...] = (), move: tuple[str, str] | None = None,
           sid: str | None = SID) -> str:
    """A commit made by session ``sid`` (None: by no session, before this one)."""
    for name, text in (write or {}).items():
        path = box.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        box.sh("add", "--", name, sid=sid)
    for name in remove:
        box.sh("rm", "-q", "--", name, sid=sid)
    if move:
        box.sh("mv", "--", *move, sid=sid)
    box.sh("commit", "-q", "-m", message, sid=sid)
    return box.head()


def run(box: HookBox, *args: str, sid: str | None = SID, stdin: str = "",
        root: Path | None = None) -> tuple[int, str, str]:
    env = {"LETS_SESSION_ID": sid} if sid else {"LETS_SESSION_ID": ""}
    done = box.run("lets-session-checkpoint", *args, env=env, stdin=stdin,
                   cwd=root or box.path)
    return done.returncode, done.stdout, done.stderr


def handoff(box: HookBox) -> Path:
    return box.path / HANDOFF


def snapshot(box: HookBox) -> ck.Snapshot:
    read = read_handoff(box.path)
    assert read.value is not None and read.value.snapshot is not None, read.warnings
    return ck.snapshot_of(read.value.snapshot)


def four_lines(box: HookBox, sid: str | None = SID) -> list[str]:
    done = box.run("lets-session-boundary", env={"LETS_SESSION_ID": sid or ""})
    assert done.returncode == 0
    return done.stdout.splitlines()


def range_block(text: str) -> list[str]:
    """The lines of the fenced block the checkpoint owns (under its marker)."""
    section = text.split(ck.RANGE_MARKER, 1)[1]
    return section.split("```", 2)[1].strip("\r\n").replace("\r\n", "\n").split("\n")


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    box = make(tmp_path)
    box.install()
    return box


# -- what it writes ----------------------------------------------------------------------------

def test_the_block_and_the_range_of_a_session(box: HookBox) -> None:
    commit(box, "main: a file to change", write={"old.txt": "o\n", "keep.txt": "k\n",
                                                 "gone.txt": "g\n"}, sid=None)
    start(box)
    commit(box, "add the parser", write={"src/parse.py": "x = 1\n"})
    commit(box, "rename old, drop gone", move=("old.txt", "new.txt"), remove=("gone.txt",))
    commit(box, "touch keep and parser", write={"keep.txt": "k2\n", "src/parse.py": "x = 2\n"})
    code, out, err = run(box, "--next", "Wire the hook", "--next", "Write the skill",
                         "--next", "Third", "--blocked", "CI is down (risk: H)",
                         "--blocked", "a review", "--ctx", "parser work")
    assert code == 0, err
    lines = four_lines(box)
    assert lines[1] == "SESSION_TRUST=exact"
    assert out.splitlines()[1:] == lines
    text = handoff(box).read_text()
    assert text.startswith("---\nupdated: ")
    assert text.split("\n")[3] == ck.MARKER  # right after the frontmatter
    assert range_block(text) == lines
    got = snapshot(box)
    assert got.next == ("Wire the hook", "Write the skill", "Third")
    assert got.blocked == ({"item": "CI is down", "risk": "H"}, {"item": "a review", "risk": None})
    assert got.ctx == "parser work"
    assert TS.search(text)
    assert got.diff == (
        {"op": "changed", "item": "keep.txt", "why": "touch keep and parser"},
        {"op": "added", "item": "src/parse.py", "why": "touch keep and parser"},
        {"op": "removed", "item": "gone.txt", "why": "rename old, drop gone"},
        {"op": "renamed", "item": "old.txt → new.txt", "why": "rename old, drop gone"},
    )
    # the summary reads it back: Priority 1 and 2, the blockers, Recent changes
    done = box.run("lets-session-start", "--home", str(box.path / "no-home"))
    assert done.returncode == 0, done.stderr
    summary = done.stdout
    assert "**Priority 1:** Wire the hook" in summary
    assert "**Priority 2:** Write the skill" in summary
    assert "  - CI is down (risk: H)" in summary and "  - a review" in summary
    assert ("**Recent changes:** changed keep.txt (touch keep and parser); added src/parse.py"
            " (touch keep and parser); removed gone.txt (rename old, drop gone); renamed"
            " old.txt → new.txt (rename old, drop gone)") in summary


def test_the_next_session_sees_the_last_sessions_range(box: HookBox) -> None:
    """The range the last session's checkpoint wrote in the handoff is shown beside the
    new session's own (which starts at 0 commits), with its trust level, in the text and
    in --json."""
    boundary = start(box)
    commit(box, "one", write={"a.txt": "1\n"})
    commit(box, "two", write={"b.txt": "2\n"})
    assert run(box, "--next", "Go on")[0] == 0
    desc = f"session: {boundary}..HEAD (2 commits)"
    assert range_block(handoff(box).read_text())[3] == f"SESSION_RANGE_DESC={desc}"
    box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER})  # the next session
    env = {"LETS_SESSION_ID": OTHER}
    summary = box.run("lets-session-start", "--home", str(box.path / "no-home"), env=env)
    assert summary.returncode == 0, summary.stderr
    lines = summary.stdout.splitlines()
    assert lines[2] == f"**Session range:** session: {box.head()}..HEAD (0 commits)"
    assert lines[3] == f"**Last session:** {desc} (trust exact, from the handoff's Range)"
    done = box.run("lets-session-start", "--json", "--home", str(box.path / "no-home"),
                   env=env)
    assert json.loads(done.stdout)["last_session"] == {
        "boundary": boundary, "trust": "exact", "commits": "2", "desc": desc}


def test_the_range_section_is_no_item_of_the_section_before_it(box: HookBox) -> None:
    """The ``### Range`` section the checkpoint adds at the end was read as prose: an
    item "Range" of the section above it (here an open question), or, under no section,
    a warning that the reader cannot place it. It is read only as the last session's."""
    start(box)
    commit(box, "one", write={"a.txt": "1\n"})
    (box.path / "memory").mkdir()
    for body in ("# Handoff\n\n## Open questions\n\n- should we?\n", ""):
        handoff(box).write_text(body)
        assert run(box)[0] == 0
        assert "\n### Range\n" in handoff(box).read_text()
        done = box.run("lets-session-start", "--json", "--home", str(box.path / "no-home"),
                       env={"LETS_SESSION_ID": SID})
        data = json.loads(done.stdout)
        assert data["last_session"]["trust"] == "exact", data
        assert data["warnings"]["items"] == [], data["warnings"]
        decisions = data["handoff"]["outstanding_decisions"]["items"]
        assert decisions == (["should we?"] if body else []), data["handoff"]


def test_a_range_section_without_the_four_lines_shows_no_last_session(box: HookBox) -> None:
    (box.path / "memory").mkdir()
    handoff(box).write_text("# Handoff\n\n## Next\n\n- go on\n\n### Range\n\n```\n"
                            "SESSION_TRUST=very\n```\n")
    done = box.run("lets-session-start", "--json", "--home", str(box.path / "no-home"))
    assert json.loads(done.stdout)["last_session"] is None
    assert "Last session" not in box.run("lets-session-start", "--home",
                                         str(box.path / "no-home")).stdout


def test_a_teammates_pulled_commit_is_in_the_range_but_not_in_diff(tmp_path: Path) -> None:
    box = with_remote(tmp_path)
    start(box)
    commit(box, "mine 1", write={"mine1.txt": "1\n"})
    box.sh("push", "-q", "-u", "origin", "topic", sid=SID)
    mate = teammate(tmp_path, box, "topic")
    mate.file_commit("theirs.txt", "t\n", "theirs 1")
    mate.file_commit("mine1.txt", "overwritten by the teammate\n", "theirs 2")
    mate.sh("push", "-q", "origin", "topic")
    box.sh("pull", "-q", "--ff-only", sid=SID)
    commit(box, "mine 2", write={"mine2.txt": "2\n"})
    code, out, err = run(box, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["trust"] == "exact"
    assert data["range"][3].endswith("(2 commits, not counting 2 from elsewhere)")
    assert data["range"] == four_lines(box)
    ladder = json.loads(box.run("lets-session-boundary", "--json",
                                env={"LETS_SESSION_ID": SID}).stdout)
    assert data["session_commits"] == ladder["session_commits"]
    assert [item["item"] for item in data["diff"]["items"]] == ["mine2.txt", "mine1.txt"]
    assert data["diff"]["items"][1] == {"op": "added", "item": "mine1.txt", "why": "mine 1"}
    assert "theirs.txt" not in handoff(box).read_text()


def test_a_merge_the_session_made_brings_no_paths_of_its_own(tmp_path: Path) -> None:
    box = with_remote(tmp_path)
    mate = teammate(tmp_path, box, "main")
    mate.sh("checkout", "-q", "-b", "lib")
    mate.file_commit("lib.txt", "l\n", "lib 1")
    mate.sh("push", "-q", "origin", "lib")
    box.sh("fetch", "-q", "origin")
    start(box)
    commit(box, "mine", write={"mine.txt": "m\n"})
    box.sh("merge", "-q", "--no-ff", "--no-edit", "origin/lib", sid=SID)
    code, _, err = run(box)
    assert code == 0, err
    got = snapshot(box)
    assert got.diff == ({"op": "added", "item": "mine.txt", "why": "mine"},)
    assert range_block(handoff(box).read_text())[2] == "SESSION_COMMITS=2"


def test_an_approximate_range_says_so_in_its_four_lines(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    # another session ends it: the recorded line is not its own
    code, _, err = run(box, sid=OTHER)
    assert code == 0, err
    lines = range_block(handoff(box).read_text())
    assert lines == four_lines(box, OTHER)
    assert lines[1] == "SESSION_TRUST=prior-session"
    assert lines[3].startswith("SESSION_RANGE_DESC=approx: ")
    assert lines[3].endswith("- boundary recorded by an earlier session")
    # nothing recorded at all: estimated from the branch point
    (box.path / ".lets" / "sessions" / ".task-topic").unlink()
    code, _, err = run(box, sid=None)
    assert code == 0, err
    lines = range_block(handoff(box).read_text())
    assert lines[1] == "SESSION_TRUST=estimate"
    assert "estimated from the branch point" in lines[3]


def test_an_unknown_range_keeps_the_previous_diff(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    assert run(box)[0] == 0
    before = snapshot(box).diff
    box.sh("switch", "-q", "--detach", sid=SID)
    code, _, err = run(box)
    assert code == 0
    assert "previous diff is kept" in err
    assert snapshot(box).diff == before
    assert range_block(handoff(box).read_text())[3] == (
        "SESSION_RANGE_DESC=boundary unknown - detached HEAD")


def test_diff_is_capped_and_says_how_many_more(box: HookBox) -> None:
    start(box)
    commit(box, "many", write={f"f{n:02}.txt": "x\n" for n in range(ck.DIFF_CAP + 3)})
    assert run(box)[0] == 0
    got = snapshot(box)
    assert len(got.diff) == ck.DIFF_CAP and got.more == 3
    assert "  - \"and 3 more paths\"" in handoff(box).read_text()
    summary = box.run("lets-session-start", "--home", str(box.path / "none")).stdout
    assert re.search(r"\*\*Recent changes:\*\* added f00\.txt \(many\);.*; and 3 more paths",
                     summary)


# -- every other byte kept ---------------------------------------------------------------------

PROSE = ("# Handoff\r\n\r\n## Priority 1 — 파서 고치기\r\n\r\nSome notes, ```inline``` too.\r\n"
         "\r\n```text\r\n### Range\r\nnot a heading: inside a fence\r\n```\r\n\r\n"
         "## Open questions\r\n\r\n- Should we ship? 없음\r\n")


def test_frontmatter_prose_crlf_and_bom_are_kept(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    front = "---\r\ntitle: handoff\r\nowner: 팀\r\n---\r\n"
    path = handoff(box)
    path.parent.mkdir()
    path.write_bytes(b"\xef\xbb\xbf" + (front + PROSE).encode())
    code, _, err = run(box, "--next", "첫째 일")
    assert code == 0, err
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf" + front.encode() + ck.MARKER.encode() + b"\r\n")
    text = data[3:].decode()
    assert "\n" not in text.replace("\r\n", "")  # every line end is still CRLF
    block_end = text.index("```\r\n", text.index("```yaml")) + 5
    rest = text[block_end:]
    assert rest.startswith("\r\n" + PROSE + "\r\n### Range\r\n\r\n" + ck.RANGE_MARKER
                           + "\r\n```\r\n")
    assert range_block(text) == four_lines(box)
    assert snapshot(box).next == ("첫째 일",)


def test_options_not_given_keep_the_previous_values(box: HookBox) -> None:
    start(box)
    path = handoff(box)
    path.parent.mkdir()
    path.write_text("---\nupdated: 2026-01-01\n---\n<!-- state-snapshot v1 -->\n```yaml\n"
                    "ts: 2026-01-01\nctx: earlier\nnext: [one, {item: two, why: because}]\n"
                    "blocked: single blocker\nphase: review\n```\n\n# Notes\n\nkept\n")
    commit(box, "mine", write={"a.txt": "a\n"})
    code, _, err = run(box, "--hook", stdin=json.dumps(
        {"session_id": SID, "cwd": str(box.path), "hook_event_name": "SessionEnd",
         "reason": "exit"}))
    assert (code, err) == (0, "")
    got = snapshot(box)
    assert got.ctx == "earlier"
    assert got.next == ("one", {"item": "two", "why": "because"})
    assert got.blocked == ("single blocker",)
    assert got.extra == (("phase", "review"),)
    assert got.diff == ({"op": "added", "item": "a.txt", "why": "mine"},)
    text = path.read_text()
    assert text.startswith("---\nupdated: 2026-01-01\n---\n<!-- state-snapshot v1 -->\n")
    assert "```\n\n# Notes\n\nkept\n\n### Range\n" in text
    # a second run with nothing changed: the same file but ts
    first = TS.sub("ts", text)
    assert run(box)[0] == 0
    assert TS.sub("ts", path.read_text()) == first
    # --next given replaces the list; --next '' empties it
    assert run(box, "--next", "")[0] == 0
    assert snapshot(box).next == ()


def test_a_block_elsewhere_moves_right_after_the_frontmatter(box: HookBox) -> None:
    start(box)
    path = handoff(box)
    path.parent.mkdir()
    path.write_text("# Notes\n\nfirst\n\n<!-- state-snapshot v1 -->\nnext: [a]\n\nlast\n")
    assert run(box)[0] == 0
    text = path.read_text()
    body = text.split("---\n", 2)[2]
    assert body.startswith(ck.MARKER + "\n```yaml\n")
    assert body.split("\n```\n", 1)[1].startswith("\n# Notes\n\nfirst\n\nlast\n\n### Range\n")
    assert snapshot(box).next == ("a",)


def test_an_older_range_section_is_taken_over_with_its_other_text(box: HookBox) -> None:
    start(box)
    path = handoff(box)
    path.parent.mkdir()
    second = "### Range\n\n```\nSESSION_X=1\n```\n"
    path.write_text("# Notes\n\n### Range\n\nwritten by hand:\n\n```\nSESSION_BOUNDARY=old\n"
                    "SESSION_TRUST=none\nSESSION_COMMITS=unknown\nSESSION_RANGE_DESC=old\n```"
                    "\n\nafter it\n\n## Next part\n\ntext\n\n" + second)
    code, _, err = run(box)
    assert (code, err) == (0, "")
    text = path.read_text()
    assert text.count("### Range") == 2 and text.count(ck.RANGE_MARKER) == 1
    assert text.endswith("### Range\n\nwritten by hand:\n\n" + ck.RANGE_MARKER + "\n```\n"
                         + "\n".join(four_lines(box)) + "\n```\n\nafter it\n\n## Next part\n\n"
                         "text\n\n" + second)


# -- refused: one line, nothing written --------------------------------------------------------

def test_refusals_write_nothing(box: HookBox, tmp_path: Path) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})  # else the end hook has nothing to write
    path = handoff(box)
    path.parent.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("mine\n")
    path.symlink_to(outside)
    code, out, err = run(box, "--next", "x")
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and "leads out of" in err and "nothing written" in err
    assert outside.read_text() == "mine\n"
    path.unlink()
    cases = {
        "---\nno: close\n\n# prose\n": "frontmatter has no closing '---'",
        "<!-- state-snapshot v1 -->\n```yaml\nnext: [unclosed\n```\n": "state-snapshot block",
        "<!-- state-snapshot v1 -->\n```yaml\nnext: [a]\n": "has no closing fence",
        "<!-- state-snapshot v1 -->\n```yaml\n- a list\n```\n": "is not a mapping",
        "# notes\n\xff\n": "not valid UTF-8",
    }
    for body, said in cases.items():
        path.write_bytes(body.encode("utf-8", "surrogateescape") if "\xff" not in body
                         else b"# notes\n\xff\n")
        before = path.read_bytes()
        for hook in (False, True):
            args = ("--hook",) if hook else ("--next", "x")
            code, out, err = run(box, *args, stdin=json.dumps({"session_id": SID}))
            assert (code, out) == ((0 if hook else 1), ""), body
            assert len(err.splitlines()) == 1 and said in err, (body, err)
            assert "Traceback" not in err
            assert path.read_bytes() == before
    path.unlink()
    with path.open("wb") as handle:  # over the size limit the summary reads
        handle.truncate((32 << 20) + 1)
    code, _, err = run(box)
    assert code == 1 and "over the 32 MiB limit" in err and len(err.splitlines()) == 1
    assert path.stat().st_size == (32 << 20) + 1
    assert list(path.parent.iterdir()) == [path]


def test_a_file_where_the_folder_goes_and_a_missing_root_are_one_line(box: HookBox,
                                                                     tmp_path: Path) -> None:
    """A file or a dangling link named ``memory`` is said as such (not as a writer that
    kept changing the handoff), and a ``--root`` that is no folder is not made."""
    start(box)
    folder = box.path / "memory"
    folder.write_text("mine\n")
    code, out, err = run(box, "--next", "x")
    assert (code, out) == (1, "")
    assert err == ("lets-session-checkpoint: cannot write memory/session-handoff-LATEST.md:"
                   " a file stands where a folder should be; nothing written\n")
    assert folder.read_text() == "mine\n"
    folder.unlink()
    folder.symlink_to(tmp_path / "gone")
    code, out, err = run(box, "--next", "x")
    assert (code, out) == (1, "") and "leads out of" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "gone").exists()
    missing = tmp_path / "no-such-root"
    for args in (("--root", str(missing), "--next", "x"), ("--root", str(missing), "--hook")):
        code, out, err = run(box, *args, stdin=json.dumps({"session_id": SID}))
        assert (code, out) == ((0 if "--hook" in args else 1), "")
        assert err == (f"lets-session-checkpoint: --root {missing}: no such folder;"
                       " nothing written\n")
        assert not missing.exists()


def test_dry_run_prints_the_new_file_and_writes_nothing(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    code, out, err = run(box, "--dry-run", "--next", "x")
    assert code == 0, err
    assert not handoff(box).parent.exists()
    assert out.startswith("---\nupdated: ") and ck.MARKER in out
    assert range_block(out) == four_lines(box)
    code, out, _ = run(box, "--dry-run", "--json")
    assert code == 0 and json.loads(out)["written"] is False


# -- the guarded write ---------------------------------------------------------------------------

def test_another_writers_change_is_merged_never_lost(tmp_path: Path) -> None:
    root = tmp_path
    (root / "memory").mkdir()
    path = root / HANDOFF
    path.write_text("# Notes\n\nfirst\n")
    lines = ["SESSION_BOUNDARY=none", "SESSION_TRUST=none", "SESSION_COMMITS=unknown",
             "SESSION_RANGE_DESC=boundary unknown - not a git repository"]

    def make(data: bytes | None) -> ck.Plan:
        return ck.plan(data, ck.Asked(next=("mine",)), lines, None, 0, 1 << 20)

    saves = iter(["# Notes\n\nfirst\n\nan editor's line\n"])

    def editor() -> None:
        text = next(saves, None)
        if text is not None:
            path.write_text(text)

    done = ck.checkpoint(root, make, before_replace=editor)
    assert done is not None and done.written and done.merged
    text = path.read_text()
    assert "an editor's line" in text and '  - "mine"' in text

    def always() -> None:
        path.write_text(path.read_text() + "more\n")

    def again(data: bytes | None) -> ck.Plan:
        return ck.plan(data, ck.Asked(next=("again",)), lines, None, 0, 1 << 20)

    kept = path.read_text()
    with pytest.raises(ck.Refusal, match="kept changing"):
        ck.checkpoint(root, again, before_replace=always)
    assert path.read_text() == kept + "more\n" * ck.ATTEMPTS  # only the other writer's bytes
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_crash_before_the_rename_leaves_the_old_file_whole(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    path = tmp_path / HANDOFF
    path.write_text("old\n")

    def crash() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ck.checkpoint(tmp_path, lambda data: ck.plan(data, ck.Asked(), ["a"], None, 0, 1 << 20),
                      before_replace=crash)
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


# -- --hook and --json ---------------------------------------------------------------------------

HOOK_INPUTS: dict[str, dict[str, object]] = {
    "claude SessionEnd": {"session_id": SID, "transcript_path": "/x.jsonl",
                          "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
    "claude PreCompact": {"session_id": SID, "hook_event_name": "PreCompact",
                          "trigger": "auto", "custom_instructions": ""},
    "codex Stop": {"session_id": SID, "turn_id": "t1", "hook_event_name": "Stop",
                   "model": "m", "stop_hook_active": False},
    "gemini SessionEnd": {"session_id": SID, "hook_event_name": "SessionEnd",
                          "timestamp": "2026-12-01T10:00:00Z", "reason": "exit"},
}


def test_hook_refreshes_an_existing_handoff_quietly_with_the_inputs_session(box: HookBox
                                                                             ) -> None:
    start(box)
    assert run(box, "--next", "kept", "--blocked", "kept too (risk: L)")[0] == 0
    for name, data in HOOK_INPUTS.items():
        mark = name.replace(" ", "-")
        commit(box, mark, write={mark + ".txt": "x\n"})
        data = {**data, "cwd": str(box.path / "memory")}
        # no id in the environment: the input's session_id is the session's
        code, out, err = run(box, "--hook", sid=None, stdin=json.dumps(data),
                             root=box.path / "memory")
        assert (code, out, err) == (0, "", ""), name
        got = snapshot(box)
        assert got.next == ("kept",) and got.blocked == ({"item": "kept too", "risk": "L"},)
        assert got.diff[0] == {"op": "added", "item": mark + ".txt", "why": mark}, name
        assert range_block(handoff(box).read_text())[1] == "SESSION_TRUST=exact", name


NO_FIELDS = "hook input has neither a session_id nor a hook_event_name"


def test_hook_garbage_in_nothing_written(box: HookBox) -> None:
    """One line says why, in the words of the one reader of a hook's JSON (``hook_json``,
    which lets-session-start's hook reads through too)."""
    start(box)
    assert run(box)[0] == 0
    before = handoff(box).read_bytes()
    for stdin, problem in (("", hook_json(b"")[1]), ("not json", hook_json(b"not json")[1]),
                           ("[1, 2]", hook_json(b"[1, 2]")[1]), ("{}", NO_FIELDS),
                           ('{"session_id": 5}', NO_FIELDS),
                           ("\x00\x01", "hook input on stdin is not valid JSON")):
        code, out, err = run(box, "--hook", stdin=stdin)
        assert (code, out) == (0, ""), stdin
        assert err == f"lets-session-checkpoint: {problem}; nothing written\n", (stdin, err)
        assert handoff(box).read_bytes() == before
    # a session id that is not one: the environment's is used
    code, out, err = run(box, "--hook", stdin=json.dumps({"session_id": "a\u202eb"}))
    assert (code, out) == (0, "") and "the environment's session id is used" in err
    assert range_block(handoff(box).read_text())[1] == "SESSION_TRUST=exact"


def test_hook_writes_no_handoff_where_there_is_none(box: HookBox, tmp_path: Path) -> None:
    start(box)
    code, out, err = run(box, "--hook", stdin=json.dumps(HOOK_INPUTS["claude SessionEnd"]))
    assert (code, out, err) == (0, "", "")
    assert not (box.path / "memory").exists()
    outside = tmp_path / "plain"
    outside.mkdir()
    code, out, _ = run(box, "--hook", stdin=json.dumps({"session_id": SID, "cwd": str(outside)}))
    assert (code, out) == (0, "") and not (outside / "memory").exists()


def test_json_is_what_was_written(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    code, out, err = run(box, "--json", "--next", "n1", "--blocked", "b (risk: M)")
    assert code == 0, err
    data = json.loads(out)
    got = snapshot(box)
    assert data["written"] is True and data["created"] is True
    assert (data["ts"], data["next"], data["blocked"]) == (got.ts, ["n1"],
                                                           [{"item": "b", "risk": "M"}])
    assert data["diff"] == {"items": [{"op": "added", "item": "a.txt", "why": "mine"}],
                            "more": 0}
    assert data["range"] == four_lines(box) == range_block(handoff(box).read_text())
    assert data["session_commits"]["items"] == [box.head()]


def test_advice_for_another_work_tree_is_followed_there(tmp_path: Path) -> None:
    """``--root`` another work tree: the notes' advice goes there first (``lets-hooks
    record`` acts on the branch checked out where it runs). Followed as printed from this
    work tree, it vouches for that branch's commit and claims nothing here, where a
    person's commit no hook saw stands."""
    import subprocess

    box = with_remote(tmp_path)
    box.sh("switch", "-q", "-c", "here", sid=SID)
    box.sh("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m",
           "a person's, no hook")
    there = tmp_path / "there"
    box.sh("worktree", "add", "-q", "-b", "topic", str(there), "main", sid=SID)
    box.sh("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m",
           "mine, no hook", sid=SID, cwd=there)
    code, _, err = run(box, "--root", str(there), "--dry-run")
    assert code == 0, err
    said = re.findall(r"((?:cd \S+ && )?lets-hooks record(?: --at [0-9a-f]+)?)", err)
    assert said, err
    for command in said:
        done = subprocess.run(["sh", "-c", command], cwd=box.path, env=box.environ(SID),
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    assert box.field(SID, "SESSION_TRUST") == "prior-session"  # nothing claimed here
    assert (box.field(SID, "SESSION_TRUST", cwd=there),
            box.field(SID, "SESSION_COMMITS", cwd=there)) == ("exact", "1")


def test_outside_a_repository_the_range_says_so(tmp_path: Path) -> None:
    box = HookBox.__new__(HookBox)
    box.path = tmp_path
    code, _, err = run(box, "--next", "x")
    assert code == 0, err
    assert range_block(handoff(box).read_text())[3] == (
        "SESSION_RANGE_DESC=boundary unknown - not a git repository")


# -- the diff, by rule -----------------------------------------------------------------------------

def test_changes_fold_a_paths_history_into_one_entry() -> None:
    commits: list[tuple[str, str, list[tuple[str, str, str | None]]]] = [  # newest first
        ("c4", "drop tmp", [("D", "tmp.txt", None), ("M", "b.txt", None)]),
        ("c3", "rename again", [("R100", "b0.txt", "b.txt"), ("A", "gone.txt", None)]),
        ("c2", "merge", []),
        ("c1", "start", [("A", "tmp.txt", None), ("R090", "a.txt", "b0.txt"),
                         ("D", "gone.txt", None), ("M", "kept.txt", None)]),
    ]
    assert ck.changes_of(commits) == [
        ck.Change("removed", "tmp.txt", "drop tmp"),
        ck.Change("renamed", "a.txt → b.txt", "drop tmp"),
        ck.Change("changed", "gone.txt", "rename again"),
        ck.Change("changed", "kept.txt", "start"),
    ]
    assert ck.changes_of([]) == []


@pytest.mark.parametrize("text, item, risk", [
    ("CI is down (risk: H)", "CI is down", "H"),
    ("CI (flaky) is down (RISK:high)", "CI (flaky) is down", "high"),
    ("no risk said", "no risk said", None),
    ("empty risk (risk: )", "empty risk", None),
])
def test_blocked_text_is_item_and_risk(text: str, item: str, risk: str | None) -> None:
    assert ck.parse_blocked(text) == {"item": item, "risk": risk}


# -- the README's and docs/summary.md's samples, run as printed ----------------------------------

ROOT = Path(__file__).resolve().parent.parent
SHA40 = re.compile(r"\b[0-9a-f]{40}\b")


def docs_session(tmp_path: Path) -> HookBox:
    """The samples' session: hooks installed, a session on ``parser`` that made one
    commit (and main's tip, made before it, which is not the session's)."""
    box = make(tmp_path)
    box.install()
    start(box, "parser")
    commit(box, "parser: read the state-snapshot block", write={"src/parse.py": "x = 1\n"})
    return box


def console_runs(box: HookBox, console: str) -> list[tuple[str, str]]:
    """Each ``$ command`` of ``console`` with the output printed under it, and what it
    prints when run in ``box`` (shas, the date and the time put as <sha>, <day>, <ts>)."""
    import subprocess

    from helpers import BIN

    def canon(text: str) -> str:
        text = SHA40.sub("<sha>", text)
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "<ts>", text)
        return re.sub(r"\b\d{4}-\d\d-\d\d\b", "<day>", text)

    env = {k: v for k, v in os.environ.items() if k != "LETS_SESSION_ID"}
    env.update(PATH=f"{BIN}{os.pathsep}{env['PATH']}", LETS_SESSION_ID=SID,
               HOME=str(box.path / "no-home"))
    found = []
    for part in console.split("\n$ ")[0:]:
        command, _, printed = part.removeprefix("$ ").partition("\n")
        done = subprocess.run(["/bin/sh", "-c", command], cwd=box.path, env=env,
                              capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        found.append((canon(printed.rstrip("\n")), canon(done.stdout.rstrip("\n"))))
    return found


def test_the_readmes_end_a_session_runs_as_printed(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## End a session"):]
    section = section[:section.index("\n## ")]
    console = re.findall(r"^```console\n(.*?)^```$", section, flags=re.M | re.S)[0]
    box = docs_session(tmp_path)
    for printed, got in console_runs(box, console):
        assert got == printed


def test_the_round_trip_in_docs_runs_as_printed(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "summary.md").read_text()
    section = page[page.index("## The round trip: `lets-session-checkpoint`"):]
    console = re.findall(r"^````console\n(.*?)^````$", section, flags=re.M | re.S)[0]
    assert "\n## " not in section.replace(console, "")  # the page's last section
    box = docs_session(tmp_path)
    for printed, got in console_runs(box, console):
        if "\n...\n" in f"\n{printed}\n":  # lines of a longer output, in order
            lines = iter(got.split("\n"))
            for line in printed.split("\n"):
                if line != "...":
                    assert line in lines, (line, got)  # found after the one before it
        else:
            assert got == printed


def test_version_help_and_a_usage_error(tmp_path: Path) -> None:
    import subprocess

    from helpers import BIN

    from lets_hooks import __version__
    from lets_hooks.cli.checkpoint import _parser

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "lets-session-checkpoint"), *args], cwd=tmp_path,
                              capture_output=True, text=True, check=False, timeout=60)

    assert call("--version").stdout == f"lets-session-checkpoint {__version__}\n"
    done = call("--help")
    assert done.returncode == 0 and done.stdout == _parser().format_help()
    done = call("--no-such-option")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert not (tmp_path / "memory").exists()
    # --hook always exits 0 (SPEC section 9), a usage error too: one line, nothing written
    for args in (("--hook", "--no-such-option"), ("--hook", "--next")):
        done = call(*args)
        assert (done.returncode, done.stdout) == (0, ""), args
        assert len(done.stderr.splitlines()) == 1 and "error:" in done.stderr, done.stderr
    assert not (tmp_path / "memory").exists()


def test_a_blocked_value_that_starts_like_its_risk_or_an_option(box: HookBox) -> None:
    """A value that is only a risk names no blocker: refused in one line, before anything
    is written (exit 2; under --hook exit 0), the handoff byte for byte as it was. One that
    starts with '(' or '-' and names one is taken as the value (``--blocked=-x`` for a
    value argparse would read as an option)."""
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    assert run(box, "--next", "first")[0] == 0
    before = handoff(box).read_bytes()
    for value in ("(risk: H)", "  (RISK: high) ", "(risk:)"):
        for hook in (False, True):
            args = ["--hook", "--blocked", value] if hook else ["--blocked", value]
            code, out, err = run(box, *args, stdin=json.dumps({"session_id": SID}))
            assert (code, out) == ((0 if hook else 2), ""), (value, hook)
            assert err.count("\n") == 1 and "names no blocker before its risk" in err, err
            assert "nothing written" in err and "Traceback" not in err
            assert handoff(box).read_bytes() == before
    taken: list[tuple[list[str], str, str | None]] = [
        (["--blocked", "(flaky) CI (risk: H)"], "(flaky) CI", "H"),
        (["--blocked=-x"], "-x", None),
        (["--blocked", "-1 (risk: H)"], "-1", "H"),
        (["--blocked", "- CI is down (risk: L)"], "- CI is down", "L")]
    for args, item, risk in taken:
        code, _, err = run(box, *args)
        assert code == 0, err
        assert snapshot(box).blocked == ({"item": item, "risk": risk},), args
