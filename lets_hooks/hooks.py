"""The git hooks: their inputs (git's arguments and stdin, or pre-commit's environment)
turned into state changes and ladder checks.

Every function here takes what it needs as arguments (the environment as a mapping,
stdin as bytes, the clock) and returns an exit status with the lines to show on stderr;
``cli/hooks.py`` does the reading and printing. The hooks are quiet when all is well and
never raise: a hook must not break the git command it rides on.
"""

from __future__ import annotations

from lets_hooks import ladder, state
from lets_hooks.repo import NULL_SHA, GitError, Location, Repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lets_hooks.config import Config

PREFIX = "lets-hooks: "
FIX = "lets-hooks record"


class Result:
    """What a hook did: its exit status and the lines for stderr."""

    __slots__ = ("code", "messages")

    def __init__(self, code: int = 0, messages: list[str] | None = None) -> None:
        self.code = code
        self.messages = messages if messages is not None else []

    def say(self, line: str) -> None:
        self.messages.append(PREFIX + line)


def _open(cwd: str | None, environ: Mapping[str, str],
          result: Result) -> tuple[Repo, Location, Config] | None:
    """The repository, where we are, and the settings (problems reported, defaults used)."""
    from lets_hooks import config

    repo = Repo(cwd)
    where = repo.locate()
    settings = config.load(where.top, environ)
    for problem in settings.problems:
        result.say(f"config: {problem} (defaults used)")
    return repo, where, settings


# -- recording ---------------------------------------------------------------------------

def touch(repo: Repo, where: Location, sid: str | None, result: Result,
          force: bool = False) -> bool:
    """Record ``session: <HEAD> <sid>`` for the checked-out branch when the rules say so.

    No session line yet: write it (sid-less when no session is known). A line recorded by
    another session, or by no known session, while a session is known: this is the new
    session's first touch of the branch, so replace it. The same session, or no session
    known: keep the line. ``force`` writes whatever is there (``lets-hooks record``).
    Returns True when the file changed.
    """
    top, branch, head = where.top, where.branch, where.head
    if top is None or branch is None or head is None:
        return False
    recorded = state.read_recorded(top, branch)
    if not force:
        if recorded.source == "task":
            if sid is None or recorded.sid == sid:
                return False
        elif recorded.source == "legacy" and sid is None:
            return False
    try:
        names = [name for name, _ in repo.branches()]
    except GitError:
        names = None
    try:
        return state.write_session_line(top, branch, head, sid, branches=names)
    except state.StateError as exc:
        result.say(f"branch {branch!r}: session boundary not recorded: {exc}")
        return False


def record_session(cwd: str, session_id: str, environ: Mapping[str, str]) -> list[str]:
    """Record the session line for the branch checked out at ``cwd`` at the moment a
    session starts (a Claude Code SessionStart hook), by the same rules as post-checkout,
    with ``session_id`` as the current session (empty: the environment's, if any).

    Returns the lines to show on stderr (none when all went well); never raises.
    """
    result = Result()
    try:
        opened = _open(cwd, environ, result)
        if opened is None:
            return result.messages
        repo, where, settings = opened
        if where.top is None or where.branch is None:
            return result.messages
        sid = session_id.strip() or settings.session_id(environ)
        touch(repo, where, sid, result)
    except GitError as exc:
        result.say(f"session boundary not recorded: {exc}")
    except Exception as exc:  # never break the caller
        result.say(f"session boundary not recorded: internal error ({type(exc).__name__}: "
                   f"{exc})")
    return result.messages


def record(cwd: str | None, sid: str | None, environ: Mapping[str, str],
           now: int) -> tuple[Result, ladder.Boundary | None]:
    """``lets-hooks record``: write the checked-out branch's session line at HEAD, then
    resolve it. ``sid`` None: the current session from the environment."""
    result = Result()
    repo, where, settings = _require(cwd, environ, result)
    if where.top is None:
        raise UsageError("no work tree here (bare repository, or inside .git): nothing to "
                         "record")
    if where.branch is None:
        raise UsageError("HEAD is detached: check out a branch to record its session "
                         "boundary")
    if where.head is None:
        raise UsageError(f"branch {where.branch!r} has no commit yet: nothing to record")
    if sid is None:
        sid = settings.session_id(environ)
    before = len(result.messages)
    touch(repo, where, sid, result, force=True)
    if len(result.messages) > before:
        result.code = 1
        return result, None
    # Judged for the session it was recorded for (``--sid``), else the environment's.
    current = sid or settings.session_id(environ)
    boundary = ladder.resolve(repo, settings, current, now, where=where)
    return result, boundary


class UsageError(Exception):
    """A command that cannot do what was asked here; one line for the user."""


def _require(cwd: str | None, environ: Mapping[str, str],
             result: Result) -> tuple[Repo, Location, Config]:
    from lets_hooks.repo import GitMissing, NotARepository

    try:
        opened = _open(cwd, environ, result)
    except GitMissing as exc:
        raise UsageError("git is not installed or not on PATH") from exc
    except NotARepository as exc:
        raise UsageError("not inside a git repository") from exc
    assert opened is not None
    return opened


# -- post-checkout -----------------------------------------------------------------------

def post_checkout(argv: Sequence[str], environ: Mapping[str, str], now: int,
                  cwd: str | None = None) -> Result:
    """git's ``post-checkout <previous HEAD> <new HEAD> <1 if a branch checkout>``, or under
    pre-commit the same three in ``PRE_COMMIT_FROM_REF``/``_TO_REF``/``_CHECKOUT_TYPE``."""
    result = Result()
    flag = argv[2] if len(argv) >= 3 else environ.get("PRE_COMMIT_CHECKOUT_TYPE", "")
    if flag != "1":
        return result  # a file checkout: nothing to do
    try:
        opened = _open(cwd, environ, result)
        if opened is None:
            return result
        repo, where, settings = opened
        if where.top is None or where.branch is None or where.head is None:
            return result  # detached HEAD (a rebase starting, a tag): nothing to keep
        sid = settings.session_id(environ)
        touch(repo, where, sid, result)
        boundary = ladder.resolve(repo, settings, sid, now, where=where)
        _warn_rejected(boundary, result, "post-checkout")
    except Exception as exc:  # never break the checkout
        result.say(f"post-checkout: skipped ({_problem(exc)})")
    return result


def _warn_rejected(boundary: ladder.Boundary, result: Result, hook: str) -> None:
    if boundary.reason is None:
        return
    result.say(f"{hook}: branch {boundary.branch!r}: recorded boundary "
               f"{_short(boundary.recorded)} rejected ({boundary.reason}); "
               f"{boundary.desc}. Fix: {FIX}")


# -- post-rewrite ------------------------------------------------------------------------

def post_rewrite(argv: Sequence[str], stdin: bytes, environ: Mapping[str, str], now: int,
                 cwd: str | None = None) -> Result:
    """git's ``post-rewrite <amend|rebase>`` with ``old new`` pairs on stdin; under
    pre-commit the command is in ``PRE_COMMIT_REWRITE_COMMAND`` and stdin is empty, so
    the pairs are recovered from git."""
    result = Result()
    command = argv[0] if argv else environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
    try:
        opened = _open(cwd, environ, result)
        if opened is None:
            return result
        repo, where, settings = opened
        top = where.top
        if top is None or where.head is None:
            return result
        branch = where.branch
        if branch is None:
            # ``rebase --apply`` runs this hook before it moves the branch back onto the
            # rewritten commits: the branch is the one still at the old tip.
            branch = _branch_being_rebased(repo, where, command)
            if branch is None:
                return result
            where = Location(top, where.git_dir, branch, where.head, where.origin_head)
        recorded = state.read_recorded(top, branch)
        if recorded.sha is not None:
            _follow(repo, where, command, stdin, recorded, result)
        sid = settings.session_id(environ)
        boundary = ladder.resolve(repo, settings, sid, now, branch=branch, head=where.head,
                                  where=where)
        _warn_rejected(boundary, result, "post-rewrite")
    except Exception as exc:  # never break the rewrite
        result.say(f"post-rewrite: skipped ({_problem(exc)})")
    return result


def _branch_being_rebased(repo: Repo, where: Location, command: str) -> str | None:
    if command not in ("rebase", ""):
        return None
    _, orig_head, backend = repo.rebase_state(where.git_dir)
    if backend != "rebase-apply" or orig_head is None:
        return None
    at_old_tip = [name for name, sha in repo.branches() if sha == orig_head]
    return at_old_tip[0] if len(at_old_tip) == 1 else None


def recover_pairs(repo: Repo, where: Location, command: str,
                  stdin: bytes) -> tuple[list[tuple[str, str]], str | None, str]:
    """The rewrite's old->new pairs, the tip before it, and where they came from.

    In order: git's stdin; a rebase's own list (``rebase-merge/rewritten-list`` or
    ``rebase-apply/rewritten``, still there while the hook runs); for an amend,
    ``HEAD@{1}`` -> ``HEAD`` when the reflog says the last move was an amend.
    """
    from lets_hooks import rewrite

    pairs = rewrite.parse_pairs(stdin) if stdin else []
    listing, orig_head, _ = repo.rebase_state(where.git_dir)
    if pairs:
        if command == "amend" or listing is None:
            old_head = pairs[-1][0] if command == "amend" else orig_head
            return pairs, old_head, "git"
        return pairs, orig_head, "git"
    if listing is not None:
        pairs = rewrite.parse_pairs(listing)
        if pairs:
            return pairs, orig_head, "the rebase's rewritten list"
    if command == "amend" or not command:
        log = repo.head_reflog(2)
        if len(log) == 2 and log[0][1].startswith("commit (amend)"):
            return [(log[1][0], log[0][0])], log[1][0], "HEAD@{1} -> HEAD"
    return [], orig_head, ""


def _follow(repo: Repo, where: Location, command: str, stdin: bytes,
            recorded: state.Recorded, result: Result) -> None:
    """Move the branch's recorded boundary through the rewrite, and write it back."""
    from lets_hooks import rewrite

    assert where.top is not None and where.branch is not None and where.head is not None
    assert recorded.sha is not None
    info = repo.objects([recorded.sha + "^{commit}"])[0]
    boundary = info.sha
    if boundary is None:
        return  # not a commit: the ladder will say so
    pairs, old_head, _ = recover_pairs(repo, where, command, stdin)
    if old_head is None and pairs:
        old_head = pairs[-1][0]
    if not pairs:
        pairs = _pairs_by_patch_id(repo, boundary, old_head, where.head)
    if not pairs or old_head is None:
        if old_head is not None and old_head != where.head and not repo.is_ancestor(
                boundary, where.head):
            result.say(f"post-rewrite: branch {where.branch!r}: could not tell how the "
                       f"rewrite moved the session's commits; the boundary "
                       f"{_short(boundary)} is left as it was. Fix: {FIX}")
        return
    images = rewrite.mapping(pairs)
    if boundary not in images and boundary != old_head and not repo.is_ancestor(
            boundary, old_head):
        return  # it did not bound this history before the rewrite either
    chain: list[str] = []
    if boundary not in images and boundary != old_head:
        walk = repo.session_walk(old_head, boundary)
        chain = rewrite.first_parent_chain(walk, old_head, boundary)
    head = where.head

    def parent_of(image: str) -> str | None:
        parents = repo.parents([image]).get(image) or []
        return parents[0] if parents else None

    def in_new_history(commit: str) -> bool:
        return repo.is_ancestor(commit, head)

    moved = rewrite.move(boundary, images, chain, parent_of, in_new_history, head)
    if moved.boundary is None or moved.boundary == boundary:
        return
    sid = recorded.sid if recorded.source == "task" else None
    try:
        state.write_session_line(where.top, where.branch, moved.boundary, sid)
    except state.StateError as exc:
        result.say(f"post-rewrite: branch {where.branch!r}: the boundary could not follow "
                   f"the rewrite: {exc}")


def _pairs_by_patch_id(repo: Repo, boundary: str, old_head: str | None,
                       new_head: str) -> list[tuple[str, str]]:
    """The last resort: match the session's old commits to new ones by patch id."""
    if old_head is None or old_head == new_head:
        return []
    if not repo.is_ancestor(boundary, old_head):
        return []
    old = repo.patch_ids(old_head, boundary)
    if not old:
        return []
    base = repo.merge_base(boundary, new_head)
    new = dict(repo.patch_ids(new_head, base)) if base else {}
    return [(commit, new[pid]) for pid, commit in old if pid in new]


# -- pre-push ----------------------------------------------------------------------------

def pre_push(argv: Sequence[str], stdin: bytes, environ: Mapping[str, str], now: int,
             cwd: str | None = None) -> Result:
    """git's ``pre-push <remote> <url>`` with ``<local ref> <local sha> <remote ref>
    <remote sha>`` lines on stdin; under pre-commit only the first pushed branch, in
    ``PRE_COMMIT_LOCAL_BRANCH`` and ``PRE_COMMIT_TO_REF``."""
    result = Result()
    try:
        pushed = _pushed(argv, stdin, environ)
        if not pushed:
            return result
        opened = _open(cwd, environ, result)
        if opened is None:
            return result
        repo, where, settings = opened
        pushed = _as_branches(repo, where, pushed)
        sid = settings.session_id(environ)
        tops: dict[str, str] | None = None
        for branch, sha in pushed:
            at = where
            if branch != where.branch:
                if tops is None:
                    tops = repo.worktrees()
                if branch in tops:
                    at = Location(tops[branch], where.git_dir, where.branch, where.head,
                                  where.origin_head)
            boundary = ladder.resolve(repo, settings, sid, now, branch=branch,
                                      head=sha or "refs/heads/" + branch, where=at)
            _warn_push(boundary, branch, branch == where.branch, settings.pre_push_strict,
                       result)
    except Exception as exc:  # never break the push over our own trouble
        result.say(f"pre-push: skipped ({_problem(exc)})")
        return Result(0, result.messages)
    return result


def _pushed(argv: Sequence[str], stdin: bytes,
            environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """(branch, pushed sha) for each local branch pushed; deletions and tags skipped."""
    pushed: list[tuple[str, str | None]] = []
    if stdin.strip():
        for line in stdin.decode("utf-8", "surrogateescape").splitlines():
            parts = line.split()
            if len(parts) != 4:
                continue
            local_ref, local_sha = parts[0], parts[1]
            tag_or_other = local_ref.startswith("refs/") and not local_ref.startswith(
                "refs/heads/")
            if local_sha == NULL_SHA or tag_or_other:
                continue
            if state.is_hex(local_sha) and len(local_sha) >= 40:
                pushed.append((local_ref, local_sha))
        return pushed
    local_ref = environ.get("PRE_COMMIT_LOCAL_BRANCH", "")
    if local_ref and (local_ref.startswith("refs/heads/") or not local_ref.startswith("refs/")):
        sha = environ.get("PRE_COMMIT_TO_REF", "")
        ok = state.is_hex(sha) and len(sha) >= 40 and sha != NULL_SHA
        pushed.append((local_ref, sha if ok else None))
    return pushed


def _as_branches(repo: Repo, where: Location, pushed: list[tuple[str, str | None]]
                 ) -> list[tuple[str, str | None]]:
    """Local refs as git reports them (``refs/heads/x``, or as typed: ``HEAD``, ``x``)
    turned into branch names; what names no local branch (``x~1``, a sha) is dropped."""
    found: list[tuple[str, str | None]] = []
    tips: dict[str, str] | None = None
    for ref, sha in pushed:
        if ref.startswith("refs/heads/"):
            found.append((ref[len("refs/heads/"):], sha))
        elif ref == "HEAD":
            if where.branch is not None and sha in (None, where.head):
                found.append((where.branch, sha))
        else:
            if tips is None:
                tips = dict(repo.branches())
            if ref in tips and sha in (None, tips[ref]):
                found.append((ref, sha))
    return found


def _warn_push(boundary: ladder.Boundary, branch: str, current: bool, strict: bool,
               result: Result) -> None:
    fix = FIX if current else f"git switch {branch} && {FIX}"
    if boundary.reason is not None:
        if strict:
            result.code = 1
        verdict = "push blocked (pre_push.strict)" if strict else "pushed anyway"
        result.say(f"pre-push: branch {branch!r}: recorded session boundary "
                   f"{_short(boundary.recorded)} rejected: {boundary.reason}; {verdict}. "
                   f"Fix: {fix}")
    elif boundary.trust == ladder.ESTIMATE:
        result.say(f"pre-push: branch {branch!r}: no session boundary recorded; the range "
                   f"is only estimated from the branch point off {boundary.merge_branch} "
                   f"({boundary.commits} commits). Fix: {fix}")
    elif boundary.trust == ladder.NONE:
        result.say(f"pre-push: branch {branch!r}: no usable session boundary "
                   f"({_last_note(boundary)}). Fix: {fix}")


def _last_note(boundary: ladder.Boundary) -> str:
    return boundary.notes[-1] if boundary.notes else "nothing recorded"


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "none"


def _problem(exc: BaseException) -> str:
    from lets_hooks.repo import GitMissing, NotARepository

    if isinstance(exc, GitMissing):
        return "git is not installed or not on PATH"
    if isinstance(exc, NotARepository):
        return "not inside a git repository"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
