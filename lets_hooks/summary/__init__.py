"""The session-start summary: a deterministic, read-only reading of a project's handoff
and memory files, the user's ``~/.claude`` files, and where the work stands in git.

``collect`` runs every reader (``sources``, ``interventions``), ``phases.summarize``
decides (pure, on the ``records``), ``render`` prints; ``promote`` is the one write.
Nothing is imported here at import time: ``lets-observability`` must not pay for it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from pathlib import Path

    from lets_hooks.summary.records import Handoff, Inputs, References, Summary
    from lets_hooks.summary.sources.worktree import Git


def collect(root: Path, home: Path, git: Git | None = None) -> Inputs:
    """Read every input; problems become warnings, never exceptions. Without ``git``
    (``sources.worktree``) git is not asked at all: no range and branch lines, function
    names left unchecked."""
    from dataclasses import replace

    from lets_hooks.summary.interventions import read_interventions
    from lets_hooks.summary.records import Inputs
    from lets_hooks.summary.sources.context_log import read_context_log
    from lets_hooks.summary.sources.handoff import date_floor, read_handoff, unplaced_warning
    from lets_hooks.summary.sources.ledger import read_model_ledger
    from lets_hooks.summary.sources.lessons import read_lessons
    from lets_hooks.summary.sources.memory_index import read_memory_index
    from lets_hooks.summary.sources.settings import read_local_settings, read_settings
    from lets_hooks.summary.sources.state import read_state

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

    references = check_references(root, home, handoff.value, git)

    reading = handoff.value.reading if handoff.value is not None else None
    where = None
    if git is not None:
        where = git.where
        if reading is not None and reading.date is not None:
            where = replace(where, since=git.commits_since(date_floor(reading.date)))

    unplaced = (unplaced_warning(reading.unplaced),) if reading and reading.unplaced else ()
    warnings = (*settings.warnings, *allow.warnings, *handoff.warnings, *unplaced,
                *lessons.warnings, *context_log.warnings, *memory.warnings, *state.warnings,
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


def check_references(root: Path, home: Path, handoff: Handoff | None, git: Git | None
                     ) -> References:
    """The paths and function names the handoff mentions, checked; those it says were
    removed are left alone. A path not found where written is looked for under a package
    folder among the listed files, skipped when git ignores it or it lies under installed
    code, and confirmed stale when a commit deleted it."""
    from lets_hooks.summary.records import References
    from lets_hooks.summary.sources import references as refs

    reading = handoff.reading if handoff is not None and not handoff.empty else None
    if reading is None or not (reading.paths or reading.functions):
        return References()
    paths, removed = reading.paths, reading.said_removed
    checked_paths = [path for path in paths if path not in removed]
    checked_functions = [(text, name) for text, name in reading.functions
                         if text not in removed]
    git_dir = git.git_dir if git is not None else None
    missing = refs.check_paths(root, home, checked_paths)
    listed = (git.listed_files() if git is not None and (checked_functions or missing)
              else None)
    missing = refs.resolve_relative(missing, listed)
    skipped = [path for path in missing if refs.under_dependencies(path)]
    rest = [path for path in missing if path not in skipped and not path.startswith("~/")]
    if git is not None and rest:
        ignored = git.ignored(rest)
        skipped.extend(path for path in rest if path in ignored)
    missing = tuple(path for path in missing if path not in skipped)
    deleted = (git.deleted([path for path in missing if not path.startswith("~/")])
               if git is not None and missing else set())
    search = refs.check_functions(root, listed, checked_functions, git_dir)
    return References(
        paths=paths,
        missing_paths=missing,
        missing_functions=search.missing,
        unchecked_functions=search.unchecked,
        said_added=tuple(sorted(reading.said_added)),
        deleted=tuple(path for path in missing if path in deleted),
        spelled=reading.spelled,
        reasons=search.reasons,
        capped=search.capped,
    )


def build_summary(root: Path, home: Path, today: dt.date, git: Git | None = None) -> Summary:
    from lets_hooks.summary import phases

    return phases.summarize(collect(root, home, git), today)


__all__ = ["build_summary", "check_references", "collect"]
