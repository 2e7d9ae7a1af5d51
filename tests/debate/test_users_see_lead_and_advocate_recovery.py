"""What a user sees when the lead's calls or the advocate's CLI go wrong
(docs/spec/protocol.md sections 2 and 6, commands.md `resume`): a replacement advocate runs
on its own default model, an unreadable convergence check runs the extra cycle as its warning
says, and `council resume` asks the lead again for a DECISION that failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project, edit_state, validate

from fakes.install import install_fakes


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_a_replacement_advocate_runs_on_its_own_default_model_not_the_dropped_ones(tmp_path):
    project = Project(tmp_path)
    fakes = install_fakes(tmp_path / "bin", names=("gemini",))  # claude missing
    run = project.run(
        "debate", QUESTION, "--advocate", "claude:opus", "--critic", "sim", "--lead", "sim",
        "--json", PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "the advocate is now gemini" in run.stderr
    calls = [c["argv"] for c in fakes.calls("gemini") if "--version" not in c["argv"]]
    assert calls, "gemini was never asked"
    # `opus` is claude's model: gemini asked for it would fail.
    assert not [argv for argv in calls if "opus" in argv], calls
    result = json.loads(run.stdout)
    proposal = next(c for c in result["contributions"] if c["phase"] == "PROPOSAL")
    assert (proposal["seat"], proposal["status"]) == ("advocate", "ok")


def test_an_unreadable_convergence_check_runs_the_extra_cycle_it_announces(project):
    run = project.run(
        "debate", QUESTION, "--sim", "--rounds", "4", "--json",
        COUNCIL_SIM_GARBAGE="1", COUNCIL_SIM_PHASES="CONVERGENCE",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "convergence check unreadable after round 2; running the extra cycle" in run.stderr
    result = json.loads(run.stdout)
    validate(result)
    assert result["rounds"]["run"] == result["rounds"]["requested"] == 4
    assert result["rounds"]["stopped_early"] is False


def test_resume_asks_the_lead_again_for_a_decision_that_failed(project):
    first = project.run(
        "debate", QUESTION, "--sim", "--json",
        COUNCIL_SIM_EXIT="1", COUNCIL_SIM_PHASES="DECISION",
    )  # fmt: skip
    result = json.loads(first.stdout)
    assert "the DECISION could not be synthesized" in first.stderr
    assert result["status"] == "degraded", first.stderr
    assert result["decision"]["recommendation"].startswith("The lead could not synthesize")
    # Stopped (as by Ctrl-C) after the DECISION's failure was stored: resume continues it.
    edit_state(project.record(), status="interrupted", exit_code=130)
    record = project.record().name
    again = project.run("resume", record, "--json")
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    validate(resumed)
    assert resumed["status"] == "completed"
    assert resumed["decision"]["recommendation"].startswith("[SIMULATED]")
    assert project.sim_calls()["DECISION"] >= 2
