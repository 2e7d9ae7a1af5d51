"""Finished runs built in-process for the report page's tests: a debate's state from hand-made
calls (when each started, each attempt, its limits), its result as `council show --html`
reads it, and the page and timeline drawn from them. No debate runs: every figure the page
shows is chosen here, so a test can say exactly what the user must see."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any

from cli.test_show_html import Page
from council.debate.report import render_report
from council.debate.result import build_result
from council.debate.state import Contribution, DebateState
from council.report.chart import Chart
from council.report.page import seat_rows, timeline_chart
from council.runs.record import Record

T0 = 1_800_000_000.0  # a Unix time: every call starts a few seconds after it
RUN_ID = "debate-20270115-100000-abcd"


def seat(name: str, role: str, cli: str = "sim", **extra: Any) -> dict[str, Any]:
    return {"name": name, "role": role, "cli": cli, "model": None, "effort": None, **extra}


def call(
    who: str,
    phase: str,
    start: float,
    spans: list[list[Any]],
    *,
    status: str = "ok",
    round_no: int = 1,
    soft: float | None = 10.0,
    hard: float | None = None,
    text: str = "fine",
) -> Contribution:
    """A call of seat `who` that started `start` seconds after T0; each span is an attempt
    [seconds after the call's start, duration, status]; the hard limit 1.5x the soft one."""
    role = "lead" if who == "lead" else "proxy" if who.startswith("proxy") else who
    return Contribution(
        stem=f"{who}-{phase.lower()}-r{round_no}",
        seat=who,
        role=role,
        phase=phase,
        round=round_no,
        status=status,
        text=text,
        cli="sim",
        words=len(text.split()),
        attempts=len(spans),
        started_at=T0 + start,
        spans=spans,
        soft_s=soft,
        hard_s=hard if hard is not None else (None if soft is None else soft * 1.5),
    )


def state_of(
    *calls: Contribution, proxies: tuple[str, ...] = ("proxy-a",), rounds: int = 2
) -> dict[str, Any]:
    plan = {
        "advocate": seat("advocate", "advocate"),
        "critic": seat("critic", "critic"),
        "proxies": [seat(p, "proxy") for p in proxies],
        "lead": seat("lead", "lead"),
        "rounds": rounds,
    }
    state = DebateState(id=RUN_ID, question="Redis or Postgres?", plan=plan)
    for c in calls:
        state.store(c)
    state.status = "completed"
    return state.to_json()


def phase_note(name: str, at: float, round_no: int = 1) -> dict[str, Any]:
    """The lead's note on entering a phase, `at` seconds after T0, as the transcript has it."""
    ts = datetime.fromtimestamp(T0 + at, UTC).isoformat(timespec="milliseconds")
    return {"ts": ts, "kind": "system", "round": round_no, "body": f"phase {name}"}


def result_of(state: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**build_result(DebateState.from_json(state), ".scratchpad/x/"), **changes}


def page_of(
    state: dict[str, Any], transcript: list[dict[str, Any]] | None = None, **changes: Any
) -> str:
    """The debate's report.html, the result's fields replaced by `changes`."""
    return render_report(result_of(state, **changes), state, transcript or [])


def chart_of(state: dict[str, Any], transcript: list[dict[str, Any]] | None = None) -> Chart:
    chart = timeline_chart(seat_rows(result_of(state)["seats"]), state, transcript or [])
    assert chart is not None
    return chart


def parsed(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def words(text: str) -> str:
    return " ".join(text.split())


def shown_text(html: str) -> str:
    """The page's body text (no CSS), each element's apart, whitespace collapsed."""
    return words(" ".join(parsed(html.split("<body>", 1)[-1]).text))


def meta_lines(html: str) -> list[str]:
    """The header's `meta` paragraphs (status, rounds, duration, ...) as text."""
    found = re.findall(r'<p class="meta">(.*?)</p>', html, re.S)
    return [words(re.sub(r"<[^>]+>", "", unescape(p))) for p in found]


def table_rows(fragment: str, row: str = "<tr>") -> list[list[str]]:
    """The cells' text of each `row` (its opening tag) of an HTML fragment holding <td>s."""
    found = re.findall(re.escape(row) + r"(.*?)</tr>", fragment, re.S)
    return [
        [words(re.sub(r"<[^>]+>", " ", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in found
    ]


def finished_debate(
    pad: Path,
    *calls: Contribution,
    duration_s: float = 65.0,
    transcript: Iterable[dict[str, Any]] = (),
    result: dict[str, Any] | None = None,
    **fields: Any,
) -> Record:
    """An ended debate's record as the run leaves it: state (its `fields` set), result (the
    fields of `result` replaced) and transcript. Completed with exit 0 unless `fields` say
    otherwise."""
    record = Record.create(pad)
    state = state_of(*calls)
    ended_at = "2027-01-15T10:01:05+00:00"  # a run that ended wrote result.json then
    state.update(
        {"id": record.id, "duration_s": duration_s, "exit_code": 0, "finished_at": ended_at}
    )
    state.update(fields)
    (record.path / "state.json").write_text(json.dumps(state))
    built = build_result(DebateState.from_json(state), record.display())
    (record.path / "result.json").write_text(json.dumps({**built, **(result or {})}))
    (record.path / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in transcript))
    return record
