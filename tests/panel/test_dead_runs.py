"""What a council that died without its cleanup (killed with its watchdog, the OOM killer) left
running is killed by the next run in the same scratchpad (docs/spec/protocol.md section 6): a
record whose state still says `running` while nobody holds it; the CLIs of a run that ended
are never touched, and the user is told what was killed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from council.panel.drive import sweep_dead_runs
from council.progress import Progress
from council.runner.environment import CALL_MARKER
from council.runs.record import Record


def dead_pid() -> int:
    """The pid of a council process that has died."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def left_running(council_pid: int) -> subprocess.Popen:
    """A CLI that council started (its call's marker names that council), still running."""
    env = {CALL_MARKER: f"{council_pid}-critic-r1", "PATH": "/usr/bin:/bin"}
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], env=env, stdin=subprocess.DEVNULL
    )


def record_of(scratchpad: Path, status: str, pid: int) -> Record:
    record = Record.create(scratchpad)
    record.write_json("state.json", {"id": record.id, "status": status, "pid": pid})
    return record


def test_a_dead_runs_clis_are_killed_and_an_ended_runs_left_alone(tmp_path: Path):
    scratchpad = tmp_path / ".scratchpad"
    died, ended = dead_pid(), dead_pid()
    orphan, bystander = left_running(died), left_running(ended)
    try:
        dead = record_of(scratchpad, "running", died)
        record_of(scratchpad, "completed", ended)
        stream = io.StringIO()
        sweep_dead_runs(scratchpad, Progress(stream, live=False))
        assert orphan.wait(timeout=30) is not None
        assert bystander.poll() is None  # an ended run's pid is never swept
        assert f"killed 1 process(es) left running by {dead.id}, which died" in stream.getvalue()
    finally:
        for proc in (orphan, bystander):
            proc.kill()
            proc.wait()
    assert json.loads(dead.file("state.json").read_text())["status"] == "running"
