"""council's GitHub Action (action.yml): its steps as the runner runs them, on a fixture
repository with the simulator, and its metadata as GitHub reads it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parents[2]
ACTION = ROOT / "action.yml"
SERVICE_BASE = "import sqlite3\n"
SERVICE_CHANGE = 'def get(db, key):\n    return db.execute("select v from t where k = %s" % key)\n'


@pytest.fixture
def action() -> dict:
    return yaml.safe_load(ACTION.read_text())


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A repository whose last commit is the pull request's change."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "service.py").write_text(SERVICE_BASE)
    git(repo, "add", "service.py")
    git(repo, "commit", "-qm", "base")
    (repo / "service.py").write_text(SERVICE_BASE + "\n\n" + SERVICE_CHANGE)
    git(repo, "commit", "-qam", "change")
    return repo


def run_step(step: dict, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A composite `run:` step as the runner runs it: bash, the step's `env:` with the
    expressions already evaluated (given here), GITHUB_ACTION_PATH the action's folder."""
    return subprocess.run(
        ["bash", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def runner_env(tmp_path: Path, **step_env: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.defpath]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "COUNCIL_TEST_SUITE": "1",
        **{k: v for k, v in os.environ.items() if k in ("PYTHONPATH",)},
        **step_env,
    }


def outputs(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "output.txt").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def step_named(action: dict, name: str) -> dict:
    (found,) = [s for s in action["runs"]["steps"] if s.get("name") == name]
    return found


def test_no_input_is_spliced_into_a_script(action):
    """Inputs reach the steps' scripts as environment variables only: an expression inside a
    `run:` would be pasted into bash before it runs (script injection)."""
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
    assert set(action["inputs"]) == {"reviewers", "fail-on", "base", "sarif", "source", "args"}


def test_the_review_step_annotates_summarises_and_hands_on_its_exit_code(
    action, pull_request, tmp_path
):
    review = step_named(action, "Review the pull request")
    env = runner_env(
        tmp_path,
        REVIEWERS="",
        FAIL_ON="high",
        BASE="HEAD~1",
        BASE_REF="",
        EXTRA_ARGS="--sim",
        SARIF="true",
        REVIEW_DIR=str(tmp_path / "council"),
    )
    done = run_step(review, pull_request, env)
    assert done.returncode == 0, done.stderr  # the last step fails the job, not this one
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert annotations and all(
        re.match(r"::(error|warning|notice) file=service\.py,line=\d+", a) for a in annotations
    )
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("# ") and "SQL" in summary
    found = outputs(tmp_path)
    assert found["exit-code"] == "6"  # the SQL finding blocks at high
    assert json.loads(Path(found["sarif-file"]).read_text())["version"] == "2.1.0"

    last = step_named(action, "Fail on blocking findings")
    failed = run_step(last, pull_request, runner_env(tmp_path, CODE=found["exit-code"]))
    assert failed.returncode == 6


def test_without_a_base_the_review_step_says_how_to_give_one(action, pull_request, tmp_path):
    review = step_named(action, "Review the pull request")
    env = runner_env(
        tmp_path, BASE="", BASE_REF="", EXTRA_ARGS="--sim", REVIEW_DIR=str(tmp_path / "c")
    )
    done = run_step(review, pull_request, env)
    assert done.returncode == 0
    assert "give the action's base input, or run it on a pull_request event" in done.stderr
    assert outputs(tmp_path)["exit-code"] == "2"


def test_the_action_test_workflow_runs_the_action_on_a_fixture(action):
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "action-test.yml").read_text())
    steps = workflow["jobs"]["review-a-fixture"]["steps"]
    (uses,) = [s for s in steps if s.get("uses") == "./council-src"]
    assert uses["with"]["args"] == "--sim" and uses["with"]["source"] == "./council-src"
