"""A trunk-only repository (only ``main``, every session works on it): nothing is ever
checked out, so nothing is recorded, and pre-push would say so on every push forever.
There the warning is said once per session (once a day without a session id); a session
with a recorded boundary is never warned; a strict block is never skipped; topic branches
are warned on every push, as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import OTHER, SID
from hookbox import HookBox, with_remote

NOTED = Path(".git") / "lets-pre-push-noted"


@pytest.fixture
def box(tmp_path: Path) -> Iterator[HookBox]:
    made = with_remote(tmp_path)
    (made.path / NOTED).unlink(missing_ok=True)  # what the set-up push noted
    yield made
    made.repo.close()


def push(box: HookBox, sid: str | None, branch: str = "main",
         extra: dict[str, str] | None = None) -> tuple[int, list[str]]:
    box.file_commit("work.txt", f"{sid} {box.head()}\n")
    done = box.sh("push", "-q", "origin", branch, sid=sid, check=False, extra=extra)
    warnings = [line for line in done.stderr.splitlines() if "pre-push" in line]
    return done.returncode, warnings


def test_an_unrecorded_trunk_is_said_once_per_session(box: HookBox) -> None:
    code, first = push(box, SID)
    assert code == 0 and len(first) == 1
    assert "branch 'main': no usable session boundary" in first[0]
    assert first[0].endswith("Fix: lets-hooks record")
    assert push(box, SID) == (0, [])  # the same session again: quiet
    assert push(box, SID) == (0, [])
    code, other = push(box, OTHER)  # a new session is told once too
    assert code == 0 and len(other) == 1
    assert push(box, OTHER) == (0, [])


def test_without_a_session_id_once_a_day(box: HookBox) -> None:
    code, first = push(box, None)
    assert code == 0 and len(first) == 1
    assert push(box, None) == (0, [])
    noted = (box.path / NOTED).read_text().splitlines()
    assert len(noted) == 1 and noted[0].startswith("main\tday ")


def test_a_recorded_session_on_the_trunk_is_never_warned(box: HookBox) -> None:
    done = box.run("lets-hooks", "record", env={"LETS_SESSION_ID": SID})
    assert done.returncode == 0
    for _ in range(3):
        assert push(box, SID) == (0, [])
    assert not (box.path / NOTED).exists()


def test_strict_blocks_a_rejected_trunk_boundary_every_time(box: HookBox) -> None:
    box.write_task("main", "session: " + "c" * 40 + f" {SID}\n")
    (box.path / ".lets" / "config.toml").write_text("[pre_push]\nstrict = true\n")
    for _ in range(2):
        code, warnings = push(box, SID)
        assert code != 0
        assert any("push blocked (pre_push.strict)" in w for w in warnings)


def test_a_rejected_trunk_boundary_is_said_once_per_session_when_not_strict(
        box: HookBox) -> None:
    box.write_task("main", "session: " + "c" * 40 + f" {SID}\n")
    code, first = push(box, SID)
    assert code == 0 and len(first) == 1
    assert "rejected: not a commit in this repository" in first[0]
    assert push(box, SID) == (0, [])


def test_a_topic_branch_is_still_warned_on_every_push(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "topic")  # no session id: a sid-less line
    box.write_task("topic", "task: nothing recorded\n")
    for _ in range(2):
        code, warnings = push(box, SID, branch="topic")
        assert code == 0 and len(warnings) == 1
        assert "branch 'topic': no session boundary recorded" in warnings[0]
