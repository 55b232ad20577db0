"""``lets-session-checkpoint``: the session's end, written where the next session's start
reads it (``memory/session-handoff-LATEST.md``).

The only code of the checkpoint that reads argv, the environment and stdin, prints and
chooses exit codes; ``summary.checkpoint`` plans and writes, ``ladder.resolve`` gives the
range and the session's commits, ``Repo.touched`` what those commits changed (one git
process). Exit status: 0 written (or nothing to change), 1 refused (nothing written),
or another writer's change met while the file was replaced (kept, and said), 2 a usage
error; ``--hook`` always 0 and never a word on stdout, and it writes nothing at the end of
a session that made no counted commit and was given no ``--next``, ``--blocked`` or
``--ctx``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from lets_hooks import state
from lets_hooks.cli import command_parser, guarded, out, parse_or_hook, say
from lets_hooks.cli.agent import hook_json, read_stdin
from lets_hooks.cli.summary import find_top
from lets_hooks.files import is_folder, show
from lets_hooks.summary import checkpoint as ck
from lets_hooks.summary.interventions import MAX_FILE_BYTES

PROG = "lets-session-checkpoint"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lets_hooks.ladder import Boundary
    from lets_hooks.repo import Repo


def main(argv: Sequence[str] | None = None) -> int:
    return guarded(_main, sys.argv[1:] if argv is None else argv)


def _parser() -> argparse.ArgumentParser:
    parser = command_parser(
        PROG,
        "Write the session's end into memory/session-handoff-LATEST.md: the state-snapshot"
        " block (ts, ctx, next, blocked, and diff: what the session's own commits changed)"
        " right after the frontmatter, and a '### Range' section with the four lines of"
        " lets-session-boundary. Every other byte of the file is kept; what is not given"
        " keeps the previous block's value.")
    parser.add_argument("--root", help="project folder (default: the git top level above"
                                       " the current folder, else the current folder)")
    parser.add_argument("--next", action="append", metavar="TEXT",
                        help="a next step, in order (repeat it; the first two are Priority 1"
                             " and 2); given once or more, it replaces the list (--next ''"
                             " empties it)")
    parser.add_argument("--blocked", action="append", metavar="TEXT",
                        help="a blocker, 'ITEM (risk: H)' (repeat it); replaces the list")
    parser.add_argument("--ctx", metavar="TEXT", help="the context line")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the new file instead of writing it")
    parser.add_argument("--json", action="store_true",
                        help="print what was written as one JSON object")
    parser.add_argument("--hook", action="store_true",
                        help="run as an agent's end-of-session hook: read its JSON on stdin,"
                             " refresh ts, diff and the range of an existing handoff"
                             " (left as it is after a session that made no commit),"
                             " print nothing, exit 0")
    return parser


def _main(argv: Sequence[str]) -> int:
    args = parse_or_hook(_parser(), argv, "--hook" in argv)
    if args is None:  # a usage error of --hook: said, and exit 0 as a hook does
        return 0
    problem = ck.blocked_problem(args.blocked or ())
    if problem is not None:  # a usage error: before anything is read or written
        say(f"{PROG}: {problem}; nothing written")
        return 0 if args.hook else 2
    environ: Mapping[str, str] = os.environ
    if args.hook:
        return _as_hook(args, environ)
    try:
        return _run(args, environ, None, None)
    except ck.Refusal as exc:
        say(f"{PROG}: {exc}")
        return 1


def _as_hook(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Whatever arrives on stdin: nothing on stdout, at most a line on stderr, exit 0."""
    try:
        session_id, cwd, problem = hook_input()
        if problem is not None:
            say(f"{PROG}: {problem}; nothing written")
            return 0
        _run(args, environ, session_id, cwd)
    except ck.Refusal as exc:
        say(f"{PROG}: {exc}")
    except Exception as exc:  # anything else: one line too, never a traceback
        say(f"{PROG}: internal error ({type(exc).__name__}: {exc}); nothing written")
    return 0


def hook_input() -> tuple[str | None, str | None, str | None]:
    """(session id, cwd, problem) from an end-of-session hook's JSON on stdin: Claude Code
    SessionEnd and PreCompact, Codex Stop and SessionEnd, Gemini SessionEnd all carry
    ``session_id`` and ``cwd`` (and ``hook_event_name``). A problem: nothing is written.
    A ``session_id`` that is not a session's id is left out (the environment's is used);
    a ``cwd`` that is not a folder here too (the current folder is used)."""
    data, problem = hook_json(read_stdin())
    if data is None:
        return None, None, problem
    sid, cwd, event = (data.get(key) for key in ("session_id", "cwd", "hook_event_name"))
    if not isinstance(sid, str) and not isinstance(event, str):
        return None, None, "hook input has neither a session_id nor a hook_event_name"
    session_id = sid.strip() if isinstance(sid, str) and sid.strip() else None
    if session_id is not None and state.sid_problem(session_id) is not None:
        say(f"{PROG}: the hook input's session_id {state.shown_sid(session_id)} is"
            f" {state.sid_problem(session_id)}; the environment's session id is used")
        session_id = None
    return session_id, cwd if isinstance(cwd, str) and is_folder(cwd) else None, None


def _run(args: argparse.Namespace, environ: Mapping[str, str], session_id: str | None,
         cwd: str | None) -> int:
    now = time.time()
    if args.root and not os.path.isdir(args.root):
        raise ck.Refusal(f"--root {show(args.root)}: no such folder; nothing written")
    root = Path(args.root) if args.root else find_top(Path(cwd) if cwd else Path.cwd())
    asked = ck.Asked(args.next, args.blocked, args.ctx)
    here = None if args.hook else find_top(Path(cwd) if cwd else Path.cwd())
    repo, git_dir, boundary = session_range(root, environ, session_id, now, here)
    if args.hook and not boundary.session_commits and asked == ck.Asked():
        return 0  # the end of a session that did nothing: the last one's handoff stays
    diff = None
    notes = [f"NOTE: {note}" for note in boundary.notes]
    if repo is not None and boundary.boundary is not None:
        from lets_hooks.repo import GitError, reason

        try:
            changes = ck.changes_of(repo.touched(boundary.session_commits))
            diff = (changes[:ck.DIFF_CAP], max(0, len(changes) - ck.DIFF_CAP))
        except GitError as exc:
            notes.append(f"what the session's commits changed is not known ({reason(exc)}):"
                         " the previous diff is kept")
    else:
        notes.append("the session's range is not known: the previous diff is kept")
    lines = boundary.lines()
    result = ck.checkpoint(root, lambda data: ck.plan(data, asked, lines, diff, now,
                                                      MAX_FILE_BYTES),
                           git_dir, dry_run=args.dry_run, create=not args.hook)
    if args.hook or result is None:  # (None: no handoff, and --hook creates none)
        return 0
    for line in notes:
        say(line)
    for note in result.plan.notes:
        say(f"{PROG}: {note}")
    if args.json:
        out(_json(result, boundary, args.dry_run))
    elif args.dry_run:
        out(result.plan.data.decode("utf-8"))
    else:
        out(_said(result) + "\n" + "\n".join(lines) + "\n")
    return 0


def session_range(root: Path, environ: Mapping[str, str], session_id: str | None,
                  now: float, here: Path | None = None
                  ) -> tuple[Repo | None, str | None, Boundary]:
    """The ladder's answer for the checked-out branch (its session id: the hook's, else
    the environment's; ``Git.boundary``), and the repository to ask about the session's
    commits. ``here``: the work tree the command runs in, when its notes are printed:
    advice about another one's branch says to go there first (``lets-hooks record`` acts
    where it runs)."""
    from lets_hooks import ladder
    from lets_hooks.summary.sources.worktree import open_repository

    git = open_repository(root)
    top = git.location.top if git.location is not None else None
    advise = ""
    if here is not None and top is not None and os.path.realpath(top) != os.path.realpath(here):
        advise = ladder.go_to(top)
    boundary = git.boundary(environ, now, session_id, advise)
    return (git.repo if git.location is not None else None), git.git_dir, boundary


def _said(result: ck.Written) -> str:
    snapshot = result.plan.snapshot
    paths = len(snapshot.diff) + snapshot.more
    counts = (f"{len(snapshot.next)} next, {len(snapshot.blocked)} blocked,"
              f" {paths} changed path{'' if paths == 1 else 's'}")
    if not result.written:
        return f"{ck.HANDOFF}: already up to date ({counts})"
    what = "created" if result.created else "written"
    if result.merged:
        what += " on top of a change made to it meanwhile"
    return f"{ck.HANDOFF}: state snapshot and range {what} ({counts})"


def _json(result: ck.Written, boundary: Boundary, dry_run: bool) -> str:
    import json

    snapshot = result.plan.snapshot
    data = {
        "file": ck.HANDOFF,
        "written": result.written,
        "created": result.created and result.written,
        "merged": result.merged,
        "dry_run": dry_run,
        "ts": snapshot.ts,
        "ctx": snapshot.ctx,
        "next": list(snapshot.next),
        "blocked": list(snapshot.blocked),
        "diff": {"items": list(snapshot.diff), "more": snapshot.more},
        "range": list(result.plan.range_lines),
        "trust": boundary.trust,
        "session_commits": boundary.as_dict()["session_commits"],
        "notes": [show(note) for note in (*boundary.notes, *result.plan.notes)],
    }
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
