"""Renderings of a ``Summary``: the markdown readiness block and one JSON object.

Both show the same content. List lines render as ``**Label:** none`` when empty,
otherwise the label alone followed by one indented ``- item`` line per item (and
``- … and N more`` when some were left off). The deterministic lines (``model_tags:``,
``context_rot:``, ``autoimmunity:``) keep their fixed formats. No colour, ever: the block
is read by people and programs.

Everything printed that came from a file, a name or a setting goes through
``files.show`` line by line (``shown_text``), in the block and in the JSON alike: no
control character, escape sequence or bidi override reaches a terminal or a model.

The block fits a budget of characters (``DEFAULT_BUDGET``, well under the 10,000 that
Claude Code keeps of a hook's output). The block is built as parts, each with a rank;
when it is too long, parts are cut lowest rank first (list items from the end, each list
keeping its ``… and N more`` count; then whole parts), the priorities and MEMORY.md's
always-loaded sections last of all, and a last line says what was left out and where to
read it. JSON has no budget: it is the whole answer.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import groupby
from operator import itemgetter

from lets_hooks import files
from lets_hooks.summary.phases import NO_HANDOFF, candidate_text
from lets_hooks.summary.records import BranchView, HandoffDate, Listing, Summary, TreeCounts

GATES_LABEL = "**Graduated gates (check before acting · never run automatically):**"
GATES_FOOTER = "  (when a trigger fires: pause, check, and ask the user if unsure)"
CLOSING = "Next: Ready. What should we start with?"
RISKS_LABEL = "Risks and gotchas"
APPROVALS_LABEL = "Approved earlier, confirm again this session (approvals do not carry over)"
ALWAYS_LABEL = "**MEMORY.md (always loaded):**"
ON_DEMAND_LABEL = "**MEMORY.md (on demand, search it when a topic comes up):**"

DEFAULT_BUDGET = 8000  # characters of the block (``size_of``); Claude Code keeps 10,000
MIN_BUDGET = 2000
LINE_CHARS = 1000  # a longer line is shortened (ending in "…") in the block
SHORT_LINE_CHARS = 200  # ... and to this, in what is never dropped, when nothing else fits
KEEP_ITEMS = 3  # a list is first cut down to this many items before any part goes


def size_of(text: str) -> int:
    """How long ``text`` is in UTF-16 code units, as JavaScript counts a string's length:
    a character outside the Basic Multilingual Plane, such as most emoji, counts as two
    (never less than the code points, so the budget holds either way)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) >> 1


def shown_text(text: str) -> str:
    """``text`` safe to print: each line through ``files.show`` (tabs as blanks first),
    the line ends kept."""
    return "\n".join(files.show(line.expandtabs(4)) for line in text.split("\n"))


def _line(text: str) -> str:
    """One line of the block: escaped, and shortened past ``LINE_CHARS``."""
    safe = files.show(text.expandtabs(4))
    return safe if len(safe) <= LINE_CHARS else safe[: LINE_CHARS - 1] + "…"


# --------------------------------------------------------------------------- the parts


@dataclass
class Part:
    """Lines of the block that are kept or cut together.

    ``head`` is kept while the part is; ``items`` are cut from the end (each cut one
    counted in the ``… and N more`` line); ``tail`` follows them. ``rank``: lower is cut
    first. ``name`` is how the left-out line names the part.
    """

    name: str
    rank: int
    group: int
    head: list[str]
    items: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    more: int = 0
    bullet: str = "  - "
    more_text: str = "more"
    more_one: str = ""  # the words after "… and 1", when not ``more_text``
    droppable: bool = True
    empty_head: str | None = None  # the head when the list is empty and nothing is cut
    gentle: bool = True  # cut down to ``KEEP_ITEMS`` items before any part is dropped
    cut: int = 0  # items cut to fit the budget
    dropped: bool = False
    shortened: bool = False  # long lines of a part that is never dropped were shortened
    _listed: int = 0  # characters of the item lines, each with its line end
    _removed: list[str] = field(default_factory=list)  # the items cut, the last cut last

    def __post_init__(self) -> None:
        self._listed = sum(size_of(self.bullet + item) + 1 for item in self.items)

    def shorten(self, limit: int) -> bool:
        """Shorten the head and tail lines past ``limit`` characters; True if any was."""
        changed = False
        for lines in (self.head, self.tail):
            for index, line in enumerate(lines):
                if len(line) > limit:
                    lines[index] = line[: limit - 1] + "…"
                    changed = True
        self.shortened = self.shortened or changed
        return changed

    def cut_one(self) -> None:
        """Cut the last item (it is counted in ``… and N more`` from now on)."""
        item = self.items.pop()
        self._removed.append(item)
        self._listed -= size_of(self.bullet + item) + 1
        self.more += 1
        self.cut += 1

    def restore_one(self) -> None:
        item = self._removed.pop()
        self.items.append(item)
        self._listed += size_of(self.bullet + item) + 1
        self.more -= 1
        self.cut -= 1

    def lines(self) -> list[str]:
        if self.dropped:
            return []
        if not self.items and not self.more and self.empty_head is not None:
            return [self.empty_head]
        more = [self._more_line()] if self.more else []
        return [*self.head, *(self.bullet + item for item in self.items), *more, *self.tail]

    def _more_line(self) -> str:
        words = self.more_one if self.more == 1 and self.more_one else self.more_text
        return f"{self.bullet}… and {self.more} {words}"

    def size(self) -> int:
        """``size_of("\\n".join(self.lines()))``, without building the lines."""
        if self.dropped:
            return 0
        if not self.items and not self.more and self.empty_head is not None:
            return size_of(self.empty_head)
        fixed = sum(size_of(line) + 1 for line in (*self.head, *self.tail))  # a few lines
        total = fixed + self._listed + (size_of(self._more_line()) + 1 if self.more else 0)
        return total - 1 if total else 0


def _list_part(name: str, items: Listing, rank: int, group: int, label: str = "") -> Part:
    """``name`` is also the label unless ``label`` is given."""
    label = label or name
    return Part(name, rank, group, [f"**{label}:**"], [_line(item) for item in items.items],
                more=items.more, empty_head=f"**{label}:** none")


def _text_part(name: str, rank: int, group: int, lines: Sequence[str], *,
               droppable: bool = True) -> Part:
    return Part(name, rank, group, [_line(line) for line in lines], droppable=droppable)


def tree_text(tree: TreeCounts | None) -> str:
    if tree is None:
        return "working tree: unknown"
    if tree.clean:
        return "working tree: clean"
    counts = f"{tree.staged} staged, {tree.modified} modified, {tree.untracked} untracked"
    if tree.conflicted:
        counts += f", {tree.conflicted} conflicted"
    return f"working tree: {counts}"


def branch_text(view: BranchView) -> str:
    if not view.repository:
        parts = ["none (no git work tree)"]
    else:
        name = view.branch or (f"detached HEAD at {view.head[:7]}" if view.head
                               else "detached HEAD")
        parts = [name, tree_text(view.tree)]
    if view.handoff_date is not None:
        parts.append(f"handoff of {view.handoff_date.text}")
    return " · ".join(parts)


def summary_parts(summary: Summary) -> list[Part]:
    """The block as parts, in the order printed (``group``: parts between blank lines)."""
    parts: list[Part] = [_text_part("title", 100, 0, ["## Session Ready"], droppable=False)]
    where: list[str] = []
    if summary.session_range is not None:
        where.append(f"**Session range:** {summary.session_range}")
    if summary.last_session is not None:
        last = summary.last_session
        where.append(f"**Last session:** {last.desc} (trust {last.trust}, from the handoff's "
                     "Range)")
    if summary.branch is not None:
        where.append(f"**Branch:** {branch_text(summary.branch)}")
    parts.append(_text_part("Session range and Branch", 85, 1, where, droppable=False))
    if summary.branch is not None and summary.branch.stale_handoff is not None:
        parts.append(_text_part("the stale-handoff warning", 90, 1,
                                [f"  - {summary.branch.stale_handoff}"], droppable=False))

    handoff = summary.handoff
    if handoff is None:
        parts.append(_text_part("handoff", 90, 2, [NO_HANDOFF], droppable=False))
    else:
        priorities = [f"**Priority 1:** {handoff.priority_1}"]
        if handoff.priority_2 is not None:
            more = (f" (… and {handoff.more_steps} more in the handoff)"
                    if handoff.more_steps else "")
            priorities.append(f"**Priority 2:** {handoff.priority_2}{more}")
        parts.append(_text_part("the priorities", 90, 2, priorities, droppable=False))
        if handoff.done_only is not None:
            parts.append(_text_part("the done-work warning", 90, 2,
                                    [f"**Handoff:** {handoff.done_only}"], droppable=False))
        if handoff.recent_changes is not None:
            parts.append(_text_part("Recent changes", 35, 3,
                                    [f"**Recent changes:** {handoff.recent_changes}"]))
        parts.append(_list_part("Outstanding decisions", handoff.outstanding_decisions, 70, 4))
        parts.append(_list_part("Active blockers", handoff.active_blockers, 72, 4))
        if handoff.do_not_repeat.items:
            parts.append(_list_part("Do not repeat", handoff.do_not_repeat, 55, 4))
        if handoff.risks.items:
            parts.append(_list_part(RISKS_LABEL, handoff.risks, 57, 4))
        if handoff.approvals.items:
            parts.append(_list_part("approvals to confirm", handoff.approvals, 65, 4,
                                    APPROVALS_LABEL))

    if summary.gates:
        lines = [" ".join(part for part in (gate.id, gate.trigger) if part) + f" → {gate.check}"
                 for gate in summary.gates]
        parts.append(Part("Graduated gates", 60, 5, [GATES_LABEL], [_line(x) for x in lines],
                          tail=[GATES_FOOTER], bullet="  ", more_text="more gates"))

    if summary.lesson_flags is not None:
        parts.append(_list_part("Lesson flags", summary.lesson_flags, 30, 6))
    if summary.memory_alerts is not None:
        parts.append(_list_part("Memory alerts", summary.memory_alerts, 45, 6))
    if summary.model_analysis is not None:
        parts.append(_text_part("Model analysis", 25, 6,
                                [f"**Model analysis:** {summary.model_analysis}"]))
    if summary.immune_rate is not None:
        parts.append(_text_part("Immune rate", 26, 6,
                                [f"**Immune rate:** {summary.immune_rate}"]))

    parts.append(_list_part("Global", summary.global_items, 50, 7))
    if summary.environment_alerts:
        parts.append(_list_part("Environment alerts", Listing(summary.environment_alerts), 50, 7))

    metrics = [metric.line for metric in (summary.model_tags, summary.context_rot,
                                          summary.autoimmunity) if metric is not None]
    if metrics:
        parts.append(_text_part("the model_tags / context_rot / autoimmunity lines", 20, 8,
                                metrics))
    if summary.warnings:
        parts.append(Part("Warnings", 40, 9, ["**Warnings:**"],
                          [_line(warning) for warning in summary.warnings]))
    parts.append(_text_part("closing", 100, 10, [CLOSING], droppable=False))

    memory = summary.memory
    group = 11
    if memory is not None and memory.always:
        for number, section in enumerate(memory.always, 1):
            group += 1
            lines = [_line(line) for line in section.split("\n")]
            label = [ALWAYS_LABEL, ""] if number == 1 else []
            parts.append(Part(f"MEMORY.md always-loaded section {number}", 95, group,
                              label + lines[:1], lines[1:], bullet="", gentle=False,
                              more_text="more lines of this section (in memory/MEMORY.md)",
                              more_one="more line of this section (in memory/MEMORY.md)"))
    if memory is not None and memory.on_demand:
        parts.append(Part("MEMORY.md on-demand headers", 10, group + 1, [ON_DEMAND_LABEL],
                          [_line(title) for title in memory.on_demand], bullet="- ",
                          more_text="more on-demand sections (in memory/MEMORY.md)",
                          more_one="more on-demand section (in memory/MEMORY.md)"))
    return parts


# --------------------------------------------------------------------------- the budget


def _join(parts: Sequence[Part]) -> str:
    shown = [(part.group, lines) for part in parts if (lines := part.lines())]
    return "\n\n".join("\n".join(line for _, lines in group for line in lines)
                       for _, group in groupby(shown, key=itemgetter(0))) + "\n"


def _size(parts: Sequence[Part]) -> int:
    """``size_of(_join(parts))`` without building the text (an empty one-line part counts)."""
    shown = [(part.group, size) for part in parts if (size := part.size()) or part.lines()]
    groups = [[size for _, size in group] for _, group in groupby(shown, key=itemgetter(0))]
    return sum(sum(sizes) + len(sizes) - 1 for sizes in groups) + 2 * max(0, len(groups) - 1) + 1


def left_out_line(parts: Sequence[Part], budget: int, tail: bool = False) -> str | None:
    """What the budget cut, and where to read it; None when nothing was cut. ``tail``:
    the end of the block was cut off too."""
    named = [f"{part.name} ({'all' if part.dropped else part.cut or 'shortened'})"
             for part in parts if part.dropped or part.cut or part.shortened]
    if tail:
        named.append("the end of the block")
    if not named:
        return None
    return (f"[Left out to fit {budget:,} characters: {', '.join(named)}. Run"
            " `lets-session-start --json` for everything, or read memory/session-handoff-"
            "LATEST.md and memory/MEMORY.md]")


def _cut_items(part: Part, keep: int, over: Callable[[], int]) -> None:
    """Cut items from the end, down to ``keep``, until the block fits: as many at once as
    the excess needs (a list of a million lines costs one pass, not a million sums)."""
    while len(part.items) > keep:
        excess = over()
        if excess <= 0:
            return
        removed = 0
        while len(part.items) > keep and removed < excess:
            removed += size_of(part.bullet + part.items[-1]) + 1
            part.cut_one()


def fit(parts: list[Part], budget: int) -> str:
    """The block within ``budget`` characters, cut by rank (see the module's docstring)."""
    def over() -> int:
        """By how many characters the block with its left-out line is too long."""
        note = left_out_line(parts, budget)
        return _size(parts) + (size_of(note) + 2 if note is not None else 0) - budget

    def fits() -> bool:
        return over() <= 0

    if fits():
        return _join(parts)
    order = [parts[index] for index in sorted(range(len(parts)),
                                                key=lambda index: (parts[index].rank, -index))]
    for part in order:  # first every list down to its first few items
        if part.gentle:
            _cut_items(part, KEEP_ITEMS, over)
            if fits():
                return _finish(parts, budget)
    for part in order:  # then part by part, lowest rank first: its items, then itself
        _cut_items(part, 0, over)
        if not fits() and part.droppable:
            part.dropped = True
        if fits():
            return _finish(parts, budget)
    for part in order:  # what is never dropped, but too long: its long lines shortened
        if not part.dropped and part.shorten(SHORT_LINE_CHARS) and fits():
            _refill(order, fits)
            break
    return _finish(parts, budget)


def _refill(order: Sequence[Part], fits: Callable[[], bool]) -> None:
    """Once long lines were shortened there may be room again: put back what was cut,
    highest rank first, until something does not fit (nothing of a lower rank is put
    back while a part of a higher rank still lacks some of its lines)."""
    for part in reversed(order):
        if part.dropped:
            part.dropped = False
            if not fits():
                part.dropped = True
                return
        while part._removed:
            part.restore_one()
            if not fits():
                part.cut_one()
                return


def _finish(parts: list[Part], budget: int) -> str:
    """The block and the left-out line; past the budget still (the budget is small and
    only what is never dropped is left), the block is cut at a line end, and the left-out
    line says so."""
    note = left_out_line(parts, budget)
    text = _join(parts)
    over = size_of(text) + (size_of(note) + 2 if note is not None else 0) > budget
    if over:
        note = left_out_line(parts, budget, tail=True)
    if note is None:
        return text
    room = budget - size_of(note) - 2
    if over:
        cut = len(text) - 1
        while cut > 0 and size_of(text[:cut]) + 3 > room:  # its line end, "…" and another
            cut = text.rfind("\n", 0, cut)
        text = text[: cut + 1] + "…\n" if cut > 0 else ""
    return text + "\n" + note + "\n"


def render_markdown(summary: Summary, budget: int | None = DEFAULT_BUDGET) -> str:
    """The readiness block; within ``budget`` characters unless it is None."""
    parts = summary_parts(summary)
    if budget is None:
        return _join(parts)
    return fit(parts, max(budget, MIN_BUDGET))


# --------------------------------------------------------------------------- JSON


def _listing(items: Listing | Sequence[object] | None) -> dict[str, object]:
    """Every list of the JSON has this one shape; an absent list is an empty one."""
    if isinstance(items, Listing):
        return {"items": list(items.items), "more": items.more}
    return {"items": list(items or ()), "more": 0}


def iso_date(value: HandoffDate | None) -> str | None:
    """A handoff's date in ISO 8601: ``2026-11-27``, or ``2026-11-27T18:42:00Z`` when it
    gives a time of day (in UTC)."""
    if value is None:
        return None
    if value.instant is None:
        return value.day.isoformat()
    moment = dt.datetime.fromtimestamp(value.instant, dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def jsonable(value: object, depth: int = 0) -> object:
    """A YAML value as JSON data: dates as ISO strings, keys as strings, sets sorted."""
    if depth > 64:
        return None
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Mapping):
        return {str(jsonable(key)): jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item, depth + 1) for item in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [jsonable(item, depth + 1) for item in value]
    return str(value)


def safe(value: object) -> object:
    """``value`` with every string (keys too) through ``shown_text``."""
    if isinstance(value, str):
        return shown_text(value)
    if isinstance(value, dict):
        return {shown_text(str(key)): safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [safe(item) for item in value]
    return value


def _summary_data(summary: Summary) -> dict[str, object]:
    """The summary as JSON data (before ``safe``); the shape is in docs/summary.md, and
    ``tests/test_summary_output.py`` walks it."""
    handoff = summary.handoff
    tags = summary.model_tags
    rot = summary.context_rot
    immune = summary.autoimmunity
    memory = summary.memory
    branch = summary.branch
    return {
        "today": summary.today.isoformat(),
        "session_range": summary.session_range,
        "last_session": None if summary.last_session is None else asdict(summary.last_session),
        "branch": None if branch is None else {
            "repository": branch.repository, "name": branch.branch, "head": branch.head,
            "working_tree": None if branch.tree is None else {
                **asdict(branch.tree), "clean": branch.tree.clean},
            "handoff_date": iso_date(branch.handoff_date),
            "stale_handoff": branch.stale_handoff,
            "line": branch_text(branch),
        },
        "starting_fresh": handoff is None,
        "handoff": None if handoff is None else {
            "source": handoff.source,
            "priority_1": handoff.priority_1,
            "priority_2": handoff.priority_2,
            "recent_changes": handoff.recent_changes,
            "outstanding_decisions": _listing(handoff.outstanding_decisions),
            "active_blockers": _listing(handoff.active_blockers),
            "do_not_repeat": _listing(handoff.do_not_repeat),
            "risks": _listing(handoff.risks),
            "more_steps": handoff.more_steps,
            "approvals_to_confirm": _listing(handoff.approvals),
            "done_only_warning": handoff.done_only,
            "date": None if handoff.date is None else {
                "value": iso_date(handoff.date), "day": handoff.date.day.isoformat(),
                "source": handoff.date.source},
            "frontmatter": jsonable(handoff.frontmatter),
            "state_snapshot": jsonable(handoff.snapshot),
        },
        "graduated_gates": _listing([asdict(gate) for gate in summary.gates]),
        "lesson_flags": _listing(summary.lesson_flags),
        "memory_alerts": _listing(summary.memory_alerts),
        "stale_references": _listing(summary.stale_references),
        "unchecked_references": _listing(summary.unchecked_references),
        "promotion_candidates": _listing([
            {"date": entry.date.isoformat(), "type": entry.type, "title": entry.title,
             "ref": entry.ref, "summary": entry.summary, "text": candidate_text(entry)}
            for entry in summary.promotion_candidates]),
        "model_analysis": summary.model_analysis,
        "immune_rate": summary.immune_rate,
        "global": _listing(summary.global_items),
        "environment_alerts": _listing(summary.environment_alerts),
        "model_tags": None if tags is None else {
            "total": tags.total, "new": tags.new, "days_elapsed": tags.days_elapsed,
            "lessons_tagged": tags.lessons_tagged, "records_tagged": tags.records_tagged,
            "baseline": tags.baseline.isoformat() if tags.baseline else None,
            "baseline_source": tags.baseline_source, "line": tags.line,
        },
        "context_rot": None if rot is None else {
            "total": rot.total, "skipped": rot.skipped, "rate": rot.rate_text,
            "line": rot.line,
        },
        "autoimmunity": None if immune is None else {
            "rejection": immune.rejections, "total": immune.total, "rate": immune.rate_text,
            "period_days": immune.period_days, "proxy": not immune.labelled,
            "line": immune.line,
        },
        "memory": None if memory is None else {
            "always": _listing(memory.always), "on_demand": _listing(memory.on_demand),
            "tagged": memory.tagged,
        },
        "warnings": _listing(summary.warnings),
    }


def render_json(summary: Summary) -> str:
    import json

    return json.dumps(safe(_summary_data(summary)), indent=2, ensure_ascii=False) + "\n"
