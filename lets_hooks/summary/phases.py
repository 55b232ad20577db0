"""The session-start phases as pure functions of the readers' records and today's date.

Nothing here touches the file system, the clock or the environment: ``summarize`` takes
everything the readers returned (an ``Inputs``) and the date, and returns a ``Summary``
record that ``render`` turns into markdown or JSON.

The rules, phase by phase, are docs/summary.md's (its numbers are the constants below):
where the work stands, the environment, the handoff, graduated gates, lesson flags, the
model_tags / context_rot / autoimmunity lines, memory.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from lets_hooks.summary import prose
from lets_hooks.summary.checkpoint import HANDOFF
from lets_hooks.summary.interventions import (
    InterventionLog,
    Rate,
    earliest_tagged,
    false_positive_rate,
    model_tag_count,
    rejection_rate,
    tagged_after,
)
from lets_hooks.summary.prose import one_line, scalar
from lets_hooks.summary.records import (
    AllowList,
    Autoimmunity,
    BranchView,
    ContextLog,
    ContextRot,
    Handoff,
    HandoffDate,
    HandoffView,
    Inputs,
    Lesson,
    LessonsFile,
    Listing,
    LogEntry,
    MemoryIndex,
    MemoryView,
    ModelLedger,
    ModelSetting,
    ModelTags,
    PromotionPlan,
    References,
    Since,
    StateFile,
    Summary,
)
from lets_hooks.summary.sources.memory_index import parse_memory_index
from lets_hooks.summary.sources.text import Facts, is_placeholder, unfenced

KNOWN_MODELS = frozenset({
    "opus", "sonnet", "haiku", "fable",
    "claude-sonnet-5", "claude-opus-4-8", "claude-opus-4-7", "claude-sonnet-4-6",
    "claude-haiku-4-5", "claude-opus-4-5", "claude-sonnet-4-5", "claude-fable-5",
})
ALLOW_LIMIT = 5
HIGH_CONF = 0.7
NORMAL_CONF = 0.5
ACTIVE_DAYS = 30
ACTIVE_OBS = 3
MODEL_REMIND_DAYS = 14
MODEL_REMIND_NEW = 5
STALE_LOG_DAYS = 90
REJECTION_PERIOD_DAYS = 30
IMMUNE_WARN_PERCENT = 5
IMMUNE_ALARM_PERCENT = 15
PROMOTE_REF = 3
MAX_LISTED = 10  # items on one list line before "and N more"
SUMMARY_CHARS = 160

NO_HANDOFF = "[No handoff — starting fresh]"
NOTHING_ACTIONABLE = "no next step found in the handoff; ask the user what to work on first"
DONE_ONLY = ("⚠️ the handoff records what was done, not what to do next: ask the user what"
             " comes next before starting")
PROMOTED_HEADING = "Promoted from the context log"


def listing(items: Sequence[str]) -> Listing:
    """The items (placeholders such as ``_none_`` dropped), the first ``MAX_LISTED`` shown."""
    items = [item for item in items if not is_placeholder(item)]
    return Listing(tuple(items[:MAX_LISTED]), max(0, len(items) - MAX_LISTED))


def summarize(inputs: Inputs, today: dt.date) -> Summary:
    """Every phase, in the order of the readiness block."""
    handoff = handoff_view(inputs.handoff)
    references = inputs.references
    confirmed, doubtful = stale_findings(references)
    stale = tuple(ref for ref, _ in (*confirmed, *doubtful))
    candidates = (not_yet_promoted(inputs.context_log.entries, inputs.memory.text)
                  if inputs.context_log is not None and inputs.memory is not None else ())
    tags = model_tags(inputs.lessons, inputs.interventions, inputs.ledger, today)
    immune = autoimmunity(inputs.interventions, today)
    where = inputs.where
    date = handoff.date if handoff else None
    return Summary(
        today=today,
        session_range=where.range_desc if where is not None else None,
        last_session=(inputs.handoff.reading.last_range
                      if inputs.handoff is not None and inputs.handoff.reading is not None
                      else None),
        branch=None if where is None else BranchView(  # None: git was not asked
            where.repository, where.branch, where.head, where.tree, date,
            stale_handoff(where.since, date, references.paths)),
        handoff=handoff,
        gates=(inputs.lessons.gates or ()) if inputs.lessons else (),
        lesson_flags=lesson_flags(inputs.lessons, today),
        memory_alerts=memory_alerts(inputs.memory, confirmed, doubtful, candidates,
                                    unchecked_alert(references)),
        model_analysis=model_analysis(tags),
        immune_rate=immune_rate(immune),
        global_items=global_items(inputs.state),
        environment_alerts=environment_alerts(inputs.settings, inputs.allow),
        model_tags=tags if tags is not None and tags.total > 0 else None,
        context_rot=context_rot(inputs.context_log, today),
        autoimmunity=immune,
        memory=memory_view(inputs.memory),
        promotion_candidates=candidates,
        stale_references=stale,
        unchecked_references=references.unchecked_functions,
        warnings=inputs.warnings,
    )


def _clip(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"


# --------------------------------------------------------------------------- Phase 1: handoff


def handoff_view(handoff: Handoff | None) -> HandoffView | None:
    """None when there is no handoff, or it is empty: the block says to start fresh."""
    reading = handoff.reading if handoff is not None and not handoff.empty else None
    if handoff is None or reading is None:
        return None
    snapshot = handoff.snapshot
    priorities = list(reading.next_items or reading.priorities)
    blockers = unique_blockers((*reading.blocked, *reading.blockers))
    return HandoffView(
        source="state-snapshot" if reading.next_items else "prose",
        priority_1=priorities[0] if priorities else NOTHING_ACTIONABLE,
        priority_2=priorities[1] if len(priorities) > 1 else None,
        more_steps=max(0, len(priorities) - 2),
        recent_changes=("; ".join(reading.changes) or "none") if snapshot is not None else None,
        outstanding_decisions=listing(reading.decisions),
        active_blockers=listing(blockers),
        frontmatter=handoff.frontmatter,
        snapshot=snapshot,
        do_not_repeat=listing(reading.avoid),
        risks=listing(reading.risks),
        approvals=listing([_clip(item) for item in reading.approvals]),
        done_only=DONE_ONLY if not priorities and (reading.changes or reading.done) else None,
        date=reading.date,
    )


# (no leading blanks in the pattern: a search that began at every blank of a long run
# would be quadratic; they are dropped with ``strip`` instead)
_RISK_NOTE = re.compile(r"[(\[][ \t]*(?:risk|위험|리스크)[ \t]*[:=][^()\[\]\n]{0,40}[)\]][ \t.]*$",
                        re.IGNORECASE)


def unique_blockers(items: Iterable[str]) -> list[str]:
    """Each blocker once, where it first stands (the snapshot's first, then the prose's);
    of two spellings of one (the same words, whatever the case, the blanks and a ``(risk:
    H)`` at the end), the one that gives its risk."""
    found: dict[str, str] = {}
    for item in items:
        key = " ".join(_RISK_NOTE.sub("", item).casefold().split()).rstrip(". ")
        if key not in found or (_RISK_NOTE.search(item) is not None
                                and _RISK_NOTE.search(found[key]) is None):
            found[key] = item
    return list(found.values())


# The summary's own inputs: a commit that changes only these is bookkeeping, not work.
BOOKKEEPING = ("memory/", "tasks/lessons.md")


SHOWN_TOUCHES = 5  # commits and paths named on the stale-handoff line


def stale_handoff(since: Since | None, date: HandoffDate | None, named: Sequence[str]
                  ) -> str | None:
    """The warning when work was committed after the handoff was written: how many
    commits of HEAD's history came after it (this session's and earlier ones), how many
    of them touch paths it names, and which.

    A commit is after the handoff when its committer time is later. With only a day, a
    commit of a later day (UTC) is, and so is one of the same day that touches a named
    path; the day's other commits are said as ones that may have come after it (never
    fewer than there may be). Not counted: the handoff's own commits, anything committed
    before the newest of them, and commits that change only ``BOOKKEEPING``. "At least"
    when the commits read stopped at their limit."""
    if since is None or date is None or not since.commits:
        return None
    instant = date.instant
    committed = [when for _, when, paths in since.commits if HANDOFF in paths]
    if committed and (instant is None or max(committed) > instant):
        instant = float(max(committed))
    touches = _Touches(named)
    after = maybe = 0
    touching: list[str] = []  # the touching commits' short ids
    paths_touched: dict[str, None] = {}
    for sha, when, paths in since.commits:
        if HANDOFF in paths or (paths and all(
                path.startswith(BOOKKEEPING) for path in paths)):
            continue
        touched = touches.which(paths)
        if instant is not None:
            later, unsure = when > instant, False
        else:
            day = dt.datetime.fromtimestamp(when, dt.timezone.utc).date()
            later = day > date.day or (day == date.day and bool(touched))
            unsure = day == date.day and not touched
        if later:
            after += 1
            if touched:
                touching.append(sha[:7])
                paths_touched.update(dict.fromkeys(touched))
        elif unsure:
            maybe += 1
    if not after and not maybe:
        return None
    least = "at least " if since.more else ""
    if after:
        count = (f"{least}{after:,} commit{'s' if after != 1 else ''} since the handoff"
                 f" ({date.text})")
        if maybe:
            count += f" and {maybe:,} more of {date.day.isoformat()} that may have come after it"
    else:
        count = (f"{least}{maybe:,} commit{'s' if maybe != 1 else ''} of the handoff's day"
                 f" ({date.text}) that may have come after it")
    if touching:
        shas = ", ".join(touching[:SHOWN_TOUCHES])
        if len(touching) > SHOWN_TOUCHES:
            shas += f" and {len(touching) - SHOWN_TOUCHES:,} more"
        names = sorted(paths_touched, key=touches.order.__getitem__)
        shown = ", ".join(f"`{name}`" for name in names[:SHOWN_TOUCHES])
        if len(names) > SHOWN_TOUCHES:
            shown += f" and {len(names) - SHOWN_TOUCHES:,} more"
        which = f"{len(touching):,} of them ({shas}) touching paths it names ({shown})"
    else:
        which = "none of them touching a path it names"
    return f"⚠️ {count}, {which}: check them before trusting it"


class _Touches:
    """Does a changed path touch a path the handoff names: the path itself, a file in a
    folder it names, or the same path under a package folder (``summary/render.py`` for
    ``lets_hooks/summary/render.py``)?"""

    def __init__(self, named: Sequence[str]) -> None:
        self.named = frozenset(name.rstrip("/") for name in named
                               if name and not name.startswith("~/"))
        self.order = {name.rstrip("/"): index for index, name in reversed(list(enumerate(named)))}

    def which(self, paths: Iterable[str]) -> list[str]:
        """The named paths that the changed ``paths`` touch, in the order found."""
        found: dict[str, None] = {}
        for path in paths:
            if path in self.named:
                found.setdefault(path)
            at = path.find("/")
            while at >= 0:
                for name in (path[:at], path[at + 1:]):
                    if name in self.named:
                        found.setdefault(name)
                at = path.find("/", at + 1)
        return list(found)


# --------------------------------------------------------------------------- Phase 0.5


def model_id_ok(value: object) -> bool:
    if not isinstance(value, str):
        return False
    bare = value.strip()
    if bare.endswith("]"):  # a context suffix such as "[1m]"
        opening = bare.rfind("[", 0, len(bare) - 1)
        if opening >= 0 and "]" not in bare[opening:-1]:
            bare = bare[:opening]
    return bare in KNOWN_MODELS


def environment_alerts(settings: ModelSetting | None, allow: AllowList | None
                       ) -> tuple[str, ...]:
    alerts: list[str] = []
    if settings is not None and settings.present and not model_id_ok(settings.value):
        value = settings.value
        shown = value if isinstance(value, str) else "null" if value is None else scalar(value)
        alerts.append(f'⚠️ ~/.claude/settings.json: model "{shown}" is not a known model id;'
                      " update it")
    if allow is not None and allow.count > ALLOW_LIMIT:
        alerts.append(f"⚠️ ~/.claude/settings.local.json: permissions.allow has {allow.count}"
                      f" entries (more than {ALLOW_LIMIT}); prune it")
    return tuple(alerts)


# --------------------------------------------------------------------------- Phase 2: lessons


def _age(today: dt.date, day: dt.date) -> int:
    return (today - day).days


def is_active(lesson: Lesson, today: dt.date) -> bool:
    seen = lesson.seen or lesson.date
    return (lesson.obs is not None and lesson.obs >= ACTIVE_OBS
            and 0 <= _age(today, seen) <= ACTIVE_DAYS)


def lesson_tier(lesson: Lesson) -> int:
    """2: verified (conf ≥ 0.7); 1: normal (0.5 ≤ conf < 0.7, or no conf); 0: below 0.5."""
    if lesson.conf is None:
        return 1
    if lesson.conf >= HIGH_CONF:
        return 2
    return 1 if lesson.conf >= NORMAL_CONF else 0


def lesson_flag(lesson: Lesson, today: dt.date) -> str:
    text = lesson.title or "(untitled)"
    if lesson_tier(lesson) == 2 and lesson.summary:
        text = f"{text} — {_clip(one_line(lesson.summary))}"
    details: list[str] = []
    if lesson.conf is not None:
        details.append(f"conf {lesson.conf:g}")
    active = is_active(lesson, today)
    if active:
        details += [f"obs {lesson.obs}", f"seen {(lesson.seen or lesson.date).isoformat()}"]
    suffix = f" ({', '.join(details)})" if details else ""
    return f"{'[active] ' if active else ''}{text}{suffix}"


def lesson_flags(lessons: LessonsFile | None, today: dt.date) -> Listing | None:
    if lessons is None:
        return None
    chosen: list[tuple[tuple[int, int, int, int], str]] = []
    for index, lesson in enumerate(lessons.lessons):
        active = is_active(lesson, today)
        tier = lesson_tier(lesson)
        if tier == 0 and not active:
            continue
        newest = (lesson.seen or lesson.date).toordinal()
        chosen.append(((0 if active else 1, -tier, -newest, index), lesson_flag(lesson, today)))
    return listing([text for _, text in sorted(chosen)])  # (each key holds its own index)


# --------------------------------------------------------------------------- Phase 2.2


def model_tags(lessons: LessonsFile | None, log: InterventionLog | None,
               ledger: ModelLedger | None, today: dt.date) -> ModelTags | None:
    """None when neither the lessons file nor the interventions folder exists. A lesson
    counts once however many ``model:`` lines it has."""
    if lessons is None and log is None:
        return None
    tagged = [lesson for lesson in (lessons.lessons if lessons else ()) if lesson.model]
    records_tagged = model_tag_count(log) if log else 0

    baseline: dt.date | None = ledger.last_analysis if ledger else None
    source = "ledger" if baseline is not None else "none"
    if baseline is None:
        dates = [lesson.seen or lesson.date for lesson in tagged]
        first_record = earliest_tagged(log) if log else None
        if first_record is not None:
            dates.append(first_record)
        if dates:
            baseline, source = min(dates), "earliest tag"

    new = 0
    if baseline is not None:
        new = sum(1 for lesson in tagged if (lesson.seen or lesson.date) > baseline)
        new += tagged_after(log, baseline) if log else 0
    days = None if baseline is None else _age(today, baseline)
    return ModelTags(
        lessons_tagged=len(tagged),
        records_tagged=records_tagged,
        new=new,
        baseline=baseline,
        baseline_source=source,
        days_elapsed=days,
        remind=days is not None and days >= MODEL_REMIND_DAYS and new >= MODEL_REMIND_NEW,
    )


def model_analysis(tags: ModelTags | None) -> str | None:
    if tags is None or tags.total == 0 or not tags.remind:
        return None
    return (f"💡 model-difference analysis is due (new={tags.new},"
            f" days_elapsed={tags.days_elapsed}): ask for a model analysis to group the"
            " tags and find rules worth promoting")


# --------------------------------------------------------------------------- Phase 2.3


def context_rot(log: ContextLog | None, today: dt.date) -> ContextRot | None:
    """Entries with ref:0 older than ``STALE_LOG_DAYS`` (by their own date) are skipped.
    The total counts the entries: a ``##`` heading that is not an entry header (``##
    Archive``) is a warning, and counted nowhere."""
    if log is None:
        return None
    skipped = sum(1 for entry in log.entries
                  if entry.ref == 0 and _age(today, entry.date) > STALE_LOG_DAYS)
    return ContextRot(len(log.entries), skipped)


# --------------------------------------------------------------------------- Phase 2.4


def autoimmunity(log: InterventionLog | None, today: dt.date) -> Autoimmunity | None:
    """None when the interventions folder is missing or holds nothing in the period."""
    if log is None:
        return None
    labelled = false_positive_rate(log, today, REJECTION_PERIOD_DAYS)
    rate = labelled or rejection_rate(log, today, REJECTION_PERIOD_DAYS)
    if rate.whole == 0:
        return None
    return Autoimmunity(rate.part, rate.whole, REJECTION_PERIOD_DAYS, labelled is not None)


def immune_rate(result: Autoimmunity | None) -> str | None:
    """The Immune rate line: above 5% a warning, above 15% an alarm, both judged on the
    rounded figure that is printed."""
    if result is None:
        return None
    rate = Rate(result.rejections, result.total)
    what = "false-positive" if result.labelled else "rejection"
    if rate.above(IMMUNE_ALARM_PERCENT):
        proxy = "" if result.labelled else " (proxy)"
        return f"🚨 gate {what} rate {rate.text}{proxy}: consider cutting or redesigning gates"
    if not rate.above(IMMUNE_WARN_PERCENT):
        return None
    counts = (f"{result.rejections} of {result.total} records labelled false positives"
              if result.labelled else f"rejection {result.rejections} of {result.total};"
              " a proxy, not a measured false-positive rate")
    return f"⚠️ gate {what} rate {rate.text} ({counts}): check whether the gates over-intervene"


# --------------------------------------------------------------------------- Phase 3


def global_items(state: StateFile | None) -> Listing:
    """Open decisions and blockers of STATE.md; an empty listing ("none") when it is
    missing or holds nothing open."""
    if state is None:
        return listing([])
    kinds = {prose.DECISIONS: "decision", prose.BLOCKERS: "blocker"}
    return listing([f"{kinds[part.role.kind]}: {item}" for part in prose.parts(state.sections)
                    if part.role.kind in kinds for item in part.open_items])


# --------------------------------------------------------------------------- Phase 4


def memory_view(memory: MemoryIndex | None) -> MemoryView | None:
    if memory is None:
        return None
    if not memory.tagged:
        text = memory.text.strip("\n")
        return MemoryView((text,) if text.strip() else (), (), False)
    always = tuple(section.text for section in memory.sections if section.tag == "always")
    on_demand = tuple(section.title for section in memory.sections if section.tag == "on-demand")
    return MemoryView(always, on_demand, True)


_DATE_TAG = re.compile(r"\[\d{4}-\d{2}-\d{2}\]")


def not_yet_promoted(entries: Iterable[LogEntry], memory_text: str) -> tuple[LogEntry, ...]:
    """Entries with ref ≥ ``PROMOTE_REF`` that MEMORY.md does not hold yet: no line holds
    both the entry's ``[date]`` and its title, and MEMORY.md does not say its title or its
    first body line in other case, emphasis or punctuation (``Facts``); each date and
    title once, in log order."""
    by_date: dict[str, list[str]] = {}  # MEMORY.md's lines under each date tag they hold
    for line in memory_text.split("\n"):
        for tag in dict.fromkeys(_DATE_TAG.findall(line)):
            by_date.setdefault(tag, []).append(line)
    facts: Facts | None = None
    chosen: dict[tuple[str, str], LogEntry] = {}
    for entry in entries:
        if entry.ref < PROMOTE_REF:
            continue
        key = (f"[{entry.date.isoformat()}]", entry.title)
        if key in chosen or any(key[1] in line for line in by_date.get(key[0], ())):
            continue
        facts = facts or Facts(memory_text)
        if facts.holds(entry.title) or (entry.summary and facts.holds(entry.summary)):
            continue
        chosen[key] = entry
    return tuple(chosen.values())


def candidate_text(entry: LogEntry) -> str:
    kind = f"[{entry.type}]" if entry.type else ""
    return f"[{entry.date.isoformat()}]{kind} {entry.title} (ref:{entry.ref})"


def stale_findings(references: References
                   ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The stale references as (what the handoff says, the alert), in two ranks: those
    confirmed (a commit deleted or renamed the path away, or the handoff says it was
    added and it is not there), then the rest; each rank in the handoff's order. A path
    is named as the handoff wrote it (``src\\a.py``, checked as ``src/a.py``)."""
    deleted = frozenset(references.deleted)
    added = frozenset(references.said_added)
    spelled = dict(references.spelled)
    reasons = dict(references.reasons)
    confirmed: list[tuple[str, str]] = []
    doubtful: list[tuple[str, str]] = []
    for path in references.missing_paths:
        ref = spelled.get(path, path)
        shown = f"`{ref}`" if ref == path else f"`{ref}` (`{path}`)"
        if path in deleted:
            rank, said = confirmed, "but a commit deleted or renamed it"
        elif path in added:
            rank, said = confirmed, "as added but does not exist"
        else:
            rank, said = doubtful, "but does not exist"
        rank.append((ref, f"stale reference: {shown} is named in the handoff {said}"))
    nowhere = "found in none of the project's files"
    for ref in references.missing_functions:
        reason = reasons.get(ref)
        if reason is not None:
            rank, said = confirmed, f"but {reason}"
        elif ref in added:
            rank, said = confirmed, f"as added but {nowhere}"
        else:
            rank, said = doubtful, f"but {nowhere}"
        rank.append((ref, f"stale reference: `{ref}` is named in the handoff {said}"))
    return confirmed, doubtful


UNCHECKED_SHOWN = 10


def unchecked_alert(references: References) -> str | None:
    """The line that says which names the search's cap left unchecked (never stale, never
    known to be current)."""
    names = references.unchecked_functions
    if not names or references.capped is None:
        return None  # (without git, nothing is searched: no cap to speak of)
    shown = ", ".join(f"`{name}`" for name in names[:UNCHECKED_SHOWN])
    if len(names) > UNCHECKED_SHOWN:
        shown += f" and {len(names) - UNCHECKED_SHOWN} more"
    return (f"not checked: {shown}: the search of the project's files stopped at its cap"
            f" ({references.capped}) before finding them; they may be stale")


def memory_alerts(memory: MemoryIndex | None, confirmed: Sequence[tuple[str, str]],
                  doubtful: Sequence[tuple[str, str]], candidates: Sequence[LogEntry],
                  unchecked: str | None) -> Listing | None:
    """None when there is no MEMORY.md and nothing named in the handoff is stale.

    Ranked, so that the cap never hides a sure finding behind a doubtful one: stale
    references confirmed by git or by the handoff's own words, then promotion
    candidates, then the other stale references, then the names a cap left unchecked."""
    if memory is None and not confirmed and not doubtful and unchecked is None:
        return None
    items = [text for _, text in confirmed]
    items.extend(f"promotion candidate: {candidate_text(entry)}" for entry in candidates)
    items.extend(text for _, text in doubtful)
    if unchecked is not None:
        items.append(unchecked)
    return listing(items)


# --------------------------------------------------------------------------- the one write


def plan_promotion(memory_text: str, entries: Sequence[LogEntry]) -> PromotionPlan:
    """Add a line for each entry (ref ≥ ``PROMOTE_REF``) not already in ``memory_text``.

    The lines go at the end of the ``## Promoted from the context log`` section, which is
    created at the end of the file when missing (tagged ``#always`` when the file uses
    tags, so that an untagged file keeps loading whole). Every other byte is kept, and
    the file's line ending (LF or CRLF) is used for the new lines.
    """
    index = parse_memory_index(memory_text)
    added = not_yet_promoted(entries, memory_text)
    if not added:
        return PromotionPlan(memory_text, ())
    newline = "\r\n" if "\r\n" in memory_text else "\n"
    new_lines = [f"- {candidate_text(entry)}"
                 + (f" — {_clip(one_line(entry.summary))}" if entry.summary else "")
                 for entry in added]
    ending = "" if not memory_text or memory_text.endswith("\n") else newline
    base = memory_text + ending
    pieces = base.split("\n")  # ends with "" since ``base`` ends with a line end
    where = _promoted_section_end(pieces)
    if where is None:
        tag = " <!-- #always -->" if index.tagged else ""
        gap = newline if base.strip() and not base.endswith(newline * 2) else ""
        block = [f"## {PROMOTED_HEADING}{tag}", "", *new_lines]
        inserted = gap + newline.join(block) + newline
        return PromotionPlan(base + inserted, added, inserted, bool(ending))
    cr = "\r" if newline == "\r\n" else ""
    merged = pieces[:where] + [line + cr for line in new_lines] + pieces[where:]
    return PromotionPlan("\n".join(merged), added,
                         "".join(line + newline for line in new_lines), bool(ending))


def _promoted_section_end(pieces: Sequence[str]) -> int | None:
    """Index just after the last non-blank line of the promoted section, or None."""
    start: int | None = None
    for index, raw in unfenced(pieces):
        line = raw.rstrip("\r")
        if not line.startswith("#"):
            continue
        level = len(line) - len(line.lstrip("#"))
        if start is None:
            title = line.lstrip("#").strip().lower()
            if level == 2 and title.startswith(PROMOTED_HEADING.lower()):
                start = index
        elif level <= 2:
            return _last_filled(pieces, start, index)
    return None if start is None else _last_filled(pieces, start, len(pieces))


def _last_filled(pieces: Sequence[str], start: int, end: int) -> int:
    return 1 + max((index for index in range(start, end) if pieces[index].strip()),
                   default=start)
