"""The debate's journal: `state.json` saved after every change, the lead's system notes on the
bus (and so in the transcript), warnings in the state, the progress and the transcript at once.
"""

from __future__ import annotations

from typing import Any

from council.debate.bus import RECORD, Bus, Kind, Message
from council.debate.messages import LEAD
from council.debate.state import Contribution, DebateState
from council.progress import Progress
from council.runs.record import Record
from council.safetext import clean


class Journal:
    def __init__(self, record: Record, state: DebateState, progress: Progress, bus: Bus) -> None:
        self.record = record
        self.state = state
        self.progress = progress
        self.bus = bus

    def save(self) -> None:
        self.record.save_state(self.state)

    def store(self, contribution: Contribution) -> None:
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
        self.state.phase, self.state.round = phase, round_no
        self.state.rounds_run = max(self.state.rounds_run, round_no)
        self.save()
        await self.note(f"phase {phase}", round_no=round_no)
