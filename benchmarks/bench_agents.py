"""Time the agents' hooks as each agent runs them (a new process each time, the hook's JSON
on stdin).

    python benchmarks/bench_agents.py [--runs 31]

- The shell tool's hook (``lets-agent-hook pre-tool``: Codex's PreToolUse, Gemini's
  BeforeTool; Claude Code's commands get the same from its env file) runs before every
  command the agent runs: on a repository whose HEAD reflog holds 20,000 entries (budget
  50 ms, median). Then the cost it hands the command: ``git commit`` under the git
  environment it gives (git runs the agents' hooks folder: the ledger's writer, and the
  chain to the repository's own hooks) against a plain ``git commit`` (no budget: said).
- The start hook (``lets-session-start --agent-hook``, each agent's SessionStart) on the
  summary's large project (bench_summary.py's fixtures: a 10,000-entry context log, 2,000
  lessons, 100,000 intervention lines): budget 0.5 s, median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_summary import TODAY, git_init, make_home, make_project
from installed import command

TOOL_BUDGET = 0.050
START_BUDGET = 0.5
REFLOG_ENTRIES = 20_000
SID = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
SHELL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command"}


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("CLAUDE", "CODEX_", "GEMINI", "LETS_"))}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout.strip()


def big_reflog(root: Path) -> None:
    """A repository whose HEAD reflog holds ``REFLOG_ENTRIES`` entries (written as git
    writes them, without running git that many times)."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=Bench", "-c", "user.email=b@example.com", "commit", "-q",
        "--allow-empty", "-m", "root")
    head = git(root, "rev-parse", "HEAD")
    rng = random.Random(7)
    lines = []
    for number in range(REFLOG_ENTRIES):
        old = f"{rng.getrandbits(160):040x}"
        lines.append(f"{old} {head} Bench <b@example.com> {1_700_000_000 + number} +0000"
                     f"\tcommit: change {number}\n")
    log = root / ".git" / "logs" / "HEAD"
    log.write_text("".join(lines) + log.read_text())


def timed(argv: list[str], stdin: bytes, cwd: Path, runs: int,
          between: list[str] | None = None) -> list[float]:
    subprocess.run(argv, input=stdin, cwd=cwd, env=env(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm the cache
    samples = []
    cpu = []
    for _ in range(runs):
        if between:
            subprocess.run(between, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(argv, input=stdin, cwd=cwd, env=env(), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    CPU.append(statistics.median(cpu))
    return samples


CPU: list[float] = []  # the median CPU time (user + system) of each timed command


def report(name: str, samples: list[float], budget: float | None) -> bool:
    median = statistics.median(samples)
    verdict = "" if budget is None else \
        f"   budget {budget * 1000:.0f} ms: {'met' if median <= budget else 'MISSED'}"
    cpu = f"   CPU {CPU[-1] * 1000:6.1f} ms" if CPU else ""
    print(f"{name:<44} median {median * 1000:7.1f} ms   min {min(samples) * 1000:6.1f} ms"
          f"   max {max(samples) * 1000:7.1f} ms{cpu}{verdict}")
    return budget is None or median <= budget


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args(argv)
    hook = command("lets-agent-hook")
    start = command("lets-session-start")
    ok = True
    with tempfile.TemporaryDirectory(prefix="lets-bench-agents-") as scratch:
        base = Path(scratch)
        repo = base / "repo"
        big_reflog(repo)
        size = (repo / ".git" / "logs" / "HEAD").stat().st_size
        print(f"HEAD reflog: {REFLOG_ENTRIES:,} entries, {size / 1e6:.1f} MB")
        for agent, tool in SHELL.items():
            body = json.dumps({"session_id": SID, "cwd": str(repo), "tool_name": tool,
                               "tool_input": {"command": "ls"}}).encode()
            pre = [hook, "pre-tool", "--agent", agent]
            subprocess.run(pre, input=body, cwd=repo, env=env(), check=True,
                           stdout=subprocess.DEVNULL)
            ok = report(f"{agent}: pre-tool", timed(pre, body, repo, args.runs),
                        TOOL_BUDGET) and ok
        # a commit in the command the hook handed back, against a plain one
        commit = ("git -c user.name=Bench -c user.email=b@example.com commit -q "
                  "--allow-empty -m 'by the agent'")
        body = json.dumps({"session_id": SID, "cwd": str(repo), "tool_name": "Bash",
                           "tool_input": {"command": commit}}).encode()
        answer = subprocess.run([hook, "pre-tool", "--agent", "codex"], input=body, cwd=repo,
                                env=env(), check=True, stdout=subprocess.PIPE).stdout
        handed = json.loads(answer)["hookSpecificOutput"]["updatedInput"]["command"]
        shell = {**env(), "CODEX_THREAD_ID": SID}
        for label, text in (("git commit, plain", commit),
                            ("git commit, as the hook handed it", handed)):
            samples = []
            for _ in range(args.runs):
                began = time.perf_counter()
                subprocess.run(["sh", "-c", text], cwd=repo, env=shell, check=True)
                samples.append(time.perf_counter() - began)
            CPU.clear()
            report(label, samples, None)

        rng = random.Random(20261129)
        project, home = base / "project", base / "home"
        make_project(project, rng)
        make_home(home, rng)
        git_init(project)
        for agent in SHELL:
            body = json.dumps({"session_id": SID, "cwd": str(project),
                               "source": "startup"}).encode()
            argv = [start, "--agent-hook", agent, "--home", str(home), "--today",
                    TODAY.isoformat()]
            ok = report(f"{agent}: session start (large project)",
                        timed(argv, body, project, max(5, args.runs // 3)), START_BUDGET) and ok
    print("budgets:", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
