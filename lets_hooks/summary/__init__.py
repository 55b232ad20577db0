"""The session-start summary: a deterministic, read-only reading of a project's handoff
and memory files, the user's ``~/.claude`` files, and where the work stands in git.

``collect`` runs every reader (``sources``, ``interventions``), ``phases.summarize``
decides (pure, on the ``records``), and ``render`` prints. ``promote`` is the one write.

Nothing is imported here at import time: ``lets-observability`` imports
``lets_hooks.summary.interventions`` and must not pay for the rest.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from pathlib import Path

    from lets_hooks.summary.records import Inputs, Summary
    from lets_hooks.summary.sources.worktree import Git


def collect(root: Path, home: Path, git: Git | None = None) -> Inputs:
    """Read every input. Never raises on bad input: problems become warnings.

    ``git`` (from ``sources.worktree.look``) is where the work stands; without it git is
    not asked at all (no range and branch lines, function names left unchecked).
    """
    from dataclasses import replace

    from lets_hooks.summary import phases
    from lets_hooks.summary.interventions import read_interventions
    from lets_hooks.summary.records import Inputs, References
    from lets_hooks.summary.sources import (
        read_context_log,
        read_handoff,
        read_lessons,
        read_local_settings,
        read_memory_index,
        read_model_ledger,
        read_settings,
        read_state,
    )
    from lets_hooks.summary.sources.references import check_functions, check_paths

    git_dir = git.git_dir if git is not None else None
    handoff = read_handoff(root, git_dir)
    lessons = read_lessons(root, git_dir)
    context_log = read_context_log(root, git_dir)
    memory = read_memory_index(root, git_dir)
    state = read_state(home)
    settings = read_settings(home)
    allow = read_local_settings(home)
    interventions = read_interventions(home)
    ledger = read_model_ledger(home)

    paths = phases.path_references(handoff.value)
    functions = phases.function_references(handoff.value)
    listed = git.listed_files() if git is not None and functions else None
    search = check_functions(root, listed, functions, git_dir)
    references = References(
        paths=paths,
        missing_paths=check_paths(root, home, paths),
        functions=tuple(text for text, _ in functions),
        missing_functions=search.missing,
        unchecked_functions=search.unchecked,
        searched_files=search.files,
        searched_bytes=search.size,
    )

    where = None
    if git is not None:
        where = git.where
        date = (phases.handoff_date(handoff.value)
                if handoff.value is not None and not handoff.value.empty else None)
        if date is not None:
            where = replace(where, since=git.commits_since(where.boundary,
                                                           phases.date_floor(date)))
        where = replace(where, git_calls=git.repo.calls)

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
        references=references,
        where=where,
        warnings=warnings,
    )


def build_summary(root: Path, home: Path, today: dt.date, git: Git | None = None) -> Summary:
    from lets_hooks.summary import phases

    return phases.summarize(collect(root, home, git), today)


__all__ = ["build_summary", "collect"]
