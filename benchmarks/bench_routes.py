"""What each install route costs the git commands a user types, on a large repository.

    python benchmarks/make_repo.py /tmp/bench-20k --commits 20000
    python benchmarks/bench_routes.py /tmp/bench-20k [--runs 11]

Five copies of the repository, one per route, each timed on the same four commands,
interleaved run by run (so drift on a busy machine hits every route alike):

- ``no hooks``: git alone;
- ``plain shims``: ``lets-hooks install``;
- ``pre-commit alone``: pre-commit with a hook of the team's (``language: system``, at the
  pre-commit stage), no lets-hooks: what a pre-commit user has before lets-hooks;
- ``pre-commit, README``: the same, plus the README's setup: ``lets-state-lint`` in the
  config at the manual stage (for CI: at the commit stage pre-commit would check its
  environment by starting its Python on every commit, even for a hook its file filter
  skips), and ``lets-hooks install``, which writes the six hooks as plain shims beside
  pre-commit's own;
- ``pre-commit, every id``: the same team hook, and every lets-hooks id run by pre-commit
  (the setup the README gave before: pre-commit starts for each hook call, and git runs
  post-commit for every commit a rebase makes).

The commands: ``git commit`` (one changed file), ``git commit --amend --no-edit``, a
20-commit ``git rebase --force-rebase``, and ``git push`` of one new commit to a local
bare repository. Goals: the README's pre-commit setup adds at most 20 ms to a commit and
0.5 s to the rebase over pre-commit alone. Medians, in milliseconds.

The hook repository pre-commit installs is a commit of this checkout's working tree (as
the tests' ``precommit_box`` makes it); pre-commit builds its environment once, in a
``PRE_COMMIT_HOME`` under the scratch folder (``--pre-commit-home`` to keep one between
runs). Run it with the interpreter of a plain ``pip install .`` that has pre-commit.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import command

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SESSION_ID = "bench-session"
REBASED = 20
COMMIT_GOAL_MS, REBASE_GOAL_MS = 20.0, 500.0

TEAM_HOOK = """\
-   repo: local
    hooks:
    -   id: team-check
        name: the team's own check
        entry: "true"
        language: system
"""
# The README's setup: the lint for CI (manual stage); the six hooks are `lets-hooks
# install`'s shims.
README_IDS = """\
-   repo: {repo}
    rev: {rev}
    hooks:
    -   id: lets-state-lint
        stages: [manual]
"""
EVERY_ID = """\
-   repo: {repo}
    rev: {rev}
    hooks:
    -   id: lets-post-checkout
    -   id: lets-post-rewrite
    -   id: lets-pre-push
    -   id: lets-post-commit
    -   id: lets-post-merge
    -   id: lets-state-lint
"""
EVERY_TYPE = ("pre-commit", "post-checkout", "post-rewrite", "pre-push", "post-commit",
              "post-merge")
ROUTES = ("no hooks", "plain shims", "pre-commit alone", "pre-commit, README",
          "pre-commit, every id")
COMMANDS = ("commit", "amend", f"rebase of {REBASED}", "push")


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def hook_repository(scratch: Path) -> tuple[Path, str]:
    """This checkout's working tree, committed (tracked and untracked files, ignored ones
    left out)."""
    dest = scratch / "lets-hooks-src"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
        check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m",
        "the working tree under test")
    return dest, git(dest, "rev-parse", "HEAD").strip()


def prepare(route: str, source: Path, scratch: Path, lets: str, hook_repo: tuple[Path, str],
            env: dict[str, str]) -> Path:
    """A copy of ``source`` set up for ``route``, on a branch ``work`` with 20 commits of
    its own above main, and a bare ``origin`` that has them."""
    repo = scratch / route.replace(" ", "-").replace(",", "")
    shutil.copytree(source, repo, symlinks=True)
    git(repo, "checkout", "-q", "-B", "work", "main", env=env)
    for k in range(REBASED):
        (repo / "work.txt").write_text(f"{k}\n")
        git(repo, "add", "work.txt", env=env)
        git(repo, "commit", "-q", "--no-verify", "-m", f"work {k}", env=env)
    origin = scratch / f"{repo.name}-origin.git"
    git(scratch, "init", "-q", "--bare", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "--no-verify", "origin", "work", env=env)
    if route == "plain shims":
        subprocess.run([lets, "install"], cwd=repo, env=env, check=True, capture_output=True)
    elif route.startswith("pre-commit"):
        where, rev = hook_repo
        config = "repos:\n" + TEAM_HOOK
        if route == "pre-commit, README":
            config += README_IDS.format(repo=where, rev=rev)
        elif route == "pre-commit, every id":
            config += EVERY_ID.format(repo=where, rev=rev)
        (repo / ".pre-commit-config.yaml").write_text(config)
        git(repo, "add", ".pre-commit-config.yaml", env=env)
        git(repo, "commit", "-q", "--no-verify", "-m", "pre-commit", env=env)
        git(repo, "push", "-q", "--no-verify", "origin", "work", env=env)
        types = EVERY_TYPE if route == "pre-commit, every id" else ("pre-commit",)
        argv = [sys.executable, "-m", "pre_commit", "install"]
        for hook_type in types:
            argv += ["--hook-type", hook_type]
        subprocess.run(argv, cwd=repo, env=env, check=True, capture_output=True)
        subprocess.run([sys.executable, "-m", "pre_commit", "install-hooks"], cwd=repo,
                       env=env, check=True, capture_output=True)
        if route == "pre-commit, README":
            subprocess.run([lets, "install"], cwd=repo, env=env, check=True,
                           capture_output=True)
    return repo


def timed(argv: list[str], repo: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (git, its hooks and what they start) of ``argv``: on a
    busy machine the CPU time tells the cost apart from the waiting."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True,
                          check=False)
    took = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{repo.name}: {' '.join(argv)} failed: {done.stdout}{done.stderr}")
    return took, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def one_round(repo: Path, env: dict[str, str], k: int) -> dict[str, tuple[float, float]]:
    """Each command once, in ``repo``; what is not timed (a change to commit) is done
    without hooks."""
    took = {}
    (repo / "work.txt").write_text(f"round {k}\n")
    git(repo, "add", "work.txt", env=env)
    took["commit"] = timed(["git", "commit", "-q", "-m", f"round {k}"], repo, env)
    took["amend"] = timed(["git", "commit", "-q", "--amend", "--no-edit"], repo, env)
    took[f"rebase of {REBASED}"] = timed(
        ["git", "rebase", "-q", "--force-rebase", f"HEAD~{REBASED}"], repo, env)
    (repo / "pushed.txt").write_text(f"push {k}\n")
    git(repo, "add", "pushed.txt", env=env)
    git(repo, "commit", "-q", "--no-verify", "-m", f"push {k}", env=env)
    took["push"] = timed(["git", "push", "-q", "--force", "origin", "work"], repo, env)
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time each install route's cost.")
    parser.add_argument("repo", type=Path, help="made by benchmarks/make_repo.py")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--pre-commit-home", type=Path, default=None)
    args = parser.parse_args(argv)
    lets = command("lets-hooks")
    with tempfile.TemporaryDirectory(prefix="lets-bench-routes-") as tmp:
        scratch = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(LETS_SESSION_ID=SESSION_ID, NO_COLOR="1",
                   PRE_COMMIT_HOME=str(args.pre_commit_home or scratch / "pre-commit-home"),
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
                   GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
                   GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com")
        hook_repo = hook_repository(scratch)
        repos = {route: prepare(route, args.repo, scratch, lets, hook_repo, env)
                 for route in ROUTES}
        commits = git(args.repo, "rev-list", "--count", "main").strip()
        print(f"repository: {int(commits):,} commits on main; {args.runs} runs of each "
              "command, the routes interleaved")
        samples: dict[str, dict[str, tuple[list[float], list[float]]]] = {
            route: {name: ([], []) for name in COMMANDS} for route in ROUTES}
        for k in range(args.runs + 1):
            for route in ROUTES:
                took = one_round(repos[route], env, k)
                if k:  # the first round warms the caches up
                    for name, (wall, cpu) in took.items():
                        samples[route][name][0].append(wall)
                        samples[route][name][1].append(cpu)
        for kind, column in (("wall-clock", 0), ("CPU time", 1)):
            median = {route: {name: statistics.median(values[column]) * 1000
                              for name, values in by_name.items()}
                      for route, by_name in samples.items()}
            print(f"== {kind}, medians ==")
            print(f"{'route':22s}" + "".join(f"{name:>16s}" for name in COMMANDS))
            for route in ROUTES:
                print(f"{route:22s}" + "".join(f"{median[route][name]:13.0f} ms"
                                               for name in COMMANDS))
            base, readme = median["pre-commit alone"], median["pre-commit, README"]
            commit_more = readme["commit"] - base["commit"]
            rebase_more = readme[f"rebase of {REBASED}"] - base[f"rebase of {REBASED}"]
            print(f"the README's pre-commit setup over pre-commit alone ({kind}): commit "
                  f"{commit_more:+.0f} ms (goal <= {COMMIT_GOAL_MS:.0f}), rebase of "
                  f"{REBASED} {rebase_more:+.0f} ms (goal <= {REBASE_GOAL_MS:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
