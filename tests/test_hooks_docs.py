"""The hooks' documentation matches what ships."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def manifest() -> list[dict[str, object]]:
    data = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(data, list)
    return data


def readme() -> str:
    """The README and the pages of docs/ it links to."""
    pages = sorted((ROOT / "docs").glob("*.md"))
    return "\n".join([(ROOT / "README.md").read_text(), *(p.read_text() for p in pages)])


def test_manifest_entries() -> None:
    hooks = {h["id"]: h for h in manifest()}
    assert set(hooks) >= {"lets-post-checkout", "lets-post-rewrite", "lets-pre-push",
                          "lets-state-lint"}
    for hook_id, stage in (("lets-post-checkout", "post-checkout"),
                           ("lets-post-rewrite", "post-rewrite"), ("lets-pre-push", "pre-push")):
        hook = hooks[hook_id]
        assert hook["stages"] == [stage]
        assert hook["always_run"] is True and hook["pass_filenames"] is False
        assert hook["verbose"] is True  # they pass and warn: pre-commit must show it
        assert hook["language"] == "python"
        assert hook["entry"] == f"lets-hooks {stage}"
    for hook in hooks.values():
        version = str(hook["minimum_pre_commit_version"])
        assert tuple(int(x) for x in version.split(".")) >= (3, 2, 0)  # stage names


def test_every_hook_id_and_command_is_documented() -> None:
    text = readme()
    for hook in manifest():
        assert f"id: {hook['id']}" in text, hook["id"]
    for command in ("lets-hooks install", "lets-hooks record", "lets-hooks status",
                    "pre-commit install --hook-type"):
        assert command in text, command
    assert "only the first pushed branch" in text
