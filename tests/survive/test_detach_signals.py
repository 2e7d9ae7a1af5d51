"""A stop signal while `--detach` starts a run (docs/spec/protocol.md section 6): before the
hand-over the record ends `interrupted` and resumable; once the detached run is spawned it
owns the record and goes on. Never a `running` state nobody owns. Each moment is reached by
the suite-only pause (`COUNCIL_TEST_PAUSE`), so no timing decides what is tested."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import psutil
import pytest

from council.panel.launch import PAUSE_ENV
from project import QUESTION, Project, wait_for

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT]
COMMANDS = {
    "debate": ("debate", QUESTION, "--sim", "--detach", "--json"),
    "review": ("review", "--files", "app.py", "--sim", "--detach", "--json"),
}


def state_of(record: Path) -> dict:
    return json.loads((record / "state.json").read_text())


def paused(project: Project, point: str, command: str, tmp_path: Path):
    flag = tmp_path / "paused"
    council = project.start(*COMMANDS[command], **{PAUSE_ENV: f"{point}:{flag}"})
    wait_for(flag.exists, timeout=60)
    return council, flag


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_signal_before_the_hand_over_leaves_the_record_interrupted_and_resumable(
    tmp_path, sig, command
):
    project = Project(tmp_path)
    council, _flag = paused(project, "prepared", command, tmp_path)
    council.send_signal(sig)
    _, err = council.communicate(timeout=60)
    assert council.returncode == 130, err
    assert f"resume with: council resume {project.record().name}" in err
    state = state_of(project.record())
    assert state["status"] == "interrupted" and state["exit_code"] == 130
    assert (project.record() / "result.json").exists()
    shown = project.run("show", project.record().name, "--json")
    assert json.loads(shown.stdout)["status"] == "interrupted", shown.stderr
    resumed = project.run("resume", project.record().name, "--json")
    assert resumed.returncode in (0, 6), resumed.stderr  # 6: a review's findings gate
    assert json.loads(resumed.stdout)["status"] == "completed"


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_signal_during_the_hand_over_leaves_the_detached_run_going_on(tmp_path, sig, command):
    project = Project(tmp_path)
    council, flag = paused(project, "handing-over", command, tmp_path)
    council.send_signal(sig)  # held back until the hand-over is done
    flag.unlink()
    _, err = council.communicate(timeout=60)
    assert council.returncode == 130, err
    run_id = project.record().name
    assert f"council wait {run_id}" in err
    pid = state_of(project.record())["pid"]
    assert pid != council.pid
    waited = project.run("wait", run_id, timeout=120)
    assert waited.returncode in (0, 6), waited.stderr
    assert state_of(project.record())["status"] == "completed"
    wait_for(lambda: not alive(pid), timeout=30)  # it exits just after its last save


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
