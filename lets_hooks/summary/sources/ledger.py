"""The model-difference ledger, ``~/.claude/memory/model-diff-ledger.md``: its
``last-analysis: YYYY-MM-DD`` line is the model-tag baseline."""

from __future__ import annotations

from pathlib import Path

from lets_hooks.summary.interventions import iso_date
from lets_hooks.summary.records import ModelLedger, Read
from lets_hooks.summary.sources.text import home_label, lines_of, read_home_text

MODEL_LEDGER = ".claude/memory/model-diff-ledger.md"


def read_model_ledger(home: Path) -> Read[ModelLedger]:
    label = home_label(MODEL_LEDGER)
    raw = read_home_text(home, MODEL_LEDGER)
    if raw.value is None:
        return Read(None, raw.warnings)
    for number, line in enumerate(lines_of(raw.value), 1):
        if line.startswith("last-analysis:"):
            value = line.partition(":")[2].strip().strip("'\"")
            last = iso_date(value[:10])
            if last is not None:
                return Read(ModelLedger(last), raw.warnings)
            return Read(ModelLedger(None), (*raw.warnings, (
                f"{label}: line {number}: last-analysis is not a YYYY-MM-DD date; ignored")))
    return Read(ModelLedger(None), raw.warnings)
