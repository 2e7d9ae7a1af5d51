"""What the tools return: text for the host model to read, and the same facts as structured
content for a program, with an output schema (the models here) the client can check."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel


class Seat(BaseModel):
    name: str
    role: str
    cli: str
    status: str  # ok, or how it failed: dropped, timeout, empty, error, auth, rate_limited


class RunOutcome(BaseModel):
    id: str
    status: str  # completed | degraded | failed | interrupted
    exit_code: int
    record: str
    error: str | None
    decision_reached: bool
    # The DECISION itself: Claude Code and Codex hand their model only the structured content
    # when a tool returns it, so the DECISION must be in it, not only in the text.
    decision_markdown: str  # "" when no DECISION was reached
    note: str | None  # what to tell the user when no DECISION was reached
    seats: list[Seat]


class Gate(BaseModel):
    fail_on: str | None  # the severity that blocks; None: no gate
    rules: dict[str, str] = {}  # the gate rule by severity: majority | any | unanimous
    blocking: list[str]  # the ids of the findings that block
    passed: bool


class Reviewer(BaseModel):
    name: str
    cli: str
    status: str  # ok, failed, dropped (pending while it runs)
    review: str  # ok | failed | pending | skipped
    cross_check: str  # ok | failed | pending | skipped


class ReviewOutcome(BaseModel):
    id: str
    status: str  # completed | degraded | failed | interrupted
    exit_code: int  # 6: the gate failed
    record: str
    error: str | None
    reviewed: bool  # the review reached its findings (completed or degraded)
    # The findings as review.md gives them: in the structured content too, as a debate's
    # DECISION is, for the hosts that hand their model only that.
    findings_markdown: str  # "" when the review reached no findings
    findings: list[dict[str, Any]]  # as result.json has them (schema council.review/v1)
    counts: dict[str, int]  # findings by severity, those out of scope aside
    gate: Gate
    note: str | None  # what to tell the user when the review reached no findings
    reviewers: list[Reviewer]


class Position(BaseModel):
    stance: str  # the option its holders named, or the first holder's stance as written
    option: bool  # one of the check's options
    seats: list[str]  # who holds it, in seat order
    labels: list[str]  # the same seats by their labels (`Seat A (critic)`)
    count: int


class CheckAnswer(BaseModel):
    seat: str
    role: str
    label: str
    cli: str
    status: str  # ok, late, or how it failed
    stance: str | None  # its POSITION line; None: none
    text: str


class CheckOutcome(BaseModel):
    id: str
    status: str  # completed | degraded | failed | interrupted
    exit_code: int  # 8: split, 9: insufficient
    record: str
    error: str | None
    checked: bool  # the check ended with its answers grouped (completed or degraded)
    agreement: str | None  # unanimous | majority | split | insufficient; None: not checked
    needs_human: bool
    positions: list[Position]
    answers: list[CheckAnswer]
    markdown: str  # check.md, for the hosts that hand their model only structured content
    note: str | None  # what to tell the user when the check did not end


class Started(BaseModel):
    id: str
    record: str


class SeatCounts(BaseModel):
    ok: int
    failed: int
    waiting: int


class RunStatus(BaseModel):
    id: str
    status: str  # running | completed | degraded | failed | interrupted
    running: bool
    phase: str
    round: int
    rounds: int
    seats: SeatCounts
    status_line: str
    lines: list[str]  # the progress lines since the last call (or since `since`)
    since: int  # pass it back as `since` to get the lines after these


class Cancelled(BaseModel):
    id: str
    status: str
    stopped: bool  # False: the run's process is still stopping


def status_tool(kind: str) -> str:
    """The status tool to name for a run of `kind`: a check's is the debate's (any run's)."""
    return "debate_status" if kind == "check" else f"{kind}_status"


def reply(
    text: str, structured: BaseModel | dict[str, Any], *, error: bool = False
) -> CallToolResult:
    if isinstance(structured, BaseModel):
        structured = structured.model_dump(mode="json")
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured, is_error=error
    )
