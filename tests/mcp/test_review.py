"""The review over MCP (docs/spec/commands.md "council mcp"): `review` and its step-at-a-time
tools, spoken to with the MCP SDK's own client, reviews on the simulator. The findings and the
gate are in the structured content, which is all some hosts hand their model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from served import LIMIT_S, call, serving, text, until_ended

from council.options import options_of
from council.review.flags import ReviewFlags
from project import QUESTION, Project
from review.helpers import MAJORITY_RULES, review_project

SLOW = {"COUNCIL_SIM_DELAY": "0.2"}  # seconds per simulated call: phases to report
HUNG = {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "REVIEW"}  # runs until cancelled
GATED = "import os\n\n\ndef run(command):\n    os.system(command)  # SIM_ONLY(alpha,beta)\n"
REVIEWERS = [
    {
        "name": name,
        "cli": "sim",
        "status": "ok",
        "review": "ok",
        "cross_check": "ok",
    }
    for name in ("reviewer-sim", "reviewer-sim-2")
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


@pytest.mark.anyio
async def test_the_review_tools_take_the_review_flags_and_nothing_else(project):
    async with serving(project) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    review = tools["review"].input_schema
    offered = [o.name for o in options_of(ReviewFlags).values() if o.tool]
    assert list(review["properties"]) == offered  # generated from ReviewFlags, in its order
    assert "format" not in offered and "required" not in review
    assert review["additionalProperties"] is False
    properties = review["properties"]
    fail_on = properties["fail_on"]["anyOf"][0]
    assert fail_on["enum"] == ["low", "medium", "high", "critical"]
    assert properties["reviewers"]["anyOf"][0] == {"type": "array", "items": {"type": "string"}}
    assert properties["seed"]["anyOf"][0] == {"type": "integer", "minimum": 0}
    assert {**tools["review_start"].input_schema, "title": ""} == {**review, "title": ""}
    for name in ("review", "review_start", "review_status", "review_result"):
        assert "never pass findings of your own off as council's" in tools[name].description
    assert "gate" in tools["review"].description


@pytest.mark.anyio
async def test_review_reports_progress_and_returns_the_findings_and_the_gate(project):
    messages: list[str] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with serving(project, **SLOW) as session:
        result = await session.call_tool(
            "review", {"files": ["service.py"], "sim": True}, progress_callback=progress
        )
    assert not result.is_error, text(result)
    run_id = result.structured_content["id"]
    assert run_id.startswith("review-")
    structured = result.structured_content
    markdown = structured.pop("findings_markdown")
    assert markdown == (project.record() / "review.md").read_text()  # as review.md has it
    assert markdown.startswith("# REVIEW (SIMULATED): service.py") and "## Critical" in markdown
    assert markdown.rstrip() in text(result)
    findings = structured.pop("findings")
    assert [f["severity"] for f in findings] == ["critical", "high", "medium", "low"]
    assert all(f["id"] in markdown for f in findings)
    assert structured == {
        "id": run_id,
        "status": "completed",
        "exit_code": 0,
        "record": f".scratchpad/{run_id}/",
        "error": None,
        "reviewed": True,
        "counts": {"critical": 1, "high": 1, "medium": 1, "low": 1},
        "gate": {"fail_on": None, "rules": MAJORITY_RULES, "blocking": [], "passed": True},
        "note": None,
        "reviewers": REVIEWERS,
    }
    answer = text(result)
    assert "Gate: no gate" in answer and "Status: completed · exit code 0" in answer
    assert "Reviewers: reviewer-sim (sim) ok · reviewer-sim-2 (sim) ok" in answer
    lines = (project.record() / "progress.log").read_text().splitlines()
    assert [m for m in messages if m.startswith("[")] == lines
    assert any(" REVIEW " in m for m in messages) and any(" CROSS_CHECK " in m for m in messages)


@pytest.mark.anyio
async def test_a_blocking_finding_fails_the_gate_in_the_structured_content(project):
    (project.root / "service.py").write_text(GATED)
    async with serving(project) as session:
        started = await call(
            session,
            "review_start",
            files=["service.py"],
            reviewers=["sim:alpha,sim:beta", "sim:gamma"],
            fail_on="high",
        )
        statuses = await until_ended(session, started["id"], tool="review_status")
        result = await session.call_tool("review_result", {"id": started["id"]})
    assert statuses[-1]["status"] == "completed"
    assert not result.is_error, text(result)  # the review worked: its gate said no
    structured = result.structured_content
    (shell,) = [f for f in structured["findings"] if f["title"].startswith("Shell command")]
    assert shell["blocking"] is True
    assert structured["gate"] == {
        "fail_on": "high",
        "rules": MAJORITY_RULES,
        "blocking": [shell["id"]],
        "passed": False,
    }
    assert structured["exit_code"] == 6
    assert f"Gate: gate high (majority): FAILED ({shell['id']})" in text(result)
    assert "· exit code 6" in text(result)


@pytest.mark.anyio
async def test_a_running_review_has_no_result_and_cancel_stops_it_resumably(project):
    async with serving(project, **HUNG) as session:
        run_id = (await call(session, "review_start", files=["service.py"], sim=True))["id"]
        early = await session.call_tool("review_result", {"id": run_id})
        running = await call(session, "review_status", id=run_id)
        cancelled = await call(session, "review_cancel", id=run_id)
        result = await session.call_tool("review_result", {"id": run_id})
    assert early.is_error and f"{run_id} is still running (" in text(early)
    assert "follow it with review_status" in text(early)
    assert running["running"] is True and "call review_status again" in text_of(running)
    assert cancelled == {"id": run_id, "status": "interrupted", "stopped": True}
    assert result.is_error and result.structured_content["status"] == "interrupted"
    structured = result.structured_content
    assert structured["exit_code"] == 130 and structured["reviewed"] is False
    assert structured["findings_markdown"] == "" and structured["note"] in text(result)
    assert "do not review the code in council's place" in structured["note"]
    assert f"council resume {run_id}" in structured["note"]


def text_of(status: dict[str, Any]) -> str:
    return "\n".join([status["status_line"], *status["lines"]]) + (
        "\ncall review_status again" if status["running"] else ""
    )


@pytest.mark.anyio
async def test_status_and_cancel_take_any_runs_id_and_a_result_tool_only_its_own(project):
    """A run's status and cancel are the same for a debate and a review; a result is not (its
    schema is its protocol's): the other protocol's result tool is refused, naming the one."""
    async with serving(project) as session:
        review = (await call(session, "review_start", files=["service.py"], sim=True))["id"]
        debate = (await call(session, "debate_start", question=QUESTION, sim=True))["id"]
        await until_ended(session, review, tool="debate_status")
        ended = await session.call_tool("debate_status", {"id": review})
        await until_ended(session, debate, tool="review_status")
        wrong_review = await session.call_tool("debate_result", {"id": review})
        wrong_debate = await session.call_tool("review_result", {"id": debate})
        right = await call(session, "review_result", id=review)
        cancel = await session.call_tool("debate_cancel", {"id": review})
    assert ended.structured_content["status"] == "completed"
    assert text(ended).endswith("ended: call review_result for its result")
    assert wrong_review.is_error
    assert (
        text(wrong_review).split(": ", 1)[1]
        == f"{review} is a review, not a debate: get its result with review_result"
    )
    assert wrong_debate.is_error
    assert (
        text(wrong_debate).split(": ", 1)[1]
        == f"{debate} is a debate, not a review: get its result with debate_result"
    )
    assert right["status"] == "completed"
    assert cancel.is_error and "is not running (completed); nothing to cancel" in text(cancel)


@pytest.mark.anyio
async def test_bad_and_unknown_review_arguments_are_refused_as_the_command_line_does(project):
    async with serving(project) as session:
        nothing = await session.call_tool("review", {"sim": True})
        one = await session.call_tool(
            "review_start", {"files": ["service.py"], "reviewers": ["sim"]}
        )
        missing = await session.call_tool("review", {"files": ["nope.py"], "sim": True})
        fail_on = await session.call_tool("review", {"files": ["service.py"], "fail_on": "huge"})
        unknown = await session.call_tool(
            "review_start", {"files": ["service.py"], "sim": True, "format": "sarif", "with": "sim"}
        )
    # council's own checks, in the words `council review` prints.
    assert nothing.is_error
    assert text(nothing).endswith(
        ": nothing to review: give --diff REF (e.g. --diff main) or --files F ..."
    )
    assert one.is_error and "a review needs at least 2 reviewers, got 1 (sim)" in text(one)
    assert missing.is_error and "nope.py: no such file" in text(missing)
    # The schema's, before the tool runs.
    assert fail_on.is_error and "fail_on" in text(fail_on)
    assert unknown.is_error
    assert "review_start takes no argument 'format', 'with'; it takes files, " in text(unknown)
    assert project.records() == []  # nothing started


@pytest.mark.anyio
async def test_the_host_cancelling_a_review_call_cancels_the_review(project):
    ready = anyio.Event()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if message and "] ready " in message:
            ready.set()

    async with serving(project, **HUNG) as session:
        async with anyio.create_task_group() as calls:

            async def review() -> None:
                await session.call_tool(
                    "review", {"files": ["service.py"], "sim": True}, progress_callback=progress
                )

            calls.start_soon(review)
            with anyio.fail_after(LIMIT_S):
                await ready.wait()
            calls.cancel_scope.cancel()
        statuses = await until_ended(session, "last", tool="review_status")
    assert statuses[-1]["status"] == "interrupted"
