"""The README tells the truth about what ships: every command, and the contract's forms."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_ONLY = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
README = "\n".join([README_ONLY, *(p.read_text() for p in DOCS)])
COUNT = r"\(\d+ commits(?:, not counting \d+ already on [\w./-]+)?\)"
FORMS = [
    r"session: [0-9a-f]+\.\.HEAD " + COUNT,
    r"approx: [0-9a-f]+\.\.HEAD " + COUNT + " - boundary recorded by an earlier session",
    r"approx: [0-9a-f]+\.\.HEAD " + COUNT + " - estimated from the branch point, "
    r"no boundary was recorded",
    r"boundary unknown - no valid session boundary for this branch",
    r"boundary unknown - detached HEAD",
    r"boundary unknown - not a git repository",
]


def console_scripts() -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg")
    entries = parser["options.entry_points"]["console_scripts"].strip().splitlines()
    return [entry.split("=")[0].strip() for entry in entries]


def test_every_console_script_is_shown_running() -> None:
    scripts = console_scripts()
    assert len(scripts) == 4
    for name in scripts:
        assert f"$ {name}" in README, name


def test_the_two_commands_exist() -> None:
    for script in ("scripts/run", "scripts/test"):
        assert f"bash {script}" in README_ONLY
        assert (ROOT / script).exists()
    assert "bash scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_every_sample_description_is_one_of_the_contract_forms() -> None:
    samples = re.findall(r"^SESSION_RANGE_DESC=(.*)$", README, flags=re.M)
    assert len(samples) >= 3
    for sample in samples:
        assert any(re.fullmatch(form, sample) for form in FORMS), sample


def test_sample_blocks_have_the_four_lines_in_order() -> None:
    keys = ["SESSION_BOUNDARY", "SESSION_TRUST", "SESSION_COMMITS", "SESSION_RANGE_DESC"]
    lines = README.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("SESSION_BOUNDARY=")]
    assert starts
    for i in starts:
        assert [line.split("=", 1)[0] for line in lines[i:i + 4]] == keys


def test_readme_is_a_page_people_read() -> None:
    assert len(README_ONLY.encode()) <= 18_000  # about 15 KB: depth goes to docs/


def test_every_docs_page_is_linked_from_the_readme() -> None:
    assert DOCS
    for page in DOCS:
        assert f"(docs/{page.name})" in README_ONLY, page.name
