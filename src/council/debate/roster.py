"""Who sits: SETUP + READY, restarts, drops, the advocate's replacement, and SHUTDOWN
(docs/spec/protocol.md section 3, "READY handshake").

Every seat starts in parallel as a `SeatWorker` task and reports READY with its tool report.
A seat that misses READY is restarted once, then dropped with a warning; a seat whose CLI is
missing or unusable is dropped at once (a restart cannot install it). A dropped advocate is
replaced by the next installed CLI. The lead's own CLI is resolved beside the seats.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters import adapter_for, default_order
from council.adapters.base import Tool
from council.config import Config
from council.context import DebateContext, build_room
from council.debate.bus import Bus, Kind, Message, receive
from council.debate.calls import Tuning
from council.debate.journal import Journal
from council.debate.messages import LEAD, ReadyReport
from council.debate.plan import DebatePlan, SeatPlan
from council.debate.seats import SeatWorker
from council.errors import NoUsableCliError
from council.prompts import warm_up
from council.runner.resolve import ToolCache, resolve_tool


class Roster:
    def __init__(
        self,
        plan: DebatePlan,
        context: DebateContext,
        config: Config,
        bus: Bus,
        journal: Journal,
        tuning: Tuning,
    ) -> None:
        self.plan = plan  # replacing the advocate changes it
        self.context = context
        self.config = config
        self.bus = bus
        self.journal = journal
        self.tuning = tuning
        self.tools = ToolCache()
        self.ready: dict[str, ReadyReport] = {}
        self.lead_tool: Tool | None = None
        self.inbox: MemoryObjectReceiveStream[Message] | None = None
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._tg: TaskGroup | None = None

    def seated(self, seats: tuple[SeatPlan, ...]) -> list[SeatPlan]:
        """The seats of `seats` that reported READY."""
        return [s for s in seats if s.name in self.ready]

    def seat(self, name: str) -> SeatPlan | None:
        return next((s for s in self.plan.seats if s.name == name), None)

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
                # Not waited for: the first phase renders as soon as the seats are READY.
                tg.start_soon(anyio.to_thread.run_sync, warm_up, "proposal")
                for seat in self.plan.seats:
                    self._start(seat)
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

    def _start(self, seat: SeatPlan) -> None:
        assert self._tg is not None
        room = self.journal.record.room(seat.name)
        build_room(room, self.context)
        worker = SeatWorker(
            seat,
            adapter_for(seat.cli, self.config.clis),
            self.bus,
            record_dir=self.journal.record.path,
            room=room,
            hard_factor=self.plan.hard_timeout_factor,
            tuning=self.tuning,
            tools=self.tools,
        )
        scope = anyio.CancelScope()
        self._scopes[seat.name] = scope

        async def run() -> None:
            with scope:
                await worker.run()

        self._tg.start_soon(run)
        self.journal.progress.seat(seat.name, phase="SETUP", state="starting")

    async def _await_ready(self) -> None:
        waiting = {seat.name: seat for seat in self.plan.seats}
        restarted: set[str] = set()
        due = {name: anyio.current_time() + self.plan.ready_timeout_s for name in waiting}
        lead_problem: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._resolve_lead, lead_problem)
            while waiting:
                timeout = max(0.0, min(due[n] for n in waiting) - anyio.current_time())
                message = await self.receive(timeout)
                if message is not None and message.kind is Kind.READY:
                    seat = waiting.pop(message.sender, None)
                    if seat is not None:
                        await self._report(seat, message.payload)
                    continue
                for name in [n for n in waiting if due[n] <= anyio.current_time()]:
                    seat = waiting[name]
                    self._scopes[name].cancel()
                    if name in restarted:
                        waiting.pop(name)
                        await self._drop(
                            seat, f"no READY within {self.plan.ready_timeout_s:g}s (restarted once)"
                        )
                    else:
                        restarted.add(name)
                        await self.journal.warn(f"{name} missed READY; restarting it once")
                        self._start(seat)
                        due[name] = anyio.current_time() + self.plan.ready_timeout_s
        if lead_problem:
            self.journal.state.status = "failed"
            self.journal.save()
            raise NoUsableCliError(lead_problem[0])
        if self.plan.advocate.name not in self.ready:
            await self._replace_advocate()
        counted = f"ready {len(self.ready)}/{len(self.plan.seats)}"
        self.journal.progress.info(counted)
        await self.journal.note(counted)

    async def _report(self, seat: SeatPlan, report: ReadyReport) -> None:
        if not report.ok:
            await self._drop(seat, report.problem or "unusable")
            return
        self.ready[seat.name] = report
        self._record(seat, "ready", version=report.version, path=report.path)
        self.journal.progress.seat(seat.name, phase="READY", state="ready")

    async def _resolve_lead(self, problems: list[str]) -> None:
        if self.plan.lead is None:
            return
        resolved = await self.tools.resolve(adapter_for(self.plan.lead.cli, self.config.clis))
        if resolved.tool is None:
            problems.append(
                f"the lead's CLI ({self.plan.lead.cli}) cannot run: "
                f"{resolved.problem}; choose another with --lead, or --lead caller"
            )
            return
        self.lead_tool = resolved.tool
        tool = resolved.tool
        self._record(self.plan.lead, "ready", version=tool.version, path=tool.command[0])

    def _record(self, seat: SeatPlan, status: str, **about: str | None) -> None:
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

    async def _drop(self, seat: SeatPlan, problem: str) -> None:
        self._record(seat, "dropped", problem=problem)
        self.journal.progress.seat(seat.name, phase="READY", state="dropped")
        await self.journal.warn(f"{seat.name} ({seat.cli}) dropped: {problem}")

    async def _replace_advocate(self) -> None:
        """A dropped advocate is replaced by the next installed CLI (docs/spec/protocol.md,
        "READY handshake")."""
        tried = {self.plan.advocate.cli}
        for cli in default_order():
            if cli in tried or self.plan.simulated:
                continue
            tried.add(cli)
            resolved = await resolve_tool(adapter_for(cli, self.config.clis))
            if resolved.tool is None:
                continue
            seat = replace(self.plan.advocate, cli=cli, model=None)
            self.plan = replace(self.plan, advocate=seat)
            self.journal.state.plan = self.plan.to_json()
            await self.journal.warn(f"the advocate is now {cli}")
            self._start(seat)
            message = await self.receive(self.plan.ready_timeout_s)
            while message is not None and not (
                message.kind is Kind.READY and message.sender == seat.name
            ):
                message = await self.receive(self.plan.ready_timeout_s)
            if message is not None and message.payload.ok:
                await self._report(seat, message.payload)
                return
        self.journal.state.status = "failed"
        self.journal.save()
        raise NoUsableCliError(
            "no CLI left for the advocate seat: install one (see "
            f"`council doctor`), then `council resume {self.journal.state.id}`"
        )

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
