"""``lets-observability``: the model-tag count and the rejection rate, as functions and as
the command (``count=N``; ``rejections=N total=M rate=X%``, ``rate=N/A`` on zero)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import BIN

from lets_hooks.cli.summary import observability_main
from lets_hooks.summary import interventions as obs

TODAY = dt.date(2026, 11, 29)


def home_with(tmp_path: Path, files: Mapping[str, str | bytes]) -> Path:
    folder = tmp_path / "home" / ".claude" / ".harness" / "interventions"
    folder.mkdir(parents=True)
    for name, body in files.items():
        (folder / name).write_bytes(body.encode() if isinstance(body, str) else body)
    return tmp_path / "home"


def lines(*records: Mapping[str, object]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = observability_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(("part", "whole", "text"), [
    (0, 0, "N/A"), (0, 5, "0.0%"), (1, 3, "33.3%"), (2, 3, "66.7%"), (1, 16, "6.3%"),
    (1, 8, "12.5%"), (1, 1, "100.0%"), (1, 200, "0.5%"), (1, 2000, "0.1%"),
])
def test_percent_has_one_decimal_with_halves_rounded_up(part: int, whole: int,
                                                        text: str) -> None:
    assert obs.percent(part, whole) == text


def test_rate_thresholds_compare_the_printed_figure() -> None:
    assert not obs.Rate(1, 20).above(5)  # exactly 5%
    assert not obs.Rate(10001, 200000).above(5)  # 5.0005%, printed as 5.0%: not above
    assert obs.Rate(10001, 200000).text == "5.0%"
    assert obs.Rate(10101, 200000).above(5)  # 5.05%, printed as 5.1%
    assert obs.Rate(10101, 200000).text == "5.1%"
    assert not obs.Rate(3001, 20000).above(15)  # 15.005%, printed as 15.0%


@pytest.mark.parametrize(("text", "days"), [
    ("30d", 30), ("7D", 7), (" 90d ", 90), ("0d", None), ("30", None), ("d", None),
    ("-3d", None), ("1w", None),
])
def test_parse_period(text: str, days: int | None) -> None:
    assert obs.parse_period(text) == days


@pytest.mark.parametrize(("record", "day"), [
    ({"ts": "2026-11-28T23:59:59Z"}, dt.date(2026, 11, 28)),
    ({"ts": "2026-11-28"}, dt.date(2026, 11, 28)),
    ({"date": "2026-11-01", "ts": "2026-11-28T00:00:00Z"}, dt.date(2026, 11, 1)),
    ({"date": "someday", "ts": "2026-11-28T00:00:00Z"}, dt.date(2026, 11, 28)),
    ({"ts": 1796083200}, None),  # an epoch number has no date part: undated
    ({"ts": 1796083200000}, None), ({"ts": 1796083200.5}, None),
    ({"date": 20261128, "ts": "2026-11-28"}, dt.date(2026, 11, 28)),
    ({"ts": "2026-02-30"}, None), ({"ts": "2026-W48-7"}, None),
    ({"ts": "\uff12\uff10\uff12\uff16-11-28"}, None),  # full-width digits
    ({"ts": True}, None), ({"ts": None}, None), ({}, None),
])
def test_record_date_is_date_else_the_date_part_of_ts(record: dict[str, object],
                                                      day: dt.date | None) -> None:
    assert obs.record_date(record) == day


def test_a_record_with_an_epoch_ts_is_counted_in_no_period(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"a.jsonl": lines(
        {"ts": 1796083200, "type": "rejection"}, {"ts": "2026-11-28", "type": "rejection"},
        {"ts": "2026-11-28", "type": "nudge"})})
    assert run(capsys, "--home", str(home), "--today", TODAY.isoformat(), "rejection-rate",
               "--period", "30d")[1] == "rejections=1 total=2 rate=50.0%\n"


# --------------------------------------------------------------------------- the reader


def test_reader_folds_records_into_day_counts(tmp_path: Path) -> None:
    home = home_with(tmp_path, {
        "b.jsonl": lines({"ts": "2026-11-20T01:00:00Z", "type": "rejection", "model": "opus"},
                         {"ts": "2026-11-20T02:00:00Z", "type": "nudge"}),
        "a.jsonl": lines({"date": "2026-11-21", "type": "rejection"},
                         {"type": "nudge", "model": "haiku"}),
        "ignored.json": lines({"ts": "2026-11-20", "type": "rejection"}),
    })
    read = obs.read_interventions(home)
    assert read.warnings == ()
    assert read.log == obs.InterventionLog(days=(
        obs.DayCount(None, 1, 0, 1),
        obs.DayCount(dt.date(2026, 11, 20), 2, 1, 1),
        obs.DayCount(dt.date(2026, 11, 21), 1, 1, 0),
    ))


def test_missing_folder_is_none_and_silent(tmp_path: Path) -> None:
    assert obs.read_interventions(tmp_path) == obs.LogRead(None, ())


def test_bad_lines_are_one_warning_per_file(tmp_path: Path) -> None:
    good = lines({"ts": "2026-11-20", "type": "rejection"})
    home = home_with(tmp_path, {"log.jsonl": (
        good + "not json\n" + "[1, 2]\n" + '{"a": 1} {"b": 2}\n' + "\n  \n"
        + '  {"ts": "2026-11-21", "type": "nudge"}\n' + '"a string"\n'
        + '{"ts": "2026-11-22", "type": "rej')})
    read = obs.read_interventions(home)
    assert read.log is not None and sum(day.total for day in read.log.days) == 2
    assert read.warnings == ("~/.claude/.harness/interventions/log.jsonl: lines 2, 3, 4 and"
                             " 2 more not a JSON object; skipped",)


def test_crlf_lines_read_like_lf(tmp_path: Path) -> None:
    body = lines({"ts": "2026-11-20", "type": "rejection"}, {"ts": "2026-11-21"})
    home = home_with(tmp_path, {"log.jsonl": body.replace("\n", "\r\n")})
    read = obs.read_interventions(home)
    assert read.warnings == () and read.log is not None
    assert sum(day.total for day in read.log.days) == 2


def test_a_file_over_the_limit_is_skipped_with_a_warning(tmp_path: Path) -> None:
    home = home_with(tmp_path, {"small.jsonl": lines({"ts": "2026-11-20", "model": "m"})})
    big = home / ".claude" / ".harness" / "interventions" / "big.jsonl"
    with open(big, "wb") as handle:
        handle.seek(50 * 1024 * 1024)
        handle.write(b"\n")
    read = obs.read_interventions(home)
    assert read.log is not None and obs.model_tag_count(read.log) == 1
    assert read.warnings == ("~/.claude/.harness/interventions/big.jsonl: is 52428801 bytes,"
                             " over the 32 MiB limit - ignored",)


def test_counters_over_a_period() -> None:
    log = obs.InterventionLog(days=(
        obs.DayCount(None, 5, 5, 5),
        obs.DayCount(dt.date(2026, 10, 30), 10, 10, 1),  # 30 days old: outside 30d
        obs.DayCount(dt.date(2026, 10, 31), 4, 1, 2),  # 29 days old: inside
        obs.DayCount(TODAY, 6, 2, 0),
        obs.DayCount(dt.date(2026, 12, 1), 3, 3, 3),  # after today: outside
    ))
    assert obs.model_tag_count(log) == 11
    assert obs.rejection_rate(log, TODAY, 30) == obs.Rate(3, 10)
    assert obs.rejection_rate(log, TODAY, 31) == obs.Rate(13, 20)
    assert obs.tagged_after(log, dt.date(2026, 10, 31)) == 3
    assert obs.earliest_tagged(log) == dt.date(2026, 10, 30)


# --------------------------------------------------------------------------- the command


def test_model_tag_count_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"a.jsonl": lines(
        {"ts": "2026-01-01", "model": "opus"}, {"ts": "2026-11-01", "model": "sonnet"},
        {"ts": "2026-11-02"}, {"ts": "2026-11-03", "model": ""}, {"ts": "x", "model": 0})})
    assert run(capsys, "--home", str(home), "model-tag-count") == (0, "count=3\n", "")


def test_rejection_rate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"a.jsonl": lines(
        {"ts": "2026-11-28T10:00:00Z", "type": "rejection"},
        {"ts": "2026-11-27T10:00:00Z", "type": "nudge"},
        {"ts": "2026-11-26T10:00:00Z", "type": "nudge"},
        {"ts": "2026-09-01T10:00:00Z", "type": "rejection"})})
    assert run(capsys, "--home", str(home), "--today", "2026-11-29", "rejection-rate",
               "--period", "30d") == (0, "rejections=1 total=3 rate=33.3%\n", "")
    assert run(capsys, "rejection-rate", "--period", "365d", "--home", str(home),
               "--today", "2026-11-29") == (0, "rejections=2 total=4 rate=50.0%\n", "")


def test_zero_total_is_n_a(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--home", str(tmp_path), "rejection-rate") == (
        0, "rejections=0 total=0 rate=N/A\n", "")
    assert run(capsys, "--home", str(tmp_path), "model-tag-count") == (0, "count=0\n", "")


def test_warnings_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"a.jsonl": '{"ts": "2026-11-28", "model": "m"}\n{"trunc'})
    assert run(capsys, "--home", str(home), "model-tag-count") == (
        0, "count=1\n", "lets-observability: ~/.claude/.harness/interventions/a.jsonl: line 2"
                        " not a JSON object; skipped\n")


def test_bad_period_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        observability_main(["rejection-rate", "--period", "a month"])
    assert stop.value.code == 2
    assert "--period must look like 30d, not 'a month'" in capsys.readouterr().err


def test_installed_command(tmp_path: Path) -> None:
    import subprocess

    home = home_with(tmp_path, {"a.jsonl": lines({"ts": "2026-11-28", "type": "rejection"})})
    done = subprocess.run([str(BIN / "lets-observability"), "--home", str(home), "--today",
                           "2026-11-29", "rejection-rate", "--period", "30d"],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "rejections=1 total=1 rate=100.0%\n", "")
