"""``lets-session-checkpoint`` under faults: what a person wrote in the handoff is never
deleted (a snapshot example in a fence, a ``### Range`` heading of their own), a save that
lands while the file is replaced is kept, what it writes is what ``lets-hooks lint``
accepts, another writer's value stays as it was, and the end of a session that did
nothing leaves the handoff alone."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, make
from test_checkpoint import commit, four_lines, handoff, run, snapshot, start

from lets_hooks import files
from lets_hooks.summary import checkpoint as ck
from lets_hooks.summary.sources.handoff import read_handoff

HANDOFF = ck.HANDOFF
LINES = ["SESSION_BOUNDARY=none", "SESSION_TRUST=none", "SESSION_COMMITS=unknown",
         "SESSION_RANGE_DESC=boundary unknown - not a git repository"]


@pytest.fixture
def box(tmp_path: Path) -> HookBox:
    box = make(tmp_path)
    box.install()
    return box


def planned(data: bytes | None, asked: ck.Asked | None = None,
            lines: list[str] | None = None) -> ck.Plan:
    return ck.plan(data, asked or ck.Asked(next=("mine",)), lines or LINES, None,
                   1_800_000_000, 1 << 22)


def in_order(person: list[str], text: str) -> bool:
    """Every line of ``person`` is a line of ``text``, in the same order."""
    lines = iter(text.replace("\r\n", "\n").split("\n"))
    return all(any(line == mine for line in lines) for mine in person)


# -- 1. a person's text is never deleted -------------------------------------------------------

EXAMPLE = ["How the block looks:", "", "````markdown", ck.MARKER, "```yaml",
           "next: [an example, not the real block]", "```", "````", "", "The end."]


def test_a_snapshot_example_in_a_fence_is_prose_not_the_block() -> None:
    person = ["# Notes", "", *EXAMPLE]
    made = planned(("\n".join(person) + "\n").encode())
    text = made.data.decode()
    assert in_order(person, text), text
    assert text.count(ck.MARKER) == 2  # the example, and the real block at the top
    assert text.split("\n")[3] == ck.MARKER
    # the reader takes the real block, not the example
    again = planned(made.data, ck.Asked())
    assert again.snapshot.next == ("mine",)
    assert in_order(person, again.data.decode())


def test_a_snapshot_example_in_a_fence_is_not_read_as_the_block(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / HANDOFF).write_text("\n".join(["# Notes", "", *EXAMPLE]) + "\n")
    read = read_handoff(tmp_path)
    assert read.value is not None
    assert read.value.snapshot is None
    assert not read.warnings


def test_a_persons_range_heading_and_its_paragraph_are_kept() -> None:
    person = ["# Notes", "", "### Range", "", "My own paragraph on the range of prices.", "",
              "## Later", "", "more", "", "### Range", "", "a second one, also mine"]
    made = planned(("\n".join(person) + "\n").encode())
    text = made.data.decode()
    assert in_order(person, text), text
    assert text.count(ck.RANGE_MARKER) == 1
    assert text.endswith("\n".join(["### Range", "", ck.RANGE_MARKER, "```", *LINES, "```"])
                         + "\n")
    assert not made.notes
    # checkpoint again: the product's section is the one updated, nothing else moves
    lines = [*LINES[:3], "SESSION_RANGE_DESC=another"]
    again = planned(made.data, ck.Asked(), lines).data.decode()
    assert again == text.replace(LINES[3], lines[3])


def test_an_older_checkpoints_range_section_is_taken_over_once() -> None:
    old = ("# Notes\n\n### Range\n\nwritten by a person, kept:\n\n```\nSESSION_BOUNDARY=old\n"
           "SESSION_TRUST=none\nSESSION_COMMITS=unknown\nSESSION_RANGE_DESC=old\n```\n\n"
           "after it\n\n## Next part\n\ntext\n\n### Range\n\n```\nSESSION_X=1\n```\n")
    made = planned(old.encode())
    text = made.data.decode()
    assert text.count("### Range") == 2 and text.count(ck.RANGE_MARKER) == 1
    assert ("### Range\n\nwritten by a person, kept:\n\n" + ck.RANGE_MARKER + "\n```\n"
            + "\n".join(LINES) + "\n```\n\nafter it\n\n## Next part\n\ntext\n\n### Range\n\n"
            "```\nSESSION_X=1\n```\n") in text
    assert not made.notes


def test_a_second_marked_range_block_is_left_as_it_is() -> None:
    one = planned(b"# Notes\n").data.decode()
    twice = one + "\ncopied by hand:\n\n" + one.split("### Range\n\n", 1)[1]
    made = planned(twice.encode(), ck.Asked(), [*LINES[:3], "SESSION_RANGE_DESC=new"])
    text = made.data.decode()
    assert text.count("SESSION_RANGE_DESC=new") == 1
    assert text.endswith("copied by hand:\n\n" + one.split("### Range\n\n", 1)[1])


# -- 2. a save that lands while the file is replaced ---------------------------------------------

def save_at_the_rename(monkeypatch: pytest.MonkeyPatch, path: Path,
                       save: Callable[[str], None]) -> list[bool]:
    """The first rename over ``path`` is preceded by ``save`` (given the path), an editor
    saving in place between the checkpoint's compare and its rename; the list says it ran."""
    real_replace = os.replace
    saved: list[bool] = []

    def replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if os.path.basename(str(target)) == path.name and not saved:
            save(str(target))
            saved.append(True)
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    return saved


def append_line(text: str) -> Callable[[str], None]:
    def save(target: str) -> None:
        with open(target, "a", encoding="utf-8") as editor:  # in place, as editors do
            editor.write(text)
    return save


def test_a_save_landing_between_the_compare_and_the_rename_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    path = tmp_path / HANDOFF
    path.write_text("# Notes\n\nfirst\n")
    saved = save_at_the_rename(monkeypatch, path, append_line("an editor's line\n"))
    with pytest.raises(ck.Refusal, match="changed by another writer"):
        ck.checkpoint(tmp_path, planned)
    monkeypatch.undo()
    assert saved
    text = path.read_text()
    assert "an editor's line\n" in text
    assert text.startswith("---\nupdated: ")  # the checkpoint's block is there too
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_the_command_says_so_and_exits_1(box: HookBox, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from lets_hooks.cli import checkpoint as cli

    start(box)
    path = handoff(box)
    path.parent.mkdir()
    path.write_text("# Notes\n")
    save_at_the_rename(monkeypatch, path, append_line("saved meanwhile\n"))
    monkeypatch.chdir(box.path)
    monkeypatch.setenv("LETS_SESSION_ID", SID)
    code = cli.main(["--next", "x"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.splitlines()) == 1 and "changed by another writer" in err
    assert "saved meanwhile\n" in path.read_text()


def test_a_rewrite_landing_after_the_compare_is_restored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    path = tmp_path / HANDOFF
    path.write_text("# Notes\n\nfirst\n")
    rewritten = "# Notes\n\nrewritten in place by an editor\n"

    def rewrite(target: str) -> None:
        with open(target, "r+", encoding="utf-8") as editor:
            editor.truncate(0)
            editor.write(rewritten)

    save_at_the_rename(monkeypatch, path, rewrite)
    with pytest.raises(ck.Refusal, match="changed by another writer"):
        ck.checkpoint(tmp_path, planned)
    monkeypatch.undo()
    assert path.read_text() == rewritten
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_file_another_writer_creates_meanwhile_is_not_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    path = tmp_path / HANDOFF
    real_link, real_replace = os.link, os.replace
    made: list[bool] = []

    def create() -> None:
        if not made:
            path.write_text("# Made by an editor meanwhile\n")
            made.append(True)

    def link(source: str, target: str, **kwargs: bool) -> None:
        if target == str(path):
            create()
        real_link(source, target, **kwargs)

    def replace(source: str, target: str) -> None:
        if target == str(path):
            create()
        real_replace(source, target)

    monkeypatch.setattr(os, "link", link)
    monkeypatch.setattr(os, "replace", replace)
    done = ck.checkpoint(tmp_path, planned)
    monkeypatch.undo()
    assert made and done is not None and done.written and done.merged
    text = path.read_text()
    assert "# Made by an editor meanwhile\n" in text and '  - "mine"' in text
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.skipif(not hasattr(fcntl, "F_SETLEASE"), reason="no leases here (Linux)")
def test_a_writer_that_keeps_the_file_open_gets_it_back(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    path = tmp_path / HANDOFF
    path.write_text("# Notes\n")
    with open(path, "ab") as holder:  # a process appending to it now and then
        with pytest.raises(ck.Refusal, match="held open by another writer"):
            ck.checkpoint(tmp_path, planned)
        holder.write(b"written after the checkpoint\n")
    assert path.read_text() == "# Notes\nwritten after the checkpoint\n"
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_link_kept_aside_is_swept_once_its_writer_is_gone(tmp_path: Path) -> None:
    import subprocess
    import sys

    target = tmp_path / "file.md"
    target.write_text("x\n")
    old = os.stat(target).st_mtime - 3600
    os.utime(target, (old, old))  # the link is as old as the file it links
    mine = files.link_aside(str(target))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    dead = tmp_path / f"file.md.{int(gone) * 1000}{files.KEPT}"
    os.link(target, dead)
    assert mine is not None
    files.sweep_temporaries(str(tmp_path), "file.md")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.md", os.path.basename(mine)]
    files.discard(mine)


# -- 3. what it writes, lint accepts -------------------------------------------------------------

def test_hidden_characters_are_written_escaped_and_lint_accepts_the_file(box: HookBox
                                                                         ) -> None:
    start(box)
    hidden = "fix a\u202eb\u200b then \u2066c\u2069 \ufeff\u034f"
    code, _, err = run(box, "--next", hidden, "--blocked", "wait\u200d (risk: H\u202e)",
                       "--ctx", "ctx\u200b")
    assert code == 0, err
    raw = handoff(box).read_text()
    assert all(files.is_shown_as_is(line) for line in raw.split("\n")), raw
    got = snapshot(box)
    assert got.next == (hidden,)
    assert got.blocked == ({"item": "wait\u200d", "risk": "H\u202e"},)
    assert got.ctx == "ctx\u200b"
    done = box.run("lets-hooks", "lint")
    assert done.returncode == 0, done.stdout + done.stderr


def test_quoted_writes_raw_only_what_lint_accepts() -> None:
    from lets_hooks.summary.sources.text import parse_yaml

    for code in [*range(0x20), *range(0x7F, 0x250), *range(0x2000, 0x2070),
                 0x3164, 0xFE0F, 0xFEFF, 0xE0001, 0xE0100, 0x1F600, 0xAC00]:
        char = chr(code)
        text = "a" + char + "b"
        written = ck.quoted(text)
        assert files.is_shown_as_is(written), hex(code)
        assert parse_yaml("k: " + written, "x", "t", 1)[0] == {"k": text}, hex(code)


# -- 4. another writer's values stay as they were ------------------------------------------------

def test_a_tagged_value_another_writer_put_in_the_block_is_kept_as_written() -> None:
    block = ["ts: 2026-01-01", "bin: !!binary aGVsbG8=", "next: [a]", "# their comment",
             "when: !!timestamp 2026-01-01T10:00:00Z", "set: !!set {x, y}",
             "nested:", "  deep: !!binary |", "    aGVsbG8=", "  odd:   'spaced'",
             "flow: {a: 1,   b: [2, 3]}", "listed:", "- !!binary aGVsbG8=", "-   two"]
    old = "\n".join(["<!-- state-snapshot v1 -->", "```yaml", *block, "```", "", "# Notes",
                     ""])
    made = planned(old.encode())
    text = made.data.decode()
    assert "b'hello'" not in text
    for line in block[1:2] + block[3:]:
        assert "\n" + line + "\n" in text, line
    assert made.snapshot.next == ("mine",)
    assert planned(made.data, ck.Asked()).data == made.data


# -- 5. the end of a session that did nothing -----------------------------------------------------

def test_the_end_hook_of_a_session_that_did_nothing_leaves_the_handoff(box: HookBox) -> None:
    start(box)
    commit(box, "mine", write={"a.txt": "a\n"})
    assert run(box, "--next", "go on")[0] == 0
    before = handoff(box).read_bytes()
    # /clear: a new session, recorded, that makes no commit and ends
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": OTHER})
    assert done.returncode == 0, done.stderr
    end = json.dumps({"session_id": OTHER, "cwd": str(box.path),
                      "hook_event_name": "SessionEnd", "reason": "clear"})
    code, out, err = run(box, "--hook", sid=OTHER, stdin=end)
    assert (code, out, err) == (0, "", "")
    assert handoff(box).read_bytes() == before
    # a session that did commit still refreshes it
    commit(box, "theirs", write={"b.txt": "b\n"}, sid=OTHER)
    code, out, err = run(box, "--hook", sid=OTHER, stdin=end)
    assert (code, out, err) == (0, "", "")
    assert snapshot(box).diff[0] == {"op": "added", "item": "b.txt", "why": "theirs"}
    assert four_lines(box, OTHER)[3] in handoff(box).read_text()
