"""One attempt: start a CLI with pipes, stream its output to disk, stop it at the deadline.

The CLI starts in a new session with stdin fed and then closed (or /dev/null), so a CLI that
reads stdin to EOF (codex, pi) never waits on us. When the direct child exits, or the deadline
passes, or the caller is cancelled, the whole tree is killed and reaped inside a shielded
scope: a grandchild holding stdout open cannot keep the call alive, and none is left behind.

The child is started in a worker thread, not on the event loop: `Popen` returns only once the
child has exec'd (vfork), and on a busy machine that is a wait for a free CPU. Sixteen seats
asked at once then start side by side instead of one after another (measured with
scripts/bench.py: the spawns of a 16-proxy phase took ~130 ms in a row, ~50 ms in threads).
The pipes and the child's exit are then watched by the event loop (non-blocking fds, a pidfd).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import anyio

from council.errors import OutOfDescriptors, out_of_descriptors
from council.runner import reaper
from council.runner.confine import Confinement, start_confined
from council.runner.proctree import tree_of_new_child
from council.runner.sink import CappedSink

# After the tree is dead the pipes reach EOF at once; this only bounds a pathological case.
_DRAIN_S = 5.0
_CHUNK = 64 * 1024
_EXIT_POLL_S = 0.05  # only where there is no pidfd (not Linux)


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
    confinement: Confinement | None = None,
) -> AttemptResult:
    started = anyio.current_time()
    wall_start = time.time()
    popen = partial(
        subprocess.Popen,
        list(argv),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )

    def spawn() -> subprocess.Popen[bytes]:
        with reaper.spawning():
            child = start_confined(popen, confinement)
            reaper.note_spawned(child.pid)
            return child

    with reaper.window(call_id, wall_start):
        return await _run(
            argv,
            spawn,
            stdin=stdin,
            deadline=deadline,
            out=out,
            err=err,
            grace_s=grace_s,
            call_id=call_id,
            wall_start=wall_start,
            started=started,
        )


async def _run(
    argv: Sequence[str],
    spawn: Callable[[], subprocess.Popen[bytes]],
    *,
    stdin: bytes | None,
    deadline: float,
    out: CappedSink,
    err: CappedSink,
    grace_s: float,
    call_id: str,
    wall_start: float,
    started: float,
) -> AttemptResult:
    try:
        # Shielded: a cancellation must not lose a child that has just started; the finally
        # below kills it.
        with anyio.CancelScope(shield=True):
            proc = await anyio.to_thread.run_sync(spawn)
    except OSError as exc:
        if out_of_descriptors(exc):
            raise OutOfDescriptors(argv[0], exc) from None
        return AttemptResult(None, spawn_error=f"cannot start {argv[0]}: {exc.strerror or exc}")

    try:
        tree = tree_of_new_child(proc, call_id, wall_start, argv[0])
    except (OutOfDescriptors, OSError):  # its session killed, its pipes closed: reap, stop
        with anyio.CancelScope(shield=True):
            await _reap(proc)
        reaper.note_reaped(proc.pid)
        raise
    pipes = _Pipes(proc)
    result = AttemptResult(None)
    swept = False
    try:
        async with anyio.create_task_group() as tg:
            drained = [anyio.Event(), anyio.Event()]
            tg.start_soon(_pump, pipes.stdout, out, drained[0])
            tg.start_soon(_pump, pipes.stderr, err, drained[1])
            if stdin is not None:
                tg.start_soon(_feed, pipes, stdin)
            with anyio.move_on_at(deadline):
                await _wait_exit(proc, pipes)
            result.timed_out = proc.poll() is None
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
            # Closes our ends of the pipes (one still held by a process we could not find
            # would otherwise stay open) and reaps the child.
            pipes.close()
            await _reap(proc)
            reaper.note_reaped(proc.pid)
    result.exit_code = proc.returncode
    result.duration_s = anyio.current_time() - started
    return result


class _Pipes:
    """Our ends of the child's pipes as non-blocking fds, and a pidfd for its exit."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self._stdin_file = proc.stdin
        self._files = [f for f in (proc.stdin, proc.stdout, proc.stderr) if f is not None]
        self.stdin = proc.stdin.fileno() if proc.stdin is not None else None
        self.stdout = proc.stdout.fileno()
        self.stderr = proc.stderr.fileno()
        for fd in (self.stdin, self.stdout, self.stderr):
            if fd is not None:
                os.set_blocking(fd, False)
        self.pidfd: int | None = None
        with suppress(AttributeError, OSError):  # no pidfd before Linux 5.3, nor elsewhere
            self.pidfd = os.pidfd_open(proc.pid)

    def close_stdin(self) -> None:
        if self.stdin is not None and self._stdin_file is not None:
            self.stdin = None
            with suppress(OSError):
                self._stdin_file.close()

    def close(self) -> None:
        self.stdin = None
        for file in self._files:
            with suppress(OSError):
                file.close()
        if self.pidfd is not None:
            with suppress(OSError):
                os.close(self.pidfd)
            self.pidfd = None


async def _wait_exit(proc: subprocess.Popen[bytes], pipes: _Pipes) -> None:
    """Return once the direct child has exited (not reaped yet when a pidfd tells)."""
    if pipes.pidfd is not None:
        await anyio.wait_readable(pipes.pidfd)
        return
    while proc.poll() is None:  # noqa: ASYNC110 - nothing to wait on without a pidfd
        await anyio.sleep(_EXIT_POLL_S)


async def _reap(proc: subprocess.Popen[bytes]) -> None:
    # The tree was killed: the child is gone or going. Never block the event loop on it.
    while proc.poll() is None:  # noqa: ASYNC110
        await anyio.sleep(_EXIT_POLL_S)


async def _pump(fd: int, sink: CappedSink, done: anyio.Event) -> None:
    try:
        while True:
            await anyio.wait_readable(fd)
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                break
            sink.write(chunk)
    except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # closed under us: the call is over
    finally:
        done.set()


async def _feed(pipes: _Pipes, data: bytes) -> None:
    # A CLI that exits (or is killed) without reading all of its stdin breaks the pipe: fine.
    view = memoryview(data)
    try:
        while view and pipes.stdin is not None:
            await anyio.wait_writable(pipes.stdin)
            try:
                view = view[os.write(pipes.stdin, view) :]
            except BlockingIOError:
                continue
    except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        pipes.close_stdin()
