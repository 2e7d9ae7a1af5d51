"""A long-lived CLI process that speaks JSON lines on stdio: a warm worker's process.

Started like every CLI call (runner/attempt.py): an argv list in a new session, the
allow-listed environment with a marker of its own, the seat's room as its working directory,
under write confinement (a fresh thread confines itself and forks). Its stdout is read line
by line into a queue of messages (`receive`), its stderr drained; every byte of both goes to
disk as it arrives, into the current call's response and error files (`attach`), or between
calls into the worker's own log files in the record. Killing it kills its whole tree
(runner/proctree.py), and the process is reaped in a shielded scope.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack, suppress
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import psutil
from anyio.abc import TaskGroup

from council.adapters.warm import WorkerGone
from council.runner import reaper
from council.runner.confine import Confinement, start_confined
from council.runner.proctree import ProcessTree, hurried, tree_of_new_child
from council.runner.sink import CappedSink

_CHUNK = 64 * 1024
_EXIT_POLL_S = 0.05
_EOF_AFTER_EXIT_S = 1.0  # a grandchild holding stdout open must not hide the worker's death
_EXIT_AFTER_EOF_S = 0.5  # its output ends as it exits: how long to wait to see its exit code
_DRAIN_S = 5.0
MAX_LINE_BYTES = 64 * 1024 * 1024  # one message larger than this is cut off and dropped


class WorkerProcess:
    """One started worker. `start` it inside a task group that outlives it (its pumps run
    there); `close` or `kill` it before that task group ends."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        call_id: str,
        log_out: CappedSink,
        log_err: CappedSink,
        confinement: Confinement | None = None,
    ) -> None:
        self.argv = tuple(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.call_id = call_id
        self.confinement = confinement
        self._log_out, self._log_err = log_out, log_err
        self._out: CappedSink | None = None  # the current call's files, when one runs
        self._err: CappedSink | None = None
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        self._proc: subprocess.Popen[bytes] | None = None
        self._tree: ProcessTree | None = None
        self._stack = ExitStack()
        self._write_lock = anyio.Lock()
        self._eof = anyio.Event()
        self._err_done = anyio.Event()
        self.exited = anyio.Event()
        self.started_at = 0.0  # anyio clock
        self.killed = False

    # -- life ------------------------------------------------------------------------------

    async def start(self, tg: TaskGroup) -> None:
        """Spawn the process (OSError when it cannot start) and its pumps."""
        wall_start = time.time()
        popen = partial(
            subprocess.Popen,
            list(self.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,
        )

        def spawn() -> subprocess.Popen[bytes]:
            with reaper.spawning():
                child = start_confined(popen, self.confinement)
                reaper.note_spawned(child.pid)
                return child

        # The worker's whole life is one call window: what it leaves behind is its own.
        self._stack.enter_context(reaper.window(self.call_id, wall_start))
        try:
            with anyio.CancelScope(shield=True):  # a started child must not be lost
                proc = await anyio.to_thread.run_sync(spawn)
        except BaseException:
            self._release()  # nothing will run: closed now, not by the garbage collector
            raise
        self._proc = proc
        try:
            self._tree = tree_of_new_child(proc, self.call_id, wall_start, self.argv[0])
        except BaseException:  # its session killed, its pipes closed: reap, stop
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(proc.wait)
            reaper.note_reaped(proc.pid)
            self._release()
            raise
        self.started_at = anyio.current_time()
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
        tg.start_soon(self._pump_stdout, proc.stdout.fileno())
        tg.start_soon(self._pump_stderr, proc.stderr.fileno())
        tg.start_soon(self._watch_exit, proc)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self._eof.is_set()

    @property
    def exit_code(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    def attach(self, out: CappedSink | None, err: CappedSink | None) -> None:
        """Send what the worker prints to these files (one call's), or back to its logs."""
        self._out, self._err = out, err

    def drain(self) -> int:
        """Drop the messages nobody read (what a worker said between calls); how many."""
        dropped = 0
        while True:
            try:
                self._receive.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                return dropped
            dropped += 1

    # -- the channel -----------------------------------------------------------------------

    async def send(self, message: Mapping[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            raise WorkerGone("the worker's stdin is closed")
        view = memoryview(data)
        async with self._write_lock:
            try:
                while view:
                    await anyio.wait_writable(proc.stdin.fileno())
                    try:
                        view = view[os.write(proc.stdin.fileno(), view) :]
                    except BlockingIOError:
                        continue
            except (OSError, ValueError, anyio.ClosedResourceError) as exc:
                raise WorkerGone(f"the worker stopped reading its input ({exc})") from None

    async def receive(self) -> dict[str, Any]:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._proc is not None and self.exit_code is None:
                # Its stdout reaches EOF a moment before its exit is seen: wait for the exit,
                # so that the user is told how it exited, not only that its output ended.
                with anyio.move_on_after(_EXIT_AFTER_EOF_S):
                    await self.exited.wait()
            raise WorkerGone(self.describe_exit()) from None

    def describe_exit(self) -> str:
        code = self.exit_code
        if self.killed:
            return "the worker was killed"
        if code is None:
            return "the worker's output ended"
        return f"the worker exited (exit {code})"

    # -- the pumps -------------------------------------------------------------------------

    def _write(self, sink: CappedSink | None, log: CappedSink, data: bytes) -> None:
        (sink if sink is not None else log).write(data)

    async def _pump_stdout(self, fd: int) -> None:
        pending = bytearray()
        try:
            async for chunk in _chunks(fd):
                self._write(self._out, self._log_out, chunk)
                pending += chunk
                while (end := pending.find(b"\n")) >= 0:
                    line = bytes(pending[:end])
                    del pending[: end + 1]
                    await self._deliver(line)
                if len(pending) > MAX_LINE_BYTES:
                    pending.clear()  # on disk already; too large to be a message we can use
            if pending:
                await self._deliver(bytes(pending))
        finally:
            self._eof.set()
            self._send.close()

    async def _deliver(self, line: bytes) -> None:
        line = line.strip()
        if not line.startswith(b"{"):
            return  # noise a CLI prints between its messages
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict):
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await self._send.send(message)

    async def _pump_stderr(self, fd: int) -> None:
        try:
            async for chunk in _chunks(fd):
                self._write(self._err, self._log_err, chunk)
        finally:
            self._err_done.set()

    async def _watch_exit(self, proc: subprocess.Popen[bytes]) -> None:
        pidfd = None
        with suppress(AttributeError, OSError):
            pidfd = os.pidfd_open(proc.pid)
        try:
            if pidfd is not None:
                await anyio.wait_readable(pidfd)
            else:
                while proc.poll() is None:  # noqa: ASYNC110 - nothing to wait on without a pidfd
                    await anyio.sleep(_EXIT_POLL_S)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        proc.poll()
        self.exited.set()
        # Its last messages are still in the pipe: read them, unless a descendant keeps the
        # pipe open, in which case the worker is gone all the same.
        with anyio.move_on_after(_EOF_AFTER_EXIT_S):
            await self._eof.wait()
        self._send.close()

    # -- the end ---------------------------------------------------------------------------

    async def close(self, grace_s: float, wait_s: float = 2.0) -> None:
        """End it politely: close its stdin (every supported CLI then exits), wait up to
        `wait_s`, then kill its whole tree (SIGTERM, `grace_s`, SIGKILL) and reap it."""
        with anyio.CancelScope(shield=True):
            proc = self._proc
            if proc is not None and proc.stdin is not None:
                with suppress(OSError):
                    proc.stdin.close()
            if proc is not None:
                # Its exit is polled, not awaited on `exited`: the watcher that sets it ends
                # with the cancellation (Ctrl-C) that brings most closes here. A second
                # Ctrl-C while it waits cuts the wait short.
                with anyio.move_on_after(wait_s):
                    while proc.poll() is None and not hurried():  # noqa: ASYNC110
                        await anyio.sleep(_EXIT_POLL_S)
            await self._end(grace_s)

    async def kill(self, grace_s: float) -> None:
        """Kill its whole tree now (SIGTERM, `grace_s`, SIGKILL) and reap it."""
        with anyio.CancelScope(shield=True):
            self.killed = self.alive or self.killed
            await self._end(grace_s)

    async def _end(self, grace_s: float) -> None:
        proc, tree = self._proc, self._tree
        try:
            if tree is not None:
                await tree.kill(grace_s)  # what is left of its tree, descendants included
            if proc is not None:
                while proc.poll() is None:  # noqa: ASYNC110 - killed above; never block the loop
                    await anyio.sleep(_EXIT_POLL_S)
                reaper.note_reaped(proc.pid)
                # The tree is dead: the pumps reach EOF at once (this only bounds a pipe held
                # by a process the sweep could not find).
                with anyio.move_on_after(_DRAIN_S):
                    await self._eof.wait()
                    await self._err_done.wait()
                for stream in (proc.stdin, proc.stdout, proc.stderr):
                    if stream is not None and not stream.closed:
                        with suppress(OSError, ValueError):
                            anyio.notify_closing(stream.fileno())
                        with suppress(OSError):
                            stream.close()
        finally:
            self._release()

    def _release(self) -> None:
        """Close what the worker opened besides its process: message streams, logs, window."""
        self._send.close()
        self._receive.close()
        self._log_out.close()
        self._log_err.close()
        self._stack.close()

    def rss_bytes(self) -> int | None:
        """Resident memory of the worker's whole tree now; None when it is gone."""
        if self._proc is None or self._proc.poll() is not None:
            return None
        try:
            root = psutil.Process(self._proc.pid)
            members = [root, *root.children(recursive=True)]
        except psutil.Error:
            return None
        total = 0
        for proc in members:
            with suppress(psutil.Error):
                total += proc.memory_info().rss
        return total


async def _chunks(fd: int):  # type: ignore[no-untyped-def]
    """What the worker writes to `fd`, chunk by chunk, until EOF (or the fd is closed)."""
    try:
        while True:
            await anyio.wait_readable(fd)
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                return
            yield chunk
    except (OSError, ValueError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return
