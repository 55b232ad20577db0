"""Time ``lets-session-start`` on a large project.

    python benchmarks/bench_summary.py [--runs 21] [--keep DIR]

Builds, in a temporary folder, a git repository whose ``memory/context-log.md`` holds
10,000 entries, whose ``tasks/lessons.md`` holds 2,000 lessons (and an 18-gate table),
with a dated state-snapshot handoff whose prose lists 40 decisions, 80 blockers (half of
them placeholders) and 40 next steps and names about 40 paths and 25 functions, a tagged
MEMORY.md whose always-loaded section has 150 lines, a recorded session boundary and a
changed working tree; and a home folder whose
``~/.claude/.harness/interventions/`` holds 100,000 JSONL lines over twelve files. Then
runs the installed command as a user would (a new process each time, markdown and
``--json``), prints the median, min and max wall time, and the git processes one summary
starts, and the size of the text each form prints (the block stays within its 8,000
characters; ``--budget 0`` shows how much it would be without). The time budget is 0.5 s.

Then the same for a monorepo of 5,015 tracked files (over the function-name search's
5,000-file cap) whose Korean and English handoff names Windows paths, paths with spaces,
dotted module paths and functions that are gone, with 2,000 intervention records
(``--only monorepo`` or ``--only large`` runs one of the two).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from installed import command

BUDGET_SECONDS = 0.5
TODAY = dt.date(2026, 11, 29)
LOG_ENTRIES = 10_000
LESSONS = 2_000
INTERVENTION_LINES = 100_000
INTERVENTION_FILES = 12


def day(rng: random.Random, back: int) -> str:
    return (TODAY - dt.timedelta(days=rng.randrange(back))).isoformat()


def make_project(root: Path, rng: random.Random) -> None:
    (root / "memory").mkdir(parents=True)
    (root / "tasks").mkdir()
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("def main() -> None:\n    print('hi')\n")
    for number in range(200):  # a tree for the function-name search to walk
        (root / "src" / f"module_{number}.py").write_text(
            f"def helper_{number}(value: int) -> int:\n    return value * {number}\n" * 20)

    log = ["# Context log", ""]
    kinds = ["DECISION", "BUG", "NOTE", "LEARNING"]
    for number in range(LOG_ENTRIES):
        ref = rng.choice([0] * 12 + [1, 1, 2, 3, 5])
        log.append(f"## [{day(rng, 400)}][{rng.choice(kinds)}][ttl:30d][ref:{ref}]"
                   f" entry {number}: a decision about component {number % 97}")
        log.append(f"What happened in entry {number}, and why it mattered for the session.")
        log.append("")
    (root / "memory" / "context-log.md").write_text("\n".join(log) + "\n")

    lessons = ["# Lessons", "", "## Graduated Gates", "| id | trigger | check |",
               "|----|---------|-------|"]
    lessons += [f"| G{n} | trigger number {n} | the check for trigger {n}? |"
                for n in range(1, 19)]
    lessons += ["", "## Lessons", ""]
    for number in range(LESSONS):
        meta = (f"> conf: {rng.choice(['0.3', '0.5', '0.6', '0.7', '0.9'])}"
                f" · seen: {day(rng, 200)} · obs: {rng.randrange(1, 6)}")
        if number % 5 == 0:
            meta += f" · model: {rng.choice(['opus', 'sonnet', 'haiku'])}"
        lessons += [f"### [{day(rng, 300)}] lesson {number} about area {number % 41}", meta,
                    f"The rule learned in lesson {number}, in one line.", ""]
    (root / "tasks" / "lessons.md").write_text("\n".join(lessons) + "\n")

    (root / "memory" / "session-handoff-LATEST.md").write_text(
        "---\ntitle: handoff\ndate: 2026-11-20\n---\n<!-- state-snapshot v1 -->\n```yaml\n"
        f"ts: {TODAY.isoformat()}\nctx: benchmark\n"
        "next: [profile the reader, write the report]\n"
        "diff: [{op: added, item: src/main.py, why: entry point}]\n"
        "blocked: [{item: none yet, risk: L}]\n```\n\n"
        "## Outstanding decisions\n- keep the cap at 32 MiB?\n"
        + "".join(f"- question {n}: should component {n} keep its own reader?\n"
                  for n in range(40))
        + "\n## Blockers\n"
        + "".join(f"- _none_\n- component {n} waits on a review of `src/module_{n}.py`\n"
                  for n in range(40))
        + "\n## Next steps\n"
        + "".join(f"{n + 1}. Wire component {n} into the reader\n" for n in range(40))
        + "\n## Context notes\nSee `src/main.py` and `src/missing.py`; `main()` calls"
        " `helper_199()`, and `gone_function()` was removed.\n"
        + "".join(f"- `src/gone_{n}.py` and `missing_helper_{n}()` were renamed\n"
                  for n in range(20)))
    facts = [f"- always-loaded fact {n}: a rule the session keeps in mind" for n in range(150)]
    memory = ["# Memory", "", "## Core <!-- #always -->", "- fact", *facts, ""]
    for number in range(40):
        memory += [f"## Topic {number} <!-- #on-demand -->", f"- detail {number}", ""]
    (root / "memory" / "MEMORY.md").write_text("\n".join(memory))


def make_home(home: Path, rng: random.Random) -> None:
    claude = home / ".claude"
    folder = claude / ".harness" / "interventions"
    folder.mkdir(parents=True)
    (claude / "memory").mkdir()
    (claude / "memory" / "model-diff-ledger.md").write_text("last-analysis: 2026-10-01\n")
    (claude / "STATE.md").write_text(
        "# State\n\n## Active blockers\n- VPN\n- (none)\n"
        + "".join(f"- global blocker {n} across projects\n" for n in range(30))
        + "\n## Open decisions\n"
        + "".join(f"- global decision {n}, to settle this week\n" for n in range(30)))
    (claude / "settings.json").write_text(json.dumps({"model": "opus"}))
    (claude / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": [f"Bash(x{n})" for n in range(8)]}}))
    per_file = INTERVENTION_LINES // INTERVENTION_FILES
    for index in range(INTERVENTION_FILES):
        count = per_file if index < INTERVENTION_FILES - 1 else (
            INTERVENTION_LINES - per_file * (INTERVENTION_FILES - 1))
        lines = []
        for _ in range(count):
            record: dict[str, object] = {
                "ts": f"{day(rng, 365)}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z",
                "type": rng.choice(["rejection", "nudge", "nudge", "block", "allow"]),
                "gate": rng.choice(["pre-push", "verification", "goal-lock"]),
                "context": "the gate fired on a push to a feature branch",
            }
            if rng.random() < 0.2:
                record["model"] = rng.choice(["opus", "sonnet"])
            lines.append(json.dumps(record))
        (folder / f"part-{index:02d}.jsonl").write_text("\n".join(lines) + "\n")


SESSION = "bench-session"


def git_init(root: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("-c", "user.name=Bench", "-c", "user.email=bench@example.com",
        "commit", "-q", "-m", "bench project")
    sessions = root / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / ".task-main").write_text(f"session: {git('rev-parse', 'HEAD')} {SESSION}\n")
    (root / ".git" / "info" / "exclude").write_text(".lets/\n")
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "main.py").write_text("def main() -> None:\n    print('changed')\n")
    (root / "notes.txt").write_text("untracked\n")


MONOREPO_FILES = 5_015
MONOREPO_RECORDS = 2_000


def make_monorepo(root: Path, home: Path, rng: random.Random) -> None:
    """5,015 tracked files under ``services/`` and ``packages/``, a handoff in Korean and
    English, and 2,000 intervention records."""
    (root / "memory").mkdir(parents=True)
    made = 0
    for service in range(17):
        for number in range(300):
            if made >= MONOREPO_FILES - 4:
                break
            folder = root / ("services" if service % 2 else "packages") / f"s{service}" / "app"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"m{number}.py").write_text(
                f"def handler_{service}_{number}(event: dict) -> dict:\n    return event\n" * 8)
            made += 1
    util = root / "services" / "api" / "app"
    util.mkdir(parents=True)
    (util / "__init__.py").write_text("")
    (util / "text.py").write_text("def slugify(text: str) -> str:\n    return text.lower()\n")
    (root / "docs").mkdir()
    (root / "docs" / "overview.md").write_text("# Overview\n")
    (root / "memory" / "session-handoff-LATEST.md").write_text(
        "---\ndate: 2026-11-27T10:00:00Z\n---\n<!-- state-snapshot v1 -->\n```yaml\n"
        "ts: 2026-11-27T10:00:00Z\nnext: [배치 변환 마무리]\n"
        "diff:\n  - {op: removed, item: api/queue/legacy_poll.py, why: drop polling}\n"
        "  - {op: renamed, item: services/api/app/util.py → services/api/app/text.py}\n"
        "blocked:\n  - {item: SQS FIFO quota increase pending with AWS, risk: H}\n```\n\n"
        "## 우선순위 1 — 큐 소비자 정리\n- `api/queue/legacy_poll.py` 참고\n\n"
        "## 우선순위 2 — 배치 변환 진행률 표시 추가\n\n"
        "## 블로커\n- SQS FIFO quota increase pending with AWS\n- 없음\n\n"
        "## 메모\n- 스테이징 배포 권한 허용됨\n"
        "- `src\\converter\\encoding.py` and `docs/Design Notes/retry design.md`\n"
        "- `services.api.app.util.slugify` and `parse_iso_week()` and `slugify()`\n"
        "- The reader lives in `docs/overview.md`.\n")
    folder = home / ".claude" / ".harness" / "interventions"
    folder.mkdir(parents=True)
    lines = [json.dumps({"ts": f"{day(rng, 60)}T10:00:00Z",
                         "type": rng.choice(["rejection", "nudge", "allow"])})
             for _ in range(MONOREPO_RECORDS)]
    (folder / "2026-11.jsonl").write_text("\n".join(lines) + "\n")


def git_processes(project: Path, home: Path) -> int:
    """How many git processes one summary starts (counted by the one door to git)."""
    import time as clock

    from lets_hooks.summary import collect
    from lets_hooks.summary.sources.worktree import open_repository

    git = open_repository(project)
    git.settle({"LETS_SESSION_ID": SESSION}, clock.time())
    collect(project, home, git)
    return git.repo.calls


def timed(argv: list[str], runs: int) -> list[float]:
    env = dict(os.environ, LETS_SESSION_ID=SESSION)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)  # warm the cache
    samples = []
    cpu = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env)
        samples.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    CPU.append(cpu)
    return samples


CPU: list[list[float]] = []  # CPU time (user + system) of each run, one list per ``timed``


def output(argv: list[str]) -> str:
    env = dict(os.environ, LETS_SESSION_ID=SESSION)
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, env=env,
                          encoding="utf-8").stdout


def report(name: str, samples: list[float]) -> bool:
    median = statistics.median(samples)
    cpu = statistics.median(CPU[-1]) if CPU else float("nan")
    print(f"{name:<30} median {median * 1000:7.1f} ms   min {min(samples) * 1000:7.1f} ms"
          f"   max {max(samples) * 1000:7.1f} ms   CPU {cpu * 1000:7.1f} ms"
          f"   ({len(samples)} runs)")
    return median < BUDGET_SECONDS


def time_all(project: Path, home: Path, runs: int, label: str) -> bool:
    base_argv = [command("lets-session-start"), "--root", str(project), "--home", str(home),
                 "--today", TODAY.isoformat()]
    ok = report(label, timed(base_argv, runs))
    ok = report(f"{label} --json", timed([*base_argv, "--json"], runs)) and ok
    ok = report(f"{label} --budget 0", timed([*base_argv, "--budget", "0"], runs)) and ok
    for name, extra in (("the block", []), ("the block, --budget 0", ["--budget", "0"]),
                        ("--json", ["--json"])):
        text = output([*base_argv, *extra])
        print(f"output size, {name:<22} {len(text):7,} characters")
    print(f"git processes per summary: {git_processes(project, home)}")
    return ok


def large(base: Path, runs: int) -> bool:
    rng = random.Random(20261129)
    project, home = base / "project", base / "home"
    make_project(project, rng)
    make_home(home, rng)
    git_init(project)
    sizes = {path.relative_to(base).as_posix(): path.stat().st_size
             for path in (project / "memory" / "context-log.md",
                          project / "tasks" / "lessons.md")}
    sizes["home/.claude/.harness/interventions/*"] = sum(
        path.stat().st_size for path in (home / ".claude/.harness/interventions").iterdir())
    for name, size in sizes.items():
        print(f"{name:<42} {size / 1e6:6.2f} MB")
    return time_all(project, home, runs, "lets-session-start")


def monorepo(base: Path, runs: int) -> bool:
    rng = random.Random(20261130)
    project, home = base / "monorepo", base / "monorepo-home"
    make_monorepo(project, home, rng)
    git_init(project)
    print(f"monorepo: {MONOREPO_FILES:,} tracked files, {MONOREPO_RECORDS:,} intervention"
          " records")
    return time_all(project, home, runs, "monorepo")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    parser.add_argument("--only", choices=("large", "monorepo"))
    args = parser.parse_args(argv)

    scratch = None
    if args.keep:
        base: Path = args.keep
        base.mkdir(parents=True, exist_ok=False)
    else:
        scratch = tempfile.TemporaryDirectory(prefix="lets-bench-summary-")
        base = Path(scratch.name)
    try:
        ok = True
        if args.only in (None, "large"):
            ok = large(base, args.runs) and ok
        if args.only in (None, "monorepo"):
            ok = monorepo(base, args.runs) and ok
        print(f"budget {BUDGET_SECONDS * 1000:.0f} ms (median): {'met' if ok else 'MISSED'}")
        return 0 if ok else 1
    finally:
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
