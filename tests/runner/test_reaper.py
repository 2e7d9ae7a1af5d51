"""council as a child subreaper: a CLI's descendant that leaves the session, double-forks and
clears its environment (`env -i sleep 600`) keeps no trace of its call, yet is re-parented to
council and killed when its call ends."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import psutil
import pytest

from council.adapters.base import CliSettings, Tool
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, Timeouts, confine, reaper, run_call

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "linux", reason="a child subreaper is Linux only"),
]

# The CLI: a child that calls setsid() and forks the grandchild, then exits at once (so the
# grandchild is orphaned); the grandchild drops every inherited fd and execs `env -i sleep`.
ESCAPER = """\
import os, sys, time
pid_file = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        with open(pid_file, "w") as handle:
            handle.write(str(os.getpid()))
        os.execve(sys.argv[2], ["env", "-i", "sleep", "600"], {})
    os._exit(0)
while not os.path.exists(pid_file) or not open(pid_file).read():
    time.sleep(0.01)
sys.stdin.read()
print("answered; a grandchild stays behind")
"""


async def test_a_setsid_double_fork_env_i_grandchild_is_killed_when_its_call_ends(
    tmp_path, room, record_dir, monkeypatch
):
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv(confine.EXTRA_ENV, str(pids))  # where the grandchild says who it is
    script = tmp_path / "escaper.py"
    script.write_text(ESCAPER)
    pid_file = pids / "grandchild"
    env_path = shutil.which("env")
    assert env_path is not None
    command = (sys.executable, "-I", "-S", str(script), str(pid_file), env_path)
    adapter = CustomAdapter(CliSettings(name="escaper", adapter="custom", command=command))
    with reaper.subreaper() as enabled:  # as every run is (panel/drive.py)
        assert enabled
        outcome = await run_call(
            adapter,
            Tool("escaper", command),
            "ACTION: PROPOSAL\nstay?\n",
            room=room,
            files=CallFiles(record_dir, "escaper-r1"),
            timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        )
    assert outcome.text.startswith("answered")
    assert not reaper.enabled()  # an ordinary parent again after the run
    grandchild = int(pid_file.read_text())
    # Gone, and reaped: not even a zombie of this process is left.
    assert not psutil.pid_exists(grandchild)
    assert outcome.attempts[-1].killed


def test_councils_own_children_are_never_adopted_ones(tmp_path):
    from council.runner.local import run_local

    # What other tests of this worker process left registered is theirs, not this run's.
    before = set(reaper._spawned)
    with reaper.subreaper():
        done = run_local(
            [sys.executable, "-c", "print('git stands in')"], cwd=tmp_path, timeout_s=20
        )
    assert done.returncode == 0
    # Registered while it ran, forgotten once reaped.
    assert reaper._spawned == before


def test_an_adopted_process_goes_to_the_only_call_that_could_have_made_it(monkeypatch):
    class Proc:
        pid = 4242

        def __init__(self, created: float) -> None:
            self.created = created

        def create_time(self) -> float:
            return self.created

    monkeypatch.setattr(reaper.os, "getsid", lambda pid: 999)
    with reaper.window("a", 100.0):
        assert reaper.claims("a", 1, Proc(150.0), None)  # only a was running
        with reaper.window("b", 120.0):
            # Created after both began: b's end leaves it to a, which is still running.
            assert not reaper.claims("b", 2, Proc(150.0), None)
            assert not reaper.claims("a", 1, Proc(150.0), None)
            # Created before b began: a's alone.
            assert reaper.claims("a", 1, Proc(110.0), None)
            # A marker decides, whoever overlaps.
            assert reaper.claims("b", 2, Proc(150.0), "b")
            assert not reaper.claims("a", 1, Proc(150.0), "b")
        # b has ended: the last overlapping call takes it.
        assert reaper.claims("a", 1, Proc(150.0), None)
    assert not reaper.claims("a", 1, Proc(150.0), None)  # no call running: none claims it


def test_without_a_subreaper_nothing_is_adopted(monkeypatch):
    monkeypatch.setattr(reaper, "_enabled", False)
    reaper.reap_adopted()  # a no-op, never a waitpid on children it does not own
    assert Path("/").exists()
