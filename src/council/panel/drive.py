"""Running a protocol's lead under signal handling (docs/spec/protocol.md section 6).

Ctrl-C or SIGTERM cancels the lead: every seat's process tree is killed (the runner does that
in shielded scopes) and the caller marks its state `interrupted`. A `CouncilError` raised
inside the lead's task groups is unwrapped here, at the lead's boundary; anything else is a bug
and propagates.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from council.errors import CouncilError
from council.progress import Progress


@dataclass
class Driven:
    error: CouncilError | None = None
    interrupted: bool = False


def drive(
    protocol: Callable[[], Awaitable[None]], progress: Progress, traceback_to: Path | None = None
) -> Driven:
    """Run `protocol` to its end, or until SIGINT or SIGTERM; redraw the live view meanwhile.
    A bug's traceback is kept in `traceback_to` (the record's `council.err`)."""
    driven = Driven()

    async def main() -> None:
        try:
            async with anyio.create_task_group() as tg:

                async def on_signal() -> None:
                    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                        async for _ in signals:
                            driven.interrupted = True
                            tg.cancel_scope.cancel()
                            return

                async def live_view() -> None:
                    while progress.live:
                        await anyio.sleep(1)
                        progress.tick()

                tg.start_soon(on_signal)
                tg.start_soon(live_view)
                try:
                    await protocol()
                finally:
                    tg.cancel_scope.cancel()
        except BaseException as exc:  # unwrapped here, at the lead's boundary
            driven.error = council_error(exc)
            if driven.error is None:
                if traceback_to is not None:
                    keep_traceback(exc, traceback_to)
                raise

    try:
        anyio.run(main)
    except KeyboardInterrupt:  # a second Ctrl-C during the cleanup
        driven.interrupted = True
    return driven


def keep_traceback(exc: BaseException, path: Path) -> None:
    """A bug: its traceback goes into the record, and the exception says where (the command
    line's edge tells the user, and asks for a report)."""
    import traceback

    try:
        path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        return
    exc.council_traceback = str(path)  # type: ignore[attr-defined]


def council_error(exc: BaseException) -> CouncilError | None:
    """The CouncilError inside an exception group (anyio wraps what a task group raises)."""
    if isinstance(exc, CouncilError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = council_error(inner)
            if found is not None:
                return found
    return None
