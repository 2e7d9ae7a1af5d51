"""A seat's warm worker: one long-lived CLI process per seat, a fresh history-free session per
call (docs/adr/007-warm-seat-workers.md).

The process starts at SETUP (`start`: the handshake is the seat's READY) and runs every call
of the seat (`attempt`), under the same measures as a spawned call: the allow-listed
environment, the room as its working directory, write confinement, the CLI's read-only mode.
At the hard limit the session is cancelled by the protocol; a worker that does not stop
within the grace is killed with its whole tree and started again for the next call. A
worker that dies mid-call fails only that call. After a second death, or when it cannot
start, the seat spawns its CLI per call (`fallback` says why). After `recycle_after`
sessions it is replaced between calls, bounding what each session leaves in its memory.
Tear-down (`warm_worker`'s exit, shielded) closes its stdin, waits, and kills what is left.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio
from anyio.abc import TaskGroup

from council.adapters.base import Status, Tool, Verdict
from council.adapters.failures import telling_line
from council.adapters.warm import (
    ProtocolError,
    RpcError,
    SessionDriver,
    WarmLaunch,
    WarmMode,
    WarmTurn,
    WorkerGone,
)
from council.runner.acp import AcpDriver
from council.runner.confine import call_confinement
from council.runner.environment import adapter_env, new_call_id
from council.runner.rooms import place_room_files
from council.runner.sink import CappedSink
from council.runner.worker import WorkerProcess

WARM_START_S = 30.0  # spawn to handshake; the slowest CLI takes ~2 s on an idle machine
MAX_DEATHS = 2
_LOG_CAP = 4 * 1024 * 1024
_MB = 1024 * 1024


class WarmStartError(Exception):
    """The worker did not come up: why, in one line."""


@dataclass
class WarmStats:
    """What a seat's warm worker did, for the record (`result.json`'s seats)."""

    mode: str = "warm"  # "warm", or "spawn" once the seat fell back to spawning per call
    problem: str | None = None  # why the seat fell back
    starts: int = 0  # processes started (the first, restarts, recycles)
    deaths: int = 0  # died, or killed for not stopping at the hard limit
    calls: int = 0  # calls served warm
    rss_ready_mb: float | None = None  # the first process, right after its handshake
    rss_peak_mb: float | None = None  # the most any process held, sampled after each call

    def report(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class WarmResult:
    """One attempt made on the worker."""

    verdict: Verdict
    argv: tuple[str, ...]
    duration_s: float
    timed_out: bool = False
    killed: bool = False
    redo_cold: bool = False


class WarmWorker:
    def __init__(
        self,
        adapter: WarmMode,
        tool: Tool,
        launch: WarmLaunch,
        *,
        seat: str,
        room: Path,
        tmp_dir: Path,
        record_dir: Path,
        tg: TaskGroup,
        environ: Mapping[str, str] | None = None,
        confine: bool = True,
        grace_s: float = 3.0,
        start_timeout_s: float = WARM_START_S,
    ) -> None:
        self.adapter = adapter
        self.tool = tool
        self.launch = launch
        self.lean = launch.lean  # no tool, council's system prompt: it takes lean calls only
        self.seat = seat
        self.room = room
        self.tmp_dir = tmp_dir
        self.record_dir = record_dir
        self.environ = environ
        self.confine = confine
        self.grace_s = grace_s
        self.start_timeout_s = start_timeout_s
        self.stats = WarmStats()
        self.version: str | None = None
        self._tg = tg
        self._process: WorkerProcess | None = None
        self._driver: SessionDriver | None = None
        self._sessions = 0  # on the current process
        self._generation = 0
        self._busy = anyio.Lock()
        self._starting: anyio.Event | None = None  # set when the start in progress ends
        self._background: set[anyio.CancelScope] = set()
        self._closing = False
        self._wake: anyio.Event | None = None  # set while a session runs: ends its wait early
        self._cut = False  # the running session is to end now (`cut`)

    @property
    def argv(self) -> tuple[str, ...]:
        return self.launch.argv

    @property
    def usable(self) -> bool:
        """False once the seat spawns per call for good."""
        return self.stats.mode == "warm"

    @property
    def process(self) -> WorkerProcess | None:
        """The process serving the calls now (None between a death and its restart)."""
        return self._process

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # -- starting --------------------------------------------------------------------------

    async def start(self) -> str | None:
        """Start the first process; its version, or WarmStartError (the seat then spawns
        per call: `stats.problem` says why)."""
        try:
            process, driver, version = await self._spawn()
        except WarmStartError as exc:
            self._give_up(f"the warm worker did not start: {exc}")
            raise
        self._install(process, driver, version)
        rss = process.rss_bytes()
        self.stats.rss_ready_mb = self.stats.rss_peak_mb = _mb(rss)
        return self.version

    async def _spawn(self) -> tuple[WorkerProcess, SessionDriver, str | None]:
        self._generation += 1
        stem = f"{self.seat}-worker{self._generation}"
        log_out = CappedSink(self.record_dir / f"{stem}.out", _LOG_CAP, 64 * 1024)
        log_err = CappedSink(self.record_dir / f"{stem}.err", _LOG_CAP, 64 * 1024)
        if self.launch.room_files:
            place_room_files(self.room, self.launch.room_files)
        call_id = new_call_id()
        overrides = {**self.launch.env, "TMPDIR": str(self.tmp_dir)}
        env = adapter_env(self.adapter, self.environ, overrides=overrides, call_id=call_id)
        confinement = (
            call_confinement(self.adapter, env, tmp_dir=self.tmp_dir) if self.confine else None
        )
        process = WorkerProcess(
            self.argv,
            env=env,
            cwd=self.room,
            call_id=call_id,
            log_out=log_out,
            log_err=log_err,
            confinement=confinement,
        )
        driver = self._new_driver()
        try:
            await process.start(self._tg)
        except OSError as exc:
            log_out.close()
            log_err.close()
            raise WarmStartError(f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        failure: str | None = None
        try:
            with anyio.fail_after(self.start_timeout_s):
                version = await driver.handshake(process)
        except TimeoutError:
            failure = f"no handshake within {self.start_timeout_s:g}s"
        except (WorkerGone, ProtocolError, RpcError) as exc:
            failure = str(exc)
        except BaseException:
            await process.kill(self.grace_s)
            raise
        if failure is not None:
            await process.kill(self.grace_s)
            said = telling_line(log_err.text()) or telling_line(log_out.text())
            raise WarmStartError(f"{failure}: {said}" if said else failure)
        self.stats.starts += 1
        return process, driver, version

    def _new_driver(self) -> SessionDriver:
        if self.launch.driver is not None:
            return self.launch.driver()
        assert self.launch.acp is not None, "a warm launch names a driver or ACP options"
        return AcpDriver(self.launch.acp, self.adapter.acp_verdict)

    def _install(self, process: WorkerProcess, driver: SessionDriver, version: str | None) -> None:
        self._process, self._driver, self._sessions = process, driver, 0
        self.version = version or self.version

    def _give_up(self, why: str) -> None:
        self.stats.mode = "spawn"
        self.stats.problem = self.stats.problem or why

    def _in_background(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run `job` beside the calls; cancelled at tear-down."""
        scope = anyio.CancelScope()
        self._background.add(scope)

        async def run() -> None:
            with scope:
                await job()
            self._background.discard(scope)

        self._tg.start_soon(run)

    def _restart_soon(self) -> None:
        if self._starting is not None or self._closing or not self.usable:
            return
        starting = self._starting = anyio.Event()

        async def restart() -> None:
            try:
                process, driver, version = await self._spawn()
            except WarmStartError as exc:
                self._give_up(f"the warm worker did not restart: {exc}")
            else:
                self._install(process, driver, version)
            finally:
                self._starting = None
                starting.set()

        self._in_background(restart)

    async def _ready(self, deadline: float) -> WorkerProcess | None:
        """The live process for the next call, once any restart in progress is done; None
        when the seat spawns per call now."""
        while self.usable and not self._closing:
            process = self._process
            if process is not None and process.alive:
                return process
            if process is not None:  # died between calls
                await self._lose(process, "it exited between calls")
            self._restart_soon()
            starting = self._starting
            if starting is None:
                continue
            with anyio.move_on_at(deadline):
                await starting.wait()
            if not starting.is_set():
                return None
        return None

    async def _lose(self, process: WorkerProcess, why: str) -> None:
        """The process died or was killed: kill what is left of its tree; count a death, and
        restart, or after the second fall back to spawning per call."""
        if self._process is process:
            self._process = self._driver = None
        await process.kill(self.grace_s)
        self.stats.deaths += 1
        if self.stats.deaths >= MAX_DEATHS:
            self._give_up(f"the warm worker died twice (last: {why}); spawning per call")
        else:
            self._restart_soon()

    # -- one call --------------------------------------------------------------------------

    def cut(self) -> bool:
        """End the session running now as the hard limit would, before it: cancelled, and
        its tree killed (the worker started again) if it does not stop within the grace.
        False when no session runs (the caller cancels the call itself)."""
        if self._wake is None:
            return False
        self._cut = True
        self._wake.set()
        return True

    async def attempt(
        self,
        prompt: str,
        *,
        out: CappedSink,
        err: CappedSink,
        deadline: float,
        hard_s: float,
    ) -> WarmResult | None:
        """One attempt of a call on the worker, its output to `out` and `err` (the call's
        files); None when there is no worker to run it (the caller spawns the CLI)."""
        process = await self._ready(deadline)
        if process is None or anyio.current_time() >= deadline:
            return None
        async with self._busy:
            if self._process is not process or not process.alive:
                return None  # replaced or gone while we waited: let the caller go on
            driver = self._driver
            assert driver is not None
            result = await self._turn(process, driver, prompt, out, err, deadline, hard_s)
        self._after_call(process)
        return result

    async def _turn(
        self,
        process: WorkerProcess,
        driver: SessionDriver,
        prompt: str,
        out: CappedSink,
        err: CappedSink,
        deadline: float,
        hard_s: float,
    ) -> WarmResult:
        started = anyio.current_time()
        process.drain()
        process.attach(out, err)
        self._sessions += 1
        self.stats.calls += 1
        turns: list[WarmTurn] = []
        gone: list[str] = []
        broken: list[str] = []
        done = anyio.Event()
        # Set when the turn ends, or when the caller cuts it short (`cut`).
        wake = self._wake = anyio.Event()
        self._cut = False

        finished: list[bool] = []  # the turn ended by itself (not cut off by the kill)

        async def run() -> None:
            try:
                turns.append(await driver.turn(process, prompt, self.room))
            except WorkerGone as exc:
                gone.append(str(exc))
            except (ProtocolError, RpcError) as exc:
                broken.append(str(exc))
            finished.append(True)
            done.set()
            wake.set()

        timed_out = False
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                with anyio.move_on_at(deadline):
                    await wake.wait()
                if not done.is_set():
                    timed_out = True
                    with suppress(WorkerGone):
                        await driver.cancel(process)
                    with anyio.move_on_after(self.grace_s):
                        await done.wait()
                tg.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            # This call itself is cancelled (the seat shuts down): the worker is mid-session
            # and goes with it, no restart.
            with anyio.CancelScope(shield=True):
                process.attach(None, None)
                if self._process is process:
                    self._process = self._driver = None
                await process.kill(self.grace_s)
            raise
        finally:
            self._wake = None
        process.attach(None, None)
        killed = not finished
        cut = timed_out and self._cut
        if killed:
            # No answer to the cancel within the grace: its state is unknown.
            await self._lose(
                process,
                "it did not stop when cut short" if cut else "it did not stop at the hard limit",
            )
        duration = anyio.current_time() - started
        if timed_out:
            how = (
                f"the worker did not stop within {self.grace_s:g}s: its process tree was killed"
                if killed
                else "the session was cancelled"
            )
            why = (
                "cut short by the lead"
                if cut
                else f"no answer within the hard limit of {hard_s:g}s"
            )
            verdict = Verdict(Status.TIMEOUT, detail=f"{why}; {how}")
            return WarmResult(verdict, self.argv, duration, timed_out=True, killed=killed)
        if gone:
            said = telling_line(err.text())
            await self._lose(process, gone[0])
            detail = f"the warm worker died mid-call ({gone[0]})" + (f": {said}" if said else "")
            return WarmResult(Verdict(Status.ERROR, detail=detail), self.argv, duration)
        if broken:
            await self._lose(process, broken[0])
            verdict = Verdict(Status.ERROR, detail=f"the warm session failed: {broken[0]}")
            return WarmResult(verdict, self.argv, duration, redo_cold=True)
        turn = turns[0]
        return WarmResult(turn.verdict, self.argv, duration, redo_cold=turn.redo_cold)

    def _after_call(self, process: WorkerProcess) -> None:
        rss = _mb(process.rss_bytes())
        if rss is not None:
            self.stats.rss_peak_mb = max(self.stats.rss_peak_mb or 0.0, rss)
        if (
            self._process is process
            and process.alive
            and self._sessions >= self.launch.recycle_after
            and self._starting is None
        ):
            self._recycle_soon(process)

    def _recycle_soon(self, old: WorkerProcess) -> None:
        """Start a fresh process beside the old one; swap them between calls."""
        starting = self._starting = anyio.Event()

        async def recycle() -> None:
            try:
                process, driver, version = await self._spawn()
            except WarmStartError:
                self._sessions = 0  # keep the old one; try again after as many sessions
                return
            finally:
                self._starting = None
                starting.set()
            async with self._busy:
                if self._closing or self._process is not old:
                    await process.close(self.grace_s)
                    return
                self._install(process, driver, version)
            await old.close(self.grace_s)

        self._in_background(recycle)

    # -- the end ---------------------------------------------------------------------------

    async def close(self) -> None:
        """Stop everything: restarts in progress, then the worker (stdin closed, a short
        wait, then its whole tree killed)."""
        with anyio.CancelScope(shield=True):
            self._closing = True
            for scope in list(self._background):
                scope.cancel()
            process, self._process, self._driver = self._process, None, None
            if process is not None:
                await process.close(self.grace_s)


@asynccontextmanager
async def warm_worker(
    adapter: WarmMode, tool: Tool, launch: WarmLaunch, **options: object
) -> AsyncIterator[WarmWorker]:
    """A `WarmWorker` (not started yet) whose processes all end with the block."""
    async with anyio.create_task_group() as tg:
        worker = WarmWorker(adapter, tool, launch, tg=tg, **options)  # type: ignore[arg-type]
        try:
            yield worker
        finally:
            await worker.close()
            tg.cancel_scope.cancel()


def _mb(value: int | None) -> float | None:
    return None if value is None else round(value / _MB, 1)
