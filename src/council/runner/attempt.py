"""One attempt: start a CLI with pipes, stream its output to disk, stop it at the deadline.

The CLI starts in a new session with stdin fed and then closed (or /dev/null), so a CLI that
reads stdin to EOF (codex, pi) never waits on us. When the direct child exits, or the deadline
passes, or the caller is cancelled, the whole tree is killed and reaped inside a shielded
scope: a grandchild holding stdout open cannot keep the call alive, and none is left behind.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from council.runner.proctree import ProcessTree
from council.runner.sink import CappedSink

# After the tree is dead the pipes reach EOF at once; this only bounds a pathological case.
_DRAIN_S = 5.0


@dataclass
class AttemptResult:
    exit_code: int | None
    timed_out: bool = False
    killed: bool = False  # something of the call's tree was still running and was killed
    spawn_error: str | None = None
    interactive_prompt: str | None = None  # terminal runs only: the prompt it stopped at
    duration_s: float = 0.0


async def run_piped(
    argv: Sequence[str],
    *,
    stdin: bytes | None,
    env: Mapping[str, str],
    cwd: Path,
    deadline: float,
    out: CappedSink,
    err: CappedSink,
    grace_s: float,
    call_id: str,
) -> AttemptResult:
    started = anyio.current_time()
    wall_start = time.time()
    try:
        proc = await anyio.open_process(
            list(argv),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        return AttemptResult(None, spawn_error=f"cannot start {argv[0]}: {exc.strerror or exc}")

    tree = ProcessTree(proc.pid, call_id, wall_start)
    result = AttemptResult(None)
    swept = False
    try:
        async with anyio.create_task_group() as tg:
            drained = [anyio.Event(), anyio.Event()]
            assert proc.stdout is not None and proc.stderr is not None
            tg.start_soon(_pump, proc.stdout, out, drained[0])
            tg.start_soon(_pump, proc.stderr, err, drained[1])
            if stdin is not None and proc.stdin is not None:
                tg.start_soon(_feed, proc.stdin, stdin)
            with anyio.move_on_at(deadline):
                await proc.wait()
            result.timed_out = proc.returncode is None
            result.killed = await tree.kill(grace_s)
            swept = True
            with anyio.move_on_after(_DRAIN_S):
                for event in drained:
                    await event.wait()
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if not swept:  # cancelled or failed before the sweep above
                result.killed = await tree.kill(grace_s) or result.killed
            # Closes the pipe transports too (a pipe still held by a process we could not
            # find would otherwise keep asyncio's transport open) and reaps the child.
            await proc.aclose()
    result.exit_code = proc.returncode
    result.duration_s = anyio.current_time() - started
    return result


async def _pump(stream: ByteReceiveStream, sink: CappedSink, done: anyio.Event) -> None:
    try:
        async for chunk in stream:
            sink.write(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        done.set()


async def _feed(stream: ByteSendStream, data: bytes) -> None:
    # A CLI that exits (or is killed) without reading all of its stdin breaks the pipe: fine.
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.send(data)
    with suppress(Exception):
        await stream.aclose()
