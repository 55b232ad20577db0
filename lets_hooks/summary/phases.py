"""The session-start phases as pure functions of the readers' records and today's date.

Nothing here touches the file system, the clock or the environment: ``summarize`` takes
everything the readers returned (an ``Inputs``), the date and the session-range text, and
returns a ``Summary`` record that ``render`` turns into markdown or JSON.

The rules, phase by phase (the numbers are the constants below):

- Environment: the ``model`` of ``~/.claude/settings.json`` (a ``[1m]``-style suffix
  dropped) must be one of ``KNOWN_MODELS``; ``permissions.allow`` of
  ``settings.local.json`` may hold at most ``ALLOW_LIMIT`` entries.
- Handoff: the state-snapshot block first (``next`` → Priority 1 and 2, ``blocked`` →
  active blockers, ``diff`` → recent changes), the prose sections for whatever it lacks;
  an empty handoff counts as none.
- Graduated gates: every row of the table, ``id trigger → check``.
- Lesson flags: conf ≥ 0.7 → title and a one-line summary; 0.5 ≤ conf < 0.7 and legacy
  lessons (no metadata) → title; conf < 0.5 → not shown. Seen within ``ACTIVE_DAYS`` with
  obs ≥ ``ACTIVE_OBS`` is an active pattern: always shown, first.
- model_tags / context_rot / autoimmunity: the fixed lines, with their omission rules.
- Memory: ``#always`` sections loaded, ``#on-demand`` headers listed; stale paths in the
  handoff and context-log entries with ref ≥ ``PROMOTE_REF`` are memory alerts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lets_hooks.observability import (
    InterventionLog,
    Rate,
    earliest_tagged,
    model_tag_count,
    rejection_rate,
    tagged_after,
)
from lets_hooks.summary.sources import (
    AllowList,
    ContextLog,
    Gate,
    Handoff,
    Lesson,
    LessonsFile,
    LogEntry,
    MemoryIndex,
    ModelLedger,
    ModelSetting,
    Section,
    StateFile,
    parse_memory_index,
)

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
SUMMARY_CHARS = 160

NO_HANDOFF = "[No handoff — starting fresh]"
NOTHING_ACTIONABLE = "none found in the handoff; ask the user what to work on first"
PROMOTED_HEADING = "Promoted from the context log"


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Listing:
    """A list line: the items shown and how many more were left off."""

    items: tuple[str, ...]
    more: int = 0


def listing(items: Sequence[str], limit: int = MAX_LISTED) -> Listing:
    return Listing(tuple(items[:limit]), max(0, len(items) - limit))


@dataclass(frozen=True)
class HandoffView:
    source: str  # "state-snapshot" or "prose"
    priority_1: str
    priority_2: str | None
    recent_changes: str | None  # None: no state-snapshot block, the line is omitted
    outstanding_decisions: Listing
    active_blockers: Listing
    frontmatter: Mapping[str, object] | None
    snapshot: Mapping[str, object] | None


@dataclass(frozen=True)
class ModelTags:
    lessons_tagged: int
    records_tagged: int
    new: int
    baseline: dt.date | None
    baseline_source: str  # "ledger", "earliest tag" or "none"
    days_elapsed: int | None

    @property
    def total(self) -> int:
        return self.lessons_tagged + self.records_tagged

    @property
    def line(self) -> str:
        days = "N/A" if self.days_elapsed is None else str(self.days_elapsed)
        return f"model_tags: total={self.total} new={self.new} days_elapsed={days}"

    @property
    def remind(self) -> bool:
        return (self.days_elapsed is not None and self.days_elapsed >= MODEL_REMIND_DAYS
                and self.new >= MODEL_REMIND_NEW)


@dataclass(frozen=True)
class ContextRot:
    total: int
    skipped: int

    @property
    def rate(self) -> Rate:
        return Rate(self.skipped, self.total)

    @property
    def line(self) -> str:
        return f"context_rot: total={self.total} skipped={self.skipped} rate={self.rate.text}"


@dataclass(frozen=True)
class Autoimmunity:
    rejections: int
    total: int
    period_days: int

    @property
    def rate(self) -> Rate:
        return Rate(self.rejections, self.total)

    @property
    def line(self) -> str:
        return (f"autoimmunity: rejection={self.rejections} total={self.total}"
                f" rate={self.rate.text} (proxy)")


@dataclass(frozen=True)
class MemoryView:
    always: tuple[str, ...]  # section texts to load (the whole file when it has no tags)
    on_demand: tuple[str, ...]  # headers only
    tagged: bool


@dataclass(frozen=True)
class Inputs:
    """What the readers returned, plus which handoff paths exist."""

    handoff: Handoff | None = None
    lessons: LessonsFile | None = None
    context_log: ContextLog | None = None
    memory: MemoryIndex | None = None
    state: StateFile | None = None
    settings: ModelSetting | None = None
    allow: AllowList | None = None
    interventions: InterventionLog | None = None
    ledger: ModelLedger | None = None
    paths_exist: Mapping[str, bool] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Summary:
    today: dt.date
    session_range: str | None
    handoff: HandoffView | None  # None: no handoff (starting fresh)
    gates: tuple[Gate, ...]
    lesson_flags: Listing | None  # None: no lessons file
    memory_alerts: Listing | None  # None: no MEMORY.md
    model_analysis: str | None
    immune_rate: str | None
    global_items: Listing | None  # None: no STATE.md
    environment_alerts: tuple[str, ...]
    model_tags: ModelTags | None
    context_rot: ContextRot | None
    autoimmunity: Autoimmunity | None
    memory: MemoryView | None
    promotion_candidates: tuple[LogEntry, ...]
    stale_references: tuple[str, ...]
    warnings: tuple[str, ...]


def summarize(inputs: Inputs, today: dt.date, session_range: str | None) -> Summary:
    """Every phase, in the order of the readiness block."""
    handoff = handoff_view(inputs.handoff)
    stale = stale_references(path_references(inputs.handoff), inputs.paths_exist)
    candidates = promotion_candidates(inputs.context_log, inputs.memory)
    tags = model_tags(inputs.lessons, inputs.interventions, inputs.ledger, today)
    immune = autoimmunity(inputs.interventions, today)
    return Summary(
        today=today,
        session_range=session_range,
        handoff=handoff,
        gates=(inputs.lessons.gates or ()) if inputs.lessons else (),
        lesson_flags=lesson_flags(inputs.lessons, today),
        memory_alerts=memory_alerts(inputs.memory, stale, candidates),
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
        warnings=inputs.warnings,
    )


# --------------------------------------------------------------------------- text helpers


def one_line(text: str) -> str:
    return " ".join(text.split())


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

_LIST_ITEM = re.compile(r"( {0,1})(?:[-*+]|\d+[.)])[ \t]+(.*)$")
_CHECKBOX = re.compile(r"\[( |x|X)\][ \t]*(.*)$")


_SETTLED = re.compile(r"\b(?:resolved|completed|done|fixed|closed|made)\b")


def section_role(heading: str) -> str | None:
    """Which part of the readiness block a prose heading feeds, if any. A heading about
    what is settled ("Resolved issues", "Decisions made") feeds none."""
    text = heading.lower()
    if _SETTLED.search(text):
        return None
    if "decision" in text:
        return "decisions"
    if "blocker" in text or "blocked" in text or "issue" in text:
        return "blockers"
    if ("priorit" in text or text.startswith("next") or "next step" in text
            or "todo" in text or "to do" in text):
        return "priorities"
    return None


def section_items(section: Section) -> list[str]:
    """Open top-level list items (done checkboxes left out); with no list, the first
    paragraph as one item."""
    items: list[str] = []
    paragraph: list[str] = []
    listed = False
    for line in section.lines:
        match = _LIST_ITEM.match(line)
        if match:
            listed = True
            text = match.group(2).strip()
            box = _CHECKBOX.match(text)
            if box:
                if box.group(1) in "xX":
                    continue
                text = box.group(2).strip()
            if text:
                items.append(one_line(text))
        elif not listed and not items:
            if line.strip():
                paragraph.append(line.strip())
            elif paragraph:
                listed = True  # the first paragraph has ended
    if items:
        return items
    return [one_line(" ".join(paragraph))] if paragraph else []


_NOTHING = re.compile(r"[-—*]?\s*(?:none|nothing|n/?a)(?:\s+(?:yet|so far|for now))?\s*[.!]?",
                      re.IGNORECASE)


def real_items(items: Iterable[str]) -> list[str]:
    """Items without the empty ones and the placeholders that say there are none
    ("None.", "none yet", "N/A"); "none of the tests pass" is an item."""
    return [item for item in items if item and not _NOTHING.fullmatch(item)]


def _prose_items(sections: Iterable[Section], role: str) -> list[str]:
    found: list[str] = []
    for section in sections:
        if section.heading and section_role(section.heading) == role:
            found.extend(section_items(section))
    return real_items(found)


def handoff_view(handoff: Handoff | None) -> HandoffView | None:
    """None when there is no handoff, or it is empty: the block says to start fresh."""
    if handoff is None or handoff.empty:
        return None
    snapshot = handoff.snapshot
    priorities: list[str] = []
    source = "prose"
    if snapshot is not None:
        priorities = real_items(next_item_text(item) for item in _as_items(snapshot.get("next")))
        if priorities:
            source = "state-snapshot"
    if not priorities:
        priorities = _prose_items(handoff.sections, "priorities")

    if snapshot is not None and "blocked" in snapshot:
        blockers = real_items(blocked_item_text(item)
                              for item in _as_items(snapshot.get("blocked")))
    else:
        blockers = _prose_items(handoff.sections, "blockers")

    recent: str | None = None
    if snapshot is not None:
        changes = real_items(diff_item_text(item) for item in _as_items(snapshot.get("diff")))
        recent = "; ".join(changes) or "none"

    return HandoffView(
        source=source,
        priority_1=priorities[0] if priorities else NOTHING_ACTIONABLE,
        priority_2=priorities[1] if len(priorities) > 1 else None,
        recent_changes=recent,
        outstanding_decisions=listing(_prose_items(handoff.sections, "decisions")),
        active_blockers=listing(blockers),
        frontmatter=handoff.frontmatter,
        snapshot=snapshot,
    )


# --------------------------------------------------------------------------- Phase 0.5


def model_id_ok(value: object) -> bool:
    if not isinstance(value, str):
        return False
    bare = re.sub(r"\[[^\]]*\]$", "", value.strip())
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
    """Seen within ``ACTIVE_DAYS`` (its ``seen`` date, else its header date) and observed
    at least ``ACTIVE_OBS`` times."""
    seen = lesson.seen or lesson.date
    return (lesson.obs is not None and lesson.obs >= ACTIVE_OBS
            and 0 <= _age(today, seen) < ACTIVE_DAYS)


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
    """None when neither the lessons file nor the interventions folder exists."""
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
    return ModelTags(
        lessons_tagged=len(tagged),
        records_tagged=records_tagged,
        new=new,
        baseline=baseline,
        baseline_source=source,
        days_elapsed=None if baseline is None else _age(today, baseline),
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
    """None when the interventions folder is missing or holds nothing in the period."""
    if log is None:
        return None
    rate = rejection_rate(log, today, REJECTION_PERIOD_DAYS)
    if rate.whole == 0:
        return None
    return Autoimmunity(rate.part, rate.whole, REJECTION_PERIOD_DAYS)


def immune_rate(result: Autoimmunity | None) -> str | None:
    if result is None:
        return None
    rate = result.rate
    if rate.above(IMMUNE_ALARM_PERCENT):
        return f"🚨 gate rejection rate {rate.text} (proxy): consider cutting or redesigning gates"
    if rate.above(IMMUNE_WARN_PERCENT):
        return (f"⚠️ gate rejection rate {rate.text} (rejection {result.rejections} of"
                f" {result.total}; a proxy, not a measured false-positive rate): check"
                " whether the gates over-intervene")
    return None


# --------------------------------------------------------------------------- Phase 3


def global_items(state: StateFile | None) -> Listing | None:
    if state is None:
        return None
    items: list[str] = []
    for section in state.sections:
        role = section_role(section.heading) if section.heading else None
        if role == "decisions":
            items.extend(f"decision: {item}" for item in real_items(section_items(section)))
        elif role == "blockers":
            items.extend(f"blocker: {item}" for item in real_items(section_items(section)))
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
_FILE_NAME = re.compile(r"[\w-][\w.-]*\.(?:" + "|".join((
    "md", "txt", "rst", "py", "pyi", "json", "jsonl", "yaml", "yml", "toml", "cfg", "ini",
    "sh", "bash", "js", "mjs", "ts", "tsx", "jsx", "rs", "go", "java", "kt", "c", "h", "cpp",
    "hpp", "rb", "php", "html", "css", "sql", "csv", "xml", "lock", "log", "env",
)) + r")")
_LINE_SUFFIX = re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$")


def _path_candidate(token: str, quoted: bool) -> str | None:
    token = _LINE_SUFFIX.sub("", token.strip().rstrip(".,;:)"))
    if (not token or "://" in token or token.startswith(("/", "-"))
            or re.search(r"[\s*?\[\]{}<>$|@'\"\\]", token)):
        return None
    parts = [part for part in token.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or (parts[0] == "~" and len(parts) == 1):
        return None
    last = token.rstrip("/").rsplit("/", 1)[-1]
    if "/" in token:
        looks_like_file = re.search(r"\.[A-Za-z0-9]{1,10}$", last) is not None
        if not (looks_like_file or (quoted and token.endswith("/"))):
            return None
    elif not (quoted and _FILE_NAME.fullmatch(token)):
        return None
    return token[2:] if token.startswith("./") else token


def path_references(handoff: Handoff | None) -> tuple[str, ...]:
    """File paths the handoff names: in backticks (with a ``/`` or a known file
    extension), or bare with a ``/`` and an extension. Absolute paths, URLs and paths
    that climb out with ``..`` are left out; the first ``MAX_PATH_REFERENCES`` count."""
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


def stale_references(references: Sequence[str], exists: Mapping[str, bool]
                     ) -> tuple[str, ...]:
    """References known not to exist (an unchecked one is not flagged)."""
    return tuple(ref for ref in references if exists.get(ref, True) is False)


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
    """Entries with ref ≥ ``PROMOTE_REF`` for which no line of MEMORY.md holds both the
    entry's ``[date]`` and its title; each date and title once, in log order."""
    by_date = _lines_by_date(memory_text)
    chosen: dict[tuple[str, str], LogEntry] = {}
    for entry in entries:
        if entry.ref < PROMOTE_REF:
            continue
        key = promotion_key(entry)
        if key not in chosen and not any(key[1] in line for line in by_date.get(key[0], ())):
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


def memory_alerts(memory: MemoryIndex | None, stale: Sequence[str],
                  candidates: Sequence[LogEntry]) -> Listing | None:
    """None when there is no MEMORY.md (the memory phase is skipped)."""
    if memory is None:
        return None
    items = [f"stale reference: `{ref}` is named in the handoff but does not exist"
             for ref in stale]
    items.extend(f"promotion candidate: {candidate_text(entry)}" for entry in candidates)
    return listing(items)


# --------------------------------------------------------------------------- the one write


@dataclass(frozen=True)
class PromotionPlan:
    text: str  # MEMORY.md with the new lines in place (the input text when none)
    added: tuple[LogEntry, ...]


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
    base = memory_text if not memory_text or memory_text.endswith("\n") else memory_text + newline
    pieces = base.split("\n")  # ends with "" since ``base`` ends with a line end
    where = _promoted_section_end(pieces)
    if where is None:
        tag = " <!-- #always -->" if index.tagged else ""
        gap = newline if base.strip() and not base.endswith(newline * 2) else ""
        block = [f"## {PROMOTED_HEADING}{tag}", "", *new_lines]
        return PromotionPlan(base + gap + newline.join(block) + newline, added)
    cr = "\r" if newline == "\r\n" else ""
    merged = pieces[:where] + [line + cr for line in new_lines] + pieces[where:]
    return PromotionPlan("\n".join(merged), added)


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
