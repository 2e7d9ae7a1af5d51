"""`council review --format github` and `--format gitlab`: the findings as CI annotations where
there is no code scanning, checked against what GitHub's runner and GitLab's report read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from council.review.annotations import render_github, render_gitlab
from project import Project

GITLAB_SCHEMA = json.loads(
    (Path(__file__).parents[1] / "data" / "gitlab-code-quality.schema.json").read_text()
)
# `::level file=F,line=N,title=T::message`: properties comma-separated, values escaped.
WORKFLOW_COMMAND = re.compile(
    r"^::(error|warning|notice) file=[^,:]+(,line=\d+)?(,endLine=\d+)?,title=[^,:]+::[^\r\n]+$"
)
SERVICE = (
    "import sqlite3\n\n\ndef get(db, key):\n"
    '    return db.execute("select v from t where k = %s" % key)\n'
)


def finding(**changes: object) -> dict:
    base = {
        "id": "F1",
        "severity": "high",
        "kind": "security",
        "file": "app.py",
        "line": 4,
        "end_line": None,
        "title": "SQL built by formatting",
        "detail": "Input reaches the query.",
        "suggestion": "Use parameters.",
        "support": 2,
        "reviewers": 2,
        "fingerprint": "abc123",
        "out_of_scope": None,
    }
    return {**base, **changes}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    (project.root / "service.py").write_text(SERVICE)
    return project


def test_a_review_prints_one_github_annotation_per_finding_on_its_line(project):
    run = project.run("review", "--files", "service.py", "--sim", "--format", "github")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    result = json.loads(project.run("show", "last", "--json").stdout)
    assert len(lines) == len(result["findings"]) >= 1
    for line, found in zip(lines, result["findings"], strict=True):
        assert WORKFLOW_COMMAND.match(line), line
        assert f"file={found['file']},line={found['line']}," in line


def test_a_review_writes_a_gitlab_report_that_gitlab_reads(project):
    run = project.run(
        "review", "--files", "service.py", "--sim", "--format", "gitlab", "--output", "gl.json"
    )
    assert run.returncode == 0, run.stderr
    printed = json.loads(run.stdout)
    written = json.loads((project.root / "gl.json").read_text())  # .json keeps the gitlab form
    assert printed == written and printed
    jsonschema.validate(printed, GITLAB_SCHEMA)
    assert {issue["location"]["path"] for issue in printed} == {"service.py"}


def test_a_reviewers_text_cannot_end_a_workflow_command_or_start_another():
    hostile = finding(
        title="a, b: c",
        detail="100% sure\n::error file=x.py::forged\r",
        file="dir,x/a:b.py",
    )
    (line,) = render_github({"findings": [hostile]}).splitlines()
    assert WORKFLOW_COMMAND.match(line), line
    assert "file=dir%2Cx/a%3Ab.py,line=4,title=council high%3A a%2C b%3A c::100%25 sure%0A" in line


def test_severities_map_to_each_ci_s_own_levels_and_out_of_scope_findings_are_left_out():
    findings = [
        finding(id=f"F{i}", severity=s, fingerprint=s)
        for i, s in enumerate(("critical", "high", "medium", "low"), 1)
    ]
    findings.append(finding(id="F5", out_of_scope="outside the reviewed files"))
    levels = [line.split(" ", 1)[0] for line in render_github({"findings": findings}).splitlines()]
    assert levels == ["::error", "::error", "::warning", "::notice"]
    report = json.loads(render_gitlab({"findings": findings}))
    jsonschema.validate(report, GITLAB_SCHEMA)
    assert [i["severity"] for i in report] == ["critical", "major", "minor", "info"]


@pytest.mark.parametrize(
    ("line", "end_line", "lines"),
    [
        (4, None, {"begin": 4}),
        (4, 4, {"begin": 4}),
        (4, 5, {"begin": 4, "end": 5}),  # two lines: GitLab marks both
        (4, 9, {"begin": 4, "end": 9}),
        (None, None, {"begin": 1}),  # a finding on a file as a whole: its first line
    ],
)
def test_a_findings_lines_are_the_lines_gitlab_marks(line, end_line, lines):
    report = json.loads(render_gitlab({"findings": [finding(line=line, end_line=end_line)]}))
    assert report[0]["location"] == {"path": "app.py", "lines": lines}
