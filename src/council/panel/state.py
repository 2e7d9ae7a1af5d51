"""`state.json`: what every run keeps, debate or review, to be reported on or resumed.

The lead saves it after every change. A call is stored once it has ended, under its stem
(`critic-r2`, `reviewer-codex-r1`): a resumed run reuses every stored reply whose status is
ok or late and runs everything else again. A protocol's state adds its own fields to these
and says its phases' order and its seats' order; the keys of `state.json` are the fields'
names, so a record written before this class existed loads the same.

A reply's text is not in `state.json`: the journal writes it to `<stem>-reply.md` in the
record and the call names that file (`reply_file`), so a save costs the same whatever the
replies hold. A record of an older council, whose calls hold their `text`, loads as it is.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Self

from council.context.fences import Fences
from council.panel.contribution import REUSABLE, Contribution
from council.runs.record import now_iso


@dataclass(kw_only=True)
class RunState:
    id: str
    question: str  # what `council list` shows: the question, or "review of git diff main"
    plan: dict[str, Any]
    status: str = "running"  # running | completed | degraded | failed | interrupted
    phase: str = "PARSE"
    round: int = 0
    started_at: str = field(default_factory=now_iso)
    finished_at: str | None = None
    duration_s: float = 0.0  # summed over runs (a resumed run adds its own)
    run_started_at: str | None = None  # when the latest process took the run over
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # stem -> Contribution
    order: list[str] = field(default_factory=list)  # call stems, as received (for the record)
    technical: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # seat -> how prompts name it
    context: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    rounds_run: int = 0
    # The run's nonce and canary (context/fences.py): kept, so a resumed run fences its
    # prompts and watches its replies with the same ones.
    fences: dict[str, str] = field(default_factory=lambda: Fences.new().to_json())
    exit_code: int | None = None
    error: str | None = None  # the message a run that failed or was interrupted ended with
    pid: int | None = None  # the council process of the latest run (see resume)
    schema: str = ""

    # Within a round, the order of the phases' calls in the record and in prompts.
    PHASE_ORDER: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        # Not fields: never in `state.json`. The replies' texts by stem, as stored or read,
        # and the record they are read from.
        self._replies: dict[str, str] = {}
        self._folder: Path | None = None

    def seat_order(self) -> list[str]:
        """The seats' names in plan order: ties within a phase are broken by it."""
        raise NotImplementedError

    def every_call(self) -> list[Contribution]:
        """Every call that has ended in run order (round, phase, then seat order), never in
        arrival order, so identical runs give identical prompts and records."""
        found = [c for c in (self.contribution(stem) for stem in self.order) if c is not None]
        phases, seats = self.PHASE_ORDER, self.seat_order()

        def place(c: Contribution) -> tuple[int, int, int]:
            phase = phases.index(c.phase) if c.phase in phases else len(phases)
            seat = seats.index(c.seat) if c.seat in seats else len(seats)
            return (c.round, phase, seat)

        return sorted(found, key=place)

    def contributions(self) -> list[Contribution]:
        """The seats' contributions in run order."""
        return self.every_call()

    def contribution(self, stem: str) -> Contribution | None:
        data = self.calls.get(stem)
        if data is None or "seat" not in data:
            return None
        values = {k: v for k, v in data.items() if k != REPLY_FILE}
        if "text" in values:  # an older council's record
            return Contribution(**values)
        text = self._reply(stem, data.get(REPLY_FILE))
        if text is None and values.get("status") in REUSABLE:
            # Its reply is lost (a damaged record): asked again on resume, never relayed empty.
            values.update(status="error", detail=f"{data.get(REPLY_FILE)}: the reply is missing")
        return Contribution(**values, text=text or "")

    def store(self, contribution: Contribution) -> None:
        """Keep an ended call; its text is written to `reply_file(stem)` by the journal."""
        data = asdict(contribution)
        self._replies[contribution.stem] = data.pop("text")
        data[REPLY_FILE] = reply_file(contribution.stem)
        self.calls[contribution.stem] = data
        if contribution.stem not in self.order:
            self.order.append(contribution.stem)

    def _reply(self, stem: str, name: str | None) -> str | None:
        if stem not in self._replies:
            if self._folder is None or not name or "/" in name:
                return None
            try:
                self._replies[stem] = (self._folder / name).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        return self._replies[stem]

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def to_json(self) -> dict[str, Any]:
        # Shallow: every field already holds plain JSON values (calls are stored as dicts),
        # and a deep copy of the whole run after every reply was most of a save's cost.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any], folder: Path | None = None) -> Self:
        """The state as `state.json` holds it; its replies are read from `folder`, the
        record's, when a call needs one."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        state = cls(**known)
        state._folder = folder
        return state

    def in_record(self, folder: Path) -> Self:
        """This state, its replies read from `folder` (a new run's record)."""
        self._folder = folder
        return self


REPLY_FILE = "reply_file"


def reply_file(stem: str) -> str:
    """The record's file of a call's reply, as the seats relay it."""
    return f"{stem}-reply.md"
