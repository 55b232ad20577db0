"""One home per fact (DESIGN principle 12), held by reading the code: the words of git's
reflog messages are read only in ``lets_hooks/reflog.py``, paths into git's directory are
built only in ``lets_hooks/gitfiles.py``, each rule that once had two copies is one
function, and the tests' ids and builders live only in
``tests/helpers.py``, so a second copy cannot come back unseen."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lets_hooks"

# words only git's reflog messages hold
MESSAGE_WORDS = ("moving from", "commit (amend)", "renamed refs", "rebase (start)",
                 "returning to", "created from", "fast-forward", "update by push")
# names of files and folders git keeps in its directory
GIT_FILES = ("commondir", "reftable", "rebase-merge", "rebase-apply", "ORIG_HEAD", "logs",
             "packed-refs", "commit-graph", "gitdir: ", "index")


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of the module's code (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def _joined(path: Path) -> list[tuple[int, str]]:
    """Every string constant handed to ``os.path.join``: a path the module builds."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "join" and ast.unparse(node.func.value) == "os.path":
            found += [(arg.lineno, arg.value) for arg in node.args
                      if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return found


def _elsewhere(home: str, read: Callable[[Path], list[tuple[int, str]]],
               wanted: Callable[[str], bool]) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == home:
            continue
        for line, text in read(path):
            if wanted(text):
                found.append(f"{path.relative_to(PACKAGE)}:{line}: {text!r}")
    return found


def test_reflog_messages_are_read_in_one_module() -> None:
    """A string a reflog message starts with (what code compares a message to) appears
    in ``reflog.py`` alone."""
    def reads(text: str) -> bool:
        return text.lower().startswith(tuple(w.lower() for w in MESSAGE_WORDS))

    assert _elsewhere("reflog.py", _strings, reads) == []


def test_gits_own_files_are_found_in_one_module() -> None:
    """A path into git's directory is built in ``gitfiles.py`` alone (the plain shims'
    shell asks the rebase question itself, the same way as ``gitfiles.rebasing``)."""
    assert _elsewhere("gitfiles.py", _joined, GIT_FILES.__contains__) == []


def test_the_merge_branch_is_named_in_one_module() -> None:
    """Which branch is the merge branch when none is configured or known (main where it
    exists, else master) is decided in ``ladder.py`` alone: record's placement, record
    --at's claim and doctor ask ``ladder.merge_branch`` (each had its own copy)."""
    def names_a_default(text: str) -> bool:
        return text in ("master", "refs/heads/main", "refs/remotes/origin/main")

    assert _elsewhere("ladder.py", _strings, names_a_default) == []


def test_markdown_fences_are_told_in_one_module() -> None:
    """What opens or closes fenced code is decided in ``summary/sources/text.py`` alone
    (``is_fence``, ``fence_opening``, ``fence_closing``): the checkpoint, the prose
    reader and the phases had their own copies of the rule."""
    def tells_a_fence(text: str) -> bool:
        return text == "~~~" or "`{3" in text or "~{3" in text

    assert _elsewhere("text.py", _strings, tells_a_fence) == []


def test_the_trust_names_are_written_in_one_module() -> None:
    """The four trust names are written in ``state.py`` alone (``TRUST_LEVELS``); the
    ladder, the handoff reader and ``status``'s colours take them from there."""
    def names_a_trust(text: str) -> bool:
        return text in ("exact", "prior-session", "estimate")

    assert _elsewhere("state.py", _strings, names_a_trust) == []


def test_the_tests_share_one_helpers_module() -> None:
    """No test module imports from ``conftest`` (fixtures only), and the session ids are
    assigned once, in ``tests/helpers.py``."""
    tests = Path(__file__).resolve().parent
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "conftest", path.name
            if isinstance(node, ast.Assign) and path.name != "helpers.py":
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                assert not any(n.endswith("SID") for n in names), (path.name, names)


# rules that once had two copies giving two answers: each is now one function
ONE_FUNCTION = ("utc_stamp", "location_for", "state_top", "common_dir", "uses_reftable",
                "rebasing", "rebase_state", "git_dir_at", "git_dir_holding", "classify",
                "head_log", "made_kind", "is_fence", "fence_opening", "fence_closing",
                "on_merge_line")


def test_each_rule_is_one_function() -> None:
    """Each of these rules is one module-level function in the whole package (a second
    definition is a second answer: ``location_for`` and ``utc_stamp`` had two)."""
    homes: dict[str, list[str]] = {name: [] for name in ONE_FUNCTION}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name in homes:
                homes[node.name].append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert {name: found for name, found in homes.items() if len(found) != 1} == {}
