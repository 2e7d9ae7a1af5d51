"""Where a review's findings point (docs/spec/outputs.md, "council review"): the SARIF
region a code scanning alert is drawn on, exactly, and the file a finding names, the same
finding however a reviewer spelled its path (`a/service.py` as a diff names it,
`./service.py`, `service.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import Project
from review.helpers import SERVICE, result_of, review_project, validate_sarif
from review.test_review_fakes import fake_reviewers, findings

LAST = len(SERVICE.splitlines())  # 16: a line past it is shown at it

# The reviewers' finding (line, end_line), and the region its SARIF result must have:
# (startLine, endLine), an absent endLine being the startLine (SARIF 2.1.0, 3.30.7).
REGIONS = [
    ("Shell command run with unchecked input", 5, None, (5, 5)),
    ("Query formatted with user input", 8, 9, (8, 9)),
    ("Bare except hides every error", 14, 99, (14, LAST)),  # its end past the file's end
    ("Work left undone in a comment", 99, None, (LAST, LAST)),  # past the end: the last line
]
# The path each of two reviewers gave one finding, and the file the merged finding names.
PATHS = [
    ("Shell command run with unchecked input", "a/service.py", "service.py"),
    ("Query formatted with user input", "b/service.py", "./service.py"),
    ("Bare except hides every error", "a/service.py", "b/service.py"),
    ("Work left undone in a comment", "./service.py", "service.py"),
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


def finding(title: str, line: int | None, end: int | None, path: str = "service.py") -> dict:
    return {
        "severity": "medium", "kind": "correctness", "file": path, "line": line,
        "end_line": end, "title": title, "detail": "see the line", "confidence": 80,
    }  # fmt: skip


def review(project: Project, one: list[dict], two: list[dict]) -> dict:
    """A review by two fake reviewers that confirm each other's findings; its JSON result."""
    fake_reviewers(
        project,
        one={"REVIEW": findings(*one), "verdict": "confirm", "reason": "seen"},
        two={"REVIEW": findings(*two), "verdict": "confirm", "reason": "seen"},
    )
    run = project.run("review", "--files", "service.py", "--with", "one,two", "--format", "json")
    assert run.returncode == 0, run.stderr
    return result_of(run)


def test_each_sarif_result_is_drawn_on_the_lines_the_finding_names(project):
    raised = [finding(title, line, end) for title, line, end, _ in REGIONS]
    result = review(project, raised, raised)
    sarif = json.loads((project.record() / "review.sarif").read_text())
    validate_sarif(sarif)
    drawn = {}
    for alert in sarif["runs"][0]["results"]:
        (place,) = alert["locations"]
        location = place["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "service.py", "uriBaseId": "%SRCROOT%"}
        region = location["region"]
        drawn[alert["message"]["text"].split("\n")[0]] = (
            region["startLine"],
            region.get("endLine", region["startLine"]),
        )
    expected = {title: lines for title, _, _, lines in REGIONS}
    assert {title: at for title, at in drawn.items() if title in expected} == expected, drawn
    assert len(sarif["runs"][0]["results"]) == len(REGIONS)
    # The record says the same, and warns of the line it moved.
    shown = {f["title"]: (f["line"], f["end_line"] or f["line"]) for f in result["findings"]}
    assert shown == expected
    assert any(
        f"names line 99 of service.py, which has {LAST} lines" in w for w in result["warnings"]
    )


def test_a_finding_about_no_one_file_has_no_location(project):
    about_all = {**finding("No tests cover the service at all", None, None), "file": None}
    review(project, [about_all], [about_all])
    sarif = json.loads((project.record() / "review.sarif").read_text())
    (alert,) = sarif["runs"][0]["results"]
    assert "locations" not in alert or alert["locations"] == []


def test_one_finding_spelled_with_a_diffs_path_and_a_plain_path_is_merged(project):
    one = [finding(title, 5 + 3 * n, None, path) for n, (title, path, _) in enumerate(PATHS)]
    two = [finding(title, 5 + 3 * n, None, path) for n, (title, _, path) in enumerate(PATHS)]
    result = review(project, one, two)
    merged = {f["title"]: (f["file"], f["raised_by"], f["support"]) for f in result["findings"]}
    both = ["reviewer-one", "reviewer-two"]
    assert merged == {title: ("service.py", both, 2) for title, _, _ in PATHS}
    assert all(f["out_of_scope"] is None for f in result["findings"])
    sarif = json.loads((project.record() / "review.sarif").read_text())
    uris = [
        a["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for a in sarif["runs"][0]["results"]
    ]
    assert uris == ["service.py"] * len(PATHS)
