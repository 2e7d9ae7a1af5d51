"""Records written before a run's life was one frame (council at a3b89c9, kept in
tests/data/records-a3b89c9: a simulated debate and a simulated review, their reply texts
inside `state.json`) load, list, show and resume with today's council."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from project import Project, validate

OLD = Path(__file__).parents[1] / "data" / "records-a3b89c9"
DEBATE = "debate-20261128-123747-hkso"
REVIEW = "review-20261128-123748-h9nb"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    shutil.copytree(OLD, project.root / ".scratchpad")
    return project


def test_old_records_are_listed_and_shown_in_every_form(project):
    listed = project.run("list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [REVIEW, DEBATE]
    decision = project.run("show", DEBATE)
    assert decision.returncode == 0, decision.stderr
    assert decision.stdout == (project.root / ".scratchpad" / DEBATE / "decision.md").read_text()
    validate(json.loads(project.run("show", DEBATE, "--json").stdout))
    findings = project.run("show", REVIEW, "--sarif")
    assert json.loads(findings.stdout)["version"] == "2.1.0"
    for run_id in (DEBATE, REVIEW):
        page = project.run("show", run_id, "--html")
        assert page.returncode == 0, page.stderr
        html = (project.root / ".scratchpad" / run_id / "report.html").read_text()
        assert "<svg" in html and run_id in html


def test_an_old_interrupted_debate_resumes_with_the_replies_its_state_holds(project):
    record = project.root / ".scratchpad" / DEBATE
    state = json.loads((record / "state.json").read_text())
    kept = {stem: call["text"] for stem, call in state["calls"].items()}
    # As if the old council had been stopped before its DECISION.
    del state["calls"]["lead-decision"]
    state["order"].remove("lead-decision")
    state.update(status="interrupted", phase="DECISION", decision=None, exit_code=130)
    (record / "state.json").write_text(json.dumps(state))
    (record / "result.json").unlink()

    resumed = project.run("resume", DEBATE, "--json")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    validate(result)
    assert result["status"] == "completed" and result["decision"]
    assert project.sim_calls() == {"DECISION": 1}  # the seats' old replies were reused
    texts = {c["seat"] + "-r" + str(c["round"]): c["text"] for c in result["contributions"]}
    assert texts == {stem: text for stem, text in kept.items() if stem != "lead-decision"}
    # The new call's reply is in a file of its own; the old ones stay in the state.
    saved = json.loads((record / "state.json").read_text())["calls"]
    assert "text" not in saved["lead-decision"] and (record / "lead-decision-reply.md").is_file()
    assert saved["critic-r2"]["text"] == kept["critic-r2"]
