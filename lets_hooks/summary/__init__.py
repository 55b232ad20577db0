"""The session-start summary: a deterministic, read-only reading of a project's handoff
and memory files and the user's ``~/.claude`` files.

``collect`` runs every reader (``sources``), ``phases.summarize`` decides (pure), and
``render`` prints. ``promote`` (in ``promote``) is the one write.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from lets_hooks.summary import phases, sources
from lets_hooks.summary.phases import Inputs, Summary


def collect(root: Path, home: Path) -> Inputs:
    """Read every input. Never raises on bad input: problems become warnings."""
    handoff = sources.read_handoff(root)
    lessons = sources.read_lessons(root)
    context_log = sources.read_context_log(root)
    memory = sources.read_memory_index(root)
    state = sources.read_state(home)
    settings = sources.read_settings(home)
    allow = sources.read_local_settings(home)
    interventions = sources.read_interventions(home)
    ledger = sources.read_model_ledger(home)
    references = phases.path_references(handoff.value)
    paths = sources.check_paths(root, home, references) if memory.value is not None else None
    warnings = (*settings.warnings, *allow.warnings, *handoff.warnings, *lessons.warnings,
                *context_log.warnings, *memory.warnings, *state.warnings,
                *interventions.warnings, *ledger.warnings)
    return Inputs(
        handoff=handoff.value,
        lessons=lessons.value,
        context_log=context_log.value,
        memory=memory.value,
        state=state.value,
        settings=settings.value,
        allow=allow.value,
        interventions=interventions.log,
        ledger=ledger.value,
        paths_exist=paths.exists if paths is not None else {},
        warnings=warnings,
    )


def build_summary(root: Path, home: Path, today: dt.date,
                  session_range: str | None = None) -> Summary:
    return phases.summarize(collect(root, home), today, session_range)


__all__ = ["Inputs", "Summary", "build_summary", "collect"]
