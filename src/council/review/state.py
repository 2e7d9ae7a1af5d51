"""A review's `state.json`: everything needed to report on a review or resume it.

Saved after every change, like a debate's, in the shape `council list`, `status`, `wait` and
`cancel` read (`council.runs.store`): status, phase, round, seats, calls, progress. Each call
is stored once it has ended, under its stem (`reviewer-codex-r1`, its repair
`reviewer-codex-r1-repair`, the cross-check `reviewer-codex-r2`); a resumed review reuses every
stored answer whose status is ok or late.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from council.context.fences import Fences
from council.panel.contribution import Contribution, StoredCalls
from council.runs.record import now_iso

SCHEMA = "council.review-state/v1"
PHASE_ORDER = ("REVIEW", "REVIEW_REPAIR", "CROSS_CHECK", "CROSS_CHECK_REPAIR")


@dataclass
class ReviewState(StoredCalls):
    id: str
    question: str  # "review of git diff main + app.py": what `council list` shows
    plan: dict[str, Any]
    status: str = "running"  # running | completed | degraded | failed | interrupted
    phase: str = "PARSE"
    round: int = 0
    started_at: str = field(default_factory=now_iso)
    finished_at: str | None = None
    duration_s: float = 0.0  # summed over runs (a resumed review adds its own)
    run_started_at: str | None = None
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # stem -> Contribution
    order: list[str] = field(default_factory=list)  # call stems, as received
    technical: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # reviewer -> how prompts name it
    context: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    rounds_run: int = 0
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
    # The run's nonce and canary (context/fences.py), kept for a resumed review.
    fences: dict[str, str] = field(default_factory=lambda: Fences.new().to_json())
    exit_code: int | None = None
    error: str | None = None
    pid: int | None = None
    schema: str = SCHEMA

    def contributions(self) -> list[Contribution]:
        """Every call that has ended, in review order (round, phase, then seat order), never
        in arrival order."""
        found = [c for c in (self.contribution(stem) for stem in self.order) if c is not None]
        seats = [r["name"] for r in self.plan["reviewers"]]

        def place(c: Contribution) -> tuple[int, int, int]:
            phase = PHASE_ORDER.index(c.phase) if c.phase in PHASE_ORDER else len(PHASE_ORDER)
            seat = seats.index(c.seat) if c.seat in seats else len(seats)
            return (c.round, phase, seat)

        return sorted(found, key=place)

    def store(self, contribution: Contribution) -> None:
        self.calls[contribution.stem] = asdict(contribution)
        if contribution.stem not in self.order:
            self.order.append(contribution.stem)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)
