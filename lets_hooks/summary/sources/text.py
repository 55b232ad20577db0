"""What every reader shares: reading a file as text behind the fences, lines, markdown
headings and sections, and YAML.

Project files are read through ``files.read_inside`` (a link out of the project or into
the git directory is refused: a cloned repository cannot make the summary print a private
file or its own config); the user's files through ``files.read_outside_git`` (links
followed, never into a git directory). Both stop at ``MAX_FILE_BYTES``. Every pattern here
runs in time linear in its input (``tests/test_summary_linear.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from lets_hooks import files
from lets_hooks.summary.interventions import (
    MAX_FILE_BYTES,
    decode,
    line_numbers,
    problem_line,
    read_user_bytes,
)
from lets_hooks.summary.records import Read, Section


def home_label(relative: str) -> str:
    return "~/" + relative


# --------------------------------------------------------------------------- raw text


def read_project_text(root: Path, relative: str, git_dir: str | None = None) -> Read[str]:
    """A project file's text, bounded and fenced: missing → ``Read(None)`` silently;
    refused, too large or unreadable → ``Read(None, (warning,))``; bad UTF-8 replaced
    (U+FFFD) with a warning; a leading byte-order mark dropped."""
    data, problem = files.read_inside(str(root), relative, MAX_FILE_BYTES, git_dir)
    return _text(data, problem_line(relative, problem), relative)


def read_home_text(home: Path, relative: str) -> Read[str]:
    """A user file's text under ``home``, named ``~/<relative>`` in warnings."""
    label = home_label(relative)
    data, problem = read_user_bytes(home / relative, label)
    return _text(data, problem, label)


def _text(data: bytes | None, problem: str | None, label: str) -> Read[str]:
    if data is None:
        return Read(None, (problem,) if problem else ())
    text, bad = decode(data, label)
    return Read(text, (bad,) if bad else ())


def lines_of(text: str) -> list[str]:
    """Split on newlines only (``str.splitlines`` also splits on form feeds and U+2028);
    a CR before the newline is dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def is_fence(line: str) -> bool:
    """A line the readers take for a fence, opening or closing (each one toggles): ```
    or ~~~ after any indentation, whatever follows."""
    return line.lstrip().startswith(("```", "~~~"))


def unfenced(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(index, line) of each line outside fenced code, the fences (``is_fence``) left out."""
    in_fence = False
    for index, line in enumerate(lines):
        if is_fence(line):
            in_fence = not in_fence
        elif not in_fence:
            yield index, line


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")


def fence_opening(line: str) -> str | None:
    """The fence ``line`` opens as Markdown reads it, else None: three or more backticks
    or tildes after at most three blanks (the run is returned); a backtick fence whose
    info string holds a backtick is not one."""
    opened = _FENCE.match(line)
    if opened is None or (opened.group(1)[0] == "`" and "`" in opened.group(2)):
        return None
    return opened.group(1)


def fence_closing(line: str) -> str | None:
    """The run of a line that may close a fence (nothing but blanks after it), else None:
    it closes an open ``fence`` of its character no longer than itself."""
    closing = _FENCE.match(line)
    if closing is None or closing.group(2).strip():
        return None
    return closing.group(1)


def lines_phrase(numbers: Sequence[int]) -> str:
    """``line 4 has`` / ``lines 4, 9, 12 and 2 more have``."""
    return line_numbers(numbers) + (" has" if len(numbers) == 1 else " have")


# --------------------------------------------------------------------------- markdown


def heading(line: str) -> tuple[int, str] | None:
    """An ATX heading, (level, text), or None: one to six ``#``, then a blank or tab (or
    nothing more), then the text without its surrounding blanks; a closing run of ``#``
    is dropped only after a blank, so ``## C#`` keeps its ``#``."""
    level = len(line) - len(line.lstrip("#"))
    rest = line[level:]
    if not 1 <= level <= 6 or rest[:1] not in (" ", "\t"):
        return None
    return level, heading_text(rest)


def heading_text(text: str) -> str:
    """A heading's text without its surrounding blanks and its closing run of ``#``
    (one after a blank), cut with string methods (a pattern for it would backtrack over a
    long run of blanks)."""
    text = text.strip(" \t")
    bare = text.rstrip("#")
    if bare != text and bare and bare[-1] in " \t":
        text = bare.rstrip(" \t")
    return text


def sections(lines: Sequence[str]) -> tuple[Section, ...]:
    """Split at every heading outside fenced code; text before the first heading is a
    level-0 section with an empty heading."""
    found: list[Section] = []
    title, level = "", 0
    body: list[str] = []
    in_fence = False
    for line in lines:
        if is_fence(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            parsed = heading(line)
            if parsed is not None:
                if title or any(part.strip() for part in body):
                    found.append(Section(title, level, tuple(body)))
                level, title = parsed
                body = []
                continue
        body.append(line)
    if title or any(part.strip() for part in body):
        found.append(Section(title, level, tuple(body)))
    return tuple(found)


def strip_frontmatter(lines: list[str]) -> list[str]:
    """The lines after a leading ``---`` ... ``---`` block (all of them when there is none)."""
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                return lines[index + 1:]
    return lines


# --------------------------------------------------------------------------- YAML


def _yaml_problem(exc: Exception, first_line: int) -> str:
    """One line about a YAML failure, with the file's line number when known."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if not isinstance(problem, str) or not problem:
        message = str(exc).strip()
        problem = message.splitlines()[0] if message else type(exc).__name__
    where = ""
    if mark is not None and isinstance(getattr(mark, "line", None), int):
        where = f" at line {first_line + mark.line}"
    return f"not valid YAML{where}: {problem}"


def _too_big(value: object, budget: int = 20_000) -> bool:
    """True when walking ``value`` visits more than ``budget`` nodes (YAML aliases can
    make a small document expand without end when converted)."""
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > budget:
            return True
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


def parse_yaml(text: str, label: str, what: str, first_line: int
               ) -> tuple[object, str | None]:
    import yaml

    try:  # a safe loader, the C one when there is one
        value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception as exc:  # yaml.YAMLError, and ValueError for impossible dates
        return None, f"{label}: {what} {_yaml_problem(exc, first_line)}; ignored"
    if _too_big(value):
        return None, f"{label}: {what} is too large once its aliases are expanded; ignored"
    return value, None


# --------------------------------------------------------------------------- placeholders

PLACEHOLDER_CHARS = 120  # longer text is never a placeholder (and is not looked at further)
# emphasis, quotes (curly ones too), dashes (en, em) and closing punctuation
_EDGE = " \t*_`~\"'\u201c\u201d\u2018\u2019.,;:!?-\u2013\u2014\u2026"
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_TAIL = (r"(?:yet|so far|for now|at the moment|at this time|at present|currently|right now"
         r"|today|to report|to note|to add|to do|open|pending|outstanding|remaining|left"
         r"|known|identified|found|here|needed|required|blocking|else|new|planned"
         r"|in progress|at all|recorded|listed|noted|all clear|all done|all resolved"
         r"|resolved|this session|this time|as of now|as yet)")
_KIND = (r"(?:blockers?|blocks|blocking issues?|decisions?|questions?|open questions?"
         r"|issues?|problems?|risks?|items?|open items?|next steps?|steps?|tasks?|todos?"
         r"|to-dos?|changes?|approvals?|entries|entry|gotchas?|dead ends?"
         r"|failed approaches|approaches|notes?|concerns?|bugs?|errors?|warnings?|alerts?"
         r"|actions?|action items?|work|updates?|news|findings?|lessons?|gates?"
         r"|priorities|priority|plans?|follow-ups?|followups?|ones?|known issues?"
         r"|outstanding items?|impediments?)")
_QUALIFIER = (r"(?:known|open|current|outstanding|active|new|further|other|real|more|pending"
              r"|major|blocking|unresolved|remaining|serious|specific|particular|big)")
_PLACEHOLDER = re.compile(
    r"(?:(?:currently|still|so far|for now|as of now|there are|there is|there's)\s+)?"
    r"(?:none|nothing|nil|null|n/a|n\.a|na|not applicable|nada|empty"
    r"|no\s+(?:" + _QUALIFIER + r"\s+)?" + _KIND + r")"
    r"(?:\s+" + _TAIL + r")*")


# The same in Korean: "없음" ("none"), "해당 없음" ("n/a"), "아직 없음" ("none yet"), "블로커
# 없음" ("no blockers"), "특이사항 없습니다" ("nothing to note"), with the same brackets.
_KO_KIND = (r"(?:블로커|차단|이슈|문제|질문|결정|결정 사항|위험|리스크|작업|할 일|항목|변경"
            r"|변경 사항|메모|버그|오류|경고|승인|계획|특이 ?사항|해당 ?사항|사항|내용|것"
            r"|진행 사항|남은 것|남은 일|다음 단계)")
_KO_PLACEHOLDER = (  # compiled on first use (``re``'s cache): only Korean text needs it
    r"(?:(?:현재|아직|지금|특별한|특별히|추가|남은|알려진|열린|미해결|새|더|별도|해당)\s*)*"
    r"(?:" + _KO_KIND + r"\s*)?(?:은|는|이|가|도)?\s*"
    r"(?:없음|없습니다|없다|없어요|없네요|없음\s*\(.*\)|없습니다\s*\(.*\)|해당 ?없음|무)")


def _korean_placeholder(bare: str) -> bool:
    if re.fullmatch(_KO_PLACEHOLDER, bare):
        return True
    opening = bare.find("(")
    return opening > 0 and bare.endswith(")") and bool(
        re.fullmatch(_KO_PLACEHOLDER, _bare(bare[:opening])))


def _bare(text: str) -> str:
    """``text`` without what wraps a word: emphasis, quotes, brackets, dashes, list
    punctuation; lowercase, blanks collapsed."""
    bare = " ".join(text.split()).lower()
    while True:
        before = bare
        bare = bare.strip(_EDGE)
        if len(bare) >= 2 and _PAIRS.get(bare[0]) == bare[-1]:
            bare = bare[1:-1]
        if bare == before:
            return bare


def is_placeholder(text: str) -> bool:
    """Does this item say there is nothing (so every reader that lists items drops it)?

    True for "none" in its common spellings, in any emphasis, quotes or brackets, with
    the usual tails (``**None.**``, ``(none)``, ``none yet``, ``N/A``, ``—``, ``""``), in
    Korean (``없음``, ``해당 없음``), and for "no <kind of item>" (``No blockers.``, ``no
    decisions pending``); a remark in brackets may follow (``None (all resolved)``).
    False for anything that says something: ``none of the tests pass``, ``Nothing is
    cached, so reads are slow``. Text longer than ``PLACEHOLDER_CHARS`` never is; the
    work is linear in the text's length.
    """
    if len(text) > PLACEHOLDER_CHARS:
        return False
    bare = _bare(text)
    if not bare or _PLACEHOLDER.fullmatch(bare):
        return True
    if ("없" in text or "무" in text) and _korean_placeholder(bare):
        return True
    opening = bare.find(" (")
    return (opening > 0 and bare.endswith(")")
            and _PLACEHOLDER.fullmatch(_bare(bare[:opening])) is not None)


# --------------------------------------------------------------------------- facts

FACT_WORDS = 3  # a shorter text is too common to say a fact is already written down
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of ``text`` as compared for facts: case folded, and whatever is not a
    letter or digit (markdown emphasis, punctuation, blanks, line ends) only a gap."""
    return _WORD.findall(text.casefold())


class Facts:
    """What a text (MEMORY.md) already says, for ``holds``: its words, read once."""

    def __init__(self, text: str) -> None:
        self._words = " " + " ".join(words(text)) + " "

    def holds(self, fact: str) -> bool:
        """Does the text say ``fact`` in the same words, whatever its case, emphasis,
        punctuation and line breaks? Never for a fact of fewer than ``FACT_WORDS`` words."""
        wanted = words(fact)
        return len(wanted) >= FACT_WORDS and f" {' '.join(wanted)} " in self._words
