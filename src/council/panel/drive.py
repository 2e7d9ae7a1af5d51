"""Running a protocol's lead under signal handling (docs/spec/protocol.md section 6).

Ctrl-C or any other signal that ends a terminal session (SIGTERM, SIGHUP when the terminal
closes, SIGQUIT) cancels the lead: every seat's process tree is killed (the runner does that
in shielded scopes) and the caller marks its state `interrupted`; a second one skips every
grace period. After SIGHUP the terminal is gone: progress stops writing to it. While it
runs, council is the child subreaper of what its CLIs spawn, and what escaped its call is
killed at the end. A `CouncilError` raised
inside the lead's task groups is unwrapped here, at the lead's boundary; anything else is a bug
and propagates.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from council.context import RunContext
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.errors import (
    CouncilError,
    InterruptedRun,
    OutOfDescriptors,
    RecordWriteError,
    UsageError,
)
from council.panel.launch import STOP_SIGNALS
from council.progress import Progress
from council.runner import proctree, reaper
from council.runs.lock import RecordLock, RecordLocked, holder, is_held
from council.runs.record import Record, now_iso
from council.runs.store import records

TRACEBACK = "council.err"  # a bug's traceback, in the record


@dataclass
class Driven:
    error: CouncilError | None = None
    interrupted: bool = False


def drive(
    protocol: Callable[[], Awaitable[None]], progress: Progress, traceback_to: Path | None = None
) -> Driven:
    """Run `protocol` to its end, or until a stop signal; redraw the live view meanwhile.
    A bug's traceback is kept in `traceback_to` (the record's `council.err`)."""
    driven = Driven()
    started = time.time()

    async def main() -> None:
        proctree.unhurried()
        protocol_scope = anyio.CancelScope()
        try:
            async with anyio.create_task_group() as tg:

                async def on_signal() -> None:
                    # Listening on through the cleanup: the first signal cancels the protocol
                    # (each seat kills its CLI's tree: SIGTERM, grace, SIGKILL); a second one
                    # cuts every grace period short, so a CLI that ignores SIGTERM cannot hold
                    # council up, nor be abandoned by a KeyboardInterrupt.
                    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
                        async for received in signals:
                            if received == signal.SIGHUP:
                                progress.terminal_gone()
                            if driven.interrupted:
                                proctree.hurry()
                                progress.warn("interrupted again: killing every CLI now")
                            driven.interrupted = True
                            protocol_scope.cancel()

                async def live_view() -> None:
                    while progress.live:
                        await anyio.sleep(1)
                        progress.tick()

                tg.start_soon(on_signal)
                tg.start_soon(live_view)
                try:
                    with protocol_scope:
                        await protocol()
                finally:
                    with anyio.CancelScope(shield=True):
                        # What escaped every call's sweep (overlapping calls left it unclaimed).
                        await proctree.kill_adopted(started)
                    tg.cancel_scope.cancel()
        except BaseException as exc:  # unwrapped here, at the lead's boundary
            driven.error = council_error(exc)
            if driven.error is None:
                if traceback_to is not None:
                    keep_traceback(exc, traceback_to)
                raise

    try:
        # What this run starts is killed even if council is killed (SIGKILL) before its
        # cleanup; descendants that escape their call (setsid, double fork, env -i) come back
        # to us.
        with reaper.watchdog_running(), reaper.subreaper():
            anyio.run(main)
    except KeyboardInterrupt:  # a third Ctrl-C, after the cleanup
        driven.interrupted = True
    return driven


def take_over(record: Record, progress: Progress) -> RecordLock:
    """The lock of a record to resume, or a `UsageError` while its run lives; then what the
    council that last ran it left running (it died without its cleanup, and its watchdog with
    it) is killed, before its state is read: a damaged `state.json` keeps nothing alive."""
    before = holder(record.path)  # acquiring names us in its place
    try:
        lock = RecordLock.acquire(record.path)
    except RecordLocked as locked:
        who = f"process {locked.holder.pid}" if locked.holder else "another council"
        raise UsageError(
            f"{record.id} is still running ({who}); wait for it (`council wait {record.id}`) "
            f"or stop it first (`council cancel {record.id}`)"
        ) from None
    pids = {before.pid} if before is not None else set()
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if isinstance(pid := json.loads(record.file("state.json").read_bytes()).get("pid"), int):
            pids.add(pid)
    swept = sum(anyio.run(proctree.kill_orphans_of, pid) for pid in pids if pid != os.getpid())
    if swept:
        progress.warn(f"killed {swept} process(es) left running by the interrupted run")
    return lock


def sweep_dead_runs(scratchpad: Path, progress: Progress, newest: int = 10) -> None:
    """Kill what the newest runs of this scratchpad left running when their council died
    without its cleanup and its watchdog with it (both killed at once, the OOM killer): a
    run whose state says `running` while nobody holds its record. Bounded to the newest
    `newest` records, so a long history costs nothing."""
    swept, runs = 0, []
    for other in records(scratchpad)[:newest]:
        if is_held(other.path):
            continue  # a live run (this one included)
        try:
            saved = json.loads(other.file("state.json").read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(saved, dict) or saved.get("status") != "running":
            continue
        named = holder(other.path)
        pids = {p for p in (saved.get("pid"), named.pid if named else None) if isinstance(p, int)}
        found = sum(anyio.run(proctree.kill_orphans_of, p) for p in pids if p != os.getpid())
        if found:
            swept += found
            runs.append(other.id)
    if swept:
        progress.warn(f"killed {swept} process(es) left running by {', '.join(runs)}, which died")


def keep_traceback(exc: BaseException, path: Path) -> None:
    """A bug: its traceback goes into the record, and the exception says where (the command
    line's edge tells the user, and asks for a report)."""
    import traceback

    try:
        path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        return
    exc.council_traceback = str(path)  # type: ignore[attr-defined]


def council_error(exc: BaseException) -> CouncilError | None:
    """The CouncilError inside an exception group (anyio wraps what a task group raises)."""
    if isinstance(exc, CouncilError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = council_error(inner)
            if found is not None:
                return found
    return None


Start = Callable[[RoomDir, ProjectGuard], Callable[[], Awaitable[None]]]


def run_to_end(
    record: Record, state: Any, context: RunContext, progress: Progress, start: Start
) -> CouncilError | None:
    """One protocol's run, its `state.json` saved last whatever happens; returns the run's
    error. `start` builds the lead, given the run's rooms (outside the project, removed at the
    end) and the guard that checks the user's project around each call."""
    state.pid = os.getpid()
    state.run_started_at = now_iso()
    sweep_dead_runs(record.path.parent, progress)
    rooms = RoomDir(record.id)
    guard = ProjectGuard(context.root, [f.path for f in context.files], [record.path.parent])
    error: CouncilError | None = None
    started = datetime.now(UTC)
    try:
        driven = drive(start(rooms, guard), progress, record.file(TRACEBACK))
        error = driven.error
        if isinstance(error, RecordWriteError):
            # Written by the runner (a call's files) or the record itself: either way the
            # record is frozen at its last consistent write, and the run ends resumable.
            record.failure(error.path, error.cause)  # type: ignore[arg-type]
            state.status = "interrupted"
        elif isinstance(error, OutOfDescriptors):
            state.status = "interrupted"
            error = OutOfDescriptors(error.program, error.cause, record.id)
        elif driven.interrupted:
            state.status = "interrupted"
            error = InterruptedRun(f"interrupted; resume with: council resume {record.id}")
    finally:
        state.duration_s += (datetime.now(UTC) - started).total_seconds()
        if state.status == "running":
            state.status = "failed"
        state.finished_at = now_iso()
        rooms.remove()
        error = _save_last(record, state, error)
    return error


def _save_last(record: Record, state: Any, error: CouncilError | None) -> CouncilError | None:
    """The run's last `state.json`, unless the record is frozen by a failed write; a failure
    now becomes the run's error (its message names the file)."""
    if record.failed is not None:
        return record.failed
    try:
        record.save_state(state)
    except RecordWriteError as failed:
        state.status = "interrupted"
        return failed
    return error
