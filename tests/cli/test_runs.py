"""Living with runs, as a user (or an IDE agent) does: a debate started with --detach, followed
with repeated `council wait`, looked at with `status`, `list` and `show`, stopped with
`cancel` and finished with `resume`; one council per record."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from council.runs.lock import RecordLock, holder
from project import QUESTION, Project, wait_for

SLOW = "1.0"  # seconds per simulated call: long enough to catch a run while it runs
# A run held in its CHALLENGE phase until it is cancelled or killed: a test that looks at a
# run "while it runs" after several commands cannot find it finished on a busy machine.
HELD = {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "CHALLENGE"}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def detach(project: Project, *args: str, **env: str) -> str:
    started = project.run("debate", QUESTION, "--sim", "--detach", "--json", *args, **env)
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    assert info["record"] == f".scratchpad/{info['id']}/"
    return info["id"]


def finish(project: Project, run_id: str) -> None:
    """Let a detached run end, so no test leaves a council running."""
    project.run("wait", run_id, timeout=120)


def test_repeated_waits_print_every_progress_line_once_and_end_with_the_decision(project):
    run_id = detach(project, "--rounds", "3", COUNCIL_SIM_DELAY=SLOW)
    stderr, stdout, codes = [], "", []
    for _ in range(60):
        waited = project.run("wait", run_id, "--timeout", "1")
        codes.append(waited.returncode)
        stderr += waited.stderr.splitlines()
        stdout = waited.stdout
        if waited.returncode != 75:
            break
    assert codes[0] == 75 and codes[-1] == 0, codes  # it ran past a wait, then ended
    record = project.root / ".scratchpad" / run_id
    log = (record / "progress.log").read_text().splitlines()
    printed = [line for line in stderr if line.startswith("[")]
    assert printed == log  # every line, once, in order
    assert stdout == (record / "decision.md").read_text()  # what `debate` prints
    assert stdout.startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert stderr[-1] == f"saved: .scratchpad/{run_id}/"


def test_a_wait_waits_until_the_run_has_written_its_result_and_let_go(project):
    # The state turns final a moment before the process writes result.json and decision.md:
    # a wait in that moment must not print a DECISION rebuilt from a half-finished state.
    done = project.run("debate", QUESTION, "--sim", "--json")
    run_id = json.loads(done.stdout)["id"]
    record = project.root / ".scratchpad" / run_id
    decision = (record / "decision.md").read_text()
    (record / "result.json").unlink()
    (record / "decision.md").unlink()
    lock = RecordLock.acquire(record)  # as the run's own process still holds it
    try:
        waited = project.run("wait", run_id, "--timeout", "1")
        assert waited.returncode == 75, waited.stderr
        assert waited.stdout == ""
        assert f"wait again: council wait {run_id}" in waited.stderr
    finally:
        lock.release()
    waited = project.run("wait", run_id, "--timeout", "1")
    assert waited.returncode == 0, waited.stderr
    assert waited.stdout == decision


def test_a_wait_that_times_out_says_where_the_run_is_and_how_to_go_on(project):
    run_id = detach(project, COUNCIL_SIM_DELAY=SLOW)
    try:
        waited = project.run("wait", run_id, "--timeout", "0.2")
        assert waited.returncode == 75 and waited.stdout == ""
        assert f"still running: {run_id} running · " in waited.stderr
        assert f"wait again: council wait {run_id} --since " in waited.stderr
    finally:
        finish(project, run_id)


def test_status_and_list_show_a_running_run_and_then_its_end(project):
    run_id = detach(project, COUNCIL_SIM_DELAY=SLOW)
    try:
        status = json.loads(project.run("status", "last", "--json").stdout)
        assert status["id"] == run_id and status["status"] == "running"
        assert set(status["seats"]) == {"ok", "failed", "waiting"}
        line = project.run("status", run_id[:-2]).stdout  # any unique prefix
        assert line.startswith(f"{run_id} running · ") and "seats " in line
    finally:
        finish(project, run_id)
    status = json.loads(project.run("status", run_id, "--json").stdout)
    assert status["status"] == "completed" and status["exit_code"] == 0
    assert status["seats"] == {"ok": 2, "failed": 0, "waiting": 0}
    listed = project.run("list").stdout.splitlines()
    assert listed[0].startswith(f"{run_id}  ") and " completed " in listed[0]
    assert QUESTION[:40] in listed[0]


def test_list_is_newest_first_and_show_prints_a_record(project):
    first = project.run("debate", QUESTION, "--sim")
    second = project.run("debate", "Which queue for jobs?", "--sim", "--json")
    assert first.returncode == 0 and second.returncode == 0
    newest = json.loads(second.stdout)["id"]
    runs = json.loads(project.run("list", "--json").stdout)
    assert runs[0]["id"] == newest and len(runs) == 2
    assert len(json.loads(project.run("list", "--json", "--limit", "1").stdout)) == 1
    shown = project.run("show", "last")
    assert shown.stdout == (project.root / ".scratchpad" / newest / "decision.md").read_text()
    as_json = json.loads(project.run("show", newest, "--json").stdout)
    assert as_json["id"] == newest and as_json["question"] == "Which queue for jobs?"


def test_an_ambiguous_or_unknown_id_is_a_usage_error(project):
    for question in ("One?", "Two?"):
        assert project.run("debate", question, "--sim").returncode == 0
    ambiguous = project.run("show", "debate-")
    assert ambiguous.returncode == 2 and "matches 2 runs" in ambiguous.stderr
    unknown = project.run("status", "nope")
    assert unknown.returncode == 2 and "no run 'nope'" in unknown.stderr


def test_cancel_stops_a_detached_run_and_resume_completes_it(project):
    run_id = detach(project, "--rounds", "3", **HELD)
    record = project.root / ".scratchpad" / run_id
    wait_for(lambda: '"advocate-r1"' in (record / "state.json").read_text())
    cancelled = project.run("cancel", run_id)
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"resume with: council resume {run_id}" in cancelled.stderr
    waited = project.run("wait", run_id)
    assert waited.returncode == 130 and "interrupted" in waited.stderr
    assert json.loads((record / "state.json").read_text())["status"] == "interrupted"
    resumed = project.run("resume", run_id[:-1], "--json", COUNCIL_SIM_DELAY="0")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["status"] == "completed" and result["rounds"]["run"] == 3
    assert project.sim_calls()["PROPOSAL"] == 1  # the proposal was reused, not asked again


def test_resume_is_refused_while_the_run_lives_and_allowed_once_its_process_died(project):
    run_id = detach(project, "--rounds", "3", **HELD)
    record = project.root / ".scratchpad" / run_id
    wait_for(lambda: '"advocate-r1"' in (record / "state.json").read_text())
    running = holder(record)
    assert running is not None and running.alive()
    refused = project.run("resume", run_id)
    assert refused.returncode == 2
    assert f"{run_id} is still running (process {running.pid})" in refused.stderr
    # The council dies without cleaning up (resume sweeps the CLI calls it left running):
    # the record stays `running` in state.json...
    os.kill(running.pid, signal.SIGKILL)
    wait_for(lambda: not running.alive())
    status = json.loads(project.run("status", run_id, "--json").stdout)
    assert status["status"] == "interrupted"  # ...but nobody holds it: not running forever
    resumed = project.run("resume", run_id, "--json", COUNCIL_SIM_DELAY="0")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"


def test_deleting_the_lock_file_of_a_running_run_lets_no_second_council_in(project):
    run_id = detach(project, "--rounds", "3", **HELD)
    record = project.root / ".scratchpad" / run_id
    wait_for(lambda: '"advocate-r1"' in (record / "state.json").read_text())
    running = holder(record)
    assert running is not None and running.alive()
    (record / "lock").unlink()
    refused = project.run("resume", run_id)
    assert refused.returncode == 2, refused.stderr
    assert f"{run_id} is still running" in refused.stderr
    assert json.loads(project.run("status", run_id, "--json").stdout)["status"] == "running"
    # Nothing names the process any more, so `cancel` refuses rather than guess a pid...
    cancel = project.run("cancel", run_id)
    assert cancel.returncode == 2
    assert cancel.stderr == (
        f"council: {run_id} is running, but its lock file is gone, so council cannot tell which "
        f"process to stop (state.json names process {running.pid}); stop it with kill -INT "
        "<pid> after checking it with ps\n"
    )
    os.kill(running.pid, signal.SIGINT)  # ...and the user's own Ctrl-C still stops it
    assert project.run("wait", run_id, timeout=120).returncode == 130


def test_show_of_a_run_whose_process_died_says_interrupted_not_running(project):
    run_id = detach(project, "--rounds", "3", COUNCIL_SIM_DELAY=SLOW)
    record = project.root / ".scratchpad" / run_id
    wait_for(lambda: '"advocate-r1"' in (record / "state.json").read_text())
    running = holder(record)
    assert running is not None
    os.kill(running.pid, signal.SIGKILL)
    wait_for(lambda: not running.alive())
    shown = json.loads(project.run("show", run_id, "--json").stdout)
    assert (shown["status"], shown["exit_code"]) == ("interrupted", 130)
    markdown = project.run("show", run_id).stdout
    assert "Status: interrupted" in markdown.splitlines()[2]


def test_cancel_on_a_run_that_ended_is_a_usage_error(project):
    assert project.run("debate", QUESTION, "--sim").returncode == 0
    refused = project.run("cancel", "last")
    assert refused.returncode == 2 and "is not running (completed)" in refused.stderr


@pytest.mark.parametrize(
    "damage",
    ["[]", "{x", '{"status": 3, "round": "x", "plan": [], "duration_s": "1s", "pid": "me"}'],
    ids=["a-list", "torn", "wrong-types"],
)
def test_one_damaged_record_breaks_no_runs_command_for_the_others(project, damage):
    assert project.run("debate", QUESTION, "--sim").returncode == 0
    assert project.run("debate", QUESTION, "--sim").returncode == 0
    damaged, whole = project.records()[0], project.records()[1]
    (damaged / "state.json").write_text(damage)
    listed = project.run("list")
    assert listed.returncode == 0, listed.stderr
    assert whole.name in listed.stdout
    assert f"council: skipped {damaged.name}: " in listed.stderr  # odd fields too
    for command in ("wait", "cancel", "status", "show", "resume"):
        run = project.run(command, damaged.name)
        assert run.returncode == 2, (command, run.stderr)
        assert f"{damaged.name}/state.json" in run.stderr, (command, run.stderr)


def test_a_torn_result_json_is_named_with_the_way_to_write_it_again(project):
    assert project.run("debate", QUESTION, "--sim").returncode == 0
    record = project.record()
    (record / "result.json").write_text('{"schema": "council.res')
    shown = project.run("show", record.name)
    assert shown.returncode == 2
    assert f"{record / 'result.json'}: cannot be read" in shown.stderr
    assert f"council resume {record.name}` writes it again" in shown.stderr


def test_a_run_that_never_decided_is_shown_with_no_decision_and_how_to_go_on(project):
    run_id = detach(project, "--rounds", "3", COUNCIL_SIM_DELAY=SLOW)
    record = project.root / ".scratchpad" / run_id
    wait_for(lambda: '"advocate-r1"' in (record / "state.json").read_text())
    assert project.run("cancel", run_id).returncode == 0
    shown = project.run("show", run_id).stdout
    assert shown.startswith("# NO DECISION (SIMULATED): ")
    assert "Blocking concerns" not in shown and "None - proceed" not in shown
    assert f"Continue it with: council resume {run_id}" in shown
