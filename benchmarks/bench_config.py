"""What reading ``pyproject.toml`` costs ``lets-session-boundary``.

    python benchmarks/bench_config.py [--runs 41]

The command reads ``[tool.lets]`` from the repository's ``pyproject.toml`` with the TOML
parser, but skips the parse (and the parser's import) when the file cannot hold a key
``lets`` (no ``lets`` bytes and no backslash in it: ``lets_hooks/config.py``). Times the
command, in turn, in small repositories alike but for their ``pyproject.toml``:

- none at all;
- a typical 3 KB one (build system, project metadata, ruff, mypy, pytest and coverage
  sections), no ``lets`` table: the parse is skipped;
- the same with a ``[tool.lets]`` table: parsed;
- the same without the table but with ``lets`` elsewhere (a project under the
  ``pallets`` organisation) or with a backslash (a regular expression in a pytest
  filter): parsed, to find no table.

Then what a full parse costs on its own: importing ``tomllib`` (``tomli`` before Python
3.11) in a fresh interpreter (and in one that has imported ``re``, as the console
script's wrapper does), and parsing the 3 KB file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import command

SESSION_ID = "bench-session"

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "acme-widgets"
version = "2.4.1"
description = "Widgets for the Acme platform: parsing, validation and rendering"
readme = "README.md"
requires-python = ">=3.9"
license = {text = "MIT"}
authors = [{name = "Acme Engineering", email = "engineering@acme.example"}]
keywords = ["widgets", "rendering", "validation"]
classifiers = [
    "Development Status :: 5 - Production/Stable",
    "Intended Audience :: Developers",
    "License :: OSI Approved :: MIT License",
    "Operating System :: OS Independent",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3.9",
    "Programming Language :: Python :: 3.10",
    "Programming Language :: Python :: 3.11",
    "Programming Language :: Python :: 3.12",
    "Topic :: Software Development :: Libraries",
    "Typing :: Typed",
]
dependencies = [
    "attrs>=23.1",
    "click>=8.1",
    "httpx>=0.25",
    "pydantic>=2.4",
    "rich>=13.5",
    "tomli>=2.0; python_version < '3.11'",
]

[project.optional-dependencies]
test = ["pytest>=7.4", "pytest-cov>=4.1", "hypothesis>=6.88", "respx>=0.20"]
docs = ["sphinx>=7.2", "furo>=2023.9.10", "myst-parser>=2.0"]
dev = ["acme-widgets[test,docs]", "mypy>=1.6", "ruff>=0.1.5", "pre-commit>=3.5"]

[project.urls]
Homepage = "https://github.com/{org}/acme-widgets"
Documentation = "https://acme-widgets.readthedocs.io"
Changelog = "https://github.com/{org}/acme-widgets/blob/main/CHANGES.md"
Issues = "https://github.com/{org}/acme-widgets/issues"

[project.scripts]
acme-widgets = "acme_widgets.cli:main"

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
acme_widgets = ["py.typed", "templates/*.html"]

[tool.ruff]
target-version = "py39"
line-length = 100
src = ["src", "tests"]
extend-exclude = ["docs/conf.py", "build", "dist"]

[tool.ruff.lint]
select = ["E", "F", "W", "I", "UP", "B", "SIM", "RUF", "C4", "PT", "RET", "TID"]
ignore = ["E501", "B008", "RET504", "PT011"]

[tool.ruff.lint.per-file-ignores]
"tests/**" = ["S101", "PLR2004"]
"src/acme_widgets/compat.py" = ["UP006", "UP007"]

[tool.ruff.lint.isort]
known-first-party = ["acme_widgets"]

[tool.mypy]
python_version = "3.9"
strict = true
warn_unreachable = true
files = ["src", "tests"]
plugins = ["pydantic.mypy"]

[[tool.mypy.overrides]]
module = ["respx.*", "furo.*"]
ignore_missing_imports = true

[tool.pytest.ini_options]
minversion = "7.4"
testpaths = ["tests"]
addopts = "-ra --strict-markers --strict-config --cov=acme_widgets --cov-report=term-missing"
markers = [
    "slow: takes more than a second",
    "network: needs the network (deselect with -m 'not network')",
]
filterwarnings = ["error", "ignore:unclosed file:ResourceWarning"{extra_filter}]

[tool.coverage.run]
branch = true
source = ["acme_widgets"]
omit = ["src/acme_widgets/_version.py"]

[tool.coverage.report]
show_missing = true
skip_covered = true
fail_under = 92
exclude_lines = ["pragma: no cover", "if TYPE_CHECKING:", "raise NotImplementedError"]
'''

LETS_TABLE = '''
[tool.lets]
merge_branch = "main"
max_age_days = 14
'''



def pyproject(org: str = "acme", extra_filter: str = "", table: str = "") -> str:
    return PYPROJECT.replace("{org}", org).replace("{extra_filter}", extra_filter) + table


SKIPPED = "3 KB, no lets table (parse skipped)"
VARIANTS = {  # name -> pyproject.toml text (None: no file)
    "no pyproject.toml": None,
    SKIPPED: pyproject(),
    "3 KB + [tool.lets] (parsed)": pyproject(table=LETS_TABLE),
    "3 KB, 'pallets' in a URL (parsed, no table)": pyproject(org="pallets"),
    "3 KB, a backslash (parsed, no table)": pyproject(
        extra_filter=r', "ignore:.*\\.warn\\(:UserWarning"'),
}


def make_repo(folder: Path, pyproject: str | None) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=folder, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    folder.mkdir()
    git("init", "-q", "-b", "main")
    (folder / "README.md").write_text("bench\n")
    if pyproject is not None:
        (folder / "pyproject.toml").write_text(pyproject)
    ident = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
    git("add", "-A")
    git(*ident, "commit", "-q", "-m", "start")
    git("checkout", "-q", "-b", "feature")
    boundary = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, check=True,
                              capture_output=True, text=True).stdout.strip()
    for k in range(3):
        (folder / "work.txt").write_text(f"{k}\n")
        git("add", "work.txt")
        git(*ident, "commit", "-q", "-m", f"work {k}")
    # the session ledger's lines post-commit writes for them (no hook runs here)
    from lets_hooks import ledger

    made = subprocess.run(["git", "rev-list", "--reverse", f"{boundary}..HEAD"], cwd=folder,
                          check=True, capture_output=True, text=True).stdout.split()
    problem = ledger.append(str(folder / ".git"),
                            [ledger.line(ledger.MADE, sha, SESSION_ID) for sha in made])
    assert problem is None, problem
    sessions = folder / ".lets" / "sessions"
    sessions.mkdir(parents=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (sessions / ".task-feature").write_text(
        f"session: {boundary} {SESSION_ID}\nsession-recorded: {boundary} {stamp}\n")
    with open(folder / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write(".lets/\n")


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - began


def fresh_import_ms(module: str, runs: int, after: str = "time") -> float:
    """The median time to import ``module`` in a fresh interpreter (the one timing this)
    that has imported ``after`` already."""
    probe = (f"import time, {after}; t = time.perf_counter(); import {module}; "
             "print(time.perf_counter() - t)")
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                             text=True).stdout) * 1000 for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the pyproject.toml read.")
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args(argv)
    ours = [command("lets-session-boundary")]
    env = dict(os.environ, LETS_SESSION_ID=SESSION_ID)
    for name in ("CLAUDE_CODE_SESSION_ID", "LETS_MERGE_BRANCH", "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="lets-bench-config-") as tmp:
        repos = {}
        for k, (name, text) in enumerate(VARIANTS.items()):
            repos[name] = Path(tmp) / f"repo{k}"
            make_repo(repos[name], text)
        from lets_hooks.config import may_hold_lets

        for name, text in VARIANTS.items():
            if text is not None and may_hold_lets(text.encode()) != (name != SKIPPED):
                raise SystemExit(f"{name}: the parse would not be skipped as expected")
        for name, repo in repos.items():
            answer = subprocess.run(ours, cwd=repo, env=env, capture_output=True, text=True,
                                    check=True).stdout
            if "SESSION_TRUST=exact\nSESSION_COMMITS=3\n" not in answer:
                raise SystemExit(f"{name}: not the answer expected:\n{answer}")
        samples: dict[str, list[float]] = {name: [] for name in repos}
        for repo in repos.values():
            run(ours, repo, env)  # warm up
        for i in range(args.runs):  # in turn, the order reversed every other round
            order = list(repos) if i % 2 == 0 else list(reversed(repos))
            for name in order:
                samples[name].append(run(ours, repos[name], env))
        sizes = {name: len(text.encode()) if text else 0 for name, text in VARIANTS.items()}
        base = statistics.median(samples["no pyproject.toml"]) * 1000
        print(f"== lets-session-boundary by pyproject.toml, {args.runs} runs each ==")
        for name, values in samples.items():
            ms = [v * 1000 for v in values]
            print(f"{name:<44} {sizes[name]:5d} B  median {statistics.median(ms):6.1f} ms  "
                  f"min {min(ms):6.1f}  max {max(ms):6.1f}  "
                  f"({statistics.median(ms) - base:+5.1f} ms)")
    module = "tomllib" if sys.version_info >= (3, 11) else "tomli"
    imported = fresh_import_ms(module, args.runs)
    after_re = fresh_import_ms(module, args.runs, after="re")
    parse = __import__(module).loads
    text = VARIANTS["3 KB + [tool.lets] (parsed)"]
    assert text is not None
    began = time.perf_counter()
    for _ in range(200):
        parse(text)
    parsed = (time.perf_counter() - began) / 200 * 1000
    print(f"== a full parse on its own ==\nimport {module} (fresh interpreter): "
          f"median {imported:.1f} ms ({after_re:.1f} ms once re is imported, as the "
          f"console script's wrapper does); parse of the {len(text.encode())} B file: "
          f"{parsed:.2f} ms; together {imported + parsed:.1f} ms")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    raise SystemExit(main())
