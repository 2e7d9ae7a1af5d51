"""A seat: an anyio task that owns one CLI and acts only on an `ACTION:` DM from the lead.

On start it resolves its CLI (`--version` probe) and reports READY with its tool report, or
READY with `ok: false` and the reason when the CLI cannot run. A seat the roster lets run warm
starts its CLI's warm worker instead (runner/warm.py): one process for all its calls, a fresh
session per call; the worker's handshake is its READY, and when the worker cannot start the
seat spawns its CLI per call. A reader loop drains its inbox
(broadcasts only inform; they are never acted on) and queues ACTION DMs for a worker loop that
makes one CLI call per DM and broadcasts one answer (or failure notice) per call. SHUTDOWN
cancels a call in flight, which kills its process tree, closes the warm worker, then the seat
acknowledges. A `CANCEL:` DM ends the call it names: a session on the warm worker is
cancelled (its tree killed if it does not stop within the grace), a spawned CLI's tree is
killed, and an order still queued is dropped; such a call broadcasts nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters.base import Adapter, Tool
from council.adapters.warm import LeanStart
from council.context.guard import ProjectGuard
from council.panel.bus import EVERYONE, Bus, Kind, Message, cancelled_stem
from council.panel.calls import CallSite, Tuning, billing_of, call_cli
from council.panel.messages import LEAD, Ask, ReadyReport
from council.panel.seat import SeatPlan
from council.panel.warmstart import start_warm
from council.runner.resolve import Resolution, ToolCache
from council.runner.warm import WarmWorker


def soft_timeout_of(seat: SeatPlan, adapter: Adapter) -> float:
    """The seat's soft timeout: its plan's (a `--timeout` flag), else the adapter's."""
    if seat.soft_timeout_s is not None:
        return seat.soft_timeout_s
    return adapter.soft_timeout(seat.effort or adapter.settings.effort)


class SeatWorker:
    def __init__(
        self,
        plan: SeatPlan,
        adapter: Adapter,
        bus: Bus,
        *,
        record_dir: Path,
        room: Path,
        hard_factor: float,
        tuning: Tuning,
        tools: ToolCache,
        tmp_dir: Path | None = None,
        guard: ProjectGuard | None = None,
        warm: bool = False,
        lean_prompt: str | None = None,
        on_worker: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        """`warm`: run the CLI as a warm worker where its adapter has a persistent mode;
        `lean_prompt`: every call of the seat may run lean with it (docs/lean.md), so its warm
        worker starts lean; `on_worker`: told what the warm worker did (mode, restarts,
        memory) when it ends."""
        self.plan = plan
        self.adapter = adapter
        self.bus = bus
        self.record_dir = record_dir
        self.room = room
        self.tmp_dir = tmp_dir
        self.guard = guard
        self.hard_factor = hard_factor
        self.tuning = tuning
        self.tools = tools
        self.site: CallSite | None = None  # set once the CLI is found and usable
        self.warm_allowed = warm
        self.lean_prompt = lean_prompt
        self.on_worker = on_worker
        self.warm: WarmWorker | None = None
        self.worker_report: dict[str, Any] | None = None  # what READY says of the worker
        self._stack: AsyncExitStack | None = None
        self._reported = False
        self._calling: tuple[str, anyio.CancelScope] | None = None  # the call running now
        self._cut: set[str] = set()  # stems of calls the lead has ended

    @property
    def name(self) -> str:
        return self.plan.name

    async def run(self) -> None:
        async with self.bus.subscribe(self.name) as inbox, AsyncExitStack() as stack:
            self._stack = stack
            stack.callback(self._worker_ended)  # after the warm worker closed (last in, first out)
            if await self._ready():
                await self._serve(inbox)
                with anyio.CancelScope(shield=True):
                    if self.warm is not None:
                        await self.warm.close()  # its tree is gone before the ACK
                        self._worker_ended()
                    await self.bus.send(
                        Message(Kind.SYSTEM, self.name, LEAD, f"SHUTDOWN-ACK:{self.name}")
                    )
            else:
                self.bus.unsubscribe(self.name)

    def _worker_ended(self) -> None:
        if self.warm is not None and self.on_worker is not None and not self._reported:
            self._reported = True
            self.on_worker(self.name, self.warm.stats.report())

    async def _ready(self) -> bool:
        """Resolve the CLI and report READY: with the tool report, or why it cannot run."""
        tool = await self._start_warm() if self.warm_allowed else None
        if tool is not None:
            resolved = Resolution(self.adapter, tool)
        else:
            resolved = await self.tools.resolve(self.adapter)
        soft = soft_timeout_of(self.plan, self.adapter)
        tool = resolved.tool
        if tool is not None:
            self.site = CallSite(
                seat=self.name,
                adapter=self.adapter,
                tool=tool,
                record_dir=self.record_dir,
                room=self.room,
                soft_timeout_s=soft,
                hard_timeout_factor=self.hard_factor,
                model=self.plan.model,
                effort=self.plan.effort,
                tmp_dir=self.tmp_dir,
                guard=self.guard,
                warm=self.warm,
            )
        report = ReadyReport(
            ok=tool is not None,
            cli=self.plan.cli,
            problem=resolved.problem,
            path=tool.command[0] if tool else None,
            version=tool.version if tool else None,
            variant=tool.variant if tool else None,
            model=self.plan.model or self.adapter.settings.model,
            effort=self.plan.effort or self.adapter.settings.effort,
            sandbox=self.adapter.sandbox,
            timeout_s=soft,
            worker=self.worker_report,
            billing=billing_of(self.adapter, self.tuning),
        )
        ready = Message(
            Kind.READY, self.name, LEAD, f"READY:{self.name}", meta=report.meta(), payload=report
        )
        await self.bus.send(ready)
        return tool is not None

    async def _start_warm(self) -> Tool | None:
        """Start the seat's warm worker; the tool it runs, or None when the seat spawns its
        CLI per call (no persistent mode, none here, or the worker did not start: the
        report says why)."""
        if self._stack is None:
            return None
        started = await start_warm(
            self._stack,
            self.plan,
            self.adapter,
            tools=self.tools,
            tuning=self.tuning,
            room=self.room,
            tmp_dir=self.tmp_dir,
            record_dir=self.record_dir,
            lean=LeanStart(self.lean_prompt, self.room) if self.lean_prompt is not None else None,
        )
        self.warm, self.worker_report = started.worker, started.report
        return started.tool

    async def _serve(self, inbox: MemoryObjectReceiveStream[Message]) -> None:
        """Queue every ACTION DM for the worker loop until SHUTDOWN; broadcasts only inform."""
        actions_in, actions_out = anyio.create_memory_object_stream[Message](64)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._work, actions_out)
            async with actions_in:
                async for message in inbox:
                    if message.kind is Kind.SHUTDOWN:
                        break
                    if (stem := cancelled_stem(message)) is not None:
                        self._cancel(stem)
                    elif message.action is not None:
                        await actions_in.send(message)
            tg.cancel_scope.cancel()

    async def _work(self, actions: MemoryObjectReceiveStream[Message]) -> None:
        async with actions:
            async for order in actions:
                await self._act(order)

    def _cancel(self, stem: str) -> None:
        """End the call `stem`: cut its warm session short, or cancel it (a spawned CLI's tree
        is killed); one still queued never starts."""
        self._cut.add(stem)
        if self._calling is None or self._calling[0] != stem:
            return
        if self.warm is None or not self.warm.cut():
            self._calling[1].cancel()

    async def _act(self, order: Message) -> None:
        ask: Ask = order.payload
        assert self.site is not None
        if ask.stem in self._cut:
            return  # ended before it started
        with anyio.CancelScope() as scope:
            self._calling = (ask.stem, scope)
            try:
                reply = await call_cli(self.site, ask, self.tuning)
            finally:
                self._calling = None
        if scope.cancelled_caught or ask.stem in self._cut:
            return  # the lead no longer waits for it
        await self.bus.send(
            Message(
                Kind.BROADCAST,
                self.name,
                EVERYONE,
                reply.text,
                round=order.round,
                phase=order.phase,
                meta=reply.meta(),
                payload=reply,
            )
        )
