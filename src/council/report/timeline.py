"""When every call of a run (a debate or a review) ran, read back from its record: the calls
with their attempts (`state.json`), the phase boundaries and the other events
(`transcript.jsonl`), and the clock a timeline is drawn on.

Plain data only: `report/chart.py` turns it into shapes, the report template into SVG.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

PHASE_PREFIX = "phase "  # the body of the lead's note when it enters a phase (journal.enter)
# Nothing ran and nothing was written for this long: the run was not running at all (it
# died and was resumed later). The clock leaves such a gap out, or the bars of a run resumed
# the next day would be slivers at both ends of the axis.
IDLE_GAP_S = 60.0
_NICE_STEPS = (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600)


@dataclass(frozen=True)
class Attempt:
    """One start of a CLI: Unix start and end time, and how it ended."""

    start: float
    end: float
    status: str


@dataclass(frozen=True)
class CallTimes:
    """One call as a timeline needs it (a `Contribution` of `state.json`, the lead's too)."""

    stem: str
    seat: str
    phase: str
    round: int
    status: str  # the call's: a straggler's answer is `late` though its attempt says `ok`
    started_at: float
    attempts: tuple[Attempt, ...]
    soft_s: float | None
    hard_s: float | None

    @property
    def end(self) -> float:
        return max(a.end for a in self.attempts)

    @property
    def straggler(self) -> bool:
        """Late, timed out, or still running when its soft limit passed."""
        if self.status in ("late", "timeout"):
            return True
        return self.soft_s is not None and self.end - self.started_at > self.soft_s

    def limit_at(self, limit_s: float | None) -> float | None:
        """Unix time a limit falls at: both limits count from the call's start, not an
        attempt's (runner/outcome.py `Timeouts`)."""
        return None if limit_s is None else self.started_at + limit_s


@dataclass(frozen=True)
class PhaseStart:
    name: str
    round: int
    at: float  # Unix time


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def calls_from_state(state: dict[str, Any]) -> list[CallTimes]:
    """Every stored call that ran at least one attempt, in the order the lead received them.

    A call without a start time (a seat's worker lost, say) ran nothing that can be drawn.
    """
    calls = state.get("calls") or {}
    stems = [s for s in state.get("order") or [] if s in calls]
    stems += [s for s in calls if s not in stems]
    found = []
    for stem in stems:
        data = calls[stem]
        started = _number(data.get("started_at"))
        if started is None:
            continue
        attempts = []
        for span in data.get("spans") or []:
            offset, duration = _number(span[0]), _number(span[1])
            if offset is None or duration is None:
                continue
            start = started + offset
            attempts.append(Attempt(start, start + max(0.0, duration), str(span[2])))
        if not attempts:
            continue
        found.append(
            CallTimes(
                stem=stem,
                seat=str(data.get("seat", "?")),
                phase=str(data.get("phase", "")),
                round=int(data.get("round") or 0),
                status=str(data.get("status", "")),
                started_at=started,
                attempts=tuple(attempts),
                soft_s=_number(data.get("soft_s")),
                hard_s=_number(data.get("hard_s")),
            )
        )
    return found


def _time_of(entry: dict[str, Any]) -> float | None:
    try:
        return datetime.fromisoformat(str(entry["ts"])).timestamp()
    except (KeyError, ValueError):
        return None


def phases_from_transcript(transcript: Iterable[dict[str, Any]]) -> list[PhaseStart]:
    """The lead's `phase NAME` notes: each is the moment the run entered a phase."""
    found = []
    for entry in transcript:
        body = str(entry.get("body", ""))
        if entry.get("kind") != "system" or not body.startswith(PHASE_PREFIX):
            continue
        at = _time_of(entry)
        if at is not None:
            found.append(PhaseStart(body[len(PHASE_PREFIX) :].strip(), entry.get("round") or 0, at))
    return found


def activity_from_transcript(transcript: Iterable[dict[str, Any]]) -> list[float]:
    """When anything at all happened on the bus: a run that writes is a run that runs."""
    return [t for t in map(_time_of, transcript) if t is not None]


@dataclass(frozen=True)
class Clock:
    """Run time: seconds from the first event, idle gaps between runs left out."""

    origin: float
    cuts: tuple[tuple[float, float], ...]  # Unix [from, to) intervals left out
    length: float  # run seconds from the origin to the last event

    @classmethod
    def over(
        cls, spans: Iterable[tuple[float, float]], idle_gap_s: float = IDLE_GAP_S
    ) -> Clock | None:
        """The clock for these busy intervals (an instant is an interval of no length), or
        None when there are none."""
        ordered = sorted(spans)
        if not ordered:
            return None
        cuts = []
        busy_until = ordered[0][1]
        for start, end in ordered[1:]:
            if start - busy_until > idle_gap_s:
                cuts.append((busy_until, start))
            busy_until = max(busy_until, end)
        origin = ordered[0][0]
        clock = cls(origin, tuple(cuts), 0.0)
        return cls(origin, clock.cuts, clock.at(busy_until))

    def at(self, t: float) -> float:
        skipped = sum(min(max(t - start, 0.0), end - start) for start, end in self.cuts)
        return t - self.origin - skipped


def tick_step(length: float, most: int = 10) -> float:
    """A round step that puts at most `most` ticks on an axis of `length` seconds."""
    for step in _NICE_STEPS:
        if length / step <= most:
            return step
    return math.ceil(length / most / 3600) * 3600.0


def seconds_label(value: float) -> str:
    return f"{round(value, 2):g}s"
