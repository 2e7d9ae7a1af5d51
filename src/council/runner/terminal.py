"""One attempt of a CLI that needs a terminal, run under a pseudo-terminal with pexpect.

pexpect is blocking, so the read loop runs in a worker thread that watches a stop flag and the
deadline; the async side owns killing the tree, as for piped runs. The screen is scanned for
known interactive prompts (log in, trust this folder): a headless call can never answer them,
so the attempt ends at once instead of waiting for the hard timeout. Output and errors share
the terminal, so everything goes to the response file.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path

import anyio
import pexpect

from council.runner import reaper
from council.runner.attempt import AttemptResult
from council.runner.confine import Confinement, start_confined
from council.runner.proctree import ProcessTree
from council.runner.sink import CappedSink

_SCREEN_TAIL = 4096


class _TerminalRun:
    def __init__(
        self, prompts: Sequence[re.Pattern[str]], confinement: Confinement | None = None
    ) -> None:
        self.prompts = prompts
        self.confinement = confinement
        self.stop = threading.Event()
        self.child: pexpect.spawn | None = None
        self.timed_out = False
        self.interactive: str | None = None

    def run(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        stdin: bytes | None,
        remaining_s: float,
        out: CappedSink,
    ) -> None:
        deadline = time.monotonic() + remaining_s
        with reaper.spawning():
            child = start_confined(
                lambda: pexpect.spawn(
                    argv[0],
                    list(argv[1:]),
                    cwd=str(cwd),
                    env=dict(env),
                    echo=False,
                    dimensions=(50, 200),
                ),
                self.confinement,
            )
            reaper.note_spawned(child.pid)
        self.child = child
        if stdin is not None:
            for line in stdin.splitlines(keepends=True):
                child.send(line)
            child.sendeof()
        screen = ""
        while not self.stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return
            try:
                chunk = child.read_nonblocking(65536, timeout=min(0.1, left))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return
            out.write(chunk)
            screen = (screen + chunk.decode("utf-8", errors="replace"))[-_SCREEN_TAIL:]
            for pattern in self.prompts:
                match = pattern.search(screen)
                if match:
                    line_start = screen.rfind("\n", 0, match.start()) + 1
                    line_end = screen.find("\n", match.end())
                    self.interactive = screen[line_start : line_end if line_end >= 0 else None]
                    return


async def run_in_terminal(
    argv: Sequence[str],
    *,
    stdin: bytes | None,
    env: Mapping[str, str],
    cwd: Path,
    deadline: float,
    out: CappedSink,
    grace_s: float,
    call_id: str,
    prompts: Sequence[re.Pattern[str]],
    confinement: Confinement | None = None,
) -> AttemptResult:
    started = anyio.current_time()
    wall_start = time.time()
    with reaper.window(call_id, wall_start):
        return await _run(
            argv,
            stdin,
            env,
            cwd,
            deadline,
            out,
            grace_s,
            call_id,
            prompts,
            confinement,
            started,
            wall_start,
        )


async def _run(
    argv: Sequence[str],
    stdin: bytes | None,
    env: Mapping[str, str],
    cwd: Path,
    deadline: float,
    out: CappedSink,
    grace_s: float,
    call_id: str,
    prompts: Sequence[re.Pattern[str]],
    confinement: Confinement | None,
    started: float,
    wall_start: float,
) -> AttemptResult:
    run = _TerminalRun(prompts, confinement)
    result = AttemptResult(None)
    try:
        await anyio.to_thread.run_sync(
            run.run,
            argv,
            env,
            cwd,
            stdin,
            max(0.0, deadline - started),
            out,
            abandon_on_cancel=True,
        )
    except pexpect.ExceptionPexpect as exc:
        return AttemptResult(None, spawn_error=f"cannot start {argv[0]}: {exc}")
    finally:
        run.stop.set()
        with anyio.CancelScope(shield=True):
            child = run.child
            if child is not None:
                tree = ProcessTree(child.pid, call_id, wall_start)
                result.killed = await tree.kill(grace_s)
                with suppress(Exception):
                    await anyio.to_thread.run_sync(child.close, True)
                reaper.note_reaped(child.pid)
    assert run.child is not None
    result.timed_out = run.timed_out
    result.interactive_prompt = run.interactive
    status = run.child.exitstatus
    result.exit_code = (
        status
        if status is not None
        else (-run.child.signalstatus if run.child.signalstatus else None)
    )
    result.duration_s = anyio.current_time() - started
    return result
