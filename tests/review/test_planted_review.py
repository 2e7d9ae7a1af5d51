"""What a review's user sees when reviewers name files differently, name files outside the
project, or one of them fails (docs/spec/protocol.md, review: MERGE, scope, exit codes):
`b/service.py` (as a diff names it) is the same file as `service.py`; a finding on a path
outside the project is kept in the record but not counted; and a degraded review with a
blocking finding exits 6, not 5: the gate outranks the degradation. Findings are numbered most
severe first, then best supported (docs/spec/outputs.md)."""

from __future__ import annotations

import json

import pytest

from project import scripted_sim
from review.helpers import review_project, validate_review

# The simulator raises these on helpers.SERVICE: (severity, line, title).
SIM_FINDINGS = [
    ("critical", 9, "SQL query built by string formatting"),
    ("high", 5, "Shell command built from a string"),
    ("medium", 14, "Bare except swallows every error"),
    ("low", 16, "Unfinished work left in a TODO"),
]
DIFF_NAMED = {
    "findings": [
        {
            "severity": "critical",
            "kind": "security",
            "file": "b/service.py",
            "line": 9,
            "title": "SQL query built by string formatting",
        },
        {
            "severity": "critical",
            "kind": "security",
            "file": "/etc/passwd",
            "line": 1,
            "title": "Password file readable by everyone",
        },
    ]
}


@pytest.fixture
def project(tmp_path):
    return review_project(tmp_path)


def review(project, *args: str) -> tuple[int, dict]:
    run = project.run("review", "--files", "service.py", "--format", "json", *args)
    assert run.returncode in (0, 5, 6), run.stderr
    result = json.loads(run.stdout)
    validate_review(result)
    return run.returncode, result


def test_a_diff_style_path_is_the_same_file_and_a_path_outside_is_not_counted(project):
    project.write_config(
        "clis:\n" + scripted_sim(project, "diffnamer", REVIEW=json.dumps(DIFF_NAMED))
    )
    _, result = review(project, "--with", "sim,diffnamer")
    sql = [f for f in result["findings"] if f["title"] == "SQL query built by string formatting"]
    assert len(sql) == 1  # merged: one issue, raised by both
    assert (sql[0]["file"], sql[0]["line"]) == ("service.py", 9)
    assert sorted(sql[0]["raised_by"]) == ["reviewer-diffnamer", "reviewer-sim"]
    assert (sql[0]["support"], sql[0]["reviewers"]) == (2, 2)
    outside = [f for f in result["findings"] if f["file"] == "/etc/passwd"]
    assert [f["out_of_scope"] for f in outside] == ["names a path outside the project"]
    # The counts are what SARIF and the gate see: the finding outside is not among them.
    assert result["counts"] == {"critical": 1, "high": 1, "medium": 1, "low": 1}


def test_a_degraded_review_with_a_blocking_finding_exits_6(project):
    project.write_config(
        "clis:\n  broken:\n    adapter: sim\n    env:\n      COUNCIL_SIM_EXIT: '1'\n"
    )
    code, result = review(project, "--with", "sim,broken", "--fail-on", "high")
    assert result["status"] == "degraded"
    assert result["gate"]["blocking"] == ["F1", "F2"]
    assert [(f["severity"], f["line"], f["title"]) for f in result["findings"]] == SIM_FINDINGS
    assert code == 6
    assert result["exit_code"] == 6


def test_of_two_findings_of_one_severity_the_better_supported_comes_first(project):
    own = {
        "findings": [
            DIFF_NAMED["findings"][0],  # the simulator raises it too: support 2 of 2
            {
                "severity": "critical",
                "kind": "security",
                "file": "service.py",
                "line": 1,
                "title": "Module imports os for raw shell access",
            },
        ]
    }
    project.write_config("clis:\n" + scripted_sim(project, "second", REVIEW=json.dumps(own)))
    _, result = review(project, "--with", "sim,second")
    critical = [
        (f["id"], f["title"], f["support"])
        for f in result["findings"]
        if f["severity"] == "critical"
    ]
    assert critical == [
        ("F1", "SQL query built by string formatting", 2),
        ("F2", "Module imports os for raw shell access", 1),
    ]


def test_a_cross_check_naming_findings_by_number_alone_is_read(project):
    # Models write `"id": "2"` for F2; the spec's tolerant reading takes it.
    verdicts = {"verdicts": [{"id": str(n), "verdict": "confirm"} for n in range(1, 5)]}
    project.write_config(
        "clis:\n"
        + scripted_sim(
            project,
            "numbers",
            REVIEW='{"findings": []}',
            CROSS_CHECK=json.dumps(verdicts),
            REPAIR=json.dumps(verdicts),  # asked again, it says the same
        )
    )
    _, result = review(project, "--with", "sim,numbers")
    (checker,) = [r for r in result["reviewers"] if r["name"] == "reviewer-numbers"]
    assert (checker["cross_check"], checker["repairs"]) == ("ok", 0)
    assert [f["confirmed_by"] for f in result["findings"]] == [["reviewer-numbers"]] * 4
    assert [f["support"] for f in result["findings"]] == [2, 2, 2, 2]
