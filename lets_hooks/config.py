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
    from collections.abc import Callable, Mapping
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


def load(top: str | None, environ: Mapping[str, str], git_dir: str | None = None) -> Config:
    """Read the settings for the work tree at ``top`` (None: no work tree, no files).

    With ``git_dir``, what the TOML parser made of a file is kept in a small cache there
    (``lets-config.cache``), keyed on the file's identity, size, times and a checksum of
    its bytes: the parser (a few milliseconds to import, on every hook) then runs once per
    change of the file, and still decides what the file says.
    """
    config = Config()
    cache = _Cache(git_dir) if git_dir is not None else None
    layers: list[tuple[str, dict[str, Any]]] = []
    if top is not None:
        pyproject = os.path.join(top, "pyproject.toml")
        table = _read_pyproject(pyproject, config.problems, cache)
        if table is not None:
            layers.append(("pyproject.toml [tool.lets]", table))
        from lets_hooks import state

        store = state.open_store(top)
        own = os.path.join(top, ".lets", "config.toml")
        if store.problem is not None:
            if os.path.lexists(own):
                config.problems.append(f".lets/config.toml: not read: {store.problem}")
        else:
            table = _read_toml(own, config.problems, cache)
            if table is not None:
                layers.append((".lets/config.toml", table))
    if cache is not None:
        cache.save()
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


def _read_pyproject(path: str, problems: list[str],
                    cache: _Cache | None = None) -> dict[str, Any] | None:
    data = _read_bytes(path, problems, os.path.dirname(path))
    if data is None or not may_hold_lets(data):
        return None

    def table() -> dict[str, Any] | None:
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

    return _cached(cache, path, data, problems, table)


def _shown(path: str) -> str:
    """A settings file as messages name it: relative to the work tree, like the keys'."""
    own = os.path.join(".lets", "config.toml")
    return own if path.endswith(os.sep + own) else os.path.basename(path)


def _read_toml(path: str, problems: list[str],
               cache: _Cache | None = None) -> dict[str, Any] | None:
    data = _read_bytes(path, problems)
    if data is None:
        return None
    return _cached(cache, path, data, problems, lambda: _parse(path, data, problems))


def _cached(cache: _Cache | None, path: str, data: bytes, problems: list[str],
            parse: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """``parse()``, or what it gave for these very bytes of this very file before."""
    if cache is None:
        return parse()
    key = _identity(path, data)
    if key is not None:
        hit = cache.get(path, key)
        if hit is not None:
            table, said = hit
            problems.extend(said)
            return table
    before = len(problems)
    table = parse()
    if key is not None:
        cache.put(path, key, table, problems[before:])
    return table


def _identity(path: str, data: bytes) -> tuple[int, ...] | None:
    """What must not change for a cached answer to stand: the file's device, inode,
    size, modification and change times (to the nanosecond), and a checksum of the
    bytes just read (so a change between the stat and the read is caught too)."""
    import zlib

    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
            len(data), zlib.crc32(data))


class _Cache:
    """``lets-config.cache`` in the git directory: path -> (identity, table, problems),
    written with ``marshal`` (built in: nothing to import) and renamed into place."""

    NAME = "lets-config.cache"

    def __init__(self, git_dir: str) -> None:
        self.path = os.path.join(git_dir, self.NAME)
        self.entries: dict[str, Any] = {}
        self.dirty = False
        from lets_hooks import files

        data, _ = files.read_capped(self.path, files.MAX_BYTES)
        if data:
            import marshal

            try:
                loaded = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                loaded = None
            if isinstance(loaded, dict):
                self.entries = loaded

    def get(self, path: str, key: tuple[int, ...]
            ) -> tuple[dict[str, Any] | None, list[str]] | None:
        entry = self.entries.get(path)
        if (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == key
                and (entry[1] is None or isinstance(entry[1], dict))
                and isinstance(entry[2], list)):
            return entry[1], list(entry[2])
        return None

    def put(self, path: str, key: tuple[int, ...], table: dict[str, Any] | None,
            said: list[str]) -> None:
        import marshal

        try:
            marshal.dumps(table)  # a TOML date or time cannot be kept: parse it each time
        except ValueError:
            return
        self.entries[path] = (key, table, list(said))
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        import marshal

        from lets_hooks import files

        try:
            files.atomic_write(self.path, marshal.dumps(self.entries))
        except (files.Refused, OSError, ValueError):
            return  # a cache that cannot be written costs a parse next time, nothing more


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
