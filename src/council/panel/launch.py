"""Starting a run while the user may stop it (docs/spec/protocol.md section 6): a stop signal
(Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) that comes while a record is being created, or while a
detached run is being handed its record, must never leave a `running` state nobody owns.

Creating a record and handing it over are short and touch only the disk, so a signal is held
back (blocked) during each and acted on right after: before the hand-over the record is
marked `interrupted` (resumable); after it the detached run owns the record and goes on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

# What ends a run as Ctrl-C does: each is how a terminal session ends (its window closed:
# SIGHUP; Ctrl-\: SIGQUIT; a logout or `kill`: SIGTERM).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
# Test-only (counts under COUNCIL_TEST_SUITE alone): `<point>:<file>` makes council write
# its pid into <file> at that point of a start, then wait there until <file> is removed, so a
# test can send a signal at an exact moment. Points: `prepared` (the record exists, not yet
# handed over), `handing-over` (the detached run is spawned, its pid not yet saved).
PAUSE_ENV = "COUNCIL_TEST_PAUSE"


class Stopped(KeyboardInterrupt):
    """A stop signal received while a run was starting (it ends the command as Ctrl-C does)."""


def _main_thread() -> bool:
    # Signal handlers and masks are the main thread's (`council mcp` starts runs elsewhere).
    return threading.current_thread() is threading.main_thread()


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


@contextlib.contextmanager
def stops_raise() -> Iterator[None]:
    """Every stop signal raises `Stopped` here (SIGTERM, SIGHUP and SIGQUIT would otherwise
    end council at once, with no cleanup)."""
    if not _main_thread():
        yield
        return
    before = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Stop signals wait until the block ends (then their handler runs)."""
    if not _main_thread():
        yield
        return
    # The mask holds a signal back from this thread only. One sent to the process can reach
    # another thread (a detached run's reaper), and Python then runs the handler here at
    # once: so the handlers only note a signal, and it is raised again at the end.
    noted: list[int] = []
    before_mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    handlers = {
        sig: signal.signal(sig, lambda signum, _f: noted.append(signum)) for sig in STOP_SIGNALS
    }
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, before_mask)  # a blocked one arrives now
        for signum in dict.fromkeys(noted):
            signal.raise_signal(signum)


def stops_unheld() -> None:
    """Stop signals reach this process again (a process inherits its parent's mask)."""
    if _main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def pause(point: str) -> None:
    """The test suite's pause at `point` (see PAUSE_ENV); nothing anywhere else."""
    from council.runner.confine import SUITE_ENV

    if os.environ.get(SUITE_ENV) != "1":
        return
    wanted, _, name = os.environ.get(PAUSE_ENV, "").partition(":")
    if wanted != point or not name:
        return
    flag = Path(name)
    flag.write_text(str(os.getpid()), encoding="utf-8")
    deadline = time.monotonic() + 60
    while flag.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
