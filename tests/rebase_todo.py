"""Generated ``git rebase -i`` scripts for a branch with a session on it, and what the
session boundary must be after each one.

The branch: ``main`` (the floor) <- ``p1..pP`` (commits from before the session) <-
the boundary ``B`` (``pP``, or main's tip when P is 0) <- ``s1..sS`` (the session's
commits). Every commit adds two files of its own (``L.a``, ``L.b``), so any order of
them replays without a conflict and any of them can be split in two. Subjects name
where a commit came from, so the result can be read back from git:

- ``pN`` / ``sN``: a copy of that commit; ``sN~`` the same, reworded;
- ``sN/1`` and ``sN/2``: the halves of a split (the second is the commit's copy, the first
  is new); ``xN``: a commit the rebase inserted (``exec``, or made at an ``edit`` stop);
- ``a+b``: a squash of ``a`` and ``b`` (a fixup leaves the subject alone);
- ``yN`` / ``g1``: a side branch made during the session and its merge into the branch;
  ``fixup! L`` commits made during the session fold into ``L`` under ``--autosquash``.

What a case expects is computed from the todo list that was actually run (read back after
the sequence editor wrote it), then checked against git's own history by subject: each
resulting commit is session work (it holds a session commit, or it was inserted by the
rebase), pre-session work (only pre-session commits), or mixed (a squash or fixup across
the boundary). A boundary ``X`` counts exactly when ``X..HEAD`` is the session work and
nothing else; such an ``X`` exists unless some session work lies below pre-session work
or a commit is mixed. That is the case's expected boundary; when there is none the case
is ambiguous and only a degraded answer (``prior-session``) or the right count may be
given.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import git
from helpers import BIN, SID, note_made
from hookbox import HookBox
from hypothesis import strategies as st

PLAIN, MERGE, AUTOSQUASH = "plain", "merge", "autosquash"
TOUCHED = "touched-by-the-session"  # a label that is no commit: the session changed it
ON_MAIN, ONTO, INSIDE = "main", "onto", "inside"
# What an ``edit`` stop does: nothing, split the commit in two, or commit a new one.
EDIT, SPLIT, INSERT = "edit", "split", "insert"
LINE_OPS = ("pick", "reword", EDIT, SPLIT, INSERT, "drop", "squash", "fixup")
SAFE_OPS = ("pick", "reword", EDIT, SPLIT, INSERT)  # never change what a later line needs


@dataclass(frozen=True)
class Case:
    """One branch and one rebase of it.

    ``base``: ``main`` (``git rebase -i main``), ``onto`` (``git rebase -i --onto main
    <main's old tip>``) or ``inside`` (``git rebase -i HEAD~inside``). ``moved``: main got a
    commit first. ``shape``: ``plain``, ``merge`` (a side branch forked after session
    commit ``side[0]`` (0: at the boundary), merged after ``side[1]``, rebased with
    ``--rebase-merges``) or ``autosquash`` (``fixup! TARGET`` commits made after session
    commit ``N``, rebased with ``--autosquash``). ``order``: the todo's commits in their new
    order (plain shape only; None keeps git's order). ``ops``: what each commit's line
    becomes. ``execs``: ``exec git commit`` lines, each at an insertion slot (plain shape:
    before line ``slot`` of the new order; other shapes: the slot-th place where a commit
    may be added, modulo their number).
    """

    pre: int
    session: int
    base: str = ON_MAIN
    moved: bool = False
    no_ff: bool = False
    shape: str = PLAIN
    inside: int = 0
    side: tuple[int, int] = (0, 0)
    side_commits: int = 1
    fixups: tuple[tuple[int, str], ...] = ()
    order: tuple[str, ...] | None = None
    ops: tuple[tuple[str, str], ...] = ()
    execs: tuple[tuple[int, str], ...] = ()
    inserts: tuple[tuple[str, str], ...] = field(default=())  # label -> xN (INSERT ops)

    def todo_labels(self) -> list[str]:
        """The commits git's todo list picks, in git's order (plain shape)."""
        pres = [f"p{i}" for i in range(1, self.pre + 1)]
        sessions = [f"s{i}" for i in range(1, self.session + 1)]
        if self.base == INSIDE:
            return sessions[self.session - self.inside:]
        return pres + sessions

    def command(self, old_main: str) -> list[str]:
        args = ["rebase", "-i"]
        if self.no_ff:
            args.append("--no-ff")
        if self.shape == MERGE:
            args.append("--rebase-merges")
        if self.shape == AUTOSQUASH:
            args.append("--autosquash")
        if self.base == ON_MAIN:
            args.append("main")
        elif self.base == ONTO:
            args += ["--onto", "main", old_main]
        else:
            args.append(f"HEAD~{self.inside}")
        return args


def is_pre_session(label: str) -> bool:
    """A label of a pre-session commit's copy (the first half of a split is new work)."""
    return re.fullmatch(r"p\d+", label) is not None


# -- the generator ------------------------------------------------------------------------

OP_WEIGHTS = st.sampled_from(("pick",) * 4 + LINE_OPS[1:])


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """Any rebase of the space above. Every case completes (``play`` asserts it)."""
    shape = draw(st.sampled_from((PLAIN, PLAIN, PLAIN, MERGE, AUTOSQUASH)))
    pre = draw(st.integers(0, 2))
    session = draw(st.integers(1, 6))
    # A base inside the session is a plain-shape case: with a merge or fixup commits in
    # the session, HEAD~k would name a commit on a side line or fold a fixup across the
    # base, which is not this dimension.
    bases = (ON_MAIN, ONTO, INSIDE) if shape == PLAIN else (ON_MAIN, ONTO)
    base = draw(st.sampled_from(bases))
    moved = base == ONTO or (base == ON_MAIN and draw(st.booleans()))
    no_ff = draw(st.booleans())
    inside = draw(st.integers(1, session)) if base == INSIDE else 0
    xs = iter(f"x{i}" for i in range(1, 20))
    side = (0, 0)
    side_commits = 1
    fixups: tuple[tuple[int, str], ...] = ()
    if shape == MERGE:
        merged_after = draw(st.integers(1, session))
        side = (draw(st.integers(0, merged_after - 1)), merged_after)
        side_commits = draw(st.integers(1, 2))
    if shape == AUTOSQUASH:
        made = draw(st.lists(st.integers(1, session), min_size=1, max_size=2))
        found = []
        for after in sorted(made):
            before = [f"p{i}" for i in range(1, pre + 1)] + [f"s{i}" for i in
                                                               range(1, after + 1)]
            found.append((after, draw(st.sampled_from(before))))
        fixups = tuple(found)

    if shape == PLAIN:
        case = Case(pre, session, base, moved, no_ff, shape, inside)
        labels = case.todo_labels()
        order = tuple(draw(st.permutations(labels)))
        ops = {label: draw(OP_WEIGHTS) for label in labels}
        slots = draw(st.lists(st.integers(0, len(order)), max_size=3))
    else:
        order = None
        labels = [f"p{i}" for i in range(1, pre + 1)] + [f"s{i}" for i in
                                                           range(1, session + 1)]
        if shape == MERGE:
            labels += [f"y{i}" for i in range(1, side_commits + 1)]
        ops = {label: draw(st.sampled_from(("pick",) * 3 + SAFE_OPS[1:]))
               for label in labels}
        # Drops, squashes and reorders stay out of these shapes: a drop or a move can
        # empty a side line (then ``merge`` has nothing to merge) or move a fixup away
        # from its target; both would test git's corner cases, not the hook.
        slots = draw(st.lists(st.integers(0, 40), max_size=3))
    execs = tuple((slot, next(xs)) for slot in slots)
    inserts = tuple((label, next(xs)) for label in sorted(ops) if ops[label] == INSERT)
    if order is not None:
        _need_a_previous_commit(order, ops, execs)
    return Case(pre, session, base, moved, no_ff, shape, inside, side, side_commits,
                fixups, order, tuple(sorted((k, v) for k, v in ops.items() if v != "pick")),
                execs, inserts)


def _need_a_previous_commit(order: tuple[str, ...], ops: dict[str, str],
                            execs: tuple[tuple[int, str], ...]) -> None:
    """git refuses a squash or fixup with no commit made before it in the todo list (it
    would fold into the rebase's base): such a line becomes a plain pick."""
    made = False
    exec_slots = {slot for slot, _ in execs}
    for index, label in enumerate(order):
        made = made or index in exec_slots
        if ops[label] in ("squash", "fixup") and not made:
            ops[label] = "pick"
        if ops[label] != "drop":
            made = True


# -- the scripts git runs -----------------------------------------------------------------

SEQUENCE_EDITOR = r'''
import json, sys

plan = json.load(open(sys.argv[1]))
path = sys.argv[2]
raw = open(path).read()
open(plan["original"], "w").write(raw)
shas = plan["labels"]

def label_of(token):
    hits = [label for sha, label in shas.items() if sha.startswith(token)]
    if len(hits) != 1:
        sys.exit("sequence editor: no single commit for %r" % token)
    return hits[0]

lines = []
for text in raw.splitlines():
    text = text.strip()
    if not text or text.startswith("#"):
        continue
    cmd, _, rest = text.partition(" ")
    label = label_of(rest.split()[0]) if cmd in ("pick", "fixup", "squash") else None
    lines.append((cmd, rest, label))
if plan["order"] is not None:
    picks = {label: (cmd, rest, label) for cmd, rest, label in lines if cmd == "pick"}
    if sorted(picks) != sorted(plan["order"]) or len(picks) != len(lines):
        sys.exit("sequence editor: git's todo is not the expected one:\n" + raw)
    lines = [picks[label] for label in plan["order"]]
verbs = {"pick": "pick", "reword": "reword", "drop": "drop", "squash": "squash",
         "fixup": "fixup"}
out = []
for cmd, rest, label in lines:
    if cmd == "pick" and label in plan["ops"]:
        cmd = verbs.get(plan["ops"][label], "edit")
    out.append((cmd + " " + rest).rstrip())
# Where a commit may be added: before the first line unless it is a label or reset, and
# after any line but a label (what follows a label is a reset, or the labelled commit
# would move).
places = [0] if out and out[0].split()[0] not in ("label", "reset") else []
places += [i + 1 for i, line in enumerate(out) if line.split()[0] != "label"]
added = {}
for slot, name in plan["execs"]:
    added.setdefault(places[slot % len(places)], []).append(
        "exec git commit -q --allow-empty -m " + name)
final = []
for i in range(len(out) + 1):
    final += added.get(i, [])
    if i < len(out):
        final.append(out[i])
text = "".join(line + "\n" for line in final)
open(path, "w").write(text)
open(plan["final"], "w").write(text)
'''

MESSAGE_EDITOR = r'''
import sys

path = sys.argv[1]
lines = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
# One message: a reword. Several: a squash, whose subject names every part.
subject = "+".join(lines) + ("~" if len(lines) == 1 else "")
open(path, "w").write(subject + "\n")
'''


@dataclass
class Tools:
    """The editors, written once per module."""

    folder: Path

    @classmethod
    def make(cls, folder: Path) -> Tools:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "sequence_editor.py").write_text(SEQUENCE_EDITOR)
        (folder / "message_editor.py").write_text(MESSAGE_EDITOR)
        return cls(folder)

    def environ(self, plan: Path) -> dict[str, str]:
        python = shlex.quote(sys.executable)
        seq = shlex.quote(str(self.folder / "sequence_editor.py"))
        msg = shlex.quote(str(self.folder / "message_editor.py"))
        return {"GIT_SEQUENCE_EDITOR": f"{python} -S {seq} {shlex.quote(str(plan))}",
                "GIT_EDITOR": f"{python} -S {msg}"}


# -- building the branch ------------------------------------------------------------------

IDENTITY = "Test <test@example.com>"


def _git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, check=False, env=_quiet_env())
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def _quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "LETS_SESSION_ID",
                 "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID"):
        env.pop(name, None)
    return env


def make_template(folder: Path) -> Path:
    """A repository whose ``main`` is a root and a tip (both recent), with the plain shims
    installed and ``.lets/`` kept out of commits. Copied for each example."""
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q", "-b", "main")
    stream = _Stream(int(time.time()) - 3 * 3600)
    stream.commit("refs/heads/main", "root", None, files=["root"])
    stream.commit("refs/heads/main", "main", ":1", files=["main"])
    _git(folder, "fast-import", "--quiet", stdin=stream.text())
    _git(folder, "reset", "-q", "--hard", "main")
    marker = folder / ".git" / "hooks" / "post-rewrite"
    marker.write_text(MARKER_HOOK)  # install keeps it, as post-rewrite.pre-lets, first
    marker.chmod(0o755)
    done = subprocess.run([str(BIN / "lets-hooks"), "install"], cwd=folder,
                          capture_output=True, text=True, check=False, env=_quiet_env())
    assert done.returncode == 0, done.stderr
    with open(folder / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write(".lets/\n")
    return folder


class Copy(HookBox):
    """A ``HookBox`` over a repository that already exists (no ``git init``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.repo = git.Repo(path)
        self.git = self.repo.git


class _Stream:
    """A ``git fast-import`` stream: commits with marks, each adding its own files."""

    def __init__(self, clock: int) -> None:
        self.parts: list[str] = []
        self.marks = 0
        self.clock = clock

    def commit(self, ref: str, subject: str, parent: str | None, merge: str | None = None,
               files: list[str] | None = None) -> str:
        self.marks += 1
        self.clock += 1
        stamp = f"{IDENTITY} {self.clock} +0000"
        message = subject + "\n"
        out = [f"commit {ref}", f"mark :{self.marks}", f"author {stamp}",
               f"committer {stamp}", f"data {len(message.encode())}", message.rstrip("\n")]
        if parent is not None:
            out.append(f"from {parent}")
        if merge is not None:
            out.append(f"merge {merge}")
        for name in files or []:
            body = f"{name}\n"
            out += [f"M 100644 inline {name}", f"data {len(body.encode())}", body.rstrip("\n")]
        self.parts.append("\n".join(out) + "\n\n")
        return f":{self.marks}"

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class Built:
    """The branch as built: each label's sha, the boundary, main's tip before the rebase."""

    shas: dict[str, str]
    boundary: str
    old_main: str
    tip: str

    def label_of(self, token: str) -> str:
        hits = [label for sha, label in self.labels().items() if sha.startswith(token)]
        assert len(hits) == 1, (token, hits)
        return hits[0]

    def labels(self) -> dict[str, str]:
        return {sha: label for label, sha in self.shas.items()}


def build(path: Path, case: Case) -> Built:
    """Add ``case``'s branch ``feat`` to the repository at ``path`` (its ``main`` is the
    floor), check it out without running hooks, and record the session line at ``B``."""
    old_main = _git(path, "rev-parse", "main").strip()
    stream = _Stream(int(time.time()) - 2 * 3600)
    marks: dict[str, str] = {}
    made: list[tuple[str, int, str]] = []  # (label, time, subject) made in this work tree

    def add(label: str, subject: str, parent: str, ref: str = "refs/heads/feat",
            merge: str | None = None, files: list[str] | None = None) -> str:
        names = files if files is not None else [f"{label}.a", f"{label}.b"]
        marks[label] = stream.commit(ref, subject, parent, merge, names)
        if label[0] != "m":  # main's move is a teammate's
            made.append((label, stream.clock, subject))
        return marks[label]

    tip = old_main
    for i in range(1, case.pre + 1):
        tip = add(f"p{i}", f"p{i}", tip)
    at_boundary = tip
    forks = {0: at_boundary}
    for i in range(1, case.session + 1):
        tip = add(f"s{i}", f"s{i}", tip)
        forks[i] = tip
        if case.shape == MERGE and i == case.side[1]:
            side = forks[case.side[0]]
            names = []
            for j in range(1, case.side_commits + 1):
                side = add(f"y{j}", f"y{j}", side, ref="refs/heads/side")
                names += [f"y{j}.a", f"y{j}.b"]
            tip = add("g1", "g1", tip, merge=side, files=names)
        for n, (after, target) in enumerate(case.fixups, start=1):
            if after == i and case.shape == AUTOSQUASH:
                tip = add(f"f{n}", f"fixup! {target}", tip, files=[f"f{n}.txt"])
    if case.moved:
        add("m1", "m1", old_main, ref="refs/heads/main")
    marks_file = path / ".git" / "marks"
    _git(path, "fast-import", "--quiet", f"--export-marks={marks_file}",
         stdin=stream.text())
    by_mark = dict(line.split() for line in marks_file.read_text().splitlines())
    marks_file.unlink()
    shas = {label: by_mark[mark] for label, mark in marks.items()}
    shas["main"] = old_main
    boundary = shas[f"p{case.pre}"] if case.pre else old_main
    _git(path, "symbolic-ref", "HEAD", "refs/heads/feat")
    _git(path, "reset", "-q", "--hard")
    began = next((when for label, when, _ in made if label[0] != "p"), stream.clock + 1)
    _log_as_made_here(path, shas, made, by_mark.get(tip, tip))
    # the session ledger as the post-commit hook would have written it: the session's
    # commits under its id, the ones from before it under none
    note_made(path, [shas[label] for label, _, _ in made if label[0] != "p"], SID)
    note_made(path, [shas[label] for label, _, _ in made if label[0] == "p"], None)
    sessions = path / ".lets" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(began))
    (sessions / ".task-feat").write_text(f"task: rebase\nsession: {boundary} {SID}\n"
                                         f"session-recorded: {boundary} {stamp}\n")
    return Built(shas, boundary, old_main, by_mark.get(tip, tip))


def _log_as_made_here(path: Path, shas: dict[str, str], made: list[tuple[str, int, str]],
                      tip: str) -> None:
    """The work tree's HEAD reflog as if the commits fast-import wrote had been made here
    one by one (``commit:`` entries at their own times: the pre-session ones before the
    session's recorded start), then HEAD checked out at the branch's tip. What the log
    held already (the repository's making) is dated before all of them."""
    log = path / ".git" / "logs" / "HEAD"
    first = made[0][1] if made else int(time.time())
    earlier = []
    for line in log.read_text().splitlines() if log.exists() else []:
        head, tab, message = line.partition("\t")
        parts = head.rsplit(" ", 2)
        if len(parts) == 3 and parts[1].isdigit() and int(parts[1]) >= first:
            line = f"{parts[0]} {first - 1} {parts[2]}{tab}{message}"
        earlier.append(line)
    lines = earlier
    previous = "0" * 40
    when = 0
    for label, when, subject in made:
        lines.append(f"{previous} {shas[label]} {IDENTITY} {when} +0000\tcommit: {subject}")
        previous = shas[label]
    lines.append(f"{previous} {tip} {IDENTITY} {when + 1} +0000\tcheckout: moving from "
                 "main to feat")
    log.write_text("\n".join(lines) + "\n")


# -- running the rebase -------------------------------------------------------------------

@dataclass
class Played:
    """What running the rebase left: the todo list git made, the one that ran, and
    everything git and the hooks said (pre-commit shows a hook's words on stdout)."""

    original: str
    final: str
    said: str


def play(box: HookBox, case: Case, built: Built, tools: Tools, work: Path) -> Played:
    """Run ``case``'s rebase in ``box`` as a user would (session id set), act at every
    ``edit`` stop, and assert that the rebase completed."""
    plan = work / "plan.json"
    ops = dict(case.ops)
    plan.write_text(json.dumps({
        "labels": built.labels(),
        "order": list(case.order) if case.order is not None else None,
        "ops": ops,
        "execs": [list(e) for e in case.execs],
        "original": str(work / "original-todo"),
        "final": str(work / "final-todo"),
    }))
    extra = tools.environ(plan)
    inserts = dict(case.inserts)
    done = box.sh(*case.command(built.old_main), sid=SID, extra=extra, check=False)
    said = [done.stdout + done.stderr]
    state = box.path / ".git" / "rebase-merge"
    for _ in range(40):
        if not state.exists():
            break
        stop = [line for line in (state / "done").read_text().splitlines()
                if line and not line.startswith("#")][-1].split()
        assert stop[0] in ("edit", "e"), (case, stop, done.stdout, done.stderr)
        label = built.label_of(stop[1])
        what = ops[label]
        if what == SPLIT:
            box.sh("reset", "-q", "HEAD~", sid=SID)
            box.sh("add", "--", f"{label}.a", sid=SID)
            box.sh("commit", "-q", "-m", f"{label}/1", sid=SID)
            box.sh("add", "--", f"{label}.b", sid=SID)
            box.sh("commit", "-q", "-m", f"{label}/2", sid=SID)
        elif what == INSERT:
            box.sh("commit", "-q", "--allow-empty", "-m", inserts[label], sid=SID)
        done = box.sh("rebase", "--continue", sid=SID, extra=extra, check=False)
        said.append(done.stdout + done.stderr)
    assert not state.exists(), (case, done.stdout, done.stderr)
    assert done.returncode == 0, (case, done.stdout, done.stderr)
    final = (work / "final-todo").read_text() if (work / "final-todo").exists() else ""
    original = (work / "original-todo").read_text() if (
        work / "original-todo").exists() else ""
    return Played(original, final, "".join(said))


# -- what the result must be --------------------------------------------------------------

def simulate(case: Case, built: Built, final: str) -> dict[str, frozenset[str]]:
    """Each commit the todo list makes, by subject, with the labels of what it holds
    (its own label for a new commit), in the order the todo list makes them."""
    made: list[tuple[str, set[str]]] = []
    ops = dict(case.ops)
    inserts = dict(case.inserts)
    for text in final.splitlines():
        cmd, _, rest = text.partition(" ")
        words = rest.split()
        if cmd in ("pick", "reword", "edit"):
            label = built.label_of(words[0])
            if cmd == "edit" and ops.get(label) == SPLIT:
                second = {label, TOUCHED} if is_pre_session(label) else {label}
                made += [(f"{label}/1", {f"{label}/1"}), (f"{label}/2", second)]
                continue
            # a reword or an edit stop of a pre-session commit is the session's change of
            # another's commit (SPEC 3): mixed, whatever the stop did
            touched = {TOUCHED} if cmd in ("reword", "edit") and is_pre_session(label) else set()
            made.append((label + ("~" if cmd == "reword" else ""), {label, *touched}))
            if cmd == "edit" and ops.get(label) == INSERT:
                made.append((inserts[label], {inserts[label]}))
        elif cmd in ("squash", "fixup"):
            label = built.label_of(words[0])
            subject, holds = made[-1]
            if cmd == "squash":
                subject = f"{subject}+{label}"
            # squashing a pre-session commit is the session's change of another's commit
            touched = {TOUCHED} if is_pre_session(label) else set()
            made[-1] = (subject, holds | {label, *touched})
        elif cmd == "exec":
            name = words[words.index("-m") + 1]
            made.append((name, {name}))
        elif cmd == "merge":
            label = built.label_of(words[words.index("-C") + 1])
            made.append((label, {label}))
        else:
            assert cmd in ("label", "reset", "drop"), text
    result = {subject: frozenset(holds) for subject, holds in made}
    assert len(result) == len(made), made  # subjects stay unique
    if case.base == INSIDE:  # what the rebase did not touch
        kept = [f"p{i}" for i in range(1, case.pre + 1)]
        kept += [f"s{i}" for i in range(1, case.session - case.inside + 1)]
        result.update({label: frozenset({label}) for label in kept})
    return result


@dataclass
class Truth:
    """The session work after the rebase, and the one boundary that counts it exactly
    (None: there is none, the case is ambiguous)."""

    commits: int
    boundary: str | None
    why: str


def judge(box: HookBox, case: Case, built: Built, played: Played) -> Truth:
    """Read the result back from git and compare it with the todo list that ran."""
    expected = simulate(case, built, played.final)
    floor = _git(box.path, "rev-parse", "main").strip()
    graph: dict[str, list[str]] = {}
    subjects: dict[str, str] = {}
    for line in _git(box.path, "log", "--format=%H %P%x09%s", "main..HEAD").splitlines():
        shas, _, subject = line.partition("\t")
        sha, *parents = shas.split()
        graph[sha] = parents
        subjects[subject] = sha
    assert len(subjects) == len(graph), ("subjects repeat", subjects)
    assert set(subjects) == set(expected), (
        case, played.final, sorted(subjects), sorted(expected))
    kinds: dict[str, str] = {}
    for subject, holds in expected.items():
        if TOUCHED in holds and built.shas.get(subject) == subjects[subject]:
            holds = holds - {TOUCHED}  # git kept the stopped commit as it was: untouched
        pre = {is_pre_session(label) for label in holds}
        kinds[subjects[subject]] = "mixed" if len(pre) == 2 else (
            "pre" if pre == {True} else "session")
    work = {sha for sha, kind in kinds.items() if kind != "pre"}
    mixed = [s for s, sha in subjects.items() if kinds[sha] == "mixed"]
    if mixed:
        return Truth(len(work), None, f"{mixed} mix pre-session and session work")
    pres = [sha for sha, kind in kinds.items() if kind == "pre"]
    if not pres:
        return Truth(len(work), floor, "no pre-session commit left above main")
    for candidate in pres:
        if _ancestry(graph, candidate) == set(pres):
            return Truth(len(work), candidate, "the pre-session commits end below the "
                                               "session's")
    return Truth(len(work), None, "session work lies below pre-session work")


def _ancestry(graph: dict[str, list[str]], sha: str) -> set[str]:
    """``sha`` and its ancestors within ``graph`` (the commits above main)."""
    seen: set[str] = set()
    todo = [sha]
    while todo:
        current = todo.pop()
        if current in seen or current not in graph:
            continue
        seen.add(current)
        todo += graph[current]
    return seen


def touches_pre_session(case: Case) -> bool:
    """Does the todo list stop at, change, or run a step right after a pre-session
    commit?"""
    return any(is_pre_session(label) for label, _ in case.ops) or (
        bool(case.execs) and case.pre > 0)


def check(box: HookBox, case: Case, tools: Tools, work: Path) -> Truth:
    """Build, rebase, and hold the answer to the rule (see the module docstring)."""
    built = build(box.path, case)
    played = play(box, case, built, tools, work)
    truth = judge(box, case, built, played)
    fields = box.boundary(env={"LETS_SESSION_ID": SID})
    context = (case, truth, "git's todo:", _lines(played.original), "ran:", played.final,
               fields, played.said)
    if truth.boundary is not None and not rewrote_anything(box):
        # Every commit dropped: git rewrote nothing, so it runs no post-rewrite hook at
        # all. No hook can move the boundary then; the answer may degrade (the boundary
        # is judged as it stands), but never be ``exact`` with a wrong count.
        if fields["SESSION_TRUST"] == "exact":
            assert fields["SESSION_COMMITS"] == str(truth.commits), context
        return truth
    if truth.boundary is not None and fields["SESSION_TRUST"] == "prior-session" and \
            touches_pre_session(case) and "holds this session's work and another's" in \
            fields["stderr"]:
        # The session ledger's rule is conservative where the session rewrote a
        # pre-session commit (an edit stop or an exec after its pick on a moved base:
        # whether the stop changed it is not read from the commits): degraded, and said.
        assert "lets-hooks: post-rewrite" in played.said, context
        return truth
    if truth.boundary is not None:
        assert fields["SESSION_TRUST"] == "exact", context
        assert fields["SESSION_COMMITS"] == str(truth.commits), context
        assert fields["SESSION_BOUNDARY"] == truth.boundary, context
        assert "lets-hooks: " not in played.said, ("a hook spoke though all is well",
                                                     context)
    elif fields["SESSION_TRUST"] == "exact":
        assert fields["SESSION_COMMITS"] == str(truth.commits), context
    else:
        assert fields["SESSION_TRUST"] == "prior-session", context
        assert "NOTE: " in fields["stderr"], context
        assert "lets-hooks: post-rewrite" in played.said, (
            "the boundary was degraded without a word from post-rewrite", context)
    return truth


MARKER_HOOK = "#!/bin/sh\n: > .git/post-rewrite-ran\n"


def rewrote_anything(box: HookBox) -> bool:
    """Did git run post-rewrite for the last rebase? The template chains a hook before
    lets-hooks' own that leaves a mark; without that hook (another set-up), assume so."""
    if not (box.path / ".git" / "hooks" / "post-rewrite.pre-lets").exists():
        return True
    return (box.path / ".git" / "post-rewrite-ran").exists()


def _lines(todo: str) -> str:
    return "".join(line + "\n" for line in todo.splitlines()
                   if line and not line.startswith("#"))


def fresh(template: Path, dest: Path) -> Copy:
    """A copy of the template repository (hooks and all) at ``dest``."""
    shutil.copytree(template, dest, symlinks=True)
    return Copy(dest)


# -- a fixed sample of the space, written out ---------------------------------------------

SAMPLE: dict[str, Case] = {
    "reorder": Case(0, 4, order=("s2", "s1", "s4", "s3")),
    "split_first": Case(0, 3, ops=(("s1", SPLIT),)),
    "exec_insert_first": Case(0, 3, execs=((0, "x1"),)),
    "onto_moved_main": Case(1, 3, base=ONTO, moved=True, order=("p1", "s1", "s3", "s2"),
                            ops=(("s2", "reword"),)),
    "autosquash": Case(0, 3, moved=True, shape=AUTOSQUASH,
                       fixups=((2, "s1"), (3, "s2"))),
    "rebase_merges": Case(1, 3, moved=True, no_ff=True, shape=MERGE, side=(1, 2),
                          side_commits=2, ops=(("y1", "reword"),), execs=((5, "x1"),)),
    "base_inside_session": Case(1, 5, base=INSIDE, inside=3, order=("s5", "s3", "s4"),
                                ops=(("s4", "squash"),), execs=((0, "x1"),)),
    "squash_across_boundary": Case(2, 3, order=("p1", "p2", "s1", "s2", "s3"),
                                   ops=(("s1", "squash"),)),
}
