"""The session-start phases as pure functions of the readers' records and today's date.

Nothing here touches the file system, the clock or the environment: ``summarize`` takes
everything the readers returned (an ``Inputs``) and the date, and returns a ``Summary``
record that ``render`` turns into markdown or JSON.

The rules, phase by phase (the numbers are the constants below):

- Where the work stands: the ladder's range line; the branch, the working tree's
  staged / modified / untracked counts, the handoff's own date, and a warning when the
  handoff is older than the session boundary's commit.
- Environment: the ``model`` of ``~/.claude/settings.json`` (a ``[1m]``-style suffix
  dropped) must be one of ``KNOWN_MODELS``; ``permissions.allow`` of
  ``settings.local.json`` may hold at most ``ALLOW_LIMIT`` entries.
- Handoff: the state-snapshot block first (``next`` → Priority 1 and 2, ``blocked`` →
  active blockers, ``diff`` → recent changes), the prose sections (``prose``) for
  whatever it lacks: numbered priorities, next steps, questions → outstanding
  decisions, failed approaches → do not repeat, approvals that do not carry over, and a
  warning when it records only finished work. An empty handoff counts as none.
- Graduated gates: every row of the table, ``id trigger → check``.
- Lesson flags: conf ≥ 0.7 → title and a one-line summary; 0.5 ≤ conf < 0.7 and legacy
  lessons (no metadata) → title; conf < 0.5 → not shown. Seen within ``ACTIVE_DAYS``
  (day ``ACTIVE_DAYS`` included) with obs ≥ ``ACTIVE_OBS`` is an active pattern: always
  shown, first.
- model_tags / context_rot / autoimmunity: the fixed lines, with their omission rules;
  records labelled ``false_positive`` replace the rejection proxy.
- Memory: ``#always`` sections loaded, ``#on-demand`` headers listed; stale paths and
  function names in the handoff and context-log entries with ref ≥ ``PROMOTE_REF`` are
  memory alerts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence

from lets_hooks.summary import prose
from lets_hooks.summary.interventions import (
    InterventionLog,
    Rate,
    earliest_tagged,
    false_positive_rate,
    iso_date,
    model_tag_count,
    rejection_rate,
    tagged_after,
)
from lets_hooks.summary.prose import one_line, real_items
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
    StateFile,
    Summary,
    Where,
)
from lets_hooks.summary.sources.memory_index import parse_memory_index
from lets_hooks.summary.sources.text import Facts, is_placeholder

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
MAX_PATH_REFERENCES = 20
MAX_FUNCTION_REFERENCES = 10
SUMMARY_CHARS = 160

NO_HANDOFF = "[No handoff — starting fresh]"
NOTHING_ACTIONABLE = "no next step found in the handoff; ask the user what to work on first"
DONE_ONLY = ("⚠️ the handoff records what was done, not what to do next: ask the user what"
             " comes next before starting")
PROMOTED_HEADING = "Promoted from the context log"


def listing(items: Sequence[str], limit: int = MAX_LISTED) -> Listing:
    """The items (placeholders such as ``_none_`` dropped), the first ``limit`` shown."""
    items = [item for item in items if not is_placeholder(item)]
    return Listing(tuple(items[:limit]), max(0, len(items) - limit))


def summarize(inputs: Inputs, today: dt.date) -> Summary:
    """Every phase, in the order of the readiness block."""
    handoff = handoff_view(inputs.handoff)
    references = inputs.references
    stale = (*references.missing_paths, *references.missing_functions)
    candidates = promotion_candidates(inputs.context_log, inputs.memory)
    tags = model_tags(inputs.lessons, inputs.interventions, inputs.ledger, today)
    immune = autoimmunity(inputs.interventions, today)
    where = inputs.where
    return Summary(
        today=today,
        session_range=where.range_desc if where is not None else None,
        branch=branch_view(where, handoff.date if handoff else None, inputs.handoff),
        handoff=handoff,
        gates=(inputs.lessons.gates or ()) if inputs.lessons else (),
        lesson_flags=lesson_flags(inputs.lessons, today),
        memory_alerts=memory_alerts(inputs.memory, references.missing_paths,
                                    references.missing_functions, candidates),
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


# --------------------------------------------------------------------------- text helpers


def _clip(text: str, limit: int = SUMMARY_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return ", ".join(f"{_scalar(k)}: {_scalar(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_scalar(v) for v in value)
    return one_line(str(value))


def _as_items(value: object) -> list[object]:
    """A snapshot field as a list: writers give a list, a single string, or nothing."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [item for item in value if item is not None and item != ""]
    return [value]


def _pick(mapping: Mapping[object, object], *keys: str) -> str | None:
    for key in keys:
        value = mapping.get(key)
        if value is not None and value != "":
            return _scalar(value)
    return None


def next_item_text(item: object) -> str:
    if isinstance(item, Mapping):
        main = _pick(item, "item", "task", "title", "what")
        if main is None:
            return _scalar(item)
        why = _pick(item, "why")
        return f"{main} ({why})" if why else main
    return _scalar(item)


def diff_item_text(item: object) -> str:
    if isinstance(item, Mapping):
        op, what, why = _pick(item, "op"), _pick(item, "item"), _pick(item, "why")
        if op is None and what is None:
            return _scalar(item)
        head = " ".join(part for part in (op, what) if part)
        return f"{head} ({why})" if why else head
    return _scalar(item)


def blocked_item_text(item: object) -> str:
    if isinstance(item, Mapping):
        what, risk = _pick(item, "item"), _pick(item, "risk")
        if what is None:
            return _scalar(item)
        return f"{what} (risk: {risk})" if risk else what
    return _scalar(item)


# --------------------------------------------------------------------------- Phase 1: handoff


def handoff_view(handoff: Handoff | None) -> HandoffView | None:
    """None when there is no handoff, or it is empty: the block says to start fresh."""
    if handoff is None or handoff.empty:
        return None
    snapshot = handoff.snapshot
    parts = prose.parts(handoff.sections)
    next_items: list[str] = []
    changes: list[str] = []
    blocked: list[str] = []
    source = "prose"
    if snapshot is not None:
        next_items = real_items(next_item_text(item) for item in _as_items(snapshot.get("next")))
        changes = [change for change in real_items(diff_item_text(item) for item in _as_items(
            snapshot.get("diff"))) if not is_placeholder(change)]
        blocked = real_items(blocked_item_text(item)
                             for item in _as_items(snapshot.get("blocked")))
    priorities = [item for item in next_items if not is_placeholder(item)]
    if priorities:
        source = "state-snapshot"
    else:
        priorities = [item for item in prose.priorities(parts) if not is_placeholder(item)]

    if snapshot is not None and "blocked" in snapshot:
        blockers = blocked
    else:
        blockers = prose.items_of(parts, prose.BLOCKERS)

    done_only = None
    if not priorities and (changes or prose.done_work(parts)):
        done_only = DONE_ONLY

    return HandoffView(
        source=source,
        priority_1=priorities[0] if priorities else NOTHING_ACTIONABLE,
        priority_2=priorities[1] if len(priorities) > 1 else None,
        more_steps=max(0, len(priorities) - 2),
        recent_changes=("; ".join(changes) or "none") if snapshot is not None else None,
        outstanding_decisions=listing(prose.items_of(parts, prose.DECISIONS)),
        active_blockers=listing(blockers),
        frontmatter=handoff.frontmatter,
        snapshot=snapshot,
        do_not_repeat=listing(prose.items_of(parts, prose.AVOID)),
        approvals=listing([_clip(item) for item in prose.approvals(
            handoff.sections, (*next_items, *changes, *blocked))]),
        done_only=done_only,
        date=handoff_date(handoff),
    )


DATE_KEYS = ("ts", "timestamp", "date", "updated", "last_updated", "last-updated",
             "written", "created")


def handoff_date(handoff: Handoff) -> HandoffDate | None:
    """The newest date the handoff gives for itself: its frontmatter's ``ts``, ``date``,
    ``updated`` (and the like) or its state-snapshot's ``ts``; a value with a time of day
    beats one with only the same day."""
    found: list[HandoffDate] = []
    for where, mapping in (("frontmatter", handoff.frontmatter),
                           ("state-snapshot", handoff.snapshot)):
        for key in DATE_KEYS:
            if mapping is not None and key in mapping:
                parsed = _parse_when(mapping[key], f"{where} {key}")
                if parsed is not None:
                    found.append(parsed)
    if not found:
        return None
    return max(found, key=lambda d: (d.day, d.instant is not None, d.instant or 0.0))


def _parse_when(value: object, source: str) -> HandoffDate | None:
    if isinstance(value, dt.datetime):
        return _instant(value, source)
    if isinstance(value, dt.date):
        return HandoffDate(value, None, value.isoformat(), source)
    if not isinstance(value, str):
        return None
    text = value.strip()
    day = iso_date(text[:10])
    if day is None:
        return None
    rest = text[10:].strip()
    if rest and text[10:11] in ("T", "t", " "):
        stamp = text[:10] + "T" + text[11:].strip()
        if stamp.endswith(("Z", "z")):
            stamp = stamp[:-1] + "+00:00"
        try:
            return _instant(dt.datetime.fromisoformat(stamp), source)
        except ValueError:
            pass
    return HandoffDate(day, None, day.isoformat(), source)


def _instant(value: dt.datetime, source: str) -> HandoffDate:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
    utc = aware.astimezone(dt.timezone.utc)
    return HandoffDate(utc.date(), utc.timestamp(), utc.strftime("%Y-%m-%d %H:%M UTC"), source)


def branch_view(where: Where | None, date: HandoffDate | None, handoff: Handoff | None
                ) -> BranchView | None:
    """None when git was not asked. The handoff is stale when it was written before the
    session boundary's commit: by the instant when it gives a time, else by the day
    (both in UTC), so a handoff written the same day is never called stale."""
    if where is None:
        return None
    stale = None
    if date is not None and where.boundary_time is not None:
        commit = dt.datetime.fromtimestamp(where.boundary_time, dt.timezone.utc)
        older = (date.instant < where.boundary_time if date.instant is not None
                 else date.day < commit.date())
        if older:
            stale = (f"⚠️ the handoff ({date.text}) is older than the session boundary's"
                     f" commit ({commit.strftime('%Y-%m-%d %H:%M UTC')}): it was written"
                     " before the work since; check the commits before trusting it")
    return BranchView(
        repository=where.repository, branch=where.branch, head=where.head, tree=where.tree,
        handoff_date=date if handoff is not None and not handoff.empty else None,
        stale_handoff=stale,
    )


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
        shown = value if isinstance(value, str) else "null" if value is None else _scalar(value)
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
    """Seen within ``ACTIVE_DAYS`` days (its ``seen`` date, else its header date; day
    ``ACTIVE_DAYS`` itself included) and observed at least ``ACTIVE_OBS`` times."""
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
        details.append(f"obs {lesson.obs}")
        details.append(f"seen {(lesson.seen or lesson.date).isoformat()}")
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
    chosen.sort(key=lambda pair: pair[0])
    return listing([text for _, text in chosen])


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
    """Entries with ref:0 older than ``STALE_LOG_DAYS`` (by their own date) are skipped."""
    if log is None:
        return None
    skipped = sum(1 for entry in log.entries
                  if entry.ref == 0 and _age(today, entry.date) > STALE_LOG_DAYS)
    return ContextRot(log.headers, skipped)


# --------------------------------------------------------------------------- Phase 2.4


def autoimmunity(log: InterventionLog | None, today: dt.date) -> Autoimmunity | None:
    """None when the interventions folder is missing or holds nothing in the period.
    When some record of the period carries ``false_positive``, only the records labelled
    ``false_positive: true`` count, and the figure is no longer a proxy."""
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
    if result.labelled:
        if rate.above(IMMUNE_ALARM_PERCENT):
            return (f"🚨 gate false-positive rate {rate.text}: consider cutting or"
                    " redesigning gates")
        if rate.above(IMMUNE_WARN_PERCENT):
            return (f"⚠️ gate false-positive rate {rate.text} ({result.rejections} of"
                    f" {result.total} records labelled false positives): check whether the"
                    " gates over-intervene")
        return None
    if rate.above(IMMUNE_ALARM_PERCENT):
        return f"🚨 gate rejection rate {rate.text} (proxy): consider cutting or redesigning gates"
    if rate.above(IMMUNE_WARN_PERCENT):
        return (f"⚠️ gate rejection rate {rate.text} (rejection {result.rejections} of"
                f" {result.total}; a proxy, not a measured false-positive rate): check"
                " whether the gates over-intervene")
    return None


# --------------------------------------------------------------------------- Phase 3


def global_items(state: StateFile | None) -> Listing:
    """Open decisions and blockers of STATE.md; an empty listing ("none") when it is
    missing or holds nothing open."""
    if state is None:
        return listing([])
    items: list[str] = []
    for part in prose.parts(state.sections):
        open_items = [item for item in part.open_items if not is_placeholder(item)]
        if part.role.kind == prose.DECISIONS:
            items.extend(f"decision: {item}" for item in open_items)
        elif part.role.kind == prose.BLOCKERS:
            items.extend(f"blocker: {item}" for item in open_items)
    return listing(items)


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


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_BARE_PATH = re.compile(
    r"(?<![\w./~@:$-])((?:~/|\./)?(?:[\w.-]+/)+[\w.-]*\.[A-Za-z0-9]{1,10})(?![\w/])")
FILE_SUFFIXES = frozenset((
    "md", "txt", "rst", "py", "pyi", "json", "jsonl", "yaml", "yml", "toml", "cfg", "ini",
    "sh", "bash", "js", "mjs", "ts", "tsx", "jsx", "rs", "go", "java", "kt", "c", "h", "cpp",
    "hpp", "rb", "php", "html", "css", "sql", "csv", "xml", "lock", "log", "env",
))
_FILE_NAME = re.compile(r"[\w-][\w.-]*\.(?:" + "|".join(sorted(FILE_SUFFIXES)) + r")")
_LINE_SUFFIX = re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$")
# The last label of a host name: "github.com/acme/tool.git" is an address, not a path.
HOST_SUFFIXES = frozenset((
    "com", "org", "net", "io", "dev", "app", "ai", "co", "gov", "edu", "info", "me", "us",
    "uk", "de", "fr", "jp", "cn", "ru", "eu", "ca", "au", "nl", "ch", "se", "es", "it", "pl",
    "br", "in", "xyz", "cloud", "site", "tech", "page", "so", "ly", "gg", "tv", "fm", "rs",
    "sh", "to", "cc", "biz", "online", "pub", "services",
))


def _is_version(part: str) -> bool:
    """``3.11``, ``v1.2.0``: digits and dots (an optional leading ``v``), with a dot."""
    body = part[1:] if part[:1] in ("v", "V") else part
    return "." in body and bool(body) and all(c in "0123456789." for c in body)


def _is_host(part: str) -> bool:
    """``github.com``, ``www.example.org``: a dotted name ending in a host suffix."""
    if "." not in part:
        return False
    return part.startswith("www.") or part.rsplit(".", 1)[1].lower() in HOST_SUFFIXES


def _path_candidate(token: str, quoted: bool) -> str | None:
    token = _LINE_SUFFIX.sub("", token.strip().rstrip(".,;:)"))
    if (not token or "://" in token or token.startswith(("/", "-"))
            or re.search(r"[\s*?\[\]{}<>$|@'\"\\]", token)):
        return None
    parts = [part for part in token.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or (parts[0] == "~" and len(parts) == 1):
        return None
    last = token.rstrip("/").rsplit("/", 1)[-1]
    suffix = last.rsplit(".", 1)[1] if "." in last else ""
    if _is_version(last) or suffix.isdigit():
        return None  # "3.11/3.12", "python/3.12", "v1.2": versions, not files
    if "/" in token:
        if parts[0] != "~" and _is_host(parts[0]):
            return None  # "github.com/acme/tool.git": an address
        looks_like_file = 1 <= len(suffix) <= 10 and suffix.isalnum() and suffix.isascii()
        if not (looks_like_file or (quoted and token.endswith("/"))):
            return None
    elif not (quoted and _FILE_NAME.fullmatch(token)):
        return None
    return token[2:] if token.startswith("./") else token


def path_references(handoff: Handoff | None) -> tuple[str, ...]:
    """File paths the handoff names: in backticks (with a ``/`` or a known file
    extension), or bare with a ``/`` and an extension. Absolute paths, URLs, host names,
    versions and paths that climb out with ``..`` are left out; the first
    ``MAX_PATH_REFERENCES`` count."""
    if handoff is None or handoff.empty:
        return ()
    found: dict[str, None] = {}
    for line in handoff.text.split("\n"):
        for span in _CODE_SPAN.findall(line):
            candidate = _path_candidate(span, quoted=True)
            if candidate:
                found.setdefault(candidate)
        for bare in _BARE_PATH.findall(_CODE_SPAN.sub(" ", line)):
            candidate = _path_candidate(bare, quoted=False)
            if candidate:
                found.setdefault(candidate)
        if len(found) >= MAX_PATH_REFERENCES:
            break
    return tuple(found)[:MAX_PATH_REFERENCES]


_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_QUOTED_CALL = re.compile(r"(" + _DOTTED + r")(\([^()]*\))?")
_BARE_CALL = re.compile(r"(?<![\w.])(" + _DOTTED + r")\(\)")


def _builtin_names() -> frozenset[str]:
    import builtins
    import keyword

    return frozenset((*dir(builtins), *keyword.kwlist, "self", "cls", "this"))


def _function_candidate(text: str, quoted: bool, builtin: frozenset[str]) -> str | None:
    """The dotted name when ``text`` names a function: ``name()``, ``name(args)``,
    ``module.func`` (quoted only) or ``module.func()``; None for anything else."""
    match = _QUOTED_CALL.fullmatch(text) if quoted else _BARE_CALL.fullmatch(text)
    if match is None:
        return None
    dotted = match.group(1)
    called = (match.group(2) is not None) if quoted else True
    segments = dotted.split(".")
    last = segments[-1]
    if not called:
        if len(segments) < 2:
            return None  # a bare word in backticks: a variable, a command, a value
        if last.lower() in FILE_SUFFIXES or last.lower() in HOST_SUFFIXES:
            return None  # "config.toml", "example.com"
    if last in builtin or len(last) < 3:
        return None
    return dotted


def function_references(handoff: Handoff | None) -> tuple[tuple[str, str], ...]:
    """Function names the handoff mentions, as (what it says, the dotted name):
    ``render_toc()`` or ``module.func`` in backticks, and ``name()`` calls in the text.
    Names of the language's built-ins and very short names are left out; the first
    ``MAX_FUNCTION_REFERENCES`` count. (``sources.references`` decides which are looked
    for: a dotted name only when its first part is one of the project's modules.)"""
    if handoff is None or handoff.empty:
        return ()
    builtin = _builtin_names()
    found: dict[str, str] = {}
    for line in handoff.text.split("\n"):
        for span in _CODE_SPAN.findall(line):
            text = span.strip()
            if _path_candidate(text, quoted=True) is not None:
                continue
            name = _function_candidate(text, True, builtin)
            if name:
                found.setdefault(text, name)
        for match in _BARE_CALL.finditer(_CODE_SPAN.sub(" ", line)):
            name = _function_candidate(match.group(0), False, builtin)
            if name:
                found.setdefault(match.group(0), name)
        if len(found) >= MAX_FUNCTION_REFERENCES:
            break
    return tuple(found.items())[:MAX_FUNCTION_REFERENCES]


def promotion_key(entry: LogEntry) -> tuple[str, str]:
    return f"[{entry.date.isoformat()}]", entry.title


_DATE_TAG = re.compile(r"\[\d{4}-\d{2}-\d{2}\]")


def _lines_by_date(memory_text: str) -> dict[str, list[str]]:
    """MEMORY.md's lines under each ``[YYYY-MM-DD]`` tag they hold."""
    found: dict[str, list[str]] = {}
    for line in memory_text.split("\n"):
        if "[" in line:
            for tag in dict.fromkeys(_DATE_TAG.findall(line)):
                found.setdefault(tag, []).append(line)
    return found


def not_yet_promoted(entries: Iterable[LogEntry], memory_text: str) -> tuple[LogEntry, ...]:
    """Entries with ref ≥ ``PROMOTE_REF`` that MEMORY.md does not hold yet: no line holds
    both the entry's ``[date]`` and its title, and MEMORY.md does not say its title or its
    first body line in other case, emphasis or punctuation (``Facts``); each date and
    title once, in log order."""
    by_date = _lines_by_date(memory_text)
    facts: Facts | None = None
    chosen: dict[tuple[str, str], LogEntry] = {}
    for entry in entries:
        if entry.ref < PROMOTE_REF:
            continue
        key = promotion_key(entry)
        if key in chosen or any(key[1] in line for line in by_date.get(key[0], ())):
            continue
        facts = facts or Facts(memory_text)
        if facts.holds(entry.title) or (entry.summary and facts.holds(entry.summary)):
            continue
        chosen[key] = entry
    return tuple(chosen.values())


def promotion_candidates(log: ContextLog | None, memory: MemoryIndex | None
                         ) -> tuple[LogEntry, ...]:
    """Context-log entries worth promoting that MEMORY.md lacks (none without either)."""
    if log is None or memory is None:
        return ()
    return not_yet_promoted(log.entries, memory.text)


def candidate_text(entry: LogEntry) -> str:
    kind = f"[{entry.type}]" if entry.type else ""
    return f"[{entry.date.isoformat()}]{kind} {entry.title} (ref:{entry.ref})"


def memory_alerts(memory: MemoryIndex | None, missing_paths: Sequence[str],
                  missing_functions: Sequence[str], candidates: Sequence[LogEntry]
                  ) -> Listing | None:
    """None when there is no MEMORY.md and nothing named in the handoff is stale."""
    if memory is None and not missing_paths and not missing_functions:
        return None
    items = [f"stale reference: `{ref}` is named in the handoff but does not exist"
             for ref in missing_paths]
    items.extend(f"stale reference: `{ref}` is named in the handoff but found in none of"
                 " the project's files" for ref in missing_functions)
    items.extend(f"promotion candidate: {candidate_text(entry)}" for entry in candidates)
    return listing(items)


# --------------------------------------------------------------------------- the one write


def promotion_line(entry: LogEntry) -> str:
    line = f"- {candidate_text(entry)}"
    if entry.summary:
        line += f" — {_clip(one_line(entry.summary))}"
    return line


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
    new_lines = [promotion_line(entry) for entry in added]
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
    in_fence = False
    for index, raw in enumerate(pieces):
        line = raw.rstrip("\r")
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not line.startswith("#"):
            continue
        level = len(line) - len(line.lstrip("#"))
        if start is None:
            title = line.lstrip("#").strip().lower()
            if level == 2 and title.startswith(PROMOTED_HEADING.lower()):
                start = index
        elif level <= 2:
            return _last_filled(pieces, start, index)
    if start is None:
        return None
    return _last_filled(pieces, start, len(pieces))


def _last_filled(pieces: Sequence[str], start: int, end: int) -> int:
    last = start
    for index in range(start, end):
        if pieces[index].strip():
            last = index
    return last + 1
