"""Who sits in a debate: the panel's SETUP + READY (`council.panel.roster`), plus what only a
debate has (docs/spec/protocol.md section 3, "READY handshake"): the lead's own CLI resolved
beside the seats, and a dropped advocate replaced by the next installed CLI.
"""

from __future__ import annotations

from dataclasses import replace

from council.adapters import adapter_for, default_order
from council.adapters.base import Tool
from council.config import Config
from council.context import DebateContext
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.debate.plan import DebatePlan
from council.errors import NoUsableCliError
from council.panel.bus import Bus, Kind
from council.panel.calls import Tuning
from council.panel.journal import Journal
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.runner.resolve import resolve_tool


class DebateRoster(Roster):
    def __init__(
        self,
        plan: DebatePlan,
        context: DebateContext,
        config: Config,
        bus: Bus,
        journal: Journal,
        tuning: Tuning,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
    ) -> None:
        super().__init__(
            plan.seats,
            context,
            config,
            bus,
            journal,
            tuning,
            rooms,
            guard,
            ready_timeout_s=plan.ready_timeout_s,
            hard_timeout_factor=plan.hard_timeout_factor,
            first_template="proposal",
            lean=plan.lean,
        )
        self.plan = plan  # replacing the advocate changes it
        self.lead_tool: Tool | None = None
        self._lead_problem: str | None = None

    @property
    def seats(self) -> tuple[SeatPlan, ...]:
        return self.plan.seats

    async def beside_ready(self) -> None:
        """The lead's own CLI, resolved while the seats start."""
        if self.plan.lead is None:
            return
        resolved = await self.tools.resolve(adapter_for(self.plan.lead.cli, self.config.clis))
        if resolved.tool is None:
            self._lead_problem = (
                f"the lead's CLI ({self.plan.lead.cli}) cannot run: "
                f"{resolved.problem}; choose another with --lead, or --lead caller"
            )
            return
        self.lead_tool = resolved.tool
        self.record_tool(self.plan.lead, resolved.tool)

    async def after_ready(self) -> None:
        if self._lead_problem is not None:
            self.journal.state.status = "failed"
            self.journal.save()
            raise NoUsableCliError(self._lead_problem)
        if self.plan.advocate.name not in self.ready:
            await self._replace_advocate()

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
            self.start(seat)
            message = await self.receive(self.plan.ready_timeout_s)
            while message is not None and not (
                message.kind is Kind.READY and message.sender == seat.name
            ):
                message = await self.receive(self.plan.ready_timeout_s)
            if message is not None and message.payload.ok:
                await self.report(seat, message.payload)
                return
        self.journal.state.status = "failed"
        self.journal.save()
        raise NoUsableCliError(
            "no CLI left for the advocate seat: install one (see "
            f"`council doctor`), then `council resume {self.journal.state.id}`"
        )
