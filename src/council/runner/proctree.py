"""Finding and killing everything one CLI call started.

A CLI runs as the leader of a new session. Its tree is: the leader and its descendants, every
process still in its session, and every process that carries the call's marker variable in its
environment. The last catches grandchildren that called setsid() and whose parent has already
exited (they are reparented to init, so no tree walk finds them). On Linux council is also a
child subreaper (`reaper.py`): a descendant that escaped session and marker alike is
re-parented to council and found as an adopted child. anyio's Process.aclose() kills only the
direct child: the rest is ours to kill.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from contextlib import suppress

import anyio
import psutil

from council.errors import OutOfDescriptors, out_of_descriptors
from council.runner import reaper
from council.runner.environment import CALL_MARKER

_POLL_S = 0.05
# Set by a second Ctrl-C: every kill in progress cuts its grace period short and SIGKILLs.
_hurry = threading.Event()


def hurry() -> None:
    """Skip the rest of every grace period, now and for the rest of this run."""
    _hurry.set()


def hurried() -> bool:
    """A second Ctrl-C came: no more grace periods."""
    return _hurry.is_set()


def unhurried() -> None:
    """A new run starts with full grace periods."""
    _hurry.clear()


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    except psutil.AccessDenied:
        return True


class ProcessTree:
    def __init__(self, root_pid: int, call_id: str, started_at: float | None = None) -> None:
        self.root_pid = root_pid
        self.call_id = call_id
        # Processes created before the call cannot belong to it; skip reading their environ.
        self.started_at = (started_at if started_at is not None else time.time()) - 1.0
        try:
            self.root: psutil.Process | None = psutil.Process(root_pid)
        except psutil.NoSuchProcess:
            self.root = None

    def members(self) -> list[psutil.Process]:
        """Every live process of this call, the root first when alive."""
        found: dict[int, psutil.Process] = {}
        if self.root is not None and _alive(self.root):
            found[self.root.pid] = self.root
            try:
                for child in self.root.children(recursive=True):
                    found[child.pid] = child
            except psutil.NoSuchProcess:
                pass
        me = os.getpid()
        own = {me, os.getppid()}
        own_sid = os.getsid(0)
        # Under the spawn lock: a child council is starting is registered before we look.
        with reaper.spawn_lock:
            self._scan(found, me, own, own_sid)
        return [p for p in found.values() if _alive(p)]

    def _scan(self, found: dict[int, psutil.Process], me: int, own: set[int], own_sid: int) -> None:
        # psutil keeps the Process objects it has seen, create time included, so this pass
        # costs a /proc read only for processes new since the last one (~0.3 ms, against
        # ~6 ms when every process's parent is read): it runs after every call, sixteen at
        # once in a wide debate. A pid reused between two passes would keep its old create
        # time; the kill of the session's process group still covers what stayed in it.
        for proc in psutil.process_iter():
            if proc.pid in found or proc.pid in own:
                continue
            try:
                if proc.create_time() < self.started_at:
                    continue
                if proc.ppid() == me:
                    # Another call's root, git, ... or a descendant re-parented to us.
                    if reaper.adopted(proc, own_sid) and reaper.claims(
                        self.call_id, self.root_pid, proc, self._marker(proc)
                    ):
                        found[proc.pid] = proc
                    continue
                if os.getsid(proc.pid) == self.root_pid or self._marker(proc) == self.call_id:
                    found[proc.pid] = proc
            except (psutil.Error, ProcessLookupError, PermissionError):
                continue

    def _marker(self, proc: psutil.Process) -> str | None:
        try:
            return proc.environ().get(CALL_MARKER) or None
        except (psutil.Error, OSError):
            return None

    async def kill(self, grace_s: float) -> bool:
        """SIGTERM the whole tree, wait up to `grace_s`, SIGKILL what is left. True if any ran."""
        targets = await anyio.to_thread.run_sync(self.members)
        if not targets:
            return False
        if not _hurry.is_set():
            self._signal(targets, signal.SIGTERM)
            await _wait_gone(targets, grace_s)
        # A dying parent may have forked again: look once more before the hard kill.
        for _ in range(3):
            survivors = {p.pid: p for p in targets if _alive(p)}
            survivors.update({p.pid: p for p in await anyio.to_thread.run_sync(self.members)})
            if not survivors:
                break
            targets = list(survivors.values())
            self._signal(targets, signal.SIGKILL)
            await _wait_gone(targets, 2.0)
        reaper.reap_adopted()
        return True

    def _signal(self, targets: list[psutil.Process], sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.root_pid, sig)
        for proc in targets:
            with contextlib.suppress(psutil.Error):
                proc.send_signal(sig)


def tree_of_new_child(
    proc: subprocess.Popen[bytes], call_id: str, started_at: float, program: str
) -> ProcessTree:
    """The tree of a child just started in a session of its own. Out of descriptors before
    its first /proc read, there is nothing to scan the tree with: the session is killed at
    once (the child has had no time to leave it), our ends of its pipes are closed, and the
    run stops as for a spawn that failed so (`OutOfDescriptors`, exit 130), never as an
    internal error. The caller still reaps the child."""
    try:
        return ProcessTree(proc.pid, call_id, started_at)
    except OSError as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if out_of_descriptors(exc):
            raise OutOfDescriptors(program, exc) from None
        raise


async def _wait_gone(targets: list[psutil.Process], timeout_s: float) -> None:
    hurried = _hurry.is_set()
    with anyio.move_on_after(timeout_s):
        # Nothing signals the death of a process we did not spawn: poll. A hurry that comes
        # during a grace period ends it at once (the SIGKILL wait is not cut short).
        while any(_alive(p) for p in targets) and (hurried or not _hurry.is_set()):  # noqa: ASYNC110
            await anyio.sleep(_POLL_S)


def _adopted_since(since: float) -> list[psutil.Process]:
    own_sid = os.getsid(0)
    found = []
    with reaper.spawn_lock:
        for proc in psutil.Process().children():
            try:
                if proc.create_time() >= since and reaper.adopted(proc, own_sid) and _alive(proc):
                    found.append(proc)
            except psutil.Error:
                continue
    return found


async def kill_adopted(since: float, grace_s: float = 1.0) -> int:
    """At the end of a run: kill every escaped descendant re-parented to council since `since`
    that no call claimed (a subreaper only). Returns how many."""
    if not reaper.enabled():
        return 0
    targets = await anyio.to_thread.run_sync(_adopted_since, since - 1.0)
    for proc in targets:
        with suppress(psutil.Error):
            proc.send_signal(signal.SIGTERM if not _hurry.is_set() else signal.SIGKILL)
    await _wait_gone(targets, grace_s)
    for proc in targets:
        if _alive(proc):
            with suppress(psutil.Error):
                proc.kill()
    await _wait_gone(targets, 2.0)
    reaper.reap_adopted()
    return len(targets)


def _orphans_of(council_pid: int) -> list[psutil.Process]:
    prefix = f"{council_pid}-"
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(CALL_MARKER, "").startswith(prefix) and _alive(proc):
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


async def kill_orphans_of(council_pid: int, grace_s: float = 1.0) -> int:
    """Kill what a council process that died without cleaning up (SIGKILL) had started.

    Every call's marker begins with its council's pid, so only that run's processes match.
    Returns how many were found.
    """
    if psutil.pid_exists(council_pid) and council_pid != os.getpid():
        return 0  # still running: not ours to clean
    targets = await anyio.to_thread.run_sync(_orphans_of, council_pid)
    for proc in targets:
        with suppress(psutil.Error):
            proc.send_signal(signal.SIGTERM)
    await _wait_gone(targets, grace_s)
    for proc in targets:
        if _alive(proc):
            with suppress(psutil.Error):
                proc.kill()
    await _wait_gone(targets, 2.0)
    return len(targets)
