"""A debate's `state.json`: the fields of every run's (`council.panel.state`) and the debate's
own: whether it stopped early, the cost cap's stop, and the DECISION."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from council.panel.contribution import Contribution
from council.panel.state import RunState

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


@dataclass(kw_only=True)
class DebateState(RunState):
    stopped_early: bool = False
    unchallenged: bool = False
    budget_stop: str | None = None  # why no more calls were asked: the cost cap, reached
    decision: dict[str, Any] | None = None
    decision_prompt_file: str | None = None
    schema: str = SCHEMA

    PHASE_ORDER = PHASE_ORDER

    def seat_order(self) -> list[str]:
        seats = [self.plan["advocate"]["name"], self.plan["critic"]["name"]]
        return seats + [p["name"] for p in self.plan["proxies"]]

    def contributions(self) -> list[Contribution]:
        """The seats' contributions in debate order (round, phase, then seat order: advocate,
        critic, proxies as configured). The lead's own calls are not among them."""
        return [c for c in self.every_call() if c.role != "lead"]
