"""Everyday team workflows, with the truth built in (see ``workflows``): after every step,
``lets-session-boundary`` in the work tree the session works in either answers ``exact``
with exactly the session's commits on HEAD counted, or degrades and says why in a NOTE.

Which answers must be ``exact``: SPEC section 3 defines the session's work as the commits
this session made and says the product keeps a witness of them; section 4 says a branch
carries the session's boundary wherever the session takes it and post-rewrite keeps the
range exact. So once the session has touched the branch it works on, every answer in these
workflows is knowable, and the step is checked with ``exact``: the test ids start with
``exact-``. The ids that start with ``may-degrade-`` hold a step where the SPEC leaves room
(no witness can be had; commits made on a detached HEAD that no branch line covered; in a
second work tree, commits the first one made: SPEC section 3 counts what the session made
"in this work tree", so the second cannot vouch for them); there the invariant is checked
(a NOTE, never a wrong ``exact``), and the count where the workflow says what it must be.

Every workflow runs under the plain shims; a sample of them runs under pre-commit too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hookbox import TOOLS_NEED_GIT_2_31
from precommit_box import hook_repo, pre_commit_home
from workflows import MARK, MIXED, PLAIN, PRE_COMMIT, Answer, World


def exact(w: World, cwd: Path | None = None) -> Answer:
    """The invariant, and the answer is knowable here: ``exact``."""
    return w.check(True, cwd)


def honest(w: World, cwd: Path | None = None) -> Answer:
    """The invariant only: ``exact`` and right, or degraded with a NOTE."""
    return w.check(False, cwd)


def words(got: Answer) -> str:
    """The description's parentheses."""
    return got.desc[got.desc.index("(") + 1:got.desc.rindex(")")]


def topic(w: World, name: str = "feat", commits: int = 1, push: bool = False) -> list[str]:
    """The session starts on main and makes ``name`` with ``commits`` commits."""
    w.start("main")
    exact(w)
    w.git("switch", "-q", "-c", name)
    exact(w)
    made = []
    for _ in range(commits):
        made.append(w.commit())
        exact(w)
    if push:
        w.push()
        exact(w)
    return made


# -- pulls, each form, on a topic and on main ---------------------------------------------

def pull_ff_only_on_topic(w: World) -> None:
    """A teammate pushes to your topic; ``git pull --ff-only`` brings their commits in."""
    topic(w, commits=1, push=True)
    w.mate_push("feat", 2)
    exact(w)
    w.pull("ff-only")
    got = exact(w)
    assert words(got) == "1 commits, not counting 2 from elsewhere", got.desc
    assert any("not made by this session" in n for n in got.notes), got.notes
    w.commit()
    got = exact(w)
    assert words(got) == "2 commits, not counting 2 from elsewhere", got.desc


def pull_merge_on_topic(w: World) -> None:
    """Both sides moved; ``git pull`` merges (the merge commit is the session's)."""
    topic(w, commits=1, push=True)
    w.mate_push("feat", 1)
    w.commit()
    exact(w)
    w.pull("merge")
    got = exact(w)
    assert words(got) == "3 commits, not counting 1 from elsewhere", got.desc


def pull_rebase_on_topic(w: World) -> None:
    """You pushed c1, a teammate built t1 on it, you made c2 and ``git pull --rebase``:
    git replays only c2; c1 is still the session's."""
    topic(w, commits=1, push=True)
    w.mate_push("feat", 1)
    w.commit()
    exact(w)
    w.pull("rebase")
    got = exact(w)
    assert words(got) == "2 commits, not counting 1 from elsewhere", got.desc


def pull_on_main_without_commits(form: str) -> Callable[[World], None]:
    def run(w: World) -> None:
        """A session on main that has made no commit pulls the teammate's two."""
        w.start("main")
        exact(w)
        w.mate_push("main", 2)
        w.pull(form)
        got = exact(w)
        assert words(got) == "0 commits, not counting 2 from elsewhere", got.desc
        w.commit()
        got = exact(w)
        assert got.commits == 1, got.desc
    run.__name__ = f"pull_{form.replace('-', '_')}_on_main_without_commits"
    return run


def pull_merge_on_main(w: World) -> None:
    """A session on main itself commits, the teammate pushes to main, ``git pull`` merges."""
    w.start("main")
    exact(w)
    w.commit()
    exact(w)
    w.mate_push("main", 2)
    w.pull("merge")
    got = exact(w)
    assert got.commits == 2, got.desc  # the commit and the merge commit


def pull_rebase_on_main(w: World) -> None:
    """A session on main commits, the teammate pushes to main, ``git pull --rebase``:
    every commit of the session is replayed, so the boundary moves to the teammate's tip."""
    w.start("main")
    exact(w)
    w.commit()
    w.commit()
    exact(w)
    theirs = w.mate_push("main", 2)
    w.pull("rebase")
    got = exact(w)
    assert got.commits == 2 and got.boundary == theirs[-1], got.desc


def pull_rebase_on_main_after_pushing_part(w: World) -> None:
    """The same with the first commit pushed before the teammate built on it: only the
    second is replayed, so the boundary stays where the session began."""
    w.start("main")
    began = w.rev("HEAD")
    exact(w)
    w.commit()
    w.push()
    w.commit()
    w.mate_push("main", 1)
    w.pull("rebase")
    got = exact(w)
    assert got.commits == 2 and got.boundary == began, got.desc


# -- merges and rebases -------------------------------------------------------------------

def rebase_after_push_then_pull_rebase(w: World) -> None:
    """You pushed c1, main moved, you ``git rebase origin/main``, then ``git pull
    --rebase`` (instead of a forced push): git keeps the pushed c1, drops its copy and
    replays main's commit on top of it. c1 is the session's; the copy of main's commit is
    not (found by the generated days)."""
    topic(w, commits=1, push=True)
    w.mate_push("main", 1)
    w.git("fetch", "-q", "origin")
    w.git("rebase", "-q", "origin/main")
    exact(w)
    w.pull("rebase")
    got = exact(w)
    assert words(got) == "1 commits, not counting 1 from elsewhere", got.desc


def squash_after_push_then_pull_rebase(w: World) -> None:
    """You pushed c1, squashed a fixup into it (``commit --fixup``, ``rebase -i
    --autosquash``), then ``git pull --rebase``: git keeps the pushed c1 and replays the
    squash on top of it. Both are the session's: the boundary must not move up onto the
    pushed c1, one of the squash's two originals (found by the generated days)."""
    (c1,) = topic(w, commits=1, push=True)
    label = w._file(w.me, "f")
    w.git("add", "--", f"{label}.txt")
    w.git("commit", "-q", f"--fixup={c1}")
    w.git("-c", "sequence.editor=true", "rebase", "-q", "-i", "--autosquash", f"{c1}~1")
    got = exact(w)
    assert got.commits == 1, got.desc
    w.pull("rebase")
    got = exact(w)
    assert got.commits == 2, got.desc


def pushed_then_dropped_then_pull_rebase(w: World) -> None:
    """You pushed c1, dropped it here (``reset --hard HEAD~1``), made c2, then ``git pull
    --rebase``: git brings c1 back from the upstream and replays c2 on it. Both are the
    session's (its ledger says it made c1): the boundary must not move up onto c1, where
    the ladder would then reject it as too high."""
    topic(w, commits=1, push=True)
    w.git("reset", "-q", "--hard", "HEAD~1")
    w.commit()
    exact(w)
    w.pull("rebase")
    got = exact(w)
    assert got.commits == 2, got.desc


def merge_teammates_branch(w: World) -> None:
    """A true merge of a teammate's branch ``lib``: only the merge commit is the session's."""
    topic(w, commits=1)
    w.mate_push("lib", 2, base="origin/main")
    w.git("fetch", "-q", "origin")
    exact(w)
    w.merge("origin/lib")
    got = exact(w)
    assert words(got) == "2 commits, not counting 2 from elsewhere", got.desc
    w.commit()
    exact(w)


def merge_main_and_teammates_branch(w: World) -> None:
    """Main merged in and a teammate's branch merged in: both kinds of commit the session
    did not make are left out, each said in the description."""
    topic(w, commits=1)
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    got = exact(w)
    assert words(got) == "2 commits, not counting 1 already on main", got.desc
    w.mate_push("lib", 2, base="origin/main")
    w.git("fetch", "-q", "origin")
    w.merge("origin/lib")
    got = exact(w)
    assert words(got) == ("3 commits, not counting 1 already on main and 2 from elsewhere"
                          ), got.desc


def cherry_pick_and_revert(w: World) -> None:
    """A cherry-pick of a teammate's commit and a revert are commits the session makes
    (SPEC section 3): both count (their messages are edited, so they carry the mark)."""
    topic(w, commits=2)
    w.mate_push("lib", 2, base="origin/main")
    w.git("fetch", "-q", "origin")
    w.git("cherry-pick", "--edit", "origin/lib~1")
    got = exact(w)
    assert words(got) == "3 commits", got.desc
    w.git("revert", "--edit", "HEAD~1")
    got = exact(w)
    assert words(got) == "4 commits", got.desc
    w.git("commit", "-q", "--amend", "-m", f"{MARK} the revert, reworded")
    got = exact(w)
    assert words(got) == "4 commits", got.desc


def pull_rebase_drops_a_change_a_teammate_pushed_too(w: World) -> None:
    """The session makes a change a teammate pushed too (theirs with more in it): ``git
    pull --rebase`` drops the session's commit, now empty, and git lists it as rewritten
    into the teammate's commit, which is not the session's copy for that."""
    topic(w, commits=1, push=True)
    w.mgit("fetch", "-q", "origin")
    w.mgit("checkout", "-q", "-B", "feat", "origin/feat")
    for where in (w.mate, w.me):
        (where / "same.txt").write_text("the same change\n")
    (w.mate / "more.txt").write_text("and more\n")
    w.mgit("add", "same.txt", "more.txt")
    w.mgit("commit", "-q", "-m", "the same change, and more")
    w.mgit("push", "-q", "origin", "feat")
    w.git("add", "same.txt")
    w.git("commit", "-q", "-m", f"{MARK} the same change")
    exact(w)
    w.pull("rebase")
    got = exact(w)
    assert words(got) == "1 commits, not counting 1 from elsewhere", got.desc


def rebase_drops_a_teammates_commit_the_session_squashed_in(w: World) -> None:
    """``git merge --squash`` of a teammate's branch, then a merge of it; ``git rebase``
    flattens the merge and drops the teammate's commit, empty on the squash, which git
    kept as it was and lists as its image: the squash stays the session's alone."""
    topic(w, commits=1)
    w.mate_push("lib", 1, base="origin/main")
    w.git("fetch", "-q", "origin")
    w.git("merge", "-q", "--squash", "origin/lib")
    w.git("commit", "-q", "-m", f"{MARK} lib, squashed")
    w.merge("origin/lib")
    exact(w)
    w.git("rebase", "-q", "origin/main")
    got = exact(w)
    assert words(got) == "2 commits", got.desc


def pull_main_then_rebase_on_stale_main(w: World) -> None:
    """``git pull origin main`` into the topic, then ``git rebase main`` with a stale local
    main: main's commit is copied between the session's; the copy is not the session's."""
    topic(w, commits=1)
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    exact(w)
    w.commit()
    exact(w)
    w.git("rebase", "-q", "main")
    got = exact(w)
    assert got.commits == 2, got.desc


def merge_main_then_rebase_after_main_caught_up(w: World) -> None:
    """Main merged into the topic, local main catches up, ``git rebase main``: onto is the
    merge's second parent."""
    topic(w, commits=1)
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    exact(w)
    w.commit()
    exact(w)
    w.git("fetch", "-q", "origin", "main:main")
    exact(w)
    w.git("rebase", "-q", "main")
    got = exact(w)
    assert got.commits == 2, got.desc


def rebase_merges_onto_origin_main(w: World) -> None:
    """Main merged into the topic, main moves again, ``git rebase --rebase-merges
    origin/main``."""
    topic(w, commits=1)
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    w.commit()
    exact(w)
    w.mate_push("main", 1)
    w.git("fetch", "-q", "origin")
    exact(w)
    w.git("rebase", "-q", "--rebase-merges", "origin/main")
    exact(w)
    w.commit()
    exact(w)


# -- new branches, renames, worktrees -----------------------------------------------------

def new_branch(how: str) -> Callable[[World], None]:
    def run(w: World) -> None:
        """The session committed on ``feat``, then takes its work to a new branch."""
        made = topic(w, commits=2)
        cwd = None
        # In a second work tree, the first tree's commits are not this tree's to vouch for
        # (SPEC section 3: the commits this session made "in this work tree"): the count
        # must hold, the trust may degrade with a NOTE.
        check = honest if how == "worktree add -b" else exact
        if how == "worktree add -b":
            cwd = w.root / "wt"
            w.git("worktree", "add", "-q", "-b", "feat2", str(cwd))
        elif how == "checkout -B existing":
            w.git("branch", "feat2", "main")  # an old branch of that name, reset by -B
            w.git("checkout", "-q", "-B", "feat2")
        else:
            w.git(*how.split(), "feat2")
        got = check(w, cwd)
        assert got.commits == 2 and got.boundary == w.rev("main"), got.desc
        made.append(w.commit(cwd))
        got = check(w, cwd)
        assert got.commits == 3, got.desc
    run.__name__ = "new_branch_" + how.replace(" -", "_").replace(" ", "_").replace("-", "_")
    return run


def detached_commits_then_rescue(w: World) -> None:
    """Commits on a detached HEAD (left from the session's branch), then ``switch -c``."""
    topic(w, commits=1)
    w.git("checkout", "-q", "--detach")
    honest(w)
    w.commit()
    w.commit()
    honest(w)
    w.git("switch", "-q", "-c", "rescue")
    got = exact(w)
    assert got.commits == 3, got.desc


def detached_from_origin_main_then_rescue(w: World) -> None:
    """A session that starts on a detached HEAD (no branch line anywhere), commits, then
    ``switch -c``: the SPEC gives no line to carry, so only the invariant is held."""
    w.git("fetch", "-q", "origin")
    w.git("checkout", "-q", "--detach", "origin/main")
    honest(w)
    w.commit()
    w.commit()
    w.git("switch", "-q", "-c", "rescue")
    honest(w)
    w.commit()
    honest(w)


def committed_on_main_by_mistake_switch_c(w: World) -> None:
    """Commits made on main by mistake, moved: ``switch -c feat``, main reset to origin."""
    w.start("main")
    w.commit()
    w.commit()
    exact(w)
    w.git("switch", "-q", "-c", "feat")
    exact(w)
    w.git("branch", "-f", "main", "origin/main")
    got = exact(w)
    assert got.commits == 2, got.desc
    w.commit()
    exact(w)


def committed_on_main_by_mistake_branch_reset_switch(w: World) -> None:
    """Commits made on main by mistake, moved the other common way: ``git branch feat``,
    ``git reset --hard origin/main``, ``git switch feat``."""
    w.start("main")
    w.commit()
    w.commit()
    exact(w)
    w.git("branch", "feat")
    w.git("reset", "-q", "--hard", "origin/main")
    exact(w)
    w.git("switch", "-q", "feat")
    got = exact(w)
    assert got.commits == 2, got.desc
    w.commit()
    exact(w)


def rename_branch(w: World) -> None:
    """``git branch -m`` (no hook runs), on the branch and then away and back."""
    topic(w, commits=2)
    w.git("branch", "-m", "feat-renamed")
    got = exact(w)
    assert got.commits == 2, got.desc
    w.commit()
    exact(w)
    w.git("switch", "-q", "main")
    w.git("branch", "-m", "feat-renamed", "feat-final")
    w.git("switch", "-q", "feat-final")
    got = exact(w)
    assert got.commits == 3, got.desc


def existing_branch_first_touched_in_second_worktree(w: World) -> None:
    """The session committed on ``feat``, leaves it, and carries on in ``git worktree add
    wt feat``: the line comes along and the count holds; the first tree's commits are not
    the second tree's to vouch for, so the trust may degrade (with a NOTE)."""
    topic(w, commits=2)
    w.git("switch", "-q", "main")
    wt = w.root / "wt"
    w.git("worktree", "add", "-q", str(wt), "feat")
    got = honest(w, wt)
    assert got.commits == 2, got.desc
    w.commit(wt)
    got = honest(w, wt)
    assert got.commits == 3, got.desc
    exact(w)  # the first work tree, on main, is still exact


def teammates_branch_checked_out(w: World) -> None:
    """A teammate's pushed branch, checked out (``git switch feat`` makes it from
    origin/feat): their commits are below the boundary; the session adds two."""
    w.mate_push("feat", 2, base="origin/main")
    w.git("fetch", "-q", "origin")
    w.start("main")
    w.git("switch", "-q", "feat")
    got = exact(w)
    assert got.commits == 0, got.desc
    w.commit()
    w.commit()
    got = exact(w)
    assert words(got) == "2 commits", got.desc


def earlier_work_on_the_branch(w: World) -> None:
    """Commits from before the session on the branch (no session id), then the session
    touches the branch and works: only its own commits count."""
    w.earlier("switch", "-q", "-c", "feat")
    w.old_commit()
    w.old_commit()
    w.earlier("switch", "-q", "main")
    w.start("feat")
    got = exact(w)
    assert got.commits == 0, got.desc
    w.commit()
    exact(w)


# -- after the pull request is merged ------------------------------------------------------

def own_pr_merged_then_continue(w: World) -> None:
    """The topic is merged into main with ``--no-ff``, you go on committing, you pull main
    in, you push: the boundary is not rejected and strict pre-push does not block."""
    w.config("[pre_push]\nstrict = true\n")
    topic(w, commits=2, push=True)
    w.mate_merge_pr("feat")
    w.git("fetch", "-q", "origin")
    exact(w)
    w.commit()
    w.commit()
    got = exact(w)
    assert words(got) == "4 commits", got.desc
    done = w.push()
    assert "rejected" not in done.stderr and "estimate" not in done.stderr, done.stderr
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    got = exact(w)
    assert got.commits == 5, got.desc
    done = w.push()
    assert "rejected" not in done.stderr, done.stderr


def _own_pr_merged_degraded(w: World) -> Answer:
    """Not exact before; the topic pushed, its pull request merged and fetched: still
    the session's two commits, and still not exact."""
    assert honest(w).trust != "exact"
    w.push()
    w.mate_merge_pr("feat")
    w.git("fetch", "-q", "origin")
    got = honest(w)
    assert got.trust != "exact" and got.commits == 2, got.desc
    return got


def amended_by_a_person_then_own_pr_merged(w: World) -> None:
    """A person at a second terminal (no session) amends the session's newest commit; the
    topic's pull request is merged and fetched. The amended commit holds the session's
    work and the person's: reaching main through the pull request does not make it main's
    work, so the answer stays approximate and names it."""
    topic(w, commits=2)
    (w.me / "by-hand.txt").write_text("a person's change\n")
    w.earlier("add", "by-hand.txt")
    w.earlier("commit", "-q", "--amend", "-m", f"{MIXED} the session's, amended by hand")
    got = _own_pr_merged_degraded(w)
    assert any("holds this session's work and another's" in n for n in got.notes), got.notes


def unvouched_commit_then_own_pr_merged(w: World) -> None:
    """The session's second commit is made while the post-commit hook is missing (not
    vouched for); the topic's pull request is merged and fetched. That commit is on the
    topic's own line, the topic's work, whatever main reaches: still counted, and never
    ``exact``."""
    topic(w, commits=1)
    hook = w.me / ".git" / "hooks" / "post-commit"
    saved = hook.read_bytes()
    hook.unlink()
    w.commit()
    hook.write_bytes(saved)
    hook.chmod(0o755)
    _own_pr_merged_degraded(w)


def own_pr_merged_then_pull_ff(w: World) -> None:
    """The topic is merged into main; ``git pull --ff-only origin main`` moves the topic to
    the merge: the session's commits reached main through its own pull request."""
    topic(w, commits=2, push=True)
    w.mate_merge_pr("feat")
    w.pull("ff-only", "origin", "main")
    got = exact(w)
    assert got.commits == 2, got.desc
    w.commit()
    got = exact(w)
    assert got.commits == 3, got.desc


def new_branch_from_origin_main_after_pr_merged(w: World) -> None:
    """The pull request merged, the session starts its next branch from the fetched main
    (``git switch -c next origin/main``). The session's merged commits are on HEAD, and
    SPEC section 4 says a boundary is never placed above a commit the session made: main
    itself, pulled, counts them (the same commits, the same HEAD), so ``next`` must too."""
    topic(w, commits=2, push=True)
    w.mate_merge_pr("feat")
    w.git("fetch", "-q", "origin")
    w.git("switch", "-q", "-c", "next", "origin/main")
    got = exact(w)
    assert got.commits == 2, got.desc
    w.commit()
    got = exact(w)
    assert got.commits == 3, got.desc
    w.git("switch", "-q", "main")
    w.pull("ff-only")
    got = exact(w)
    assert got.commits == 2, got.desc


def regression_local_main_ahead(w: World) -> None:
    """A session started on main at m2, committed on local main, branched, committed
    twice: exact 2 from m2 (SPEC section 3: the fork point is taken off origin/main, and the
    range is the branch's: the commit on main's own line is main's work, not counted)."""
    start = w.rev("HEAD")
    w.start("main")
    w.commit()
    w.git("switch", "-q", "-c", "topic")
    w.commit()
    w.commit()
    got = exact(w)
    assert got.boundary == start and got.commits == 2, got.desc
    assert "not counting 1 already on main" in got.desc, got.desc


def no_witness(w: World) -> None:
    """No reflog and ``core.logAllRefUpdates=false``: post-commit cannot tell a commit
    from an amend (``ledger.made_kind``), so the session's commit is written as an amend,
    vouched for only by a rewrite pair that never comes: counted, never ``exact``, and the
    NOTE says why. A teammate's commit pulled in has no evidence at all (that a
    remote-tracking ref reaches it says nothing of who made it): counted, never ``exact``.
    With the ledger gone too nothing can vouch for the session's commits either. (On
    reftable git goes on logging HEAD, so the witness stays: only honesty is checked.)"""
    w.git("config", "core.logAllRefUpdates", "false")
    shutil.rmtree(w.me / ".git" / "logs", ignore_errors=True)
    logged = (w.me / ".git" / "reftable").is_dir()
    w.start("main")
    w.git("switch", "-q", "-c", "feat")
    honest(w)
    w.commit()
    got = honest(w)
    assert (got.trust, got.commits) == ("exact", 1) if logged else \
        got.trust != "exact" and got.commits == 1, got.data
    assert logged or "could not tell a commit from an amend" in str(got.data["notes"]), \
        got.data
    w.mate_push("feat", 1, base="origin/main")
    w.pull("merge", "origin", "feat")
    got = honest(w)
    assert logged or got.trust != "exact", got.data
    (w.me / ".git" / "lets-hooks" / "ledger").unlink()
    got = honest(w)
    assert got.trust != "exact", got.data


def session_commits_on_main_then_rebases_topic(w: World) -> None:
    """The range is the branch's (SPEC section 3): the session commits on its topic, then
    on ``main``, switches back and runs ``git rebase main``. post-rewrite puts the boundary
    at ``onto``; main's commit is main's work, so the topic's two are exactly counted."""
    topic(w, commits=2)
    w.git("switch", "-q", "main")
    w.commit()
    exact(w)
    w.git("switch", "-q", "feat")
    exact(w)
    w.git("rebase", "-q", "main")
    got = exact(w)
    assert got.commits == 2 and got.boundary == w.rev("main"), got.desc
    w.commit()
    got = exact(w)
    assert got.commits == 3, got.desc


def hooks_installed_midway(w: World) -> None:
    """The post-commit hook is missing at first (hooks added later, a route without that
    stage): the session's first two commits, pushed, are counted and not vouched for
    (never "from elsewhere": a remote-tracking ref reaching them says nothing). The hooks
    come back; the advice, followed, vouches for the two, and the answer is a true
    ``exact``."""
    hook = w.me / ".git" / "hooks" / "post-commit"
    saved = hook.read_bytes()
    hook.unlink()
    topic(w, commits=0)
    w.commit()
    w.commit()
    got = honest(w)
    assert got.trust != "exact" and got.commits == 2, got.desc
    w.push()
    got = honest(w)
    assert got.trust != "exact" and got.commits == 2, got.desc
    hook.write_bytes(saved)
    hook.chmod(0o755)
    w.commit()
    honest(w)
    followed = w.follow_advice()
    assert followed is not None and followed.trust == "exact" and followed.commits == 3, \
        followed


EXACT: list[Callable[[World], None]] = [
    pull_ff_only_on_topic, pull_merge_on_topic, pull_rebase_on_topic,
    pull_on_main_without_commits("ff-only"), pull_on_main_without_commits("merge"),
    pull_on_main_without_commits("rebase"), pull_merge_on_main, pull_rebase_on_main,
    pull_rebase_on_main_after_pushing_part,
    rebase_after_push_then_pull_rebase, squash_after_push_then_pull_rebase,
    pushed_then_dropped_then_pull_rebase, merge_teammates_branch,
    merge_main_and_teammates_branch, cherry_pick_and_revert,
    pull_main_then_rebase_on_stale_main, pull_rebase_drops_a_change_a_teammate_pushed_too,
    rebase_drops_a_teammates_commit_the_session_squashed_in,
    merge_main_then_rebase_after_main_caught_up, rebase_merges_onto_origin_main,
    new_branch("switch -c"), new_branch("checkout -b"), new_branch("checkout -B"),
    new_branch("checkout -B existing"), detached_commits_then_rescue,
    committed_on_main_by_mistake_switch_c, committed_on_main_by_mistake_branch_reset_switch,
    rename_branch, teammates_branch_checked_out,
    earlier_work_on_the_branch, own_pr_merged_then_continue, own_pr_merged_then_pull_ff,
    new_branch_from_origin_main_after_pr_merged, regression_local_main_ahead,
    session_commits_on_main_then_rebases_topic,
]
MAY_DEGRADE: list[Callable[[World], None]] = [
    new_branch("worktree add -b"), existing_branch_first_touched_in_second_worktree,
    detached_from_origin_main_then_rescue, no_witness, hooks_installed_midway,
    amended_by_a_person_then_own_pr_merged, unvouched_commit_then_own_pr_merged,
]
WORKFLOWS = {f"exact-{fn.__name__}": fn for fn in EXACT}
WORKFLOWS.update({f"may-degrade-{fn.__name__}": fn for fn in MAY_DEGRADE})
# Under pre-commit the hooks get no stdin (post-rewrite recovers the pairs from git) and
# pre-push sees one branch: the sample has a rewrite of each kind, a carried branch and a
# push.
SAMPLE = ["exact-pull_rebase_on_topic", "exact-rebase_merges_onto_origin_main",
          "exact-new_branch_switch_c", "exact-own_pr_merged_then_continue",
          "exact-session_commits_on_main_then_rebases_topic",
          "may-degrade-hooks_installed_midway"]


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_workflow(name: str, tmp_path: Path) -> None:
    world = World(tmp_path / "w", PLAIN).build()
    WORKFLOWS[name](world)
    world.follow_advice()  # whatever the answer advises, followed, keeps it honest


@TOOLS_NEED_GIT_2_31
@pytest.mark.parametrize("name", SAMPLE)
def test_workflow_under_pre_commit(name: str, tmp_path: Path,
                                   tmp_path_factory: pytest.TempPathFactory,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home(tmp_path_factory)))
    world = World(tmp_path / "w", PRE_COMMIT, hook_repo(tmp_path_factory)).build()
    assert "pre-commit" in (world.me / ".git" / "hooks" / "post-checkout").read_text()
    WORKFLOWS[name](world)


def test_the_truth_is_read_off_git(tmp_path: Path) -> None:
    """The ground truth itself: marked commits are the session's, copies keep the mark,
    the teammate's commits and copies of them never carry it."""
    w = World(tmp_path / "w").build()
    w.start("main")
    w.git("switch", "-q", "-c", "feat")
    mine = w.commit()
    w.mate_push("main", 1)
    w.git("fetch", "-q", "origin")
    theirs = w.rev("origin/main")
    assert w.marked() == {mine}
    w.git("rebase", "-q", "origin/main")
    copy = w.rev("HEAD")
    assert copy != mine and w.marked() == {copy}
    assert MARK not in w.read("log", "-1", "--format=%s", theirs)
    w.pull("merge", "origin", "main")  # already up to date: no commit
    w.mate_push("main", 1)
    w.pull("merge", "origin", "main")
    merge = w.rev("HEAD")
    assert w.read("log", "-1", "--format=%s", merge).startswith(MARK)
    assert w.marked() == {copy, merge}


def test_strict_pre_push_blocks_a_rejected_boundary(tmp_path: Path) -> None:
    """The strict pre-push the PR workflow relies on does block where it should (so its
    passing there means something): a boundary that is not on HEAD is rejected."""
    w = World(tmp_path / "w").build()
    w.config("[pre_push]\nstrict = true\n")
    topic(w, commits=1)
    elsewhere = w.mate_push("main", 1)[0]
    w.git("fetch", "-q", "origin")
    task = w.me / ".lets" / "sessions" / ".task-feat"
    text = task.read_text()
    line = next(x for x in text.splitlines() if x.startswith("session: "))
    task.write_text(text.replace(line, f"session: {elsewhere} {line.split()[2]}"))
    done = w.push(check=False)
    assert done.returncode != 0 and "feat" in done.stderr, done.stderr
