"""What the real pre-commit prints while the lets-hooks hooks run and all is well.

pre-commit prints a status line for every hook it runs (``<name>....Passed``), and for a
hook marked ``verbose`` two more (``- hook id``, ``- duration``) and its output: a
passing hook's output is shown only when it is verbose. These tests pin what a checkout,
a file checkout and a rebase print, so docs/hook-managers.md says what is true.
"""

from __future__ import annotations

import re
from pathlib import Path

import precommit_box
import pytest
from helpers import SID
from hookbox import TOOLS_NEED_GIT_2_31, HookBox

pytestmark = TOOLS_NEED_GIT_2_31
LEDGER = "lets session ledger (note the commit just made)...Passed"  # lets-post-commit


@pytest.fixture
def box(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path,
        monkeypatch: pytest.MonkeyPatch) -> HookBox:
    return precommit_box.box(tmp_path, hook_repo, pre_commit_home, monkeypatch)


def printed(text: str) -> list[str]:
    """Every line but git's own (``Executing: ...`` and the like), with pre-commit's dots
    and timings made stable."""
    lines = []
    for line in text.splitlines():
        if line.startswith(("\x1b[KExecuting", "Executing", "Successfully rebased")):
            continue
        line = re.sub(r"\.{3,}", "...", line)
        lines.append(re.sub(r"duration: [0-9.]+s", "duration: Ns", line))
    return lines


def test_what_pre_commit_prints_when_all_is_well(box: HookBox) -> None:
    """As shipped (verbose: the hooks' warnings are shown): three lines per hook run."""
    done = box.sh("switch", "-q", "-c", "feat", sid=SID)
    assert box.line("feat") == f"{box.head()} {SID}"
    checkout = ["lets session boundary (record on checkout)...Passed",
                "- hook id: lets-post-checkout", "- duration: Ns"]
    assert printed(done.stdout + done.stderr) == checkout
    (box.path / "base.txt").write_text("changed\n")
    done = box.sh("checkout", "--", "base.txt", sid=SID)  # a file checkout
    assert printed(done.stdout + done.stderr) == checkout
    box.file_commit("a.txt", "a\n")
    box.file_commit("b.txt", "b\n")
    done = box.sh("rebase", "-q", "--force-rebase", "main", sid=SID)
    # post-commit runs for each pick: the session ledger's entry, not verbose, one line
    assert printed(done.stdout + done.stderr) == [
        *checkout, *[LEDGER] * 2, "lets session boundary (follow amends and rebases)...Passed",
        "- hook id: lets-post-rewrite", "- duration: Ns"]
    assert box.line("feat") == f"{box.rev('main')} {SID}"


def test_verbose_false_in_the_config_leaves_one_line_per_hook(box: HookBox) -> None:
    """The closest pre-commit comes to silent: its status line, which it prints for every
    hook it runs. The price: post-checkout's and post-rewrite's warnings are hidden."""
    config = box.path / ".pre-commit-config.yaml"
    text = config.read_text()
    for hook_id in ("lets-post-checkout", "lets-post-rewrite"):
        text = text.replace(f"id: {hook_id}\n", f"id: {hook_id}\n        verbose: false\n")
    config.write_text(text)
    box.sh("commit", "-q", "-am", "quieter")
    done = box.sh("switch", "-q", "-c", "feat", sid=SID)
    assert printed(done.stdout + done.stderr) == [
        "lets session boundary (record on checkout)...Passed"]
    box.file_commit("a.txt", "a\n")
    done = box.sh("rebase", "-q", "--force-rebase", "main", sid=SID)
    assert printed(done.stdout + done.stderr) == [
        "lets session boundary (record on checkout)...Passed", LEDGER,
        "lets session boundary (follow amends and rebases)...Passed"]
    assert box.line("feat") == f"{box.rev('main')} {SID}"


def test_a_warning_is_still_shown(box: HookBox) -> None:
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    box.write_task("feat", "session: " + "d" * 40 + f" {SID}\n")
    box.sh("switch", "-q", "main", sid=SID)
    done = box.sh("switch", "-q", "feat", sid=SID)
    out = printed(done.stdout + done.stderr)
    assert out[0] == "lets session boundary (record on checkout)...Passed"
    assert any(line.startswith("lets-hooks: post-checkout: branch 'feat': recorded boundary "
                               "dddddddddddd rejected") for line in out)


def five_step_rebase(box: HookBox) -> list[str]:
    """A ``rebase -i`` of five commits of the session's, every step a pick that makes a
    new commit: what it prints, git's own lines aside."""
    for n in range(5):
        box.file_commit(f"f{n}.txt", f"{n}\n", sid=SID)
    done = box.sh("rebase", "-i", "--no-ff", "HEAD~5", sid=SID,
                  extra={"GIT_SEQUENCE_EDITOR": "true"})
    text = (done.stdout + done.stderr).replace("\r", "\n")  # git's progress, one line a step
    return [line for line in printed(text)
            if line.strip() and not re.fullmatch(r"(\x1b\[K)?(Rebasing \(\d+/\d+\)|"
                                                 r"Successfully rebased .*)", line.strip())]


def test_every_hook_through_pre_commit_is_noisy_in_a_rebase(box: HookBox) -> None:
    """Every id run by pre-commit: its status lines for every hook call of a rebase."""
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    lines = five_step_rebase(box)
    assert lines.count(LEDGER) == 5
    assert len(lines) == 11, lines  # post-checkout 3, the ledger's 5, post-rewrite 3


def test_the_readme_setup_prints_nothing_in_a_rebase(tmp_path: Path,
                                                     hook_repo: tuple[Path, str],
                                                     pre_commit_home: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's pre-commit setup (the hooks as plain shims beside pre-commit's
    scripts): a 5-step rebase -i prints nothing, and the boundary still follows it."""
    box = precommit_box.readme_box(tmp_path, hook_repo, pre_commit_home, monkeypatch)
    box.sh("switch", "-q", "-c", "feat", sid=SID)
    start = box.head()
    assert box.line("feat") == f"{start} {SID}"
    assert five_step_rebase(box) == []
    assert box.line("feat") == f"{start} {SID}"
    answer = box.run("lets-session-boundary", env={"LETS_SESSION_ID": SID})
    assert "SESSION_TRUST=exact\nSESSION_COMMITS=5\n" in answer.stdout, answer.stdout
