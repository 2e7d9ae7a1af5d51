"""What the result tools return for an ended run, in-process on hand-made records (no server,
no debate): docs/spec/commands.md "council mcp". `debate_result` gives the DECISION as the
text and as `decision_markdown`, with the seats, status, exit code and record; a run that
reached no DECISION is a tool error whose text tells the host to report it, not answer in
council's place; a result tool refuses another protocol's run and a run still running, naming
the tool to use instead. `debate_status` returns the progress lines since the last call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records import bare_run

from council.errors import UsageError
from council.mcp.checks import Check
from council.mcp.findings import Review
from council.mcp.outcome import seats_text
from council.mcp.replies import status_tool
from council.mcp.results import result_of
from council.mcp.server import Council, Settings
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, Record
from report.pages import call, finished_debate

DECISION = {
    "recommendation": "Use Postgres.",
    "votes": {"critic": "agree"},
    "confidence": 80,
}
SEATS = [
    {"name": "advocate", "role": "advocate", "cli": "claude", "status": "ok"},
    {"name": "critic", "role": "critic", "cli": "codex", "status": "ready"},
    {"name": "proxy-a", "role": "proxy", "cli": "gemini", "status": "timeout"},
    {"name": "lead", "role": "lead", "cli": "claude", "status": "ok"},
]
SEATS_LINE = (
    "Seats: advocate (claude) ok · critic (codex) ok · proxy-a (gemini) FAILED: timeout · "
    "lead (claude) ok"
)


@pytest.fixture
def pad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path / ".scratchpad"


def ended(pad: Path, status: str = "completed", exit_code: int = 0, **fields: Any) -> Record:
    seats = [{**s, **{k: s.get(k) for k in ("model", "effort")}} for s in SEATS]
    full = [{**built_seat(), **s} for s in seats]
    return finished_debate(
        pad,
        call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]),
        status=status,
        exit_code=exit_code,
        decision=DECISION,
        result={"seats": full},
        **fields,
    )


def built_seat() -> dict[str, Any]:
    return {
        "version": None, "calls": 1, "retries": 0, "latency_s": 1.0, "words_out": 1,
        "usage": None, "billing": None, "served_models": [], "worker": None,
    }  # fmt: skip


def text_of(result) -> str:
    (content,) = result.content
    return content.text


def test_a_completed_debates_result_is_its_decision_then_the_seats_status_and_record(pad):
    record = ended(pad)
    result = result_of("debate", record)
    assert result.is_error is False
    text = text_of(result)
    decision, footer = text.split("\n\n---\n")
    assert decision.startswith("# DECISION: Redis or Postgres?")
    assert "Use Postgres." in decision and "## Debate record" not in decision
    assert footer.splitlines() == [
        SEATS_LINE,
        "Status: completed · exit code 0",
        f"Record: .scratchpad/{record.id}/ (transcript.jsonl, decision.md, result.json)",
    ]
    data = result.structured_content
    assert data == {
        "id": record.id,
        "status": "completed",
        "exit_code": 0,
        "record": f".scratchpad/{record.id}/",
        "error": None,
        "decision_reached": True,
        "decision_markdown": decision + "\n",
        "note": None,
        "seats": SEATS,
    }


def test_a_degraded_debate_still_returns_its_decision_and_is_no_tool_error(pad):
    record = ended(pad, "degraded", 5, error=None)
    result = result_of("debate", record)
    assert result.is_error is False
    data = result.structured_content
    assert (data["status"], data["exit_code"], data["decision_reached"]) == ("degraded", 5, True)
    assert "Use Postgres." in data["decision_markdown"] and data["note"] is None
    assert text_of(result).splitlines()[-2] == "Status: degraded · exit code 5"


@pytest.mark.parametrize(
    ("status", "ended_as"), [("failed", "failed"), ("interrupted", "was interrupted")]
)
def test_a_debate_that_reached_no_decision_is_a_tool_error_telling_the_host_what_to_say(
    pad, status, ended_as
):
    record = ended(pad, status, 3, error="the PROPOSAL failed: advocate timed out")
    result = result_of("debate", record)
    assert result.is_error is True
    note = (
        f"No DECISION: the run {ended_as}. Report this to the user as it is; do not answer the "
        f"question in council's place. It can go on with: council resume {record.id}"
    )
    assert text_of(result).splitlines() == [
        note,
        "",
        "council: the PROPOSAL failed: advocate timed out",
        SEATS_LINE,
        f"Status: {status} · exit code 3",
        f"Record: .scratchpad/{record.id}/ (transcript.jsonl, decision.md, result.json)",
    ]
    data = result.structured_content
    assert data["decision_reached"] is False and data["decision_markdown"] == ""
    assert data["note"] == note
    assert data["error"] == "the PROPOSAL failed: advocate timed out"
    assert (data["status"], data["exit_code"]) == (status, 3)


@pytest.mark.parametrize(
    ("status", "shown"),
    [
        ("ok", "ok"),
        ("ready", "ok"),
        ("timeout", "FAILED: timeout"),
        ("dropped", "FAILED: dropped"),
        ("error", "FAILED: error"),
        ("late", "FAILED: late"),
    ],
)
def test_a_seat_is_ok_only_when_it_answered_or_was_ready(status, shown):
    seats = ({"name": "critic", "cli": "codex", "status": status},)
    assert seats_text(seats) == f"critic (codex) {shown}"


def test_seats_are_joined_in_order():
    seats = (
        {"name": "a", "cli": "x", "status": "ok"},
        {"name": "b", "cli": "y", "status": "auth"},
    )
    assert seats_text(seats) == "a (x) ok · b (y) FAILED: auth"


def test_a_result_tool_refuses_another_protocols_run_naming_the_right_tool(pad):
    record = ended(pad)
    for kind in ("review", "check"):
        with pytest.raises(UsageError) as refused:
            result_of(kind, record)
        assert str(refused.value) == (
            f"{record.id} is a debate, not a {kind}: get its result with debate_result"
        )


def test_a_result_tool_refuses_a_run_still_running_naming_the_status_tool(pad):
    record = ended(pad, "running", finished_at=None)
    lock = RecordLock.acquire(record.path)  # the run's process, alive
    try:
        with pytest.raises(UsageError) as refused:
            result_of("debate", record)
    finally:
        lock.release()
    message = str(refused.value)
    assert message.startswith(f"{record.id} is still running (")
    assert message.endswith("); follow it with debate_status and ask again once it has ended")


def test_check_result_of_a_running_check_names_debate_status_the_tool_that_follows_it(pad):
    # There is no check_status tool: a check is followed with debate_status (the spec).
    record = bare_run(pad, "check", "running")
    lock = RecordLock.acquire(record.path)
    try:
        with pytest.raises(UsageError) as refused:
            result_of("check", record)
    finally:
        lock.release()
    assert str(refused.value).endswith(
        "); follow it with debate_status and ask again once it has ended"
    )


@pytest.mark.parametrize(
    ("kind", "tool"), [("debate", "debate_status"), ("review", "review_status"),
                       ("check", "debate_status")]
)  # fmt: skip
def test_the_status_tool_named_for_a_run(kind, tool):
    assert status_tool(kind) == tool


def log(record: Record, *lines: str) -> None:
    with record.file(PROGRESS).open("a") as out:
        out.write("".join(f"{line}\n" for line in lines))


def test_debate_status_returns_the_lines_since_the_last_call_or_since_a_given_count(pad):
    record = ended(pad)
    council = Council(Settings())
    log(record, "[00:00] setup", "[00:01] ready 4/4")
    first = council._status(record.id, None, str(pad))
    data = first.structured_content
    assert data["lines"] == ["[00:00] setup", "[00:01] ready 4/4"] and data["since"] == 2
    assert (data["status"], data["running"]) == ("completed", False)
    assert first.is_error is False
    text = text_of(first).splitlines()
    assert text[1:] == [
        "[00:00] setup",
        "[00:01] ready 4/4",
        "ended: call debate_result for its result",
    ]
    assert text[0] == data["status_line"]

    log(record, "[00:02] PROPOSAL advocate ok")
    again = council._status(record.id, None, str(pad)).structured_content
    assert again["lines"] == ["[00:02] PROPOSAL advocate ok"] and again["since"] == 3
    assert council._status(record.id, None, str(pad)).structured_content["lines"] == []

    given = council._status(record.id, 1, str(pad)).structured_content
    assert given["lines"] == ["[00:01] ready 4/4", "[00:02] PROPOSAL advocate ok"]
    assert given["since"] == 3
    everything = council._status("last", 0, str(pad)).structured_content
    assert len(everything["lines"]) == 3 and everything["since"] == 3


def test_debate_status_of_a_running_run_says_to_call_it_again(pad):
    record = ended(pad, "running", finished_at=None)
    lock = RecordLock.acquire(record.path)
    try:
        status = Council(Settings())._status(record.id, None, str(pad))
    finally:
        lock.release()
    data = status.structured_content
    assert data["running"] is True and data["status"] == "running"
    assert text_of(status).splitlines()[-1] == "still running: call debate_status again"
    assert set(data["seats"]) == {"ok", "failed", "waiting"}


def review(status: str = "completed", **fields: Any) -> Review:
    values: dict[str, Any] = {
        "id": "review-1", "status": status, "exit_code": 0, "record": ".scratchpad/review-1/",
        "error": None, "markdown": "# Review of x.py\n\nF1 ...\n", "findings": ({"id": "F1"},),
        "counts": {"high": 1},
        "gate": {"fail_on": "high", "rules": {"high": "any"}, "blocking": ["F1"],
                 "passed": False},
        "reviewers": ({"name": "reviewer-a", "cli": "claude", "status": "ok"},
                      {"name": "reviewer-b", "cli": "codex", "status": "ready"}),
        **fields,
    }  # fmt: skip
    return Review(**values)


def test_a_reviews_text_gives_the_reviewers_gate_status_and_record():
    text = review(exit_code=6).text()
    assert text.startswith("# Review of x.py\n\nF1 ...\n\n---\n")
    reviewers, gate, status, where = text.split("\n---\n")[1].splitlines()
    # A reviewer is ok only once it answered: `ready` is not enough for a review.
    assert reviewers == "Reviewers: reviewer-a (claude) ok · reviewer-b (codex) FAILED: ready"
    assert gate.startswith("Gate: gate high (critical majority, high any") and gate.endswith(
        "): FAILED (F1)"
    )
    assert status == "Status: completed · exit code 6"
    assert where == "Record: .scratchpad/review-1/ (review.md, review.sarif, result.json)"


def test_a_review_that_reached_no_findings_has_no_gate_and_says_what_to_tell_the_user():
    failed = review("failed", markdown="", error="both reviewers failed")
    lines = failed.text().splitlines()
    assert lines[0] == (
        "No findings: the run failed. Report this to the user as it is; do not review the "
        "code in council's place. It can go on with: council resume review-1"
    )
    assert lines[2:5] == [
        "council: both reviewers failed",
        "Reviewers: reviewer-a (claude) ok · reviewer-b (codex) FAILED: ready",
        "Gate: none (the review reached no findings)",
    ]
    data = failed.to_json()
    assert data["reviewed"] is False and data["findings_markdown"] == ""
    assert data["note"] == lines[0]
    ok = review().to_json()
    assert ok["reviewed"] is True and ok["findings_markdown"].startswith("# Review of x.py")
    assert ok["note"] is None and ok["gate"]["blocking"] == ["F1"]
    assert ok["counts"] == {"high": 1} and ok["findings"] == [{"id": "F1"}]


def check(status: str = "completed", **fields: Any) -> Check:
    values: dict[str, Any] = {
        "id": "check-1", "status": status, "exit_code": 8, "record": ".scratchpad/check-1/",
        "error": None, "markdown": "# Check\n\nsplit\n", "agreement": "split",
        "needs_human": True, "positions": ({"stance": "Redis", "count": 1},),
        "answers": ({"seat": "critic", "stance": "Redis"},),
        **fields,
    }  # fmt: skip
    return Check(**values)


def test_a_checks_text_gives_the_agreement_and_whether_a_human_is_needed():
    lines = check().text().split("\n---\n")[1].splitlines()
    assert lines == [
        "Agreement: split · needs a human: yes",
        "Status: completed · exit code 8",
        "Record: .scratchpad/check-1/ (check.md, result.json)",
    ]
    unanimous = check(agreement="unanimous", needs_human=False, exit_code=0)
    assert "Agreement: unanimous · needs a human: no" in unanimous.text()
    data = check().to_json()
    assert data["checked"] is True and data["agreement"] == "split"
    assert data["needs_human"] is True and data["note"] is None
    assert data["markdown"] == "# Check\n\nsplit\n"


def test_a_degraded_check_still_checked():
    data = check("degraded").to_json()
    assert data["checked"] is True and data["note"] is None
    assert "No positions" not in check("degraded").text()


def test_a_check_that_did_not_end_says_so_with_no_agreement():
    failed = check("failed", markdown="", agreement=None, needs_human=False, exit_code=3)
    lines = failed.text().splitlines()
    assert lines[0].startswith("No positions: the run failed. Report this to the user as it is;")
    assert "Agreement: none · needs a human: no" in lines
    data = failed.to_json()
    assert data["checked"] is False and data["note"] == lines[0]
