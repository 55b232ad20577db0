"""The CI lint step: session state must not be committed, and state and memory files must parse.

``lint`` takes a repository handle opened at the work tree's top and returns findings,
``(path, problem)`` records with the path relative to the top; it prints nothing. The
checks, in order:

1. anything at or under ``.lets/sessions`` or ``.lets/locks`` is tracked by git (state is
   per work tree), or ``.lets``, ``.lets/sessions`` or ``.lets/locks`` itself is tracked
   (a file or a link that came with the repository, never followed);
2. the non-slugged ``.lets/sessions/.session-start-ref`` exists (it is never read);
3. a task file's session line, or a legacy slugged file's sha, is malformed, or the
   file cannot be read as a plain file (a symbolic link is refused, never followed);
4. a memory file that ``lets-session-start`` reads does not parse;
5. a file the summary reads (the handoff, the context log, the lessons, MEMORY.md) holds
   control or invisible characters (terminal escapes, bidi overrides, text a person cannot
   see but a model reads) by ``files.is_shown_as_is``, the rule the summary escapes by and
   ``lets-session-checkpoint`` writes by.

Every path shown is escaped so that no file name can forge an extra output line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from lets_hooks import files, state
from lets_hooks.files import show
from lets_hooks.repo import Repo
from lets_hooks.summary.interventions import MAX_FILE_BYTES
from lets_hooks.summary.sources.context_log import CONTEXT_LOG, read_context_log
from lets_hooks.summary.sources.handoff import HANDOFF, read_handoff
from lets_hooks.summary.sources.lessons import LESSONS, read_lessons
from lets_hooks.summary.sources.memory_index import MEMORY_INDEX, read_memory_index

LETS = ".lets"
SESSIONS = ".lets/sessions"
LOCKS = ".lets/locks"
GLOBAL_REF = ".session-start-ref"
LEGACY_PREFIX = ".session-start-ref-"
TASK_PREFIX = ".task-"
TEMP_NAME = re.compile(r"\.task-.+\.[0-9]+\.tmp\Z", re.DOTALL)
SHA_MIN, SHA_MAX = 4, 64  # git's shortest abbreviation; a SHA-256 object name


@dataclass(frozen=True)
class Finding:
    """One problem with one file: shown as ``path: problem``."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{show(self.path)}: {show(self.problem)}"


def lint(repo: Repo, top: str, git_dir: str | None = None) -> list[Finding]:
    """Every finding for the work tree at ``top``; ``repo`` must be opened at ``top``.
    ``git_dir``, when known, is fenced off from the memory files' readers like ``.git``."""
    findings = tracked_state(repo)
    linked = any(f.path in state.LINKABLE for f in findings)  # said once, not twice
    findings += state_files(state.Store(top) if linked else state.open_store(top, repo))
    findings += memory_files(top, git_dir)
    findings += hidden_text(top, git_dir)
    return findings


# -- 1. committed state --------------------------------------------------------------------

def tracked_state(repo: Repo) -> list[Finding]:
    found = []
    for path in repo.tracked(LETS):
        if path in (LETS, SESSIONS, LOCKS):
            found.append(Finding(path, "tracked by git: session state must never be "
                                       "committed (git rm --cached it)"))
        elif path.startswith((SESSIONS + "/", LOCKS + "/")):
            found.append(Finding(path, "tracked by git: session state is per work tree "
                                       "and must not be committed (git rm --cached it)"))
    return found


# -- 2 and 3. the state files on disk ------------------------------------------------------

def state_files(store: state.Store) -> list[Finding]:
    if store.problem is not None:
        return [Finding(LETS, store.problem)]
    folder = store.sessions
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        names = []
    except OSError as exc:
        return [Finding(SESSIONS, f"cannot be listed ({exc.strerror})")]
    found = []
    for name in names:
        path = f"{SESSIONS}/{name}"
        if name == GLOBAL_REF:
            found.append(Finding(path, "non-slugged boundary file: it is never read (one file "
                                       "cannot answer for every branch) - delete it"))
        elif name.startswith(LEGACY_PREFIX) or (
                name.startswith(TASK_PREFIX) and not TEMP_NAME.match(name)):
            problem = _file_problem(os.path.join(folder, name), name.startswith(LEGACY_PREFIX))
            if problem:
                found.append(Finding(path, problem))
    return found


def _file_problem(path: str, legacy: bool) -> str | None:
    """What is wrong with a task file's session line (``legacy``: a slugged file's first
    line), or the reader's refusal without the file name it starts with (the path is
    shown)."""
    data, problem = files.read_capped(path)
    if problem or data is None:
        return problem and problem.removeprefix(os.path.basename(path) + " ")
    if legacy:
        parts = state.tokens(state.first_line(data))
        return _line_problem(parts[:1], "first line") if parts else None
    line = state.find_session_line(data)
    return None if line is None else _line_problem(state.tokens(line), "session line")


def _line_problem(parts: list[bytes], what: str) -> str | None:
    if not parts:
        return f"malformed {what}: no boundary sha after 'session: '"
    raw = parts[0]
    sha = raw.decode("utf-8", "surrogateescape")
    if not state.is_hex(sha):
        return (f"malformed {what}: {_quote(raw)} is not a lowercase hex sha "
                "(the ladder ignores it)")
    if not SHA_MIN <= len(sha) <= SHA_MAX:
        return (f"malformed {what}: a {len(sha)}-digit sha cannot name a commit "
                f"({SHA_MIN} to {SHA_MAX} hex digits)")
    if len(parts) > 1:
        try:
            problem = state.sid_problem(parts[1].decode("utf-8"))
        except UnicodeDecodeError:
            problem = "not printable text (not UTF-8)"
        if problem is not None:
            return f"malformed {what}: the session id {_quote(parts[1])} is {problem}"
    return None


def _quote(raw: bytes) -> str:
    text = show(raw.decode("utf-8", "surrogateescape"))
    return "'" + (text if len(text) <= 48 else text[:45] + "...") + "'"


# -- 4. memory files -----------------------------------------------------------------------

def memory_files(top: str, git_dir: str | None = None) -> list[Finding]:
    """What ``lets-session-start`` would warn about in the project's memory files: the
    summary's own readers do the parsing (one parser, one answer); their warnings read
    ``<path>: <problem>``."""
    found = []
    for reader in (read_handoff, read_context_log, read_lessons, read_memory_index):
        for warning in reader(Path(top), git_dir).warnings:
            path, sep, problem = warning.partition(": ")
            found.append(Finding(path, problem) if sep else Finding(".", warning))
    return found


# -- 5. text the summary would have to escape ------------------------------------------------

def hidden_text(top: str, git_dir: str | None = None) -> list[Finding]:
    """One finding per file the summary reads that holds characters ``files.show`` escapes
    (tabs, CRLF line ends and a leading byte-order mark are fine). Read behind the same
    fence and limit as the summary's readers, which report what cannot be read."""
    found = []
    for relative in (HANDOFF, CONTEXT_LOG, LESSONS, MEMORY_INDEX):
        data, _ = files.read_inside(top, relative, MAX_FILE_BYTES, git_dir)
        if not data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text: the file's reader says so, once
        lines = (line.removesuffix("\r").replace("\t", " ")
                 for line in text.removeprefix("\ufeff").split("\n"))
        bad = [(number, line) for number, line in enumerate(lines, 1)
               if not files.is_shown_as_is(line)]
        if bad:
            number, line = bad[0]
            first = next(c for c in line if not files.is_shown_as_is(c))
            more = f" (and {len(bad) - 1} more lines)" if len(bad) > 1 else ""
            found.append(Finding(relative, (
                f"line {number}{more}: control or invisible characters ({files.show(first)} "
                "first): a terminal escape sequence, a bidi control or text a reader cannot "
                "see; the summary shows them escaped - remove them")))
    return found
