"""Shutdown that is quick and complete: a second Ctrl-C during the grace period SIGKILLs a CLI
that ignores SIGTERM at once (its child too), and council exits 130 with nothing left.

council runs in a child process of the test, driven through `panel.run.start` with a grace
period of ten minutes, so that only the escalation can end the run in time: without it the
test would wait for its own timeout, not pass by luck."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil

from project import wait_for

# A CLI that ignores SIGTERM, with a child that ignores it too; it says so in its temp dir's
# neighbour, the marker directory the test allows it to write to.
STUBBORN = """\
import os, signal, sys, time
marks = sys.argv[1]
def mark(kind):
    open(os.path.join(marks, f"{kind}-{os.getpid()}"), "w").close()
signal.signal(signal.SIGTERM, lambda *_: mark("term"))
if sys.argv[-1] == "--version":
    print("stubborn 1.0.0")
    sys.exit(0)
sys.stdin.read()
if os.fork() == 0:
    mark("child")
    while True:
        time.sleep(1)
mark("cli")
while True:
    time.sleep(1)
"""

DRIVER = """\
import sys
from pathlib import Path
from council.panel.run import start
from council.config import parse_config
from council.panel.calls import Tuning
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.progress import Progress

script, marks = sys.argv[1], sys.argv[2]
config = parse_config({
    "roles": {"advocate": "stubborn", "critic": "sim", "lead": "sim"},
    "clis": {"stubborn": {"command": [sys.executable, "-I", "-S", script, marks]}},
})
progress = Progress(sys.stderr, quiet=False)
run = start(DEBATE, DebateFlags(question="Stop?"), config, progress, cwd=Path.cwd(),
                   tuning=Tuning(grace_s=600))
print(run.exit_code.value, run.result["status"])
sys.exit(run.exit_code.value)
"""


def test_a_second_ctrl_c_kills_a_cli_that_ignores_sigterm_and_council_exits(tmp_path: Path):
    project, marks = tmp_path / "project", tmp_path / "marks"
    project.mkdir()
    marks.mkdir()
    (tmp_path / "stubborn.py").write_text(STUBBORN)
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {
        **os.environ,
        "COUNCIL_TEST_WRITABLE": str(marks),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    council = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py"), str(tmp_path / "stubborn.py"), str(marks)],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The advocate's CLI runs, with its child.
        wait_for(lambda: {p.name.split("-")[0] for p in marks.iterdir()} >= {"cli", "child"})
        pids = [int(p.name.split("-")[1]) for p in marks.iterdir()]
        council.send_signal(signal.SIGINT)
        # Both got SIGTERM and ignored it: council is inside its ten-minute grace period.
        wait_for(lambda: len([p for p in marks.iterdir() if p.name.startswith("term-")]) == 2)
        council.send_signal(signal.SIGINT)
        stdout, stderr = council.communicate(timeout=120)
    finally:
        if council.poll() is None:
            council.kill()
            council.communicate()
    assert council.returncode == 130, stderr
    assert stdout.split() == ["130", "interrupted"]
    assert "interrupted again: killing every CLI now" in stderr
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie", pid
    (record,) = (p for p in (project / ".scratchpad").iterdir() if p.is_dir())
    assert json.loads((record / "state.json").read_text())["status"] == "interrupted"
