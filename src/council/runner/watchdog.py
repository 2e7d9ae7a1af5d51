"""What outlives council: a watchdog process that kills a run's CLIs when council dies without
its own cleanup (`kill -9`, the OOM killer), so nothing it started is left running.

While a run drives CLIs, council keeps a small process of its own (a few lines of Python with
no import beyond the standard library, in a session of its own, so a closed terminal does not
reach it) and tells it, down a pipe, every child it starts and reaps. At a clean end council
says goodbye and the watchdog exits. If the pipe closes without the goodbye, council is dead:
the watchdog kills what it was told of (each child's process group too: every CLI leads one)
and, on Linux, every process that carries one of this council's call markers, SIGTERM, then
SIGKILL after a second. The subreaper and the marker sweep cover council's life; this covers
its death.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from contextlib import suppress

from council.runner.environment import CALL_MARKER

GOODBYE = b".\n"
_GRACE_S = 1.0

# The watchdog itself: run with `python -I -S -c`, so it starts in ~20 ms and imports nothing
# of council's (an installed council may be upgraded or removed while it waits).
_SCRIPT = r"""
import os, signal, sys, time
council, marker = int(sys.argv[1]), sys.argv[2].encode()
told, buffer = set(), b""
while True:
    try:
        chunk = os.read(0, 4096)
    except InterruptedError:
        continue
    if not chunk:
        break
    buffer += chunk
    *lines, buffer = buffer.split(b"\n")
    for line in lines:
        if line == b".":
            sys.exit(0)
        sign, pid = line[:1], int(line[1:])
        (told.add if sign == b"+" else told.discard)(pid)

def marked():
    found = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/" + name + "/environ", "rb") as handle:
                entries = handle.read().split(b"\0")
        except OSError:
            continue
        if any(entry.startswith(marker) for entry in entries):
            found.add(int(name))
    return found

def alive(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False

for sig in (signal.SIGTERM, signal.SIGKILL):
    targets = [pid for pid in told | marked() if alive(pid)]
    for pid in targets:
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, sig)
            os.kill(pid, sig)
        except OSError:
            pass
    deadline = time.monotonic() + GRACE_S
    while sig == signal.SIGTERM and any(alive(p) for p in targets) and time.monotonic() < deadline:
        time.sleep(0.05)
"""

_lock = threading.Lock()
_pipe: int | None = None  # the write end, while a watchdog watches this process
_proc: subprocess.Popen[bytes] | None = None
_runs = 0  # runs driving CLIs in this process (`council mcp` may drive several at once)


def start() -> int | None:
    """Start this process's watchdog, or count one more run on the one that watches; its
    pid (None: it could not start). Call under `reaper.spawning()`, and register the pid as
    council's own child (`reaper.start_watchdog` does both)."""
    global _pipe, _proc, _runs
    with _lock:
        _runs += 1
        if _proc is not None:
            return _proc.pid
        # Our own marker prefix: every call id starts with council's pid (environment.py).
        marker = f"{CALL_MARKER}={os.getpid()}-"
        read_end, write_end = os.pipe()
        try:
            _proc = subprocess.Popen(  # noqa: S603 - an argv list, never a shell
                [
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    _SCRIPT.replace("GRACE_S", repr(_GRACE_S)),
                    str(os.getpid()),
                    marker,
                ],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            os.close(write_end)
            return None  # no watchdog: the subreaper and `resume`'s sweep still stand
        finally:
            os.close(read_end)
        _pipe = write_end
        return _proc.pid


def _tell(line: bytes) -> None:
    global _pipe
    if _pipe is None:
        return
    try:
        os.write(_pipe, line)
    except OSError:  # the watchdog is gone: nothing more to tell
        os.close(_pipe)
        _pipe = None


def watched(pid: int) -> None:
    """A child council started: the watchdog kills it if council dies first."""
    with _lock:
        _tell(b"+%d\n" % pid)


def unwatched(pid: int) -> None:
    """A child council reaped: no longer the watchdog's (its pid may be reused)."""
    with _lock:
        _tell(b"-%d\n" % pid)


def stop(wait_s: float = 2.0) -> int | None:
    """A run's clean end; the last one tells the watchdog goodbye, and it is reaped here.
    The pid of the watchdog that ended (None: it watches on, or there was none)."""
    global _pipe, _proc, _runs
    with _lock:
        _runs = max(0, _runs - 1)
        if _runs:
            return None
        _tell(GOODBYE)
        if _pipe is not None:
            os.close(_pipe)
            _pipe = None
        proc, _proc = _proc, None
    if proc is None:
        return None
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        with suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=wait_s)
    return proc.pid
