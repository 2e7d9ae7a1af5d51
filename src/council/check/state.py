"""A check's `state.json`: the fields of every run's (`council.panel.state`); its calls are
the seats' answers (stem `<seat>-r1`, phase CHECK), from which the result is built."""

from __future__ import annotations

from dataclasses import dataclass

from council.panel.state import RunState

SCHEMA = "council.check-state/v1"
PHASE = "CHECK"


@dataclass(kw_only=True)
class CheckState(RunState):
    schema: str = SCHEMA

    PHASE_ORDER = (PHASE,)

    def seat_order(self) -> list[str]:
        seats = [self.plan["advocate"]["name"], self.plan["critic"]["name"]]
        return seats + [p["name"] for p in self.plan["proxies"]]
