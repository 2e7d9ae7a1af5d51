"""`state.json`: everything needed to report on a debate or resume it.

The lead saves it after every change. A call is stored once it has ended, under its stem
(`critic-r2`): a resumed debate reuses every stored reply whose status is ok or late and runs
everything else again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from council.context.fences import Fences
from council.panel.contribution import Contribution, StoredCalls
from council.runs.record import now_iso

SCHEMA = "council.state/v1"
# Within a round: the advocate's turn before the challengers' when both speak (FINAL_SUMMARY
# beside REBUTTAL), the lead's own calls last.
PHASE_ORDER = (
    "PROPOSAL",
    "BLIND_TAKE",
    "CHALLENGE",
    "RESPOND",
    "CONVERGENCE",
    "FINAL_SUMMARY",
    "REBUTTAL",
    "DECISION",
    "REPAIR",
)


@dataclass
class DebateState(StoredCalls):
    id: str
    question: str
    plan: dict[str, Any]
    status: str = "running"  # running | completed | degraded | failed | interrupted
    phase: str = "PARSE"
    round: int = 0
    started_at: str = field(default_factory=now_iso)
    finished_at: str | None = None
    duration_s: float = 0.0  # summed over runs (a resumed debate adds its own)
    run_started_at: str | None = None  # when the latest process took the debate over
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # stem -> Contribution
    order: list[str] = field(default_factory=list)  # call stems, as received (for the record)
    technical: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # seat -> how prompts name it
    context: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    rounds_run: int = 0
    stopped_early: bool = False
    unchallenged: bool = False
    budget_stop: str | None = None  # why no more calls were asked: the cost cap, reached
    decision: dict[str, Any] | None = None
    decision_prompt_file: str | None = None
    # The run's nonce and canary (context/fences.py): kept, so a resumed run fences its
    # prompts and watches its replies with the same ones.
    fences: dict[str, str] = field(default_factory=lambda: Fences.new().to_json())
    exit_code: int | None = None
    error: str | None = None  # the message a run that failed or was interrupted ended with
    pid: int | None = None  # the council process of the latest run (see resume)
    schema: str = SCHEMA

    def contributions(self) -> list[Contribution]:
        """The seats' contributions in debate order (round, phase, then seat order: advocate,
        critic, proxies as configured), never in arrival order, so identical runs give
        identical prompts and records. The lead's own calls are not among them."""
        return [c for c in self.every_call() if c.role != "lead"]

    def every_call(self) -> list[Contribution]:
        """Every call that has ended, the lead's own included, in debate order."""
        found = [c for c in (self.contribution(stem) for stem in self.order) if c is not None]
        seats = [self.plan["advocate"]["name"], self.plan["critic"]["name"]]
        seats += [p["name"] for p in self.plan["proxies"]]

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
