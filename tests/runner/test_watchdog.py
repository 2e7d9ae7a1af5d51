"""council's watchdog (runner/watchdog.py, docs/adr/001): when council dies without its own
cleanup (`kill -9`, the OOM killer), what it started dies too: each CLI it was told of with the
CLI's whole process group (a node worker started with a clean environment included), and every
process carrying one of this council's call markers; never a process council said it reaped,
nor one of another council. A clean end says goodbye, and the watchdog then kills nothing.

The council here is tests/runner/dying_council.py; every wait is on a process's end, bounded
only against a hang."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil

COUNCIL = Path(__file__).with_name("dying_council.py")
HANG_BOUND_S = 30.0


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_gone(pids: list[int], bound_s: float = HANG_BOUND_S) -> list[int]:
    """The pids still alive once all are gone or the bound has passed."""
    deadline = time.monotonic() + bound_s
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@contextlib.contextmanager
def council(mode: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, int]]]:
    """The stand-in council and the pids it printed; everything killed at the end."""
    proc = subprocess.Popen(
        [sys.executable, str(COUNCIL), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    procs: list[psutil.Process] = []
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        pids = {k: int(v) for k, v in (field.split("=") for field in line.split())}
        assert set(pids) == {"watchdog", "cli", "group", "marked", "bystander", "released"}, line
        # Held from the start: a kill at the end never reaches a pid reused since. In mode
        # `goodbye` the watchdog may have ended already: nothing of it is left to kill.
        for pid in pids.values():
            with contextlib.suppress(psutil.NoSuchProcess):
                procs.append(psutil.Process(pid))
        yield proc, pids
    finally:
        proc.kill()
        for leftover in procs:
            with contextlib.suppress(psutil.Error):
                leftover.kill()
        proc.communicate()


def test_a_council_killed_with_sigkill_takes_each_cli_its_process_group_and_marked_daemons():
    with council("die") as (proc, pids):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert wait_gone([pids["watchdog"]]) == [], "the watchdog did not finish"
        left = wait_gone([pids["cli"], pids["group"], pids["marked"]], bound_s=10)
        assert left == [], {name: pid for name, pid in pids.items() if pid in left}
        # Never another council's process, nor one council had reaped (its pid may be reused).
        assert alive(pids["bystander"])
        assert alive(pids["released"])


def test_a_clean_end_says_goodbye_and_the_watchdog_exits_killing_nothing():
    with council("goodbye") as (proc, pids):
        assert proc.stdout is not None
        assert proc.stdout.readline() == "bye\n"
        assert not alive(pids["watchdog"])  # stop() waited for it
        proc.send_signal(signal.SIGKILL)  # council dies after its clean end: nothing to do
        proc.wait()
        assert all(alive(pids[name]) for name in ("cli", "group", "marked")), pids


def test_two_runs_in_one_process_share_one_watchdog_until_the_last_one_ends():
    # `council mcp` drives several runs at once: the first run's end must not leave the
    # second unwatched.
    from council.runner import watchdog

    first = watchdog.start()
    second = watchdog.start()
    try:
        assert first is not None and second == first
        assert watchdog.stop() is None
        assert alive(first)
    finally:
        ended = watchdog.stop()
    assert ended == first
    assert not alive(first)
