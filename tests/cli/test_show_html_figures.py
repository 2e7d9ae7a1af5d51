"""`council show ID --html` on a finished debate written in-process (no debate runs): the page
is `report.html` in the record, private, its path the only line printed, written again on
every call; its header gives the run's duration as `1m05s`; its timeline draws a straggler's
soft and hard limits. docs/spec/commands.md `show`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli import cli
from report.pages import call, finished_debate, meta_lines, parsed, phase_note


def show(pad: Path, *args: str) -> tuple[int, str, str]:
    ran = CliRunner().invoke(
        cli, ["show", *args, "--scratchpad", str(pad)], prog_name="council", catch_exceptions=False
    )
    return ran.exit_code, ran.stdout, ran.stderr


@pytest.fixture
def pad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path / ".scratchpad"


def test_the_page_is_report_html_in_the_record_private_and_its_path_is_printed(pad):
    record = finished_debate(pad, call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]))
    code, out, err = show(pad, record.id, "--html")
    assert code == 0, err
    assert out == f".scratchpad/{record.id}/report.html\n"
    page = record.path / "report.html"
    assert page.is_file() and page.stat().st_mode & 0o777 == 0o600
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and record.id in html
    # Nothing else was written into the record.
    assert sorted(p.name for p in record.path.iterdir()) == [
        "report.html",
        "result.json",
        "state.json",
        "transcript.jsonl",
    ]


def test_showing_it_again_writes_the_page_again_over_the_old_one(pad):
    record = finished_debate(pad, call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]))
    (record.path / "report.html").write_text("stale")
    os.chmod(record.path / "report.html", 0o644)
    assert show(pad, "last", "--html")[0] == 0
    page = record.path / "report.html"
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert page.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("seconds", "shown"), [(65.0, "1m05s"), (9.0, "9s"), (600.4, "10m00s"), (119.6, "2m00s")]
)
def test_the_pages_header_gives_the_runs_duration_in_minutes_and_two_digit_seconds(
    pad, seconds, shown
):
    record = finished_debate(
        pad, call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]), duration_s=seconds
    )
    assert show(pad, record.id, "--html")[0] == 0
    first = meta_lines((record.path / "report.html").read_text())[0]
    assert f"· {shown} ·" in first, first


def test_the_timeline_draws_limits_for_a_call_past_its_soft_limit_only(pad):
    # critic ran 12 s of a 10 s soft limit (hard 15 s): a straggler, though inside its hard one.
    record = finished_debate(
        pad,
        call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]], soft=10.0),
        call("critic", "CHALLENGE", 2.0, [[0.0, 12.0, "ok"]], soft=10.0),
        call("proxy-a", "CHALLENGE", 2.0, [[0.0, 9.0, "ok"]], soft=10.0),
        transcript=[phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 2.0)],
    )
    assert show(pad, record.id, "--html")[0] == 0
    page = parsed((record.path / "report.html").read_text())
    drawn = [line.title for line in page.having("line", "limit") if line.title]
    assert drawn == [
        "critic CHALLENGE: soft limit 10s (the lead may move on)",
        "critic CHALLENGE: hard limit 15s (the process tree is killed)",
    ]
    bars = [b.title for b in page.having("rect", "call")]
    limits = "; soft limit 10s, hard 15s"
    assert bars == [
        f"advocate · PROPOSAL (round 1) · ok · 2.00s{limits}",
        f"critic · CHALLENGE (round 1) · ok · 12.0s{limits}",
        f"proxy-a · CHALLENGE (round 1) · ok · 9.00s{limits}",
    ]
