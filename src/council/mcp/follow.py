"""Following a run from its record, for progress notifications: every new line of
`progress.log` (each phase change is one), and the status line when nothing was said for
`heartbeat_s`, so a host that times out silent tool calls keeps waiting.

The record is the only channel: the run is a detached process of its own, and this reads what
`council wait` reads (`runs.store`), with the same order (the summary before the lines, so the
lines written before the run ended are all read)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

from council.runs.record import Record
from council.runs.store import new_progress_lines, read_state, seat_counts, status_line, summarize

POLL_S = 0.25
# docs/spec/commands.md "council mcp": a notification at least every 15 s; the heartbeat is
# due a poll early, so a late poll still keeps the promise.
HEARTBEAT_S = 15.0 - 2 * POLL_S


class Follower:
    """What to tell the host about a run since the last `poll`. `clock` is injectable so the
    heartbeat is tested without waiting."""

    def __init__(
        self,
        record: Record,
        *,
        heartbeat_s: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.record = record
        self.heartbeat_s = heartbeat_s
        self.clock = clock
        self.cursor = 0  # progress lines already told
        self.last_told = clock()

    def poll(self) -> tuple[list[str], bool]:
        """The messages to send now, and whether the run still runs."""
        summary = summarize(self.record)
        lines = new_progress_lines(self.record, self.cursor)
        self.cursor += len(lines)
        now = self.clock()
        if lines:
            self.last_told = now
            return lines, not summary.settled
        if summary.running and now - self.last_told >= self.heartbeat_s:
            self.last_told = now
            counts = seat_counts(self.record, read_state(self.record))
            return [status_line(summary, counts)], True
        return [], not summary.settled


async def follow(
    record: Record,
    tell: Callable[[str], Awaitable[None]],
    *,
    poll_s: float = POLL_S,
    heartbeat_s: float = HEARTBEAT_S,
) -> None:
    """`tell` each message until the run ends."""
    follower = Follower(record, heartbeat_s=heartbeat_s)
    while True:
        # File reads only, but the transcript a heartbeat counts seats in can be long.
        messages, running = await anyio.to_thread.run_sync(follower.poll)
        for message in messages:
            await tell(message)
        if not running:
            return
        await anyio.sleep(poll_s)
