"""`echo`: a third protocol that lives in the tests only, the smallest one the run's life
(`council.panel.run`) can drive. One seat on the simulator is asked once, with the review's
prompt (so the simulator answers), and its reply is the result, printed as Markdown.

It is what `docs/architecture.md` says a third protocol needs: a plan, a state, a lead and a
protocol object, and one entry in `council.protocols.PROTOCOLS` (which the tests patch in).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.config import Config
from council.context import RunContext, files_block
from council.context.fences import Fences
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.errors import CouncilError, ExitCode, NoUsableCliError, UsageError
from council.panel.bus import Bus
from council.panel.calls import Tuning
from council.panel.dispatch import Dispatch
from council.panel.flags import RunFlags
from council.panel.journal import Journal
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.panel.setup import RunSetup, shared_setup
from council.panel.state import RunState
from council.progress import Progress
from council.runs.record import Record

PHASE = "REVIEW"  # the review's prompt, which the simulator answers
SEAT = "echo"


@dataclass(frozen=True, kw_only=True)
class EchoFlags(RunFlags):
    """The flags every run's command line has, and the seat's CLI."""

    cli: str = "sim"
    sim: bool = True


@dataclass(frozen=True, kw_only=True)
class EchoPlan(RunSetup):
    seat: SeatPlan

    def labels(self) -> dict[str, str]:
        return {self.seat.name: "Echo"}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EchoPlan:
        values = cls.known_fields(data)
        values["seat"] = SeatPlan(**values["seat"])
        return cls(**values)


@dataclass(kw_only=True)
class EchoState(RunState):
    reply: str | None = None  # the seat's answer, once read
    schema: str = "council.echo-state/v1"

    PHASE_ORDER = (PHASE,)

    def seat_order(self) -> list[str]:
        return [self.plan["seat"]["name"]]


class EchoLead:
    """The one seat, seated as a review seats its reviewers (`council.review.lead`)."""

    def __init__(
        self,
        plan: EchoPlan,
        context: RunContext,
        record: Record,
        state: EchoState,
        progress: Progress,
        config: Config,
        *,
        tuning: Tuning,
        rooms: RoomDir,
        guard: ProjectGuard,
    ) -> None:
        self.seat, self.state = plan.seat, state
        bus = Bus(record.append_transcript, first_seq=len(record.transcript()) + 1)
        self.journal = Journal(record, state, progress, bus)
        self.roster = Roster(
            (plan.seat,),
            plan,
            context,
            config,
            bus,
            self.journal,
            tuning,
            rooms,
            guard,
            first_template="review",
        )
        fences = Fences.from_json(state.fences)
        files = files_block(context, fences, numbered=True)
        values = {"subject": "the echo", "technical": [], "diff": False, "files": files}
        self.dispatch = Dispatch(self.roster, self.journal, lambda: {**values, "fences": fences})


async def run_echo(lead: EchoLead) -> None:
    """SETUP, one ask of the one seat, and its reply kept."""
    journal, dispatch, roster, state = lead.journal, lead.dispatch, lead.roster, lead.state
    async with dispatch.seated():
        await journal.enter(PHASE, 1)
        asked = [
            await dispatch.ask(sitting, PHASE, 1, "review", 200, whole=True)
            for sitting in roster.seated((lead.seat,))  # none when its CLI could not start
        ]
        answers = await dispatch.gather(asked, progressive=False)
    if not any(answer.answered for answer in answers):
        state.status = "failed"
        journal.save()
        raise NoUsableCliError(f"the {SEAT} seat did not answer; see the record")
    state.reply = answers[0].text
    state.status = "completed"
    journal.save()


class EchoProtocol:
    kind = "echo"
    state_type = EchoState
    plan_type = EchoPlan
    forms = ("md",)
    result_files = {"echo.md": "md"}
    lead_type = EchoLead
    conduct = staticmethod(run_echo)

    def resolve(self, flags: EchoFlags, config: Config, progress: Progress, cwd: Path) -> EchoPlan:
        seat = SeatPlan(name=SEAT, role="reviewer", cli=flags.cli)
        return EchoPlan(**shared_setup(flags, config), seat=seat, simulated=flags.sim)

    def check(
        self, plan: EchoPlan, context: RunContext, config: Config, progress: Progress
    ) -> None:
        return None

    def new_state(self, shared: dict[str, Any], plan: EchoPlan, context: RunContext) -> EchoState:
        return EchoState(**shared, question="echo")

    def setup_line(self, plan: EchoPlan, context: RunContext, state: EchoState) -> str:
        return f"setup: echo on {plan.seat.cli}"

    def resumed_line(self, state: EchoState) -> str:
        return f"resuming {state.id} from {state.phase}"

    def exit_code(self, state: EchoState, error: CouncilError | None) -> ExitCode:
        return error.exit_code if error is not None else ExitCode.of_status(state.status)

    def build_result(self, state: EchoState, scratchpad: str) -> dict[str, Any]:
        return {
            "id": state.id,
            "status": state.status,
            "reply": state.reply,
            "scratchpad": scratchpad,
        }

    def render(self, result: dict[str, Any], form: str) -> str:
        reply = result["reply"] if result["reply"] is not None else "(no reply)"
        return f"# Echo {result['id']}\n\nStatus: {result['status']}\n\n{reply}\n"

    def default_form(self, plan: Mapping[str, Any]) -> str:
        return "md"

    def notes(self, result: dict[str, Any]) -> list[str]:
        return []

    def write_report(self, record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
        raise UsageError(f"{record.id} is an echo: it has no HTML page")

    def write_beside(self, result: dict[str, Any], state: EchoState) -> CouncilError | None:
        return None


ECHO = EchoProtocol()
