"""The written-out sample of generated rebases, through the real pre-commit framework.

pre-commit gives post-rewrite no stdin (git's pairs are not forwarded), runs
post-checkout at the start of every rebase, and shows a hook's words on stdout; the rule
and the invariant are those of ``test_rebase_properties``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hookbox import HookBox
from rebase_todo import SAMPLE, Tools, check


@pytest.fixture
def box(pc_box: HookBox) -> HookBox:
    return pc_box


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_sample_through_pre_commit(name: str, box: HookBox, tmp_path: Path) -> None:
    tools = Tools.make(tmp_path / "tools")
    (tmp_path / "plan").mkdir()
    check(box, SAMPLE[name], tools, tmp_path / "plan")
