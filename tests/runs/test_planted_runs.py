"""The run commands on a run that is still going, as docs/spec/commands.md describes them:
`wait --timeout 0` looks once and returns (75 while the run goes on), and `list` shows how
many of the requested rounds a run got through; `list` and `last` go by when a run started,
debates and reviews alike; a prefix of an id without its `debate-` names the run."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from cli.test_runs import detach
from project import QUESTION, Project, wait_for

# The simulator hangs in these phases until the run is cancelled: no timing in any assertion.
HUNG_AT = {"COUNCIL_SIM_HANG": "1"}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def cancel(project: Project, run_id: str) -> None:
    cancelled = project.run("cancel", run_id)
    assert cancelled.returncode == 0, cancelled.stderr


def test_wait_with_timeout_zero_looks_once_and_exits_75_while_the_run_goes_on(project):
    run_id = detach(project, **HUNG_AT, COUNCIL_SIM_PHASES="PROPOSAL")
    try:
        # A wait that blocked would be killed by this bound: 75 at once is the promise.
        waited = project.run("wait", run_id, "--timeout", "0", timeout=60)
        assert waited.returncode == 75
        assert waited.stdout == ""
        assert f"still running: {run_id} running · " in waited.stderr
        assert f"wait again: council wait {run_id} --since " in waited.stderr
    except subprocess.TimeoutExpired:
        pytest.fail("council wait --timeout 0 did not return while the run goes on")
    finally:
        cancel(project, run_id)


def test_list_shows_the_rounds_run_over_the_rounds_requested(project):
    run_id = detach(project, "--rounds", "3", **HUNG_AT, COUNCIL_SIM_PHASES="RESPOND")
    try:

        def responding() -> bool:
            status = json.loads(project.run("status", run_id, "--json").stdout)
            return status["phase"] == "RESPOND"

        wait_for(responding)
    finally:
        cancel(project, run_id)
    (summary,) = json.loads(project.run("list", "--json").stdout)
    requested, ran = summary["rounds"]["requested"], summary["rounds"]["run"]
    assert requested == 3 and ran < requested
    (line,) = project.run("list").stdout.splitlines()
    assert re.search(rf"  interrupted  {ran}/3 +", line), line


def test_list_and_last_go_by_when_a_run_started_across_debates_and_reviews(project):
    (project.root / "service.py").write_text("import os\n\n\ndef run(c):\n    os.system(c)\n")
    review = project.run("review", "--files", "service.py", "--sim", "--format", "json")
    assert review.returncode in (0, 6), review.stderr
    debate = project.run("debate", QUESTION, "--sim", "--json")
    assert debate.returncode == 0, debate.stderr
    older, newer = json.loads(review.stdout)["id"], json.loads(debate.stdout)["id"]
    listed = [line.split()[0] for line in project.run("list").stdout.splitlines()]
    assert listed == [newer, older]  # newest first, whatever its kind
    assert json.loads(project.run("status", "last", "--json").stdout)["id"] == newer


def test_a_run_is_named_by_a_prefix_of_its_id_without_its_kind(project):
    debate = project.run("debate", QUESTION, "--sim", "--json")
    assert debate.returncode == 0, debate.stderr
    run_id = json.loads(debate.stdout)["id"]
    stamp = run_id.split("-", 1)[1]  # 20261128-151149-g9ss: the id after `debate-`
    for ref in (stamp, stamp[:15]):
        shown = project.run("status", ref, "--json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["id"] == run_id
