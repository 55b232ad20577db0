"""The handoff's references: the paths and function names it mentions
(``spelled_path_references``, ``function_references``), checked against the project.

Paths are looked up on disk (``~/`` paths under home, the rest under the root). A function
name is looked for by its last part, as a whole word, in the files git lists (tracked, and
untracked but not ignored), read through the project's fence; a dotted name only when its
first part is one of the project's own modules (``os.walk`` is not the project's). The
search stops once every name is found and is capped (``MAX_SEARCH_FILES``,
``MAX_SEARCH_BYTES``; larger and binary files and the summary's own inputs skipped): a
name not found before a cap is *unchecked*, never reported as stale.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from lets_hooks import files

# How many paths and function names of the handoff are read and checked: enough that no
# true finding is dropped before the findings are ranked (the alerts line shows ten of
# them, then how many more).
MAX_PATH_REFERENCES = 100
MAX_FUNCTION_REFERENCES = 40
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
    """The references that do not exist (``~/`` ones under home, the rest under root)."""
    return tuple(reference for reference in references
                 if not os.path.lexists(home / reference[2:] if reference.startswith("~/")
                                        else root / reference))


# Folders of installed or generated code: a path under one is not the project's to keep.
DEPENDENCY_FOLDERS = frozenset({
    ".venv", "venv", ".virtualenvs", "site-packages", "dist-packages", "node_modules",
    "bower_components", "__pycache__", ".tox", ".nox", ".eggs", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".git",
})


def resolve_relative(missing: Sequence[str], listed: Sequence[str] | None) -> tuple[str, ...]:
    """The paths still missing once those written relative to a package folder are found:
    ``summary/render.py`` names ``lets_hooks/summary/render.py`` when that file, or files
    under that folder (``summary/``), are listed."""
    wanted = [path for path in missing if not path.startswith("~/")]
    if not wanted or not listed:
        return tuple(missing)
    by_name: dict[str, list[str]] = {path.rstrip("/").rsplit("/", 1)[-1]: [] for path in wanted}
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
    resolved: set[str] = set()
    for path in wanted:
        tail = "/" + path.rstrip("/") + ("/" if path.endswith("/") else "")
        if any(name.endswith(tail) or ("/" + name).endswith(tail)
               for name in by_name[path.rstrip("/").rsplit("/", 1)[-1]]):
            resolved.add(path)
    return tuple(path for path in missing if path not in resolved)


def under_dependencies(path: str) -> bool:
    """Is ``path`` under a folder of installed or generated code (``.venv/``,
    ``site-packages/``, ``node_modules/``, ``__pycache__/``...)?"""
    return any(part in DEPENDENCY_FOLDERS for part in path.split("/")[:-1])


@dataclass(frozen=True)
class Search:
    """The outcome of ``search_names``: which names were not found, which could not be
    checked (``capped``: the cap reached first, as said to the user), and, for a name
    checked by its module path, why it is missing."""

    missing: tuple[str, ...]
    unchecked: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()
    capped: str | None = None


def module_names(listed: Iterable[str], wanted: Iterable[str]) -> frozenset[str]:
    """Those of ``wanted`` that are a listed file's stem or folder, lower-cased (one string
    search a name over the listed paths joined: a monorepo has thousands)."""
    names = "\n/" + "\n/".join(listed).lower() + "\n"
    return frozenset(name for name in {word.lower() for word in wanted}
                     if f"/{name}/" in names or f"/{name}." in names or f"/{name}\n" in names)


_PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib"})


class Modules:
    """The project's modules by dotted path, from the files git lists: ``a/b/c.py`` is
    ``a.b.c`` (and ``b.c`` and ``c``: a path may start below a ``src/`` or a monorepo's
    service folder), ``a/b/__init__.py`` is the package ``a.b``; each folder is a
    package too. Only the dotted paths in ``wanted`` are kept."""

    def __init__(self, listed: Iterable[str], wanted: Iterable[str]) -> None:
        self.files: dict[str, list[str]] = {}
        self.folders: set[str] = set()
        wanted = frozenset(wanted)
        seen: set[str] = set()
        for path in listed:
            folder, _, name = path.rpartition("/")
            parts = folder.split("/") if folder else []
            if folder not in seen:
                seen.add(folder)
                for end in range(1, len(parts) + 1):
                    for begin in range(end):
                        module = ".".join(parts[begin:end])
                        if module in wanted:
                            self.folders.add(module)
            stem, dot, suffix = name.rpartition(".")
            if not dot or suffix.lower() not in CODE_SUFFIXES:
                continue
            if stem not in _PACKAGE_FILES:
                parts = [*parts, stem]
            for begin in range(len(parts)):
                module = ".".join(parts[begin:])
                if module in wanted:
                    self.files.setdefault(module, []).append(path)

    def resolve(self, dotted: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
        """(the module's dotted path, its files, the names after it) for the longest
        leading part of ``dotted`` that is a module or a package; None when not even its
        first part is (then the name is not checked by its module path)."""
        parts = dotted.split(".")
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in self.files:
                return module, tuple(self.files[module]), tuple(parts[end:])
            if module in self.folders:
                return module, (), tuple(parts[end:])
        return None


def check_functions(root: Path, listed: Sequence[str] | None,
                    references: Sequence[tuple[str, str]], git_dir: str | None) -> Search:
    """``references`` are (what the handoff says, the dotted name), named in the answer by
    what the handoff says. A dotted name that resolves to one of the project's modules is
    checked there (the name after it must occur in the module's file, a package's
    ``__init__``; read whatever the caps); other dotted names outside the project's
    modules are left alone; the rest go to ``search_names`` by their last part."""
    dotted_names = [dotted for _, dotted in references if "." in dotted]
    modules = (module_names(listed, (name.partition(".")[0] for name in dotted_names))
               if listed is not None and dotted_names else frozenset())
    # the leading parts a module path may be: ``a`` and ``a.b`` of ``a.b.c``
    leading = (".".join(name.split(".")[:end]) for name in dotted_names
               for end in range(1, name.count(".") + 1))
    by_path = Modules(listed, leading) if listed is not None and dotted_names else None
    wanted: dict[str, list[str]] = {}
    missing: list[str] = []
    reasons: list[tuple[str, str]] = []
    folders = _Folders(str(root), git_dir)
    for text, dotted in references:
        first, _, _ = dotted.partition(".")
        if "." in dotted and listed is not None and first.lower() not in modules:
            continue
        found = by_path.resolve(dotted) if by_path is not None else None
        if found is not None:
            reason = _module_reason(folders, *found)
            if reason is not None:
                missing.append(text)
                reasons.append((text, reason))
            continue
        wanted.setdefault(dotted.rsplit(".", 1)[-1], []).append(text)
    search = search_names(root, listed, tuple(wanted), git_dir)
    missing.extend(text for name in search.missing for text in wanted[name])
    order = {text: index for index, (text, _) in enumerate(references)}
    return Search(tuple(sorted(missing, key=order.__getitem__)),
                  tuple(text for name in search.unchecked for text in wanted[name]),
                  tuple(reasons), search.capped)


def _module_reason(folders: _Folders, module: str, paths: Sequence[str],
                   rest: Sequence[str]) -> str | None:
    """Why the name ``rest`` of ``module`` is stale, or None when its module's file
    holds it."""
    shown = module.replace(".", "/")
    package = all(path.rpartition("/")[2].partition(".")[0] in _PACKAGE_FILES
                  for path in paths)
    if not paths or (package and len(rest) > 1 and not _holds(folders, paths, rest[0])):
        return f"its module `{shown}/{rest[0]}` is not among the project's files"
    if _holds(folders, paths, rest[0]):
        return None
    where = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    return f"`{rest[0]}` is not in its module `{where}`"


def _holds(folders: _Folders, paths: Sequence[str], name: str) -> bool:
    """Does one of ``paths`` hold ``name`` as a word (or cannot be read: no alarm)?"""
    pattern = _word_pattern(name)
    raw = name.encode("utf-8")
    for path in paths:
        data = folders.read(path)
        if data is None or (raw in data and pattern.search(data) is not None):
            return True
    return False


def search_names(root: Path, listed: Sequence[str] | None, names: Sequence[str],
                 git_dir: str | None) -> Search:
    """Look for each of ``names`` (plain identifiers) as a whole word in ``listed`` files.

    ``listed`` None (no repository, or git failed): every name is unchecked.
    """
    if listed is None:
        return Search((), tuple(names))
    wanted = {name: (name.encode("utf-8"), _word_pattern(name)) for name in names}
    read_files = read_bytes = 0
    capped: str | None = None
    folders = _Folders(str(root), git_dir)
    kept = [name for name in listed
            if not name.startswith(SKIPPED_PREFIXES) and name not in SKIPPED_FILES]
    # source code first: that is where functions are defined
    for relative in sorted(kept, key=lambda name: name.rpartition(".")[2].lower()
                           not in CODE_SUFFIXES):
        if not wanted:
            break
        if read_files >= MAX_SEARCH_FILES or read_bytes >= MAX_SEARCH_BYTES:
            capped = (f"{MAX_SEARCH_FILES:,} file{'s' if MAX_SEARCH_FILES != 1 else ''}"
                      if read_files >= MAX_SEARCH_FILES
                      else f"{MAX_SEARCH_BYTES / (1024 * 1024):g} MiB")
            break
        data = folders.read(relative)
        if not data:
            continue
        read_files += 1
        read_bytes += len(data)
        if b"\0" in data[:8192]:
            continue  # binary
        # a plain substring test first, the pattern only where it holds (bench_summary.py)
        for name in [n for n, (raw, pattern) in wanted.items()
                     if raw in data and pattern.search(data)]:
            del wanted[name]
    not_found = tuple(name for name in names if name in wanted)
    return Search((), not_found, capped=capped) if capped else Search(not_found)


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
            self.known[folder] = None
            with suppress(files.Refused):
                self.known[folder] = files.inside(self.root, folder or ".", self.git_dir)
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


# --------------------------------------------------------------------------- what the handoff names

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_BARE_PATH = re.compile(
    r"(?<![\w./\\~@:$-])((?:~/|\./|\.\\)?(?:[\w.-]+[/\\])+[\w.-]*\.[A-Za-z0-9]{1,10})"
    r"(?![\w/\\])")
FILE_SUFFIXES = frozenset((
    "md", "txt", "rst", "py", "pyi", "json", "jsonl", "yaml", "yml", "toml", "cfg", "ini",
    "sh", "bash", "js", "mjs", "ts", "tsx", "jsx", "rs", "go", "java", "kt", "c", "h", "cpp",
    "hpp", "rb", "php", "html", "css", "sql", "csv", "xml", "lock", "log", "env",
))
_FILE_NAME = re.compile(r"[\w-][\w.-]*\.(?:" + "|".join(sorted(FILE_SUFFIXES)) + r")")
_LINE_SUFFIX = re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$")
# The last label of a host name: "github.com/acme/tool.git" is an address, not a path.
HOST_SUFFIXES = frozenset((
    "com", "org", "net", "io", "dev", "app", "ai", "co", "gov", "edu", "info", "me", "us",
    "uk", "de", "fr", "jp", "cn", "ru", "eu", "ca", "au", "nl", "ch", "se", "es", "it", "pl",
    "br", "in", "xyz", "cloud", "site", "tech", "page", "so", "ly", "gg", "tv", "fm", "rs",
    "sh", "to", "cc", "biz", "online", "pub", "services",
))


def _is_version(part: str) -> bool:
    """``3.11``, ``v1.2.0``: digits and dots (an optional leading ``v``), with a dot."""
    body = part[1:] if part[:1] in ("v", "V") else part
    return "." in body and all(c in "0123456789." for c in body)


def _is_host(part: str) -> bool:
    """``github.com``, ``www.example.org``: a dotted name ending in a host suffix."""
    return "." in part and (part.startswith("www.")
                            or part.rsplit(".", 1)[1].lower() in HOST_SUFFIXES)


_DRIVE = re.compile(r"[A-Za-z]:[/\\]")
_NOT_IN_PATH = re.compile(r"[\s*?\[\]{}<>$|@'\"\\]")
_NOT_IN_SPACED_PATH = re.compile(r"[\t\n\r*?\[\]{}<>$|@'\"\\]")


def _spaced_path(token: str) -> bool:
    """May a backticked ``token`` with blanks be a path (``docs/Design Notes/retry
    design.md``) rather than a command or a phrase (``git add src/a.py``, ``src/a.py and
    src/b.py``)? Its first ``/`` comes before its first blank, no word is an option, and
    only its last word holds a dot (a file's name)."""
    if "  " in token or token.index("/") > token.index(" "):
        return False
    return " -" not in " " + token and "." not in token[:token.rindex(" ")]


def _path_candidate(token: str, quoted: bool) -> str | None:
    """The path ``token`` names, with slashes (a Windows ``src\\a\\b.py`` is checked as
    ``src/a/b.py``), or None: never an absolute path, a URL, a host, a version, or a path
    that climbs out with ``..``."""
    token = _written(token)
    if "\\" in token:
        if _DRIVE.match(token) or token.startswith("\\"):
            return None  # "C:\\Users\\x", "\\\\server\\share": absolute
        token = token.replace("\\", "/")
    spaced = quoted and " " in token and "/" in token and _spaced_path(token)
    if (not token or "://" in token or token.startswith(("/", "-")) or _DRIVE.match(token)
            or (_NOT_IN_SPACED_PATH if spaced else _NOT_IN_PATH).search(token)):
        return None
    parts = [part for part in token.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or (parts[0] == "~" and len(parts) == 1):
        return None
    last = token.rstrip("/").rsplit("/", 1)[-1]
    suffix = last.rsplit(".", 1)[1] if "." in last else ""
    if _is_version(last) or suffix.isdigit():
        return None  # "3.11/3.12", "python/3.12", "v1.2": versions, not files
    if "/" in token:
        if parts[0] != "~" and _is_host(parts[0]):
            return None  # "github.com/acme/tool.git": an address
        looks_like_file = 1 <= len(suffix) <= 10 and suffix.isalnum() and suffix.isascii()
        if not (looks_like_file or (quoted and token.endswith("/"))):
            return None
    elif not (quoted and _FILE_NAME.fullmatch(token)):
        return None
    return token[2:] if token.startswith("./") else token


def spelled_path_references(text: str) -> tuple[tuple[str, str], ...]:
    """File paths the handoff names (in backticks, or bare with a ``/`` and an extension;
    see ``_path_candidate``), each with how the handoff wrote it; the first
    ``MAX_PATH_REFERENCES`` count."""
    found: dict[str, str] = {}
    for line in text.split("\n"):
        tokens = [(span, True) for span in _CODE_SPAN.findall(line)]
        tokens += [(bare, False) for bare in _BARE_PATH.findall(_CODE_SPAN.sub(" ", line))]
        for token, quoted in tokens:
            candidate = _path_candidate(token, quoted)
            if candidate:
                found.setdefault(candidate, _written(token))
        if len(found) >= MAX_PATH_REFERENCES:
            break
    return tuple(found.items())[:MAX_PATH_REFERENCES]


def _written(token: str) -> str:
    """``token`` as the handoff wrote the path: without a line number or a closing mark."""
    return _LINE_SUFFIX.sub("", token.strip().rstrip(".,;:)"))


_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_QUOTED_CALL = re.compile(r"(" + _DOTTED + r")(\([^()]*\))?")
_BARE_CALL = re.compile(r"(?<![\w.])(" + _DOTTED + r")\(\)")


def _function_candidate(text: str, quoted: bool, builtin: frozenset[str]) -> str | None:
    """The dotted name when ``text`` names a function: ``name()``, ``name(args)``,
    ``module.func`` (quoted only) or ``module.func()``; None for anything else."""
    match = _QUOTED_CALL.fullmatch(text) if quoted else _BARE_CALL.fullmatch(text)
    if match is None:
        return None
    dotted = match.group(1)
    called = (match.group(2) is not None) if quoted else True
    segments = dotted.split(".")
    last = segments[-1]
    if not called:
        if len(segments) < 2:
            return None  # a bare word in backticks: a variable, a command, a value
        if last.lower() in FILE_SUFFIXES or last.lower() in HOST_SUFFIXES:
            return None  # "config.toml", "example.com"
    if last in builtin or len(last) < 3:
        return None
    return dotted


def function_references(text: str) -> tuple[tuple[str, str], ...]:
    """Function names the handoff mentions, as (what it says, the dotted name):
    ``render_toc()`` or ``module.func`` in backticks, and ``name()`` calls in the text;
    not built-ins or very short names. The first ``MAX_FUNCTION_REFERENCES`` count."""
    import builtins
    import keyword

    builtin = frozenset((*dir(builtins), *keyword.kwlist, "self", "cls", "this"))
    found: dict[str, str] = {}
    for line in text.split("\n"):
        for span in map(str.strip, _CODE_SPAN.findall(line)):
            if _path_candidate(span, quoted=True) is None:
                name = _function_candidate(span, True, builtin)
                if name:
                    found.setdefault(span, name)
        for match in _BARE_CALL.finditer(_CODE_SPAN.sub(" ", line)):
            name = _function_candidate(match.group(0), False, builtin)
            if name:
                found.setdefault(match.group(0), name)
        if len(found) >= MAX_FUNCTION_REFERENCES:
            break
    return tuple(found.items())[:MAX_FUNCTION_REFERENCES]
