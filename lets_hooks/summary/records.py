"""The summary's records: what the readers return, and what the phases decide.

Readers (``sources``) fill the first group from files and git; ``phases.summarize`` turns
an ``Inputs`` into a ``Summary``; ``render`` prints a ``Summary``. Nothing here reads a
file or decides a rule.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from lets_hooks.summary.interventions import InterventionLog, percent

T = TypeVar("T")


# --------------------------------------------------------------------------- readers


@dataclass(frozen=True)
class Read(Generic[T]):
    """A reader's answer: the records (None when the file is absent) and its warnings."""

    value: T | None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    """A markdown heading and the lines up to the next heading (fenced code kept whole)."""

    heading: str
    level: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Handoff:
    """The handoff: frontmatter, the state-snapshot mapping (None when there is no usable
    block) and the prose sections. ``empty`` when nothing but whitespace (and perhaps a
    frontmatter) is in the file. ``text`` is the body (snapshot and prose) as written."""

    frontmatter: Mapping[str, object] | None
    snapshot: Mapping[str, object] | None
    sections: tuple[Section, ...]
    text: str
    empty: bool
    reading: HandoffReading | None = None  # what it says, read once (``sources.handoff``)


@dataclass(frozen=True)
class LastRange:
    """The previous session's range, the ladder's four values as its checkpoint wrote them
    in the handoff's ``### Range`` section."""

    boundary: str
    trust: str
    commits: str
    desc: str


@dataclass(frozen=True)
class HandoffReading:
    """What the handoff says, read in one pass by its reader; the phases only decide
    with it. Items are plain text (``**bold**`` dropped, placeholders left out); the
    priorities are the numbered ones first, then the next steps."""

    next_items: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    priorities: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()
    risks: tuple[str, ...] = ()
    done: int = 0
    approvals: tuple[str, ...] = ()
    date: HandoffDate | None = None
    paths: tuple[str, ...] = ()
    functions: tuple[tuple[str, str], ...] = ()  # (as written, the dotted name)
    said_removed: frozenset[str] = frozenset()
    said_added: frozenset[str] = frozenset()
    spelled: tuple[tuple[str, str], ...] = ()  # (a path, as written) where they differ
    unplaced: tuple[str, ...] = ()  # headings of sections the reader cannot place
    last_range: LastRange | None = None  # the previous session's, from its ### Range


@dataclass(frozen=True)
class Gate:
    id: str
    trigger: str
    check: str


@dataclass  # not frozen, like LogEntry: there may be thousands
class Lesson:
    """One ``### [YYYY-MM-DD] title`` lesson. ``has_meta`` is False for a legacy lesson
    (no readable metadata line); ``summary`` is the first line of its body."""

    date: dt.date
    title: str
    conf: float | None
    seen: dt.date | None
    obs: int | None
    model: str | None
    summary: str | None
    has_meta: bool


@dataclass(frozen=True)
class LessonsFile:
    gates: tuple[Gate, ...] | None  # None: no Graduated Gates section
    lessons: tuple[Lesson, ...]


@dataclass  # not frozen: a log holds thousands (a frozen __init__ is slower: bench_summary.py)
class LogEntry:
    date: dt.date
    type: str | None
    ref: int
    title: str
    summary: str | None  # first body line; kept only for entries with ref >= 3
    line: int


@dataclass(frozen=True)
class ContextLog:
    entries: tuple[LogEntry, ...]


@dataclass(frozen=True)
class MemorySection:
    title: str  # the heading text without its tag
    tag: str  # "always", "on-demand" or "" (untagged)
    text: str  # the heading line and body as written, trailing blank lines dropped


@dataclass(frozen=True)
class MemoryIndex:
    text: str
    sections: tuple[MemorySection, ...]
    tagged: bool  # any section carries a tag


@dataclass(frozen=True)
class StateFile:
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class ModelSetting:
    present: bool  # the settings file has a "model" key
    value: object  # as parsed from JSON


@dataclass(frozen=True)
class AllowList:
    count: int  # entries in permissions.allow (0 when there is none)


@dataclass(frozen=True)
class ModelLedger:
    last_analysis: dt.date | None


@dataclass(frozen=True)
class TreeCounts:
    """The working tree against the index and HEAD (``git status --porcelain -z``)."""

    staged: int
    modified: int
    untracked: int
    conflicted: int = 0

    @property
    def clean(self) -> bool:
        return not (self.staged or self.modified or self.untracked or self.conflicted)


@dataclass(frozen=True)
class Where:
    """Where the work stands, from git: the ladder's answer and the working tree
    (``repository`` False outside a git work tree: then everything else is empty)."""

    repository: bool
    range_desc: str
    branch: str | None  # None: detached HEAD, or no repository
    head: str | None
    tree: TreeCounts | None  # None: not known
    since: Since | None = None  # commits from the handoff's time on (when it has one)


@dataclass(frozen=True)
class Since:
    """HEAD's commits from the handoff's time on, newest first: each one's id, committer
    time and the paths it changed (a rename as both names). ``more`` when some were left
    unread."""

    commits: tuple[tuple[str, int, tuple[str, ...]], ...]
    more: bool = False


@dataclass(frozen=True)
class References:
    """What the handoff names, checked (``sources.references``); a reference that could
    not be checked is in neither ``missing`` list."""

    paths: tuple[str, ...] = ()
    missing_paths: tuple[str, ...] = ()
    missing_functions: tuple[str, ...] = ()
    unchecked_functions: tuple[str, ...] = ()
    said_added: tuple[str, ...] = ()  # the handoff says they were added (or a new name)
    deleted: tuple[str, ...] = ()  # missing paths a commit deleted or renamed away
    spelled: tuple[tuple[str, str], ...] = ()  # (a path, as the handoff wrote it)
    reasons: tuple[tuple[str, str], ...] = ()  # (a missing dotted name, why)
    capped: str | None = None  # the cap that left ``unchecked_functions`` unchecked


# --------------------------------------------------------------------------- phases


@dataclass(frozen=True)
class Listing:
    """A list line: the items shown and how many more were left off."""

    items: tuple[str, ...]
    more: int = 0


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
    do_not_repeat: Listing = field(default_factory=lambda: Listing(()))
    risks: Listing = field(default_factory=lambda: Listing(()))  # Risks, Gotchas, Caveats
    more_steps: int = 0  # next steps after Priority 2, not shown
    approvals: Listing = field(default_factory=lambda: Listing(()))
    done_only: str | None = None  # the warning when it records only finished work
    date: HandoffDate | None = None


@dataclass(frozen=True)
class HandoffDate:
    """When the handoff was written, from its frontmatter or state-snapshot block;
    ``instant`` (seconds since the epoch, UTC when no zone is given) only with a time."""

    day: dt.date
    instant: float | None
    text: str  # as shown: the ISO date, or date and time
    source: str  # which field it came from, e.g. "frontmatter date"


@dataclass(frozen=True)
class BranchView:
    repository: bool
    branch: str | None
    head: str | None
    tree: TreeCounts | None
    handoff_date: HandoffDate | None
    stale_handoff: str | None  # the warning when the handoff predates the boundary commit


@dataclass(frozen=True)
class ModelTags:
    lessons_tagged: int
    records_tagged: int
    new: int
    baseline: dt.date | None
    baseline_source: str  # "ledger", "earliest tag" or "none"
    days_elapsed: int | None
    remind: bool = False  # the reminder's condition holds (decided by ``phases``)

    @property
    def total(self) -> int:
        return self.lessons_tagged + self.records_tagged

    @property
    def line(self) -> str:
        days = "N/A" if self.days_elapsed is None else str(self.days_elapsed)
        return f"model_tags: total={self.total} new={self.new} days_elapsed={days}"


@dataclass(frozen=True)
class ContextRot:
    total: int
    skipped: int

    @property
    def rate_text(self) -> str:
        return percent(self.skipped, self.total)

    @property
    def line(self) -> str:
        return f"context_rot: total={self.total} skipped={self.skipped} rate={self.rate_text}"


@dataclass(frozen=True)
class Autoimmunity:
    """``rejections`` out of ``total`` records in the period. With ``labelled`` (some
    record in the period carries ``false_positive``), ``rejections`` counts only the
    records labelled ``false_positive: true`` and the figure is no longer a proxy."""

    rejections: int
    total: int
    period_days: int
    labelled: bool = False

    @property
    def rate_text(self) -> str:
        return percent(self.rejections, self.total)

    @property
    def line(self) -> str:
        proxy = "" if self.labelled else " (proxy)"
        return (f"autoimmunity: rejection={self.rejections} total={self.total}"
                f" rate={self.rate_text}{proxy}")


@dataclass(frozen=True)
class MemoryView:
    always: tuple[str, ...]  # section texts to load (the whole file when it has no tags)
    on_demand: tuple[str, ...]  # headers only
    tagged: bool


@dataclass(frozen=True)
class Inputs:
    """What the readers returned: the files, git's answers, and the checked references."""

    handoff: Handoff | None = None
    lessons: LessonsFile | None = None
    context_log: ContextLog | None = None
    memory: MemoryIndex | None = None
    state: StateFile | None = None
    settings: ModelSetting | None = None
    allow: AllowList | None = None
    interventions: InterventionLog | None = None
    ledger: ModelLedger | None = None
    references: References = field(default_factory=References)
    where: Where | None = None  # None: git was not asked (no Session range, no Branch line)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Summary:
    today: dt.date
    session_range: str | None
    branch: BranchView | None
    handoff: HandoffView | None  # None: no handoff (starting fresh)
    gates: tuple[Gate, ...]
    lesson_flags: Listing | None  # None: no lessons file
    memory_alerts: Listing | None  # None: no MEMORY.md and nothing stale
    model_analysis: str | None
    immune_rate: str | None
    global_items: Listing  # empty ("none") when STATE.md is missing or holds nothing open
    environment_alerts: tuple[str, ...]
    model_tags: ModelTags | None
    context_rot: ContextRot | None
    autoimmunity: Autoimmunity | None
    memory: MemoryView | None
    promotion_candidates: tuple[LogEntry, ...]
    stale_references: tuple[str, ...]
    unchecked_references: tuple[str, ...]
    warnings: tuple[str, ...]
    last_session: LastRange | None = None  # the handoff's Range: what the last session did


@dataclass(frozen=True)
class PromotionPlan:
    text: str  # MEMORY.md with the new lines in place (the input text when none)
    added: tuple[LogEntry, ...]
    inserted: str = ""  # exactly the lines added to the text
    completed: bool = False  # a line end was added after the text's last line too
