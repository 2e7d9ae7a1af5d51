"""A seat: an anyio task that owns one CLI and acts only on an `ACTION:` DM from the lead.

On start it resolves its CLI (`--version` probe) and reports READY with its tool report, or
READY with `ok: false` and the reason when the CLI cannot run. A reader loop drains its inbox
(broadcasts only inform; they are never acted on) and queues ACTION DMs for a worker loop that
makes one CLI call per DM and broadcasts one answer (or failure notice) per call. SHUTDOWN
cancels a call in flight, which kills its process tree, then the seat acknowledges.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters.base import Adapter
from council.context.guard import ProjectGuard
from council.panel.bus import EVERYONE, Bus, Kind, Message
from council.panel.calls import CallSite, Tuning, call_cli
from council.panel.messages import LEAD, Ask, ReadyReport
from council.panel.seat import SeatPlan
from council.runner.resolve import ToolCache


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
    ) -> None:
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

    @property
    def name(self) -> str:
        return self.plan.name

    async def run(self) -> None:
        async with self.bus.subscribe(self.name) as inbox:
            if await self._ready():
                await self._serve(inbox)
                with anyio.CancelScope(shield=True):
                    await self.bus.send(
                        Message(Kind.SYSTEM, self.name, LEAD, f"SHUTDOWN-ACK:{self.name}")
                    )
            else:
                self.bus.unsubscribe(self.name)

    async def _ready(self) -> bool:
        """Resolve the CLI and report READY: with the tool report, or why it cannot run."""
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
        )
        ready = Message(
            Kind.READY, self.name, LEAD, f"READY:{self.name}", meta=report.meta(), payload=report
        )
        await self.bus.send(ready)
        return tool is not None

    async def _serve(self, inbox: MemoryObjectReceiveStream[Message]) -> None:
        """Queue every ACTION DM for the worker loop until SHUTDOWN; broadcasts only inform."""
        actions_in, actions_out = anyio.create_memory_object_stream[Message](64)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._work, actions_out)
            async with actions_in:
                async for message in inbox:
                    if message.kind is Kind.SHUTDOWN:
                        break
                    if message.action is not None:
                        await actions_in.send(message)
            tg.cancel_scope.cancel()

    async def _work(self, actions: MemoryObjectReceiveStream[Message]) -> None:
        async with actions:
            async for order in actions:
                await self._act(order)

    async def _act(self, order: Message) -> None:
        ask: Ask = order.payload
        assert self.site is not None
        reply = await call_cli(self.site, ask, self.tuning)
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
