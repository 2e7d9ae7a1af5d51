"""A run in a process of its own (`--detach`): a new session, no terminal, stdin from
/dev/null, its progress appended to the record's `progress.log`. The child inherits the
record's lock, so the run is never seen unowned, and runs `council run-detached <record>`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from council.runner import reaper
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, Record, RunState


def spawn_detached(
    record: Record, lock: RecordLock, *, cwd: Path, council_args: tuple[str, ...] = ()
) -> int:
    """Start the council that runs `record` and hand it the lock; returns its pid. Our own
    copy of the lock is released: the child's keeps the record locked. `council_args` are the
    global options (`--config`, `-v`) the detached council must run with."""
    fd = lock.inheritable()
    log = os.open(record.file(PROGRESS), os.O_WRONLY | os.O_APPEND)
    try:
        # Registered as council's own child: a subreaper's sweep never takes it for a CLI's.
        with reaper.spawning():
            child = subprocess.Popen(  # noqa: S603 - an argv list, never a shell
                [
                    sys.executable,
                    "-m",
                    "council",
                    *council_args,
                    "run-detached",
                    str(record.path),
                    "--lock-fd",
                    str(fd),
                ],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
                pass_fds=(fd,),
            )
            reaper.note_spawned(child.pid)
    finally:
        os.close(log)
    lock.name_holder(child.pid)
    # A long-lived parent (`council mcp`) must not collect zombies: reap the run when it ends.
    threading.Thread(target=child.wait, name=f"reap-{child.pid}", daemon=True).start()
    return child.pid


class DetachedState(RunState, Protocol):
    pid: int | None  # the process that runs the record


def hand_over(
    record: Record,
    lock: RecordLock,
    state: DetachedState,
    *,
    cwd: Path,
    council_args: tuple[str, ...] = (),
    spawned: Callable[[], None] = lambda: None,
) -> Record:
    """Run a prepared, locked record in a council of its own: start it, name its pid in the
    state, and let go of our copy of the lock (the child's keeps the record locked).
    `spawned` is called once the child runs, before its pid is saved."""
    state.pid = spawn_detached(record, lock, cwd=cwd, council_args=council_args)
    spawned()
    record.save_state(state)
    lock.release()
    return record
