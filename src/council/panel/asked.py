"""What the lead's dispatch holds for each ask of a seat (panel/dispatch.py): the order as the
protocol worded it, the ask in flight (`Pending`), and a seat that cannot take it yet, still
answering its earlier ask (`Busy`) or not yet READY (`Unready`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from council.panel.contribution import Contribution
from council.panel.seat import SeatPlan

# A seat worker answers every ACTION by its hard limit; past this margin it is presumed dead.
WORKER_MARGIN_S = 30.0


@dataclass
class Pending:
    seat: SeatPlan
    stem: str
    phase: str
    round: int
    sent_at: float
    soft_s: float
    hard_s: float

    @property
    def lost_at(self) -> float:
        """When a worker that has not answered is presumed dead."""
        return self.sent_at + self.hard_s + WORKER_MARGIN_S


@dataclass(frozen=True)
class Order:
    """One ask of one seat for one phase, as the protocol worded it (rendered when sent)."""

    seat: SeatPlan
    phase: str
    round: int
    template: str
    limit: int
    stem: str
    vote: bool
    whole: bool
    values: Mapping[str, Any]


@dataclass
class Held:
    """An order not sent yet, held until its seat can take it."""

    order: Order

    @property
    def seat(self) -> SeatPlan:
        return self.order.seat

    @property
    def stem(self) -> str:
        return self.order.stem


@dataclass
class Busy(Held):
    """A seat asked for a phase while its earlier ask is still in flight: `gather` sends the
    order once the seat is free, if the phase is still collecting then."""

    earlier: Pending
    # What the protocol does with the late answer that freed the seat, before it is asked;
    # False: it is not asked after all (a review's late review that could not be read).
    once_free: Callable[[Contribution], Awaitable[bool]] | None = None


@dataclass
class Unready(Held):
    """A seat asked before it reported READY: its order is sent as soon as it does."""

    sent: Pending | None = None


Asked = Pending | Contribution | Busy | Unready
BUSY = "busy"  # the reason a seat sat a phase out: still answering its earlier ask
# ... or: its answer would have come too late to be of use (a blind take once the PROPOSAL is
# in: not READY by then, or still answering then and cancelled)
LATE = "late"
