"""Settings: environment, then ``.lets/config.toml``, then ``[tool.lets]`` in pyproject.toml.

Both files are read by the TOML grammar (``tomllib``, or ``tomli`` before Python 3.11),
and the table is looked up in what the parser returns, so every spelling of it counts
(``[tool."lets"]``, ``[tool . lets]``, ``tool = {lets = {...}}``). Importing the parser
costs a few milliseconds on a hook's hot path, so a ``pyproject.toml`` that cannot hold a
``lets`` key is not parsed: a key spelled ``lets`` has those four bytes in the file, in a
bare, literal or plain quoted key, unless a quoted key spells a letter with a ``\\u``
escape, which needs a backslash. With neither in the file, the parse could only answer
"no table"; ``tests/test_config.py`` checks that claim against the parser.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEFAULT_MAX_AGE_DAYS = 14
DEFAULT_SESSION_ID_ENV = ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID")
KEYS = ("merge_branch", "max_age_days", "session_id_env", "pre_push")


class Config:
    """Resolved settings, plus the one-line problems met while reading them."""

    __slots__ = ("max_age_days", "merge_branch", "pre_push_strict", "problems",
                 "session_id_env", "sources")

    def __init__(self) -> None:
        self.merge_branch: str | None = None  # None: origin/HEAD's target, else main, else master
        self.max_age_days = DEFAULT_MAX_AGE_DAYS
        self.session_id_env: tuple[str, ...] = DEFAULT_SESSION_ID_ENV
        self.pre_push_strict = False
        self.problems: list[str] = []
        self.sources: dict[str, str] = {}  # key -> where its value came from

    def session_id(self, environ: Mapping[str, str]) -> str | None:
        """The current session id: the first non-empty variable of ``session_id_env``."""
        for name in self.session_id_env:
            value = environ.get(name, "").strip()
            if value:
                return value
        return None


def load(top: str | None, environ: Mapping[str, str]) -> Config:
    """Read the settings for the work tree at ``top`` (None: no work tree, no files)."""
    config = Config()
    layers: list[tuple[str, dict[str, Any]]] = []
    if top is not None:
        pyproject = os.path.join(top, "pyproject.toml")
        table = _read_pyproject(pyproject, config.problems)
        if table is not None:
            layers.append(("pyproject.toml [tool.lets]", table))
        from lets_hooks import state

        store = state.open_store(top)
        own = os.path.join(top, ".lets", "config.toml")
        if store.problem is not None:
            if os.path.lexists(own):
                config.problems.append(f".lets/config.toml: not read: {store.problem}")
        else:
            table = _read_toml(own, config.problems)
            if table is not None:
                layers.append((".lets/config.toml", table))
    for where, table in layers:  # lowest first: later layers win
        _apply(config, table, where)
    merge = environ.get("LETS_MERGE_BRANCH", "").strip()
    if merge:
        problem = _branch_problem(merge)
        if problem:
            config.problems.append(f"LETS_MERGE_BRANCH: {problem}; ignored")
        else:
            config.merge_branch = merge
            config.sources["merge_branch"] = "LETS_MERGE_BRANCH"
    return config


def may_hold_lets(data: bytes) -> bool:
    """Could a TOML document with these bytes have a key ``lets``? (See the docstring:
    False only when the parser would certainly find none.)"""
    return b"lets" in data or b"\\" in data


def _read_pyproject(path: str, problems: list[str]) -> dict[str, Any] | None:
    data = _read_bytes(path, problems, os.path.dirname(path))
    if data is None or not may_hold_lets(data):
        return None
    doc = _parse(path, data, problems)
    if doc is None:
        return None
    tool = doc.get("tool")
    lets = tool.get("lets") if isinstance(tool, dict) else None
    if lets is None:
        return None
    if not isinstance(lets, dict):
        problems.append(f"{_shown(path)}: [tool.lets] must be a table; ignored")
        return None
    return lets


def _shown(path: str) -> str:
    """A settings file as messages name it: relative to the work tree, like the keys'."""
    own = os.path.join(".lets", "config.toml")
    return own if path.endswith(os.sep + own) else os.path.basename(path)


def _read_toml(path: str, problems: list[str]) -> dict[str, Any] | None:
    data = _read_bytes(path, problems)
    if data is None:
        return None
    return _parse(path, data, problems)


def _read_bytes(path: str, problems: list[str], top: str | None = None) -> bytes | None:
    """A settings file: never blocking (a FIFO or a link to /dev/tty must not hang a
    hook), never more than the state limit; with ``top``, never through a link that leads
    out of the work tree."""
    from lets_hooks import files

    if top is not None:
        data, problem = files.read_inside(top, os.path.relpath(path, top), files.MAX_BYTES)
    else:
        data, problem = files.read_capped(path, files.MAX_BYTES, follow=True)
    if problem is not None:
        name = os.path.basename(path)
        if problem.startswith(name + " "):
            problem = problem[len(name) + 1:]
        problem = problem.removesuffix(" - ignored").removeprefix("is ")
        problems.append(f"{_shown(path)}: {problem}; ignored")
    return data


def _parse(path: str, data: bytes, problems: list[str]) -> dict[str, Any] | None:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.9 and 3.10
        import tomli as tomllib
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(f"{_shown(path)}: not UTF-8 text; ignored")
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"{_shown(path)}: invalid TOML ({exc}); ignored")
        return None


def _apply(config: Config, table: dict[str, Any], where: str) -> None:
    for key, value in table.items():
        if key == "merge_branch":
            problem = _branch_problem(value)
            if problem:
                config.problems.append(f"{where}: merge_branch: {problem}; ignored")
                continue
            config.merge_branch = value
        elif key == "max_age_days":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                config.problems.append(
                    f"{where}: max_age_days: must be a whole number of days >= 0, "
                    f"not {value!r}; ignored")
                continue
            config.max_age_days = value
        elif key == "session_id_env":
            if isinstance(value, str):
                value = [value]
            if (not isinstance(value, list) or not value
                    or not all(isinstance(v, str) and v for v in value)):
                config.problems.append(
                    f"{where}: session_id_env: must be a list of variable names; ignored")
                continue
            config.session_id_env = tuple(value)
        elif key == "pre_push":
            strict = value.get("strict") if isinstance(value, dict) else None
            if not isinstance(value, dict) or set(value) - {"strict"} or not isinstance(
                    strict, bool):
                config.problems.append(
                    f"{where}: pre_push: expected a table with strict = true or false; "
                    "ignored")
                continue
            config.pre_push_strict = strict
        else:
            config.problems.append(f"{where}: unknown key {key!r}; ignored")
            continue
        config.sources[key] = where


def _branch_problem(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return "must be a branch name"
    if value.startswith("-") or any(c.isspace() or c in "~^:?*[\\" or ord(c) < 32
                                    for c in value) or ".." in value:
        return f"{value!r} is not a valid branch name"
    return None
