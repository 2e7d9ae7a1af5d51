"""What each of a review's outputs shows (docs/spec/outputs.md "council review", commands.md
`--format`): SARIF's rules, levels, locations, regions and properties; GitHub's workflow
commands and GitLab's report; review.md's status line, sections, findings and reviewers; the
HTML page's findings; and the exit code and closing note each end of a review gives. From
hand-made results shaped as `result.json`, no CLI run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from council.errors import NoUsableCliError, UsageError
from council.review.annotations import render_github, render_gitlab
from council.review.markdown import render_markdown
from council.review.protocol import REVIEW
from council.review.report import render_report
from council.review.result import render
from council.review.sarif import render_sarif
from council.review.state import ReviewState
from review.helpers import MAJORITY_RULES, validate_sarif


def finding(fid: str = "F1", **fields: Any) -> dict[str, Any]:
    return {
        "id": fid, "severity": "high", "kind": "security", "file": "service.py", "line": 5,
        "end_line": None, "title": "Shell command built from a string",
        "detail": "A shell parses it.", "suggestion": "Pass a list.", "confidence": 80,
        "raised_by": ["reviewer-codex"], "confirmed_by": ["reviewer-claude"],
        "disputed_by": [], "support": 2, "reviewers": 3, "majority": True, "gate": "majority",
        "blocking": False, "fingerprint": f"{fid.lower()}" + "0" * 30, "raised": [],
        "out_of_scope": None, **fields,
    }  # fmt: skip


def reviewer(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name, "label": "Reviewer A", "cli": name.split("-")[1], "model": None,
        "effort": None, "version": None, "status": "ok", "review": "ok", "cross_check": "ok",
        "problems": {"review": None, "cross_check": None}, "findings_raised": 1, "calls": 2,
        "repairs": 0, "retries": 0, "latency_s": 1.0, "usage": None, "billing": None,
        "served_models": [], "worker": None, **fields,
    }  # fmt: skip


def result(*findings: dict[str, Any], **fields: Any) -> dict[str, Any]:
    counts = {s: 0 for s in ("critical", "high", "medium", "low")}
    for f in findings:
        if not f["out_of_scope"]:
            counts[f["severity"]] += 1
    return {
        "schema": "council.review/v1", "id": "review-20270101-000000-abcd",
        "subject": "service.py", "status": "completed", "simulated": False,
        "diff_ref": None, "files": ["service.py"],
        "gate": {"fail_on": "high", "rules": MAJORITY_RULES,
                 "blocking": [f["id"] for f in findings if f["blocking"]],
                 "passed": not any(f["blocking"] for f in findings)},
        "seed": 1, "started_at": "2027-01-01T00:00:00+00:00", "finished_at": None,
        "duration_s": 65.0,
        "reviewers": [reviewer("reviewer-codex"), reviewer("reviewer-claude"),
                      reviewer("reviewer-gemini")],
        "answered": 3, "findings": list(findings), "counts": counts, "calls": [],
        "context": {"files": [], "technical_context": []}, "usage": None,
        "injection": {"suspects": [], "reported": []}, "warnings": [],
        "scratchpad": ".scratchpad/review-x/", "exit_code": 0, "error": None, **fields,
    }  # fmt: skip


# -- SARIF ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "level"),
    [("critical", "error"), ("high", "error"), ("medium", "warning"), ("low", "note")],
)
def test_sarif_levels_by_severity(severity, level):
    (alert,) = render_sarif(result(finding(severity=severity)))["runs"][0]["results"]
    assert alert["level"] == level


def test_sarif_has_one_rule_per_kind_present_in_the_kinds_order_and_each_result_points_to_it():
    sarif = render_sarif(
        result(
            finding("F1", kind="testing"),
            finding("F2", kind="security"),
            finding("F3", kind="testing"),
            finding("F4", kind="style", out_of_scope="names a file that was not reviewed"),
        )
    )
    validate_sarif(sarif)
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [(r["id"], r["name"]) for r in rules] == [
        ("council/security", "Security"),
        ("council/testing", "Testing"),
    ]
    assert [(a["ruleId"], a["ruleIndex"]) for a in run["results"]] == [
        ("council/testing", 1), ("council/security", 0), ("council/testing", 1),
    ]  # fmt: skip
    assert run["tool"]["driver"]["name"] == "council"


@pytest.mark.parametrize(
    ("fields", "location"),
    [
        ({"line": 5, "end_line": None}, {"region": {"startLine": 5}}),
        ({"line": 5, "end_line": 9}, {"region": {"startLine": 5, "endLine": 9}}),
        ({"line": None, "end_line": None}, {}),
        ({"file": "lib/my file#1.py"}, {"uri": "lib/my%20file%231.py", "region": {"startLine": 5}}),
    ],
)
def test_sarif_locations_name_the_file_from_the_root_and_the_lines(fields, location):
    (alert,) = render_sarif(result(finding(**fields)))["runs"][0]["results"]
    (place,) = alert["locations"]
    physical = place["physicalLocation"]
    uri = location.get("uri", "service.py")
    assert physical["artifactLocation"] == {"uri": uri, "uriBaseId": "%SRCROOT%"}
    assert physical.get("region") == location.get("region")


def test_a_finding_about_no_file_has_no_sarif_location():
    (alert,) = render_sarif(result(finding(file="", line=None)))["runs"][0]["results"]
    assert "locations" not in alert


def test_a_sarif_results_message_and_properties_say_who_raised_confirmed_and_disputed():
    disputed = finding(
        disputed_by=[{"reviewer": "reviewer-gemini", "reason": "validated above"},
                     {"reviewer": "reviewer-kimi", "reason": ""}],
        blocking=True,
    )  # fmt: skip
    (alert,) = render_sarif(result(disputed))["runs"][0]["results"]
    assert alert["message"]["text"] == (
        "Shell command built from a string\n\nA shell parses it.\n\nSuggestion: Pass a list.\n\n"
        "Support 2 of 3 reviewers (high): raised by reviewer-codex; confirmed by "
        "reviewer-claude; disputed by reviewer-gemini (validated above); reviewer-kimi "
        "(no reason given)."
    )
    assert alert["properties"] == {
        "id": "F1", "severity": "high", "confidence": 80, "support": 2, "reviewers": 3,
        "majority": True, "blocking": True, "raisedBy": ["reviewer-codex"],
        "confirmedBy": ["reviewer-claude"], "disputedBy": disputed["disputed_by"],
    }  # fmt: skip
    assert alert["partialFingerprints"] == {"councilFinding/v1": disputed["fingerprint"]}
    bare = finding(detail="", suggestion="", confirmed_by=[])
    (alert,) = render_sarif(result(bare))["runs"][0]["results"]
    assert alert["message"]["text"] == (
        "Shell command built from a string\n\nSupport 2 of 3 reviewers (high): raised by "
        "reviewer-codex."
    )


@pytest.mark.parametrize(
    ("status", "exit_code", "successful"),
    [("completed", 6, True), ("degraded", 5, True), ("failed", 3, False), ("running", 0, False)],
)
def test_the_sarif_invocation_and_run_properties_say_how_the_review_ended(
    status, exit_code, successful
):
    blocking = finding(blocking=True)
    sarif = render_sarif(result(blocking, status=status, exit_code=exit_code, answered=2))
    (run,) = sarif["runs"]
    assert run["invocations"] == [{"executionSuccessful": successful, "exitCode": exit_code}]
    assert run["properties"] == {
        "id": "review-20270101-000000-abcd", "subject": "service.py", "status": status,
        "simulated": False, "failOn": "high", "gate": MAJORITY_RULES, "blocking": ["F1"],
        "reviewers": ["reviewer-codex", "reviewer-claude", "reviewer-gemini"], "answered": 2,
    }  # fmt: skip


# -- GitHub and GitLab -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({}, "::error file=service.py,line=5,title=council high%3A Shell command built from a "
             "string::A shell parses it. Pass a list. (support 2 of 3 reviewers, F1)"),
        ({"end_line": 8, "severity": "medium"},
         "::warning file=service.py,line=5,endLine=8,title=council medium%3A Shell command "
         "built from a string::A shell parses it. Pass a list. (support 2 of 3 reviewers, F1)"),
        ({"line": None, "end_line": 8, "severity": "low", "detail": "", "suggestion": ""},
         "::notice file=service.py,title=council low%3A Shell command built from a string::"
         "(support 2 of 3 reviewers, F1)"),
        ({"title": "Query, then: a shell", "detail": "50% sure,\nreally"},
         "::error file=service.py,line=5,title=council high%3A Query%2C then%3A a shell::50%25 "
         "sure,%0Areally Pass a list. (support 2 of 3 reviewers, F1)"),
        ({"severity": "critical", "suggestion": "", "support": 1},
         "::error file=service.py,line=5,title=council critical%3A Shell command built from a "
         "string::A shell parses it. (support 1 of 3 reviewers, F1)"),
    ],
)  # fmt: skip
def test_each_finding_is_one_github_workflow_command(fields, line):
    assert render_github(result(finding(**fields))) == line + "\n"


def test_github_and_gitlab_leave_out_findings_out_of_scope_or_about_no_file():
    shown = finding("F1")
    outside = finding("F2", out_of_scope="names a path outside the project")
    nowhere = finding("F3", file="", line=None)
    whole = result(shown, outside, nowhere)
    assert render_github(whole).count("\n") == 1 and "F1)" in render_github(whole)
    assert [i["fingerprint"] for i in json.loads(render_gitlab(whole))] == [shown["fingerprint"]]
    assert render_github(result()) == "" and json.loads(render_gitlab(result())) == []


def test_a_gitlab_issue_carries_the_description_check_fingerprint_severity_and_place():
    (issue,) = json.loads(render_gitlab(result(finding(kind="reliability", end_line=7))))
    assert issue == {
        "description": "Shell command built from a string: A shell parses it. Pass a list. "
        "(support 2 of 3 reviewers, F1)",
        "check_name": "council/reliability",
        "fingerprint": "f1" + "0" * 30,
        "severity": "major",
        "location": {"path": "service.py", "lines": {"begin": 5, "end": 7}},
    }


@pytest.mark.parametrize("form", ["md", "json", "sarif", "github", "gitlab"])
def test_each_format_prints_its_own_form(form):
    whole = result(finding())
    printed = render(whole, form)
    expected = {
        "md": render_markdown(whole),
        "json": json.dumps(whole, indent=2, ensure_ascii=False) + "\n",
        "sarif": json.dumps(render_sarif(whole), indent=2, ensure_ascii=False) + "\n",
        "github": render_github(whole),
        "gitlab": render_gitlab(whole),
    }
    assert printed == expected[form]
    assert len(set(expected.values())) == 5


# -- review.md ---------------------------------------------------------------------------


def test_review_md_from_its_title_to_its_reviewers_table():
    whole = result(
        finding("F1", severity="critical", blocking=True, end_line=7),
        finding("F5", severity="high", title="Eval of input", line=9, kind="correctness",
                raised_by=["reviewer-claude"], confirmed_by=[], support=1, majority=False,
                confidence=None, detail="", suggestion=""),
        finding("F2", severity="low", title="Unfinished TODO", kind="maintainability",
                file="", line=None, confidence=None, confirmed_by=[], support=1,
                majority=False, detail="", suggestion="",
                disputed_by=[{"reviewer": "reviewer-gemini", "reason": ""}]),
        finding("F3", title="Password file", file="/etc/passwd", line=1,
                out_of_scope="names a path outside the project"),
        finding("F4", title="Setup script", file="setup.py", line=None,
                out_of_scope="names a file that was not reviewed"),
        simulated=True, warnings=["reviewer-gemini's cross-check failed (timeout)"],
        error=None,
    )  # fmt: skip
    whole["reviewers"][2].update(
        cross_check="failed", problems={"review": None, "cross_check": "timeout: a | b"}
    )
    assert render_markdown(whole) == (
        "# REVIEW (SIMULATED): service.py\n"
        "Reviewers: reviewer-codex (codex: served model not reported), reviewer-claude "
        "(claude: served model not reported), reviewer-gemini (gemini: served model not "
        "reported)\n"
        "Status: completed · 3 of 3 reviewers answered · 3 findings (1 critical, 1 high, 1 low) · "
        "gate high (majority): FAILED (F1) · 1m05s\n"
        "> warning: reviewer-gemini's cross-check failed (timeout)\n"
        "\n## Critical (1)\n"
        "\n### F1 Shell command built from a string\n"
        "`service.py:5-7` · security · support 2 of 3 (majority) · BLOCKING · confidence 80\n"
        "\n- Raised by: reviewer-codex\n- Confirmed by: reviewer-claude\n"
        "- Disputed by: nobody\n"
        "\nA shell parses it.\n\nSuggestion: Pass a list.\n"
        "\n## High (1)\n"
        "\n### F5 Eval of input\n"
        "`service.py:9` · correctness · support 1 of 3 (no majority)\n"
        "\n- Raised by: reviewer-claude\n- Confirmed by: nobody\n- Disputed by: nobody\n"
        "\n## Low (1)\n"
        "\n### F2 Unfinished TODO\n"
        "`(no file)` · maintainability · support 1 of 3 (no majority)\n"
        "\n- Raised by: reviewer-codex\n- Confirmed by: nobody\n"
        "- Disputed by:\n  - reviewer-gemini: (no reason given)\n"
        "\n## Out of scope (2)\n"
        "- F3 Password file (/etc/passwd:1): names a path outside the project\n"
        "- F4 Setup script (setup.py): names a file that was not reviewed\n"
        "\n## Reviewers\n| reviewer | review | cross-check | findings | problem |\n"
        "|---|---|---|---|---|\n"
        "| reviewer-codex (codex) | ok | ok | 1 |  |\n"
        "| reviewer-claude (claude) | ok | ok | 1 |  |\n"
        "| reviewer-gemini (gemini) | ok | failed | 1 | timeout: a \\| b |\n"
    )


@pytest.mark.parametrize(
    ("fields", "status_line"),
    [
        ({}, "Status: completed · 3 of 3 reviewers answered · 0 findings (none) · "
             "gate high (majority): passed · 1m05s"),
        ({"duration_s": 59.4, "answered": 1, "status": "degraded"},
         "Status: degraded · 1 of 3 reviewers answered · 0 findings (none) · "
         "gate high (majority): passed · 59s"),
        ({"duration_s": 600, "gate": {"fail_on": None, "blocking": [], "passed": True}},
         "Status: completed · 3 of 3 reviewers answered · 0 findings (none) · no gate · "
         "10m00s"),
        ({"gate": {"fail_on": "low", "blocking": [], "passed": True,
                   "rules": {"critical": "any", "high": "unanimous"}}},
         "Status: completed · 3 of 3 reviewers answered · 0 findings (none) · gate low "
         "(critical any, high unanimous, medium majority, low majority): passed · 1m05s"),
    ],
)  # fmt: skip
def test_the_status_line(fields, status_line):
    assert render_markdown(result(**fields)).splitlines()[2] == status_line


@pytest.mark.parametrize(
    ("status", "shown"),
    [("completed", "No findings."), ("degraded", "No findings."), ("running", "(still running)")],
)
def test_a_review_without_findings_says_so(status, shown):
    text = render_markdown(result(status=status))
    assert text.splitlines()[3:5] == ["", shown]
    assert text.startswith("# REVIEW: service.py\n")  # not simulated: no mark


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"confidence": 0}, "`service.py:5` · security · support 2 of 3 (majority) · confidence 0"),
        ({"confidence": None, "blocking": True},
         "`service.py:5` · security · support 2 of 3 (majority) · BLOCKING"),
        ({"line": None, "end_line": None, "majority": False, "confidence": None},
         "`service.py` · security · support 2 of 3 (no majority)"),
    ],
)  # fmt: skip
def test_a_findings_first_line_gives_its_place_support_and_confidence(fields, line):
    text = render_markdown(result(finding(**fields)))
    assert text.split("### F1 Shell command built from a string\n")[1].splitlines()[0] == line


def test_an_error_is_shown_under_the_status_line():
    text = render_markdown(result(status="failed", error="no reviewer's review could be read"))
    assert text.splitlines()[3] == "> error: no reviewer's review could be read"


def test_the_html_page_lists_the_findings_most_severe_first_and_the_ones_out_of_scope_apart():
    whole = result(
        finding("F1", severity="low", title="Low thing"),
        finding("F2", severity="critical", title="Critical thing"),
        finding("F3", title="Far away thing", out_of_scope="names a path outside the project"),
    )
    page = render_report(whole, {"plan": {}, "calls": {}, "order": []}, [])
    assert page.index("Critical thing") < page.index("Low thing") < page.index("Far away thing")
    assert "1 critical, 1 low" in page


# -- the exit code and the closing note ---------------------------------------------------


def state(status: str, blocking: list[str], **plan: Any) -> ReviewState:
    return ReviewState(id="review-x", question="review of service.py", status=status,
                       plan={"output": None, **plan}, blocking=blocking)  # fmt: skip


@pytest.mark.parametrize(
    ("status", "blocking", "error", "code"),
    [
        ("completed", [], None, 0),
        ("completed", ["F1"], None, 6),
        ("degraded", [], None, 5),
        ("degraded", ["F2"], None, 6),  # the gate outranks the degradation
        ("failed", [], NoUsableCliError("none read"), 3),
        ("failed", ["F1"], NoUsableCliError("none read"), 3),
        ("interrupted", ["F1"], None, 130),  # not ended: no gate
        ("running", ["F1"], None, 0),
        ("completed", ["F1"], UsageError("cannot write --output"), 2),
    ],
)
def test_the_exit_code_of_each_end(status, blocking, error, code):
    if status == "running":
        with pytest.raises(KeyError):
            REVIEW.exit_code(state(status, blocking), error)
        return
    assert REVIEW.exit_code(state(status, blocking), error) == code


@pytest.mark.parametrize(
    ("status", "blocking", "notes"),
    [
        ("completed", ["F1", "F3"], ["council: blocking findings at --fail-on high: F1, F3"]),
        ("degraded", ["F2"], ["council: blocking findings at --fail-on high: F2"]),
        ("completed", [], []),
        ("failed", ["F1"], []),
        ("interrupted", ["F1"], []),
    ],
)
def test_the_closing_note_names_the_blocking_findings_of_an_ended_review(status, blocking, notes):
    whole = result(status=status)
    whole["gate"]["blocking"] = blocking
    assert REVIEW.notes(whole) == notes


def test_output_is_written_beside_only_for_an_ended_review_in_its_form(tmp_path):
    target = tmp_path / "deep" / "er" / "review.sarif"
    whole = result(finding())
    ended = state("completed", [], output=str(target), output_format="sarif", format="md")
    assert REVIEW.write_beside(whole, ended) is None
    assert json.loads(target.read_text()) == render_sarif(whole)
    target.unlink()
    for status in ("failed", "interrupted", "running"):
        assert REVIEW.write_beside(result(status=status), ended) is None
    assert not target.exists()
    blocked = tmp_path / "file"
    blocked.write_text("")
    cannot = state("completed", [], output=str(blocked / "x.md"), output_format="md")
    error = REVIEW.write_beside(whole, cannot)
    assert isinstance(error, UsageError) and error.exit_code == 2
    assert str(error).startswith(f"cannot write --output {blocked / 'x.md'}: ")
