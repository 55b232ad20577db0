"""The paths and names a handoff mentions, as its users write them: Windows paths, paths
with blanks, dotted names whose module moved, the snapshot's own ``diff``, and a monorepo
over the search's cap. Each builds a real repository (``sandbox``) and reads the exact
alert lines of the block."""

from __future__ import annotations

import json
import time
from pathlib import Path

from helpers import SID, Sandbox, look
from test_summary_phases import TODAY
from test_summary_worktree import alerts, exclude_state, handoff, lines_of

from lets_hooks.summary import build_summary
from lets_hooks.summary.render import render_json, render_markdown
from lets_hooks.summary.sources import references


def files(box: Sandbox, tree: dict[str, str], message: str = "code") -> None:
    for name, body in tree.items():
        path = box.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    box.git.add("-A", "--", *tree)
    box.git.commit("-q", "-m", message)
    exclude_state(box)


def gone(ref: str) -> str:
    return f"  - stale reference: {ref} is named in the handoff but does not exist"


CODE = {"services/api/app/__init__.py": "",
        "services/api/app/text.py": "def slugify(text):\n    return text\n",
        "src/converter/decode.py": "def sniff():\n    pass\n",
        "docs/Design Notes/overview.md": "# Overview\n"}


# --------------------------------------------------------------------------- Windows, blanks


def test_windows_paths_are_checked_as_the_same_paths_with_slashes(sandbox: Sandbox,
                                                                  tmp_path: Path) -> None:
    files(sandbox, CODE)
    handoff(sandbox, "## Next\n- fix `src\\converter\\encoding.py` and src\\converter\\bom.py\n"
                     "- `src\\converter\\decode.py` is fine; `C:\\Users\\me\\notes.md` and"
                     " `\\\\server\\share\\x.md` are not the project's\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        gone("`src\\converter\\encoding.py` (`src/converter/encoding.py`)"),
        gone("`src\\converter\\bom.py` (`src/converter/bom.py`)")]


def test_backticked_paths_may_hold_blanks(sandbox: Sandbox, tmp_path: Path) -> None:
    files(sandbox, CODE)
    handoff(sandbox, "## Next\n- rewrite `docs/Design Notes/retry design.md` and read"
                     " `docs/Design Notes/overview.md`\n- run `git add src/x.py` and"
                     " `cat docs/y.md`; compare `src/a.py and src/b.py`\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [gone("`docs/Design Notes/retry design.md`")]


# --------------------------------------------------------------------------- moved code


def test_dotted_names_are_checked_by_their_module_path(sandbox: Sandbox,
                                                       tmp_path: Path) -> None:
    """The module ``util`` was renamed ``text``: ``slugify`` still exists, but not where
    the handoff says; a name its module lacks is said too; a path may start below a
    service folder (``app.text``) or a ``src/``."""
    files(sandbox, CODE)
    handoff(sandbox, "## Next\n- call `services.api.app.util.slugify` and"
                     " `services.api.app.text.slugify`, `app.text.slugify`,"
                     " `converter.decode.sniff` and `services.api.app.text.unslug`\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        "  - stale reference: `services.api.app.util.slugify` is named in the handoff but its"
        " module `services/api/app/util` is not among the project's files",
        "  - stale reference: `services.api.app.text.unslug` is named in the handoff but"
        " `unslug` is not in its module `services/api/app/text.py`"]


def test_a_name_the_handoff_says_moved_is_checked_at_its_new_place(sandbox: Sandbox,
                                                                   tmp_path: Path) -> None:
    files(sandbox, CODE)
    handoff(sandbox, "## Notes\n- Moved `services/api/app/util.py` to"
                     " `services/api/app/text.py`.\n"
                     "- Renamed the helper to make room: `src/old_sniff.py` →"
                     " `src/converter/sniffer.py`.\n"
                     "- The decoder lives in `src/converter/decoder.py`.\n")
    assert alerts(lines_of(sandbox, tmp_path)) == [
        "  - stale reference: `src/converter/sniffer.py` is named in the handoff as added but"
        " does not exist",
        gone("`src/converter/decoder.py`")]


# --------------------------------------------------------------------------- the snapshot's diff


SNAPSHOT = """---
ts: 2026-11-27T10:00:00Z
---
<!-- state-snapshot v1 -->
```yaml
ts: 2026-11-27T10:00:00Z
next: [drain the queue]
diff:
  - {op: removed, item: api/queue/legacy_poll.py, why: drop polling}
  - {op: renamed, item: api/queue/poll.py → api/queue/consumer.py, why: clearer}
  - removed api/queue/old_retry.py
blocked:
  - {item: SQS FIFO quota increase pending with AWS, risk: H}
```

## Blockers
- SQS FIFO quota increase pending with AWS
- sqs fifo quota increase pending with AWS (risk: H).
- The staging cluster is down

## Notes
`api/queue/legacy_poll.py`, `api/queue/poll.py` and `api/queue/old_retry.py` were the old
way; see `api/queue/consumer.py`.
"""


def test_the_snapshots_diff_feeds_the_same_rule_as_the_prose(sandbox: Sandbox,
                                                             tmp_path: Path) -> None:
    files(sandbox, {"api/queue/legacy_poll.py": "x\n", "api/queue/poll.py": "x\n",
                    "api/queue/old_retry.py": "x\n"})
    sandbox.git.rm("-q", "api/queue/legacy_poll.py", "api/queue/poll.py",
                   "api/queue/old_retry.py")
    sandbox.git.commit("-q", "-m", "drop the poller")
    handoff(sandbox, SNAPSHOT)
    lines = lines_of(sandbox, tmp_path)
    assert alerts(lines) == [
        "  - stale reference: `api/queue/consumer.py` is named in the handoff as added but"
        " does not exist"]
    start = lines.index("**Active blockers:**")
    assert lines[start:start + 4] == [
        "**Active blockers:**", "  - SQS FIFO quota increase pending with AWS (risk: H)",
        "  - The staging cluster is down", ""]


# --------------------------------------------------------------------------- over the cap


def test_a_monorepo_over_the_search_cap_says_what_it_left_unchecked(
        sandbox: Sandbox, tmp_path: Path) -> None:
    """5,015 tracked files: the search stops at 5,000 before the file that holds
    ``slugify`` (and ``parse_iso_week`` is gone); the block says both were not checked,
    as ``--json`` does, and calls neither stale. A dotted name is still checked by its
    module path, whatever the cap."""
    tree = {f"packages/p{n // 300:02d}/m{n:04d}.py": f"def handler_{n}():\n    pass\n"
            for n in range(5_012)}
    tree.update({"zz/text.py": "def slugify(x):\n    return x\n", "zz/__init__.py": "",
                 "zz/week.py": "def iso_week(x):\n    return x\n"})
    files(sandbox, tree, "a monorepo")
    assert len(sandbox.git.ls_files().splitlines()) == 5_015 > references.MAX_SEARCH_FILES
    handoff(sandbox, "## Next\n- `parse_iso_week()` was the old name; use `slugify()`,"
                     " `zz.week.iso_week` and not `zz.week.parse_iso_week`\n")
    result = build_summary(sandbox.path, tmp_path, TODAY,
                           look(sandbox.path, {"LETS_SESSION_ID": SID}, time.time()))
    assert result.unchecked_references == ("parse_iso_week()", "slugify()")
    assert alerts(render_markdown(result).splitlines()) == [
        "  - stale reference: `zz.week.parse_iso_week` is named in the handoff but"
        " `parse_iso_week` is not in its module `zz/week.py`",
        "  - not checked: `parse_iso_week()`, `slugify()`: the search of the project's files"
        " stopped at its cap (5,000 files) before finding them; they may be stale"]
    data = json.loads(render_json(result))
    assert data["unchecked_references"] == {"items": ["parse_iso_week()", "slugify()"],
                                            "more": 0}
    assert data["stale_references"]["items"] == ["zz.week.parse_iso_week"]
