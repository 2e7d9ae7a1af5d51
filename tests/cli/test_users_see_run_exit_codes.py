"""The exit codes of the run commands, and the lines `cancel` prints, as README ("Exit codes")
and docs/spec/commands.md give them: a run's own code is what `wait` exits with and what
`show --json` and `status --json` report, for every way a run ends; `status` and `show`
themselves exit 0; `--json` prints a run's status even when it reached no result; `cancel`
stops a live run (0), refuses an ended one (2) and says so when the run is still stopping (75)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli import cli
from council.cli import runs as runs_cli
from project import QUESTION, Project, edit_state, held_sim, wait_for


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    (project.root / "service.py").write_text("import os\n\n\ndef run(c):\n    os.system(c)\n")
    return project


FAIL = {"COUNCIL_SIM_EXIT": "1"}


# (how the run ended, its command line, the simulator's failures, status, exit code)
ENDINGS = [
    ("completed", ["debate", QUESTION], {}, "completed", 0),
    (
        "no-decision",
        ["debate", QUESTION],
        {**FAIL, "COUNCIL_SIM_PHASES": "DECISION"},
        "degraded",
        5,
    ),
    ("no-proposal", ["debate", QUESTION], {**FAIL, "COUNCIL_SIM_PHASES": "PROPOSAL"}, "failed", 3),
    ("review-gate", ["review", "--files", "service.py", "--fail-on", "low"], {}, "completed", 6),
    (
        "no-review",
        ["review", "--files", "service.py"],
        {**FAIL, "COUNCIL_SIM_PHASES": "REVIEW"},
        "failed",
        3,
    ),
    ("no-position", ["check", QUESTION], {**FAIL, "COUNCIL_SIM_PHASES": "CHECK"}, "failed", 3),
]


@pytest.mark.parametrize(
    ("args", "sim", "status", "code"), [e[1:] for e in ENDINGS], ids=[e[0] for e in ENDINGS]
)
def test_a_runs_own_code_is_what_wait_exits_with_and_show_and_status_report(
    project, args, sim, status, code
):
    run = project.run(*args, "--sim", **sim)
    assert run.returncode == code, run.stderr
    run_id = project.record().name
    waited = project.run("wait", run_id, "--timeout", "0")
    assert waited.returncode == code, waited.stderr
    for command in (["show", run_id, "--json"], ["wait", run_id, "--json"]):
        shown = project.run(*command)
        assert shown.returncode == (0 if command[0] == "show" else code), shown.stderr
        assert (json.loads(shown.stdout)["status"], json.loads(shown.stdout)["exit_code"]) == (
            status,
            code,
        )
    as_json = project.run("status", run_id, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert (json.loads(as_json.stdout)["status"], json.loads(as_json.stdout)["exit_code"]) == (
        status,
        code,
    )
    assert project.run("status", run_id).stdout.startswith(f"{run_id} {status} · ")


def test_a_run_that_reached_no_result_still_prints_its_status_as_json(project):
    run = project.run("debate", QUESTION, "--sim", "--json", **FAIL, COUNCIL_SIM_PHASES="PROPOSAL")
    assert run.returncode == 3, run.stderr
    printed = json.loads(run.stdout)
    assert (printed["status"], printed["exit_code"]) == ("failed", 3)
    resumed = project.run("resume", printed["id"], "--json", **FAIL, COUNCIL_SIM_PHASES="PROPOSAL")
    assert resumed.returncode == 3, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "failed"


@pytest.mark.parametrize(
    ("sim", "status"),
    [({}, "completed"), ({**FAIL, "COUNCIL_SIM_PHASES": "PROPOSAL"}, "failed")],
    ids=["completed", "failed"],
)
def test_cancel_of_a_run_that_ended_is_refused_with_one_line(project, sim, status):
    project.run("debate", QUESTION, "--sim", **sim)
    run_id = project.record().name
    refused = project.run("cancel", run_id)
    assert refused.returncode == 2
    assert refused.stderr == f"council: {run_id} is not running ({status}); nothing to cancel\n"


def test_cancel_of_a_live_run_stops_it_resumable_and_wait_then_exits_130(project):
    release = project.root.parent / "never-released"
    project.write_config("clis:\n" + held_sim(project, "sim-held", phase="PROPOSAL", until=release))
    started = project.run(
        "debate", QUESTION, "--advocate", "sim-held", "--critic", "sim", "--lead", "sim",
        "--detach", "--json",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    wait_for(lambda: '"phase":"PROPOSAL"' in (project.record() / "state.json").read_text())
    cancelled = project.run("cancel", run_id)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stderr == f"cancelled {run_id}; resume with: council resume {run_id}\n"
    status = json.loads(project.run("status", run_id, "--json").stdout)
    assert (status["status"], status["exit_code"]) == ("interrupted", 130)
    waited = project.run("wait", run_id)
    assert waited.returncode == 130, waited.stderr
    again = project.run("cancel", run_id)
    assert again.returncode == 2
    assert again.stderr == f"council: {run_id} is not running (interrupted); nothing to cancel\n"


@pytest.mark.parametrize("phase", ["PARSE", "CHALLENGE"])
def test_a_run_whose_process_ended_without_recording_its_end_is_interrupted_130(project, phase):
    # A run cancelled while it was still being set up, or killed: its state still says
    # `running` and no process holds it. Every command reports it as interrupted, exit 130.
    project.run("debate", QUESTION, "--sim")
    record = project.record()
    edit_state(record, status="running", phase=phase, exit_code=None, error=None, finished_at=None)
    status = project.run("status", record.name, "--json")
    assert status.returncode == 0, status.stderr
    assert (json.loads(status.stdout)["status"], json.loads(status.stdout)["exit_code"]) == (
        "interrupted",
        130,
    )
    shown = json.loads(project.run("show", record.name, "--json").stdout)
    assert (shown["status"], shown["exit_code"]) == ("interrupted", 130)
    assert project.run("wait", record.name).returncode == 130


# A run's process that does not let go on Ctrl-C (a CLI ignoring it, a slow cleanup): it holds
# the record until the test closes its stdin.
STUBBORN = """\
import signal, sys
from pathlib import Path
from council.runs.lock import RecordLock
signal.signal(signal.SIGINT, signal.SIG_IGN)
lock = RecordLock.acquire(Path(sys.argv[1]))
print("held", flush=True)
sys.stdin.read()
"""


def test_cancel_of_a_run_still_stopping_exits_75_saying_how_to_check(project, monkeypatch):
    project.run("debate", QUESTION, "--sim")
    record = project.record()
    edit_state(record, status="running", phase="CHALLENGE", finished_at=None)
    holder = subprocess.Popen(
        [sys.executable, "-c", STUBBORN, str(record)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=project.env(),
    )
    try:
        assert holder.stdout.readline() == "held\n"
        # It never lets go: how long cancel gives it changes nothing but the test's length.
        monkeypatch.setattr(runs_cli, "_CANCEL_WAIT_S", 0.5)
        monkeypatch.chdir(project.root)
        monkeypatch.setenv("HOME", str(project.home))
        cancelled = CliRunner().invoke(cli, ["cancel", record.name])
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
        holder.stdout.close()  # an unclosed pipe warns when collected, in whatever test runs then
    assert cancelled.exit_code == 75, cancelled.output
    assert cancelled.stderr == (
        f"council: {record.name} (process {holder.pid}) is still stopping after 0.5s; "
        f"check with: council status {record.name}\n"
    )
