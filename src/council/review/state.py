"""A review's `state.json`: everything needed to report on a review or resume it.

Saved after every change, like a debate's, in the shape `council list`, `status`, `wait` and
`cancel` read (`council.runs.store`): status, phase, round, seats, calls, progress. Each call
is stored once it has ended, under its stem (`reviewer-codex-r1`, its repair
`reviewer-codex-r1-repair`, the cross-check `reviewer-codex-r2`); a resumed review reuses every
stored answer whose status is ok or late.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from council.panel.state import RunState

SCHEMA = "council.review-state/v1"
PHASE_ORDER = ("REVIEW", "REVIEW_REPAIR", "CROSS_CHECK", "CROSS_CHECK_REPAIR")


@dataclass(kw_only=True)
class ReviewState(RunState):
    seed: int = 0  # shuffles each cross-check's list of findings
    # Reviewer -> its readable findings (as JSON), once read; a failed reviewer is absent.
    reviews: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # Reviewer -> the finding keys its cross-check listed, in the order shown (F1 first).
    shown: dict[str, list[str]] = field(default_factory=dict)
    # Reviewer -> finding key -> {verdict, reason}, once its cross-check was read.
    verdicts: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    # Reviewer -> REVIEW or CROSS_CHECK -> why that answer of it does not count.
    failed: dict[str, dict[str, str]] = field(default_factory=dict)
    findings: list[dict[str, Any]] | None = None  # merged, once MERGE ran
    blocking: list[str] = field(default_factory=list)  # ids of the findings that block
    schema: str = SCHEMA

    PHASE_ORDER = PHASE_ORDER

    def seat_order(self) -> list[str]:
        return [r["name"] for r in self.plan["reviewers"]]
