"""A review lives as a debate does (docs/spec/commands.md "council list / show ID / wait ID /
resume ID / status ID / cancel ID"): started with --detach, followed with `wait`, looked at
with `status`, `list` and `show`, stopped with `cancel` and finished with `resume`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import Project, held_sim, wait_for
from review.helpers import review_project, validate_review, validate_sarif


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


def detach(project: Project, *args: str, **env: str) -> str:
    started = project.run("review", "--files", "service.py", "--sim", "--detach", "--json",
                          *args, **env)  # fmt: skip
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    assert info["id"].startswith("review-") and info["record"] == f".scratchpad/{info['id']}/"
    return info["id"]


def test_a_detached_review_is_followed_with_wait_and_prints_in_its_own_format(project):
    # One reviewer holds its review until the test lets it go: the first wait surely finds
    # the review running, however slowly this machine starts `council wait`.
    release = project.root.parent / "release-review"
    project.write_config("clis:\n" + held_sim(project, "sim-held", phase="REVIEW", until=release))
    run_id = detach(project, "--with", "sim,sim-held", "--format", "sarif", "--fail-on", "critical")
    running = project.run("wait", run_id, "--timeout", "0.5")
    assert running.returncode == 75, running.stderr
    release.touch()
    waited = project.run("wait", run_id)
    assert waited.returncode == 6, waited.stderr  # the SQL finding blocks
    validate_sarif(json.loads(waited.stdout))
    assert waited.stderr.strip().endswith(f"saved: .scratchpad/{run_id}/")
    as_json = project.run("wait", run_id, "--json")
    assert as_json.returncode == 6
    validate_review(json.loads(as_json.stdout))
    status = json.loads(project.run("status", run_id, "--json").stdout)
    assert status["status"] == "completed" and status["exit_code"] == 6
    assert status["seats"] == {"ok": 2, "failed": 0, "waiting": 0}
    listed = project.run("list").stdout.splitlines()
    assert listed[0].startswith(f"{run_id}  ") and "review of service.py" in listed[0]
    shown = project.run("show", run_id)
    assert shown.stdout == (project.record() / "review.md").read_text()
    assert json.loads(project.run("show", "last", "--sarif").stdout)["version"] == "2.1.0"
    html = project.run("show", "last", "--html")
    assert html.returncode == 0 and html.stdout == f".scratchpad/{run_id}/report.html\n"


def test_cancel_stops_a_running_review_and_resume_finishes_it_reusing_the_reviews(project):
    run_id = detach(project, COUNCIL_SIM_DELAY="30", COUNCIL_SIM_PHASES="CROSS_CHECK")
    state = project.root / ".scratchpad" / run_id / "state.json"
    wait_for(lambda: '"phase":"CROSS_CHECK"' in state.read_text())
    cancelled = project.run("cancel", run_id)
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"resume with: council resume {run_id}" in cancelled.stderr
    waited = project.run("wait", run_id)
    assert waited.returncode == 130 and "interrupted" in waited.stderr
    resumed = project.run("resume", run_id, "--json", COUNCIL_SIM_DELAY="0")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    validate_review(result)
    assert result["status"] == "completed" and result["answered"] == 2
    assert project.sim_calls()["REVIEW"] == 2  # the blind reviews were reused, not asked again


def test_the_output_file_takes_its_form_from_its_suffix_in_a_directory_made_for_it(project):
    run = project.run("review", "--files", "service.py", "--sim", "--output", "out/council.sarif")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# REVIEW (SIMULATED)")  # stdout keeps --format's form
    validate_sarif(json.loads((project.root / "out" / "council.sarif").read_text()))
    run = project.run("review", "--files", "service.py", "--sim", "--format", "json",
                      "--output", "review.txt")  # fmt: skip
    assert (project.root / "review.txt").read_text() == run.stdout  # no suffix it knows


def test_an_output_onto_a_reviewed_file_or_a_folder_is_refused_before_any_review(project):
    for target, message in (("service.py", "is one of the reviewed files"), (".", "directory")):
        run = project.run("review", "--files", "service.py", "--sim", "--output", target)
        assert run.returncode == 2, run.stderr
        assert message in run.stderr
    assert project.sim_calls() == {}  # refused before any reviewer ran
    assert "def " in (project.root / "service.py").read_text()


def test_an_output_that_cannot_be_written_is_named_and_the_review_kept(project):
    (project.root / "reports").write_text("a file where the folder should be\n")
    run = project.run("review", "--files", "service.py", "--sim", "--output", "reports/x.sarif")
    assert run.returncode == 2, run.stderr
    assert "cannot write --output" in run.stderr and "reports/x.sarif" in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    (record,) = project.records()
    validate_sarif(json.loads((record / "review.sarif").read_text()))  # nothing lost
