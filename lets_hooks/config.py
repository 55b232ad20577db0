"""Settings: environment, then ``.lets/config.toml``, then ``[tool.lets]`` in pyproject.toml.

Both files are read by the TOML parser (``tomllib``, or ``tomli`` before Python 3.11), so
every spelling of the table counts (``[tool."lets"]``, ``tool = {lets = {...}}``). A
``pyproject.toml`` without the bytes ``lets`` and without a backslash (a ``\\u`` escape)
cannot hold a ``lets`` key and is not parsed, keeping the parser's import off a hook's path
(``benchmarks/bench_config.py``; ``tests/test_config.py`` checks the claim).
"""

from __future__ import annotations

import os

from lets_hooks import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from lets_hooks.state import Store

DEFAULT_MAX_AGE_DAYS = 14
# Each agent's own variable after ours: Claude Code, Codex CLI (its thread id, which every
# shell command it runs gets), Gemini CLI (its hooks get it; its shell commands do not).
DEFAULT_SESSION_ID_ENV = ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                          "GEMINI_SESSION_ID")
FIRST_SESSION_ID_ENV = "LETS_SESSION_ID"  # always read first, whatever a file says
# What a repository's settings may name in session_id_env: a variable whose name ends in
# _SESSION_ID, and not one whose value is shared by every session of a login.
SESSION_ID_SUFFIX = "_SESSION_ID"
SHARED_SESSION_VARIABLES = frozenset({"XDG_SESSION_ID"})
MIN_CONFIGURED_SID = 8  # a value read through a configured variable: at least this long


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
        """The current session id: the value of ``session_id_variable``."""
        found = self.session_id_variable(environ)
        return None if found is None else found[1]

    def session_id_variable(self, environ: Mapping[str, str]) -> tuple[str, str] | None:
        """(variable, value) of the current session id, or None. A variable a settings file
        added counts only with a value that passes the session-id rule and has at least
        ``MIN_CONFIGURED_SID`` characters (a terminal's or a login's number is not a work
        session's id): a repository's files add a place to look, never decide over
        ``LETS_SESSION_ID``. The first value found that breaks the rule means no session id
        at all (``load`` says why, in the problems)."""
        found = self._first_id(environ)
        return (found[0], found[1]) if found is not None and found[2] is None else None

    def _first_id(self, environ: Mapping[str, str]) -> tuple[str, str, str | None] | None:
        from lets_hooks import state

        for name in self.session_id_env:
            value = environ.get(name, "").strip()
            if not value:
                continue
            problem = state.sid_problem(value)
            if name not in DEFAULT_SESSION_ID_ENV and (
                    len(value) < MIN_CONFIGURED_SID or problem is not None):
                continue
            return name, value, problem
        return None


def session_variable_problem(name: object) -> str | None:
    """Why a settings file may not name ``name`` in session_id_env, or None."""
    if not isinstance(name, str) or not name:
        return "must be a list of variable names"
    if name in SHARED_SESSION_VARIABLES:
        return (f"{name} is shared by every session of a login, not a work session's id")
    if not (name.endswith(SESSION_ID_SUFFIX) and len(name) > len(SESSION_ID_SUFFIX)
            and name.isascii() and (name[0].isalpha() or name[0] == "_")
            and all(c.isalnum() or c == "_" for c in name)):
        return (f"{files.quoted(name)} is not a session id variable (only names ending in "
                f"{SESSION_ID_SUFFIX}, such as MY_TOOL_SESSION_ID)")
    return None


def load(top: str | None, environ: Mapping[str, str], git_dir: str | None = None,
         store: Store | None = None) -> Config:
    """Read the settings for the work tree at ``top`` (None: no work tree, no files);
    ``store``: the work tree's state as the caller judged it already (``state.open_store``).
    With ``git_dir``, what the parser made of a file is cached there (``_Cache``).
    """
    config = Config()
    cache = _Cache(git_dir) if git_dir is not None else None
    layers: list[tuple[str, dict[str, Any]]] = []
    if top is not None:
        table = _read_pyproject(os.path.join(top, "pyproject.toml"), config.problems, cache)
        if table is not None:
            layers.append(("pyproject.toml [tool.lets]", table))
        from lets_hooks import state

        if store is None:
            store = state.open_store(top)
        own = os.path.join(top, ".lets", "config.toml")
        if store.problem is not None:
            if os.path.lexists(own):
                config.problems.append(f".lets/config.toml: not read: {store.problem}")
        else:
            # a .lets that is a link open_store let stand (another work tree's .lets) is
            # read as that folder: the fence is that work tree, not this one
            fence = top
            if os.path.islink(os.path.join(top, ".lets")):
                fence = os.path.dirname(os.path.realpath(os.path.join(top, ".lets")))
                own = os.path.join(fence, ".lets", "config.toml")
            data = _read_bytes(own, config.problems, fence)
            table = None if data is None else _cached(
                cache, own, data, config.problems,
                lambda: _parse(own, data, config.problems))
            if table is not None:
                layers.append((".lets/config.toml", table))
    if cache is not None:
        cache.save()
    for where, table in layers:  # lowest first: later layers win
        _apply(config, table, where)
    found = config._first_id(environ)
    if found is not None and found[2] is not None:  # a refused id is no session id
        from lets_hooks import state

        config.problems.append(f"{found[0]}: the session id {state.shown_sid(found[1])} is "
                               f"{found[2]}; read as no session id")
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
    """Could a TOML document with these bytes have a key ``lets``? (module docstring)"""
    return b"lets" in data or b"\\" in data


def _read_pyproject(path: str, problems: list[str], cache: _Cache | None
                    ) -> dict[str, Any] | None:
    data = _read_bytes(path, problems, os.path.dirname(path))
    if data is None or not may_hold_lets(data):
        return None

    def table() -> dict[str, Any] | None:
        doc = _parse(path, data, problems)
        tool = doc.get("tool") if doc is not None else None
        lets = tool.get("lets") if isinstance(tool, dict) else None
        if lets is not None and not isinstance(lets, dict):
            problems.append(f"{_shown(path)}: [tool.lets] must be a table; ignored")
            return None
        return lets

    return _cached(cache, path, data, problems, table)


def _shown(path: str) -> str:
    """A settings file as messages name it: relative to the work tree, like the keys'."""
    own = os.path.join(".lets", "config.toml")
    return own if path.endswith(os.sep + own) else os.path.basename(path)


def _cached(cache: _Cache | None, path: str, data: bytes, problems: list[str],
            parse: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """``parse()``, or what it gave for these very bytes of this very file before."""
    if cache is None:
        return parse()
    key = _identity(path, data)
    hit = None if key is None else cache.get(path, key)
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
    """What must not change for a cached answer to stand: the file's stat (times to the
    nanosecond) and the CRC-32 of the bytes just read (a change between the two counts)."""
    import zlib  # only where a settings file is read

    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
            len(data), zlib.crc32(data))


class _Cache:
    """``lets-config.cache`` in the git directory: path -> (identity, table, problems),
    ``files.sealed``. One that does not read back whole and valid is ignored and written
    again (``tests/test_config.py::test_a_corrupt_cache_is_ignored_and_rewritten``).
    Guard: ``benchmarks/bench_config.py``."""

    NAME = "lets-config.cache"

    def __init__(self, git_dir: str) -> None:
        self.path = os.path.join(git_dir, self.NAME)
        data, problem = files.read_capped(self.path, files.MAX_BYTES)
        # no cache yet: nothing; unreadable: written again, whole, on the way out
        loaded = {} if data is None and problem is None else load_cache(data or b"")
        self.entries: dict[str, Any] = loaded or {}
        self.dirty = loaded is None

    def get(self, path: str, key: tuple[int, ...]
            ) -> tuple[dict[str, Any] | None, list[str]] | None:
        entry = self.entries.get(path)
        if (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == key
                and (entry[1] is None or isinstance(entry[1], dict))
                and isinstance(entry[2], list)
                and all(isinstance(said, str) for said in entry[2])):
            return entry[1], list(entry[2])
        return None

    def put(self, path: str, key: tuple[int, ...], table: dict[str, Any] | None,
            said: list[str]) -> None:
        try:
            files.sealed(b"", table)  # a TOML date or time cannot be kept
        except ValueError:
            return
        self.entries[path] = (key, table, list(said))
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            files.atomic_write(self.path, files.sealed(CACHE_MAGIC, self.entries))
        except (ValueError, files.Refused, OSError):
            return  # a cache that cannot be written costs a parse next time, nothing more


CACHE_MAGIC = b"lets-config-cache 3\n"  # then the entries, ``files.sealed``


def load_cache(data: bytes) -> dict[str, Any] | None:
    """The entries of a cache file, or None unless it reads back whole and valid."""
    value = files.unsealed(CACHE_MAGIC, data)
    return value if isinstance(value, dict) else None


def _read_bytes(path: str, problems: list[str], top: str) -> bytes | None:
    """A settings file, read never blocking, within the state limit, never through a link
    that leads out of the work tree ``top``."""
    relative = os.path.relpath(path, top)
    data, problem = files.read_inside(top, relative, files.MAX_BYTES)
    if problem is not None:
        for name in (relative, os.path.basename(path)):
            if problem.startswith(name + " "):
                problem = problem[len(name) + 1:]
                break
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
                    f"not {files.show(repr(value)[:80])}; ignored")
                continue
            config.max_age_days = value
        elif key == "session_id_env":
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not value:
                config.problems.append(
                    f"{where}: session_id_env: must be a list of variable names; ignored")
                continue
            refused = [session_variable_problem(name) for name in value]
            config.problems.extend(f"{where}: session_id_env: {problem}; ignored"
                                   for problem in refused if problem is not None)
            names = [name for name, problem in zip(value, refused) if problem is None]
            if not names:
                continue
            # LETS_SESSION_ID is read first whatever the file says (the environment is
            # above every file); the file's names follow, in its order.
            config.session_id_env = (FIRST_SESSION_ID_ENV, *(
                n for n in dict.fromkeys(names) if n != FIRST_SESSION_ID_ENV))
        elif key == "pre_push":
            if not (isinstance(value, dict) and set(value) == {"strict"}
                    and isinstance(value["strict"], bool)):
                config.problems.append(
                    f"{where}: pre_push: expected a table with strict = true or false; "
                    "ignored")
                continue
            config.pre_push_strict = value["strict"]
        else:
            config.problems.append(f"{where}: unknown key {files.quoted(key)}; ignored")
            continue
        config.sources[key] = where


def _branch_problem(value: object) -> str | None:
    """Why ``value`` cannot be the merge branch: git's ref-name rules that matter here,
    and nothing ``files.show`` would have to escape (controls, C1, bidi and invisible
    characters: a name that prints as another name)."""
    if not isinstance(value, str) or not value:
        return "must be a branch name"
    if (value.startswith("-") or any(c.isspace() or c in "~^:?*[\\" or ord(c) < 32
                                     for c in value) or ".." in value
            or not files.is_shown_as_is(value)):
        return f"{files.quoted(value[:200])} is not a valid branch name"
    return None
