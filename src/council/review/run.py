"""Starting and resuming a review: plan, context, record, the lead under signal handling, and
the result on disk whatever happens (docs/spec/protocol.md sections 5, 6 and 8, as for a
debate).

The record is `.scratchpad/review-<YYYYMMDD-HHMMSS>-<4 chars>/`: `state.json`,
`transcript.jsonl`, `progress.log`, `context.md`, every prompt and answer, and at the end
`result.json` (`council.review/v1`), `review.md` and `review.sarif`. `--output PATH` also
writes the result there (`.sarif`, `.json`, `.md` by its suffix, else in `--format`'s form),
but only for a review that reached its findings: a failed review writes no empty SARIF that
would close a repository's open alerts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.atomicio import write_output
from council.config import Config
from council.context import (
    Redactor,
    RunContext,
    context_json,
    gather_context,
    protection_note,
    render_context_md,
    setup_report,
)
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.errors import CouncilError, ExitCode, RecordWriteError, UsageError
from council.panel.calls import Tuning
from council.panel.drive import run_to_end, take_over
from council.progress import Progress
from council.review.lead import ReviewLead, run_review
from council.review.plan import ReviewFlags, ReviewPlan, resolve_review_plan
from council.review.result import build_result, render
from council.review.state import ReviewState
from council.runs.detach import hand_over
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, STATE, Record
from council.runs.store import read_state

KIND = "review"
FILES = {"md": "review.md", "json": "result.json", "sarif": "review.sarif"}


@dataclass
class ReviewRun:
    record: Record
    result: dict[str, Any]
    exit_code: ExitCode
    error: CouncilError | None = None


@dataclass
class Prepared:
    """A review after PARSE + CONTEXT: its record exists, holds the plan and the context, and
    is locked by this process."""

    plan: ReviewPlan
    context: RunContext
    record: Record
    state: ReviewState
    lock: RecordLock


def start_review(
    flags: ReviewFlags,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    tuning: Tuning | None = None,
) -> ReviewRun:
    cwd = cwd or Path.cwd()
    ready = prepare_review(flags, config, progress, cwd=cwd)
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def detach_review(
    flags: ReviewFlags,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    council_args: tuple[str, ...] = (),
) -> Record:
    """PARSE + CONTEXT here (bad input is reported at once), then the review in a process of
    its own (`council.runs.detach`)."""
    cwd = cwd or Path.cwd()
    ready = prepare_review(flags, config, progress, cwd=cwd)
    progress.close_log()
    return hand_over(ready.record, ready.lock, ready.state, cwd=cwd, council_args=council_args)


def run_detached_review(
    record_path: Path, lock_fd: int, config: Config, progress: Progress, *, cwd: Path | None = None
) -> ReviewRun:
    """The detached process's side of `detach_review`: run the prepared record."""
    record = Record(record_path)
    state = ReviewState.from_json(record.read_json(STATE))
    ready = Prepared(
        ReviewPlan.from_json(state.plan),
        RunContext.from_json(record.read_json("context.json")),
        record,
        state,
        RecordLock(lock_fd),
    )
    return _drive(ready, progress, config, Tuning(), cwd or Path.cwd())


def prepare_review(
    flags: ReviewFlags, config: Config, progress: Progress, *, cwd: Path
) -> Prepared:
    plan = resolve_review_plan(flags, config, cwd=cwd, warn=progress.warn)
    # PARSE + CONTEXT: bad input stops here, before any record exists.
    context = gather_context(
        plan.files,
        cwd=cwd,
        diff_ref=plan.diff_ref,
        allow_outside=plan.allow_outside,
        allow_secrets=plan.allow_secrets,
        file_lines=plan.file_lines,
        total_lines=plan.total_lines,
        context_lines=plan.context_lines,
        redactor=Redactor(plan.extra_patterns),
        allow_files=plan.allow_files,
    )
    if not context.files and not context.diff:
        raise UsageError(f"nothing to review: {plan.subject} holds no change and no readable file")
    for line in setup_report(context):
        progress.info(line)
    for warning in context.warnings:
        progress.warn(warning)
    if note := protection_note():
        progress.warn(note)
    record = Record.create(_resolve(cwd, plan.scratchpad), kind=KIND)
    lock = RecordLock.acquire(record.path)
    progress.log_to(record.file(PROGRESS))
    seed = plan.seed if plan.seed is not None else context_seed(context)
    state = ReviewState(
        id=record.id,
        question=f"review of {plan.subject}",
        plan=plan.to_json(),
        technical=list(context.technical),
        labels=plan.labels(),
        context=context_json(context),
        warnings=list(context.warnings),
        seed=seed,
    )
    record.write_json("context.json", context.to_json())
    record.write_text("context.md", render_context_md(context))
    record.save_state(state)
    progress.info(_setup_line(plan, context, seed))
    return Prepared(plan, context, record, state, lock)


def context_seed(context: RunContext) -> int:
    """The shuffle's seed when none is given: from the code under review, so the same code
    is cross-checked in the same order (and a record says which seed it used)."""
    digest = hashlib.sha256(render_context_md(context).encode("utf-8")).hexdigest()
    return int(digest[:8], 16)


def resume_review(
    record: Record, config: Config, progress: Progress, *, cwd: Path, tuning: Tuning | None = None
) -> ReviewRun:
    """Continue an interrupted or failed review, reusing every answer already on disk."""
    lock = take_over(record, progress)
    state = ReviewState.from_json(read_state(record))
    if state.status in ("completed", "degraded"):
        lock.release()
        progress.info(f"{record.id} already ended ({state.status}); nothing to resume")
        return _finish(record, state, cwd, None)
    progress.log_to(record.file(PROGRESS))
    progress.info(f"resuming {record.id} from {state.phase}")
    state.status = "running"
    ready = Prepared(
        ReviewPlan.from_json(state.plan),
        RunContext.from_json(record.read_json("context.json")),
        record,
        state,
        lock,
    )
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def _drive(
    ready: Prepared, progress: Progress, config: Config, tuning: Tuning, cwd: Path
) -> ReviewRun:
    plan, record, state = ready.plan, ready.record, ready.state

    def start(rooms: RoomDir, guard: ProjectGuard) -> Callable[[], Awaitable[None]]:
        lead = ReviewLead(
            plan,
            ready.context,
            record,
            state,
            progress,
            config,
            tuning=tuning,
            rooms=rooms,
            guard=guard,
        )
        return lambda: run_review(lead)

    error = run_to_end(record, state, ready.context, progress, start)
    try:
        return _finish(record, state, cwd, error)
    finally:
        progress.close_log()
        ready.lock.release()


def exit_code_of(state: ReviewState, error: CouncilError | None) -> ExitCode:
    """protocol.md section 8: a blocking finding (6) outranks a degraded review (5)."""
    if error is not None:
        return error.exit_code
    if state.blocking and state.status in ("completed", "degraded"):
        return ExitCode.REVIEW_GATE
    return ExitCode.of_status(state.status)


def _finish(record: Record, state: ReviewState, cwd: Path, error: CouncilError | None) -> ReviewRun:
    exit_code = exit_code_of(state, error)
    state.exit_code = exit_code
    state.error = str(error) if error is not None else None
    result = build_result(state, record.display(cwd))
    if record.failed is None:
        try:
            record.save_state(state)
            record.write_json(FILES["json"], result)
            for form in ("md", "sarif"):
                record.write_text(FILES[form], render(result, form))
        except RecordWriteError as failed:
            # The run is over, only its result files are missing: `council resume` writes
            # them once the disk is fixed.
            error, exit_code = failed, failed.exit_code
    output = state.plan.get("output")
    if output and result["status"] in ("completed", "degraded"):
        form = state.plan.get("output_format") or state.plan.get("format") or "md"
        try:
            _write_output(Path(output), render(result, form))
        except OSError as exc:  # the review is in the record: only the copy is missing
            error = UsageError(f"cannot write --output {output}: {exc.strerror}")
            exit_code = error.exit_code
    return ReviewRun(record, result, exit_code, error)


def _write_output(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # `--output reports/council.sarif` in CI
    write_output(path, text)


def _resolve(cwd: Path, path: str) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else cwd / candidate


def _setup_line(plan: ReviewPlan, context: RunContext, seed: int) -> str:
    reviewers = ",".join(r.cli for r in plan.reviewers)
    lines = sum(f.lines_sent for f in context.excerpts)
    redactions = context.total_redactions
    simulated = " (SIMULATED)" if plan.simulated else ""
    fail_on = plan.fail_on or "never"
    return (
        f"setup{simulated}: reviewers={reviewers} files={len(context.files)} "
        f"({lines} lines, {redactions} redaction{'s' if redactions != 1 else ''}) "
        f"fail-on={fail_on} seed={seed}"
    )
