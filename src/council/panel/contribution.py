"""One seat call as a run keeps it: stored in `state.json` under its stem once it has ended,
quoted by later prompts, and reused by a resumed run when its status is ok or late."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from council.panel.messages import Reply
    from council.panel.seat import SeatPlan

REUSABLE = ("ok", "late")
SKIPPED = "skipped"  # never asked: the seat sat the phase out (its `reason` says why)


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
    # The model its CLI said served the call (None: not reported), and every one it named.
    served_model: str | None = None
    served_models: list[str] = field(default_factory=list)
    vote: str | None = None  # a last contribution's own `VOTE:` (agree | revise | disagree)
    vote_reason: str = ""
    reason: str | None = None  # why a `skipped` seat sat the phase out: `busy`
    # {suspect, evidence, reported} when the answer echoed the canary, forged a fence or
    # reported an injection (context/fences.py); None: nothing of the kind.
    injection: dict[str, Any] | None = None
    # `<record id>/<stem>`: the call was made by another run and copied into this one (a
    # check's answer as a debate's BLIND TAKE, `council debate --from`); this run asked
    # nothing for it. None: this run's own call.
    copied_from: str | None = None

    @property
    def answered(self) -> bool:
        return self.status in REUSABLE

    @property
    def skipped(self) -> bool:
        """The seat was never asked for this phase: no call was made."""
        return self.status == SKIPPED

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
            served_model=reply.served_model,
            served_models=list(reply.served_models),
            vote=reply.vote,
            vote_reason=reply.vote_reason,
            injection=reply.injection,
        )


USAGE_KEYS = ("input_tokens", "output_tokens", "cost_usd")


def total_usage(parts: Iterable[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The sum of what the CLIs reported; a figure none of them reported stays None, and
    None when no call reported anything (never an estimate)."""
    reported = [p for p in parts if p]
    if not reported:
        return None
    total: dict[str, Any] = {}
    for key in USAGE_KEYS:
        figures = [p[key] for p in reported if p.get(key) is not None]
        total[key] = round(sum(figures), 6) if figures else None
    return total


def run_usage(seats: Iterable[tuple[str, list[Mapping[str, Any] | None]]]) -> dict[str, Any] | None:
    """A run's total from each seat's calls (seat name, the usage of each call it made): the
    sum of what the CLIs reported, and the seats it leaves out. A seat is unreported when any
    call it made reported no token count (its CLI prints none, or the call was killed before
    it could): the total then is a floor, and `partial` says so. None when nothing reported."""
    per_seat = list(seats)
    total = total_usage(u for _, usages in per_seat for u in usages)
    if total is None:
        return None
    unreported = [
        name
        for name, usages in per_seat
        if any(u is None or u.get("input_tokens") is None for u in usages)
    ]
    return {**total, "partial": bool(unreported), "unreported_seats": unreported}


def served_by(calls: Iterable[Contribution]) -> list[str]:
    """The distinct models that served `calls` (each call's main one), first seen first."""
    return list(dict.fromkeys(c.served_model for c in calls if c.served_model))


def participant(seat: Mapping[str, Any]) -> str:
    """A seat as the participants line names it: its CLI, the model asked for and the models
    that served its calls as the CLI reported them (`critic (codex: gpt-5.2 served)`; both
    when they differ; "not reported" when the CLI named none, never the asked one)."""
    served = served_text(seat.get("model"), seat.get("served_models"))
    return f"{seat['name']} ({seat['cli']}: {served})"


def served_text(asked: str | None, served: list[str] | None) -> str:
    """`gpt-5.2 served`, `o3 asked, gpt-5.2 served`, or `o3 asked, served model not reported`."""
    if not served:
        return f"{asked} asked, served model not reported" if asked else "served model not reported"
    shown = " + ".join(served)
    if asked is None or [asked] == list(served):
        return f"{shown} served"
    return f"{asked} asked, {shown} served"
