"""A lead's desk for the tests of tests/panel that need no CLI at all: the real `Dispatch`,
`Roster`, `Journal` and `Bus` of a run in a record of its own, with seats the test plays
itself on the bus. A played seat reports READY when the test says, and answers each ACTION
DM as the test scripted it (at once, once an event is set, with a failure, or never), so
which message the lead sees first is set by the test, not by a race between processes.

`Desk.seat_ready(name)` sends the seat's READY as a seat worker does; a seat named in
`starting` is owed its READY (not yet asked: `Unready`), the others are READY before the
first ask.
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from council.config import parse_config
from council.context import RunContext, files_block
from council.context.fences import Fences
from council.context.model import FileExcerpt
from council.context.roomdir import RoomDir
from council.panel.bus import EVERYONE, Bus, Kind, Message
from council.panel.calls import Tuning
from council.panel.dispatch import Dispatch
from council.panel.journal import Journal
from council.panel.messages import LEAD, Ask, ReadyReport, Reply
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.panel.setup import RunSetup
from council.panel.state import RunState
from council.progress import Progress
from council.runs.record import Record

PHASE = "REVIEW"  # asked with the review's prompt, which renders with the values below


class DeskState(RunState):
    PHASE_ORDER = ("PROPOSAL", "CHALLENGE", "REVIEW")

    def seat_order(self) -> list[str]:
        return list(self.plan.get("seats", []))


@dataclass
class Script:
    """How a played seat answers: `status` (ok, timeout, error, ...), after `after` is set
    (None: at once), never when `silent`."""

    status: str = "ok"
    after: anyio.Event | None = None
    silent: bool = False
    text: str = ""


@dataclass
class Played:
    """What a played seat received: its ACTION DMs and CANCEL DMs, in order."""

    asks: list[Message] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    asked: anyio.Event = field(default_factory=anyio.Event)
    cancelled: anyio.Event = field(default_factory=anyio.Event)
    _waiting: list[tuple[int, anyio.Event]] = field(default_factory=list)

    async def asked_times(self, n: int) -> None:
        """Wait until the seat has received its `n`th ACTION DM."""
        if len(self.asks) < n:
            event = anyio.Event()
            self._waiting.append((n, event))
            await event.wait()

    def got(self, order: Message) -> None:
        self.asks.append(order)
        self.asked.set()
        for n, event in self._waiting:
            if len(self.asks) >= n:
                event.set()


class Desk:
    def __init__(
        self,
        tmp_path: Path,
        names: tuple[str, ...],
        *,
        starting: tuple[str, ...] = (),
        soft_s: float = 0.2,
        hard_factor: float = 2.0,
        cli: str = "sim",
        version: str = "1.0",
        lean: bool = True,
        files: tuple[FileExcerpt, ...] = (),
        model: str | None = None,
        effort: str | None = None,
    ) -> None:
        """`names` sit on `cli` (READY with `version`), with `model` and `effort`; `lean`
        and `files` as the run's plan and context say."""
        self.record = Record.create(tmp_path / ".scratchpad", kind="review")
        self.seats = {
            n: SeatPlan(name=n, role="reviewer", cli=cli, model=model, effort=effort) for n in names
        }
        self.cli, self.version = cli, version
        self.billing = {"mode": "login", "source": "~/.sim/auth.json", "text": "its own login"}
        plan = {"seats": list(names)}
        self.state = DeskState(id=self.record.id, question="desk", plan=plan)
        self.stream = io.StringIO()
        self.progress = Progress(self.stream, verbose=True, live=False)
        self.bus = Bus(self.record.append_transcript)
        self.journal = Journal(self.record, self.state, self.progress, self.bus)
        (tmp_path / "rooms").mkdir()
        self.rooms = RoomDir(self.record.id, base=tmp_path / "rooms")
        context = RunContext(root=tmp_path, files=files, diff=None, technical=(), warnings=())
        setup = RunSetup(hard_timeout_factor=hard_factor, lean=lean)
        self.roster = Roster(
            tuple(self.seats.values()),
            setup,
            context,
            parse_config({}),
            self.bus,
            self.journal,
            Tuning(head_start_s=0),
            self.rooms,
        )
        fences = Fences.new()
        values = {
            "subject": "the desk",
            "technical": [],
            "diff": False,
            "files": files_block(context, fences, numbered=True),
            "fences": fences,
        }
        self.dispatch = Dispatch(self.roster, self.journal, lambda: values)
        self.soft_s = soft_s
        self.starting = starting
        self.scripts: dict[str, Script] = {n: Script() for n in names}
        self.played: dict[str, Played] = {n: Played() for n in names}
        self._tg: TaskGroup | None = None

    @asynccontextmanager
    async def open(self) -> AsyncIterator[Desk]:
        """The lead's inbox and the played seats; every seat not `starting` is READY."""
        self.roster.inbox = self.bus.subscribe(LEAD)
        inboxes = {name: self.bus.subscribe(name) for name in self.seats}
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                for name, inbox in inboxes.items():
                    tg.start_soon(self._play, name, inbox)
                for name in self.seats:
                    if name in self.starting:
                        # Owed its READY: the roster's own bookkeeping of a seat starting.
                        self.roster._due[name] = anyio.current_time() + 3600
                    else:
                        await self.roster.report(self.seats[name], self.report(name))
                self.dispatch.background = tg
                yield self
                tg.cancel_scope.cancel()
        finally:
            self.bus.close()
            for inbox in (self.roster.inbox, *inboxes.values()):
                inbox.close()
            self.rooms.remove()

    def set_after(self, delay_s: float, event: anyio.Event) -> None:
        """Set `event` `delay_s` from now (a played seat's answer that comes that late)."""

        async def later() -> None:
            await anyio.sleep(delay_s)
            event.set()

        assert self._tg is not None
        self._tg.start_soon(later)

    def report(self, name: str) -> ReadyReport:
        return ReadyReport(
            ok=True,
            cli=self.cli,
            path=f"/usr/bin/{self.cli}",
            version=self.version,
            timeout_s=self.soft_s,
            billing=self.billing,
        )

    async def seat_ready(self, name: str) -> None:
        """The seat's READY, as its worker sends it."""
        report = self.report(name)
        await self.bus.send(
            Message(Kind.READY, name, LEAD, f"READY:{name}", meta=report.meta(), payload=report)
        )

    async def ask(
        self, name: str, stem: str | None = None, round_no: int = 1, phase: str = PHASE, **kw: Any
    ) -> Any:
        """Ask the seat for `phase` (with the review's prompt, whatever the phase)."""
        return await self.dispatch.ask(
            self.seats[name], phase, round_no, "review", 200, stem=stem, whole=True, **kw
        )

    async def _play(self, name: str, inbox: Any) -> None:
        async for message in inbox:
            played = self.played[name]
            if message.kind is not Kind.DM:
                continue
            if message.body.startswith("CANCEL:"):
                played.cancels.append(message.body.removeprefix("CANCEL:"))
                played.cancelled.set()
                continue
            played.got(message)
            assert self._tg is not None
            self._tg.start_soon(self._answer, name, message)

    async def _answer(self, name: str, order: Message) -> None:
        script = self.scripts[name]
        if script.silent:
            return
        if script.after is not None:
            await script.after.wait()
        ask: Ask = order.payload
        text = script.text or f"the {ask.stem} answer"
        if script.status != "ok":
            text = f"{name} {script.status}: exit 1: sim crashed"
        reply = Reply(
            stem=ask.stem,
            cli="sim",
            status=script.status,
            text=text,
            words=len(text.split()) if script.status == "ok" else 0,
            detail="" if script.status == "ok" else "exit 1: sim crashed",
            usage={"input_tokens": 10, "output_tokens": 3, "cost_usd": None},
        )
        await self.bus.send(
            Message(
                Kind.BROADCAST,
                name,
                EVERYONE,
                reply.text,
                round=order.round,
                phase=order.phase,
                meta=reply.meta(),
                payload=reply,
            )
        )

    def notes(self) -> list[str]:
        return [m["body"] for m in self.record.transcript() if m["kind"] == "system"]

    def lines(self) -> list[str]:
        """The progress lines, their `[mm:ss] ` stamps left out."""
        return re.sub(r"\[\d\d:\d\d\] ", "", self.stream.getvalue()).splitlines()


def run(test: Callable[[], Any]) -> None:
    anyio.run(test)
