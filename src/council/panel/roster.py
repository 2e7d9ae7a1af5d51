"""Who sits: SETUP + READY, restarts, drops and SHUTDOWN (docs/spec/protocol.md section 3,
"READY handshake").

Every seat starts in parallel as a `SeatWorker` task and reports READY with its tool report.
A seat that misses READY is restarted once, then dropped with a warning; a seat whose CLI is
missing or unusable is dropped at once (a restart cannot install it). A protocol that needs
more at READY (the debate resolves its lead's CLI and replaces a dropped advocate) subclasses
`Roster` and fills in `beside_ready` and `after_ready`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters import adapter_for
from council.adapters.base import Tool
from council.config import Config
from council.context import DebateContext
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.panel.bus import Bus, Kind, Message, receive
from council.panel.calls import Tuning
from council.panel.journal import Journal
from council.panel.messages import LEAD, ReadyReport
from council.panel.seat import SeatPlan
from council.panel.seats import SeatWorker
from council.prompts import render, warm_up
from council.runner.resolve import ToolCache


class Roster:
    def __init__(
        self,
        seats: tuple[SeatPlan, ...],
        context: DebateContext,
        config: Config,
        bus: Bus,
        journal: Journal,
        tuning: Tuning,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
        *,
        ready_timeout_s: float = 60.0,
        hard_timeout_factor: float = 1.5,
        first_template: str | None = None,
        lean: bool = True,
    ) -> None:
        self._planned = seats
        self.lean = lean  # False: --no-lean (docs/lean.md)
        self.rooms = rooms  # outside the project, this run's only
        self.guard = guard  # checks the user's project around each call
        self.context = context
        self.config = config
        self.bus = bus
        self.journal = journal
        self.tuning = tuning
        self.ready_timeout_s = ready_timeout_s
        self.hard_timeout_factor = hard_timeout_factor
        self.first_template = first_template  # compiled while the seats start
        self.tools = ToolCache()
        self.ready: dict[str, ReadyReport] = {}
        self.inbox: MemoryObjectReceiveStream[Message] | None = None
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._tg: TaskGroup | None = None

    @property
    def seats(self) -> tuple[SeatPlan, ...]:
        """Every seat that sits (a subclass may change who does)."""
        return self._planned

    def seated(self, seats: tuple[SeatPlan, ...]) -> list[SeatPlan]:
        """The seats of `seats` that reported READY."""
        return [s for s in seats if s.name in self.ready]

    def seat(self, name: str) -> SeatPlan | None:
        return next((s for s in self.seats if s.name == name), None)

    async def receive(self, within_s: float | None) -> Message | None:
        assert self.inbox is not None
        return await receive(self.inbox, within_s)

    @asynccontextmanager
    async def sitting(self, absorb: Callable[[Message], Any]) -> AsyncIterator[TaskGroup]:
        """SETUP + READY on the way in; SHUTDOWN on the way out, whatever happens. Yields the
        task group the seats run in; `absorb` takes a reply that arrives during SHUTDOWN."""
        self.inbox = self.bus.subscribe(LEAD)
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                if self.first_template:
                    # Not waited for: the first phase renders as soon as the seats are READY.
                    tg.start_soon(anyio.to_thread.run_sync, warm_up, self.first_template)
                for seat in self.seats:
                    self.start(seat)
                await self._await_ready()
                cancelled = False
                try:
                    yield tg
                except anyio.get_cancelled_exc_class():
                    # Ctrl-C or SIGTERM: the same cancellation is ending every seat, and each
                    # kills its CLI's tree on the way out; nobody is left to acknowledge.
                    cancelled = True
                    raise
                finally:
                    with anyio.CancelScope(shield=True):
                        await self._shutdown(absorb, asked=not cancelled)
                    tg.cancel_scope.cancel()
        finally:
            self.bus.close()
            self.inbox.close()

    def start(self, seat: SeatPlan) -> None:
        assert self._tg is not None
        room = self.build_room(seat.name)
        worker = SeatWorker(
            seat,
            adapter_for(seat.cli, self.config.clis),
            self.bus,
            record_dir=self.journal.record.path,
            room=room,
            hard_factor=self.hard_timeout_factor,
            tuning=self.tuning,
            tools=self.tools,
            tmp_dir=self.rooms.tmp(seat.name),
            guard=self.guard,
        )
        scope = anyio.CancelScope()
        self._scopes[seat.name] = scope

        async def run() -> None:
            with scope:
                await worker.run()

        self._tg.start_soon(run)
        self.journal.progress.seat(seat.name, phase="SETUP", state="starting")

    async def beside_ready(self) -> None:
        """Runs while the seats start (the debate resolves its lead's CLI here)."""

    async def after_ready(self) -> None:
        """Runs once every seat is READY or dropped (the debate replaces its advocate here)."""

    def lean_prompt(self, *, files_inlined: bool) -> str | None:
        """Council's system prompt for a call that may run lean (docs/lean.md), or None: lean
        unless --no-lean, and only when the call's prompt holds every given file whole (none
        cut by the line caps), or there is none, since a lean CLI has no tool to read one."""
        context = self.context
        whole = context.truncated_count == 0 and (files_inlined or not context.excerpts)
        return render("lean_system") if self.lean and whole else None

    def build_room(self, seat: str) -> Path:
        """The seat's clean room, built (or refreshed) outside the project; the record keeps
        what it holds (`rooms.json`)."""
        room = self.rooms.build(seat, self.context)
        self.journal.record.write_json("rooms.json", self.rooms.manifests)
        return room

    async def _await_ready(self) -> None:
        waiting = {seat.name: seat for seat in self.seats}
        restarted: set[str] = set()
        due = {name: anyio.current_time() + self.ready_timeout_s for name in waiting}
        async with anyio.create_task_group() as tg:
            tg.start_soon(self.beside_ready)
            while waiting:
                timeout = max(0.0, min(due[n] for n in waiting) - anyio.current_time())
                message = await self.receive(timeout)
                if message is not None and message.kind is Kind.READY:
                    seat = waiting.pop(message.sender, None)
                    if seat is not None:
                        await self.report(seat, message.payload)
                    continue
                for name in [n for n in waiting if due[n] <= anyio.current_time()]:
                    seat = waiting[name]
                    self._scopes[name].cancel()
                    if name in restarted:
                        waiting.pop(name)
                        await self.drop(
                            seat, f"no READY within {self.ready_timeout_s:g}s (restarted once)"
                        )
                    else:
                        restarted.add(name)
                        await self.journal.warn(f"{name} missed READY; restarting it once")
                        self.start(seat)
                        due[name] = anyio.current_time() + self.ready_timeout_s
        await self.after_ready()
        counted = f"ready {len(self.ready)}/{len(self.seats)}"
        self.journal.progress.info(counted)
        await self.journal.note(counted)

    async def report(self, seat: SeatPlan, report: ReadyReport) -> None:
        if not report.ok:
            await self.drop(seat, report.problem or "unusable")
            return
        self.ready[seat.name] = report
        self.record(seat, "ready", version=report.version, path=report.path)
        self.journal.progress.seat(seat.name, phase="READY", state="ready")

    def record(self, seat: SeatPlan, status: str, **about: str | None) -> None:
        self.journal.state.seats[seat.name] = {
            "role": seat.role,
            "cli": seat.cli,
            "model": seat.model,
            "effort": seat.effort,
            "version": about.get("version"),
            "path": about.get("path"),
            "status": status,
            "problem": about.get("problem"),
        }
        self.journal.save()

    def record_tool(self, seat: SeatPlan, tool: Tool) -> None:
        """A CLI the lead calls itself (no seat task), recorded as ready."""
        self.record(seat, "ready", version=tool.version, path=tool.command[0])

    async def drop(self, seat: SeatPlan, problem: str) -> None:
        self.record(seat, "dropped", problem=problem)
        self.journal.progress.seat(seat.name, phase="READY", state="dropped")
        await self.journal.warn(f"{seat.name} ({seat.cli}) dropped: {problem}")

    async def _shutdown(self, absorb: Callable[[Message], Any], *, asked: bool) -> None:
        """SHUTDOWN each seat and wait for its acknowledgement (`asked`), or, when the seats
        are being cancelled already, only save the state."""
        live = list(self.ready) if asked else []
        if not asked:
            await self.journal.note("interrupted: seats stopped, their CLIs' trees killed")
        for name in live:
            await self.bus.send(Message(Kind.SHUTDOWN, LEAD, name, f"SHUTDOWN:{name}"))
        acked: set[str] = set()
        with anyio.move_on_after(self.tuning.grace_s + 5):
            while len(acked) < len(live):
                message = await self.receive(None)
                if message is None:
                    break
                if message.kind is Kind.SYSTEM and message.body.startswith("SHUTDOWN-ACK"):
                    acked.add(message.sender)
                else:
                    absorb(message)
        self.journal.save()
