"""The summary's one write (kept apart, so the readers stay read-only): promote
well-referenced context-log entries into MEMORY.md.

Other writers change MEMORY.md too and take no lock, so the write is a compare-and-swap:
the new text is planned from the bytes read and written to a synced temporary file; right
before the rename (``files.write_inside``'s ``before_rename``) the file is read again, and
only when it is still byte for byte what was planned from is it replaced. Otherwise the
plan is made again on top of the new content (the other change kept, its entries not added
twice), up to ``ATTEMPTS`` times. Only the moment between that last read and the rename
stays open, as for any writer that takes no lock.

An entry MEMORY.md already holds is not promoted (``phases.not_yet_promoted``); the
message shows exactly the lines added. Reads and the write go through the readers' fence
(``files.read_inside`` / ``files.write_inside``): a MEMORY.md linking out of the project or
into the git directory is refused; a link that stays inside is written through.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lets_hooks import files
from lets_hooks.summary.checkpoint import ATTEMPTS, Changed
from lets_hooks.summary.interventions import MAX_FILE_BYTES, problem_line
from lets_hooks.summary.phases import PROMOTE_REF, plan_promotion
from lets_hooks.summary.records import LogEntry, PromotionPlan
from lets_hooks.summary.sources.context_log import CONTEXT_LOG, read_context_log
from lets_hooks.summary.sources.memory_index import MEMORY_INDEX


@dataclass(frozen=True)
class PromotionResult:
    ok: bool  # False: something stopped the write (the lines say what)
    written: bool
    merged: bool  # MEMORY.md changed between the read and the write; merged on top
    added: tuple[LogEntry, ...]
    lines: tuple[str, ...]  # what happened, for people


class _Stopped(Exception):
    """MEMORY.md cannot be read any more (the message says why)."""


def promote(root: Path, git_dir: str | None = None, *,
            before_replace: Callable[[], None] | None = None) -> PromotionResult:
    """Copy context-log entries with ref ≥ 3 that MEMORY.md lacks into MEMORY.md.
    ``before_replace`` runs in the window where a concurrent writer's save lands (once
    the new bytes are synced, before MEMORY.md is read again): tests use it to be that
    writer."""
    log = read_context_log(root, git_dir)
    if log.value is None:
        return _stop(True, f"{CONTEXT_LOG} not found; nothing to promote", *log.warnings)
    entries = [entry for entry in log.value.entries if entry.ref >= PROMOTE_REF]

    data, problem = _read_bytes(root, git_dir)
    if problem:
        return _stop(False, problem)
    if data is None:
        return _stop(True, f"{MEMORY_INDEX} not found; nothing promoted")
    merged = False
    for _ in range(ATTEMPTS):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return _stop(False, f"{MEMORY_INDEX}: not valid UTF-8 (first bad byte at offset"
                                f" {exc.start}); nothing written")
        plan = plan_promotion(text, entries)
        if not plan.added:
            why = ("the other change already holds every candidate" if merged
                   else "no context-log entry with ref >= 3 is missing from it")
            return PromotionResult(True, False, merged, (),
                                   (f"{MEMORY_INDEX}: nothing to promote ({why})",))
        new = plan.text.encode("utf-8")
        if len(new) > MAX_FILE_BYTES:
            return _stop(False, f"{MEMORY_INDEX}: would grow past the"
                                f" {MAX_FILE_BYTES >> 20} MiB the summary reads; nothing written")
        try:
            files.write_inside(str(root), MEMORY_INDEX, new, git_dir,
                               before_rename=_unchanged(root, git_dir, data, before_replace))
        except Changed as change:
            merged, data = True, change.now or b""  # (a file gone is _Stopped)
            continue
        except _Stopped as stop:
            return _stop(False, str(stop))
        except files.Refused as exc:
            return _stop(False, f"{problem_line(MEMORY_INDEX, str(exc))}; nothing written")
        return PromotionResult(True, True, merged, plan.added, _written(plan, merged))
    return PromotionResult(False, False, True, (), (
        f"{MEMORY_INDEX} kept changing while promoting ({ATTEMPTS} tries); nothing written,"
        " run again when the other writer is done",))


def _unchanged(root: Path, git_dir: str | None, planned_from: bytes,
               before_replace: Callable[[], None] | None) -> Callable[[], None]:
    """The compare of the module's docstring: MEMORY.md must still be ``planned_from``."""
    def check() -> None:
        if before_replace is not None:
            before_replace()
        now, problem = _read_bytes(root, git_dir)
        if problem:
            raise _Stopped(problem)
        if now is None:
            raise _Stopped(f"{MEMORY_INDEX} disappeared during the promotion;"
                           " nothing written")
        if now != planned_from:
            raise Changed(now)
    return check


def _written(plan: PromotionPlan, merged: bool) -> tuple[str, ...]:
    """What was done, then every line added, as written (escaped for the terminal; a
    blank line as a bare ``+``)."""
    count = len(plan.added)
    noun = "entry" if count == 1 else "entries"
    added = plan.inserted.removesuffix("\n").split("\n")
    notes = [note for note, holds in (("CRLF line ends", "\r\n" in plan.inserted),
                                      ("after a line end for its last line", plan.completed))
             if holds]
    head = (f"{MEMORY_INDEX} changed after it was read: kept that change and added"
            f" {count} context-log {noun} on top of it" if merged
            else f"{MEMORY_INDEX}: added {count} context-log {noun}")
    lines = [f"  + {files.show(line.removesuffix(chr(13)))}" if line.strip("\r") else "  +"
             for line in added]
    detail = f" ({', '.join(notes)})" if notes else ""
    return (f"{head}; the lines written{detail}:", *lines)


def _stop(ok: bool, message: str, *more: str) -> PromotionResult:
    return PromotionResult(ok, False, False, (), (message, *more))


def _read_bytes(root: Path, git_dir: str | None) -> tuple[bytes | None, str | None]:
    """MEMORY.md's bytes behind the readers' fence, and why it cannot be promoted into."""
    data, problem = files.read_inside(str(root), MEMORY_INDEX, MAX_FILE_BYTES, git_dir)
    line = problem_line(MEMORY_INDEX, problem)
    return data, (f"{line}; nothing written" if line else None)
