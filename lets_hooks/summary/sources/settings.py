"""The user's settings: ``~/.claude/settings.json`` (its ``model``) and
``~/.claude/settings.local.json`` (how many ``permissions.allow`` entries it holds)."""

from __future__ import annotations

from pathlib import Path

from lets_hooks.summary.records import AllowList, ModelSetting, Read
from lets_hooks.summary.sources.text import home_label, read_home_text

SETTINGS = ".claude/settings.json"
LOCAL_SETTINGS = ".claude/settings.local.json"


def _read_json_object(home: Path, relative: str) -> tuple[dict[str, object] | None, list[str]]:
    raw = read_home_text(home, relative)
    warnings = list(raw.warnings)
    if raw.value is None:
        return None, warnings
    import json

    label = home_label(relative)
    try:
        value = json.loads(raw.value)
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            where = f" at line {exc.lineno} column {exc.colno}: {exc.msg}"
        warnings.append(f"{label}: not valid JSON{where}; check skipped")
    except RecursionError:
        warnings.append(f"{label}: nested too deeply to read; check skipped")
    else:
        if isinstance(value, dict):
            return value, warnings
        warnings.append(f"{label}: top level is not a JSON object; check skipped")
    return None, warnings


def read_settings(home: Path) -> Read[ModelSetting]:
    data, warnings = _read_json_object(home, SETTINGS)
    if data is None:
        return Read(None, tuple(warnings))
    return Read(ModelSetting("model" in data, data.get("model")), tuple(warnings))


def read_local_settings(home: Path) -> Read[AllowList]:
    label = home_label(LOCAL_SETTINGS)
    data, warnings = _read_json_object(home, LOCAL_SETTINGS)
    if data is None:
        return Read(None, tuple(warnings))
    permissions = data.get("permissions")
    allow: object = permissions.get("allow") if isinstance(permissions, dict) else None
    if allow is None:
        return Read(AllowList(0), tuple(warnings))
    if not isinstance(allow, list):
        warnings.append(f"{label}: permissions.allow is not a list; check skipped")
        return Read(None, tuple(warnings))
    return Read(AllowList(len(allow)), tuple(warnings))
