"""What the `debate` and `debate_result` tools return once a run has ended: the DECISION
Markdown without the debate record (the host reads the whole transcript in the record if it
needs it; a tool result that long would crowd the host model's context), every seat's status,
the run's status and exit code, and the record's path. Mirrors `council wait`. A review's is
`council.mcp.findings`; both read an ended run with `ended_run`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.debate.protocol import DEBATE
from council.debate.result import render_markdown
from council.panel.protocol import ENDED, RunProtocol, load_result
from council.runs.record import Record
from council.runs.store import RunSummary, read_state, settled_state, summarize

RECORD_HEADING = "\n## Debate record"
SEAT_OK = ("ok", "ready")  # a seat's status in the result: anything else is a failure


@dataclass(frozen=True)
class Ended:
    """What every protocol's result tool tells of a run that has ended."""

    id: str
    status: str  # completed | degraded | failed | interrupted
    exit_code: int
    record: str  # as a user would type it: relative to the project when inside it
    error: str | None

    @property
    def reached(self) -> bool:
        """The run reached its result (a DECISION, the findings)."""
        return self.status in ENDED

    def framed(self, result: str, note: str, above: list[str], files: str) -> str:
        """The text: the result (or, without one, the `note`), then a footer of the lines
        `above` the run's status and record."""
        footer = [
            *([f"council: {self.error}"] if self.error else []),
            *above,
            f"Status: {self.status} · exit code {self.exit_code}",
            f"Record: {self.record} ({files})",
        ]
        if self.reached:
            return result.rstrip() + "\n\n---\n" + "\n".join(footer) + "\n"
        return note + "\n\n" + "\n".join(footer) + "\n"

    def missing(self, what: str, instead: str) -> str:
        """What the host's model is to tell the user of a run that reached no `what`."""
        ended = "was interrupted" if self.status == "interrupted" else self.status
        return (
            f"No {what}: the run {ended}. Report this to the user as it is; do not {instead} "
            f"in council's place. It can go on with: council resume {self.id}"
        )

    def facts(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "exit_code": self.exit_code,
            "record": self.record,
            "error": self.error,
        }


def seats_text(seats: tuple[dict[str, str], ...], ok: tuple[str, ...] = SEAT_OK) -> str:
    return " · ".join(
        f"{s['name']} ({s['cli']}) " + ("ok" if s["status"] in ok else f"FAILED: {s['status']}")
        for s in seats
    )


@dataclass(frozen=True)
class Outcome(Ended):
    decision: str  # the DECISION Markdown (or the caller's decision prompt); "" without one
    seats: tuple[dict[str, str], ...]

    def text(self) -> str:
        files = "transcript.jsonl, decision.md, result.json"
        return self.framed(self.decision, self.note(), [f"Seats: {seats_text(self.seats)}"], files)

    def note(self) -> str:
        return self.missing("DECISION", "answer the question")

    def to_json(self) -> dict[str, Any]:
        return {
            **self.facts(),
            "decision_reached": self.reached,
            "decision_markdown": self.decision if self.reached else "",
            "note": None if self.reached else self.note(),
            "seats": [dict(s) for s in self.seats],
        }


def ended_run(
    protocol: RunProtocol, record: Record
) -> tuple[dict[str, Any], RunSummary, dict[str, Any]]:
    """The state, summary and result of a run that has ended (the caller checks that it has),
    a run whose process died read as interrupted."""
    state = settled_state(record, read_state(record))
    return state, summarize(record, state), load_result(protocol, record, state)


def ended_facts(
    record: Record, state: dict[str, Any], summary: RunSummary, cwd: Path | None
) -> dict[str, Any]:
    """The fields of `Ended` for a run that has ended, from its state and summary."""
    return {
        "id": record.id,
        "status": summary.status,
        "exit_code": int(state.get("exit_code") or 0),
        "record": record.display(cwd),
        "error": state.get("error"),
    }


def outcome_of(record: Record, cwd: Path | None = None) -> Outcome:
    """The outcome of a debate that has ended."""
    state, summary, result = ended_run(DEBATE, record)
    seats = tuple(
        {"name": s["name"], "role": s["role"], "cli": s["cli"], "status": s["status"]}
        for s in result["seats"]
    )
    markdown = render_markdown(result).split(RECORD_HEADING, 1)[0]
    return Outcome(
        id=record.id,
        status=summary.status,
        exit_code=int(state.get("exit_code") or 0),
        record=record.display(cwd),
        error=state.get("error"),
        decision=markdown if summary.status in ENDED else "",
        seats=seats,
    )
