"""Who sits: SETUP + READY, restarts, drops and SHUTDOWN (docs/spec/protocol.md section 3,
"READY handshake").

Every seat starts in parallel as a `SeatWorker` task and reports READY with its tool report.
The handshake is per seat and off the critical path: the protocol starts at once, and a seat
is asked for its first phase when it is READY (`is_ready`; `on_ready` tells the dispatch).
It runs inside `receive`, whatever the lead is waiting for: a READY is recorded there, a seat
that misses READY is restarted once, then dropped with a warning; a seat whose CLI is missing
or unusable is dropped at once (a restart cannot install it). A protocol that needs more
(the debate resolves its lead's CLI and replaces a dropped advocate) subclasses `Roster` and
fills in `beside_ready` and `dropped`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters import adapter_for
from council.adapters.base import Tool
from council.config import Config
from council.context import RunContext
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.panel.bus import Bus, Kind, Message, receive
from council.panel.calls import Tuning, billing_of
from council.panel.journal import Journal
from council.panel.messages import LEAD, ReadyReport
from council.panel.seat import SeatPlan
from council.panel.seats import SeatWorker
from council.panel.setup import RunSetup
from council.prompts import render, warm_up
from council.runner.resolve import PROBE_TIMEOUT_S, ToolCache


class Roster:
    def __init__(
        self,
        seats: tuple[SeatPlan, ...],
        setup: RunSetup,
        context: RunContext,
        config: Config,
        bus: Bus,
        journal: Journal,
        tuning: Tuning,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
        *,
        first_template: str | None = None,
        first: str | None = None,
    ) -> None:
        """`seats` as the run's plan (`setup`) sets them: its READY timeout, hard limits,
        warm workers (`max_warm_seats`, in seat order; the rest spawn per call) and lean
        calls."""
        self._planned = seats
        self.lean = setup.lean  # False: --no-lean (docs/lean.md)
        self.rooms = rooms  # outside the project, this run's only
        self.guard = guard  # checks the user's project around each call
        self.context = context
        self.config = config
        self.bus = bus
        self.journal = journal
        self.tuning = tuning
        self.ready_timeout_s = setup.ready_timeout_s
        self.hard_timeout_factor = setup.hard_timeout_factor
        self.first_template = first_template  # compiled while the seats start
        # The seat whose call comes first (the debate's advocate): it starts alone, the others
        # once it is READY (or dropped), or after `tuning.head_start_s`, so the first call
        # gets the machine while the others start.
        self.first = first if tuning.head_start_s > 0 else None
        self._held: list[SeatPlan] = []
        self._released = anyio.Event()
        # A probe may take the seat's whole READY window (gemini's `--version` takes 1.5 s on a
        # quiet machine and ~9 s on a loaded one): off the critical path, slow is not broken.
        self.tools = ToolCache(timeout_s=max(PROBE_TIMEOUT_S, setup.ready_timeout_s))
        self.ready: dict[str, ReadyReport] = {}
        # Told of each seat that becomes READY (the dispatch sends what waited for it).
        self.on_ready: Callable[[SeatPlan], Awaitable[None]] | None = None
        self.inbox: MemoryObjectReceiveStream[Message] | None = None
        self._due: dict[str, float] = {}  # seat still owed its READY -> when it misses it
        self._restarted: set[str] = set()
        self._stopped_by: str | None = None  # what ended the run beside the seats, if anything
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._tg: TaskGroup | None = None
        self.max_warm_seats = setup.max_warm_seats
        self._warm_seats: set[str] = set()
        self._warned_broken: set[str] = set()  # CLIs already warned of as known broken
        self._stopped: set[str] = set()  # seats sent their SHUTDOWN

    @property
    def seats(self) -> tuple[SeatPlan, ...]:
        """Every seat that sits (a subclass may change who does)."""
        return self._planned

    def seated(self, seats: tuple[SeatPlan, ...]) -> list[SeatPlan]:
        """The seats of `seats` that sit: READY, or still starting (not dropped)."""
        return [s for s in seats if s.name in self.ready or s.name in self._due]

    def is_ready(self, seat: SeatPlan) -> bool:
        return seat.name in self.ready

    def starting(self, seat: SeatPlan) -> bool:
        """The seat has not reported READY yet, and is not dropped."""
        return seat.name in self._due

    def seat(self, name: str) -> SeatPlan | None:
        return next((s for s in self.seats if s.name == name), None)

    async def receive(self, within_s: float | None) -> Message | None:
        """The next message for the lead, or None after `within_s` (None: wait). The READY
        handshake runs in here: a READY is recorded and returned (the caller may now ask that
        seat); a seat that misses its READY is restarted, or dropped, and None is returned
        early (the caller looks again at who sits)."""
        assert self.inbox is not None
        deadline = None if within_s is None else anyio.current_time() + within_s
        while True:
            wake = min([t for t in (deadline, *self._due.values()) if t is not None], default=None)
            timeout = None if wake is None else max(0.0, wake - anyio.current_time())
            message = await receive(self.inbox, timeout)
            if message is not None:
                if message.kind is Kind.READY:
                    await self._heard(message)
                return message
            now = anyio.current_time()
            if wake is None or now < wake:
                return None  # the inbox has closed
            if any(due <= now for due in self._due.values()):
                await self._missed_ready(now)
                return None
            if deadline is not None and now >= deadline:
                return None

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
                self._start_first()
                # Not waited for: each seat is asked once it is READY, and the protocol
                # starts now (docs/spec/protocol.md section 3, "READY handshake").
                beside_done = anyio.Event()

                async def beside() -> None:
                    try:
                        await self._released.wait()
                        await self.beside_ready()
                    except Exception as exc:
                        self._stopped_by = str(exc)  # the shutdown says why, not "interrupted"
                        raise
                    finally:
                        beside_done.set()

                tg.start_soon(beside)
                cancelled = False
                try:
                    yield tg
                    # A protocol that ended before it was done (a lead's probe slower than
                    # the whole debate) must not lose it with the seats' task group.
                    await beside_done.wait()
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

    def _start_first(self) -> None:
        """Start the first seat alone and hold the others (they count as starting), or start
        every seat when none comes first."""
        assert self._tg is not None
        first = self.seat(self.first) if self.first else None
        if first is None:
            self._release()
            for seat in self.seats:
                self.start(seat)
            return
        self._held = [s for s in self.seats if s.name != first.name]
        head_start = self.tuning.head_start_s
        for seat in self._held:
            self._due[seat.name] = anyio.current_time() + head_start + self.ready_timeout_s
        self.start(first)

        async def at_the_latest() -> None:
            with anyio.move_on_after(head_start):
                await self._released.wait()
            self._release()  # a hung first start holds nobody for longer

        self._tg.start_soon(at_the_latest)

    def _release(self) -> None:
        """The held seats (and the lead's probe) start now."""
        if self._released.is_set():
            return
        self._released.set()
        held, self._held = self._held, []
        for seat in held:
            if seat.name in self._due:  # not stopped meanwhile
                self.start(seat)

    def start(self, seat: SeatPlan) -> None:
        assert self._tg is not None
        room = self.build_room(seat.name)
        adapter = adapter_for(seat.cli, self.config.clis)
        if (
            adapter.settings.warm
            and seat.name not in self._warm_seats
            and len(self._warm_seats) < self.max_warm_seats
        ):
            self._warm_seats.add(seat.name)
        worker = SeatWorker(
            seat,
            adapter,
            self.bus,
            record_dir=self.journal.record.path,
            room=room,
            hard_factor=self.hard_timeout_factor,
            tuning=self.tuning,
            tools=self.tools,
            tmp_dir=self.rooms.tmp(seat.name),
            guard=self.guard,
            warm=seat.name in self._warm_seats,
            lean_prompt=self.lean_prompt(),
            on_worker=self.record_worker,
        )
        scope = anyio.CancelScope()
        self._scopes[seat.name] = scope
        self._due[seat.name] = anyio.current_time() + self.ready_timeout_s

        async def run() -> None:
            with scope:
                await worker.run()

        self._tg.start_soon(run)
        self.journal.progress.seat(seat.name, phase="SETUP", state="starting")

    async def beside_ready(self) -> None:
        """Runs beside the seats while they start (the debate resolves its lead's CLI here);
        it may raise a `CouncilError` that stops the run."""

    async def dropped(self, seat: SeatPlan) -> None:
        """A seat was dropped at READY (the debate replaces its advocate here)."""

    def lean_prompt(self) -> str | None:
        """Council's system prompt for the run's calls when they may run lean (docs/lean.md),
        or None: lean unless --no-lean, and only when no given file was cut by the line caps,
        since a lean CLI has no tool to read the rest. Every prompt that quotes the files then
        quotes them whole, and the others (round 3, the proxies, the lead) quote the debate,
        which is what those roles are shown: every call of every seat runs lean, or none."""
        return render("lean_system") if self.lean and self.context.truncated_count == 0 else None

    def build_room(self, seat: str) -> Path:
        """The seat's clean room, built (or refreshed) outside the project; the record keeps
        what it holds (`rooms.json`)."""
        room = self.rooms.build(seat, self.context)
        self.journal.record.write_json("rooms.json", self.rooms.manifests)
        return room

    async def _heard(self, message: Message) -> None:
        """A READY: the seat sits (or is dropped, when its CLI cannot run)."""
        seat = self.seat(message.sender)
        if seat is None or self._due.pop(seat.name, None) is None:
            return  # not owed one (a READY sent just before its seat was restarted)
        await self.report(seat, message.payload)
        if seat.name in self.ready and self.on_ready is not None:
            await self.on_ready(seat)  # the first seat's first call goes out here
        if seat.name == self.first:
            self._release()
        await self._settled()

    async def _missed_ready(self, now: float) -> None:
        for name in [n for n, due in self._due.items() if due <= now]:
            seat = self.seat(name)
            assert seat is not None
            self._scopes[name].cancel()
            if name in self._restarted:
                del self._due[name]
                await self.drop(seat, f"no READY within {self.ready_timeout_s:g}s (restarted once)")
            else:
                self._restarted.add(name)
                await self.journal.warn(f"{name} missed READY; restarting it once")
                self.start(seat)
        await self._settled()

    async def _settled(self) -> None:
        """Once no seat is still owed its READY: how many sit."""
        if self._due:
            return
        counted = f"ready {len(self.ready)}/{len(self.seats)}"
        self.journal.progress.info(counted)
        await self.journal.note(counted)

    async def report(self, seat: SeatPlan, report: ReadyReport) -> None:
        if not report.ok:
            await self.drop(seat, report.problem or "unusable")
            return
        self.ready[seat.name] = report
        self.record(seat, "ready", version=report.version, path=report.path)
        self.journal.state.seats[seat.name]["billing"] = report.billing
        await self.warn_known_broken(seat.cli, report.version, report.variant)
        if report.worker is not None:
            self.record_worker(seat.name, dict(report.worker))
            self.journal.save()
            if problem := report.worker.get("problem"):
                await self.journal.note(f"{seat.name} spawns its CLI per call: {problem}")
        self.journal.progress.seat(seat.name, phase="READY", state="ready")

    async def warn_known_broken(self, cli: str, version: str | None, variant: str | None) -> None:
        """A CLI on a release its adapter lists as known broken (`Adapter.known_broken`) sits
        with a warning naming the version, what breaks and the way round: once per CLI."""
        if cli in self._warned_broken:
            return
        adapter = adapter_for(cli, self.config.clis)
        for entry in adapter.known_broken_for(version, variant):
            self._warned_broken.add(cli)
            await self.journal.warn(entry.warning(cli, version))

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

    def record_worker(self, seat: str, report: dict[str, Any]) -> None:
        """What a seat's warm worker did (mode, restarts, memory), kept with the seat; saved
        with the state (at READY, and by SHUTDOWN's or the run's last save)."""
        if seat in self.journal.state.seats:
            self.journal.state.seats[seat]["worker"] = report

    def record_tool(self, seat: SeatPlan, tool: Tool) -> None:
        """A CLI the lead calls itself (no seat task), recorded as ready."""
        self.record(seat, "ready", version=tool.version, path=tool.command[0])
        adapter = adapter_for(seat.cli, self.config.clis)
        self.journal.state.seats[seat.name]["billing"] = billing_of(adapter, self.tuning)

    async def drop(self, seat: SeatPlan, problem: str) -> None:
        if seat.name == self.first:
            self._release()
        self.record(seat, "dropped", problem=problem)
        self.journal.progress.seat(seat.name, phase="READY", state="dropped")
        await self.journal.warn(f"{seat.name} ({seat.cli}) dropped: {problem}")
        await self.dropped(seat)

    async def stop_seats(self) -> None:
        """SHUTDOWN every seat now, before the task group ends (the seats' workers close
        while the lead goes on, e.g. with its DECISION); their acknowledgements are waited
        for on the way out."""
        self._due.clear()  # no READY is waited for any more: no restart, no drop
        for name in self.ready:
            if name not in self._stopped:
                self._stopped.add(name)
                await self.bus.send(Message(Kind.SHUTDOWN, LEAD, name, f"SHUTDOWN:{name}"))

    async def _shutdown(self, absorb: Callable[[Message], Any], *, asked: bool) -> None:
        """SHUTDOWN each seat and wait for its acknowledgement (`asked`), or, when the seats
        are being cancelled already, only save the state."""
        live = list(self.ready) if asked else []
        if not asked:
            self._due.clear()
            why = "interrupted" if self._stopped_by is None else f"stopped ({self._stopped_by})"
            await self.journal.note(f"{why}: seats stopped, their CLIs' trees killed")
        else:
            await self.stop_seats()
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
