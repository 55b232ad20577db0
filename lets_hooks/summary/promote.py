"""The summary's one write: promote well-referenced context-log entries into MEMORY.md.

Other writers (a checkpoint tool, another session) change MEMORY.md too, and they take
no lock, so the write is a compare-and-swap: the file's bytes are read, the new text is
planned from them, the file is read again just before the atomic replace, and only if it
is byte for byte what was planned from is it replaced (``files.write_inside``: a temporary
file in the same folder, then a rename). When it changed, the plan is made again on top of
the new content (the other writer's change is kept, and entries it already added are not
added twice); after ``ATTEMPTS`` changed reads in a row it gives up and writes nothing.

Reads and the write go through the same fence as the summary's readers
(``files.read_inside`` / ``files.write_inside``): a MEMORY.md that links out of the project,
or into the git directory, is refused for writing exactly as it is for reading. A link
that stays inside the project is written through, and stays a link.

This module is kept apart from the readers so that everything else in the summary stays
read-only by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lets_hooks import files
from lets_hooks.summary.interventions import MAX_FILE_BYTES, problem_line
from lets_hooks.summary.phases import PROMOTE_REF, candidate_text, plan_promotion
from lets_hooks.summary.records import LogEntry
from lets_hooks.summary.sources.context_log import CONTEXT_LOG, read_context_log
from lets_hooks.summary.sources.memory_index import MEMORY_INDEX

ATTEMPTS = 3


@dataclass(frozen=True)
class PromotionResult:
    ok: bool  # False: something stopped the write (the lines say what)
    written: bool
    merged: bool  # MEMORY.md changed between the read and the write; merged on top
    added: tuple[LogEntry, ...]
    lines: tuple[str, ...]  # what happened, for people


def promote(root: Path, git_dir: str | None = None, *,
            before_replace: Callable[[], None] | None = None,
            attempts: int = ATTEMPTS) -> PromotionResult:
    """Copy context-log entries with ref ≥ 3 that MEMORY.md lacks into MEMORY.md.

    ``git_dir`` is the repository's git directory, fenced off like ``.git``.
    ``before_replace`` runs after each plan and before the second read: the seam where a
    concurrent writer's change lands (tests use it to be that writer).
    """
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
    for _ in range(max(1, attempts)):
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
        if before_replace is not None:
            before_replace()
        current, problem = _read_bytes(root, git_dir)
        if problem:
            return _stop(False, problem)
        if current is None:
            return _stop(False, f"{MEMORY_INDEX} disappeared during the promotion;"
                                " nothing written")
        if current != data:
            merged, data = True, current
            continue
        new = plan.text.encode("utf-8")
        if len(new) > MAX_FILE_BYTES:
            return _stop(False, f"{MEMORY_INDEX}: would grow past the"
                                f" {MAX_FILE_BYTES >> 20} MiB the summary reads; nothing written")
        try:
            files.write_inside(str(root), MEMORY_INDEX, new, git_dir)
        except files.Refused as exc:
            return _stop(False, f"{problem_line(MEMORY_INDEX, str(exc))}; nothing written")
        noun = "entry" if len(plan.added) == 1 else "entries"
        head = (f"{MEMORY_INDEX} changed after it was read: kept that change and added"
                f" {len(plan.added)} context-log {noun} on top of it" if merged
                else f"{MEMORY_INDEX}: added {len(plan.added)} context-log {noun}")
        return PromotionResult(True, True, merged, plan.added,
                               (head, *(f"  + {candidate_text(e)}" for e in plan.added)))
    return PromotionResult(False, False, True, (), (
        f"{MEMORY_INDEX} kept changing while promoting ({attempts} tries); nothing written,"
        " run again when the other writer is done",))


def _stop(ok: bool, message: str, *more: str) -> PromotionResult:
    return PromotionResult(ok, False, False, (), (message, *more))


def _read_bytes(root: Path, git_dir: str | None) -> tuple[bytes | None, str | None]:
    """MEMORY.md's bytes behind the readers' fence, and why it cannot be promoted into."""
    data, problem = files.read_inside(str(root), MEMORY_INDEX, MAX_FILE_BYTES, git_dir)
    line = problem_line(MEMORY_INDEX, problem)
    return data, (f"{line}; nothing written" if line else None)
