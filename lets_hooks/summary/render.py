"""Renderings of a ``Summary``: the markdown readiness block and one JSON object.

Both show the same content. Lines that the block omits are ``null`` (or empty) in JSON.
List lines render as ``**Label:** none`` when empty, otherwise the label alone followed
by one indented ``- item`` line per item (and ``- … and N more`` when some were left
off). The deterministic lines (``model_tags:``, ``context_rot:``, ``autoimmunity:``)
keep their fixed formats. No colour, ever: the block is read by people and programs.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
from collections.abc import Mapping

from lets_hooks.summary.phases import NO_HANDOFF, candidate_text
from lets_hooks.summary.records import BranchView, Listing, Summary, TreeCounts

GATES_LABEL = "**Graduated gates (check before acting · never run automatically):**"
GATES_FOOTER = "  (when a trigger fires: pause, check, and ask the user if unsure)"
CLOSING = "Next: Ready. What should we start with?"
RISKS_LABEL = "Risks and gotchas"
APPROVALS_LABEL = "Approved earlier, confirm again this session (approvals do not carry over)"
ALWAYS_LABEL = "**MEMORY.md (always loaded):**"
ON_DEMAND_LABEL = "**MEMORY.md (on demand, search it when a topic comes up):**"


def _list_lines(label: str, items: Listing) -> list[str]:
    if not items.items and not items.more:
        return [f"**{label}:** none"]
    lines = [f"**{label}:**"]
    lines.extend(f"  - {item}" for item in items.items)
    if items.more:
        lines.append(f"  - … and {items.more} more")
    return lines


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


def render_markdown(summary: Summary) -> str:
    groups: list[list[str]] = [["## Session Ready"]]
    where: list[str] = []
    if summary.session_range is not None:
        where.append(f"**Session range:** {summary.session_range}")
    if summary.branch is not None:
        where.append(f"**Branch:** {branch_text(summary.branch)}")
        if summary.branch.stale_handoff is not None:
            where.append(f"  - {summary.branch.stale_handoff}")
    groups.append(where)

    handoff = summary.handoff
    if handoff is None:
        groups.append([NO_HANDOFF])
    else:
        priorities = [f"**Priority 1:** {handoff.priority_1}"]
        if handoff.priority_2 is not None:
            more = (f" (… and {handoff.more_steps} more in the handoff)"
                    if handoff.more_steps else "")
            priorities.append(f"**Priority 2:** {handoff.priority_2}{more}")
        if handoff.done_only is not None:
            priorities.append(f"**Handoff:** {handoff.done_only}")
        groups.append(priorities)
        if handoff.recent_changes is not None:
            groups.append([f"**Recent changes:** {handoff.recent_changes}"])
        notes = (_list_lines("Outstanding decisions", handoff.outstanding_decisions)
                 + _list_lines("Active blockers", handoff.active_blockers))
        if handoff.do_not_repeat.items:
            notes += _list_lines("Do not repeat", handoff.do_not_repeat)
        if handoff.risks.items:
            notes += _list_lines(RISKS_LABEL, handoff.risks)
        if handoff.approvals.items:
            notes += _list_lines(APPROVALS_LABEL, handoff.approvals)
        groups.append(notes)

    if summary.gates:
        gate_lines = [GATES_LABEL]
        for gate in summary.gates:
            head = " ".join(part for part in (gate.id, gate.trigger) if part)
            gate_lines.append(f"  {head} → {gate.check}")
        gate_lines.append(GATES_FOOTER)
        groups.append(gate_lines)

    alerts: list[str] = []
    if summary.lesson_flags is not None:
        alerts += _list_lines("Lesson flags", summary.lesson_flags)
    if summary.memory_alerts is not None:
        alerts += _list_lines("Memory alerts", summary.memory_alerts)
    if summary.model_analysis is not None:
        alerts.append(f"**Model analysis:** {summary.model_analysis}")
    if summary.immune_rate is not None:
        alerts.append(f"**Immune rate:** {summary.immune_rate}")
    groups.append(alerts)

    context = _list_lines("Global", summary.global_items)
    if summary.environment_alerts:
        context += _list_lines("Environment alerts", Listing(summary.environment_alerts))
    groups.append(context)

    groups.append([metric.line for metric in (summary.model_tags, summary.context_rot,
                                              summary.autoimmunity) if metric is not None])
    if summary.warnings:
        groups.append(["**Warnings:**", *(f"  - {warning}" for warning in summary.warnings)])
    groups.append([CLOSING])

    memory = summary.memory
    if memory is not None and memory.always:
        groups.append([ALWAYS_LABEL])
        groups.extend([section] for section in memory.always)
    if memory is not None and memory.on_demand:
        groups.append([ON_DEMAND_LABEL, *(f"- {title}" for title in memory.on_demand)])

    return "\n\n".join("\n".join(group) for group in groups if group) + "\n"


# --------------------------------------------------------------------------- JSON


def _listing(items: Listing | None) -> dict[str, object] | None:
    if items is None:
        return None
    return {"items": list(items.items), "more": items.more}


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
        return {_key(key): jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item, depth + 1) for item in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [jsonable(item, depth + 1) for item in value]
    return str(value)


def _key(key: object) -> str:
    converted = jsonable(key)
    return converted if isinstance(converted, str) else str(converted)


def summary_dict(summary: Summary) -> dict[str, object]:
    handoff = summary.handoff
    handoff_data: dict[str, object] | None = None
    if handoff is not None:
        handoff_data = {
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
                "text": handoff.date.text, "day": handoff.date.day.isoformat(),
                "source": handoff.date.source},
            "frontmatter": jsonable(handoff.frontmatter),
            "state_snapshot": jsonable(handoff.snapshot),
        }
    tags = summary.model_tags
    rot = summary.context_rot
    immune = summary.autoimmunity
    memory = summary.memory
    branch = summary.branch
    return {
        "today": summary.today.isoformat(),
        "session_range": summary.session_range,
        "branch": None if branch is None else {
            "repository": branch.repository, "name": branch.branch, "head": branch.head,
            "working_tree": None if branch.tree is None else {
                "staged": branch.tree.staged, "modified": branch.tree.modified,
                "untracked": branch.tree.untracked, "conflicted": branch.tree.conflicted,
                "clean": branch.tree.clean},
            "handoff_date": None if branch.handoff_date is None else branch.handoff_date.text,
            "stale_handoff": branch.stale_handoff,
            "line": branch_text(branch),
        },
        "starting_fresh": handoff is None,
        "handoff": handoff_data,
        "graduated_gates": [{"id": gate.id, "trigger": gate.trigger, "check": gate.check}
                            for gate in summary.gates],
        "lesson_flags": _listing(summary.lesson_flags),
        "memory_alerts": _listing(summary.memory_alerts),
        "stale_references": list(summary.stale_references),
        "unchecked_references": list(summary.unchecked_references),
        "promotion_candidates": [
            {"date": entry.date.isoformat(), "type": entry.type, "title": entry.title,
             "ref": entry.ref, "summary": entry.summary, "text": candidate_text(entry)}
            for entry in summary.promotion_candidates
        ],
        "model_analysis": summary.model_analysis,
        "immune_rate": summary.immune_rate,
        "global": _listing(summary.global_items),
        "environment_alerts": list(summary.environment_alerts),
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
            "always": list(memory.always), "on_demand": list(memory.on_demand),
            "tagged": memory.tagged,
        },
        "warnings": list(summary.warnings),
    }


def render_json(summary: Summary) -> str:
    import json

    return json.dumps(summary_dict(summary), indent=2, ensure_ascii=False) + "\n"
