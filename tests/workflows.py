"""A small team's world, with the truth built in: a bare remote, my clone (the hooks
installed, the session under test current in every git command I run), a teammate's clone
(no hooks, no session) and, where a workflow needs one, a second worktree of my clone.

Every commit the session under test makes carries ``MARK`` in its subject: the ones I
commit, the merge commits I make (``--edit`` with an editor that adds the mark, or ``-m``),
my cherry-picks and reverts (``--edit``), and the copies a rewrite makes of them (git
keeps the message). Nothing else carries it: the teammate's commits, main's history and
the copies my rebases make of those. My amend of a commit I did not make carries
``MIXED`` instead (SPEC section 3: never ``exact`` over it). So "the session's work on
HEAD" is read off git, never computed by the code under test:

    marked(HEAD) = { c reachable from HEAD : MARK in subject(c) }
                   less, off main, the commits on main's own first-parent line

``World.check`` holds ``lets-session-boundary --json`` to the invariant after any step:

- ``exact`` implies: the counted set (``session_commits.items``) is exactly marked(HEAD),
  ``commits`` is its size, and ``git rev-list --count boundary..HEAD`` is ``N + M + K``
  (counted, ``excluded`` "already on <merge>", ``elsewhere`` "from elsewhere"), and the
  description names those numbers in the forms SPEC section 3 gives, and no commit of
  the range (less main's own line, off main) is ``MIXED``;
- any other trust carries a NOTE (non-empty ``notes``) saying why, and where it names a
  boundary its numbers still add up to the range;
- ``must_exact``: the answer is knowable here (SPEC section 3 and 4), so it is ``exact``;
- when the answer is ``exact`` (all is well), the hooks of the steps since the last check
  said nothing (SPEC section 4: quiet when all is well; strict pre-push did not block).

Failures print every step taken so far and the graph of my clone, so a failing
workflow (or a generated sequence) reads as a recipe.

This module stands alone (no fixtures of the test suite): a test gives it a folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from helpers import WORKFLOW_SID
from precommit_box import CONFIG as PRE_COMMIT_CONFIG
from precommit_box import HOOK_TYPES

BIN = Path(sys.executable).parent
MARK = "[S]"
MIXED = "[X]"  # a commit that holds the session's change of another's commit (an amend)
ME = ("Me", "me@example.com")
MATE = ("Mate", "mate@example.com")
PLAIN, PRE_COMMIT = "plain", "pre-commit"


# Steps run back to back, most of them in the same second of the clock, as an agent runs
# them: no answer may depend on the time a step took (the session ledger names who made a
# commit; a clock decides nothing).


class WorkflowError(AssertionError):
    """A broken invariant, with the recipe that led to it."""


def _editor(folder: Path) -> Path:
    """A GIT_EDITOR that marks a merge message as the session's (first line)."""
    script = folder / "mark-editor"
    script.write_text(
        "#!/bin/sh\n"
        f"grep -qF '{MARK}' \"$1\" || sed -i -e '1s/^/{MARK} /' \"$1\"\n")
    script.chmod(0o755)
    return script


@dataclass
class Answer:
    """``lets-session-boundary --json``, as read in one place at one moment."""

    data: dict[str, object]
    stderr: str

    @property
    def trust(self) -> str:
        return str(self.data["trust"])

    @property
    def commits(self) -> object:
        return self.data["commits"]

    @property
    def boundary(self) -> str | None:
        value = self.data["boundary"]
        return None if value is None else str(value)

    @property
    def desc(self) -> str:
        return str(self.data["desc"])

    @property
    def notes(self) -> list[str]:
        notes = self.data.get("notes")
        return [str(n) for n in notes] if isinstance(notes, list) else []

    def items(self) -> list[str]:
        listed = self.data["session_commits"]
        assert isinstance(listed, dict)
        items = listed["items"]
        assert isinstance(items, list)
        return [str(item) for item in items]


@dataclass
class World:
    """The remote, my clone, the teammate's clone; every step is logged."""

    root: Path
    manager: str = PLAIN
    hook_source: tuple[Path, str] | None = None  # pre-commit's hook repository, rev
    steps: list[str] = field(default_factory=list)
    spoken: list[str] = field(default_factory=list)  # what the hooks said since the last check
    counter: int = 0

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.remote = self.root / "remote.git"
        self.me = self.root / "me"
        self.mate = self.root / "mate"
        self.editor = _editor(self.root)

    # -- running git ---------------------------------------------------------------------

    def env(self, who: str) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("LETS_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
                     "GEMINI_SESSION_ID", "LETS_MERGE_BRANCH",
                     "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EDITOR",
                     "GIT_SEQUENCE_EDITOR"):
            env.pop(name, None)
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        name, email = MATE if who == "mate" else ME
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
                   GIT_COMMITTER_EMAIL=email, GIT_EDITOR=str(self.editor),
                   GIT_TERMINAL_PROMPT="0")
        if who == "me":
            env["LETS_SESSION_ID"] = WORKFLOW_SID
        return env

    def run(self, who: str, *args: str, cwd: Path | None = None, check: bool = True,
            log: bool = True) -> subprocess.CompletedProcess[str]:
        """``git ARGS`` as ``who`` types it, hooks and all: ``me`` (the session under test),
        ``earlier`` (me in my clone before the session: no session id) or ``mate``."""
        where = cwd or (self.mate if who == "mate" else self.me)
        done = subprocess.run(["git", *args], cwd=where, env=self.env(who),
                              capture_output=True, text=True, check=False, timeout=300)
        if who == "me":
            self.spoken += [f"git {args[0]}: {line.strip()}" for line in
                            done.stderr.splitlines() if "lets-hooks: " in line]
        if log:
            place = "" if where in (self.me, self.mate) else f" (in {where.name})"
            status = "" if done.returncode == 0 else f"  -> exit {done.returncode}"
            self.steps.append(f"{who}{place}: git {shlex.join(args)}{status}")
        if check and done.returncode != 0:
            raise WorkflowError(self.recipe(
                f"git {shlex.join(args)} failed ({done.returncode}):\n"
                f"{done.stdout}{done.stderr}"))
        return done

    def git(self, *args: str, cwd: Path | None = None, check: bool = True
            ) -> subprocess.CompletedProcess[str]:
        return self.run("me", *args, cwd=cwd, check=check)

    def mgit(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("mate", *args, check=check)

    def read(self, *args: str, cwd: Path | None = None) -> str:
        """A read-only git question in my clone (not logged, no hooks involved)."""
        return self.run("me", *args, cwd=cwd, log=False).stdout.strip()

    def rev(self, name: str, cwd: Path | None = None) -> str:
        return self.read("rev-parse", "--verify", "-q", name + "^{commit}", cwd=cwd)

    # -- building the world --------------------------------------------------------------

    def build(self, main_commits: int = 2) -> World:
        """The remote with ``main`` (``m1..mN`` by the teammate), both clones, my hooks."""
        self.run("mate", "init", "-q", "--bare", "-b", "main", str(self.remote),
                 cwd=self.root)
        self.run("mate", "clone", "-q", str(self.remote), str(self.mate), cwd=self.root)
        self.mgit("checkout", "-q", "-b", "main")
        if self.manager == PRE_COMMIT:
            assert self.hook_source is not None
            where, rev = self.hook_source
            (self.mate / ".pre-commit-config.yaml").write_text(
                PRE_COMMIT_CONFIG.format(repo=where, rev=rev))
            self.mgit("add", ".pre-commit-config.yaml")
        for _ in range(main_commits):
            self.mate_commit("m")
        self.mgit("push", "-q", "-u", "origin", "main")
        self.run("me", "clone", "-q", str(self.remote), str(self.me), cwd=self.root)
        self.install(self.me)
        return self

    def install(self, where: Path) -> None:
        if self.manager == PLAIN:
            done = subprocess.run([str(BIN / "lets-hooks"), "install"], cwd=where,
                                  env=self.env("me"), capture_output=True, text=True,
                                  check=False, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr
            return
        args = [sys.executable, "-m", "pre_commit", "install"]
        for hook_type in HOOK_TYPES:
            args += ["--hook-type", hook_type]
        for command in (args, [sys.executable, "-m", "pre_commit", "install-hooks"]):
            done = subprocess.run(command, cwd=where, env=self.env("me"),
                                  capture_output=True, text=True, check=False, timeout=900)
            assert done.returncode == 0, done.stdout + done.stderr

    def config(self, text: str, where: Path | None = None) -> None:
        """Write ``.lets/config.toml`` in my clone (or a worktree of it)."""
        folder = (where or self.me) / ".lets"
        folder.mkdir(exist_ok=True)
        (folder / "config.toml").write_text(text)

    # -- commits ---------------------------------------------------------------------------

    def _file(self, where: Path, prefix: str) -> str:
        self.counter += 1
        label = f"{prefix}{self.counter}"
        (where / f"{label}.txt").write_text(label + "\n")
        return label

    def commit(self, cwd: Path | None = None) -> str:
        """A commit the session makes (marked), in my clone or ``cwd``."""
        where = cwd or self.me
        label = self._file(where, "s")
        self.git("add", "--", f"{label}.txt", cwd=where)
        self.git("commit", "-q", "-m", f"{MARK} {label}", cwd=where)
        return self.rev("HEAD", cwd=where)

    def mate_commit(self, prefix: str = "t") -> str:
        """A commit the teammate makes in their clone (not marked)."""
        label = self._file(self.mate, prefix)
        self.mgit("add", "--", f"{label}.txt")
        self.mgit("commit", "-q", "-m", label)
        return self.run("mate", "rev-parse", "HEAD", log=False).stdout.strip()

    def earlier(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``git ARGS`` in my clone before the session (no session id)."""
        return self.run("earlier", *args)

    def old_commit(self, prefix: str = "p") -> str:
        """A commit made in my clone before the session: not marked, no session id."""
        label = self._file(self.me, prefix)
        self.earlier("add", "--", f"{label}.txt")
        self.earlier("commit", "-q", "-m", label)
        return self.rev("HEAD")

    # -- my moves --------------------------------------------------------------------------

    def start(self, branch: str | None = None) -> None:
        """The session's first touch: check out ``branch`` (the current one by default)."""
        self.git("checkout", "-q", branch or self.branch() or "main")

    def branch(self, cwd: Path | None = None) -> str | None:
        done = self.run("me", "symbolic-ref", "-q", "--short", "HEAD", cwd=cwd, check=False,
                        log=False)
        return done.stdout.strip() or None

    def push(self, cwd: Path | None = None, check: bool = True
             ) -> subprocess.CompletedProcess[str]:
        return self.git("push", "-q", "-u", "origin", "HEAD", cwd=cwd, check=check)

    def pull(self, form: str, *args: str, cwd: Path | None = None, check: bool = True
             ) -> subprocess.CompletedProcess[str]:
        """``git pull`` in one of its forms: ``ff-only``, ``merge`` (a merge commit the
        session makes, marked through the editor), ``rebase``."""
        flags = {"ff-only": ["--ff-only"], "merge": ["--no-rebase", "--edit"],
                 "rebase": ["--rebase"]}[form]
        return self.git("pull", "-q", *flags, *args, cwd=cwd, check=check)

    def merge(self, ref: str, cwd: Path | None = None) -> str:
        """A true merge the session makes (its merge commit is the session's)."""
        self.git("merge", "-q", "--no-ff", "-m", f"{MARK} merge {ref}", ref, cwd=cwd)
        return self.rev("HEAD", cwd=cwd)

    # -- the teammate's moves ------------------------------------------------------------

    def mate_push(self, branch: str, commits: int = 1, base: str | None = None) -> list[str]:
        """The teammate commits on ``branch`` (as on the remote, or from ``base``) and
        pushes it."""
        self.mgit("fetch", "-q", "origin")
        start = base or f"origin/{branch}"
        self.mgit("checkout", "-q", "-B", branch, start)
        made = [self.mate_commit("m" if branch == "main" else "t") for _ in range(commits)]
        self.mgit("push", "-q", "origin", f"{branch}:{branch}")
        return made

    def mate_merge_pr(self, topic: str) -> str:
        """The teammate merges ``topic`` (as on the remote) into main with ``--no-ff``."""
        self.mgit("fetch", "-q", "origin")
        self.mgit("checkout", "-q", "-B", "main", "origin/main")
        self.mgit("merge", "-q", "--no-ff", "--no-edit", f"origin/{topic}")
        self.mgit("push", "-q", "origin", "main")
        return self.run("mate", "rev-parse", "HEAD", log=False).stdout.strip()

    # -- the invariant ---------------------------------------------------------------------

    def answer(self, cwd: Path | None = None) -> Answer:
        where = cwd or self.me
        done = subprocess.run([str(BIN / "lets-session-boundary"), "--json"], cwd=where,
                              env=self.env("me"), capture_output=True, text=True,
                              check=False, timeout=120)
        if done.returncode != 0:
            raise WorkflowError(self.recipe(f"lets-session-boundary exit {done.returncode}"
                                            f"\n{done.stdout}{done.stderr}"))
        try:
            data = json.loads(done.stdout)
        except ValueError:
            raise WorkflowError(self.recipe(f"not JSON:\n{done.stdout}{done.stderr}")) from None
        return Answer(data, done.stderr)

    def marked(self, cwd: Path | None = None) -> set[str]:
        """The session's work on HEAD, by construction. The range is the branch's (SPEC
        section 3): off main, what is on main's own line (``origin/main``'s or ``main``'s
        first parents) is main's work, whoever made it."""
        return self._tagged("HEAD", cwd, lambda subject: MARK in subject)

    def mixed(self, revs: str, cwd: Path | None = None) -> set[str]:
        """The commits of ``revs`` that mix the session's change with another's work (they
        carry ``MIXED`` and not ``MARK``, which alone says the session made it), less, off
        main, main's own line, as ``marked``."""
        return self._tagged(revs, cwd, lambda subject: MIXED in subject
                            and MARK not in subject)

    def _tagged(self, revs: str, cwd: Path | None, tagged: Callable[[str], bool]
                ) -> set[str]:
        out = self.read("log", "--format=%H %s", revs, cwd=cwd)
        found = {line.split(" ", 1)[0] for line in out.splitlines()
                 if tagged(line.split(" ", 1)[1])}
        if found and self.branch(cwd) not in (None, "main"):
            for tip in ("origin/main", "main"):
                line = self.run("me", "rev-list", "--first-parent", tip, "--", cwd=cwd,
                                check=False, log=False)
                if line.returncode == 0:
                    found -= set(line.stdout.split())
        return found

    def check(self, must_exact: bool, cwd: Path | None = None) -> Answer:
        """The invariant, now. ``must_exact``: the answer is knowable here."""
        got = self.answer(cwd)
        data = got.data
        problems: list[str] = []
        truth = self.marked(cwd)
        detached = self.branch(cwd) is None
        if got.trust != "exact" and not (got.data.get("notes") and "NOTE: " in got.stderr):
            problems.append(f"trust {got.trust} without a NOTE saying why")
        if must_exact and got.trust != "exact":
            problems.append(f"trust {got.trust} where the answer is knowable (want exact "
                            f"{len(truth)})")
        if got.trust == "exact":
            problems += self._exact(got, truth, cwd)
            if self.spoken:  # SPEC section 4: the hooks are quiet when all is well
                problems.append("a hook spoke, yet all is well: " + " | ".join(self.spoken))
        elif got.boundary is not None and not detached:
            problems += self._arithmetic(got, cwd)
        self.spoken = []
        if problems:
            raise WorkflowError(self.recipe(
                "\n".join(f"- {p}" for p in problems)
                + f"\nanswer: {json.dumps(data, sort_keys=True, indent=1)}"
                + f"\nstderr: {got.stderr.strip()}"
                + f"\nmarked on HEAD: {self.label(sorted(truth))}", cwd))
        return got

    def follow_advice(self, cwd: Path | None = None) -> Answer | None:
        """Advice is part of the answer (SPEC section 3): run the ``lets-hooks record``
        command the answer's NOTE names, as the session, and hold the answer after it to
        the invariant (an ``exact`` that follows advice must be right). None: no advice."""
        got = self.answer(cwd)
        found = re.findall(r"(lets-hooks record(?: --at [0-9a-f]+)?)", got.stderr)
        if not found:
            return None
        where = cwd or self.me
        self.steps.append(f"me: {found[0]}  (the NOTE's advice)")
        done = subprocess.run([str(BIN / "lets-hooks"), *found[0].split()[1:]], cwd=where,
                              env=self.env("me"), capture_output=True, text=True,
                              check=False, timeout=120)
        if done.returncode != 0:
            raise WorkflowError(self.recipe(f"the advice {found[0]!r} failed:\n"
                                            f"{done.stdout}{done.stderr}", cwd))
        self.spoken = []
        return self.check(False, cwd)

    def _exact(self, got: Answer, truth: set[str], cwd: Path | None) -> list[str]:
        problems: list[str] = []
        witness = got.data.get("witness")
        # exact rests on the session ledger (git's records only say where the rest came
        # from): never on no witness at all
        if witness not in ("ledger", "reflog", "reftable"):
            problems.append(f"exact with witness {witness!r}")
        listed = got.data.get("session_commits")
        if not isinstance(listed, dict) or not isinstance(listed.get("items"), list):
            problems.append(f"no session_commits list: {listed!r}")
            if got.commits != len(truth):
                problems.append(f"exact {got.commits} but the session made {len(truth)} "
                                f"on HEAD {self.label(sorted(truth))}")
            return problems
        if listed.get("more") != 0 or not isinstance(listed.get("cap"), int):
            problems.append(f"session_commits more/cap: {listed.get('more')!r}/"
                            f"{listed.get('cap')!r} (sessions here are small)")
        items = got.items()
        if len(items) != len(set(items)):
            problems.append("session_commits lists a commit twice")
        counted = set(items)
        if counted != truth:
            problems.append(
                f"counted {self.label(sorted(counted))} but the session made "
                f"{self.label(sorted(truth))} on HEAD (extra "
                f"{self.label(sorted(counted - truth))}, missing "
                f"{self.label(sorted(truth - counted))})")
        if got.commits != len(items):
            problems.append(f"commits {got.commits} but {len(items)} listed")
        mixed = self.mixed(f"{got.boundary}..HEAD", cwd)
        if mixed:  # SPEC section 3: a commit that mixes the two is never exact
            problems.append(f"exact over mixed commits {self.label(sorted(mixed))}")
        return problems + self._arithmetic(got, cwd)

    def _arithmetic(self, got: Answer, cwd: Path | None) -> list[str]:
        """The range is what is counted plus what the description says it does not count,
        and the description says it in SPEC section 3's words."""
        data = got.data
        problems: list[str] = []
        boundary = got.boundary
        assert boundary is not None
        total = int(self.read("rev-list", "--count", f"{boundary}..HEAD", cwd=cwd))
        counted, excluded, elsewhere = data.get("commits"), data.get("excluded"), \
            data.get("elsewhere")
        if not all(isinstance(v, int) for v in (counted, excluded, elsewhere)):
            return [f"commits/excluded/elsewhere not all numbers: "
                    f"{counted!r}/{excluded!r}/{elsewhere!r}"]
        assert isinstance(counted, int) and isinstance(excluded, int)
        assert isinstance(elsewhere, int)
        if counted + excluded + elsewhere != total:
            problems.append(f"{counted} + {excluded} + {elsewhere} != {total} commits in "
                            f"{boundary[:7]}..HEAD")
        want = expected_desc(got.trust, boundary, counted, excluded, elsewhere,
                             str(data.get("merge_branch")))
        if want is not None and got.desc != want:
            problems.append(f"desc {got.desc!r}, want {want!r}")
        return problems

    def floor_rejects(self, recorded: str, cwd: Path | None = None) -> bool:
        """SPEC section 3, rung 4's floor, worked out here from git: off the merge branch,
        ``recorded`` is not on HEAD's first-parent line at or above the fork point off
        ``origin/main`` (where that line meets main), and none of the session's commits in
        the range reached ``origin/main`` or ``main`` (through its own pull request: then
        the SPEC says the floor must not reject)."""
        if self.branch(cwd) in (None, "main"):
            return False
        line = self.read("rev-list", "--first-parent", "HEAD", "^origin/main",
                         cwd=cwd).split()
        fork = self.read("rev-parse", (line[-1] + "^") if line else "HEAD", cwd=cwd)
        if recorded in line or recorded == fork:
            return False
        ranged = self.read("log", "--format=%H %s", f"{recorded}..HEAD", cwd=cwd)
        outside = set(self.read("rev-list", f"{recorded}..HEAD", "^origin/main", "^main",
                                cwd=cwd).split())
        return not any(MARK in row.split(" ", 1)[1] and row.split(" ", 1)[0] not in outside
                       for row in ranged.splitlines())

    # -- reading a failure -----------------------------------------------------------------

    def label(self, shas: list[str], cwd: Path | None = None) -> str:
        """Commits by their subjects (what they are) and short shas, oldest first."""
        if not shas:
            return "[]"
        out = self.run("me", "log", "--no-walk=sorted", "--reverse", "--format=%h %s",
                       *shas, cwd=cwd, check=False, log=False).stdout
        return "[" + ", ".join(out.strip().splitlines()) + "]"

    def recipe(self, what: str, cwd: Path | None = None) -> str:
        graph = self.run("me", "log", "--graph", "--format=%h %s%d", "--all", cwd=cwd,
                         check=False, log=False).stdout
        return (f"{what}\n\nsteps:\n" + "\n".join(f"  {s}" for s in self.steps)
                + f"\n\nmy clone{'' if cwd is None else f' ({cwd.name})'}:\n{graph}")


def count_words(counted: int, excluded: int, elsewhere: int, merge: str) -> str:
    """The parentheses of SPEC section 3's description forms."""
    words = f"{counted} commits"
    if excluded and elsewhere:
        words += f", not counting {excluded} already on {merge} and {elsewhere} from elsewhere"
    elif excluded:
        words += f", not counting {excluded} already on {merge}"
    elif elsewhere:
        words += f", not counting {elsewhere} from elsewhere"
    return words


def expected_desc(trust: str, boundary: str, counted: int, excluded: int, elsewhere: int,
                  merge: str) -> str | None:
    words = count_words(counted, excluded, elsewhere, merge)
    if trust == "exact":
        return f"session: {boundary}..HEAD ({words})"
    if trust == "prior-session":
        return f"approx: {boundary}..HEAD ({words}) - boundary recorded by an earlier session"
    if trust == "estimate":
        return (f"approx: {boundary}..HEAD ({words}) - estimated from the branch point, no "
                "boundary was recorded")
    return None
