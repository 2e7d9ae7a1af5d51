"""`council show ID --html`: one self-contained HTML page about a run, written into its record
(`report.html`): the question, the DECISION, every contribution by round, and a timeline of
every CLI call drawn as inline SVG.

Self-contained means nothing is fetched when the page opens: inline CSS, no script, no font,
no image, and a Content-Security-Policy that forbids them anyway. The replies are untrusted
text (a model may write `<script>`), so the page is rendered by a Jinja2 environment of its
own with autoescape on; the prompts' environment (`council.prompts`) never escapes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from council import __version__
from council.debate.chart import Chart, Seat, build_chart, css_status
from council.debate.timeline import (
    Clock,
    activity_from_transcript,
    calls_from_state,
    phases_from_transcript,
)
from council.panel.contribution import participant
from council.runs.record import Record

REPORT = "report.html"
TEMPLATES = Path(__file__).parent / "templates"  # shipped in the wheel with the package
VOTES = ("agree", "revise", "disagree")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every value is text, never markup
        undefined=jinja2.StrictUndefined,  # a misspelt field fails the tests, not the page
        trim_blocks=True,
        lstrip_blocks=True,
    )


def write_report(record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
    """Write `report.html` into the record (0600, like every file there) and return it."""
    record.write_text(REPORT, render_report(result, state, record.transcript()))
    return record.file(REPORT)


def render_report(
    result: dict[str, Any], state: dict[str, Any], transcript: Iterable[dict[str, Any]]
) -> str:
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            result=result,
            status_class=css_status(result["status"]),
            duration=_duration(result.get("duration_s") or 0.0),
            participants=", ".join(participant(s) for s in result["seats"]),
            decision=_decision(result.get("decision")),
            rounds=_rounds(result["contributions"]),
            chart=timeline_chart(result, state, list(transcript)),
            css_status=css_status,
            version=__version__,
        )
    )


def timeline_chart(
    result: dict[str, Any], state: dict[str, Any], transcript: list[dict[str, Any]]
) -> Chart | None:
    """The timeline, or None when nothing has happened yet that could be drawn."""
    calls = calls_from_state(state)
    phases = phases_from_transcript(transcript)
    # A straggler's limits are drawn even when its answer came before them: on the axis too.
    busy = [
        (c.started_at, max(c.end, c.limit_at(c.hard_s) or 0.0) if c.straggler else c.end)
        for c in calls
    ]
    busy += [(t, t) for t in activity_from_transcript(transcript)]
    clock = Clock.over(busy)
    if clock is None or not calls:
        return None
    return build_chart(_seats(result), calls, phases, clock)


def _seats(result: dict[str, Any]) -> list[Seat]:
    seats = []
    for seat in result["seats"]:
        detail = seat["cli"] + (f" · {seat['model']}" if seat.get("model") else "")
        if seat.get("status") == "dropped":
            detail += " · dropped"
        seats.append(Seat(seat["name"], detail))
    return seats


def _decision(decision: dict[str, Any] | None) -> dict[str, Any] | None:
    """The DECISION with every field the page shows, whatever an older or partial record
    holds; votes with their reasons and the tally."""
    if not decision:
        return None
    votes = decision.get("votes") or {}
    reasons = decision.get("vote_reasons") or {}
    excluded = decision.get("excluded_votes") or {}  # a suspect's vote is not counted
    tally = Counter(
        v if v in VOTES else "no_vote"
        for seat, v in votes.items()
        if seat not in excluded or v not in VOTES
    )
    step = decision.get("next_step") or {}
    return {
        "recommendation": decision.get("recommendation") or "",
        "consensus": decision.get("consensus") or [],
        "disagreements": [
            {
                "point": d.get("point", ""),
                "ruling": d.get("ruling", ""),
                "reason": d.get("reason", ""),
                "loop": bool(d.get("loop")),
            }
            for d in decision.get("disagreements") or []
        ],
        "tradeoffs": decision.get("tradeoffs") or [],
        "blocking_concerns": decision.get("blocking_concerns") or [],
        "next_step": {
            "action": step.get("action") or "",
            "verify_command": step.get("verify_command") or "",
            "done_criterion": step.get("done_criterion") or "",
        },
        "confidence": decision.get("confidence"),
        "votes": [
            {
                "seat": seat,
                "vote": (vote or "no vote")
                + (f" (not counted: {excluded[seat]})" if seat in excluded else ""),
                "reason": reasons.get(seat) or "",
            }
            for seat, vote in votes.items()
        ],
        "tally": {v: tally.get(v, 0) for v in (*VOTES, "no_vote")},
        "minority": decision.get("minority") or [],
        "synthesized_by": decision.get("synthesized_by") or "",
        "unchallenged": bool(decision.get("unchallenged")),
    }


def _rounds(contributions: list[dict[str, Any]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """Contributions grouped by round, rounds in order, each round's as received."""
    rounds: dict[int, list[dict[str, Any]]] = {}
    for c in contributions:
        rounds.setdefault(int(c.get("round") or 0), []).append(c)
    return sorted(rounds.items())


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
