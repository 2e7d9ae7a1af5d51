"""A run's life, whatever its protocol: prepare (plan, context, record), start here or detach
into a process of its own, resume, drive the lead under signal handling, and finish with the
result on disk whatever happens (docs/spec/protocol.md sections 5, 6 and 8).

A protocol (`council.debate.protocol`, `council.review.protocol`) plugs into it with only
what differs: how its plan is resolved and checked, its state, its lead, its result and
exit code, and what it writes beside the result. Ctrl-C or SIGTERM cancels the lead: every
seat's process tree is killed, the state is marked `interrupted` and saved, and the exit code
is 130. A council killed with SIGKILL leaves the state of its last atomic write; `council
resume` continues from either.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from council.errors import CouncilError, ExitCode, InterruptedRun, RecordWriteError, UsageError
from council.panel.calls import Tuning
from council.panel.drive import run_to_end, take_over
from council.panel.launch import Stopped, pause, stops_held, stops_raise, stops_unheld
from council.panel.protocol import ENDED, RunProtocol, rendered
from council.panel.state import RunState, reply_file
from council.progress import Progress
from council.runs.detach import hand_over
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, STATE, Record
from council.runs.store import read_record_json, read_state

CONTEXT_JSON = "context.json"


@dataclass
class Run:
    protocol: RunProtocol
    record: Record
    state: RunState
    result: dict[str, Any]
    exit_code: ExitCode
    error: CouncilError | None = None


@dataclass
class Prepared:
    """A run after PARSE + CONTEXT: its record exists, holds the plan and the context, and is
    locked by this process."""

    protocol: RunProtocol
    plan: Any
    context: RunContext
    record: Record
    state: RunState
    lock: RecordLock


def start(
    protocol: RunProtocol,
    flags: Any,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    tuning: Tuning | None = None,
) -> Run:
    cwd = cwd or Path.cwd()
    ready = prepare(protocol, flags, config, progress, cwd=cwd)
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def detach(
    protocol: RunProtocol,
    flags: Any,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    council_args: tuple[str, ...] = (),
) -> Record:
    """PARSE + CONTEXT here (bad input is reported at once), then the run in a process of its
    own: a new session, no terminal, stdin from /dev/null, progress into `progress.log`. It
    inherits the record's lock, so the run is never seen unowned. `council_args` are the
    global options (`--config`, `-v`) the detached council must run with."""
    cwd = cwd or Path.cwd()
    with stops_raise():
        ready = _prepare_stoppably(protocol, flags, config, progress, cwd)
        try:
            progress.close_log()
            pause("prepared")
            with stops_held():
                # From here a signal waits: once spawned, the detached run owns the record
                # and goes on, whatever stops this launcher.
                return hand_over(
                    ready.record,
                    ready.lock,
                    ready.state,
                    cwd=cwd,
                    council_args=council_args,
                    spawned=lambda: pause("handing-over"),
                )
        except Stopped:
            if ready.state.pid is None:
                _interrupt(ready, cwd)
            rid = ready.record.id
            progress.warn(f"{rid} goes on in the background; follow it with: council wait {rid}")
            raise


def _prepare_stoppably(
    protocol: RunProtocol, flags: Any, config: Config, progress: Progress, cwd: Path
) -> Prepared:
    """`prepare` where a stop signal (`Stopped`, under `stops_raise`) ends the command and
    leaves the record it made, if any, `interrupted` and resumable."""
    ready = None
    try:
        plan, context = _gathered(protocol, flags, config, progress, cwd)
        with stops_held():  # the signal waits until the record is whole
            ready = _create(protocol, plan, context, progress, cwd)
    except Stopped:
        if ready is not None:
            _interrupt(ready, cwd)
        raise
    return ready


def _interrupt(ready: Prepared, cwd: Path) -> None:
    """A record stopped before its run started: `interrupted`, resumable, unlocked."""
    ready.state.status = "interrupted"
    stopped = InterruptedRun(
        f"interrupted before the run started; resume with: council resume {ready.record.id}"
    )
    with stops_held():
        finish(ready.protocol, ready.record, ready.state, cwd, stopped)
        ready.lock.release()
    raise stopped from None


def run_detached(
    protocol: RunProtocol,
    record_path: Path,
    lock_fd: int,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
) -> Run:
    """The detached process's side of `detach`: run the prepared record."""
    stops_unheld()  # spawned while its launcher held them back: a mask is inherited
    record = Record(record_path)
    state = protocol.state_type.from_json(record.read_json(STATE), record.path)
    ready = _prepared(protocol, record, state, RecordLock(lock_fd))
    return _drive(ready, progress, config, Tuning(), cwd or Path.cwd())


def prepare(
    protocol: RunProtocol, flags: Any, config: Config, progress: Progress, *, cwd: Path
) -> Prepared:
    plan, context = _gathered(protocol, flags, config, progress, cwd)
    with stops_held():  # a record is never left half-made by a signal: it waits for the end
        return _create(protocol, plan, context, progress, cwd)


def _gathered(
    protocol: RunProtocol, flags: Any, config: Config, progress: Progress, cwd: Path
) -> tuple[Any, RunContext]:
    """PARSE + CONTEXT: the plan and its context, checked; bad input stops here, before any
    record exists."""
    plan = protocol.resolve(flags, config, progress, cwd)
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
    protocol.check(plan, context, config, progress)
    for line in setup_report(context):
        progress.info(line)
    for warning in context.warnings:
        progress.warn(warning)
    if note := protection_note():
        progress.warn(note)
    return plan, context


def _create(
    protocol: RunProtocol, plan: Any, context: RunContext, progress: Progress, cwd: Path
) -> Prepared:
    """The run's record, locked, holding its plan, context and first state."""
    record = Record.create(resolve_path(cwd, plan.scratchpad), kind=protocol.kind)
    lock = RecordLock.acquire(record.path)
    progress.log_to(record.file(PROGRESS))
    shared = {
        "id": record.id,
        "plan": plan.to_json(),
        "technical": list(context.technical),
        "labels": plan.labels(),
        "context": context_json(context),
        "warnings": list(context.warnings),
    }
    state = protocol.new_state(shared, plan, context).in_record(record.path)
    for call in state.every_call():  # a run may start with calls copied from another's record
        record.write_text(reply_file(call.stem), call.text)
    record.write_json(CONTEXT_JSON, context.to_json())
    record.write_text("context.md", render_context_md(context))
    record.save_state(state)
    progress.info(protocol.setup_line(plan, context, state))
    return Prepared(protocol, plan, context, record, state, lock)


def resume(
    protocol: RunProtocol,
    record: Record,
    config: Config,
    progress: Progress,
    *,
    cwd: Path | None = None,
    tuning: Tuning | None = None,
) -> Run:
    """Continue an interrupted or failed run, reusing every reply already on disk."""
    cwd = cwd or Path.cwd()
    try:
        lock = take_over(record, progress)
    except UsageError:
        read_state(record)  # a record that cannot be read is named so, not as a lock
        if any(
            p.exists() and not os.access(p, os.W_OK) for p in (record.path, record.file("lock"))
        ):
            raise UsageError(
                f"{record.path}: the record is read-only, and resume writes into it; make it "
                f"writable (chmod -R u+w) or resume a copy of it"
            ) from None
        raise
    try:
        state = protocol.state_type.from_json(read_state(record), record.path)
        protocol.plan_type.from_json(state.plan)
    except (TypeError, KeyError, AttributeError, ValueError):
        lock.release()
        raise UsageError(
            f"{record.file(STATE)}: not a {protocol.kind}'s state (fields are missing); "
            "the record cannot be resumed"
        ) from None
    if state.status in ENDED:
        lock.release()
        progress.info(f"{record.id} already ended ({state.status}); nothing to resume")
        run = finish(protocol, record, state, cwd, None)
        if isinstance(run.error, RecordWriteError):
            # Resuming again would fail the same way: not an interrupted run, a record to fix.
            raise UsageError(
                f"{record.id} already ended, and {run.error.path} cannot be written "
                f"({run.error.cause.strerror or run.error.cause}); its result is still shown by "
                f"`council show {record.id}`"
            )
        return run
    try:
        ready = _prepared(protocol, record, state, lock)
    except UsageError:
        lock.release()
        raise
    progress.log_to(record.file(PROGRESS))
    progress.info(protocol.resumed_line(state))
    state.status = "running"
    return _drive(ready, progress, config, tuning or Tuning(), cwd)


def _prepared(protocol: RunProtocol, record: Record, state: RunState, lock: RecordLock) -> Prepared:
    """A prepared run again, from its record: the plan in its state, the context beside it."""
    plan = protocol.plan_type.from_json(state.plan)
    try:
        context = RunContext.from_json(read_record_json(record, CONTEXT_JSON))
    except (TypeError, KeyError, AttributeError, ValueError):
        raise UsageError(
            f"{record.file(CONTEXT_JSON)}: not a run's context (fields are missing or of the "
            "wrong type); the record cannot be resumed"
        ) from None
    return Prepared(protocol, plan, context, record, state, lock)


def _drive(ready: Prepared, progress: Progress, config: Config, tuning: Tuning, cwd: Path) -> Run:
    protocol, record, state = ready.protocol, ready.record, ready.state

    def lead(rooms: RoomDir, guard: ProjectGuard) -> Callable[[], Awaitable[None]]:
        built = protocol.lead_type(
            ready.plan,
            ready.context,
            record,
            state,
            progress,
            config,
            tuning=tuning,
            rooms=rooms,
            guard=guard,
        )
        return lambda: protocol.conduct(built)

    error = run_to_end(record, state, ready.context, progress, lead)
    try:
        return finish(protocol, record, state, cwd, error)
    finally:
        progress.close_log()
        ready.lock.release()


def finish(
    protocol: RunProtocol, record: Record, state: RunState, cwd: Path, error: CouncilError | None
) -> Run:
    """The run's exit code and result, written into the record with its renderings, then
    what the protocol writes beside it."""
    exit_code = protocol.exit_code(state, error)
    state.exit_code = exit_code
    state.error = str(error) if error is not None else None
    result = protocol.build_result(state, record.display(cwd))
    if record.failed is None:
        try:
            record.save_state(state)
            record.write_json("result.json", result)
            for name, form in protocol.result_files.items():
                record.write_text(name, rendered(protocol, result, form))
        except RecordWriteError as failed:
            # state.json may be whole and final already: the run is over, only its result
            # files are missing; `council resume` writes them once the disk is fixed.
            error, exit_code = failed, failed.exit_code
    if (failed_beside := protocol.write_beside(result, state)) is not None:
        error, exit_code = failed_beside, failed_beside.exit_code
    return Run(protocol, record, state, result, exit_code, error)


def resolve_path(cwd: Path, path: str) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else cwd / candidate
