"""The summary's readers, one module per input (each names its file), plus ``worktree``
(git's answers), ``references`` (what the handoff names, checked) and ``text`` (what they
share). The interventions log is read by ``lets_hooks.summary.interventions``.

Each reader returns a ``Read``: plain records (``None`` when the file does not exist, so
its phase is skipped) and one-line warnings. Readers never raise on bad input (an
unreadable, oversized, non-UTF-8 or malformed file is a warning; what could be read is
returned), parse without deciding (that is ``phases``), and name files the way the user
knows them (``memory/MEMORY.md``, ``~/.claude/settings.json``), never by absolute path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lets_hooks.summary.sources.context_log import CONTEXT_LOG, read_context_log
    from lets_hooks.summary.sources.handoff import HANDOFF, read_handoff
    from lets_hooks.summary.sources.ledger import MODEL_LEDGER, read_model_ledger
    from lets_hooks.summary.sources.lessons import LESSONS, read_lessons
    from lets_hooks.summary.sources.memory_index import MEMORY_INDEX, read_memory_index
    from lets_hooks.summary.sources.settings import (
        LOCAL_SETTINGS,
        SETTINGS,
        read_local_settings,
        read_settings,
    )
    from lets_hooks.summary.sources.state import STATE, read_state

    PROJECT_READERS = (read_handoff, read_context_log, read_lessons, read_memory_index)

# Each name from its module on first use (PEP 562): importing one module of the package
# (``text``, which the checkpoint's write shares) does not load every reader.
_HOME = {
    "CONTEXT_LOG": "context_log", "read_context_log": "context_log",
    "HANDOFF": "handoff", "read_handoff": "handoff",
    "MODEL_LEDGER": "ledger", "read_model_ledger": "ledger",
    "LESSONS": "lessons", "read_lessons": "lessons",
    "MEMORY_INDEX": "memory_index", "read_memory_index": "memory_index",
    "LOCAL_SETTINGS": "settings", "SETTINGS": "settings", "read_local_settings": "settings",
    "read_settings": "settings",
    "STATE": "state", "read_state": "state",
}


def __getattr__(name: str) -> object:
    import importlib

    if name == "PROJECT_READERS":
        return tuple(__getattr__(reader) for reader in (
            "read_handoff", "read_context_log", "read_lessons", "read_memory_index"))
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CONTEXT_LOG", "HANDOFF", "LESSONS", "LOCAL_SETTINGS", "MEMORY_INDEX", "MODEL_LEDGER",
    "PROJECT_READERS", "SETTINGS", "STATE", "read_context_log", "read_handoff", "read_lessons",
    "read_local_settings", "read_memory_index", "read_model_ledger", "read_settings",
    "read_state",
]
