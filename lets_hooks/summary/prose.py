"""Reading a prose handoff as people write it (pure: records in, records out).

A heading gives its section a *role* by what it means (the table of heading words, in
English and Korean, is in docs/summary.md, and a test holds it to ``role_of``): a numbered
priority (``Priority 1``, ``P2``, ``Priority #1: Fix the reader``: the text after the
number is the task), priorities, done work, what not to repeat, risks and gotchas,
outstanding decisions, active blockers, or notes (feed no line). What a heading is about
comes before a topic word (*on*, *about*, *for*...): ``Notes on the CRLF bug`` is notes.

A heading without a role of its own (any level) belongs to the nearest heading above it
of a lower level that has one: ``### 1. Fix the reader`` under ``## Next steps`` is a
next step. Its items are its open list items (ordered or not, at the list's own
indentation; nested items are details, continuation lines are joined, ticked ``[x]``
items are done), else the first paragraph; a numbered sub-heading, or one with no list
under it, is an item itself.

Every pattern here is linear in its input: plain string operations, or regular
expressions without nested or overlapping repeats.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from lets_hooks.summary.records import Section
from lets_hooks.summary.sources.text import is_fence, is_placeholder, unfenced

ROLE_CHARS = 200  # of a heading, read to find its role
PRIORITIES = "priorities"
DONE = "done"
AVOID = "avoid"
DECISIONS = "decisions"
BLOCKERS = "blockers"
RISKS = "risks"
NOTES = "notes"  # read, and feeds no line: background, notes on a topic, a log


def _phrases(*words: str) -> tuple[str, ...]:
    """Whole words or phrases, ready to look for in ``_words_of`` text."""
    return tuple(f" {word} " for word in words)


# In this order: a heading that says both "not done" and "done" is still open, a dead end
# that was "closed" is still a dead end, and "Decisions made" is done, not a question.
_STILL_OPEN = _phrases("not done", "not yet done", "unfinished", "incomplete", "in progress",
                       "not started", "not yet started", "open task", "open tasks", "todo",
                       "unresolved", "not fixed", "not yet fixed", "still open")
_AVOID = _phrases("context note", "context notes", "failed", "failure", "failures",
                  "dead end", "dead ends", "don't retry", "do not retry", "dont retry",
                  "never retry", "don't repeat", "do not repeat", "dont repeat",
                  "don't try again", "do not try again", "didn't work", "did not work",
                  "tried", "abandoned", "rejected approach", "rejected approaches")
_RISKS = _phrases("risk", "risks", "gotcha", "gotchas", "pitfall", "pitfalls", "caveat",
                  "caveats", "watch out", "watch outs", "careful", "beware", "warning",
                  "warnings", "footgun", "footguns", "traps", "trap", "avoid", "danger",
                  "dangers", "landmine", "landmines")
_DONE = _phrases("done", "what i did", "what we did", "complete", "completed", "shipped",
                 "finished", "accomplished",
                 "resolved", "fixed", "closed", "made", "merged", "answered", "landed",
                 "released", "solved", "achieved", "wins", "changelog", "log", "history",
                 "decision record", "decision records", "adr", "adrs")
_DECISIONS = _phrases("decision", "decisions", "question", "questions", "to decide",
                      "undecided", "ask the user", "needs input", "need input",
                      "input needed", "open point", "open points")
_BLOCKERS = _phrases("blocker", "blockers", "blocked", "blocking", "issue", "issues",
                     "problem", "problems", "bug", "bugs", "broken", "failing")
_PRIORITIES = _phrases("priority", "priorities", "next step", "next steps", "next up",
                       "up next", "to do", "task", "tasks", "remaining", "pending",
                       "action item", "action items", "follow up", "follow ups", "plan for",
                       "plan", "plans", "tomorrow", "next session", "next time", "upcoming",
                       "where to start", "start here", "what's next", "roadmap")
# What a heading is about comes before these words: "Notes on the CRLF bug" is notes,
# "Questions for the user" questions. (Only where the head itself has a role, or says it
# is notes: "Update on blockers" is judged by all its words.)
_TOPIC = _phrases("on", "about", "regarding", "re", "concerning", "for", "from", "of",
                  "in", "with", "to")
_NOTES = _phrases("note", "notes", "background", "context", "summary", "overview",
                  "observations", "learnings", "lessons", "thoughts", "reference",
                  "references", "links", "status", "journal", "retrospective", "retro",
                  "tl dr", "tldr", "changes", "changed", "files", "state", "progress",
                  "commands", "testing", "how to test", "environment", "setup",
                  "architecture", "design", "timeline", "metrics", "prs", "pull requests",
                  "branches", "session", "range")  # the checkpoint's ### Range: its own reader
_WORD = re.compile(r"[a-z0-9']+")

# The same roles in Korean, looked for as parts of the heading (Korean joins particles to
# its words: "우선순위는", "블로커들"). Korean puts what a heading is about last ("CRLF 버그에
# 대한 메모" is notes), so the words after a topic marker are judged first. Checked in this
# order: an open question before finished work ("미결정 사항" is a question, "결정 사항"
# done), not-yet-done before done ("미완료" holds "완료").
_KO_AVOID = ("맥락 메모", "맥락 노트", "컨텍스트 메모", "컨텍스트 노트", "실패", "막다른",
             "하지 말", "반복하지", "재시도 금지", "다시 시도하지", "시도한", "시도했",
             "안 된 것", "안된 것", "효과 없", "포기한", "버린 방법")
_KO_OPEN_DECISIONS = ("미결정", "결정 필요", "결정이 필요", "결정할", "결정해야", "정해야",
                      "질문", "확인 필요", "확인이 필요", "물어볼", "논의 필요", "의견 필요")
_KO_STILL_OPEN = ("미완료", "미완성", "진행 중", "진행중", "미착수", "남은 작업", "남은 일",
                  "할 일", "해야 할", "못 한", "못한")
_KO_DONE = ("완료", "끝낸", "끝난", "마친", "마무리한", "해결됨", "해결된", "해결한", "수정됨",
            "수정한", "한 일", "배포됨", "배포한", "병합", "머지", "결정 사항", "결정된",
            "결정한", "변경 이력", "이력", "작업 기록", "로그", "성과", "답변된")
_KO_RISKS = ("위험", "리스크", "주의", "함정", "경고", "조심", "유의")
_KO_DECISIONS = ("결정", "의사결정")
_KO_BLOCKERS = ("블로커", "차단", "막힘", "막힌", "블록", "이슈", "문제", "버그", "장애",
                "오류", "에러")
_KO_PRIORITIES = ("우선순위", "우선 순위", "다음 단계", "다음 작업", "다음 할 일", "다음 세션",
                  "다음에", "작업 목록", "내일", "계획", "예정", "로드맵", "시작할", "이어서",
                  "후속", "다음")
_KO_NOTES = ("메모", "노트", "배경", "참고", "요약", "개요", "현황", "상태", "관찰", "배운 점",
             "교훈", "생각", "링크", "회고", "맥락", "컨텍스트", "기록", "변경", "파일", "명령",
             "테스트", "환경", "설정", "구조", "설계", "진행 상황", "세션")
_KO_ORDER = ((AVOID, _KO_AVOID), (DECISIONS, _KO_OPEN_DECISIONS), (PRIORITIES, _KO_STILL_OPEN),
             (DONE, _KO_DONE), (RISKS, _KO_RISKS), (DECISIONS, _KO_DECISIONS),
             (BLOCKERS, _KO_BLOCKERS), (PRIORITIES, _KO_PRIORITIES), (NOTES, _KO_NOTES))
_KO_TOPIC = ("에 대한 ", "에 관한 ", "에 대해 ", " 관련 ")
_HANGUL = re.compile("[\uac00-\ud7a3]")


def _korean_role(heading: str) -> Role | None:
    """The role a Korean heading's words give (None when they give none)."""
    text = " ".join(heading[:ROLE_CHARS].split())
    if _HANGUL.search(text) is None:
        return None
    candidates = [text]
    for marker in _KO_TOPIC:
        at = text.rfind(marker)
        if at >= 0:
            candidates.insert(0, text[at + len(marker):])
            break
    for words in candidates:
        for kind, found in _KO_ORDER:
            if any(word in words for word in found):
                return Role(kind)
    return None


def _words_of(heading: str) -> str:
    """The heading's first words, lower-cased, one blank between each and at both ends
    (``Don't-retry list`` → `` don't retry list ``; a curly apostrophe is read as ``'``)."""
    text = heading[:ROLE_CHARS].lower().replace("\u2019", "'")
    return " " + " ".join(_WORD.findall(text)) + " "


def _says(words: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in words for phrase in phrases)


_NUMBERED = re.compile(
    r"(?:(?:priority|prio|p|우선[ \t]*순위|순위)[ \t]*(?:#[ \t]*)?(?P<n>[1-9][0-9]?)"
    r"|(?P<k>[1-9][0-9]?)[ \t]*순위)(?![0-9A-Za-z])", re.IGNORECASE)
_STEP = re.compile(r"(?:step[ \t]*|단계[ \t]*)?#?[0-9]{1,3}(?:[ \t]?단계)?[.):]?(?:[ \t]+|$)",
                   re.IGNORECASE)
_SEPARATORS = ":.)\u2014\u2013-"  # between a numbered priority and its task (em and en dash too)


@dataclass(frozen=True)
class Role:
    kind: str
    number: int | None = None  # a numbered priority's number
    task: str | None = None  # the task a numbered priority heading carries


def role_of(heading: str) -> Role | None:
    """Which part of the readiness block a heading feeds, if any (``NOTES``: none), judged
    by its first ``ROLE_CHARS`` (see the module's docstring and ``_TOPIC``)."""
    numbered = numbered_priority(heading)
    if numbered is not None:
        return numbered
    texts = dict.fromkeys((_lead(heading), heading))
    roles = [_role_of_words(_words_of(text)) for text in texts]
    roles += [_korean_role(text) for text in texts]
    return next((role for role in roles if role is not None), None)


def _lead(heading: str) -> str:
    """The heading before a remark: a parenthesis, a colon or a dash between blanks
    (``Next steps (after the risks are handled)``, ``Open questions: risks``)."""
    text = heading[:ROLE_CHARS]
    marks = ("(", ":", " \u2014 ", " \u2013 ", " - ")
    return text[:min((at for at in map(text.find, marks) if at > 0), default=len(text))]


def _role_of_words(words: str) -> Role | None:
    for text in dict.fromkeys((_head(words), words)):
        kind = _kind(text) or (NOTES if _says(text, _NOTES) else None)
        if kind is not None:
            return Role(kind)
    return None


def _head(words: str) -> str:
    """The words before the first topic word (all of them when there is none, or when the
    heading starts with one)."""
    cut = min((at for at in (words.find(phrase, 1) for phrase in _TOPIC) if at > 0),
              default=len(words))
    return words[:cut + 1] if cut < len(words) else words


def _kind(words: str) -> str | None:
    for kind, phrases in ((PRIORITIES, _STILL_OPEN), (AVOID, _AVOID), (DONE, _DONE),
                          (RISKS, _RISKS), (DECISIONS, _DECISIONS), (BLOCKERS, _BLOCKERS)):
        if _says(words, phrases):
            return kind
    if _says(words, _PRIORITIES) or words.startswith(" next ") or words.endswith(" next "):
        return PRIORITIES
    return None


def numbered_priority(heading: str) -> Role | None:
    """``Priority 1``, ``P2``, ``Priority #1: task``, ``Priority 2 — task``: the number and
    the task the heading carries (None when only a parenthesis or nothing follows)."""
    text = heading.strip()
    match = _NUMBERED.match(text)
    if match is None:
        return None
    tail = text[match.end():].strip().lstrip(_SEPARATORS).strip()
    if tail.startswith("(") and tail.endswith(")"):
        tail = ""  # "Priority 1 (urgent)": a note about the priority, not its task
    return Role(PRIORITIES, int(match.group("n") or match.group("k")), tail or None)


# --------------------------------------------------------------------------- items


def one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Items:
    open: list[str] = field(default_factory=list)
    ticked: int = 0  # done checkboxes
    listed: bool = False  # the section holds a list


_ORDERED = re.compile(r"[0-9]{1,9}[.)]")


def list_item(line: str) -> tuple[int, str] | None:
    """(indentation, text) of a list item line (``-``, ``*``, ``+``, ``1.`` or ``1)``)."""
    body = line.lstrip(" \t")
    indent = len(line) - len(body)
    if body[:1] in ("-", "*", "+"):
        rest = body[1:]
    else:
        number = _ORDERED.match(body)
        if number is None:
            return None
        rest = body[number.end():]
    if not rest or rest[0] not in " \t":
        return None
    return indent, rest.strip()


def _checkbox(text: str) -> tuple[bool | None, str]:
    """(ticked?, the text after the box); None when there is no box."""
    if len(text) >= 3 and text[0] == "[" and text[2] == "]" and text[1] in " xX":
        return text[1] in "xX", text[3:].strip()
    return None, text


def section_items(lines: Sequence[str]) -> Items:
    """Open top-level list items of a section's lines; with no list, its first paragraph
    as one item. Fenced code is skipped."""
    found = Items()
    base: int | None = None
    current: list[str] | None = None  # the item whose continuation lines may follow
    paragraph: list[str] = []
    paragraph_done = False
    in_fence = False
    for line in lines:
        stripped = line.strip()
        if is_fence(stripped):
            in_fence = not in_fence
            current = None
            continue
        if in_fence:
            continue
        item = list_item(line)
        if item is not None:
            indent, text = item
            if base is None:
                base = indent
            if indent >= base + 2:
                current = None
                continue  # a nested item: a detail of the one above
            found.listed = True
            ticked, text = _checkbox(text)
            if ticked:
                found.ticked += 1
                current = None
                continue
            current = [text]
            found.open.append(one_line(text))
            continue
        if not stripped:
            current = None
            if paragraph:
                paragraph_done = True
            continue
        if current is not None:
            current.append(stripped)
            found.open[-1] = one_line(" ".join(current))
        elif not found.listed and not paragraph_done:
            paragraph.append(stripped)
    if not found.listed and paragraph:
        found.open.append(one_line(" ".join(paragraph)))
    found.open = [item for item in found.open if item]
    return found


_BOLD = re.compile(r"\*\*(?=[^\s*])([^*\n]+?)(?<=\S)\*\*")


def plain(text: str) -> str:
    """``text`` without ``**bold**`` markers (the words kept). Each try stops at the next
    ``*``, so the work is linear in the text's length."""
    return _BOLD.sub(r"\1", text) if "**" in text else text


def real_items(items: Iterable[str]) -> list[str]:
    """The items as plain text (``**bold**`` markers dropped), without the empty ones and
    the placeholders that say there are none (``sources.text.is_placeholder``)."""
    texts = (plain(item).strip() for item in items)
    return [text for text in texts if text and not is_placeholder(text)]


# --------------------------------------------------------------------------- parts


@dataclass
class Part:
    """The sections one role-giving heading owns: its own and those nested under it."""

    role: Role
    heading: str
    items: list[str] = field(default_factory=list)
    ticked: int = 0

    @property
    def open_items(self) -> list[str]:
        return real_items(self.items)


def parts(sections: Iterable[Section], unplaced: list[str] | None = None) -> list[Part]:
    """The role-giving headings' parts. ``unplaced``, when given, receives the headings
    the reader cannot place: a section with open items under a heading without a role,
    and under no heading that has one (a document's first ``#`` title aside)."""
    found: list[Part] = []
    first = True
    stack: list[tuple[int, Part | None]] = []
    for section in sections:
        if not section.heading:
            continue  # text before the first heading
        while stack and stack[-1][0] >= section.level:
            stack.pop()
        owner = stack[-1][1] if stack else None
        role = role_of(section.heading)
        items = section_items(section.lines)
        if role is not None:
            part = Part(role, section.heading, list(items.open), items.ticked)
            found.append(part)
            stack.append((section.level, part))
        elif owner is not None:
            step = _STEP.match(section.heading)  # "1.", "Step 2:", "#3", "1단계:": one item
            if step is not None or not items.listed:
                owner.items.append(one_line(section.heading[step.end() if step else 0:]))
            else:
                owner.items.extend(items.open)
            owner.ticked += items.ticked
            stack.append((section.level, owner))
        else:
            if (unplaced is not None and items.open and not (first and section.level == 1)
                    and real_items(items.open)):
                unplaced.append(one_line(section.heading)[:80])
            stack.append((section.level, None))
        first = False
    return found


def priorities(found: Sequence[Part]) -> list[str]:
    """Numbered priorities first, in their numbers' order (each gives the task its heading
    carries, else its first open item), then the items of the other priority sections."""
    numbered = sorted((part for part in found if part.role.number is not None),
                      key=lambda part: part.role.number or 0)
    ordered: list[str] = []
    for part in numbered:
        ordered.extend(real_items([part.role.task or ""]) or part.open_items[:1])
    ordered.extend(item for part in found
                   if part.role.kind == PRIORITIES and part.role.number is None
                   for item in part.open_items)
    return ordered


def done_work(found: Sequence[Part]) -> int:
    """How many finished items the sections record (done sections' items, ticked boxes)."""
    return sum(len(part.open_items) + part.ticked if part.role.kind == DONE else part.ticked
               for part in found)


# --------------------------------------------------------------------------- the snapshot's items


def scalar(value: object) -> str:
    """A YAML value as one line of text (dates as ISO, mappings as ``key: value``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(scalar(v) for v in value)
    return one_line(str(value))


def pick(mapping: Mapping[object, object], *keys: str) -> str | None:
    for key in keys:
        value = mapping.get(key)
        if value is not None and value != "":
            return scalar(value)
    return None


def item_text(item: object, keys: Sequence[str] = ("item", "task", "title", "what"),
              note: str = "why", form: str = "{} ({})") -> str:
    """A snapshot item as one line: the first of its ``keys`` given, with its ``note`` as
    ``form`` says (a ``next`` item's defaults); anything else as ``scalar``."""
    if not isinstance(item, Mapping) or (main := pick(item, *keys)) is None:
        return scalar(item)
    said = pick(item, note)
    return form.format(main, said) if said else main


def diff_item_text(item: object) -> str:
    if isinstance(item, Mapping):
        op, what, why = pick(item, "op"), pick(item, "item"), pick(item, "why")
        if op is None and what is None:
            return scalar(item)
        head = " ".join(part for part in (op, what) if part)
        return f"{head} ({why})" if why else head
    return scalar(item)


_OPS = {"remove": "removed", "delete": "deleted", "rename": "renamed", "move": "moved",
        "add": "added", "create": "created", "d": "deleted", "r": "renamed", "a": "added"}


def diff_claim_text(item: object) -> str:
    """What a snapshot ``diff`` item says of its path, as a sentence the same rule reads
    as the prose's (``removed a.py``, ``renamed a.py → b.py``): its ``op`` and ``item``
    (or ``from`` / ``to``), never its ``why`` (a commit's subject says other things)."""
    if not isinstance(item, Mapping):
        return scalar(item)
    op = pick(item, "op") or ""
    op = _OPS.get(op.strip().lower(), op)
    old, new = pick(item, "from", "old"), pick(item, "to", "new")
    what = f"{old} \u2192 {new}" if old and new else pick(item, "item", "path") or ""
    return f"{op} {what}".strip()


# --------------------------------------------------------------------------- approvals

# What says that something was approved, allowed or enabled. Named groups say which kind
# of word matched, for the checks in ``grants``; no group repeats, so the search is linear.
_GRANTED = re.compile(  # the first letters up front let the engine skip other positions
    r"(?=[aAbBcCeEfFgGoOpPsSwW])\b(?:(?P<verb>approved|allowed|authori[sz]ed|granted|permitted|okayed|ok'?e?d"
    r"|whitelisted|allowlisted|signed off|green-?lit|green lit|cleared to)"
    r"|(?P<enabled>enabled)"
    r"|(?P<fine>(?:fine|ok|okay|alright|all right) to)"
    r"|(?P<goahead>go-ahead|go ahead)"
    r"|(?P<noun>approval|permission|consent|sign-off|signoff|blessing))\b",
    re.IGNORECASE)
# Words just before that turn it into its opposite, or into something still to be had.
_NEGATIONS = frozenset({"not", "never", "no", "longer", "nor", "neither", "without",
                        "pending", "awaiting", "needs", "need", "needed", "requires",
                        "require", "required", "ask", "asking", "request", "requested",
                        "un", "yet"})
# A noun ("approval") or "go ahead" is an approval only after a word that says it was had.
_HAD = frozenset({"got", "get", "has", "have", "had", "gave", "given", "give", "received",
                  "with", "the", "a", "user's", "their", "his", "her", "explicit",
                  "written", "verbal", "full"})
_CONFIG = re.compile(r"\b(?:by default|in (?:the |our |its |a )?[\w./-]*[ \t]*"
                     r"(?:config|configuration|settings|defaults)\b)", re.IGNORECASE)


# Each word ``_GRANTED`` looks for holds one of these: a line without any is skipped at
# the speed of a substring test (the pattern itself tries many words at many positions).
_GRANT_ROOTS = ("approv", "allow", "enabl", "authori", "grant", "permi", "ok", "sign",
                "green", "clear", "fine", "alright", "all right", "go ahead", "go-ahead",
                "consent", "blessing", "whitelist")


# The same in Korean ("스테이징 배포 권한 허용됨": "staging deploy permission granted"): the
# word, unless what follows within seven characters (a bounded look ahead: linear) turns it
# into its opposite or something still to be had ("승인 필요", "허용되지 않음", "승인 대기 중"),
# or a prefix or a setting does ("미승인", "기본값으로 활성화됨"). Compiled on first use
# (``re``'s cache): a handoff without Hangul never pays for them.
_KO_NOT_AFTER = ("않", "안 ", "안됨", "안돼", "못", "불가", "거부", "거절", "필요", "대기", "요청",
                 "기다", "받아야", "해야", "전에", "없", "금지", "취소", "철회", "만료", "예정",
                 "할 것", "받을", "받으면", "하면", "여부", "할지", "해 주", "해주")
_KO_GRANTED = (r"(?:허용|승인|허가|동의|활성화|켜[ \t]?(?:둠|뒀|놓)|결재|컨펌"
               r"|권한[ \t]?(?:을[ \t]?)?(?:부여|받)"
               r"|화이트리스트|오케이|OK[ \t]?받|해도[ \t]?(?:됨|된다|돼|좋)|진행해도"
               r"|괜찮다고)"
               r"(?![^\n]{0,7}?(?:" + "|".join(_KO_NOT_AFTER) + r"))")
_KO_GRANT_ROOTS = ("허용", "승인", "허가", "동의", "활성화", "켜", "해도", "괜찮", "권한", "결재",
                   "컨펌", "화이트리스트", "오케이", "OK")
_KO_NOT_BEFORE = ("아직", "기본", "설정에서", "설정으로", "설정 파일")


def may_grant_ko(text: str) -> bool:
    return any(root in text for root in _KO_GRANT_ROOTS)


def grants(line: str) -> bool:
    """Does the text say that something was approved, allowed or enabled (and not that it
    was not, nor that approval is still to be had)? A question is not an approval; a
    setting "enabled by default" or "enabled in the prod config" is a fact about the
    configuration, not a permission."""
    text = line.replace("\u2019", "'")
    if text.rstrip().endswith("?"):
        return False
    if may_grant_ko(text):
        korean = text.strip()
        for match in re.finditer(_KO_GRANTED, korean):
            prefix = korean[max(0, match.start() - 8):match.start()]
            if not prefix.endswith(("미", "비", "불")) and not any(
                    word in prefix for word in _KO_NOT_BEFORE):
                return True
    for match in _GRANTED.finditer(text):
        before = text[max(0, match.start() - 40):match.start()].lower().split()[-3:]
        if any(word in _NEGATIONS or word.endswith("n't") for word in before):
            continue
        if match.group("enabled") and _CONFIG.match(text, match.end() + 1):
            continue
        if (match.group("noun") or (match.group("goahead") or "").lower() == "go ahead") and not (
                before and before[-1] in _HAD):
            continue
        return True
    return False


_SENTENCE_END = re.compile(r"(?<=[.!?;])[ \t]+")


def _sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!``, ``?`` or ``;`` followed by blanks."""
    return [sentence for sentence in _SENTENCE_END.split(text) if sentence]


def approvals(sections: Iterable[Section], extra: Iterable[str] = ()) -> list[str]:
    """The sentences of the prose's items and lines (and of ``extra`` texts, the
    state-snapshot's) that say something was approved, allowed or enabled: each once,
    as written."""
    found: dict[str, None] = {}
    for section in sections:
        for _, line in unfenced(section.lines):
            stripped = line.strip()
            if not stripped:
                continue
            if not may_grant_ko(stripped) and (
                    not any(root in stripped.lower() for root in _GRANT_ROOTS)
                    or _GRANTED.search(stripped.replace("\u2019", "'")) is None):
                continue
            item = list_item(line)
            text = one_line(_checkbox(item[1])[1] if item else stripped)
            found.update(dict.fromkeys(s for s in _sentences(text) if grants(s)))
    for text in extra:
        if grants(text):
            found.setdefault(one_line(text))
    return [item for item in found if item]


# --------------------------------------------------------------------------- what it says of names

# Past forms only: "remove `x`" is a step to take, "removed `x`" a thing done.
_REMOVAL = re.compile(  # the first letters up front let the engine skip other positions
    r"(?=[dDgGmMnNoOrR])\b(?:removed|deleted|dropped|renamed|moved|retired|gone|replaced"
    r"|obsolete|no longer exists?|deprecated)\b", re.IGNORECASE)
# ("lives in `x`" says where something is, not that it is new: no claim.)
_ADDITION = re.compile(
    r"(?=[aAcCiInNwW])\b(?:added|created|introduced|wrote|written|now lives in|now in"
    r"|new file|new module|new function)\b", re.IGNORECASE)
# After a removal word: what follows these is the new name ("renamed `a` to `b`").
_TARGET = re.compile(r"(?:\b(?:to|into|with|by|as|now)\b|\u2192|\u21d2|->|=>)", re.IGNORECASE)
_ARROW = re.compile(r"\u2192|\u21d2|->|=>")
# The same in Korean: "`a.py` 삭제함", "`a.py`를 `b.py`로 이름 변경" (``로``: to), "`b.py`
# (`a.py`에서 이동)" (``에서``: from); "삭제 예정", "삭제하지 않음" say neither (a word is not
# followed, within five characters, by one of these: a bounded look ahead, linear).
_KO_NOT_DONE = ("않", "안 ", "예정", "할 ", "할것", "해야", "필요", "하지", "하면", "할지", "여부",
                "금지", "말 것", "마세요", "하자", "할까")
_KO_UNLESS = r"(?![^\n]{0,5}?(?:" + "|".join(_KO_NOT_DONE) + r"))"
_KO_REMOVAL = (r"(?:삭제|제거|지움|지웠|이름[ \t]?(?:을[ \t]?)?(?:변경|바꿈|바꿨|바뀜)"
               r"|옮김|옮겼|이동|폐기|대체|없어짐|없앰|사라짐|사라졌|드롭"
               r"|더[ \t]?이상[ \t]?(?:존재하지[ \t]?않|없)|사용[ \t]?중단|지원[ \t]?중단)"
               + _KO_UNLESS)
_KO_ADDITION = r"(?:추가|생성|작성|새로 만든|새 파일|새 모듈|신규|도입)" + _KO_UNLESS
_FROM = re.compile(r"\bfrom\b", re.IGNORECASE)
_NOT_DONE = frozenset({"not", "never", "no", "be", "nor", "neither", "yet"})
_IN_NAME = frozenset({"/", "_", "-", "."})


def _in_name(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` part of a path or a name (``docs/moved/x.md``, ``gone_fn``,
    ``gone.py``) rather than a word of the sentence (``were removed.``)?"""
    before, after, then = text[start - 1:start], text[end:end + 1], text[end + 1:end + 2]
    return before in _IN_NAME or (after in _IN_NAME and after != ".") or (
        after == "." and then.isalnum())


def _said(pattern: re.Pattern[str], sentence: str) -> re.Match[str] | None:
    """The first match of ``pattern`` that is not negated or still to come ("not
    removed", "will be removed")."""
    for match in pattern.finditer(sentence):
        if _in_name(sentence, match.start(), match.end()):
            continue  # part of a path or a name: "docs/moved/guide.md", "gone_fn"
        before = sentence[max(0, match.start() - 24):match.start()].lower().split()[-2:]
        if not any(word in _NOT_DONE or word.endswith("n't") for word in before):
            return match
    return None


def _after_name(sentence: str, end: int) -> str:
    """What follows a name, past its closing backtick or quote."""
    return sentence[end:end + 4].lstrip("`'\" ")


def _blocks(text: str) -> Iterator[str]:
    """Paragraphs and list items of ``text`` as single lines (a sentence may run over a
    line end), fenced code left out."""
    current: list[str] = []
    for _, line in unfenced(text.split("\n")):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or list_item(line) is not None:
            if current:
                yield " ".join(current)
            current = [stripped] if stripped and not stripped.startswith("#") else []
            continue
        current.append(stripped)
    if current:
        yield " ".join(current)


def reference_claims(text: str, names: Sequence[str]
                     ) -> tuple[frozenset[str], frozenset[str]]:
    """What the handoff says of the paths and functions it names: (those it says were
    removed, deleted, renamed or moved away; those it says were added, created, or are
    the new name of a rename). ``renamed `a` to `b```: ``a`` is removed, ``b`` claimed;
    ``b (renamed from a)``: the same. "Not removed" and "will be removed" say neither.
    A name said removed anywhere is removed."""
    removed: set[str] = set()
    claimed: set[str] = set()
    wanted = [name for name in dict.fromkeys(names) if name]
    if not wanted:
        return frozenset(), frozenset()
    for block in _blocks(text.replace("\\", "/")):
        if (_REMOVAL.search(block) is None and _ADDITION.search(block) is None
                and (_HANGUL.search(block) is None or (re.search(_KO_REMOVAL, block) is None
                                            and re.search(_KO_ADDITION, block) is None))):
            continue
        for sentence in _sentences(block):
            present = [name for name in wanted if name in sentence
                       and next(_occurrences(sentence, name), None) is not None]
            if present:
                _judge(sentence, present, removed, claimed)
    return frozenset(removed), frozenset(claimed - removed)


def _judge(sentence: str, names: Sequence[str], removed: set[str], claimed: set[str]
           ) -> None:
    """One sentence's word on the names in it (see ``reference_claims``)."""
    gone = _said(_REMOVAL, sentence)
    korean = gone is None and _HANGUL.search(sentence) is not None
    if korean:
        gone = re.search(_KO_REMOVAL, sentence)
    if gone is None:
        if _said(_ADDITION, sentence) is not None or (
                korean and re.search(_KO_ADDITION, sentence) is not None):
            claimed.update(names)
        return
    spots = sorted((at, name) for name in names for at in _occurrences(sentence, name))
    if korean:
        _judge_ko(sentence, spots, removed, claimed)
        return
    origin = _FROM.search(sentence, gone.end())
    if origin is not None:  # "`b` (renamed from `a`)": the names before it are new
        for at, name in spots:
            (claimed if at < gone.start() else removed).add(name)
        return
    # "`a` was renamed to `b`", "renamed `a` to `b`", "renamed the helper: `a` → `b`": the
    # new names follow a target word that comes after the first old name
    if any(at < gone.start() for at, _ in spots):
        target = _TARGET.search(sentence, gone.end())
    else:
        first = next(((at, name) for at, name in spots if at >= gone.end()), None)
        target = (_TARGET.search(sentence, first[0] + len(first[1])) if first is not None
                  else None)
    for at, name in spots:
        (claimed if target is not None and at >= target.end() else removed).add(name)


def _judge_ko(sentence: str, spots: Sequence[tuple[int, str]], removed: set[str],
              claimed: set[str]) -> None:
    """A Korean sentence that says something was removed, renamed or moved: a name
    followed by ``로`` / ``으로`` (to) or after an arrow is the new one; when some name is
    followed by ``에서`` (from), that one is the old one and the rest are new."""
    arrow = _ARROW.search(sentence)
    origins = {name for at, name in spots
               if _after_name(sentence, at + len(name)).startswith("에서")}
    for at, name in spots:
        after = _after_name(sentence, at + len(name))
        new = ((arrow is not None and at >= arrow.end()) or after.startswith(("로", "으로"))
               or bool(origins and name not in origins))
        (claimed if new else removed).add(name)


def _occurrences(sentence: str, name: str) -> Iterator[int]:
    """Where ``name`` stands whole in ``sentence`` (``a.py`` is not in ``data.py``)."""
    at = sentence.find(name)
    while at >= 0:
        end = at + len(name)
        before = sentence[at - 1:at]
        after = sentence[end:end + 1]
        if not (before and (before.isalnum() or before in "_./-")) and not (
                after and (after.isalnum() or after in "_/")):
            yield at
        at = sentence.find(name, at + 1)
