"""One schema, two directions, as a property: whatever ``next``, ``blocked`` and prose
(headings, fences, Korean text, CRLF, a BOM) a handoff holds, the checkpoint's block reads
back through the summary's handoff reader as exactly what was written, every other byte of
the file is where it was, and a second checkpoint with nothing changed gives the same
file but ``ts``; and every byte a person wrote survives 50 checkpoints while another
writer appends to the file."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from lets_hooks import files, state
from lets_hooks.summary import checkpoint as ck
from lets_hooks.summary import phases, prose
from lets_hooks.summary.sources.handoff import read_handoff

LINES = ["SESSION_BOUNDARY=abc", "SESSION_TRUST=estimate", "SESSION_COMMITS=2",
         "SESSION_RANGE_DESC=approx: abc..HEAD (2 commits) - estimated from the branch "
         "point, no boundary was recorded"]
KOREAN = "가나다라마바사아자차카타파하한글없음우선순위승인허용됨 "
ANY = st.characters(exclude_categories=["Cs"])
WORDS = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 *_`~-:#>|.,()[]" + KOREAN
RANGE = re.compile(r"\s{0,3}###[ \t]+range[ \t]*(#*[ \t]*)?$", re.IGNORECASE)

texts = st.one_of(st.text(ANY, max_size=30), st.text(KOREAN, max_size=20))
risks = st.one_of(st.none(), st.text("HMLhigh위험", min_size=1, max_size=6))
blockers = st.tuples(st.text(WORDS.replace("(", "").replace(")", ""), max_size=25), risks)
prose_line = st.one_of(
    st.builds(lambda level, title: "#" * level + " " + title, st.integers(1, 4),
              st.text(WORDS, max_size=20)),
    st.sampled_from(["```", "```python", "~~~", "````", "", "   ", "---", "- [ ] 할 일"]),
    st.text(WORDS, max_size=40),
).filter(lambda line: not RANGE.match(line))


FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")


def unclosed_fence(lines: list[str]) -> str | None:
    """The fence a Markdown reader sees running to the end of ``lines``, if any."""
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            for end in range(index + 1, len(lines)):
                close = FENCE.match(lines[end])
                if (close and close.group(1)[0] == fence[0]
                        and len(close.group(1)) >= len(fence) and not close.group(2).strip()):
                    index = end
                    break
            else:
                return fence
        index += 1
    return None


def expected_file(front: list[str] | None, lines: list[str], newline: str, final: bool,
                  block: list[str], day: str) -> str:
    nl = newline if (front or len(lines) > 1 or final) else "\n"
    head = front if front is not None else ["---", f"updated: {day}", "---"]
    rows = [*head, *block]
    if lines and lines[0].strip():
        rows.append("")
    text = nl.join([*rows, *lines]) + nl
    fence = unclosed_fence(lines)
    if fence is not None:  # closed, so the Range section is not code
        text += fence + nl
    if fence is not None or (lines[-1] if lines else block[-1]).strip():
        text += nl
    return text + nl.join(["### Range", "", ck.RANGE_MARKER, "```", *LINES, "```"]) + nl


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(next_items=st.lists(texts, max_size=5), blocked=st.lists(blockers, max_size=4),
       lines=st.lists(prose_line, max_size=12), crlf=st.booleans(), bom=st.booleans(),
       front=st.booleans(), final=st.booleans(), ctx=st.one_of(st.none(), texts))
def test_a_checkpoint_reads_back_and_keeps_every_other_byte(
        tmp_path: Path, next_items: list[str], blocked: list[tuple[str, str | None]],
        lines: list[str], crlf: bool, bom: bool, front: bool, final: bool,
        ctx: str | None) -> None:
    if not front and lines and lines[0].strip() in ("---", "..."):
        lines = ["text", *lines]
    if not final and lines and lines[-1] == "":
        lines, final = lines[:-1], True  # the same file: a line end, then nothing
    newline = "\r\n" if crlf else "\n"
    front_lines = ["---", "title: 인수인계", "---"] if front else None
    original = newline.join([*(front_lines or []), *lines])
    if final and (front_lines or lines):
        original += newline
    data = (b"\xef\xbb\xbf" if bom else b"") + original.encode()
    asked = ck.Asked(next=tuple(next_items),
                     blocked=tuple(f"{item} (risk: {risk})" if risk else item
                                   for item, risk in blocked),
                     ctx=ctx)
    now = 1_800_000_000
    made = ck.plan(data or None, asked, LINES, ([], 0), now, 1 << 22)

    # every other byte where it was
    want_next = tuple(item.strip() for item in next_items if item.strip())
    want_blocked = tuple({"item": item.strip(), "risk": risk}
                         for item, risk in blocked
                         if (f"{item} (risk: {risk})" if risk else item).strip())
    snapshot = ck.Snapshot(ts=state.utc_stamp(now), ctx=ctx, next=want_next,
                           blocked=want_blocked)
    eff = newline if (front_lines or len(lines) > 1 or (final and lines)) else "\n"
    expected = expected_file(front_lines, lines, eff, final, ck.block_lines(snapshot),
                             state.utc_stamp(now)[:10])
    assert made.data == (b"\xef\xbb\xbf" if bom else b"") + expected.encode()
    # what it writes is what lint accepts: the one rule of both
    assert all(files.is_shown_as_is(line) for line in ck.block_lines(snapshot))

    # read back through the summary's reader: exactly what was written
    (tmp_path / "memory").mkdir(exist_ok=True)
    (tmp_path / ck.HANDOFF).write_bytes(made.data)
    read = read_handoff(tmp_path)
    assert read.value is not None and read.value.snapshot is not None, read.warnings
    back = ck.snapshot_of(read.value.snapshot)
    assert (back.next, back.blocked, back.ctx, back.diff, back.more) == (
        want_next, want_blocked, ctx, (), 0)
    assert back.ts == state.utc_stamp(now)
    view = phases.handoff_view(read.value)
    shown = prose.real_items(prose.item_text(item) for item in want_next)
    assert view is not None
    if shown:
        assert view.priority_1 == shown[0]
        assert view.priority_2 == (shown[1] if len(shown) > 1 else None)

    # a second checkpoint with nothing changed: the same file but ts
    again = ck.plan(made.data, ck.Asked(), LINES, ([], 0), now + 3600, 1 << 22)
    ts = re.compile(rb'^ts: "[^"]*"', re.M)
    assert ts.sub(b"ts", again.data) == ts.sub(b"ts", made.data)
    assert again.data != made.data
    assert ck.plan(made.data, ck.Asked(), LINES, ([], 0), now, 1 << 22).data == made.data


@settings(max_examples=300, deadline=None)
@given(value=st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), texts,
              st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(WORDS, max_size=8), inner, max_size=3)),
    max_leaves=10))
def test_another_writers_values_are_written_back_as_they_were(value: object) -> None:
    """A key the checkpoint does not own, holding any YAML value, reads back equal."""
    from lets_hooks.summary.sources.text import parse_yaml

    snapshot = ck.Snapshot(ts="t", extra=(("other", value),))
    block = ck.block_lines(snapshot)
    loaded, problem = parse_yaml("\n".join(block[2:-1]), "x", "block", 1)
    assert problem is None
    assert isinstance(loaded, dict)
    assert loaded["other"] == value


# -- every byte a person wrote, through 50 checkpoints while an editor appends -------------------

PLAIN = st.text(WORDS, max_size=30).filter(
    lambda line: not FENCE.match(line) and not line.lstrip().startswith(("<!--", "#", "---")))
EXAMPLES = [
    ["An example of the block, not the block:", "", "````markdown", ck.MARKER, "```yaml",
     "next: [an example]", "```", "````"],
    ["~~~", "### Range", "", ck.RANGE_MARKER, "```", *LINES, "```", "~~~"],
    ["```", ck.MARKER, "next: [bare example]", "```"],
]
chunks = st.one_of(
    st.builds(lambda line: [line], PLAIN),
    st.builds(lambda line: [line], st.text(KOREAN, min_size=1, max_size=20)),
    st.builds(lambda level, title: ["#" * level + " " + title], st.integers(1, 4),
              st.text(WORDS.replace("`", "").replace("~", ""), max_size=20)),
    st.builds(lambda words: ["### Range", "", f"my own range: {words}"], PLAIN),
    st.builds(lambda fence, body: [fence, *body, fence[:3] if fence[0] == "`" else "~~~"],
              st.sampled_from(["```", "```python", "~~~", "~~~text"]),
              st.lists(PLAIN, max_size=3)),
    st.builds(lambda words: [f"<!-- {words} -->"], st.text(KOREAN + "abc ", max_size=15)),
    st.builds(lambda words: ["<!--", words, "### Range", "-->"], PLAIN),
    st.sampled_from(EXAMPLES),
    st.just([""]),
)


class Editor:
    """Another writer, appending a numbered line at a time in place (open for append,
    write, close), with a breath between saves about as long as a checkpoint takes: many
    land between a checkpoint's compare and its rename, or in the file it just replaced."""

    def __init__(self, path: Path, newline: str, breath: float) -> None:
        import threading

        self.path = path
        self.newline = newline
        self.breath = breath  # seconds between saves
        self.written: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        import time

        number = 0
        while not self.stop.is_set():
            line = f"edit {number}: 편집 <!-- {number} -->{self.newline}".encode()
            with open(self.path, "ab") as editor:
                editor.write(line)
            self.written.append(line)
            number += 1
            time.sleep(self.breath)

    def __enter__(self) -> Editor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))  # 50 writes an example
@given(body=st.lists(chunks, min_size=1, max_size=12), crlf=st.booleans(), bom=st.booleans(),
       front=st.booleans())
def test_every_byte_a_person_wrote_survives_50_checkpoints_and_an_editor(
        body: list[list[str]], crlf: bool, bom: bool, front: bool) -> None:
    import tempfile

    newline = "\r\n" if crlf else "\n"
    lines = [line for chunk in body for line in chunk]
    if not front and lines[0].strip() in ("---", "..."):
        lines.insert(0, "text")
    head = newline.join(["---", "title: 인수인계", "---"]) + newline if front else ""
    prose = (newline.join(lines) + newline).encode()
    start = (b"\xef\xbb\xbf" if bom else b"") + head.encode()
    # in memory where there is such a file system: 50 writes synced to a busy disk are slow
    memory = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else None
    with tempfile.TemporaryDirectory(dir=memory) as folder:
        root = Path(folder)
        (root / "memory").mkdir()
        path = root / ck.HANDOFF
        path.write_bytes(start + prose)
        refused: list[str] = []
        with Editor(path, newline, 0.0005 if memory else 0.005) as editor:
            for number in range(50):
                ladder = [*LINES[:2], f"SESSION_COMMITS={number}", LINES[3]]

                def make(data: bytes | None, number: int = number,
                         ladder: list[str] = ladder) -> ck.Plan:
                    return ck.plan(data, ck.Asked(next=(f"step {number}",)), ladder, None,
                                   1_800_000_000 + number, 1 << 22)

                try:
                    ck.checkpoint(root, make)
                except ck.Refusal as exc:
                    refused.append(str(exc))
        final = path.read_bytes()
        assert final.startswith(start), final[:200]
        assert prose in final  # the person's text, whole and in one piece
        for line in editor.written:
            assert final.count(line) == 1, (line, refused)
        assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
        assert all("changed by another writer" in r or "kept changing" in r for r in refused)
        examples = sum(chunk == EXAMPLES[1] for chunk in body)
        if len(refused) < 50:  # one at least was written: its block and one Range block
            read = read_handoff(root)
            assert read.value is not None and read.value.snapshot is not None, read.warnings
            assert final.count(ck.RANGE_MARKER.encode()) == 1 + examples
