"""The git hooks: their inputs (git's arguments and stdin, or pre-commit's environment)
turned into state changes and ladder checks.

Every function here takes what it needs as arguments (the environment as a mapping,
stdin as bytes, the clock) and returns an exit status with the lines to show on stderr;
``cli/hooks.py`` does the reading and printing. The hooks are quiet when all is well and
never raise: a hook must not break the git command it rides on.
"""

from __future__ import annotations

import os
import time

from lets_hooks import files, gitfiles, ladder
from lets_hooks.repo import NULL_SHA, GitError, Location, Repo, branch_of, reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lets_hooks import state
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
          result: Result) -> tuple[Repo, Location, Config]:
    """The repository, where we are, and the settings (problems reported, defaults used)."""
    from lets_hooks import config

    repo = Repo(cwd)
    where = repo.locate()
    settings = config.load(where.top, environ, where.git_dir)
    for problem in settings.problems:
        result.say(f"config: {problem} (defaults used)")
    _mark_configured_ids(where.git_dir, settings)
    return repo, where, settings


IDS_CONFIGURED = "ids-configured"  # in <git dir>/lets-hooks/


def _mark_configured_ids(git_dir: str, settings: Config) -> None:
    """The plain post-commit shim reads the default session-id variables; this mark, kept
    only while ``session_id_env`` is not the default, hands that over to lets-hooks."""
    from lets_hooks.config import DEFAULT_SESSION_ID_ENV

    mark = os.path.join(git_dir, "lets-hooks", IDS_CONFIGURED)
    wanted = tuple(settings.session_id_env) != DEFAULT_SESSION_ID_ENV
    try:
        if wanted and not os.path.isfile(mark):  # the shim's ``[ -f ]``
            os.makedirs(os.path.dirname(mark), mode=0o700, exist_ok=True)
            files.atomic_write(mark, b"", keep_mode=False)  # over a link, never through it
        elif not wanted and os.path.lexists(mark):
            os.unlink(mark)
    except (OSError, files.Refused):
        pass  # the shim then reads the default variables, as it would without a mark


# -- recording ---------------------------------------------------------------------------

def touch(repo: Repo, where: Location, sid: str | None, result: Result, now: float,
          force: bool = False, previous: str | None = None, below_own: bool = True,
          merge: str | None = None) -> bool | None:
    """``record.touch``, its problem said on ``result`` (None: not recorded); a line
    written where git does not ignore it is said too, and counts as recorded."""
    from lets_hooks import record

    changed, problem, unkept = record.touch(repo, where, sid, now, force, previous,
                                            below_own, merge)
    if unkept is not None:
        result.say(unkept)
    if problem is not None:
        result.say(f"branch {files.quoted(where.branch)}: session boundary not recorded: {problem}")
        return None
    return changed


def record_session(cwd: str, session_id: str, environ: Mapping[str, str]) -> list[str]:
    """Record the session line for the branch checked out at ``cwd`` as a session starts
    (a SessionStart hook), by post-checkout's rule, for ``session_id`` (empty: the
    environment's). Returns the lines for stderr; never raises."""
    result = Result()
    try:
        repo, where, settings = _open(cwd, environ, result)
        if where.top is None or where.branch is None:
            return result.messages
        sid = session_id.strip() or settings.session_id(environ)
        touch(repo, where, sid, result, time.time(), merge=settings.merge_branch)
    except Exception as exc:  # never break the caller
        result.say(f"session boundary not recorded: {reason(exc)}")
    return result.messages


def record(cwd: str | None, sid: str | None, environ: Mapping[str, str],
           now: int, at: str | None = None) -> tuple[Result, ladder.Boundary | None]:
    """``lets-hooks record [--at REV]``: write the checked-out branch's session line at
    HEAD (or at ``at``, once the ladder accepts it there), then resolve it. ``sid`` None:
    the current session from the environment."""
    result = Result()
    try:
        repo, where, settings = _open(cwd, environ, result)
    except GitError as exc:
        raise UsageError(reason(exc)) from exc
    if where.top is None:
        raise UsageError("no work tree here (bare repository, or inside .git): nothing to "
                         "record")
    if where.branch is None:
        raise UsageError("HEAD is detached: check out a branch to record its session "
                         "boundary")
    if where.head is None:
        raise UsageError(f"branch {files.quoted(where.branch)} has no commit yet: nothing "
                         "to record")
    asked_none = sid == ""  # --no-sid: a line of no session, asked for
    # judged for the session it is recorded for (``--sid``), else the environment's
    current = sid or settings.session_id(environ)
    if sid is None:
        sid = current
    if not current and not asked_none:
        from lets_hooks import state

        held = state.read_recorded(state.open_store(where.top, repo), where.branch)
        if held.sid:
            said = "".join(f"; {problem}" for problem in settings.problems)
            raise UsageError("no session id is set (LETS_SESSION_ID): recording would "
                             f"replace session {state.shown_sid(held.sid)}'s line with one "
                             f"of no session (--no-sid does that); nothing recorded{said}")
    target = where if at is None else _at(repo, where, settings, current, now, at)
    if touch(repo, target, sid, result, now, force=True, below_own=at is None,
             merge=settings.merge_branch) is None:
        result.code = 1
        return result, None
    if at is not None and target.head != where.head and sid:
        # claims are the recorded session's (``--sid``, else the environment's); a line of
        # no session (``--no-sid``) vouches for no one
        _vouch(repo, where, target.head, sid,
               ladder.resolve(repo, settings, sid, now, where=where))
    return result, ladder.resolve(repo, settings, current, now, where=where)


def _at(repo: Repo, where: Location, settings: Config, sid: str | None, now: int,
        rev: str) -> Location:
    """``where`` with ``rev``'s commit as the head to record, once the ladder accepts a
    trial task file holding that line, its age counted from the oldest commit it claims
    (so no rule is written twice)."""
    import tempfile

    from lets_hooks import state

    shown = files.quoted(rev)
    if not rev or rev.startswith("-") or "\n" in rev or "\0" in rev:
        raise UsageError(f"--at {shown}: not a revision")
    commit = repo.objects([rev + "^{commit}"])[0].sha
    if commit is None:
        raise UsageError(f"--at {shown}: not a commit in this repository")
    assert where.top is not None and where.branch is not None and where.head is not None

    sid = sid if sid and state.sid_problem(sid) is None else None  # the writer says why

    def trial(since: float) -> ladder.Boundary:
        with tempfile.TemporaryDirectory(prefix="lets-record-") as folder:
            store = state.Store(where.top or "")
            store.sessions = folder
            line = state.Line(commit, sid, state.utc_stamp(since))
            with open(store.task_path(where.branch or ""), "wb") as task:
                task.write(state.render(b"", line))
            return ladder.resolve(repo, settings, sid, now, where=where, store=store)

    judged = trial(now)
    if judged.reason is None and commit != where.head:
        since = _oldest_claimed(repo, where.head, commit, judged.merge_branch)
        if since is not None and since < now:
            judged = trial(since)
    if judged.reason is not None:
        raise UsageError(f"--at {shown}: the ladder would reject {commit[:12]}: "
                         f"{judged.reason}; nothing recorded")
    if judged.boundary != commit:
        raise UsageError(f"--at {shown}: the ladder would not use {commit[:12]} as the "
                         "boundary; nothing recorded")
    return Location(where.top, where.git_dir, where.branch, commit, where.origin_head)


def _vouch(repo: Repo, where: Location, base: str | None, sid: str | None,
           judged: ladder.Boundary) -> None:
    """``record --at REV`` is a person's word that the commits of ``REV..HEAD`` on HEAD's
    first-parent line, off the merge branch, are this session's: kept in the ledger as
    claims, with a session id only, for the commits the ladder (``judged``) counts with no
    evidence of who made them (``unvouched``): a claim never overrides the ledger."""
    from lets_hooks import ledger, state

    if base is None or where.head is None or not sid or state.sid_problem(sid) is not None:
        return
    stops = [base, *ladder.merge_tips(repo, judged.merge_branch)]
    unvouched = set(judged.unvouched)
    line = [c for c in repo.first_parents_above(where.head, stops) if c in unvouched]
    ledger.note_claims(gitfiles.common_dir(where.git_dir), line, sid)


def _oldest_claimed(repo: Repo, head: str, base: str, merge: str | None) -> int | None:
    """The committer time of the oldest commit of ``base..head`` not already on the merge
    branch: when the session that made them must have started, at the latest."""
    shas = repo.listing(head, [base, *ladder.merge_tips(repo, merge)])
    if not shas:
        return None
    return min((i.commit_time for i in repo.objects(shas) if i.commit_time is not None),
               default=None)


class UsageError(Exception):
    """A command that cannot do what was asked here; one line for the user."""


# -- post-checkout -----------------------------------------------------------------------

def post_checkout(argv: Sequence[str], environ: Mapping[str, str], now: int,
                  cwd: str | None = None) -> Result:
    """git's ``post-checkout <previous HEAD> <new HEAD> <1 if a branch checkout>``, or under
    pre-commit the same three in ``PRE_COMMIT_FROM_REF``/``_TO_REF``/``_CHECKOUT_TYPE``."""
    from lets_hooks import ledger

    result = Result()
    flag = argv[2] if len(argv) >= 3 else environ.get("PRE_COMMIT_CHECKOUT_TYPE", "")
    if flag != "1":
        return result  # a file checkout: nothing to do
    previous = argv[0] if len(argv) >= 3 else environ.get("PRE_COMMIT_FROM_REF", "")
    try:
        repo, where, settings = _open(cwd, environ, result)
        if where.top is None or where.branch is None or where.head is None:
            return result  # detached HEAD (a rebase starting, a tag): nothing to keep
        sid = settings.session_id(environ)
        # the shims append without compacting: a checkout compacts (one ``stat`` otherwise)
        ledger.maintain(gitfiles.common_dir(where.git_dir))
        came_from = previous if files.is_sha(previous) else None
        written = bool(touch(repo, where, sid, result, now, previous=came_from,
                             merge=settings.merge_branch))
        boundary = ladder.resolve(repo, settings, sid, now, where=where)
        if boundary.reason is not None:
            boundary = _carry_again(repo, where, settings, sid, now, came_from, written,
                                    boundary)
        _warn_rejected(boundary, sid, result, "post-checkout")
    except Exception as exc:  # never break the checkout
        result.say(f"post-checkout: skipped ({reason(exc)})")
    return result


def _carry_again(repo: Repo, where: Location, settings: Config, sid: str | None, now: int,
                 came_from: str | None, written: bool,
                 boundary: ladder.Boundary) -> ladder.Boundary:
    """A line this session holds, rejected right after a checkout: ``checkout -B`` reset a
    branch the session had touched (carry the line it came from again), or a boundary
    carried from main is below this branch's point off it (lift it to that point)."""
    from lets_hooks import record

    reason = boundary.reason or ""
    changed = False
    if reason.startswith("not an ancestor"):
        changed = record.recarry(repo, where, sid, came_from)
    elif written and reason.startswith("older than this branch's point") \
            and boundary.trust == ladder.ESTIMATE and boundary.boundary and boundary.recorded:
        changed = record.lift(repo, where, sid, boundary.recorded, boundary.boundary)
    return ladder.resolve(repo, settings, sid, now, where=where) if changed else boundary


def _warn_rejected(boundary: ladder.Boundary, sid: str | None, result: Result,
                   hook: str) -> None:
    if boundary.reason is None:
        return
    result.say(f"{hook}: branch {files.quoted(boundary.branch)}: recorded boundary "
               f"{_short(boundary.recorded)} rejected ({boundary.reason}); "
               f"{boundary.desc}. Fix: {_fix(boundary, FIX, sid)}")


# -- post-commit, post-merge, post-applypatch: the session ledger -----------------------

def note_commit(hook: str, argv: Sequence[str], environ: Mapping[str, str]) -> Result:
    """Write in the session ledger which session made the commit just made (HEAD; for
    ``post-merge`` only a merge commit), the line the plain shim writes
    (``install._NOTE``); no ladder, no history walk. Never raises."""
    from lets_hooks import ledger, reflog

    result = Result()
    try:
        repo, where, settings = _open(None, environ, result)
        head = where.head
        if head is None:
            return result
        rebasing = gitfiles.rebasing(where.git_dir)
        if rebasing and not (hook == "post-commit" and _typed_at_stop(repo, where.git_dir,
                                                                      head)):
            return result  # inside a rebase post-rewrite writes the lines, from git's list
        sid = settings.session_id(environ)
        lines: list[bytes] = []
        if hook == "post-merge":
            squash = argv[0] if argv else environ.get("PRE_COMMIT_IS_SQUASH_MERGE", "0")
            if squash == "1":
                return result  # a squash: no commit yet
            last = repo.reflog(where.git_dir, "HEAD", 1)
            message = last[0][1] if last and last[0][0] == head else ""
            made = reflog.classify(message) == reflog.CREATED if last else \
                _merge_made(repo, head)
            if not made:
                return result  # a fast-forward: nothing made
            kind = ledger.MADE
        elif hook == "post-commit":
            logged, parent, before, prev, up2 = (
                info.sha for info in repo.objects((*ledger.AMEND_NAMES, *AFTER_NAMES)))
            kind = ledger.made_kind(head, logged, parent, before)
            # commit on commit is never one (as the shim); a reset at a rebase's stop (a
            # split) takes off the stop's pick, which post-rewrite pairs
            if not rebasing and (prev is None or prev != up2):
                kept = _kept_from_reset(repo, where.git_dir, head, sid)
                if kept is None:
                    kind = ledger.AMEND  # it holds more than can be named: vouched by nothing
                else:
                    lines = kept
        else:
            kind = ledger.MADE
        problem = ledger.append(gitfiles.common_dir(where.git_dir),
                                [ledger.line(kind, head, sid), *lines])
        if problem is not None:
            result.say(f"{hook}: the session ledger was not written: {problem}")
    except Exception as exc:  # never break the commit
        result.say(f"{hook}: skipped ({reason(exc)})")
    return result


# where HEAD was before the commit's parent, and that parent's first parent: the same
# commit when HEAD's log runs commit on commit (the shim asks git for the same names)
AFTER_NAMES = ("HEAD@{2}", "HEAD~2")
RESETS = 8  # resets in a row before a commit looked through to where HEAD was before them
KEPT = 100  # commits a reset took off named as copied; past this many, the commit is
#            written as an amend with no pair: vouched for by nothing


def _kept_from_reset(repo: Repo, git_dir: str, head: str, sid: str | None
                     ) -> list[bytes] | None:
    """The ``r`` lines for a commit made (or amended) right after ``git reset`` took
    commits off HEAD and kept their changes (soft or mixed, then committed again: an amend
    or a squash by hand): the commit copies each of them, changed, as a squash's do, so it
    holds their makers' work, never this session's alone unless they were all its own.
    No lines where the commit changes none of the paths they changed (a hard reset, then
    new work elsewhere): a path both change, even to other content, may hold their work;
    None past ``KEPT`` of them, or where git cannot say. The plain shim hands a commit
    made right after a reset over to here."""
    from lets_hooks import ledger, reflog

    entries = repo.reflog(git_dir, "HEAD", RESETS + 2)
    at = 1
    while at < len(entries) - 1 and reflog.made_by_reset(entries[at][1]):
        at += 1
    if at == 1 or entries[0][0] != head:
        return []
    if reflog.made_by_reset(entries[at][1]):
        return None  # more resets than looked through: where HEAD was is not known
    was = entries[at][0]  # HEAD before the resets
    try:
        taken = repo.listing(was, [head]) if was not in (head, entries[1][0]) else []
        if not taken or not repo.touch_a_common_path(entries[1][0], was, head):
            return []
    except GitError:  # a commit it took off is gone: what the commit holds is not known
        return None
    if len(taken) > KEPT:
        return None
    return [ledger.line(ledger.REWRITE, head, sid, old, "*") for old in taken]


def _typed_at_stop(repo: Repo, git_dir: str, head: str) -> bool:
    """Inside a rebase: was ``head`` made by a ``git commit`` typed at a stop (or by an exec
    step), not by the rebase's own step? Then it is written now, under the id of whoever
    typed it (a person at another terminal included), as the shim does."""
    from lets_hooks import reflog

    last = repo.reflog(git_dir, "HEAD", 1)
    return bool(last) and last[0][0] == head and reflog.typed_commit(last[0][1])


def _merge_made(repo: Repo, head: str) -> bool:
    """With no HEAD reflog: a merge commit was made when HEAD has two parents or more and
    the first is ``ORIG_HEAD`` (a fast-forward moved HEAD to a commit already there)."""
    before = repo.ref_commit("ORIG_HEAD")
    if before is None:
        return False
    fields = repo.window(head, 1).decode("ascii", "replace").split()
    return len(fields) >= 3 and fields[0] == head and fields[1] == before


# -- post-rewrite ------------------------------------------------------------------------

def post_rewrite(argv: Sequence[str], stdin: bytes, environ: Mapping[str, str], now: int,
                 cwd: str | None = None) -> Result:
    """git's ``post-rewrite <amend|rebase>`` with ``old new`` pairs on stdin; under
    pre-commit the command is in ``PRE_COMMIT_REWRITE_COMMAND`` and stdin is empty, so
    the pairs are recovered from git (``rewrite.follow``)."""
    from lets_hooks import rewrite

    result = Result()
    command = argv[0] if argv else environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
    try:
        repo, where, settings = _open(cwd, environ, result)
        if where.top is None or where.head is None:
            return result
        sid = settings.session_id(environ)
        for line in rewrite.follow(repo, where, command, stdin, sid, settings.merge_branch):
            result.say(line)
        if where.branch is None and command == "amend":
            # an amend on a detached HEAD (a fixup or an edit stop of a rebase): its pairs
            # are noted; the branch is judged when the rebase's own post-rewrite runs
            return result
        # no branch: ``rebase --apply`` runs this before it moves the branch
        branch = where.branch or rewrite.rebased_branch(repo, where)
        if branch is None:
            return result
        boundary = ladder.resolve(repo, settings, sid, now, branch=branch, head=where.head,
                                  where=where)
        _warn_rejected(boundary, sid, result, "post-rewrite")
        if boundary.mixed and boundary.reason is None:
            result.say(f"post-rewrite: branch {files.quoted(boundary.branch)}: commit "
                       f"{_short(boundary.mixed[0])} holds this session's work and another's "
                       f"(a squash, fixup, amend or reword of a commit the session did not "
                       f"make): {boundary.desc}")
    except Exception as exc:  # never break the rewrite
        result.say(f"post-rewrite: skipped ({reason(exc)})")
    return result


# -- pre-push ----------------------------------------------------------------------------

def pre_push(argv: Sequence[str], stdin: bytes, environ: Mapping[str, str], now: int,
             cwd: str | None = None) -> Result:
    """git's ``pre-push <remote> <url>`` with ``<local ref> <local sha> <remote ref>
    <remote sha>`` lines on stdin; under pre-commit only the first pushed branch, in
    ``PRE_COMMIT_LOCAL_BRANCH`` and ``PRE_COMMIT_TO_REF``."""
    result = Result()
    try:
        pushed = _pushed(stdin, environ)
        if not pushed:
            return result
        repo, where, settings = _open(cwd, environ, result)
        # each pushed branch at each sha once, however often git's lines name it
        pushed = list(dict.fromkeys(_as_branches(repo, where, pushed)))
        sid = settings.session_id(environ)
        strict = settings.pre_push_strict
        answers = _pushed_boundaries(repo, where, settings, sid, now, pushed)
        tops: dict[str, str] | None = None
        for (branch, _), boundary in zip(pushed, answers):
            if _said_on_trunk_before(boundary, branch, strict, where.git_dir, sid, now):
                continue
            first = ""  # the fix runs on the pushed branch: go there first
            if branch != where.branch and _warns(boundary):
                tops = repo.worktrees() if tops is None else tops
                first = ladder.advise_from(branch, tops)
            _warn_push(boundary, branch, first, strict, sid, result)
    except Exception as exc:  # never break the push over our own trouble
        result.say(f"pre-push: skipped ({reason(exc)})")
        return Result(0, result.messages)
    return result


def _pushed_boundaries(repo: Repo, where: Location, settings: Config, sid: str | None,
                       now: int, pushed: Sequence[tuple[str, str | None]]
                       ) -> list[ladder.Boundary]:
    """The ladder's answer for each pushed (branch, sha): for several, as ``status`` answers,
    on one ``BatchRepo`` with each work tree's state opened once."""
    if len(pushed) == 1 and pushed[0][0] == where.branch:
        branch, sha = pushed[0]
        return [ladder.resolve(repo, settings, sid, now, branch=branch,
                               head=sha or "refs/heads/" + branch, where=where)]
    from lets_hooks import status

    tops = repo.worktrees()
    stores: dict[str, state.Store] = {}
    places = [where if branch == where.branch
              else status.location_for(repo, where, branch, tops, stores)
              for branch, _ in pushed]
    if len(pushed) == 1:
        batch: Repo = repo
    else:
        remote_tips = repo.branches_and_remotes()[1]
        asked = [(sha or "refs/heads/" + branch, _recorded(repo, at, branch, stores))
                 for (branch, sha), at in zip(pushed, places)]
        merge = settings.merge_branch or where.origin_head
        batch = status.prefetched(repo, where, merge, asked, remote_tips)
    found = []
    for (branch, sha), at in zip(pushed, places):
        store = stores.get(at.top) if at.top is not None else None
        found.append(ladder.resolve(batch, settings, sid, now, branch=branch,
                                    head=sha or "refs/heads/" + branch, where=at,
                                    store=store))
    return found


def _recorded(repo: Repo, at: Location, branch: str, stores: dict[str, state.Store]
              ) -> str | None:
    """The boundary ``at``'s state records for ``branch`` (its store kept in ``stores``)."""
    if at.top is None:
        return None
    from lets_hooks import state

    store = stores.get(at.top)
    if store is None:
        store = stores[at.top] = state.open_store(at.top, repo)
    return state.read_recorded(store, branch).sha


def _branch_like(ref: str) -> bool:
    """A pushed ref a boundary can belong to: a branch (a tag or another ref is not)."""
    return ref.startswith("refs/heads/") or not ref.startswith("refs/")


def _pushed(stdin: bytes, environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """(branch, pushed sha) for each local branch pushed; deletions and tags skipped."""
    if stdin.strip():
        lines = [line.split() for line in stdin.decode("utf-8", "surrogateescape").split("\n")]
        return [(parts[0], parts[1]) for parts in lines if len(parts) == 4
                and parts[1] != NULL_SHA and files.is_sha(parts[1]) and _branch_like(parts[0])]
    local_ref = environ.get("PRE_COMMIT_LOCAL_BRANCH", "")
    if not local_ref or not _branch_like(local_ref):
        return []
    sha = environ.get("PRE_COMMIT_TO_REF", "")
    return [(local_ref, sha if files.is_sha(sha) and sha != NULL_SHA else None)]


def _as_branches(repo: Repo, where: Location, pushed: list[tuple[str, str | None]]
                 ) -> list[tuple[str, str | None]]:
    """Local refs as git reports them (``refs/heads/x``, or as typed: ``HEAD``, ``x``)
    turned into branch names; what names no local branch (``x~1``, a sha) is dropped."""
    found: list[tuple[str, str | None]] = []
    tips: dict[str, str] | None = None
    for ref, sha in pushed:
        name = branch_of(ref)
        if name is not None:
            found.append((name, sha))
        elif ref == "HEAD":
            if where.branch is not None and sha in (None, where.head):
                found.append((where.branch, sha))
        else:
            if tips is None:
                tips = dict(repo.branches())
            if ref in tips and sha in (None, tips[ref]):
                found.append((ref, sha))
    return found


TRUNK_NOTED = "lets-pre-push-noted"  # in the git directory: what was said on the trunk
TRUNK_NOTED_KEEP = 64


def _said_on_trunk_before(boundary: ladder.Boundary, branch: str, strict: bool,
                          git_dir: str, sid: str | None, now: float) -> bool:
    """On the merge branch itself (a trunk-only repository) nothing is recorded, so every
    push would warn again: the warning is said once per session (per day with no session
    id), noted in the git directory. A strict block is never skipped."""
    if branch != boundary.merge_branch or boundary.trust != ladder.NONE or (
            strict and boundary.reason is not None):
        return False
    key = sid if sid else "day " + time.strftime("%Y-%m-%d", time.gmtime(now))
    entry = f"{branch}\t{key}".encode("utf-8", "surrogateescape")
    path = os.path.join(git_dir, TRUNK_NOTED)
    data, _ = files.read_capped(path, 64 * 1024)
    held = data.split(b"\n") if data else []
    if entry in held:
        return True
    kept = [line for line in held if line][-(TRUNK_NOTED_KEEP - 1):]
    try:
        files.atomic_write(path, b"\n".join([*kept, entry]) + b"\n", keep_mode=False)
    except (OSError, files.Refused):
        return False  # cannot remember it: said again next time, as before
    return False


def _warns(boundary: ladder.Boundary) -> bool:
    """Does pre-push warn about this answer (``_warn_push``)?"""
    return boundary.reason is not None or boundary.trust in (ladder.ESTIMATE, ladder.NONE)


def _warn_push(boundary: ladder.Boundary, branch: str, first: str, strict: bool,
               sid: str | None, result: Result) -> None:
    fix = _fix(boundary, first + FIX, sid)
    if boundary.reason is not None:
        if strict:
            result.code = 1
        verdict = "push blocked (pre_push.strict)" if strict else "pushed anyway"
        result.say(f"pre-push: branch {files.quoted(branch)}: recorded session boundary "
                   f"{_short(boundary.recorded)} rejected: {boundary.reason}; {verdict}. "
                   f"Fix: {fix}")
    elif boundary.trust == ladder.ESTIMATE:
        said = files.show(boundary.refused) if boundary.refused else "no session boundary recorded"
        result.say(f"pre-push: branch {files.quoted(branch)}: {said}; "
                   f"the range is only estimated from the branch point off {boundary.merge_branch} "
                   f"({boundary.commits} commits). Fix: {fix}")
    elif boundary.trust == ladder.NONE:
        result.say(f"pre-push: branch {files.quoted(branch)}: no usable session boundary: "
                   f"{_why_none(boundary)}. Fix: {fix}")


def _why_none(boundary: ladder.Boundary) -> str:
    """Why there is no boundary, in the words of the ladder's most specific note."""
    generic = "no usable session boundary"
    specific = [n for n in boundary.notes if not n.startswith(generic)]
    if specific:
        return specific[-1]
    if boundary.branch == boundary.merge_branch:
        return "nothing is recorded, and the merge branch has no branch point to estimate from"
    return "nothing is recorded"


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "none"


MOVED = ("not an ancestor", "older than this branch")  # history moved under the line


def _fix(boundary: ladder.Boundary, fix: str, sid: str | None) -> str:
    """The fix to name: with no usable session id, to set one first. After history moved
    under the line, or where an estimated range holds commits, recording at HEAD would
    leave out commits that may be the session's: ``--at`` the commit its work starts after.
    Where a record would be refused (the task file refused, or shared with another
    branch), what to do first."""
    from lets_hooks import state

    moved = boundary.reason is not None and boundary.reason.startswith(MOVED)
    if moved or (boundary.trust == ladder.ESTIMATE and boundary.commits):
        fix = (f"{fix} --at REV, REV being the commit the session's work starts after "
               f"({FIX} alone starts the session anew at HEAD)")
    if boundary.refused:  # the record would be refused too
        fix = f"move what was refused out of the way, then: {fix}"
    elif boundary.sharing():
        names = ", ".join(map(files.quoted, [boundary.branch or "", *boundary.sharing()]))
        fix = f"rename one of the branches {names} (they share a task file), then: {fix}"
    if not sid or state.sid_problem(sid) is not None:
        return f"set LETS_SESSION_ID to the session's id (a UUID), then: {fix}"
    return fix
