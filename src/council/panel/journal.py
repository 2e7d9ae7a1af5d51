"""A run's journal: `state.json` saved after every change, the lead's system notes on the bus
(and so in the transcript), warnings in the state, the progress and the transcript at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from council.panel import budget
from council.panel.bus import RECORD, Bus, Kind, Message
from council.panel.contribution import Contribution
from council.panel.messages import LEAD
from council.panel.state import RunState, reply_file
from council.progress import Progress
from council.runs.record import Record
from council.safetext import clean


class Journal:
    def __init__(self, record: Record, state: RunState, progress: Progress, bus: Bus) -> None:
        self.record = record
        self.state = state
        self.progress = progress
        self.bus = bus
        # The cost cap (USD) and the calls it counts: no phase but the DECISION past it.
        self._cost_cap: tuple[float, Callable[[], Iterable[Contribution]]] | None = None

    def cap_cost(self, limit: float | None, calls: Callable[[], Iterable[Contribution]]) -> None:
        """Enter no phase but the DECISION once what `calls` reported costs `limit`."""
        self._cost_cap = None if limit is None else (limit, calls)

    def save(self) -> None:
        self.record.save_state(self.state)

    def project_changed(self, warning: str | None) -> None:
        """A change the after-call check found in the user's project: a warning in progress,
        `state.json` (so `result.json` and the DECISION) and, with the reply, the transcript.
        Saved by the `store` that follows."""
        if warning:
            self.state.warn(warning)
            self.progress.warn(warning)

    def store(self, contribution: Contribution) -> None:
        """An ended call: its reply in a file of its own first, then the state naming it."""
        self.record.write_text(reply_file(contribution.stem), contribution.text)
        self.state.store(contribution)
        self.save()

    async def note(self, text: str, **meta: Any) -> None:
        await self.bus.send(
            Message(
                Kind.SYSTEM,
                LEAD,
                RECORD,
                text,
                round=self.state.round,
                phase=self.state.phase,
                meta=meta,
            )
        )

    async def warn(self, text: str) -> None:
        text = clean(text)  # it may quote a CLI's output (a `--version` line, a stderr line)
        self.state.warn(text)
        self.progress.warn(text)
        await self.note(f"warning: {text}")
        self.save()

    async def enter(self, phase: str, round_no: int) -> None:
        """The run moves to `phase`; `BudgetSpent` instead when the cost cap is reached
        (the DECISION is entered whatever was spent: it is built from what exists)."""
        if self._cost_cap is not None and phase != "DECISION":
            limit, calls = self._cost_cap
            budget.check(limit, phase, calls())
        self.state.phase, self.state.round = phase, round_no
        self.state.rounds_run = max(self.state.rounds_run, round_no)
        self.save()
        await self.note(f"phase {phase}", round_no=round_no)
