"""Closing the terminal council runs in (SIGHUP), and the other signals that end a terminal
session: the run ends as Ctrl-C ends it (every CLI's tree killed, the state saved
`interrupted`), nothing is left running, and `council resume` completes it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

import pexpect
import psutil
import pytest

from council.runner.environment import CALL_MARKER
from project import QUESTION, Project, wait_for

HANGING_CRITIC = (
    "clis:\n"
    "  sim-hang:\n"
    "    adapter: sim\n"
    "    timeout_s: 600\n"
    "    env:\n"
    "      COUNCIL_SIM_PHASES: CHALLENGE\n"
    "      COUNCIL_SIM_HANG: '1'\n"
)
DEBATE = ("debate", QUESTION, "--sim", "--critic", "sim-hang", "--no-blind")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.write_config(HANGING_CRITIC)
    return project


def state_of(project: Project) -> dict:
    return json.loads((project.record() / "state.json").read_text())


def challenge_hangs(project: Project) -> bool:
    return project.sim_calls()["CHALLENGE"] >= 1


def ended(proc: pexpect.spawn, timeout: float = 60) -> int | None:
    """The exit status (or -signal) of a council whose terminal was closed."""
    deadline = time.monotonic() + timeout
    while proc.ptyproc.isalive():
        if time.monotonic() > deadline:
            proc.ptyproc.kill(signal.SIGKILL)
            raise AssertionError("council outlived its terminal")
        time.sleep(0.05)
    status = proc.ptyproc.exitstatus
    return status if status is not None else -proc.ptyproc.signalstatus


def resumes_to_the_end(project: Project) -> None:
    project.write_config(HANGING_CRITIC.replace("COUNCIL_SIM_HANG: '1'", "COUNCIL_SIM_HANG: '0'"))
    run = project.run("resume", project.record().name, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "completed"


def test_closing_the_terminal_ends_the_run_interrupted_and_it_resumes(project):
    council = pexpect.spawn(
        project.argv(*DEBATE)[0],
        project.argv(*DEBATE)[1:],
        cwd=str(project.root),
        env=project.env(),
        dimensions=(50, 200),
    )
    try:
        wait_for(lambda: challenge_hangs(project), timeout=60)
        # The terminal window closes: the kernel hangs up its session (SIGHUP), and every
        # write to it fails from now on.
        council.ptyproc.fileobj.close()
        code = ended(council)
    finally:
        if council.ptyproc.isalive():
            council.ptyproc.kill(signal.SIGKILL)
    assert code == 130
    state = state_of(project)
    assert state["status"] == "interrupted"
    assert state["exit_code"] == 130
    resumes_to_the_end(project)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM])
def test_a_signal_that_ends_a_session_ends_the_run_as_ctrl_c_does(project, sig):
    council = project.start(*DEBATE)
    try:
        wait_for(lambda: challenge_hangs(project), timeout=60)
        council.send_signal(sig)
        _, err = council.communicate(timeout=60)
    finally:
        if council.poll() is None:
            council.kill()
    assert council.returncode == 130, err
    assert "council: interrupted" in err and "resume with: council resume" in err
    assert state_of(project)["status"] == "interrupted"
    resumes_to_the_end(project)


def test_a_detached_run_sent_sighup_ends_interrupted_and_resumes(project):
    started = project.run(*DEBATE, "--detach", "--json")
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    wait_for(lambda: challenge_hangs(project), timeout=60)
    pid = state_of(project)["pid"]
    os.kill(pid, signal.SIGHUP)
    waited = project.run("wait", run_id, timeout=120)
    assert waited.returncode == 130 and "interrupted" in waited.stderr
    assert state_of(project)["status"] == "interrupted"
    resumes_to_the_end(project)


def processes_of(council_pid: int) -> list[psutil.Process]:
    """The live processes a council started for its calls (their marker names its pid)."""
    found = []
    for proc in psutil.process_iter():
        try:
            marker = proc.environ().get(CALL_MARKER, "")
            if marker.startswith(f"{council_pid}-") and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def killed_with_no_cleanup(council_pid: int) -> list[psutil.Process]:
    """SIGKILL a council whose critic hangs mid-call: what of its run is left a while later
    (the watchdog's grace is 1 s; waited for up to 15 s, a busy machine included)."""
    assert processes_of(council_pid), "the hung call should be running by now"
    os.kill(council_pid, signal.SIGKILL)
    deadline = time.monotonic() + 15
    while (left := processes_of(council_pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for proc in left:  # a failing test leaves nothing behind either
        with contextlib.suppress(psutil.Error):
            proc.kill()
    return left


def test_a_council_killed_with_sigkill_leaves_no_cli_running(project):
    council = project.start(*DEBATE)
    try:
        wait_for(lambda: challenge_hangs(project), timeout=60)
        left = killed_with_no_cleanup(council.pid)
    finally:
        council.kill()
        council.communicate(timeout=30)
    assert left == [], [p.cmdline()[:3] for p in left]


def test_a_detached_council_killed_with_sigkill_leaves_no_cli_running(project):
    started = project.run(*DEBATE, "--detach", "--json")
    assert started.returncode == 0, started.stderr
    wait_for(lambda: challenge_hangs(project), timeout=60)
    left = killed_with_no_cleanup(state_of(project)["pid"])
    assert left == [], [p.cmdline()[:3] for p in left]
    resumes_to_the_end(project)
