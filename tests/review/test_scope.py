"""Review findings are checked against what was reviewed (review/scope.py): a path outside
the project or a file nobody reviewed is kept out of SARIF, the counts and the gate; a line
past a file's end is clamped, with a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.review.findings import Finding
from council.review.markdown import render_markdown
from council.review.merge import merge
from council.review.sarif import render_sarif
from council.review.scope import NOT_REVIEWED, OUTSIDE, place

ROOT = Path("/work/project")
REVIEWED = {"app.py": 7, "lib/db.py": 120}


def finding(file: str, line: int | None = 3, **extra) -> dict:
    return {
        "id": "F1",
        "severity": "critical",
        "kind": "security",
        "file": file,
        "line": line,
        "end_line": None,
        "title": "Password file read",
        "blocking": True,
        **extra,
    }


@pytest.mark.parametrize(
    "path",
    ["../../../../etc/passwd", "/etc/shadow", "lib/../../secrets.txt", "..", "/work/projectx/a.py"],
)
def test_a_path_outside_the_project_is_out_of_scope_and_never_blocks(path):
    placed, warning = place(finding(path), REVIEWED, ROOT)
    assert placed["out_of_scope"] == OUTSIDE and placed["blocking"] is False
    assert warning == f"F1 ({path}) names a path outside the project: kept in the record only"


def test_a_file_inside_the_project_that_was_not_reviewed_is_out_of_scope():
    placed, _ = place(finding("setup.py"), REVIEWED, ROOT)
    assert (placed["out_of_scope"], placed["blocking"]) == (NOT_REVIEWED, False)


@pytest.mark.parametrize("path", ["app.py", "./app.py", "lib//db.py", "/work/project/app.py"])
def test_a_reviewed_file_named_any_way_is_in_scope_under_its_project_path(path):
    placed, warning = place(finding(path), REVIEWED, ROOT)
    assert placed["out_of_scope"] is None and placed["blocking"] is True and warning is None
    assert placed["file"] in REVIEWED


def test_a_line_past_the_files_end_is_clamped_with_a_warning():
    placed, warning = place(finding("app.py", 99999, end_line=100001), REVIEWED, ROOT)
    assert (placed["line"], placed["end_line"], placed["out_of_scope"]) == (7, None, None)
    assert warning == "F1 names line 99999 of app.py, which has 7 lines: shown at line 7"


def test_an_end_line_past_the_end_is_cut_to_it():
    placed, warning = place(finding("app.py", 5, end_line=40), REVIEWED, ROOT)
    assert (placed["line"], placed["end_line"], warning) == (5, 7, None)


def test_a_finding_about_no_one_file_stays_in_scope():
    placed, warning = place(finding("", None), REVIEWED, ROOT)
    assert placed["out_of_scope"] is None and warning is None


def one_finding_in_scope_one_outside() -> list[dict]:
    """Two reviewers' findings, merged and placed: one on app.py, one on /etc/shadow."""
    reviews = {
        "a": [Finding("critical", "app.py", 3, None, "SQL built by formatting")],
        "b": [Finding("critical", "/etc/shadow", 1, None, "Shadow file is world readable")],
    }
    merged = [m.to_json("high") for m in merge(reviews, {}, ["a", "b"], ["a", "b"])]
    return [place(f, REVIEWED, ROOT)[0] for f in merged]


def test_sarif_leaves_out_of_scope_findings_out():
    placed = one_finding_in_scope_one_outside()
    result = {
        "id": "review-1",
        "subject": "app.py",
        "simulated": True,
        "gate": {"fail_on": "high", "blocking": ["F1"]},
        "reviewers": [],
        "answered": 2,
        "findings": placed,
        "status": "completed",
        "exit_code": 6,
    }
    sarif = render_sarif(result)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    ]
    assert uris == ["app.py"]


def test_review_md_lists_an_out_of_scope_finding_only_under_out_of_scope():
    placed = one_finding_in_scope_one_outside()
    result = {
        "subject": "app.py",
        "simulated": False,
        "gate": {"fail_on": "high", "blocking": ["F1"]},
        "reviewers": [],
        "findings": placed,
        "counts": {"critical": 1, "high": 0, "medium": 0, "low": 0},
        "status": "completed",
        "warnings": [],
        "answered": 2,
        "duration_s": 1.0,
    }
    text = render_markdown(result)
    reviewed, _, outside = text.partition("## Out of scope (1)")
    assert "## Critical (1)" in reviewed and "SQL built by formatting" in reviewed
    assert "Shadow file is world readable" not in reviewed
    assert "Shadow file is world readable (/etc/shadow:1)" in outside
