"""`state.json`: everything needed to report on a debate or resume it.

The lead saves it after every change. A call is stored once it has ended, under its stem
(`critic-r2`): a resumed debate reuses every stored reply whose status is ok or late and runs
everything else again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from council.debate.messages import Reply
    from council.debate.plan import SeatPlan

SCHEMA = "council.state/v1"
REUSABLE = ("ok", "late")
# Within a round: the advocate's turn before the challengers' when both speak (FINAL_SUMMARY
# beside REBUTTAL), the lead's own calls last.
PHASE_ORDER = (
    "PROPOSAL",
    "BLIND_TAKE",
    "CHALLENGE",
    "RESPOND",
    "CONVERGENCE",
    "FINAL_SUMMARY",
    "REBUTTAL",
    "DECISION",
    "REPAIR",
)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Contribution:
    """One seat call as the debate relays it."""

    stem: str
    seat: str
    role: str
    phase: str
    round: int
    status: str
    text: str
    cli: str
    model: str | None = None
    words: int = 0
    truncated: bool = False
    original_words: int = 0
    latency_s: float = 0.0
    attempts: int = 0
    exit_code: int | None = None
    stderr_tail: str = ""
    detail: str = ""
    prompt_file: str = ""
    response_file: str = ""
    # For a timeline: Unix start time, per attempt [start after it, duration, status], limits.
    started_at: float | None = None
    spans: list[list[Any]] = field(default_factory=list)
    soft_s: float | None = None
    hard_s: float | None = None
    usage: dict[str, Any] | None = None  # what the CLI reported: tokens in and out, cost
    vote: str | None = None  # a last contribution's own `VOTE:` (agree | revise | disagree)
    vote_reason: str = ""

    @property
    def answered(self) -> bool:
        return self.status in REUSABLE

    @property
    def shown(self) -> str:
        """What other seats' prompts quote: the answer, or only that there was none (a failure
        notice names a seat's CLI, which no other seat may learn)."""
        return self.text if self.answered else f"(no answer: {self.status})"

    @classmethod
    def of(
        cls, reply: Reply, seat: SeatPlan, phase: str, round_no: int, status: str
    ) -> Contribution:
        """A seat's (or the lead's) finished call as the record keeps it."""
        return cls(
            stem=reply.stem,
            seat=seat.name,
            role=seat.role,
            phase=phase,
            round=round_no,
            status=status,
            text=reply.text,
            cli=reply.cli,
            model=reply.model,
            words=reply.words,
            truncated=reply.truncated,
            original_words=reply.original_words,
            latency_s=reply.latency_s,
            attempts=reply.attempts,
            exit_code=reply.exit_code,
            stderr_tail=reply.stderr_tail,
            detail=reply.detail,
            prompt_file=reply.prompt_file,
            response_file=reply.response_file,
            started_at=reply.started_at,
            spans=[list(span) for span in reply.spans],
            soft_s=reply.soft_s,
            hard_s=reply.hard_s,
            usage=reply.usage,
            vote=reply.vote,
            vote_reason=reply.vote_reason,
        )


@dataclass
class DebateState:
    id: str
    question: str
    plan: dict[str, Any]
    status: str = "running"  # running | completed | degraded | failed | interrupted
    phase: str = "PARSE"
    round: int = 0
    started_at: str = field(default_factory=now_iso)
    finished_at: str | None = None
    duration_s: float = 0.0  # summed over runs (a resumed debate adds its own)
    run_started_at: str | None = None  # when the latest process took the debate over
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # stem -> Contribution
    order: list[str] = field(default_factory=list)  # call stems, as received (for the record)
    technical: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # seat -> how prompts name it
    context: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    rounds_run: int = 0
    stopped_early: bool = False
    unchallenged: bool = False
    decision: dict[str, Any] | None = None
    decision_prompt_file: str | None = None
    exit_code: int | None = None
    error: str | None = None  # the message a run that failed or was interrupted ended with
    pid: int | None = None  # the council process of the latest run (see resume)
    schema: str = SCHEMA

    def to_json(self) -> dict[str, Any]:
        # Shallow: every field already holds plain JSON values (calls are stored as dicts),
        # and a deep copy of the whole debate after every reply was most of a save's cost.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DebateState:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def contribution(self, stem: str) -> Contribution | None:
        data = self.calls.get(stem)
        return Contribution(**data) if data is not None and "seat" in data else None

    def contributions(self) -> list[Contribution]:
        """The seats' contributions in debate order (round, phase, then seat order: advocate,
        critic, proxies as configured), never in arrival order, so identical runs give
        identical prompts and records. The lead's own calls are not among them."""
        return [c for c in self.every_call() if c.role != "lead"]

    def every_call(self) -> list[Contribution]:
        """Every call that has ended, the lead's own included, in debate order."""
        found = [c for c in (self.contribution(stem) for stem in self.order) if c is not None]
        seats = [self.plan["advocate"]["name"], self.plan["critic"]["name"]]
        seats += [p["name"] for p in self.plan["proxies"]]

        def place(c: Contribution) -> tuple[int, int, int]:
            phase = PHASE_ORDER.index(c.phase) if c.phase in PHASE_ORDER else len(PHASE_ORDER)
            seat = seats.index(c.seat) if c.seat in seats else len(seats)
            return (c.round, phase, seat)

        return sorted(found, key=place)

    def store(self, contribution: Contribution) -> None:
        self.calls[contribution.stem] = asdict(contribution)
        if contribution.stem not in self.order:
            self.order.append(contribution.stem)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)
