"""`council review` with fake reviewers: user-defined CLIs (council.yaml `command`) that answer
exactly what a test needs, so the merge, the support and the repair are checked on answers a
real model might give: the same issue in other words, a lone finding, garbage twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate.scripted import scripted_clis
from project import Project
from review.helpers import finding_titled, result_of, review_project, reviewer, validate_review

# Answers REVIEW and REVIEW_REPAIR from its answers file (raw text, by phase); in a
# cross-check, gives the same verdict on every finding listed.
FAKE_REVIEWER = """\
import json, re, sys
if sys.argv[-1] == "--version":
    print("fake-reviewer 1.0")
    raise SystemExit
answers = json.load(open(sys.argv[1]))
prompt = sys.stdin.read()
phase = next(l for l in prompt.splitlines() if l.startswith("ACTION:"))[8:].strip()
if phase.startswith("CROSS_CHECK"):
    ids = re.findall(r"^### (F[0-9]+) [(]from ", prompt, re.M)
    verdicts = [{"id": i, "verdict": answers["verdict"], "reason": answers["reason"]} for i in ids]
    print(json.dumps({"verdicts": verdicts}))
else:
    print(answers[phase])
"""


def findings(*items: dict) -> str:
    return "Here is what I found:\n```json\n" + json.dumps({"findings": list(items)}) + "\n```"


def fake_reviewers(project: Project, **answers: dict) -> None:
    project.write_config(scripted_clis(project, FAKE_REVIEWER, answers))


SQL_ONE = {
    "severity": "high", "kind": "security", "file": "service.py", "line": 9,
    "title": "SQL query built by string formatting", "detail": "injection", "confidence": 90,
}  # fmt: skip
SQL_TWO = {
    "severity": "critical", "kind": "security", "file": "./service.py", "line": 10,
    "end_line": 11, "title": "User input formatted into an SQL query", "confidence": 70,
}  # fmt: skip
PRINT_TWO = {
    "severity": "low", "kind": "style", "file": "service.py", "line": 15,
    "title": "Debug print left in the code",
}  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


def test_the_same_issue_in_other_words_merges_and_a_lone_finding_keeps_its_support(project):
    fake_reviewers(
        project,
        one={"REVIEW": findings(SQL_ONE), "verdict": "dispute", "reason": "not reachable"},
        two={"REVIEW": findings(SQL_TWO, PRINT_TWO), "verdict": "confirm", "reason": "seen"},
        three={"REVIEW": '{"findings": []}', "verdict": "dispute", "reason": "looks fine"},
    )
    run = project.run(
        "review", "--files", "service.py", "--with", "one,two,three",
        "--fail-on", "critical", "--format", "json",
    )  # fmt: skip
    assert run.returncode == 6, run.stderr
    result = result_of(run)
    validate_review(result)
    assert len(result["findings"]) == 2
    sql = finding_titled(result, "SQL query built")
    assert sql["raised_by"] == ["reviewer-one", "reviewer-two"]
    assert [r["title"] for r in sql["raised"]] == [SQL_ONE["title"], SQL_TWO["title"]]
    assert (sql["severity"], sql["line"], sql["end_line"], sql["confidence"]) == (
        "critical", 9, 11, 80,
    )  # fmt: skip
    assert sql["disputed_by"] == [{"reviewer": "reviewer-three", "reason": "looks fine"}]
    assert (sql["support"], sql["reviewers"], sql["blocking"]) == (2, 3, True)
    lone = finding_titled(result, "Debug print")
    assert lone["raised_by"] == ["reviewer-two"] and lone["support"] == 1  # "1 of 3", kept
    assert {d["reviewer"] for d in lone["disputed_by"]} == {"reviewer-one", "reviewer-three"}
    assert result["gate"]["blocking"] == [sql["id"]]


def test_a_reviewer_that_answers_garbage_twice_is_asked_once_more_then_failed(project):
    fake_reviewers(
        project,
        good={"REVIEW": findings(SQL_ONE), "verdict": "confirm", "reason": "seen"},
        helpful={"REVIEW": findings(PRINT_TWO), "verdict": "confirm", "reason": "seen"},
        broken={
            "REVIEW": "I reviewed it: looks risky in places.",
            "REVIEW_REPAIR": "Sorry, the JSON would not come out right this time.",
            "verdict": "confirm",
            "reason": "seen",
        },
    )
    run = project.run(
        "review", "--files", "service.py", "--with", "good,helpful,broken", "--format", "json"
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    broken = reviewer(result, "reviewer-broken")
    assert (broken["status"], broken["review"], broken["repairs"]) == ("failed", "failed", 1)
    assert broken["cross_check"] == "skipped"  # a failed reviewer checks nothing
    assert broken["problems"]["review"].startswith("unreadable JSON even after one repair")
    record = project.record()
    assert (record / "reviewer-broken-r1-repair-prompt.md").is_file()
    assert not list(record.glob("reviewer-broken-r1-repair-repair*"))  # one repair, no more
    assert result["answered"] == 2 and result["status"] == "completed"
    assert all(f["reviewers"] == 2 for f in result["findings"])
    repair = (record / "reviewer-broken-r1-repair-prompt.md").read_text()
    assert "I reviewed it: looks risky in places." in repair  # its previous reply, quoted
    assert "ACTION: REVIEW\n" in repair  # and the task it answered, again
