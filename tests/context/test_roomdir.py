"""The run directories outside the project (`context/roomdir.py`): a run's directory is left
alone while its council runs, wherever that council runs, and removed by the next run once
its council is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from council.context.roomdir import LOCK, RoomDir

# Holds the lock of the directory it is given, prints once it does, then waits to be killed.
HOLDER = """
import fcntl, os, sys, time
fd = os.open(os.path.join(sys.argv[1], ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(60)
"""


def other_run(base: Path, name: str) -> Path:
    path = base / name
    path.mkdir(mode=0o700)
    (path / "critic" / "room").mkdir(parents=True)
    return path


def test_a_running_council_whose_pid_is_not_ours_to_see_keeps_its_directory(tmp_path):
    # A council in another PID namespace (a container sharing /tmp): its pid number means
    # nothing here (no process 99999999 exists), only its lock tells that it runs.
    base = tmp_path / "base"
    base.mkdir()
    theirs = other_run(base, "debate-20261126-000000-aaaa.99999999")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(theirs)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        ours = RoomDir("debate-20261126-000001-bbbb", base=base)
        assert (theirs / "critic" / "room").is_dir()
        ours.remove()
    finally:
        holder.kill()
        holder.communicate()
    # Its council is gone (killed like a SIGKILL would): the next run removes its directory.
    nxt = RoomDir("debate-20261126-000002-cccc", base=base)
    assert not theirs.exists()
    nxt.remove()
    assert list(base.iterdir()) == []


def test_a_directory_of_an_older_council_is_removed_once_its_process_is_gone(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    old = other_run(base, "debate-20261126-000000-aaaa.99999999")  # no lock file: older council
    fresh = other_run(base, "debate-20261126-000000-dddd.99999998")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    run = RoomDir("debate-20261126-000001-bbbb", base=base)
    assert not old.exists()
    # Just made and not locked yet, perhaps by a council starting right now: left alone.
    assert fresh.is_dir()
    run.remove()


def test_a_run_holds_its_lock_until_it_ends(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    run = RoomDir("debate-20261126-000001-bbbb", base=base)
    assert (run.path / LOCK).exists()
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            "fd = os.open(sys.argv[1], os.O_RDWR)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)",
            str(run.path / LOCK),
        ],
        capture_output=True,
        text=True,
    )
    assert "BlockingIOError" in probe.stderr
    run.remove()
    assert not run.path.exists()
