"""``--promote``: the summary's one write, guarded by compare-and-swap.

The race tests are real: another writer's change lands in MEMORY.md on disk between the
promotion's read and its write (through the ``before_replace`` seam, or by wrapping the
read the command uses), and the file that results is checked byte for byte.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from lets_hooks.cli.summary import session_start_main
from lets_hooks.summary import promote as promote_module
from lets_hooks.summary.promote import promote

LOG = """# Context log

## [2026-11-01][NOTE][ttl:30d][ref:1] rarely used
body

## [2026-11-02][DECISION][ttl:60d][ref:3] take the same lock as the lets tool
Both writers lock the task file the same way.

## [2026-11-03][BUG][ttl:30d][ref:5] CRLF lost the session id
Strip the carriage return first.
"""
MEMORY = """# Memory

## Core <!-- #always -->
- fact one

## Archive <!-- #on-demand -->
- old things
"""
ADDED = (
    "## Promoted from the context log <!-- #always -->\n\n"
    "- [2026-11-02][DECISION] take the same lock as the lets tool (ref:3)"
    " — Both writers lock the task file the same way.\n"
    "- [2026-11-03][BUG] CRLF lost the session id (ref:5) — Strip the carriage return"
    " first.\n"
)


def project(tmp_path: Path, memory: str | bytes = MEMORY, log: str = LOG) -> Path:
    root = tmp_path / "project"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "context-log.md").write_text(log)
    target = root / "memory" / "MEMORY.md"
    target.write_bytes(memory.encode() if isinstance(memory, str) else memory)
    return root


def memory_of(root: Path) -> str:
    return (root / "memory" / "MEMORY.md").read_text()


def test_promote_appends_a_promoted_section(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = promote(root)
    assert (result.ok, result.written, result.merged) == (True, True, False)
    assert memory_of(root) == MEMORY + "\n" + ADDED
    assert result.lines[0] == "memory/MEMORY.md: added 2 context-log entries; the lines written:"
    assert written(result.lines[1:]) == "\n" + ADDED  # exactly the bytes added


def written(lines: Sequence[str]) -> str:
    """The text the ``  + `` lines of a message show (one line each, a bare ``  +`` for
    a blank one)."""
    assert all(line == "  +" or line.startswith("  + ") for line in lines), lines
    return "".join(line[4:] + "\n" for line in lines)


def test_promote_twice_adds_nothing_the_second_time(tmp_path: Path) -> None:
    root = project(tmp_path)
    promote(root)
    before = memory_of(root)
    again = promote(root)
    assert (again.ok, again.written, again.added) == (True, False, ())
    assert memory_of(root) == before
    assert again.lines == ("memory/MEMORY.md: nothing to promote (no context-log entry with"
                           " ref >= 3 is missing from it)",)


def test_promote_extends_an_existing_promoted_section_in_place(tmp_path: Path) -> None:
    memory = ("# Memory\n\n## Promoted from the context log <!-- #always -->\n\n"
              "- [2026-11-03][BUG] CRLF lost the session id (ref:4)\n\n"
              "## Later <!-- #on-demand -->\n- kept\n")
    root = project(tmp_path, memory)
    result = promote(root)
    assert [entry.title for entry in result.added] == ["take the same lock as the lets tool"]
    assert memory_of(root) == (
        "# Memory\n\n## Promoted from the context log <!-- #always -->\n\n"
        "- [2026-11-03][BUG] CRLF lost the session id (ref:4)\n"
        "- [2026-11-02][DECISION] take the same lock as the lets tool (ref:3) — Both writers"
        " lock the task file the same way.\n\n"
        "## Later <!-- #on-demand -->\n- kept\n")


def test_concurrent_change_survives_and_ours_is_merged_on_top(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    other = MEMORY.replace("- fact one\n", "- fact one\n- fact two, from another session\n")
    calls: list[int] = []

    def other_writer() -> None:
        calls.append(1)
        if len(calls) == 1:  # lands once, between our first read and our write
            target.write_text(other)

    result = promote(root, before_replace=other_writer)
    assert (result.ok, result.written, result.merged) == (True, True, True)
    assert memory_of(root) == other + "\n" + ADDED
    assert result.lines[0] == ("memory/MEMORY.md changed after it was read: kept that change"
                               " and added 2 context-log entries on top of it; the lines"
                               " written:")
    assert written(result.lines[1:]) == "\n" + ADDED
    assert len(calls) == 2  # planned again on the new content, and checked again


def test_other_writer_promoting_the_same_entries_leaves_its_version(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    theirs = MEMORY + "\n## Promoted from the context log\n- [2026-11-02] take the same lock" \
                      " as the lets tool\n- [2026-11-03] CRLF lost the session id\n"

    def other_writer() -> None:
        if target.read_text() != theirs:
            target.write_text(theirs)

    result = promote(root, before_replace=other_writer)
    assert (result.ok, result.written, result.merged) == (True, False, True)
    assert memory_of(root) == theirs
    assert result.lines == ("memory/MEMORY.md: nothing to promote (the other change already"
                            " holds every candidate)",)


def test_a_file_that_keeps_changing_is_never_overwritten(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    versions: list[str] = []

    def busy_writer() -> None:
        versions.append(MEMORY + f"- edit {len(versions)}\n")
        target.write_text(versions[-1])

    result = promote(root, before_replace=busy_writer)
    assert (result.ok, result.written) == (False, False)
    assert memory_of(root) == versions[-1] and len(versions) == 3
    assert result.lines == ("memory/MEMORY.md kept changing while promoting (3 tries);"
                            " nothing written, run again when the other writer is done",)


def test_crlf_file_gets_crlf_lines_and_keeps_every_other_byte(tmp_path: Path) -> None:
    original = MEMORY.replace("\n", "\r\n")
    root = project(tmp_path, original.encode())
    promote(root)
    data = (root / "memory" / "MEMORY.md").read_bytes()
    assert data == (original + "\r\n" + ADDED.replace("\n", "\r\n")).encode()


def test_untagged_file_gets_an_untagged_section(tmp_path: Path) -> None:
    root = project(tmp_path, "# Memory\n- one\n")
    promote(root)
    assert memory_of(root).startswith("# Memory\n- one\n\n## Promoted from the context log\n\n")


def test_file_without_final_newline(tmp_path: Path) -> None:
    root = project(tmp_path, "# Memory\n- one")
    promote(root)
    assert memory_of(root).startswith("# Memory\n- one\n\n## Promoted from the context log\n")


def test_mode_is_kept_and_a_symlink_inside_writes_through_to_its_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    real = root / "shared" / "MEMORY.md"
    real.parent.mkdir()
    link = root / "memory" / "MEMORY.md"
    real.write_text(MEMORY)
    real.chmod(0o640)
    link.unlink()
    link.symlink_to(real)
    promote(root)
    assert link.is_symlink() and real.read_text() == MEMORY + "\n" + ADDED
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert [p.name for p in real.parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("where", ["outside", "git"])
def test_a_memory_file_linking_out_or_into_git_is_never_written(tmp_path: Path,
                                                                 where: str) -> None:
    """The write honours the readers' fence: the attacker's log title never lands in
    ``~/.bashrc`` or in ``.git/config`` through a committed link."""
    root = project(tmp_path)
    victim = tmp_path / "home" / ".bashrc" if where == "outside" else root / ".git" / "config"
    victim.parent.mkdir(parents=True)
    victim.write_text(MEMORY)  # a file the promotion would happily append to
    link = root / "memory" / "MEMORY.md"
    link.unlink()
    link.symlink_to(victim)
    result = promote(root)
    assert (result.ok, result.written) == (False, False)
    assert victim.read_text() == MEMORY
    assert link.is_symlink()
    what = "leads out of project - refused, not followed" if where == "outside" else (
        "leads into a git directory - refused")
    assert result.lines == (f"memory/MEMORY.md: {what}; nothing written",)


def test_non_utf8_memory_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, b"# Memory\n- caf\xe9\n")
    result = promote(root)
    assert (result.ok, result.written) == (False, False)
    assert (root / "memory" / "MEMORY.md").read_bytes() == b"# Memory\n- caf\xe9\n"
    assert result.lines == ("memory/MEMORY.md: not valid UTF-8 (first bad byte at offset 14);"
                            " nothing written",)


def test_missing_memory_is_not_created(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "memory" / "MEMORY.md").unlink()
    result = promote(root)
    assert (result.ok, result.written) == (True, False)
    assert not (root / "memory" / "MEMORY.md").exists()
    assert result.lines == ("memory/MEMORY.md not found; nothing promoted",)


# --------------------------------------------------------------------------- the command


def run(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str, str]:
    code = session_start_main(["--root", str(root), "--home", str(root.parent / "home"),
                               "--today", "2026-11-29", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_nothing_is_written_without_promote(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    before = (target.read_bytes(), target.stat().st_mtime_ns, target.stat().st_ino)
    code, out, err = run(capsys, root)
    code_json, _, _ = run(capsys, root, "--json")
    assert (code, code_json, err) == (0, 0, "")
    assert "promotion candidate: [2026-11-02][DECISION]" in out
    assert (target.read_bytes(), target.stat().st_mtime_ns, target.stat().st_ino) == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["MEMORY.md", "context-log.md"]


def test_command_promotes_says_so_and_shows_the_result(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code, out, err = run(capsys, root, "--promote")
    assert code == 0
    assert err.splitlines()[0] == ("lets-session-start: memory/MEMORY.md: added 2 context-log"
                                   " entries; the lines written:")
    assert written(err.splitlines()[1:]) == "\n" + ADDED
    assert memory_of(root) == MEMORY + "\n" + ADDED
    assert "**Memory alerts:** none" in out.splitlines()  # read after the write
    assert "- [2026-11-03][BUG] CRLF lost the session id (ref:5)" in out


def test_command_race_keeps_the_other_writers_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another session edits MEMORY.md right after the command's first read of it."""
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    reads: list[Path] = []
    read_bytes = promote_module._read_bytes

    def read_then_someone_writes(where: Path, git_dir: str | None
                                 ) -> tuple[bytes | None, str | None]:
        reads.append(where)
        if len(reads) == 2:
            target.write_text(MEMORY.replace("- old things\n", "- old things\n- newer\n"))
        return read_bytes(where, git_dir)

    reader: Callable[[Path, str | None], tuple[bytes | None, str | None]] = (
        read_then_someone_writes)
    monkeypatch.setattr(promote_module, "_read_bytes", reader)
    code, _, err = run(capsys, root, "--promote")
    assert code == 0
    assert "- old things\n- newer\n" in target.read_text()
    assert target.read_text().endswith(ADDED)
    assert err.splitlines()[0] == (
        "lets-session-start: memory/MEMORY.md changed after it was read: kept that change"
        " and added 2 context-log entries on top of it; the lines written:")


def test_command_that_cannot_promote_exits_1(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, b"\xff\n")
    code, out, err = run(capsys, root, "--promote")
    assert code == 1
    assert err.startswith("lets-session-start: memory/MEMORY.md: not valid UTF-8")
    assert out.startswith("## Session Ready\n")  # the summary still prints


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "memory").chmod(0o555)
    try:
        result = promote(root)
    finally:
        (root / "memory").chmod(0o755)
    assert (result.ok, result.written) == (False, False)
    assert result.lines[0].startswith("memory/MEMORY.md: cannot write")


def test_failed_rename_leaves_the_file_and_no_temp_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)

    def refuse(source: object, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = promote(root)
    monkeypatch.undo()
    assert (result.ok, result.written) == (False, False)
    assert result.lines == ("memory/MEMORY.md: cannot write: permission denied;"
                            " nothing written",)
    assert memory_of(root) == MEMORY
    assert sorted(p.name for p in (root / "memory").iterdir()) == ["MEMORY.md",
                                                                   "context-log.md"]


def test_an_entry_logged_twice_is_promoted_once(tmp_path: Path) -> None:
    twice = LOG + "\n## [2026-11-03][BUG][ttl:30d][ref:6] CRLF lost the session id\nagain\n"
    root = project(tmp_path, log=twice)
    result = promote(root)
    assert [entry.ref for entry in result.added] == [3, 5]
    assert memory_of(root).count("CRLF lost the session id") == 1


# --------------------------------------------------------------------------- the window


def test_the_check_comes_after_the_new_bytes_are_durable(tmp_path: Path) -> None:
    """An editor saves MEMORY.md while the promotion's new bytes sit, written and synced,
    in a temporary file: the save is seen at the check right before the rename, and it is
    never replaced. The seam runs at exactly that moment, so the race is deterministic."""
    root = project(tmp_path)
    folder = root / "memory"
    target = folder / "MEMORY.md"
    saved = MEMORY.replace("- fact one\n", "- fact one\n- the editor's save\n")
    seen: list[tuple[list[str], bytes]] = []

    def editor_saves() -> None:
        temps = sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))
        content = (folder / temps[0]).read_bytes() if temps else b""
        seen.append((temps, content))
        if len(seen) == 1:
            target.write_text(saved)

    result = promote(root, before_replace=editor_saves)
    # The first call: the new text was already whole in its temporary file.
    temps, content = seen[0]
    assert len(temps) == 1 and temps[0].startswith("MEMORY.md.")
    assert content == (MEMORY + "\n" + ADDED).encode()
    # The save was kept, and ours was planned again on top of it.
    assert (result.ok, result.written, result.merged) == (True, True, True)
    assert memory_of(root) == saved + "\n" + ADDED
    assert seen[1][1] == (saved + "\n" + ADDED).encode()
    assert sorted(p.name for p in folder.iterdir()) == ["MEMORY.md", "context-log.md"]


def test_a_save_at_every_check_is_never_overwritten(tmp_path: Path) -> None:
    root = project(tmp_path)
    folder = root / "memory"
    saves: list[str] = []

    def editor_saves_each_time() -> None:
        saves.append(MEMORY + f"- save {len(saves)}\n")
        (folder / "MEMORY.md").write_text(saves[-1])

    result = promote(root, before_replace=editor_saves_each_time)
    assert (result.ok, result.written) == (False, False)
    assert memory_of(root) == saves[-1]
    assert sorted(p.name for p in folder.iterdir()) == ["MEMORY.md", "context-log.md"]


def test_memory_deleted_in_the_window_is_not_recreated(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = root / "memory" / "MEMORY.md"
    result = promote(root, before_replace=target.unlink)
    assert (result.ok, result.written) == (False, False)
    assert result.lines == ("memory/MEMORY.md disappeared during the promotion; nothing"
                            " written",)
    assert sorted(p.name for p in target.parent.iterdir()) == ["context-log.md"]


# --------------------------------------------------------------------------- facts held


@pytest.mark.parametrize("held", [
    "- Take the same lock as the lets tool.",
    "- **Take the same lock** as the *lets* tool!",
    "We decided to _take the same lock as the LETS tool_ (see the log).",
    "- take the same\n  lock as the lets tool",
    "- Both writers lock the task file, the same way.",
])
def test_an_entry_memory_already_holds_in_its_own_words_is_skipped(
        tmp_path: Path, held: str) -> None:
    root = project(tmp_path, MEMORY.replace("- fact one\n", f"- fact one\n{held}\n"))
    result = promote(root)
    assert [entry.title for entry in result.added] == ["CRLF lost the session id"]
    assert memory_of(root).count("take the same lock as the lets tool (ref:3)") == 0


def test_a_fact_held_is_no_promotion_candidate_in_the_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, MEMORY.replace("- fact one\n",
                                            "- fact one\n- **Take the same lock** as the"
                                            " lets tool.\n"))
    _, out, _ = run(capsys, root)
    assert "promotion candidate: [2026-11-03][BUG] CRLF lost the session id (ref:5)" in out
    assert "take the same lock as the lets tool (ref:3)" not in out


@pytest.mark.parametrize("near", [
    "- Take the same lock.",  # a part of it
    "- take the same lock as the lets tool maker",  # a longer fact: no word boundary
    "- never take the same lock as the lets toolkit",
])
def test_a_fact_only_partly_written_is_still_promoted(tmp_path: Path, near: str) -> None:
    root = project(tmp_path, MEMORY.replace("- fact one\n", f"- fact one\n{near}\n"))
    titles = [entry.title for entry in promote(root).added]
    if near.endswith("maker"):  # the whole title is there, then more words: held
        assert titles == ["CRLF lost the session id"]
    else:
        assert titles == ["take the same lock as the lets tool", "CRLF lost the session id"]


def test_a_short_title_needs_its_date_to_count_as_held(tmp_path: Path) -> None:
    log = "# Log\n\n## [2026-11-05][BUG][ttl:30d][ref:4] CRLF bug\nsee\n"
    root = project(tmp_path, MEMORY.replace("- fact one\n", "- fact one\n- A CRLF bug.\n"),
                   log=log)
    assert [entry.title for entry in promote(root).added] == ["CRLF bug"]


# --------------------------------------------------------------------------- the message


def test_the_message_shows_the_bytes_added_in_place(tmp_path: Path) -> None:
    memory = ("# Memory\n\n## Promoted from the context log\n\n- older one\n\n"
              "## Later\n- kept\n")
    root = project(tmp_path, memory)
    result = promote(root)
    after = memory_of(root)
    assert after == memory.replace("- older one\n", "- older one\n" + ADDED.split("\n\n", 1)[1])
    shown = written(result.lines[1:])
    assert after.replace(shown, "", 1) == memory


def test_the_message_of_a_crlf_file_says_so(tmp_path: Path) -> None:
    original = MEMORY.replace("\n", "\r\n")
    root = project(tmp_path, original.encode())
    result = promote(root)
    assert result.lines[0].endswith("; the lines written (CRLF line ends):")
    assert written(result.lines[1:]) == "\n" + ADDED


def test_the_message_shows_outside_text_escaped(tmp_path: Path) -> None:
    log = ("# Log\n\n## [2026-11-05][BUG][ttl:30d][ref:4] title \x1b]0;pwned\x07 here\n"
           "body \u202e reversed\n")
    root = project(tmp_path, log=log)
    result = promote(root)
    assert result.written
    assert all(line.isprintable() for line in result.lines)
    assert any("title \\x1b]0;pwned\\x07 here" in line for line in result.lines)
    assert "\x1b]0;pwned\x07" in memory_of(root)  # the file gets the entry as logged


def test_the_message_of_a_file_without_a_final_line_end_says_one_was_added(
        tmp_path: Path) -> None:
    root = project(tmp_path, "# Memory\n- one")
    result = promote(root)
    assert result.lines[0] == ("memory/MEMORY.md: added 2 context-log entries; the lines"
                               " written (after a line end for its last line):")
    assert memory_of(root) == "# Memory\n- one\n" + written(result.lines[1:])
