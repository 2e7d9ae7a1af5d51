"""Starting and resuming a debate: plan, context, record, the lead under signal handling, and
the result on disk whatever happens.

Ctrl-C or SIGTERM cancels the lead: every seat's process tree is killed (the runner does that
in shielded scopes), the state is marked `interrupted` and saved, and the exit code is 130.
A council killed with SIGKILL leaves the state of its last atomic write; `council resume`
continues from either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import Any

from council.adapters import adapter_for
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
from council.debate.lead import Lead, run_debate
from council.debate.plan import DebateFlags, DebatePlan, resolve_plan
from council.debate.result import build_result, render_markdown
from council.debate.state import DebateState
from council.errors import (
    CouncilError,
    ExitCode,
    RecordWriteError,
    UsageError,
)
from council.panel.calls import Tuning
from council.panel.drive import run_to_end, take_over
from council.progress import Progress
from council.runs.detach import hand_over
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, STATE, Record
from council.runs.store import find_run, read_state
from council.safetext import clean


@dataclass
class DebateRun:
    record: Record
    result: dict[str, Any]
    exit_code: ExitCode
    error: CouncilError | None = None

    @property
    def reached_decision(self) -> bool:
        return self.result["status"] in ("completed", "degraded")


@dataclass
class Prepared:
    """A debate after PARSE + CONTEXT: its record exists, holds the plan and the context,
    and is locked by this process."""

    plan: DebatePlan
    context: RunContext
    record: Record
    state: DebateState
    lock: RecordLock


def start_debate(
    flags: DebateFlags,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    tuning: Tuning | None = None,
) -> DebateRun:
    cwd = cwd or Path.cwd()
    ready = prepare_debate(flags, config, progress, cwd=cwd)
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def detach_debate(
    flags: DebateFlags,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    council_args: tuple[str, ...] = (),
) -> Record:
    """PARSE + CONTEXT here (bad input is reported at once), then the debate in a process of
    its own: a new session, no terminal, stdin from /dev/null, progress into `progress.log`.
    It inherits the record's lock, so the run is never seen unowned. `council_args` are the
    global options (`--config`, `-v`) the detached council must run with."""
    cwd = cwd or Path.cwd()
    ready = prepare_debate(flags, config, progress, cwd=cwd)
    progress.close_log()
    return hand_over(ready.record, ready.lock, ready.state, cwd=cwd, council_args=council_args)


def run_detached(
    record_path: Path, lock_fd: int, config: Config, progress: Progress, *, cwd: Path | None = None
) -> DebateRun:
    """The detached process's side of `detach_debate`: run the prepared record."""
    record = Record(record_path)
    state = DebateState.from_json(record.read_json(STATE))
    ready = Prepared(
        DebatePlan.from_json(state.plan),
        RunContext.from_json(record.read_json("context.json")),
        record,
        state,
        RecordLock(lock_fd),
    )
    return _drive(ready, progress, config, Tuning(), cwd or Path.cwd())


def prepare_debate(
    flags: DebateFlags, config: Config, progress: Progress, *, cwd: Path
) -> Prepared:
    cwd = cwd or Path.cwd()
    redactor = Redactor(config.redact.extra_patterns)
    # The question leaves the machine in every prompt: it gets the files' redaction too, and
    # (pasted from anywhere) no terminal control sequence of it goes further.
    question, found = redactor.text(clean(flags.question), filename="question.md")
    flags = dataclasses_replace(flags, question=question)
    if found:
        progress.warn(f"redacted {sum(found.values())} secret(s) from the question")
    plan = resolve_plan(flags, config)
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
        redactor=redactor,
        allow_files=plan.allow_files,
    )
    for line in setup_report(context):
        progress.info(line)
    if (warning := _own_vendor_lead(plan, config)) is not None:
        progress.warn(warning)
    if (warning := _shared_vendor_votes(plan, config)) is not None:
        progress.warn(warning)
    for warning in context.warnings:
        progress.warn(warning)
    if note := protection_note():
        progress.warn(note)
    record = Record.create(_resolve(cwd, plan.scratchpad))
    lock = RecordLock.acquire(record.path)
    progress.log_to(record.file(PROGRESS))
    state = DebateState(
        id=record.id,
        question=plan.question,
        plan=plan.to_json(),
        technical=list(context.technical),
        labels=plan.labels(),
        context=context_json(context),
        warnings=list(context.warnings),
    )
    record.write_json("context.json", context.to_json())
    record.write_text("context.md", render_context_md(context))
    record.save_state(state)
    progress.info(_setup_line(plan, context))
    return Prepared(plan, context, record, state, lock)


def resume_debate(
    debate_id: str,
    config: Config,
    progress: Progress,
    *,
    scratchpad: str | None = None,
    cwd: Path | None = None,
    tuning: Tuning | None = None,
) -> DebateRun:
    cwd = cwd or Path.cwd()
    record = find_run(_resolve(cwd, scratchpad or config.scratchpad), debate_id)
    lock = take_over(record, progress)
    try:
        state = DebateState.from_json(read_state(record))
        plan = DebatePlan.from_json(state.plan)
    except (TypeError, KeyError, AttributeError):
        lock.release()
        raise UsageError(
            f"{record.file(STATE)}: not a debate's state (fields are missing); "
            "the record cannot be resumed"
        ) from None
    if state.status in ("completed", "degraded"):
        lock.release()
        progress.info(f"{record.id} already ended ({state.status}); nothing to resume")
        return _finish(record, state, cwd, None)
    context = RunContext.from_json(record.read_json("context.json"))
    progress.log_to(record.file(PROGRESS))
    progress.info(
        f"resuming {record.id} from {state.phase} (round {state.round}); replies "
        f"on disk: {sum(1 for c in state.contributions() if c.answered)}"
    )
    state.status = "running"
    ready = Prepared(plan, context, record, state, lock)
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def _drive(
    ready: Prepared, progress: Progress, config: Config, tuning: Tuning, cwd: Path
) -> DebateRun:
    plan, context, record, state = ready.plan, ready.context, ready.record, ready.state

    def start(rooms: RoomDir, guard: ProjectGuard) -> Callable[[], Awaitable[None]]:
        lead = Lead(
            plan,
            context,
            record,
            state,
            progress,
            config,
            tuning=tuning,
            redactor=Redactor(plan.extra_patterns),
            rooms=rooms,
            guard=guard,
        )
        return lambda: run_debate(lead)

    error = run_to_end(record, state, context, progress, start)
    try:
        return _finish(record, state, cwd, error)
    finally:
        progress.close_log()
        ready.lock.release()


def _finish(record: Record, state: DebateState, cwd: Path, error: CouncilError | None) -> DebateRun:
    exit_code = error.exit_code if error is not None else ExitCode.of_status(state.status)
    state.exit_code = exit_code
    state.error = str(error) if error is not None else None
    result = build_result(state, record.display(cwd))
    if record.failed is None:
        try:
            record.save_state(state)
            record.write_json("result.json", result)
            record.write_text("decision.md", render_markdown(result))
        except RecordWriteError as failed:
            # state.json may be whole and final already: the run is over, only its result
            # files are missing; `council resume` writes them once the disk is fixed.
            error, exit_code = failed, failed.exit_code
    return DebateRun(record, result, exit_code, error)


def _resolve(cwd: Path, path: str) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else cwd / candidate


def _own_vendor_lead(plan: DebatePlan, config: Config) -> str | None:
    """A lead of the advocate's own vendor judges its own proposal: say so."""
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


def _setup_line(plan: DebatePlan, context: RunContext) -> str:
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
