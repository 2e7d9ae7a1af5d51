"""Asks that are of no use any more (docs/spec/protocol.md section 3, "READY handshake"): a
BLIND TAKE exists to get a challenger's view before it has seen the PROPOSAL, so once the
PROPOSAL is in, the blind takes get a short grace: a seat READY within it is asked then, and
what is not in at its end is cut: a seat not READY yet is never asked, one still running is
cancelled. Both are recorded as `skipped` with the reason `late`, so a view that would come
after the proposal costs the debate no wall time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from council.panel.asked import LATE, Asked, Pending, Unready
from council.panel.bus import CANCEL_PREFIX, Kind, Message
from council.panel.messages import LEAD

if TYPE_CHECKING:
    from council.panel.dispatch import Dispatch


async def cut_short(dispatch: Dispatch, asked: list[Asked], *, why: str, grace_s: float) -> None:
    """See `Dispatch.cut_short`."""
    pending: dict[str, Pending] = {}
    # The grace is the same for a seat still starting: READY within it, it is asked then (its
    # order goes out on READY) and its answer is waited for until the same deadline.
    waiting = [ask for ask in asked if isinstance(ask, Unready)]
    pending = {ask.stem: ask for ask in asked if isinstance(ask, Pending)}
    deadline = anyio.current_time() + grace_s
    while True:
        for ask in [a for a in waiting if a.sent is not None]:  # READY: its order went out
            waiting.remove(ask)
            pending[ask.sent.stem] = ask.sent
        for stem in [s for s in pending if s in dispatch.arrived]:
            pending.pop(stem)
            dispatch.arrived.pop(stem)
        now = anyio.current_time()
        if not (pending or waiting) or now >= deadline:
            break
        message = await dispatch.roster.receive(deadline - now)
        if message is not None:
            dispatch.absorb(message)
    for ask in waiting:
        if dispatch.unready.pop(ask.seat.name, None) is not None:
            # Recorded once it is READY: a seat dropped at READY never sat anything out.
            dispatch.withdrawn[ask.seat.name] = (ask.order, f"not READY {grace_s:g}s after {why}")
    for stem, late in pending.items():
        if dispatch.in_flight.get(late.seat.name) is late:
            del dispatch.in_flight[late.seat.name]  # the seat is free for its next ACTION
        dispatch.cut.add(stem)
        await dispatch.journal.bus.send(
            Message(
                Kind.DM,
                LEAD,
                late.seat.name,
                f"{CANCEL_PREFIX}{stem}",
                round=late.round,
                phase=late.phase,
                meta={"stem": stem},
            )
        )
        detail = f"still answering when {why}: cancelled after {grace_s:g}s"
        await dispatch.sit_out(late.seat, late.phase, late.round, stem, LATE, detail)
