"""The summary's one write: promote well-referenced context-log entries into MEMORY.md.

Other writers (a checkpoint tool, another session) change MEMORY.md too, and they take
no lock, so the write is a compare-and-swap: the file's bytes are read, the new text is
planned from them, the file is read again just before the atomic replace, and only if it
is byte for byte what was planned from is it replaced (temp file in the same folder, then
``os.replace``). When it changed, the plan is made again on top of the new content (the
other writer's change is kept, and entries it already added are not added twice); after
``ATTEMPTS`` changed reads in a row it gives up and writes nothing.

This module is kept apart from the readers so that everything else in the summary stays
read-only by construction.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lets_hooks.observability import read_capped
from lets_hooks.summary import sources
from lets_hooks.summary.phases import PROMOTE_REF, candidate_text, plan_promotion
from lets_hooks.summary.sources import CONTEXT_LOG, MEMORY_INDEX, LogEntry

ATTEMPTS = 3


@dataclass(frozen=True)
class PromotionResult:
    ok: bool  # False: something stopped the write (the lines say what)
    written: bool
    merged: bool  # MEMORY.md changed between the read and the write; merged on top
    added: tuple[LogEntry, ...]
    lines: tuple[str, ...]  # what happened, for people


def promote(root: Path, *, before_replace: Callable[[], None] | None = None,
            attempts: int = ATTEMPTS) -> PromotionResult:
    """Copy context-log entries with ref ≥ 3 that MEMORY.md lacks into MEMORY.md.

    ``before_replace`` runs after each plan and before the second read: the seam where a
    concurrent writer's change lands (tests use it to be that writer).
    """
    log = sources.read_context_log(root)
    if log.value is None:
        return _stop(True, f"{CONTEXT_LOG} not found; nothing to promote", *log.warnings)
    entries = [entry for entry in log.value.entries if entry.ref >= PROMOTE_REF]
    target = Path(os.path.realpath(root / MEMORY_INDEX))  # through a symlink, to its file

    data, problem = _read_bytes(target)
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
        current, problem = _read_bytes(target)
        if problem:
            return _stop(False, problem)
        if current is None:
            return _stop(False, f"{MEMORY_INDEX} disappeared during the promotion;"
                                " nothing written")
        if current != data:
            merged, data = True, current
            continue
        try:
            _replace(target, plan.text.encode("utf-8"))
        except OSError as exc:
            return _stop(False, f"{MEMORY_INDEX}: cannot write"
                                f" ({exc.strerror or type(exc).__name__}); nothing written")
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


def _read_bytes(path: Path) -> tuple[bytes | None, str | None]:
    data, problem = read_capped(path, MEMORY_INDEX)
    return data, (f"{problem}; nothing written" if problem else None)


def _replace(target: Path, data: bytes) -> None:
    """Write ``data`` to a temporary sibling, then rename it over ``target``."""
    mode = stat.S_IMODE(os.stat(target).st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                         dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    try:  # make the rename itself durable; not every system can open a folder
        folder = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(folder)
    finally:
        os.close(folder)
