"""A run's cost cap (`--max-cost USD`, `debate.max_cost`): what the CLIs reported their calls
cost, added up, and whether the cap is reached. Only reported costs count, never an estimate:
a seat whose CLI prices nothing (codex, gemini, qwen, kimi; pi for a model it has no price
for) is listed as unpriced, and the cap cannot see what it spends.

The cap is checked before each phase is entered: the calls a phase already asked finish (they
are paid for), no new phase starts, and the DECISION is built from what exists without a call
of the lead's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


class BudgetSpent(Exception):
    """Raised on entering a phase once the reported cost reached the cap."""

    def __init__(self, phase: str, spent: float, limit: float) -> None:
        self.phase = phase
        super().__init__(
            f"the cost cap of {dollars(limit)} was reached ({dollars(spent)} reported) before "
            f"{phase}: no more calls were asked"
        )


def dollars(amount: float) -> str:
    """`$0.41`, or `$0.0012` below ten cents, where the cents matter."""
    return f"${amount:.2f}" if amount >= 0.1 else f"${amount:.4f}"


@dataclass(frozen=True)
class Spend:
    spent_usd: float  # what the calls reported, summed
    unpriced_seats: list[str]  # seats with a call that reported no cost


def spend_of(calls: Iterable[Any]) -> Spend:
    """What `calls` (stored contributions: `.seat`, `.usage`, `.skipped`) reported they cost."""
    spent = 0.0
    unpriced: list[str] = []
    for call in calls:
        if getattr(call, "skipped", False):
            continue
        cost = (call.usage or {}).get("cost_usd")
        if cost is None:
            if call.seat not in unpriced:
                unpriced.append(call.seat)
        else:
            spent += cost
    return Spend(round(spent, 6), unpriced)


def check(limit: float | None, phase: str, calls: Iterable[Any]) -> None:
    """Raise `BudgetSpent` when a cap is set and what was reported reached it."""
    if limit is None:
        return
    spent = spend_of(calls).spent_usd
    if spent >= limit:
        raise BudgetSpent(phase, spent, limit)
