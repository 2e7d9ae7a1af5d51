"""The check as a protocol of the run's life (`council.panel.run`): its plan is a debate's
seats and the question, its lead asks each seat once, its result is the positions and the
agreement, and its exit code says how far the seats agree (docs/spec/protocol.md section 8):
0 unanimous or majority, 8 split, 9 insufficient."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council.check.markdown import render_markdown
from council.check.positions import INSUFFICIENT, SPLIT
from council.check.result import build_result
from council.check.state import CheckState
from council.errors import CouncilError, ExitCode, UsageError

if TYPE_CHECKING:
    from council.check.flags import CheckFlags
    from council.check.lead import CheckLead
    from council.check.plan import CheckPlan
    from council.config import Config
    from council.context import RunContext
    from council.progress import Progress
    from council.runs.record import Record

EXIT_OF = {SPLIT: ExitCode.CHECK_SPLIT, INSUFFICIENT: ExitCode.CHECK_INSUFFICIENT}


class CheckProtocol:
    """What runs a check (its plan, its lead) is imported when a check runs: reading a record
    needs only its state and its result."""

    kind = "check"
    state_type = CheckState
    forms = ("md",)  # and JSON, as every run's
    result_files = {"check.md": "md"}

    @property
    def plan_type(self) -> type[CheckPlan]:
        from council.check.plan import CheckPlan

        return CheckPlan

    @property
    def lead_type(self) -> type[CheckLead]:
        from council.check.lead import CheckLead

        return CheckLead

    @property
    def conduct(self) -> Callable[[CheckLead], Awaitable[None]]:
        from council.check.lead import run_check

        return run_check

    def resolve(
        self, flags: CheckFlags, config: Config, progress: Progress, cwd: Path
    ) -> CheckPlan:
        from council.check.plan import resolve_check_plan
        from council.debate.protocol import redacted_question

        question = redacted_question(flags.question, config, progress)
        # The options are part of the question: they leave the machine in every prompt too.
        options = tuple(redacted_question(o, config, progress) for o in flags.options or ())
        return resolve_check_plan(
            replace(flags, question=question, options=options or None), config
        )

    def check(
        self, plan: CheckPlan, context: RunContext, config: Config, progress: Progress
    ) -> None:
        return None

    def new_state(self, shared: dict[str, Any], plan: CheckPlan, context: RunContext) -> CheckState:
        return CheckState(**shared, question=plan.question)

    def setup_line(self, plan: CheckPlan, context: RunContext, state: CheckState) -> str:
        seats = ",".join(f"{s.name}={s.cli}" for s in plan.seats)
        lines = sum(f.lines_sent for f in context.files)
        simulated = " (SIMULATED)" if plan.simulated else ""
        options = f" options={','.join(plan.options)}" if plan.options else ""
        return (
            f"setup{simulated}: check {seats}{options} files={len(context.files)} ({lines} lines)"
        )

    def resumed_line(self, state: CheckState) -> str:
        answered = sum(1 for c in state.every_call() if c.answered)
        return f"resuming {state.id} from {state.phase}; answers on disk: {answered}"

    def exit_code(self, state: CheckState, error: CouncilError | None) -> ExitCode:
        """An ended check exits by its agreement, whatever seat is missing: a script branches
        on how far the seats agree (the result says who is missing)."""
        if error is not None:
            return error.exit_code
        if state.status not in ("completed", "degraded"):
            return ExitCode.of_status(state.status)
        agreed = build_result(state, "")["agreement"]  # the rule the result shows
        return EXIT_OF.get(agreed, ExitCode.OK)

    def build_result(self, state: CheckState, scratchpad: str) -> dict[str, Any]:
        return build_result(state, scratchpad)

    def render(self, result: dict[str, Any], form: str) -> str:
        if form != "md":
            raise UsageError(f"{result['id']} is a check: {form} is for a review's findings")
        return render_markdown(result)

    def default_form(self, plan: Mapping[str, Any]) -> str:
        return "md"

    def notes(self, result: dict[str, Any]) -> list[str]:
        missing = [a for a in result["answers"] if not a["counted"]]
        if not missing or result["agreement"] is None:
            return []
        shown = ", ".join(
            f"{a['seat']} ({'not counted' if a['stance'] else a['status']})" for a in missing
        )
        return [f"no position from: {shown}"]

    def write_report(self, record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
        raise UsageError(
            f"{record.id} is a check: it has no HTML page; read it with `council show "
            f"{record.id}` (or --json)"
        )

    def write_beside(self, result: dict[str, Any], state: CheckState) -> CouncilError | None:
        return None


CHECK = CheckProtocol()
