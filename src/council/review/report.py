"""`council show ID --html` of a review: its findings, each in the Markdown `council show`
prints, its reviewers and every call, around the timeline every run's page has
(`council.report`, template `review.html.j2`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from council.panel.contribution import participant
from council.report.page import render_page, seat_rows, timeline_chart, write_page
from council.review.markdown import SEVERITY_ORDER, finding_body, gate_text
from council.runs.record import Record


def write_report(record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
    """Write the review's `report.html` into its record and return it."""
    return write_page(record, render_report(result, state, list(record.transcript())))


def render_report(
    result: dict[str, Any], state: dict[str, Any], transcript: list[dict[str, Any]]
) -> str:
    shown = [f for f in result["findings"] if not f.get("out_of_scope")]
    rank = {severity: i for i, severity in enumerate(SEVERITY_ORDER)}
    shown.sort(key=lambda f: rank.get(f["severity"], len(rank)))  # stable: ids in order
    counts = result["counts"]
    return render_page(
        "review.html.j2",
        result,
        participants=", ".join(participant(r) for r in result["reviewers"]),
        findings=[{**f, "markdown": "\n".join(finding_body(f))} for f in shown],
        outside=[f for f in result["findings"] if f.get("out_of_scope")],
        total=sum(counts.values()),
        counts=", ".join(f"{counts[s]} {s}" for s in SEVERITY_ORDER if counts.get(s)),
        gate=gate_text(result["gate"]),
        chart=timeline_chart(seat_rows(result["reviewers"]), state, transcript),
    )
