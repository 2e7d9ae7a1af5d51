"""The debate as a protocol of the run's life (`council.panel.run`): what a debate does that
a review does not. Its plan is resolved from the question and the seats, checked for a lead
or votes that would not be what they look like, and its result is the DECISION."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council.debate.result import build_result, render_markdown
from council.debate.state import DebateState
from council.errors import CouncilError, ExitCode, UsageError
from council.safetext import clean

if TYPE_CHECKING:
    from council.config import Config
    from council.context import RunContext
    from council.debate.flags import DebateFlags
    from council.debate.lead import Lead
    from council.debate.plan import DebatePlan
    from council.progress import Progress
    from council.runs.record import Record


class DebateProtocol:
    """What runs a debate (its plan, its lead) is imported when a debate runs: reading a
    record (`council show`, `wait`, `list`) needs only its state and its result."""

    kind = "debate"
    state_type = DebateState
    forms = ("md",)  # and JSON, as every run's
    result_files = {"decision.md": "md"}

    @property
    def plan_type(self) -> type[DebatePlan]:
        from council.debate.plan import DebatePlan

        return DebatePlan

    @property
    def lead_type(self) -> type[Lead]:
        from council.debate.lead import Lead

        return Lead

    @property
    def conduct(self) -> Callable[[Lead], Awaitable[None]]:
        from council.debate.lead import run_debate

        return run_debate

    def resolve(
        self, flags: DebateFlags, config: Config, progress: Progress, cwd: Path
    ) -> DebatePlan:
        from council.debate.plan import resolve_plan

        question = redacted_question(flags.question, config, progress)
        return resolve_plan(replace(flags, question=question), config)

    def check(
        self, plan: DebatePlan, context: RunContext, config: Config, progress: Progress
    ) -> None:
        for warning in (_own_vendor_lead(plan, config), _shared_vendor_votes(plan, config)):
            if warning is not None:
                progress.warn(warning)

    def new_state(
        self, shared: dict[str, Any], plan: DebatePlan, context: RunContext
    ) -> DebateState:
        return DebateState(**shared, question=plan.question)

    def setup_line(self, plan: DebatePlan, context: RunContext, state: DebateState) -> str:
        proxies = ",".join(p.cli for p in plan.proxies) or "none"
        lead = plan.lead.cli if plan.lead else "caller"
        redactions = sum(f.redactions for f in context.files)
        lines = sum(f.lines_sent for f in context.files)
        simulated = " (SIMULATED)" if plan.simulated else ""
        return (
            f"setup{simulated}: advocate={plan.advocate.cli} critic={plan.critic.cli} "
            f"proxies={proxies} lead={lead} rounds={plan.rounds} files={len(context.files)} "
            f"({lines} lines, {redactions} redaction{'s' if redactions != 1 else ''})"
        )

    def resumed_line(self, state: DebateState) -> str:
        return (
            f"resuming {state.id} from {state.phase} (round {state.round}); replies "
            f"on disk: {sum(1 for c in state.contributions() if c.answered)}"
        )

    def exit_code(self, state: DebateState, error: CouncilError | None) -> ExitCode:
        return error.exit_code if error is not None else ExitCode.of_status(state.status)

    def build_result(self, state: DebateState, scratchpad: str) -> dict[str, Any]:
        return build_result(state, scratchpad)

    def render(self, result: dict[str, Any], form: str) -> str:
        if form != "md":
            raise UsageError(f"{result['id']} is a debate: {form} is for a review's findings")
        return render_markdown(result)

    def default_form(self, plan: Mapping[str, Any]) -> str:
        return "md"

    def notes(self, result: dict[str, Any]) -> list[str]:
        dropped = [s for s in result["seats"] if s["status"] == "dropped"]
        if not dropped:
            return []
        return ["dropped: " + ", ".join(f"{s['name']} ({s['cli']})" for s in dropped)]

    def write_report(self, record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
        from council.debate.report import write_report  # Jinja2's page environment, only for a page

        return write_report(record, result, state)

    def write_beside(self, result: dict[str, Any], state: DebateState) -> CouncilError | None:
        return None  # `--output` is the front end's: written as the result is printed


DEBATE = DebateProtocol()


def redacted_question(question: str, config: Config, progress: Progress) -> str:
    """The question leaves the machine in every prompt: it gets the files' redaction too, and
    (pasted from anywhere) no terminal control sequence of it goes further."""
    from council.context import Redactor

    redactor = Redactor(config.redact.extra_patterns)
    text, found = redactor.text(clean(question), filename="question.md")
    if found:
        progress.warn(f"redacted {sum(found.values())} secret(s) from the question")
    return text


def _own_vendor_lead(plan: DebatePlan, config: Config) -> str | None:
    """A lead of the advocate's own vendor judges its own proposal: say so."""
    from council.adapters import adapter_for

    if plan.lead is None or plan.simulated:
        return None
    vendor = adapter_for(plan.lead.cli, config.clis).vendor
    if vendor != adapter_for(plan.advocate.cli, config.clis).vendor:
        return None
    return (
        f"the lead ({plan.lead.cli}) is of the advocate's own vendor and rules on its own "
        "vendor's proposal; install a CLI of another vendor, or choose one with --lead"
    )


def _shared_vendor_votes(plan: DebatePlan, config: Config) -> str | None:
    """Under `quorum.distinct: vendor`, challengers of one vendor cast one vote between them:
    name them, so a panel that looked like three voices is not read as three."""
    from council.adapters import adapter_for

    if plan.distinct != "vendor":
        return None
    by_vendor: dict[str, list[str]] = {}
    for seat in plan.challengers:
        by_vendor.setdefault(adapter_for(seat.cli, config.clis).vendor, []).append(seat.name)
    shared = [
        f"{', '.join(seats)} ({vendor})" for vendor, seats in by_vendor.items() if len(seats) > 1
    ]
    if not shared:
        return None
    return (
        f"quorum.distinct: vendor counts one vote per vendor, and these seats share one: "
        f"{'; '.join(shared)}; seat CLIs of other vendors for more voices"
    )
