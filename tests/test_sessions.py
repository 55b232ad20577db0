"""Two sessions meet: workflows with the truth built in (issue: the session ledger).

Every commit's message names who made it (``by: A``; an amend of B's commit by A says
``by: B+A``). After every step the contract is checked against that truth: trust
``exact`` implies the counted commits (``--json``'s ``session_commits``) are exactly the
commits on HEAD that this session alone made, and no commit on HEAD mixes its work with
another's. Each scenario also says what the answer should be where the rules decide it.
Everything runs as a person runs it: real git commands with the plain shims installed,
sessions told apart only by ``LETS_SESSION_ID`` in their environment, a teammate's
clone and a bare remote.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import BIN
from hookbox import git_version
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from precommit_box import CONFIG, HOOK_TYPES

MORE_EXAMPLES = 6
# an agent's commands reach the hooks folder through GIT_CONFIG_COUNT, which git reads from
# 2.31 (docs/agents.md): before it, they are written only where git's own hooks run
AGENT_HOOKS = git_version() >= (2, 31)
IDS = {"A": "aaaaaaaa-1111-2222-3333-444444444444", "B": "bbbbbbbb-1111-2222-3333-444444444444"}


# The routes a user installs the hooks by (docs/hook-managers.md): the plain shims
# ("shims"); the README's pre-commit setup ("pre-commit": pre-commit's own script, the six
# hooks as shims beside it); pre-commit running every lets-hooks id ("pre-commit-ids");
# husky 9's lines ("husky"); lefthook's entries ("lefthook"). The files a route lays out
# are committed, as a team does.
ROUTE_FILES = (".pre-commit-config.yaml", "package.json", "package-lock.json", ".gitignore",
               ".husky", "lefthook.yml")


def hook_types(*names: str) -> list[str]:
    """pre-commit's ``--hook-type`` options for ``names``."""
    return [option for name in names for option in ("--hook-type", name)]


@dataclass
class Route:
    """How the hooks are installed: ``name``, a route above; ``tools``, the node_modules holding
    husky and lefthook (husky, lefthook); ``hook_repo``, a repository of this checkout and
    a commit of it (the pre-commit routes, with PRE_COMMIT_HOME set); ``midway``: the day
    starts with no hooks, and the step ``person install`` installs them."""

    name: str = "shims"
    tools: Path | None = None
    hook_repo: tuple[Path, str] | None = None
    midway: bool = False


class World:
    """A repository with the hooks installed, a bare origin, and a teammate's clone."""

    def __init__(self, root: Path, route: Route | None = None) -> None:
        self.route = route or Route()
        self.root = root
        self.remote = root / "origin.git"
        self.work = root / "work"
        self.mate = root / "mate"
        self.count = 0
        self.known: dict[str, set[str]] = {}  # commits git made with its own message
        self.env_files: dict[str, Path] = {}  # a session started through its agent's hook
        self.tools: dict[str, str] = {}  # a Codex or Gemini session: each command through
        #                                  its agent's pre-tool hook
        # commits a session's answer may count or not, and whose they are: copies one
        # session made of another's commits (a copy is the copier's act; never counted for
        # the copier), and commits no hook saw (the shims removed, no agent route)
        self.either: dict[str, set[str]] = {}
        self.acted: set[str] = set()  # the sessions that ran a command
        self.unhooked = self.route.midway  # until ``person install``
        self.git("person", "init", "-q", "--bare", str(self.remote), cwd=root)
        self.git("person", "clone", "-q", str(self.remote), str(self.work), cwd=root)
        if not self.route.midway:
            self.install()
        self.commit("person", "root")
        self.git("person", "push", "-q", "origin", "HEAD:main")
        self.git("person", "clone", "-q", str(self.remote), str(self.mate), cwd=root)

    def install(self) -> None:
        """The hooks installed by the route, its files staged (the next commit takes them)."""
        name, tools = self.route.name, self.route.tools
        if name == "husky":
            assert tools is not None
            (self.work / "package.json").write_text(json.dumps({
                "name": "team-app", "private": True,
                "devDependencies": {"husky": f"file:{tools / 'husky'}"}}))
            (self.work / ".gitignore").write_text("node_modules/\n")
            self.must(self.run("person", ["npm", "install", "--no-audit", "--no-fund",
                                          "--offline", "--loglevel=error"]))
            self.must(self.run("person", ["npx", "--no-install", "husky", "init"]))
            (self.work / ".husky" / "pre-commit").write_text("true\n")
        elif name == "lefthook":
            from lets_hooks.install import lefthook_entries

            (self.work / "lefthook.yml").write_text(lefthook_entries())
            self.must(self.run("person", ["lefthook", "install"]))
        elif name.startswith("pre-commit"):
            assert self.route.hook_repo is not None
            repo, rev = self.route.hook_repo
            if name == "pre-commit":  # the README's block, as printed
                from precommit_box import readme_script

                script = readme_script().replace("/path/to/lets-hooks", str(repo))
                self.must(self.run("person", ["/bin/sh", "-ec", script]))
                self.git("person", "add", "--", *self.present())
                return
            (self.work / ".pre-commit-config.yaml").write_text(
                CONFIG.format(repo=repo, rev=rev))
            self.must(self.run("person", [
                "pre-commit", "install", "--allow-missing-config",
                *hook_types("pre-commit", *HOOK_TYPES)]))
        # the plain shims; beside pre-commit's scripts, post-applypatch; in husky's files,
        # its lines; beside lefthook, nothing (the entries are in lefthook.yml)
        done = self.lets("person", "lets-hooks", "install")
        assert done.returncode == (1 if name == "lefthook" else 0), (done.stdout, done.stderr)
        if self.present():
            self.git("person", "add", "--", *self.present())

    def present(self) -> list[str]:
        return [name for name in ROUTE_FILES if (self.work / name).exists()]

    def uninstall(self) -> None:
        """The hooks taken away as the route's user does: ``lets-hooks uninstall`` (and
        lefthook's or pre-commit's own uninstall where they run lets-hooks), the change to
        the route's files committed."""
        self.lets("person", "lets-hooks", "uninstall")
        if self.route.name == "lefthook":
            self.must(self.run("person", ["lefthook", "uninstall"]))
        elif self.route.name == "pre-commit-ids":
            self.must(self.run("person", ["pre-commit", "uninstall", *hook_types(*HOOK_TYPES)]))
        if self.present():
            self.git("person", "add", "-A", "--", *self.present())
            if self.run("person", ["git", "diff", "--cached", "--quiet"]).returncode:
                self.git("person", "commit", "-q", "-m", "hooks\n\nby: person")

    @staticmethod
    def must(done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode == 0, (done.args, done.stdout, done.stderr)

    def env(self, who: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                     "GEMINI_SESSION_ID", "GIT_DIR", "GIT_WORK_TREE", "LETS_MERGE_BRANCH"):
            env.pop(name, None)
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        if self.route.tools is not None:
            env["PATH"] = f"{self.route.tools / '.bin'}{os.pathsep}{env['PATH']}"
        if who in self.env_files:  # the agent's commands: its env file sourced first
            env["CLAUDE_ENV_FILE"] = str(self.env_files[who])
        elif self.tools.get(who) == "codex":  # Codex gives its commands the thread's id
            env["CODEX_THREAD_ID"] = IDS[who]
        elif who in self.tools:  # Gemini's shell: no id, git's hooks off (the last pair wins)
            env.update(GEMINI_CLI="1", GIT_CONFIG_COUNT="1",
                       GIT_CONFIG_KEY_0="core.hooksPath", GIT_CONFIG_VALUE_0="")
        elif who in IDS:
            env["LETS_SESSION_ID"] = IDS[who]
        env.update(GIT_EDITOR="true", GIT_MERGE_AUTOEDIT="no")
        env.update(extra or {})
        return env

    def git(self, who: str, *args: str, cwd: Path | None = None,
            extra: dict[str, str] | None = None, prefix: tuple[str, ...] = ()) -> str:
        done = self.run(who, [*prefix, "git", *args], cwd=cwd, extra=extra)
        assert done.returncode == 0, (who, args, done.stdout, done.stderr)
        return done.stdout.strip()

    def run(self, who: str, argv: list[str], cwd: Path | None = None,
            extra: dict[str, str] | None = None, stdin: str = ""
            ) -> subprocess.CompletedProcess[str]:
        """``argv`` as ``who`` runs it: an agent's command in a shell that sources the
        agent's env file first, as Claude Code runs each command."""
        if who in self.env_files:
            argv = ["sh", "-c", '. "$CLAUDE_ENV_FILE"; exec "$@"', "sh", *argv]
        elif who in self.tools:
            argv = ["sh", "-c", pre_tool(self, who, shlex.join(argv), cwd)]
        return subprocess.run(argv, cwd=cwd or self.work, env=self.env(who, extra),
                              input=stdin, capture_output=True, text=True, check=False,
                              timeout=120)

    def lets(self, who: str, command: str, *args: str, cwd: Path | None = None,
             stdin: str = "") -> subprocess.CompletedProcess[str]:
        return self.run(who, [str(BIN / command), *args], cwd=cwd, stdin=stdin)

    def commit(self, who: str, label: str, cwd: Path | None = None,
               prefix: tuple[str, ...] = (), extra: dict[str, str] | None = None) -> str:
        """A commit by ``who`` that changes a file of its own, marked with who made it."""
        self.count += 1
        where = cwd or self.work
        name = f"{label}-{self.count}.txt"
        (where / name).write_text(f"{label}\n")
        self.git(who, "add", "--", name, cwd=where)
        self.git(who, "commit", "-q", "-m", f"{label}\n\nby: {who}", cwd=where, prefix=prefix,
                 extra=extra)
        return self.git(who, "rev-parse", "HEAD", cwd=where)

    def answer(self, who: str, cwd: Path | None = None) -> dict[str, object]:
        done = self.lets(who, "lets-session-boundary", "--json", cwd=cwd)
        assert done.returncode == 0, done.stderr
        found: dict[str, object] = json.loads(done.stdout)
        found["stderr"] = done.stderr
        return found

    def makers(self, cwd: Path | None = None) -> dict[str, set[str]]:
        """Every commit on HEAD with who made it, read from the marks."""
        out = self.git("person", "log", "--format=%H%x00%B%x01", "HEAD", cwd=cwd)
        found: dict[str, set[str]] = {}
        for record in out.split("\x01"):
            sha, _, body = record.strip().partition("\x00")
            marks = [line[4:] for line in body.splitlines() if line.startswith("by: ")]
            found[sha] = set("+".join(marks).split("+")) if marks else \
                self.known.get(sha, {"?"})
        return found

    def check(self, who: str, cwd: Path | None = None) -> dict[str, object]:
        """The one invariant: exact means the counted set is the session's own work."""
        found = self.answer(who, cwd)
        if found["trust"] == "exact":
            made = self.makers(cwd)
            own = {sha for sha, by in made.items() if by == {who}}
            mixed = {sha for sha, by in made.items() if who in by and len(by) > 1}
            listed = found["session_commits"]
            assert isinstance(listed, dict)
            counted = set(listed["items"])
            either = {sha for sha, makers in self.either.items() if who in makers}
            assert not mixed - either, ("exact over a mixed commit", found)
            assert counted - either == own - either, (
                "exact with a count that is not the session's work",
                sorted(counted - own), sorted(own - counted), found)
            assert found["commits"] == len(counted), found
        return found


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def expect(found: dict[str, object], trust: str, commits: int | None = None,
           note: str | None = None) -> None:
    assert found["trust"] == trust, found
    if commits is not None:
        assert found["commits"] == commits, found
    if note is not None:
        assert note in str(found["stderr"]), found


# -- two sessions in one work tree --------------------------------------------------------

def test_a_merge_of_another_sessions_branch_counts_only_this_sessions_commits(world: World
                                                                               ) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.git("A", "switch", "-q", "main")
    world.git("B", "switch", "-q", "-c", "other")
    world.commit("B", "b1")
    world.commit("B", "b2")
    world.git("A", "switch", "-q", "feat")
    world.git("A", "merge", "-q", "--no-ff", "other", "-m", "merge other\n\nby: A")
    found = world.check("A")
    expect(found, "exact", 2)
    assert "not counting 2 from elsewhere" in str(found["desc"]), found
    expect(world.check("B", cwd=world.work), "prior-session")


def test_a_fast_forward_to_another_sessions_commits_is_not_this_sessions(world: World
                                                                          ) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.git("B", "switch", "-q", "-c", "other")
    world.commit("B", "b1")
    world.commit("B", "b2")
    world.git("A", "switch", "-q", "feat")
    world.git("A", "merge", "-q", "--ff-only", "other")
    found = world.check("A")
    expect(found, "exact", 1)


def test_a_person_at_a_second_terminal_is_not_the_agent(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.commit("person", "p1")  # no session id: a person typing beside the agent
    world.commit("A", "a2")
    world.commit("B", "own-id")  # a person with an id of their own
    expect(world.check("A"), "exact", 2)


def test_a_session_resumed_after_another_keeps_its_own_commits(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.commit("A", "a2")
    world.git("B", "switch", "-q", "main")
    world.git("B", "switch", "-q", "feat")  # B's first touch
    world.commit("B", "b1")
    world.git("A", "switch", "-q", "main")
    world.git("A", "switch", "-q", "feat")  # A resumes: its first touch again
    found = world.check("A")
    expect(found, "exact", 2)
    assert "not counting 1 from elsewhere" in str(found["desc"]), found


def test_a_session_resumed_through_the_agent_hook(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.lets("B", "lets-hooks", "record")
    world.commit("B", "b1")
    hook = json.dumps({"session_id": IDS["A"], "cwd": str(world.work), "source": "resume",
                       "hook_event_name": "SessionStart"})
    done = world.lets("A", "lets-session-start", "--claude-hook", stdin=hook)
    assert done.returncode == 0, done.stderr
    expect(world.check("A"), "exact", 1)


def test_record_after_another_session_keeps_this_sessions_commits(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.lets("B", "lets-hooks", "record")
    world.commit("B", "b1")
    done = world.lets("A", "lets-hooks", "record")
    assert done.returncode == 0, done.stderr
    expect(world.check("A"), "exact", 1)


def test_a_ledger_line_cut_short_by_a_crash_is_never_joined_onto(world: World) -> None:
    """A writer killed mid-line left the start of a line with no newline. The shim's shell
    appended the next commit's line onto it: one line no grammar reads, so the session's
    commit went unwritten, and a ``record`` then placed the boundary above it, ``exact``
    with 0 commits. Now the shell hands such a ledger over to lets-hooks, which ends the
    torn line first."""
    world.git("A", "switch", "-q", "-c", "feat")
    common = world.git("A", "rev-parse", "--git-common-dir")
    head = world.git("A", "rev-parse", "HEAD")
    with open(world.work / common / "lets-hooks" / "ledger", "ab") as torn:
        torn.write(f"c {head} {IDS['B'][:9]}".encode())
    world.commit("A", "a1")
    done = world.lets("A", "lets-hooks", "record")
    assert done.returncode == 0, done.stderr
    expect(world.check("A"), "exact", 1)


@pytest.mark.parametrize("how", ["soft", "hard", "own", "amend", "edited"])
def test_a_soft_reset_over_another_sessions_commit_then_a_commit_is_mixed(world: World,
                                                                          how: str) -> None:
    """``git reset --soft HEAD~1`` over B's commit, then ``git commit``: an amend by hand,
    the new commit holds B's work. It was written as made by A (HEAD's log shows a plain
    commit on top of where HEAD was), and A's answer was ``exact``, counting B's work as
    A's; B's was ``exact`` without it. Now a commit made right after a reset that kept the
    changes of the commits it took off copies them, as a squash does (and so does an
    amend made right after it). A hard reset keeps nothing, and a soft reset over the
    session's own commits squashes its own work."""
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "a1")
    world.commit("A" if how == "own" else "B", "b1")
    theirs = world.git("A", "show", "--name-only", "--format=", "HEAD")
    world.git("A", "reset", "-q", "--soft" if how != "hard" else "--hard", "HEAD~1")
    (world.work / "again.txt").write_text("again\n")
    if how == "edited":  # B's change kept, and edited further before the commit
        (world.work / theirs).write_text("edited by A\n")
        world.git("A", "add", "--", theirs)
    world.git("A", "add", "--", "again.txt")
    mixed = how in ("soft", "amend", "edited")
    world.git("A", "commit", "-q", *(["--amend"] if how == "amend" else []), "-m",
              f"again\n\nby: {'A+B' if mixed else 'A'}")
    found = world.check("A")
    if mixed:
        assert found["trust"] != "exact", found
        world.git("B", "switch", "-q", "main")
        world.git("B", "switch", "-q", "feat")
        assert world.check("B")["trust"] != "exact"
    else:
        expect(found, "exact", 2)


def test_an_agents_commit_is_written_once_where_the_shims_are_installed_too(world: World
                                                                          ) -> None:
    """Claude Code's commands run git with the agent's hooks folder, whose writer then
    chains the repository's own post-commit: the plain shim's shell wrote the same line a
    second time (its Python hands over to nothing once LETS_HOOKS_DONE names the hook)."""
    world.git("A", "switch", "-q", "-c", "feat")
    agent_start(world, "A")
    made = [world.commit("A", "a1"), world.commit("A", "a2")]
    common = world.git("A", "rev-parse", "--git-common-dir")
    lines = (world.work / common / "lets-hooks" / "ledger").read_text().splitlines()
    assert [lines.count(f"c {sha} {IDS['A']}") for sha in made] == [1, 1], lines
    expect(world.check("A"), "exact", 2)


# -- two agents in two work trees ---------------------------------------------------------

def test_two_agents_in_two_work_trees_merge_each_others_branches(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat-a")
    world.commit("A", "a1")
    second = world.root / "second"
    world.git("A", "worktree", "add", "-q", "-b", "feat-b", str(second), "main")
    world.commit("B", "b1", cwd=second)
    world.commit("B", "b2", cwd=second)
    world.commit("A", "a2")
    world.git("A", "merge", "-q", "--no-ff", "feat-b", "-m", "merge b\n\nby: A")
    expect(world.check("A"), "exact", 3)
    world.git("B", "merge", "-q", "--no-ff", "feat-a", "-m", "merge a\n\nby: B", cwd=second)
    found = world.check("B", cwd=second)
    assert found["trust"] != "exact" or found["commits"] == 3, found


def test_worktree_add_from_the_sessions_own_commit_keeps_it(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    c1 = world.commit("A", "c1")
    second = world.root / "second"
    world.git("A", "worktree", "add", "-q", "-b", "side", str(second), c1)
    world.commit("A", "c2", cwd=second)
    expect(world.check("A", cwd=second), "exact", 2)


def test_a_switch_c_from_a_merged_topic_and_from_main_agree(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "topic")
    world.commit("A", "t1")
    world.git("A", "push", "-q", "origin", "topic")
    # the pull request is merged on the remote by someone else
    world.git("person", "fetch", "-q", "origin", cwd=world.mate)
    world.git("person", "merge", "-q", "--no-ff", "origin/topic", "-m", "merge topic\n\nby: mate",
              cwd=world.mate)
    world.git("person", "push", "-q", "origin", "HEAD:main", cwd=world.mate)
    world.git("A", "fetch", "-q", "origin")
    world.git("A", "switch", "-q", "-c", "x", "origin/main")
    from_topic = world.check("A")
    world.git("A", "switch", "-q", "main")
    world.git("A", "merge", "-q", "--ff-only", "origin/main")
    world.git("A", "switch", "-q", "-c", "y", "origin/main")
    from_main = world.check("A")
    assert from_topic["commits"] == from_main["commits"], (from_topic, from_main)
    assert from_topic["trust"] == from_main["trust"], (from_topic, from_main)


# -- clocks decide nothing ----------------------------------------------------------------

def test_a_committer_date_set_back_at_an_edit_stop(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    first = world.commit("A", "s1")
    world.commit("A", "s2")
    old = "Mon, 1 Jan 2001 00:00:00 +0000"
    world.git("A", "rebase", "-q", "-i", f"{first}~1",
              extra={"GIT_SEQUENCE_EDITOR": "sed -i -e '1s/^pick/edit/'"})
    world.git("A", "commit", "-q", "--amend", "--no-edit",
              extra={"GIT_COMMITTER_DATE": old})
    world.git("A", "rebase", "--continue")
    expect(world.check("A"), "exact", 2)


def test_rebase_with_committer_dates_from_the_authors(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    old = {"GIT_AUTHOR_DATE": "@978307200 +0000"}
    world.commit("A", "s1", extra=old)
    world.commit("A", "s2", extra=old)
    world.git("A", "switch", "-q", "main")
    world.commit("person", "main-moves")
    world.git("A", "switch", "-q", "feat")
    world.git("A", "rebase", "-q", "--committer-date-is-author-date", "main")
    expect(world.check("A"), "exact", 2)


@pytest.mark.skipif(shutil.which("faketime") is None, reason="faketime (Debian's faketime) "
                    "is not installed")
def test_a_clock_stepped_back_decides_nothing(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "s1")
    world.commit("A", "s2", prefix=("faketime", "-f", "-3d"))
    world.commit("A", "s3", prefix=("faketime", "-f", "+400d"))
    expect(world.check("A"), "exact", 3)


# -- plumbing, rewrites of another's commit -----------------------------------------------

def test_a_commit_made_by_plumbing_is_not_vouched_for(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "s1")
    tree = world.git("A", "write-tree")
    made = world.git("A", "commit-tree", tree, "-p", "HEAD", "-m", "plumbing\n\nby: A")
    world.git("A", "update-ref", "refs/heads/feat", made)
    world.git("A", "reset", "-q", "--hard", made)
    found = world.check("A")
    expect(found, "prior-session", 2, note="not vouched for")
    rev = world.git("A", "rev-parse", "HEAD~2")
    done = world.lets("A", "lets-hooks", "record", "--at", rev)
    assert done.returncode == 0, done.stderr
    expect(world.check("A"), "exact", 2)


@pytest.mark.parametrize("how", ["amend", "reword", "squash"])
def test_a_rewrite_of_another_sessions_commit_is_mixed(world: World, how: str) -> None:
    world.git("B", "switch", "-q", "-c", "feat")
    world.commit("B", "yesterday")
    world.git("A", "switch", "-q", "main")
    world.git("A", "switch", "-q", "feat")  # A's first touch: the line at B's commit
    if how == "amend":
        world.git("A", "commit", "-q", "--amend", "-m", "yesterday, amended\n\nby: B+A")
    elif how == "reword":
        world.commit("A", "a1")
        world.git("A", "rebase", "-q", "-i", "main", extra={
            "GIT_SEQUENCE_EDITOR": "sed -i -e '1s/^pick/reword/'",
            "GIT_EDITOR": "sed -i -e 's/^by: B$/by: B+A/'"})
    else:
        world.commit("A", "a1")
        world.git("A", "rebase", "-q", "-i", "main", extra={
            "GIT_SEQUENCE_EDITOR": "sed -i -e '2s/^pick/squash/'",
            "GIT_EDITOR": "sed -i -e 's/^by: [AB]$/by: B+A/'"})
    found = world.check("A")
    assert found["trust"] != "exact", found
    assert "run: lets-hooks record" not in str(found["stderr"]), found
    world.lets("A", "lets-hooks", "record")  # whatever a person tries, exact stays honest
    assert world.check("A")["trust"] != "exact"


def test_a_no_op_amend_says_nothing(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.commit("A", "s1")
    done = subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=world.work,
                          env=world.env("A", {"GIT_COMMITTER_DATE": "@1700000000 +0000",
                                              "GIT_AUTHOR_DATE": "@1700000000 +0000"}),
                          capture_output=True, text=True, check=True)
    again = subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=world.work,
                           env=world.env("A", {"GIT_COMMITTER_DATE": "@1700000000 +0000",
                                               "GIT_AUTHOR_DATE": "@1700000000 +0000"}),
                           capture_output=True, text=True, check=True)
    assert "lets-hooks" not in done.stderr + again.stderr, (done.stderr, again.stderr)
    expect(world.check("A"), "exact", 1)


# -- claims and shipped files -------------------------------------------------------------

def test_claims_are_this_sessions_and_never_another_sessions(world: World) -> None:
    world.git("A", "switch", "-q", "-c", "feat-a")
    world.commit("A", "a1")
    done = world.lets("A", "lets-hooks", "record", "--at", "main")
    assert done.returncode == 0, done.stderr
    world.git("B", "switch", "-q", "main")
    world.git("B", "switch", "-q", "-c", "feat-b")
    world.commit("B", "b1")
    world.git("B", "merge", "-q", "--no-ff", "feat-a", "-m", "merge a\n\nby: B")
    found = world.check("B")
    expect(found, "exact", 2)


def test_a_repository_that_ships_state_files_vouches_for_nothing(world: World) -> None:
    mate_commits = []
    for i in range(2):
        (world.mate / f"m{i}.txt").write_text("mate\n")
        world.git("person", "add", "--", f"m{i}.txt", cwd=world.mate)
        world.git("person", "commit", "-q", "-m", f"mate {i}\n\nby: mate", cwd=world.mate)
        mate_commits.append(world.git("person", "rev-parse", "HEAD", cwd=world.mate))
    sessions = world.mate / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / ".claimed").write_text("".join(c + "\n" for c in mate_commits))
    (sessions / ".rewritten").write_text("".join(f"{c} {c}\n" for c in mate_commits))
    world.git("person", "add", "-f", "--", ".lets", cwd=world.mate)
    world.git("person", "commit", "-q", "-m", "ship state\n\nby: mate", cwd=world.mate)
    world.git("person", "push", "-q", "origin", "HEAD:topic", cwd=world.mate)
    world.git("A", "fetch", "-q", "origin")
    world.git("A", "switch", "-q", "-c", "topic", "origin/topic")
    world.commit("A", "a1")
    found = world.check("A")
    assert found["trust"] != "exact" or found["commits"] == 1, found


# -- generated days: two sessions, a person, a teammate -----------------------------------

STEPS = st.lists(st.sampled_from([
    "A commit", "B commit", "person commit", "A switch feat", "B switch feat",
    "A switch other", "B switch other", "A merge other", "A amend", "B amend",
    "mate push", "A pull", "A pull --rebase", "A record",
]), min_size=3, max_size=7)
# The everyday rewrites and copies, in the same world: a cherry-pick of the other
# session's commit, a revert, a reset and new commits, a fixup of one's own commit and a
# squash into the other session's commit (both through rebase -i --autosquash, which
# copies whatever lies above them).
MORE_STEPS = st.lists(st.sampled_from([
    "A commit", "B commit", "person commit", "A switch feat", "B switch feat",
    "A switch other", "B switch other", "A merge other", "mate push", "A pull",
    "A cherry-pick", "B cherry-pick", "A revert", "A reset", "A fixup", "A squash",
    "B fixup", "person amend", "person cherry-pick", "person revert",
]), min_size=3, max_size=8)


# Where sessions meet, as people and agents run it: pushes and pulls that send a session's
# commits out and back, the other session's rebase over them (its copies), an amend with
# no change, a soft reset and commit again, a stash around the other session's commit, an
# agent started through its own hook (the command line its hooks file gives, the event on
# stdin, its commands under the env file it was handed; resumed too), a session id that
# is no id ("-", blank, spaces, a newline after a real one), a ledger line cut short by a
# crash, the shims removed (only the agents' own hooks write then).
MEETING_STEPS = st.lists(st.sampled_from([
    "A commit", "B commit", "person commit", "A switch feat", "B switch feat",
    "A switch other", "B switch other", "A merge other", "mate push", "A push", "B push",
    "A pull --rebase", "B pull --rebase", "B pull", "B rebase", "A rebase", "A noop-amend",
    "B noop-amend", "A soft-reset", "B soft-reset", "A stash", "A agent", "B agent",
    "odd commit", "odd check", "crash", "person uninstall", "B amend", "A record",
    "A codex", "B codex", "A gemini", "B gemini",
]), min_size=3, max_size=8)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_generated_days_never_give_a_wrong_exact(tmp_path_factory: pytest.TempPathFactory,
                                                  steps: list[str]) -> None:
    two_sessions_day(World(tmp_path_factory.mktemp("day")), steps)


@settings(max_examples=MORE_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=MORE_STEPS)
def test_generated_rewrites_and_copies_never_give_a_wrong_exact(
        tmp_path_factory: pytest.TempPathFactory, steps: list[str]) -> None:
    two_sessions_day(World(tmp_path_factory.mktemp("day")), steps)


@settings(max_examples=MORE_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=MEETING_STEPS)
def test_generated_meetings_never_give_a_wrong_exact(
        tmp_path_factory: pytest.TempPathFactory, steps: list[str]) -> None:
    two_sessions_day(World(tmp_path_factory.mktemp("day")), steps)


# The hooks installed midway through the day, after the sessions may have committed: a
# commit no hook saw may count or not (as after ``person uninstall``), the rest as always.
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS, at=st.integers(min_value=0, max_value=7))
def test_generated_days_with_the_hooks_installed_midway(
        tmp_path_factory: pytest.TempPathFactory, steps: list[str], at: int) -> None:
    steps.insert(min(at, len(steps)), "person install")
    two_sessions_day(World(tmp_path_factory.mktemp("day"), Route(midway=True)), steps)


def first_parents(world: World, who: str, count: int) -> list[tuple[str, set[str]]]:
    """The newest ``count`` commits of HEAD's first-parent line that are no merge and
    have a parent, with who made each."""
    made = world.makers()
    line = world.git("person", "rev-list", "--first-parent", "--no-merges",
                     f"--max-count={count}", "HEAD").split()
    return [(sha, made[sha]) for sha in line
            if world.git("person", "rev-list", "--count", "--max-count=2", sha) == "2"]


def merged(world: World, who: str, before: str) -> None:
    """The merge commit a pull made on top of ``before`` is ``who``'s (git wrote its
    message); a fast-forward to the teammate's merge is not."""
    parents = world.git(who, "log", "-1", "--format=%P").split()
    if len(parents) > 1 and parents[0] == before:
        world.known[world.git(who, "rev-parse", "HEAD")] = {who}


def attempt(world: World, who: str, command: str, *args: str,
            extra: dict[str, str] | None = None) -> None:
    """``git COMMAND ARGS`` by ``who``; a cherry-pick or revert with nothing left to do
    (its change is on HEAD already) stops, and is given up."""
    done = world.run(who, ["git", command, *args], extra=extra)
    if done.returncode:
        world.git(who, command, "--abort")


def autosquash(world: World, who: str, target: str, how: str, marks: str) -> None:
    """``git commit --fixup`` (or ``--squash``) of ``target`` by ``who``, then ``rebase -i
    --autosquash`` from below it; a squash's message says who made what is folded in."""
    world.count += 1
    name = f"{who.lower()}-{how}-{world.count}.txt"
    (world.work / name).write_text(f"{how}\n")
    world.git(who, "add", "--", name)
    world.git(who, "commit", "-q", f"--{how}={target}", *(("-m", f"by: {who}") if how ==
                                                           "squash" else ()))
    world.git(who, "rebase", "-q", "-i", "--autosquash", "--empty=drop", f"{target}~1", extra={
        "GIT_EDITOR": f"sed -i -e 's/^by: .*/by: {marks}/'"})


def two_sessions_day(world: World, steps: list[str]) -> None:
    world.git("A", "switch", "-q", "-c", "feat")
    world.git("A", "push", "-q", "-u", "origin", "feat")
    world.git("person", "switch", "-q", "-c", "other", "main")
    world.git("A", "switch", "-q", "feat")
    world.git("person", "fetch", "-q", "origin", cwd=world.mate)
    world.git("person", "switch", "-q", "-c", "feat", "origin/feat", cwd=world.mate)
    for step in steps:
        who, _, what = step.partition(" ")
        branch = world.git("person", "branch", "--show-current")
        existing = set(world.git("person", "rev-list", "--all").split())
        rewritten = world.git("person", "rev-parse", "HEAD")  # what an amend or reset rewrites
        if who == "odd":
            pass
        elif what == "commit":
            world.commit(who, f"{who.lower()}")
        elif what.startswith("switch"):
            world.git(who, "switch", "-q", what.split()[1])
        elif what == "merge other" and branch != "other":
            world.git(who, "merge", "-q", "--no-ff", "other", "-m", f"merge\n\nby: {who}")
        elif what == "amend" and branch and world.git("person", "rev-list", "--count",
                                                       "--max-count=2", "HEAD") == "2":
            # never the root commit: a new root would leave ``other`` an unrelated history
            by = world.makers()[world.git(who, "rev-parse", "HEAD")]
            marks = "+".join(sorted(by | {who})) if by != {who} else who
            world.git(who, "commit", "-q", "--amend", "-m", f"amended\n\nby: {marks}")
        elif step == "mate push":
            world.commit("mate", "mate", cwd=world.mate)
            world.git("person", "pull", "-q", "--no-rebase", "--no-edit", "origin", "feat",
                      cwd=world.mate)
            world.git("person", "push", "-q", "origin", "feat", cwd=world.mate)
        elif what.startswith("pull") and branch == "feat":
            mode = "--rebase" if what.endswith("--rebase") else "--no-rebase"
            before = world.git(who, "rev-parse", "HEAD")
            world.git(who, "pull", "-q", mode, "--no-edit", "origin", "feat")
            merged(world, who, before)
        elif what == "record":
            world.lets(who, "lets-hooks", "record")
        elif what == "push" and branch:
            if world.run(who, ["git", "push", "-q", "origin", f"HEAD:{branch}"]).returncode:
                # refused (the remote moved on): merged in, then pushed, as people do
                before = world.git(who, "rev-parse", "HEAD")
                world.git(who, "pull", "-q", "--no-rebase", "--no-edit", "origin", branch)
                merged(world, who, before)
                world.git(who, "push", "-q", "origin", f"HEAD:{branch}")
        elif what == "rebase" and branch:  # onto the other branch: copies what lies above it
            there = "other" if branch == "feat" else "feat"
            attempt(world, who, "rebase", "-q", there)
        elif what == "noop-amend" and branch and world.git(
                "person", "rev-list", "--count", "--max-count=2", "HEAD") == "2":
            world.git(who, "commit", "-q", "--amend", "--no-edit")  # marks as they were
        elif what == "soft-reset" and branch and first_parents(world, who, 3)[2:] and \
                world.git("person", "log", "-1", "--format=%P").count(" ") == 0:
            by = world.makers()[world.git(who, "rev-parse", "HEAD")]
            world.git(who, "reset", "-q", "--soft", "HEAD~1")
            world.count += 1
            (world.work / f"soft-{world.count}.txt").write_text("soft\n")
            world.git(who, "add", "--", f"soft-{world.count}.txt")
            world.git(who, "commit", "-q", "-m",
                      f"again\n\nby: {'+'.join(sorted(by | {who}))}")
        elif what == "stash" and branch:  # work put aside while the other session commits
            world.count += 1
            (world.work / f"stash-{world.count}.txt").write_text("stash\n")
            world.git(who, "add", "--", f"stash-{world.count}.txt")
            world.git(who, "stash", "-q")
            world.commit("B" if who == "A" else "A", "between")
            world.git(who, "stash", "pop", "-q")
            world.git(who, "commit", "-q", "-m", f"stashed\n\nby: {who}")
        elif what == "agent":
            agent_start(world, who)
        elif what in ("codex", "gemini"):
            agent_start(world, who, what)
        elif what == "uninstall":
            world.uninstall()
            world.unhooked = True
        elif what == "install":  # a route's hooks installed midway through the day
            world.install()
            world.unhooked = False
            if world.run("person", ["git", "diff", "--cached", "--quiet"]).returncode:
                world.git("person", "commit", "-q", "-m", "hooks\n\nby: person")
        elif step == "crash":
            crash(world)
        elif what == "cherry-pick" and branch:  # the newest commit of the other branch
            there = "other" if branch == "feat" else "feat"
            picks = world.git("person", "rev-list", "--no-merges", "--max-count=1", there,
                              "^HEAD")
            if picks:
                attempt(world, who, "cherry-pick", "--edit", picks, extra={
                    "GIT_EDITOR": f"sed -i -e 's/^by: .*/by: {who}/'"})
        elif what == "revert" and branch:
            line = first_parents(world, who, 1)
            if line:
                attempt(world, who, "revert", "--edit", line[0][0], extra={
                    "GIT_EDITOR": f"sed -i -e '$a by: {who}'"})
        elif what == "reset" and branch and first_parents(world, who, 3)[2:]:
            world.git(who, "reset", "-q", "--hard", "HEAD~1")
        elif what in ("fixup", "squash") and branch:
            # fixup: the newest of one's own commits; squash: the other session's
            others = "B" if who == "A" else "A"
            targets = [sha for sha, by in first_parents(world, who, 4)
                       if by == {who if what == "fixup" else others}]
            if targets:
                autosquash(world, who, targets[0], what,
                           who if what == "fixup" else "+".join(sorted({who, others})))
        if who == "odd":
            odd_step(world, what)
        copier = who in IDS and what in ("pull --rebase", "rebase", "noop-amend")
        if copier or world.unhooked:
            made = world.makers()
            for sha in set(world.git("person", "rev-list", "HEAD").split()) - existing:
                copy = copier and who not in made[sha]
                if copy or (world.unhooked and not (AGENT_HOOKS and made[sha]
                                                    <= {*world.env_files, *world.tools})):
                    world.either[sha] = made[sha]
        if rewritten in world.either and what in ("amend", "noop-amend", "soft-reset"):
            # a rewrite of a commit no hook saw: its maker's share of it is unknown too
            head = world.git("person", "rev-parse", "HEAD")
            if head != rewritten:
                world.either[head] = world.makers()[head]
        world.acted.add(who)
        world.check("A")
    world.check("B")


# Session ids that are no id, or a real one with blanks around it (read as that one)
ODD_IDS = ("-", "", " ", "\t", f"{IDS['A']} {IDS['B']}", f"{IDS['A']}\n", f" {IDS['B']}",
           "=", "*", "a\nb")


def odd_id(world: World) -> tuple[str, str]:
    """The next odd id, and whose it is (``person`` for none)."""
    world.count += 1
    odd = ODD_IDS[world.count % len(ODD_IDS)]
    return odd, next((who for who, sid in IDS.items() if odd.strip() == sid), "person")


def odd_step(world: World, what: str) -> None:
    """A commit under an odd id, or the contract asked under one: never another session's
    work counted as exact for an id that is none."""
    odd, whose = odd_id(world)
    extra = {"LETS_SESSION_ID": odd}
    if what == "commit":
        world.count += 1
        name = f"odd-{world.count}.txt"
        (world.work / name).write_text("odd\n")
        world.git("person", "add", "--", name)
        world.git("person", "commit", "-q", "-m", f"odd\n\nby: {whose}", extra=extra)
        return
    done = world.run("person", [str(BIN / "lets-session-boundary"), "--json"], extra=extra)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    if whose == "person":
        assert found["trust"] != "exact" or found["commits"] == 0, (odd, found)
    else:
        same = world.answer(whose)
        assert (found["trust"], found["commits"]) == (same["trust"], same["commits"]), (
            odd, found, same)


ROOT = Path(__file__).resolve().parents[1]
HOOKS_FILES = {"claude": ROOT / "agent-plugin" / "hooks" / "hooks.json",
               "codex": ROOT / "agent-plugin" / "hooks" / "codex.json",
               "gemini": ROOT / "gemini-extension" / "hooks" / "hooks.json"}
PRE_TOOL = {"codex": ("PreToolUse", "Bash"), "gemini": ("BeforeTool", "run_shell_command")}


def plugin_command(agent: str, event: str) -> str:
    """The command line the agent's hooks file gives for ``event``."""
    hooks = json.loads(HOOKS_FILES[agent].read_text())["hooks"]
    return str(hooks[event][0]["hooks"][0]["command"])


def agent_start(world: World, who: str, agent: str = "claude") -> None:
    """The session starts (or resumes) through its agent's SessionStart hook: the command
    line the hooks file gives, the event on stdin, what the agent gives its hooks (Claude
    Code: a fresh env file; Codex: its turn id; Gemini: its session variable); from then on
    the session's commands run as that agent runs them (``World.run``)."""
    source = "resume" if who in world.acted else "startup"
    world.count += 1
    env_file = world.root / f"{who}-{world.count}.env"
    env_file.write_text("")
    extra = {"claude": {"CLAUDE_ENV_FILE": str(env_file),
                        "CLAUDE_PROJECT_DIR": str(world.work)},
             "codex": {}, "gemini": {"GEMINI_SESSION_ID": IDS[who], "GEMINI_CLI": "1",
                                     "GEMINI_PROJECT_DIR": str(world.work)}}[agent]
    event = {"session_id": IDS[who], "cwd": str(world.work), "source": source,
             "hook_event_name": "SessionStart",
             "transcript_path": str(world.root / f"{who}.jsonl")}
    if agent == "codex":
        event["turn_id"] = f"turn-{world.count}"
    done = subprocess.run(["sh", "-c", plugin_command(agent, "SessionStart")],
                          cwd=world.work, env=world.env("person", extra),
                          input=json.dumps(event), capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    world.env_files.pop(who, None)
    world.tools.pop(who, None)
    if agent == "claude":
        world.env_files[who] = env_file
    else:
        world.tools[who] = agent


def pre_tool(world: World, who: str, command: str, cwd: Path | None) -> str:
    """The command a Codex or Gemini session runs for ``command``: its pre-tool hook (the
    command line the hooks file gives, the event on stdin) may hand it back changed."""
    agent = world.tools[who]
    event_name, tool = PRE_TOOL[agent]
    world.count += 1
    event = {"session_id": IDS[who], "cwd": str(cwd or world.work), "tool_name": tool,
             "tool_input": {"command": command}, "hook_event_name": event_name}
    extra = {"CODEX_THREAD_ID": IDS[who]} if agent == "codex" else {
        "GEMINI_SESSION_ID": IDS[who], "GEMINI_CLI": "1",
        "GEMINI_PROJECT_DIR": str(world.work)}
    if agent == "codex":
        event["turn_id"] = f"turn-{world.count}"
    done = subprocess.run(["sh", "-c", plugin_command(agent, event_name)],
                          cwd=cwd or world.work, env=world.env("person", extra),
                          input=json.dumps(event), capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return command
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    if agent == "gemini":
        return str(answer["tool_input"]["command"])
    assert answer["permissionDecision"] == "allow", answer
    return str(answer["updatedInput"]["command"])


def crash(world: World) -> None:
    """A ledger line cut short by a crash: the start of a line some session might have
    written, with no newline; the work goes on."""
    common = world.git("person", "rev-parse", "--git-common-dir")
    ledger = (world.work / common).resolve() / "lets-hooks" / "ledger"
    head = world.git("person", "rev-parse", "HEAD")
    world.count += 1
    lines = (f"c {head} {IDS['B']}", f"r {head} {IDS['A']} {head} =", f"k {head} {IDS['A']}",
             f"s {head} {IDS['B']}", "c ", f"a {head[:20]}")
    line = lines[world.count % len(lines)]
    cut = line[:max(1, len(line) - world.count % 7)]
    if ledger.parent.is_dir():
        with open(ledger, "ab") as torn:
            torn.write(cut.encode())
