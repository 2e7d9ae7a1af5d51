"""council as a child subreaper (Linux): a CLI's descendant that escapes is re-parented to
council, and killed with its call.

A descendant that calls setsid(), double-forks and clears its environment (`env -i sleep 600`)
leaves every trace the process tree knew it by: its parent, its session, the call's marker
variable. With PR_SET_CHILD_SUBREAPER it is re-parented to council instead of init once its
parent dies, so it shows up as a child of council that council never started ("adopted").
Which call it belongs to:

1. not one council started itself (call roots, probes, git, a detached run: registered
   under `spawn_lock` as they start, so no scan sees one unregistered) and not in council's
   own session (what a test harness or a front end started beside council);
2. created after the call began;
3. its session or marker names the call: the call's; another call's marker: that call's;
4. no marker (cleared or unreadable): the call's only when no other running call began
   before it was created. Otherwise the last of the overlapping calls to end takes it.

Where there is no subreaper (not Linux), the marker sweep of `proctree` is all there is.
docs/adr/001-kill-the-whole-tree-by-marker.md has the reasoning.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import threading
from collections.abc import Iterator

import psutil

from council.runner import watchdog

_PR_SET_CHILD_SUBREAPER = 36
# prctl(2) takes five arguments; for this option the kernel reads only the second.
_UNUSED_PRCTL_ARGS = (0, 0, 0)

spawn_lock = threading.Lock()  # held while council forks a child and registers it
_spawned: set[int] = set()
_running: dict[str, float] = {}  # call id -> when its window began (Unix time)
_enabled: bool | None = None


def _prctl(on: int) -> bool:
    if platform.system() != "Linux":
        return False
    try:
        libc = ctypes.CDLL(None)  # a failure is only False: errno is never read
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, on, *_UNUSED_PRCTL_ARGS) == 0)
    except (OSError, AttributeError):
        return False


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """This process is a child subreaper inside the block (yields whether it could be).

    Only while a run drives CLI calls, not for the life of any process that imports council:
    a subreaper also adopts what other children leave behind (a detached run whose starter
    exited), and `council wait` would see such a zombie as a live run. At the end, what was
    adopted and is gone is reaped, and the process is an ordinary parent again."""
    global _enabled
    if _enabled:
        yield True
        return
    _enabled = _prctl(1)
    try:
        yield _enabled
    finally:
        if _enabled:
            reap_adopted()
            _prctl(0)
        _enabled = False


def enabled() -> bool:
    return bool(_enabled)


def note_spawned(pid: int) -> None:
    """A child council started itself (call with `spawn_lock` held, right after the fork)."""
    _spawned.add(pid)
    watchdog.watched(pid)


def note_reaped(pid: int) -> None:
    _spawned.discard(pid)
    watchdog.unwatched(pid)


@contextlib.contextmanager
def watchdog_running() -> Iterator[None]:
    """A watchdog (runner/watchdog.py) for the block: what council starts inside it is killed
    even if council dies without its cleanup. The watchdog is council's own child, never
    taken for an escaped descendant (it leads a session of its own)."""
    with spawn_lock:
        pid = watchdog.start()
        if pid is not None:
            _spawned.add(pid)
    try:
        yield
    finally:
        if (ended := watchdog.stop()) is not None:
            _spawned.discard(ended)


@contextlib.contextmanager
def spawning() -> Iterator[None]:
    """Hold while forking a child, so no scan sees it before `note_spawned`."""
    with spawn_lock:
        yield


# psutil's create times come from the boot time and clock ticks, not from time.time(): they
# can differ by up to a second, so a window opens that much earlier (as `ProcessTree` does).
_CLOCK_SLACK_S = 1.0


@contextlib.contextmanager
def window(call_id: str, started_at: float) -> Iterator[None]:
    """A call's window: from before its child starts until its tree is dead."""
    _running[call_id] = started_at - _CLOCK_SLACK_S
    try:
        yield
    finally:
        _running.pop(call_id, None)


def adopted(proc: psutil.Process, own_sid: int) -> bool:
    """Rule 1: a child of council that council did not start and that left council's session."""
    if proc.pid in _spawned:
        return False
    try:
        return os.getsid(proc.pid) != own_sid
    except OSError:
        return False


def claims(call_id: str, root_pid: int, proc: psutil.Process, marker: str | None) -> bool:
    """Rules 2-4 for an adopted process whose marker is `marker` (None: none readable)."""
    started = _running.get(call_id)
    try:
        created = proc.create_time()
        sid = os.getsid(proc.pid)
    except (psutil.Error, OSError):
        return False
    if started is None or created < started:
        return False
    if marker == call_id or sid == root_pid:
        return True
    if marker:
        return False  # another call's (or another council's)
    return not any(other != call_id and began <= created for other, began in list(_running.items()))


def reap_adopted() -> None:
    """Collect the exit status of adopted children that are gone (zombies), so none is left
    in the process table; never one council started itself (its owner waits for it)."""
    if not _enabled:
        return
    own_sid = os.getsid(0)
    try:
        children = psutil.Process().children()
    except psutil.Error:
        return
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE or not adopted(child, own_sid):
                continue
        except psutil.Error:
            continue
        # WNOHANG never blocks (no EINTR) and the options are valid (no EINVAL): the one
        # failure is ECHILD, another reaper (or a SIGCHLD handler) was first.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)
