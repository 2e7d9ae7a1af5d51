"""The exit code a CI job reads from `council review` (docs/spec/protocol.md section 8 and 9):
0 nothing blocks, 5 degraded (one review read), 6 a blocking finding, which outranks 5, and 3
when no review could be read. The result's `status`, `exit_code` and gate say the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import Project
from review.helpers import review_project
from review.test_review_fakes import SQL_ONE, fake_reviewers, findings

SQL = {"REVIEW": findings(SQL_ONE), "verdict": "confirm", "reason": "seen it"}  # a high finding
NOTHING = {"REVIEW": '{"findings": []}', "verdict": "dispute", "reason": "not reachable"}
# Garbage, and garbage again when asked to repair it: a reviewer whose review is never read.
BROKEN = {
    "REVIEW": "Looks risky to me.",
    "REVIEW_REPAIR": "Still no JSON, sorry.",
    "verdict": "confirm",
    "reason": "seen",
}

# reviewers (name -> answers), --fail-on, exit code, status, gate passed
ROWS = [
    ({"one": SQL, "two": SQL}, "high", 6, "completed", False),
    ({"one": SQL, "two": SQL}, "critical", 0, "completed", True),  # below the bar
    ({"one": SQL, "two": SQL}, None, 0, "completed", True),  # no --fail-on: never blocks
    ({"one": SQL, "two": NOTHING}, "high", 0, "completed", True),  # 1 of 2: no majority
    ({"one": SQL, "two": BROKEN}, "high", 6, "degraded", False),  # 6 outranks 5
    ({"one": SQL, "two": BROKEN}, "critical", 5, "degraded", True),
    ({"one": NOTHING, "two": BROKEN}, "low", 5, "degraded", True),
    ({"one": BROKEN, "two": BROKEN}, "low", 3, "failed", False),  # read nothing: passed nothing
]
IDS = [
    "majority-at-bar",
    "majority-below-bar",
    "no-fail-on",
    "no-majority",
    "degraded-and-blocking",
    "degraded-below-bar",
    "degraded-nothing-found",
    "no-review-read",
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


@pytest.mark.parametrize(("reviewers", "fail_on", "code", "status", "passed"), ROWS, ids=IDS)
def test_the_exit_code_a_ci_job_reads(project, reviewers, fail_on, code, status, passed):
    fake_reviewers(project, **reviewers)
    gate = ["--fail-on", fail_on] if fail_on else []
    run = project.run(
        "review", "--files", "service.py", "--with", ",".join(reviewers), "--format", "json",
        *gate,
    )  # fmt: skip
    assert run.returncode == code, run.stderr
    # A failed run prints its JSON too: a script needs its status (commands.md, "resume").
    result = json.loads(run.stdout)
    assert (result["status"], result["exit_code"]) == (status, code)
    assert result["gate"]["passed"] is passed
    assert bool(result["gate"]["blocking"]) is (code == 6)
