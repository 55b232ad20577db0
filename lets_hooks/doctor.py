"""``lets-hooks doctor``: what is installed, whether git will run it, what would help.

One look, no writes: which of the three hooks run lets-hooks and through what (the plain
shims, husky, lefthook, pre-commit), whether git will run them (the folder it runs hooks
from, executable bits, the interpreter a shim names), git's version, the merge branch
(with a "did you mean" for a mistyped one), whether a session id is set, whether ``.lets/``
is kept out of commits, and whether a long history lacks a commit-graph. A dozen git
processes at most, none of which walks more than 10,001 commits.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import asdict, dataclass, field

from lets_hooks import agents, config, files, gitfiles, install, ladder, ledger, state, witness
from lets_hooks.install import HOOKS, Setup
from lets_hooks.repo import GitError, Repo, reason, run_program

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lets_hooks.config import Config
    from lets_hooks.repo import Location

OK, WARN, INFO, NOTE = "ok", "warn", "info", "note"  # only WARN makes doctor fail
MIN_GIT = (2, 25)
BIG_HISTORY = 10_000


@dataclass
class Check:
    """One line of the report: a status, what was found, and what to do about it."""

    name: str
    status: str
    text: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Diagnosis:
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, status: str, text: str, fix: str = "") -> None:
        self.checks.append(Check(name, status, text, fix))

    @property
    def healthy(self) -> bool:
        return all(check.status != WARN for check in self.checks)


def diagnose(cwd: str | None, environ: Mapping[str, str]) -> Diagnosis:
    """Every check; a repository problem is a finding, never an exception."""
    found = Diagnosis()
    repo = Repo(cwd)
    try:
        _git_version(repo, found)
        where = repo.locate()
        setup = install.survey(where.top or cwd)
    except (GitError, install.InstallError) as exc:  # (InstallError: its line as it is)
        found.add("repository", WARN, reason(exc) if isinstance(exc, GitError) else str(exc))
        return found
    settings = config.load(where.top, environ)
    for problem in settings.problems:
        found.add("config", WARN, problem)
    _hooks_folder(setup, found)
    _switched_off(setup, environ, found)
    probes: dict[tuple[str, str, str], tuple[int, str, str]] = {}
    left_out: list[str] = []
    for hook in HOOKS:
        _hook(setup, hook, found, environ, probes, left_out)
    _left_out_by_pre_commit(left_out, found)
    _stale(setup, found)
    top_repo = setup.repo
    try:
        _merge_branch(top_repo, where, settings, found)
        _session_id(settings, environ, found)
        if not setup.bare:
            _ignored(top_repo, setup.top, setup.common_dir, found)
            _witness(repo, where, found)
            _ledger(repo, setup.common_dir, found)
        _history(top_repo, setup.common_dir, found)
    except GitError as exc:
        found.add("repository", WARN, reason(exc))
    return found


# -- git and the hooks folder ------------------------------------------------------------------

def _git_version(repo: Repo, found: Diagnosis) -> None:
    version = repo.version()
    shown = ".".join(str(n) for n in version) or "unknown"
    if version[:2] < MIN_GIT:
        found.add("git", WARN, f"git {shown}: lets-hooks needs git 2.25 or newer",
                  "upgrade git")
    else:
        found.add("git", OK, f"git {shown}")


def _hooks_folder(setup: Setup, found: Diagnosis) -> None:
    text = f"git runs hooks from {setup.shown(setup.hooks_dir)}"
    if setup.bare:
        text += " (a bare repository: for its linked work trees)"
    if setup.hooks_path is not None:
        text += f" (core.hooksPath = {setup.hooks_path}"
        text += f", set in {setup.origin})" if setup.origin else ")"
    manager = _manager(setup)
    if manager:
        text += f"; managed by {manager}"
    found.add("hooks folder", OK, text)
    if setup.husky is not None and setup.husky.sparse:
        user = setup.shown(setup.husky.user_dir)
        found.add("husky", WARN, f"husky's {user}/ is left out of this work tree by its sparse "
                  f"checkout, so git runs none of its hooks here (core.hooksPath = "
                  f"{setup.hooks_path})", f"git sparse-checkout add {user}, then npm install "
                  f"(husky's prepare script lays out {user}/_)")
    elif setup.husky is not None and not setup.husky.laid_out:
        found.add("husky", WARN, f"husky's {setup.shown(setup.husky.stubs)} is not in this work "
                  f"tree, so git runs none of its hooks here (core.hooksPath = "
                  f"{setup.hooks_path} is relative, and husky's folder is not committed: a "
                  "work tree added with git worktree add lacks it)",
                  "npm install (husky's prepare script lays it out), or npx husky, in this "
                  "work tree")
    elif setup.husky is not None and not setup.husky.active:
        found.add("husky", WARN, f"{setup.shown(setup.husky.user_dir)} is here but husky is "
                  "not set up in this clone (core.hooksPath does not point at it), so git "
                  "runs none of its hooks", "npm install (or npx husky)")


def _manager(setup: Setup) -> str:
    if setup.pre_commit:
        return "pre-commit"
    if setup.husky is not None:
        return f"husky {setup.husky.version}"
    if setup.lefthook is not None:
        return f"lefthook ({setup.lefthook})"
    return ""


def _switched_off(setup: Setup, environ: Mapping[str, str], found: Diagnosis) -> None:
    """HUSKY=0 and LEFTHOOK=0 make the manager run no hook at all (lets-hooks' included)."""
    if setup.husky is not None:
        init = os.path.join(environ.get("XDG_CONFIG_HOME") or os.path.join(
            environ.get("HOME", ""), ".config"), "husky", "init.sh")
        if environ.get("HUSKY") == "0":
            found.add("husky", WARN, "HUSKY=0 is set here, so husky runs no hook at all "
                      "(the lets-hooks lines included)", "unset HUSKY")
        elif install.holds(init, (b"HUSKY=0",)):
            found.add("husky", WARN, f"{files.show(init)} sets HUSKY=0, so husky may run no "
                      "hook at all (the lets-hooks lines included)",
                      f"take HUSKY=0 out of {files.show(init)}")
    if setup.lefthook is not None and not setup.pre_commit and setup.husky is None:
        value = environ.get("LEFTHOOK", "")
        if value in ("0", "false"):
            found.add("lefthook", WARN, f"LEFTHOOK={value} is set here, so lefthook runs no "
                      "hook at all (the lets-hooks entries included)", "unset LEFTHOOK")


# -- each hook --------------------------------------------------------------------------------

def _hook(setup: Setup, hook: str, found: Diagnosis, environ: Mapping[str, str],
          probes: dict[tuple[str, str, str], tuple[int, str, str]],
          left_out: list[str]) -> None:
    """What runs lets-hooks for ``hook``: git's config hooks (2.54+), then the manager or
    the plain shim; both at once runs it twice. A hook pre-commit cannot install, with no
    shim beside it, goes to ``left_out`` (said once for all such)."""
    configured = install.lets_config_hooks(setup, hook)
    names = ", ".join(f"hook.{h.name}" for h in configured)
    if configured and install.event_disabled(setup, hook):
        found.add(hook, INFO, f"{names} in the git config runs lets-hooks, but "
                  f"hook.{hook}.enabled is false, so git runs none of the config's {hook} "
                  "hooks (the hooks folder's still runs)")
        configured = []
    folder = Diagnosis()
    ours = install.read_shim(install.read_text(os.path.join(setup.hooks_dir, hook)) or "")
    if setup.pre_commit and ours is not None:  # a shim beside pre-commit's scripts
        present = _by_shim(setup, hook, folder, environ, probes)
    elif setup.pre_commit and hook in install.PRE_COMMIT_IDS:
        present = _by_pre_commit(setup, hook, folder)
    elif setup.pre_commit:
        left_out.append(hook)
        present = False
    elif setup.husky is not None:
        present = _by_husky(setup, hook, folder, environ)
    elif setup.lefthook is not None:
        present = _by_lefthook(setup, hook, folder)
    else:
        present = _by_shim(setup, hook, folder, environ, probes)
    if not configured:
        found.checks += folder.checks
        return
    origins = ", ".join(sorted({h.origin for h in configured}))
    if not install.config_hooks_run(setup):
        found.checks += folder.checks
        found.add(hook, INFO, f"{names} in the git config ({origins}) runs lets-hooks, but "
                  "this git runs no hooks from its config (asked: git hook list does not "
                  "list them; git 2.54 and later do)")
    elif present:
        text = folder.checks[0].text if folder.checks else ""
        found.add(hook, WARN, f"runs twice: {names} (git config, {origins}) and {text}; git "
                  "runs the config's hooks first, then the hooks folder's",
                  f"keep one: lets-hooks uninstall (the config hooks stay), or git config "
                  f"unset hook.{configured[0].name}.command")
    else:
        found.add(hook, OK, f"{names} in the git config runs lets-hooks ({origins})")


def _by_shim(setup: Setup, hook: str, found: Diagnosis, environ: Mapping[str, str],
             probes: dict[tuple[str, str, str], tuple[int, str, str]]) -> bool:
    path = os.path.join(setup.hooks_dir, hook)
    content = (install.read_text(path) if os.path.isfile(path) else None) or ""
    shim = install.read_shim(content)
    if shim is None:
        what = "another hook is there" if os.path.lexists(path) else "nothing is there"
        found.add(hook, WARN, f"lets-hooks is not installed for it ({what})",
                  "lets-hooks install")
        return False
    text = f"lets-hooks shim {shim.version} in {setup.shown(path)}"
    if os.path.lexists(path + install.CHAINED):
        text += f" (runs {hook}{install.CHAINED} first)"
    if shim.pristine and shim.current(hook, content):
        _probed(setup, hook, path, shim, text, found, environ, probes)
        return True
    problems = []
    if not os.access(path, os.X_OK):
        problems.append("it is not executable, so git skips it")
    if not shim.pristine:
        problems.append("it was edited since install")
    runner = _runner(shim)
    if runner is None:
        problems.append(f"the Python it runs ({shim.python}) is gone and no working "
                        "lets-hooks is on PATH")
    else:
        text += f", runs {runner}"
    if not problems:  # runs, but is not what this lets-hooks writes
        problems.append(f"written by another version ({shim.version})"
                        if shim.version != install.VERSION else "written by an earlier build "
                        f"of lets-hooks {shim.version}, without this one's fixes")
    found.add(hook, WARN, f"{text}; " + "; ".join(problems), "lets-hooks install")
    return True


def _probed(setup: Setup, hook: str, path: str, shim: install.Shim, text: str,
            found: Diagnosis, environ: Mapping[str, str],
            probes: dict[tuple[str, str, str], tuple[int, str, str]]) -> None:
    """Ask the shim itself what it would run (``LETS_HOOKS_PROBE``: it starts lets-hooks
    with ``--version`` the way the hook would, and runs nothing else)."""
    if not os.access(path, os.X_OK):
        found.add(hook, WARN, f"{text}; it is not executable, so git skips it",
                  "lets-hooks install")
        return
    key = (shim.python, shim.lib, shim.command)
    if key not in probes:  # shims of one install start lets-hooks the same way: ask once
        probes[key] = run_program(["/bin/sh", path], cwd=setup.top,
                                  environ={**environ, "LETS_HOOKS_PROBE": "1"})
    code, out, err = probes[key]
    runs = [line[len("runs: "):] for line in out.splitlines() if line.startswith("runs: ")]
    kind, _, what = (runs[-1] if runs else "").partition(" ")
    if code != 0 or not kind:
        said = err.strip().splitlines()
        why = said[-1] if said else f"the shim's probe exited {code}"
        found.add(hook, WARN, f"{text}; it cannot run lets-hooks: {why}",
                  "reinstall lets-hooks where it was installed (pipx reinstall lets-hooks; in "
                  "a virtual environment, pip install it again), then lets-hooks install")
    elif kind == "python":
        found.add(hook, OK, f"{text}, runs {what}")
    elif kind == "site":
        found.add(hook, WARN, f"{text}; the folders it imports lets-hooks from are gone (its "
                  f"virtual environment was rebuilt, for another Python?): it still runs, "
                  f"through {what}'s site, slower", "lets-hooks install")
    elif shim.python:
        found.add(hook, WARN, f"{text}; the Python it names ({shim.python}) cannot run "
                  f"lets-hooks, so it falls back to {what}",
                  "lets-hooks install (with the lets-hooks you use now)")
    else:
        found.add(hook, OK, f"{text}, runs {what} (found on PATH)")


def _runner(shim: install.Shim) -> str | None:
    """What the shim will run: its own Python, else a lets-hooks from PATH whose ``#!``
    interpreter is there (as the shim checks)."""
    if shim.python and os.access(shim.python, os.X_OK):
        return shim.python
    on_path = shutil.which("lets-hooks")
    if not on_path:
        return None
    data, _ = files.read_capped(on_path, 1 << 16, follow=True)
    first = (data or b"").split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
    words = first[2:].split()
    if first.startswith("#!") and not (words and os.access(words[0], os.X_OK)):
        return None
    return on_path


def _by_husky(setup: Setup, hook: str, found: Diagnosis, environ: Mapping[str, str]) -> bool:
    husky = setup.husky
    assert husky is not None
    path = os.path.join(husky.user_dir, hook)
    shown = setup.shown(path)
    if husky.sparse:
        user = setup.shown(husky.user_dir)
        found.add(hook, WARN, f"husky {husky.version}: {user}/ is left out of this work tree "
                  "by its sparse checkout, so git runs nothing",
                  f"git sparse-checkout add {user}, then npm install")
        return False
    text = install.read_text(path) if os.path.isfile(path) else None
    if text is None or install.LINE_MARK not in text:
        found.add(hook, WARN, f"husky {husky.version}: {shown} has no lets-hooks line",
                  "lets-hooks install")
        return False
    if not husky.laid_out:
        found.add(hook, WARN, f"husky {husky.version}: lets-hooks line in {shown}, but husky's "
                  f"{setup.shown(husky.stubs)} is not in this work tree, so git runs nothing",
                  "npm install, or npx husky, in this work tree")
        return True
    problems = []
    if install.husky_line(hook) not in text.split("\n"):
        problems.append("its lets-hooks line is from another version or was edited")
    stub = os.path.join(husky.stubs, hook)
    stubs_missing = husky.version >= 9 and not os.access(stub, os.X_OK)
    if stubs_missing:
        problems.append(f"husky's {setup.shown(stub)} is missing, so git runs nothing "
                        "(npm install sets it up)")
    elif husky.version < 9 and not os.access(path, os.X_OK):
        problems.append("it is not executable, so git skips it")
    on_path = shutil.which("lets-hooks", path=environ.get("PATH"))  # as the husky line does
    runs = on_path is not None and run_program([on_path, "--version"])[0] == 0
    if on_path is None:
        problems.append("the line calls lets-hooks from PATH and none is on PATH")
    elif not runs:
        problems.append(f"{on_path} cannot run (its Python is gone, or lacks lets-hooks)")
    base = f"husky {husky.version}: lets-hooks line in {shown}"
    if stubs_missing:
        fix = "npm install, or npx husky"
    elif not runs:
        fix = ("put a working lets-hooks on PATH, where the line looks for it (pipx install "
               "lets-hooks, or the virtual environment's bin folder)")
    else:
        fix = "lets-hooks install"
    if problems:
        found.add(hook, WARN, f"{base}; " + "; ".join(problems), fix)
    else:
        found.add(hook, OK, base)
    return True


def _left_out_by_pre_commit(hooks: list[str], found: Diagnosis) -> None:
    """The hooks pre-commit cannot install, with nothing of ours there either: said once,
    as a note, not a failure (``lets-hooks install`` writes shims beside pre-commit's)."""
    if not hooks:
        return
    what = ", ".join(hooks)
    found.add("pre-commit", NOTE, f"pre-commit cannot install {what}, so nothing runs "
              f"lets-hooks for {'it' if len(hooks) == 1 else 'them'}: commits that git am "
              "makes are not written to the session ledger",
              f"lets-hooks install (writes {'a shim' if len(hooks) == 1 else 'shims'} for "
              f"{what} only, beside pre-commit's scripts)")


def _by_pre_commit(setup: Setup, hook: str, found: Diagnosis) -> bool:
    hook_id = install.PRE_COMMIT_IDS[hook]
    listed = install.mentions(setup, (install.PRE_COMMIT_CONFIG,),
                               f"id: {hook_id}".encode())
    path = os.path.join(setup.hooks_dir, hook)
    theirs = install.holds(path, install.PRE_COMMIT_SIGNS)
    if install.read_shim(install.read_text(path + ".legacy") or "") is not None:
        found.add(hook, WARN, f"a lets-hooks shim runs as {hook}.legacy under pre-commit "
                  "(its migration mode)" + (f", and {hook_id} runs too" if listed else ""),
                  "pick one: lets-hooks uninstall (then use the pre-commit hooks), or "
                  f"pre-commit uninstall --hook-type {hook}")
        return True
    if not listed and not theirs:
        found.add(hook, WARN, "lets-hooks is not installed for it, and pre-commit has no "
                  "script for it either", "lets-hooks install (it writes the hooks beside "
                  "pre-commit's)")
        return False
    if not listed:
        found.add(hook, WARN, f"pre-commit runs the hooks here and "
                  f"{install.PRE_COMMIT_CONFIG} does not list {hook_id}",
                  f"add {hook_id} to {install.PRE_COMMIT_CONFIG}")
        return False
    if not theirs:
        found.add(hook, WARN, f"{hook_id} is in {install.PRE_COMMIT_CONFIG}, but pre-commit's "
                  f"{hook} script is not installed, so it never runs",
                  f"pre-commit install --hook-type {hook}")
    else:
        found.add(hook, OK, f"pre-commit runs {hook_id}")
    return True


def _by_lefthook(setup: Setup, hook: str, found: Diagnosis) -> bool:
    config = setup.lefthook or ""
    listed = install.mentions(setup, install.LEFTHOOK_CONFIGS + install.LEFTHOOK_LOCALS,
                               f"lets-hooks {hook}".encode())
    path = os.path.join(setup.hooks_dir, hook)
    theirs = install.holds(path, (install.LEFTHOOK_SIGN,))
    if install.read_shim(install.read_text(path + ".old") or "") is not None:
        found.add(hook, WARN, f"lefthook moved a lets-hooks shim aside as {hook}.old, where "
                  "git never runs it", "lets-hooks uninstall removes it")
        return False
    if not listed:
        elsewhere = install.local_config_elsewhere(setup, hook)
        if elsewhere is not None:
            name = os.path.basename(elsewhere)
            found.add(hook, WARN, f"lefthook runs the hooks here, but the lets-hooks {hook} "
                      f"entry is in {files.show(elsewhere)}, which is untracked: this work "
                      f"tree (added with git worktree add) has no {name}, so lefthook runs "
                      f"nothing of lets-hooks here", f"ln -s {files.show(elsewhere)} {name}, "
                      f"in this work tree (or add the entries to {config}, which every work "
                      "tree has)")
            return False
        found.add(hook, WARN, f"lefthook runs the hooks here and {config} has no "
                  f"lets-hooks {hook} entry", "lets-hooks install prints the entries")
        return False
    if not theirs:
        found.add(hook, WARN, f"{config} runs lets-hooks {hook}, but lefthook's {hook} "
                  "hook is not installed", "lefthook install")
    else:
        found.add(hook, OK, f"lefthook runs lets-hooks {hook} ({config})")
    return True


def _stale(setup: Setup, found: Diagnosis) -> None:
    """Shims of ours in a folder git no longer runs (core.hooksPath was set after)."""
    if os.path.realpath(setup.default_dir) == os.path.realpath(setup.hooks_dir):
        return
    left = [hook for hook in HOOKS
            if install.read_shim(install.read_text(os.path.join(setup.default_dir, hook)) or "")]
    if left:
        found.add("stale shims", WARN, f"lets-hooks shims in {setup.shown(setup.default_dir)} "
                  f"({', '.join(left)}) are not run: git runs hooks from "
                  f"{setup.shown(setup.hooks_dir)}", "lets-hooks uninstall, then install")


# -- the repository -------------------------------------------------------------------------------

def _merge_branch(repo: Repo, where: Location, settings: Config, found: Diagnosis) -> None:
    merge = settings.merge_branch or where.origin_head
    source = settings.sources.get("merge_branch") or ("origin/HEAD" if merge else "default")
    unborn = where.branch if where.head is None else None
    merge, origin, local = ladder.merge_branch(repo, merge, unborn)
    if origin or local:
        which = f"origin/{merge}" if origin else merge
        found.add("merge branch", OK, f"{merge} (from {source}; measured against {which})")
        return
    if source == "default" and merge == unborn:
        found.add("merge branch", INFO, f"{merge} (from default: the branch HEAD names, "
                  "which has no commit yet)")
        return
    close = ladder.suggest(repo, merge)
    hint = f"; did you mean {close!r}?" if close else ""
    where_set = source if source != "default" else ".lets/config.toml"
    fix = (f'merge_branch = "{close}" in {where_set}' if close
           else "set merge_branch in .lets/config.toml (or LETS_MERGE_BRANCH)")
    found.add("merge branch", WARN, f"{merge!r} (from {source}): no such branch, neither "
              f"origin/{merge} nor {merge}{hint}", fix)


def _session_id(settings: Config, environ: Mapping[str, str], found: Diagnosis) -> None:
    names = settings.session_id_env
    found_id = settings.session_id_variable(environ)
    seen = agents.seen_from(environ)
    if found_id is not None:
        whose = f" (a {seen[0].title} session)" if seen is not None else ""
        found.add("session id", OK, f"{found_id[0]} is set{whose}")
        return
    gemini = seen is not None and seen[0] is agents.GEMINI_CLI
    # said, not a failure: doctor exits 0
    found.add("session id", NOTE, f"none of {', '.join(names)} is set, so no boundary is "
              "ever exact (only prior-session or estimate)"
              + ("; this is a Gemini CLI shell, which gives its commands no session id"
                 if gemini else ""),
              "install the lets-hooks Gemini CLI extension (its BeforeTool hook hands "
              f"{names[0]} to each command)" if gemini else
              f"export {names[0]}=<an id for this session> in the session's environment")


def _ignored(repo: Repo, top: str, common: str, found: Diagnosis) -> None:
    blocked = state.exclude_blocked(common)
    if os.path.islink(os.path.join(top, ".lets")):
        # another work tree's .lets, linked: git sees a file, which `.lets/` does not match
        if repo.is_ignored(".lets"):
            found.add(".lets/", OK, "a link to another work tree's .lets, ignored by git")
        else:
            found.add(".lets/", WARN, "a link that git does not ignore: git add -A would "
                      "commit it", "add .lets (no slash: it is a link) to "
                      + (".gitignore" if blocked else ".git/info/exclude"))
        return
    if repo.is_ignored(".lets/"):
        found.add(".lets/", OK, "ignored by git")
    elif repo.is_ignored(".lets/sessions/") and repo.is_ignored(".lets/locks/"):
        found.add(".lets/", OK, ".lets/sessions/ and .lets/locks/ ignored by git")
    elif os.path.lexists(os.path.join(top, ".lets")):
        found.add(".lets/", WARN, "not ignored: git add -A would commit the session state"
                  + (f" ({blocked})" if blocked else ""),
                  "add .lets/ to .gitignore" + ("" if blocked else " or .git/info/exclude"))
    elif blocked:
        found.add(".lets/", WARN, f"not there yet, and the first write cannot add .lets/ to "
                  f".git/info/exclude ({blocked})", "add .lets/ to .gitignore")
    else:
        found.add(".lets/", INFO, "not there yet; the first write adds .lets/ to "
                  ".git/info/exclude")


def _witness(repo: Repo, where: Location, found: Diagnosis) -> None:
    """Is there a record of which commits this work tree made (docs/witness.md)? Without
    one no answer is ever exact."""
    if where.head is None or where.top is None:
        return
    why = witness.missing(where.git_dir, where.head)
    if why is None:
        what = "reftable" if gitfiles.uses_reftable(where.git_dir) else "logs/HEAD"
        found.add("witness", OK, f"this work tree's HEAD reflog ({what})")
        return
    setting = repo.config_origin("core.logAllRefUpdates")
    if setting is not None and setting[1].strip().lower() in ("false", "no", "off", "0"):
        where_set = f", set in {setting[0]}" if setting[0] else ""
        said = f"; core.logAllRefUpdates = {setting[1].strip()}{where_set}"
        fix = ("git config core.logAllRefUpdates true (git then logs HEAD's moves from the "
               "next one on)")
    else:
        said = ""
        fix = "git logs HEAD's moves again from the next one on (commit, checkout, reset)"
    found.add("witness", WARN, f"{why}, so no answer is exact{said}", fix)


def _ledger(repo: Repo, common_dir: str, found: Diagnosis) -> None:
    """The session ledger (docs/witness.md): what ``exact`` rests on. Whether git runs
    its writers is each hook's own line (post-commit, post-merge, post-applypatch)."""
    book = ledger.read(common_dir)
    if not book.order:
        found.add("ledger", NOTE, "no commit written down with the session that made it yet "
                  "(the session ledger starts with the first commit the post-commit hook "
                  "sees): until then no answer is exact",
                  "commit as usual, with the hooks installed (lets-hooks install)")
        return
    made = repo.objects([min(book.order, key=book.order.__getitem__)])[0].commit_time
    since = "" if made is None else time.strftime(", kept since a commit of %Y-%m-%d",
                                                  time.gmtime(made))
    found.add("ledger", OK, f"{book.lines} lines in {ledger.FOLDER}/{ledger.NAME} of the git "
              f"directory{since}")


def _history(repo: Repo, common_dir: str, found: Diagnosis) -> None:
    counted = repo.count_head(BIG_HISTORY + 1)
    if counted is None:
        found.add("history", INFO, "no commits yet")
        return
    if counted <= BIG_HISTORY:
        found.add("history", OK, f"{counted} commit" + ("" if counted == 1 else "s"))
    elif gitfiles.has_commit_graph(common_dir):
        found.add("history", OK, f"over {BIG_HISTORY:,} commits, with a commit-graph")
    else:
        found.add("history", WARN, f"over {BIG_HISTORY:,} commits and no commit-graph: "
                  "every ladder answer walks the history from the packs",
                  "git commit-graph write --reachable")
