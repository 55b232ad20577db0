"""The handoff's references, checked against the project: do the paths it names exist,
and do the function names it mentions still occur in the project's files?

Paths are looked up on disk (``~/`` paths under home, the rest under the root); nothing is
read. A function name is looked for by its last part (``render_toc`` of ``render_toc()``,
``read_handoff`` of ``sources.read_handoff``), as a whole word, in the files git lists
(tracked, and untracked but not ignored: a function the last session wrote in a new file
is not stale), read through the project's fence. A dotted name is looked for only when
its first part is one of the project's own modules (a file or folder of that name, any
case): ``os.walk`` or ``self.render`` name code that is not the project's, and are left
alone. The search is capped so that a large tree stays fast: at most
``MAX_SEARCH_FILES`` files and ``MAX_SEARCH_BYTES`` bytes in all, files over
``MAX_SEARCH_FILE_BYTES`` and binary files skipped, the summary's own input files
(``memory/``, ``tasks/lessons.md``) left out since they name the functions too. It stops
as soon as every name is found. A name not found before a cap is reached is *unchecked*,
never reported as stale: no false alarms.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from lets_hooks import files

MAX_SEARCH_FILES = 5_000
MAX_SEARCH_BYTES = 16 * 1024 * 1024
MAX_SEARCH_FILE_BYTES = 1024 * 1024
SKIPPED_PREFIXES = ("memory/",)
SKIPPED_FILES = frozenset({"tasks/lessons.md"})
CODE_SUFFIXES = frozenset({
    "py", "pyi", "pyx", "js", "mjs", "cjs", "ts", "tsx", "jsx", "vue", "svelte", "go", "rs",
    "java", "kt", "kts", "scala", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "cs",
    "swift", "rb", "php", "pl", "pm", "lua", "sh", "bash", "zsh", "fish", "ps1", "r", "jl",
    "ex", "exs", "erl", "clj", "hs", "ml", "dart", "sql", "el", "nim", "zig",
})


def check_paths(root: Path, home: Path, references: Iterable[str]) -> tuple[str, ...]:
    """The references that do not exist (one that cannot be checked is not listed)."""
    missing: list[str] = []
    for reference in references:
        base, rest = (home, reference[2:]) if reference.startswith("~/") else (root, reference)
        try:
            if not os.path.lexists(base / rest):
                missing.append(reference)
        except (OSError, ValueError):
            continue  # cannot tell: do not raise an alarm
    return tuple(missing)


# Folders of installed or generated code: a path under one is not the project's to keep.
DEPENDENCY_FOLDERS = frozenset({
    ".venv", "venv", ".virtualenvs", "site-packages", "dist-packages", "node_modules",
    "bower_components", "__pycache__", ".tox", ".nox", ".eggs", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".git",
})


def resolve_relative(missing: Iterable[str], listed: Sequence[str] | None
                     ) -> tuple[tuple[str, ...], dict[str, str]]:
    """(the paths still missing, {path: the listed file it names}) for paths written
    relative to a package folder: ``summary/render.py`` names
    ``lets_hooks/summary/render.py`` when exactly that file, or files under one folder
    (``summary/``), are listed. A path matching several files names the first."""
    wanted = [path for path in missing if not path.startswith("~/")]
    if not wanted or not listed:
        return tuple(missing), {}
    by_name: dict[str, list[str]] = {}
    for path in wanted:
        by_name.setdefault(path.rstrip("/").rsplit("/", 1)[-1], [])
    folders = {path.rstrip("/") for path in wanted if path.endswith("/")}
    for name in listed:
        last = name.rsplit("/", 1)[-1]
        if last in by_name:
            by_name[last].append(name)
        if folders:
            parts = name.split("/")
            for depth in range(1, len(parts) - 1):
                if parts[depth] in by_name:
                    by_name[parts[depth]].append("/".join(parts[:depth + 1]) + "/")
    resolved: dict[str, str] = {}
    for path in wanted:
        tail = "/" + path.rstrip("/") + ("/" if path.endswith("/") else "")
        for name in by_name[path.rstrip("/").rsplit("/", 1)[-1]]:
            if name.endswith(tail) or ("/" + name).endswith(tail):
                resolved[path] = name
                break
    return tuple(path for path in missing if path not in resolved), resolved


def under_dependencies(path: str) -> bool:
    """Is ``path`` under a folder of installed or generated code (``.venv/``,
    ``site-packages/``, ``node_modules/``, ``__pycache__/``...)?"""
    return any(part in DEPENDENCY_FOLDERS for part in path.split("/")[:-1])


class Search:
    """The outcome of ``search_names``: which names were not found, which could not be
    checked (a cap was reached first), and what the search cost."""

    __slots__ = ("files", "missing", "size", "unchecked")

    def __init__(self, missing: tuple[str, ...], unchecked: tuple[str, ...], files: int,
                 size: int) -> None:
        self.missing = missing
        self.unchecked = unchecked
        self.files = files
        self.size = size


def search_order(listed: Iterable[str]) -> list[str]:
    """The files worth searching, source code first (where functions are defined)."""
    kept = [name for name in listed
            if not name.startswith(SKIPPED_PREFIXES) and name not in SKIPPED_FILES]
    return sorted(kept, key=lambda name: name.rpartition(".")[2].lower() not in CODE_SUFFIXES)


def module_names(listed: Iterable[str]) -> frozenset[str]:
    """The project's module names, lower-cased: every listed file's stem and folder."""
    found: set[str] = set()
    for path in listed:
        *folders, name = path.split("/")
        found.update(folder.lower() for folder in folders)
        found.add(name.partition(".")[0].lower())
    return frozenset(found)


def check_functions(root: Path, listed: Sequence[str] | None,
                    references: Sequence[tuple[str, str]], git_dir: str | None = None
                    ) -> Search:
    """``references`` are (what the handoff says, the dotted name); the answer names
    them by what the handoff says. Dotted names outside the project's modules are not
    looked for (neither missing nor unchecked)."""
    if not references:
        return Search((), (), 0, 0)
    modules = module_names(listed) if listed is not None else frozenset()
    wanted: dict[str, list[str]] = {}
    for text, dotted in references:
        first, _, _ = dotted.partition(".")
        if "." in dotted and listed is not None and first.lower() not in modules:
            continue
        wanted.setdefault(dotted.rsplit(".", 1)[-1], []).append(text)
    search = search_names(root, listed, tuple(wanted), git_dir)
    return Search(tuple(text for name in search.missing for text in wanted[name]),
                  tuple(text for name in search.unchecked for text in wanted[name]),
                  search.files, search.size)


def search_names(root: Path, listed: Sequence[str] | None, names: Sequence[str],
                 git_dir: str | None = None) -> Search:
    """Look for each of ``names`` (plain identifiers) as a whole word in ``listed`` files.

    ``listed`` None (no repository, or git failed): every name is unchecked.
    """
    if not names:
        return Search((), (), 0, 0)
    if listed is None:
        return Search((), tuple(names), 0, 0)
    wanted = {name: (name.encode("utf-8"), _word_pattern(name)) for name in names}
    read_files = read_bytes = 0
    capped = False
    folders = _Folders(str(root), git_dir)
    for relative in search_order(listed):
        if not wanted:
            break
        if read_files >= MAX_SEARCH_FILES or read_bytes >= MAX_SEARCH_BYTES:
            capped = True
            break
        data = folders.read(relative)
        if not data:
            continue
        read_files += 1
        read_bytes += len(data)
        if b"\0" in data[:8192]:
            continue  # binary
        # A plain substring test first (fast), the whole-word pattern only where it holds.
        for name in [n for n, (raw, pattern) in wanted.items()
                     if raw in data and pattern.search(data)]:
            del wanted[name]
    not_found = tuple(name for name in names if name in wanted)
    if capped:
        return Search((), not_found, read_files, read_bytes)
    return Search(not_found, (), read_files, read_bytes)


class _Folders:
    """``files.read_inside`` for many files of a few folders: each folder is put through
    the fence once (``files.inside``: no link out of the project, nothing in the git
    directory), and the file itself is opened without following a link (a linked file is
    skipped, wherever it leads)."""

    def __init__(self, root: str, git_dir: str | None) -> None:
        self.root = root
        self.git_dir = git_dir
        self.known: dict[str, str | None] = {}  # folder -> its real path, None if refused

    def read(self, relative: str) -> bytes | None:
        folder, _, name = relative.rpartition("/")
        if folder not in self.known:
            try:
                self.known[folder] = files.inside(self.root, folder or ".", self.git_dir)
            except files.Refused:
                self.known[folder] = None
        real = self.known[folder]
        if real is None or name in ("", ".git"):
            return None
        data, _ = files.read_capped(os.path.join(real, name), MAX_SEARCH_FILE_BYTES)
        return data


def _word_pattern(name: str) -> re.Pattern[bytes]:
    """``name`` as a whole word: no identifier character on either side. A literal between
    two one-character lookarounds, so a search is linear in the file's length."""
    return re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode("utf-8"))
                      + rb"(?![A-Za-z0-9_])")
