"""What a result tool returns for a run that has ended (`debate_result`, `review_result`, and
the blocking `debate` and `review` at their end), by the tools' protocol; and what it refuses:
a run still running, or another protocol's run (a result tool's output schema is its own
protocol's)."""

from __future__ import annotations

from collections.abc import Callable

from mcp.types import CallToolResult

from council.errors import UsageError
from council.mcp.checks import check_of
from council.mcp.findings import review_of
from council.mcp.outcome import outcome_of
from council.mcp.replies import reply, status_tool
from council.protocols import protocol_of
from council.runs.record import Record
from council.runs.store import read_state, seat_counts, status_line, summarize


def result_of(kind: str, record: Record) -> CallToolResult:
    """The result of `record` as the `kind` tools give it, or a `UsageError` saying why not."""
    refuse_other_kind(record, kind)
    refuse_running(record, kind)
    return ENDED_REPLIES[kind](record)


def debate_reply(record: Record) -> CallToolResult:
    outcome = outcome_of(record)
    return reply(outcome.text(), outcome.to_json(), error=not outcome.reached)


def review_reply(record: Record) -> CallToolResult:
    review = review_of(record)
    return reply(review.text(), review.to_json(), error=not review.reached)


def check_reply(record: Record) -> CallToolResult:
    check = check_of(record)
    return reply(check.text(), check.to_json(), error=not check.reached)


# What an ended run's result tool returns, by the tools' protocol (`debate_result`, ...).
ENDED_REPLIES: dict[str, Callable[[Record], CallToolResult]] = {
    "debate": debate_reply,
    "review": review_reply,
    "check": check_reply,
}


def refuse_other_kind(record: Record, kind: str) -> None:
    """A result tool gives one protocol's result (its output schema is that one's): another
    kind's id is refused, naming the tool that gives its result."""
    actual = protocol_of(record).kind
    if actual != kind:
        raise UsageError(
            f"{record.id} is a {actual}, not a {kind}: get its result with {actual}_result"
        )


def refuse_running(record: Record, kind: str) -> None:
    state = read_state(record)
    summary = summarize(record, state)
    if not summary.settled:
        raise UsageError(
            f"{record.id} is still running ({status_line(summary, seat_counts(record, state))}); "
            f"follow it with {status_tool(kind)} and ask again once it has ended"
        )
