"""Who sits in a debate: the panel's SETUP + READY (`council.panel.roster`), plus what only a
debate has (docs/spec/protocol.md section 3, "READY handshake"): the lead's own CLI resolved
beside the seats, and a dropped advocate replaced by the next installed CLI.

The lead's CLI is needed only for the DECISION (and the convergence check), so its probe is
not waited for before the PROPOSAL; the synthesis waits for it (`lead_tool_ready`). A lead
whose CLI cannot run stops the run as soon as its probe says so (a second or so into the
PROPOSAL at most): exit 3, the state saved as failed, nothing spent on a debate whose DECISION
nobody could write.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import replace

import anyio

from council.adapters import adapter_for, default_order
from council.adapters.base import Tool
from council.adapters.warm import LeanStart
from council.config import Config
from council.context import RunContext
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.debate.plan import DebatePlan
from council.errors import NoUsableCliError
from council.panel.bus import Bus
from council.panel.calls import Tuning
from council.panel.journal import Journal
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.panel.warmstart import start_warm
from council.runner.resolve import resolve_tool
from council.runner.warm import WarmWorker


class DebateRoster(Roster):
    def __init__(
        self,
        plan: DebatePlan,
        context: RunContext,
        config: Config,
        bus: Bus,
        journal: Journal,
        tuning: Tuning,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
    ) -> None:
        super().__init__(
            plan.seats,
            plan,
            context,
            config,
            bus,
            journal,
            tuning,
            rooms,
            guard,
            first_template="proposal",
            first=plan.advocate.name,
        )
        self.plan = plan  # replacing the advocate changes it
        self.lead_tool: Tool | None = None
        self._lead_resolved = anyio.Event()
        self.lead_worker: WarmWorker | None = None
        self._lead_warm: anyio.Event | None = None  # set once its start has ended
        self._advocates_tried = {plan.advocate.cli}

    @property
    def seats(self) -> tuple[SeatPlan, ...]:
        return self.plan.seats

    async def beside_ready(self) -> None:
        """The lead's own CLI, resolved while the seats start; one that cannot run stops the
        run (raised here, in the seats' task group: every seat's call is cancelled)."""
        if self.plan.lead is None:
            return
        lead = self.plan.lead
        resolved = await self.tools.resolve(adapter_for(lead.cli, self.config.clis))
        if resolved.tool is None:
            self.journal.state.status = "failed"
            self.journal.save()
            raise NoUsableCliError(
                f"the lead's CLI ({lead.cli}) cannot run: "
                f"{resolved.problem}; choose another with --lead, or --lead caller"
            )
        self.lead_tool = resolved.tool
        self.record_tool(lead, resolved.tool)
        await self.warn_known_broken(lead.cli, resolved.tool.version, resolved.tool.variant)
        await self.journal.note(
            f"lead's CLI ready: {lead.cli} {resolved.tool.version or ''}".rstrip(),
            path=resolved.tool.command[0],
        )
        self._lead_resolved.set()

    async def lead_tool_ready(self) -> Tool:
        """The lead's CLI, once its probe has found it (the DECISION needs it)."""
        await self._lead_resolved.wait()
        assert self.lead_tool is not None
        return self.lead_tool

    def warm_lead_soon(self) -> None:
        """Start the lead's warm worker beside the debate, off its critical path, so the
        DECISION (and the convergence check) pays no CLI start-up. Not under `--cold` or
        `max_warm_seats: 0`; the lead does not count toward `max_warm_seats`. A CLI with no
        persistent mode, or a worker that does not start, leaves the lead spawning per
        call (the record says why)."""
        lead = self.plan.lead
        if lead is None or self._lead_warm is not None or self._tg is None:
            return
        adapter = adapter_for(lead.cli, self.config.clis)
        if self.max_warm_seats <= 0 or not adapter.settings.warm:
            return
        started = self._lead_warm = anyio.Event()

        async def run() -> None:
            async with AsyncExitStack() as stack:
                try:
                    await self.lead_tool_ready()  # a CLI that cannot run stops the run there
                    room = self.build_room(lead.name)
                    lean_prompt = self.lean_prompt()  # the lead's calls are lean when any is
                    warm = await start_warm(
                        stack,
                        lead,
                        adapter,
                        tools=self.tools,
                        tuning=self.tuning,
                        room=room,
                        tmp_dir=self.rooms.tmp(lead.name),
                        record_dir=self.journal.record.path,
                        lean=None if lean_prompt is None else LeanStart(lean_prompt, room),
                    )
                    self.lead_worker = warm.worker if warm.tool is not None else None
                    if warm.report is not None:
                        self.record_worker(lead.name, warm.report)
                        if problem := warm.report.get("problem"):
                            await self.journal.note(f"the lead spawns its CLI per call: {problem}")
                finally:
                    started.set()
                await anyio.sleep_forever()  # until the seats' task group ends: then torn down

        self._tg.start_soon(run)

    async def lead_worker_ready(self) -> WarmWorker | None:
        """The lead's warm worker once its start has ended; None: the lead's calls spawn."""
        if self._lead_warm is not None:
            await self._lead_warm.wait()
        return self.lead_worker

    def lead_worker_used(self) -> None:
        """What the lead's worker did so far, kept with the lead's seat (`seats[].worker`)."""
        if self.lead_worker is not None and self.plan.lead is not None:
            self.record_worker(self.plan.lead.name, self.lead_worker.stats.report())

    async def dropped(self, seat: SeatPlan) -> None:
        """A dropped advocate is replaced by the next installed CLI (docs/spec/protocol.md,
        "READY handshake"); the replacement goes through READY as any seat does."""
        if seat.name != self.plan.advocate.name:
            return
        for cli in default_order():
            if cli in self._advocates_tried or self.plan.simulated:
                continue
            self._advocates_tried.add(cli)
            resolved = await resolve_tool(adapter_for(cli, self.config.clis))
            if resolved.tool is None:
                continue
            advocate = replace(self.plan.advocate, cli=cli, model=None)
            self.plan = replace(self.plan, advocate=advocate)
            self.journal.state.plan = self.plan.to_json()
            await self.journal.warn(f"the advocate is now {cli}")
            self.start(advocate)
            return
        self.journal.state.status = "failed"
        self.journal.save()
        raise NoUsableCliError(
            "no CLI left for the advocate seat: install one (see "
            f"`council doctor`), then `council resume {self.journal.state.id}`"
        )
