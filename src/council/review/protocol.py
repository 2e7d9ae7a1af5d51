"""The review as a protocol of the run's life (`council.panel.run`): what a review does that a
debate does not. Its plan names the reviewers and the gate, its seed orders the
cross-checks, its result is the findings (`review.md`, `review.sarif`), its exit code says
whether a finding blocks, and its `--output` is written beside the record.

`--output` is written only for a review that reached its findings: a failed review writes no
empty SARIF that would close a repository's open alerts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council.atomicio import write_output
from council.errors import CouncilError, ExitCode, UsageError
from council.panel.protocol import ENDED, rendered
from council.review.result import build_result, render
from council.review.state import ReviewState

if TYPE_CHECKING:
    from council.config import Config
    from council.context import RunContext
    from council.progress import Progress
    from council.review.flags import ReviewFlags
    from council.review.lead import ReviewLead
    from council.review.plan import ReviewPlan
    from council.runs.record import Record


class ReviewProtocol:
    """What runs a review (its plan, its lead) is imported when a review runs: reading a
    record needs only its state and its result."""

    kind = "review"
    state_type = ReviewState
    forms = ("md", "sarif", "github", "gitlab")  # and JSON, as every run's
    result_files = {"review.md": "md", "review.sarif": "sarif"}

    @property
    def plan_type(self) -> type[ReviewPlan]:
        from council.review.plan import ReviewPlan

        return ReviewPlan

    @property
    def lead_type(self) -> type[ReviewLead]:
        from council.review.lead import ReviewLead

        return ReviewLead

    @property
    def conduct(self) -> Callable[[ReviewLead], Awaitable[None]]:
        from council.review.lead import run_review

        return run_review

    def resolve(
        self, flags: ReviewFlags, config: Config, progress: Progress, cwd: Path
    ) -> ReviewPlan:
        from council.review.plan import resolve_review_plan

        return resolve_review_plan(flags, config, cwd=cwd, warn=progress.warn)

    def check(
        self, plan: ReviewPlan, context: RunContext, config: Config, progress: Progress
    ) -> None:
        if not context.files and not context.diff:
            raise UsageError(
                f"nothing to review: {plan.subject} holds no change and no readable file"
            )

    def new_state(
        self, shared: dict[str, Any], plan: ReviewPlan, context: RunContext
    ) -> ReviewState:
        seed = plan.seed if plan.seed is not None else context_seed(context)
        return ReviewState(**shared, question=f"review of {plan.subject}", seed=seed)

    def setup_line(self, plan: ReviewPlan, context: RunContext, state: ReviewState) -> str:
        reviewers = ",".join(r.cli for r in plan.reviewers)
        lines = sum(f.lines_sent for f in context.excerpts)
        redactions = context.total_redactions
        simulated = " (SIMULATED)" if plan.simulated else ""
        fail_on = plan.fail_on or "never"
        return (
            f"setup{simulated}: reviewers={reviewers} files={len(context.files)} "
            f"({lines} lines, {redactions} redaction{'s' if redactions != 1 else ''}) "
            f"fail-on={fail_on} seed={state.seed}"
        )

    def resumed_line(self, state: ReviewState) -> str:
        return f"resuming {state.id} from {state.phase}"

    def exit_code(self, state: ReviewState, error: CouncilError | None) -> ExitCode:
        """protocol.md section 8: a blocking finding (6) outranks a degraded review (5)."""
        if error is not None:
            return error.exit_code
        if state.blocking and state.status in ENDED:
            return ExitCode.REVIEW_GATE
        return ExitCode.of_status(state.status)

    def build_result(self, state: ReviewState, scratchpad: str) -> dict[str, Any]:
        return build_result(state, scratchpad)

    def render(self, result: dict[str, Any], form: str) -> str:
        return render(result, form)

    def default_form(self, plan: Mapping[str, Any]) -> str:
        return plan.get("format") or "md"

    def notes(self, result: dict[str, Any]) -> list[str]:
        gate = result["gate"]
        if result["status"] not in ENDED or not gate["blocking"]:
            return []
        shown = ", ".join(gate["blocking"])
        return [f"council: blocking findings at --fail-on {gate['fail_on']}: {shown}"]

    def write_report(self, record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
        from council.review.report import write_report  # Jinja2's page environment, only for a page

        return write_report(record, result, state)

    def write_beside(self, result: dict[str, Any], state: ReviewState) -> CouncilError | None:
        output = state.plan.get("output")
        if not output or result["status"] not in ENDED:
            return None
        form = state.plan.get("output_format") or state.plan.get("format") or "md"
        path = Path(output)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # `--output reports/x.sarif` in CI
            write_output(path, rendered(self, result, form))
        except OSError as exc:  # the review is in the record: only the copy is missing
            return UsageError(f"cannot write --output {output}: {exc.strerror}")
        return None


REVIEW = ReviewProtocol()


def context_seed(context: RunContext) -> int:
    """The shuffle's seed when none is given: from the code under review, so the same code
    is cross-checked in the same order (and a record says which seed it used)."""
    from council.context import render_context_md

    digest = hashlib.sha256(render_context_md(context).encode("utf-8")).hexdigest()
    return int(digest[:8], 16)
