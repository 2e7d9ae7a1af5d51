"""`council show ID --html` of a debate: the question, the DECISION, every contribution by
round, around the timeline every run's page has (`council.report`, template
`debate.html.j2`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from council.panel.contribution import participant
from council.report.page import render_page, seat_rows, timeline_chart, write_page
from council.runs.record import Record

VOTES = ("agree", "revise", "disagree")


def write_report(record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
    """Write the debate's `report.html` into its record and return it."""
    return write_page(record, render_report(result, state, record.transcript()))


def render_report(
    result: dict[str, Any], state: dict[str, Any], transcript: list[dict[str, Any]]
) -> str:
    return render_page(
        "debate.html.j2",
        result,
        participants=", ".join(participant(s) for s in result["seats"]),
        decision=_decision(result.get("decision")),
        rounds=_rounds(result["contributions"]),
        chart=timeline_chart(seat_rows(result["seats"]), state, transcript),
    )


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
