"""The warm worker (`runner/warm.py`) on a real process driven by a session driver scripted in
process: the answer, status and detail a call returns on each way a turn ends, the process
started again after a death (counted as process starts), recycling after the configured
number of sessions, the seat falling back to spawning per call and why, the worker's
environment, room and logs, the figures `WarmStats` reports, and nothing left running."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.adapters import adapter_for
from council.adapters.base import Status, Tool, Verdict
from council.adapters.warm import ProtocolError, SessionDriver, WarmLaunch, WarmTurn, WorkerGone
from council.runner import confine
from council.runner.sink import CappedSink
from council.runner.warm import WarmResult, WarmStartError, WarmWorker, warm_worker
from council.runner.worker import WorkerProcess

pytestmark = pytest.mark.anyio

MiB = 1024 * 1024
LINGER_S = 3.0  # how long a stubborn worker outlives its stdin or a SIGTERM (past close's wait)
GRACE_S = 0.2

# The worker: appends its pid to the file named by its first argument when it starts, then
# does what each JSON line on its stdin says, answering on stdout.
WORKER = r"""
import json, os, signal, sys, time
with open(sys.argv[1], "a") as starts:
    starts.write(f"{os.getpid()}\n")
if "--noise" in sys.argv:
    sys.stderr.write("starting\n" + "0" * 200_000 + "\n")
    sys.stderr.flush()
    sys.stdout.write("banner " + "1" * 100_000 + "\n")
    sys.stdout.flush()
stubborn = False
def linger(*_):
    time.sleep(LINGER)
    os._exit(7)
for line in sys.stdin:
    msg = json.loads(line)
    op = msg["op"]
    if msg.get("err"):
        sys.stderr.write(msg["err"] + "\n")
        sys.stderr.flush()
    if op == "exit":
        os._exit(msg["code"])
    if op == "stubborn":
        stubborn = True
        signal.signal(signal.SIGTERM, linger)
    reply = {"pid": os.getpid()}
    if op == "hello":
        reply.update(env=dict(os.environ), cwd=os.getcwd())
    if op == "say":
        reply["text"] = msg["text"]
    if op == "write":
        try:
            with open(msg["path"], "w") as f:
                f.write("x")
            reply["ok"] = True
        except OSError as exc:
            reply["ok"] = False
            reply["error"] = str(exc)
    print(json.dumps(reply), flush=True)
if stubborn:
    linger()
""".replace("LINGER", repr(LINGER_S))

Turn = Callable[["Driver", WorkerProcess, str], Awaitable[WarmTurn]]


class Driver(SessionDriver):
    """One process's driver, doing what the lab scripted for the next handshake and turns."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.channel: WorkerProcess | None = None
        self.cancelled = anyio.Event()
        self.cancels = 0

    async def handshake(self, channel) -> str | None:  # type: ignore[no-untyped-def]
        self.channel = channel
        self.lab.channels.append(channel)
        how = self.lab.handshakes.popleft() if self.lab.handshakes else "1.0"
        if isinstance(how, BaseException):
            raise how
        if callable(how):
            return await how(self, channel)
        await channel.send({"op": "hello"})
        self.lab.hellos.append(await channel.receive())
        return how

    async def turn(self, channel, prompt: str, room: Path) -> WarmTurn:  # type: ignore[no-untyped-def]
        self.lab.turns_run += 1
        how = self.lab.turns.popleft() if self.lab.turns else answer
        return await how(self, channel, prompt)

    async def cancel(self, channel) -> None:  # type: ignore[no-untyped-def]
        self.cancels += 1
        self.cancelled.set()
        if self.lab.cancel_gone:
            raise WorkerGone("the worker's stdin is closed")


async def answer(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
    await channel.send({"op": "say", "text": f"answer to {prompt}"})
    reply = await channel.receive()
    driver.lab.turn_pids.append(reply["pid"])
    return WarmTurn(Verdict(Status.OK, text=reply["text"]))


def crash(code: int = 3, err: str = "") -> Turn:
    async def run(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
        await channel.send({"op": "exit", "code": code, "err": err})
        with pytest.raises(WorkerGone):
            await channel.receive()
        # Said once the exit is known (not just the end of its output), and all of its stderr
        # read: the same words every run.
        await channel.exited.wait()
        await channel._err_done.wait()
        raise WorkerGone(channel.describe_exit())

    return run


def broken(message: str) -> Turn:
    async def run(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
        raise ProtocolError(message)

    return run


async def stops_when_cancelled(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
    await driver.cancelled.wait()
    return WarmTurn(Verdict(Status.EMPTY, detail="cancelled"))


async def deaf(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
    await anyio.sleep_forever()
    raise AssertionError


async def stubborn(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
    """Make the worker outlive its stdin and a SIGTERM by LINGER_S, then hang the turn."""
    await channel.send({"op": "stubborn"})
    await channel.receive()
    driver.lab.entered.set()
    await anyio.sleep_forever()
    raise AssertionError


class Lab:
    """A seat's warm worker on WORKER, and what happened to it."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.room = tmp_path / "room"
        self.record = tmp_path / "record"
        self.tmp = tmp_path / "tmp"
        self.home = tmp_path / "home"
        for path in (self.room, self.record, self.tmp, self.home):
            path.mkdir(mode=0o700)
        self.script = tmp_path / "worker.py"
        self.script.write_text(WORKER)
        self.starts_file = self.tmp / "starts"  # the one place a confined worker may write
        self.handshakes: deque[Any] = deque()
        self.turns: deque[Turn] = deque()
        self.cancel_gone = False
        self.channels: list[WorkerProcess] = []
        self.hellos: list[dict[str, Any]] = []
        self.turn_pids: list[int] = []
        self.turns_run = 0
        self.entered = anyio.Event()
        self.calls = 0
        self.adapter = adapter_for("gemini")
        self.environ = {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GEMINI_API_KEY": "for-gemini",
            "OPENAI_API_KEY": "not-for-gemini",
        }

    def launch(self, *extra: str, **options: Any) -> WarmLaunch:
        argv = (sys.executable, "-B", str(self.script), str(self.starts_file), *extra)
        return WarmLaunch(argv, driver=lambda: Driver(self), **options)

    def process_starts(self) -> int:
        """Processes started, as the processes themselves recorded it."""
        if not self.starts_file.exists():
            return 0
        return len(self.starts_file.read_text().split())

    @asynccontextmanager
    async def worker(
        self, *extra: str, start: bool = True, grace: float = GRACE_S, **options: Any
    ) -> AsyncIterator[WarmWorker]:
        settings = {
            k: options.pop(k) for k in ("env", "room_files", "recycle_after") if k in options
        }
        async with warm_worker(
            self.adapter,
            Tool("gemini", (sys.executable,)),
            self.launch(*extra, **settings),
            seat="critic",
            room=self.room,
            tmp_dir=self.tmp,
            record_dir=self.record,
            environ=self.environ,
            grace_s=grace,
            **options,
        ) as worker:
            if start:
                await worker.start()
            yield worker

    async def ask(
        self,
        worker: WarmWorker,
        prompt: str = "Is it safe?",
        *,
        within: float = 10,
        hard: float = 15,
    ) -> WarmResult | None:
        self.calls += 1
        stem = self.record / f"critic-r{self.calls}-response"
        out = CappedSink(stem.with_suffix(".md"))
        err = CappedSink(stem.with_suffix(".err"))
        try:
            with anyio.fail_after(30):
                return await worker.attempt(
                    prompt, out=out, err=err, deadline=anyio.current_time() + within, hard_s=hard
                )
        finally:
            out.close()
            err.close()

    async def timed(self, worker: WarmWorker, prompt: str = "Is it safe?", **kw: Any) -> WarmResult:
        """A call that must run on the worker, and how long it took at most (for its duration)."""
        before = anyio.current_time()
        result = await self.ask(worker, prompt, **kw)
        assert result is not None
        assert 0 <= result.duration_s <= anyio.current_time() - before
        return result


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


async def settled(worker: WarmWorker) -> None:
    """Wait until no process is starting beside the calls (a restart or a recycle) and the
    last one started serves the calls (or is gone, when it was not taken)."""
    lab: Lab = worker.launch.driver().lab  # type: ignore[attr-defined, union-attr]
    with anyio.fail_after(10):
        while worker._starting is not None or (  # noqa: ASYNC110 - no public event for it
            lab.channels and worker.process is not lab.channels[-1] and lab.channels[-1].alive
        ):
            await anyio.sleep(0.01)


async def gone(process: WorkerProcess) -> None:
    with anyio.fail_after(10):
        await process.exited.wait()


# -- one call ------------------------------------------------------------------------------


async def test_each_call_returns_its_sessions_answer_and_the_stats_count_the_calls(lab):
    async with lab.worker() as worker:
        results = [await lab.timed(worker, f"Question {i}?") for i in range(3)]
        report = worker.stats.report()
    for i, result in enumerate(results):
        assert result.verdict.status is Status.OK
        assert result.verdict.text == f"answer to Question {i}?"
        assert result.argv == lab.launch().argv
        assert not (result.timed_out or result.killed or result.redo_cold)
    assert len(set(lab.turn_pids)) == 1 and lab.process_starts() == 1
    assert {k: v for k, v in report.items() if not k.startswith("rss")} == {
        "mode": "warm",
        "problem": None,
        "starts": 1,
        "deaths": 0,
        "calls": 3,
    }


async def test_a_turn_asking_to_be_redone_spawned_says_so(lab):
    async def empty(driver, channel, prompt):
        return WarmTurn(Verdict(Status.EMPTY, detail="no text"), redo_cold=True)

    lab.turns.append(empty)
    async with lab.worker() as worker:
        result = await lab.timed(worker)
    assert result.verdict == Verdict(Status.EMPTY, detail="no text") and result.redo_cold


async def test_a_call_whose_deadline_has_passed_does_not_run(lab):
    async with lab.worker() as worker:
        assert await lab.ask(worker, within=-1) is None
        assert lab.turns_run == 0 and worker.stats.calls == 0


async def test_a_call_whose_deadline_is_now_does_not_run(lab, monkeypatch):
    async with lab.worker() as worker:
        monkeypatch.setattr(anyio, "current_time", lambda: 1000.0)
        out, err = CappedSink(None), CappedSink(None)
        result = await worker.attempt("Now?", out=out, err=err, deadline=1000.0, hard_s=1)
        monkeypatch.undo()
        assert result is None and lab.turns_run == 0


async def test_the_handshakes_version_is_the_workers_and_none_when_it_names_none(lab):
    lab.handshakes.append(None)
    async with lab.worker(start=False) as worker:
        assert await worker.start() is None
        assert worker.version is None


# -- deaths --------------------------------------------------------------------------------


async def test_a_worker_that_dies_mid_call_fails_that_call_and_a_second_process_answers(lab):
    lab.handshakes.extend(["1.0", "2.0"])
    lab.turns.append(crash(3, "fatal: the model quota is spent"))
    async with lab.worker() as worker:
        died = await lab.timed(worker)
        after = await lab.timed(worker)  # waits for the restart under way
        assert worker.version == "2.0"
        assert (worker.stats.starts, worker.stats.deaths, worker.usable) == (2, 1, True)
    assert died.verdict == Verdict(
        Status.ERROR,
        detail="the warm worker died mid-call (the worker exited (exit 3)): "
        "fatal: the model quota is spent",
    )
    assert died.argv == lab.launch().argv and not died.redo_cold and not died.timed_out
    assert after.verdict.status is Status.OK and lab.process_starts() == 2
    names = {p.name for p in lab.record.iterdir()}
    assert {"critic-worker1.out", "critic-worker2.out", "critic-worker2.err"} <= names


async def test_a_death_that_said_nothing_is_reported_without_a_reason(lab):
    lab.turns.append(crash(9))
    async with lab.worker() as worker:
        died = await lab.timed(worker)
    assert died.verdict.detail == "the warm worker died mid-call (the worker exited (exit 9))"


async def test_after_a_second_death_mid_call_the_seat_spawns_per_call_and_says_why(lab):
    lab.turns.extend([crash(3), crash(4)])
    async with lab.worker() as worker:
        await lab.timed(worker)
        await lab.timed(worker)
        assert await lab.ask(worker) is None
        assert worker.stats.problem == (
            "the warm worker died twice (last: the worker exited (exit 4)); spawning per call"
        )
        assert worker.stats.mode == "spawn" and worker.stats.deaths == 2
    assert lab.process_starts() == 2 and lab.turns_run == 2


async def test_a_broken_session_fails_the_call_to_be_redone_spawned_and_restarts_the_worker(lab):
    lab.turns.append(broken("session/new refused: no plan mode"))
    async with lab.worker() as worker:
        failed = await lab.timed(worker)
        after = await lab.timed(worker)
        assert (worker.stats.starts, worker.stats.deaths) == (2, 1)
    assert failed.verdict == Verdict(
        Status.ERROR, detail="the warm session failed: session/new refused: no plan mode"
    )
    assert failed.redo_cold and not failed.timed_out and failed.argv == lab.launch().argv
    assert after.verdict.status is Status.OK and lab.process_starts() == 2


async def test_two_broken_sessions_name_the_last_one_when_the_seat_gives_up(lab):
    lab.turns.extend([broken("first"), broken("-32603: internal error")])
    async with lab.worker() as worker:
        await lab.timed(worker)
        await lab.timed(worker)
    assert worker.stats.problem == (
        "the warm worker died twice (last: -32603: internal error); spawning per call"
    )


async def test_a_worker_that_exited_between_calls_is_started_again_for_the_next(lab):
    async with lab.worker() as worker:
        await lab.timed(worker)
        for death in (1, 2):
            process = worker.process
            assert process is not None
            os.kill(process.pid, signal.SIGKILL)
            await gone(process)
            result = await lab.ask(worker)
            if death == 1:
                assert result is not None and result.verdict.status is Status.OK
                assert (worker.stats.starts, worker.stats.deaths) == (2, 1)
                assert lab.process_starts() == 2
            else:
                assert result is None
        assert worker.stats.problem == (
            "the warm worker died twice (last: it exited between calls); spawning per call"
        )


async def test_a_call_waiting_while_another_kills_the_worker_runs_nowhere(lab):
    release = anyio.Event()

    async def crash_later(driver, channel, prompt):
        await release.wait()
        return await crash(3)(driver, channel, prompt)

    lab.turns.append(crash_later)
    results: list[WarmResult | None] = []
    async with lab.worker() as worker:

        async def call() -> None:
            results.append(await lab.ask(worker))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            while lab.turns_run == 0:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            tg.start_soon(call)  # waits for the first
            await anyio.sleep(0.05)
            release.set()
    first, second = results
    assert first is not None and first.verdict.status is Status.ERROR
    assert second is None and lab.turns_run == 1


async def test_a_call_while_the_restart_is_still_starting_gives_up_at_its_deadline(lab):
    release = anyio.Event()

    async def slow(driver, channel):
        await release.wait()
        return "2.0"

    lab.handshakes.extend(["1.0", slow])
    lab.turns.append(crash(3))
    async with lab.worker() as worker:
        await lab.timed(worker)
        assert await lab.ask(worker, within=0.2) is None
        release.set()
        after = await lab.timed(worker)
    assert after.verdict.status is Status.OK


async def test_a_worker_that_cannot_restart_makes_the_seat_spawn_and_says_why(lab):
    lab.handshakes.extend(["1.0", ProtocolError("initialize refused")])
    lab.turns.append(crash(3))
    async with lab.worker() as worker:
        await lab.timed(worker)
        assert await lab.ask(worker) is None
    assert worker.stats.mode == "spawn"
    assert worker.stats.problem == "the warm worker did not restart: initialize refused"


# -- the hard limit ------------------------------------------------------------------------


async def test_the_hard_limit_cancels_the_session_and_the_same_process_answers_next(lab):
    lab.turns.append(stops_when_cancelled)
    async with lab.worker() as worker:
        late = await lab.timed(worker, within=0.1, hard=0.5)
        after = await lab.timed(worker)
        assert worker.stats.deaths == 0
    assert late.verdict == Verdict(
        Status.TIMEOUT, detail="no answer within the hard limit of 0.5s; the session was cancelled"
    )
    assert late.timed_out is True and not late.killed and late.argv == lab.launch().argv
    assert after.verdict.status is Status.OK and lab.process_starts() == 1


@pytest.mark.parametrize("cancel_gone", [False, True], ids=["deaf", "cancel-finds-it-gone"])
async def test_a_worker_that_does_not_stop_at_the_hard_limit_is_killed_and_restarted(
    lab, cancel_gone
):
    lab.cancel_gone = cancel_gone
    lab.turns.extend([deaf, answer, deaf])
    async with lab.worker() as worker:
        late = await lab.timed(worker, within=0.1, hard=0.4)
        assert not lab.channels[0].alive
        after = await lab.timed(worker)
        assert (worker.stats.starts, worker.stats.deaths) == (2, 1)
        await lab.timed(worker, within=0.1, hard=0.4)
    assert late.verdict == Verdict(
        Status.TIMEOUT,
        detail="no answer within the hard limit of 0.4s; "
        "the worker did not stop within 0.2s: its process tree was killed",
    )
    assert late.timed_out is True and late.killed and late.argv == lab.launch().argv
    assert after.verdict.status is Status.OK and lab.process_starts() == 2
    assert worker.stats.problem == (
        "the warm worker died twice (last: it did not stop at the hard limit); spawning per call"
    )


async def test_a_call_cancelled_from_outside_kills_the_worker_and_the_next_call_restarts_it(lab):
    lab.turns.append(stubborn)
    async with lab.worker() as worker:
        first = worker.process
        assert first is not None
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(lab.ask, worker)
                await lab.entered.wait()
                scope.cancel()
        assert first.exit_code == -signal.SIGKILL  # not waited out: killed after the grace
        after = await lab.timed(worker)
        assert after.verdict.status is Status.OK
        assert (worker.stats.starts, worker.stats.deaths) == (2, 0)


# -- recycling -----------------------------------------------------------------------------


async def test_a_worker_is_replaced_after_the_configured_number_of_sessions(lab):
    lab.handshakes.extend(["1.0", "2.0", "3.0"])
    starts = []
    async with lab.worker(recycle_after=2) as worker:
        for i in range(5):
            await lab.timed(worker, f"Question {i}?")
            await settled(worker)
            starts.append(worker.stats.starts)
        assert worker.version == "3.0"
        await gone(lab.channels[0])
        await gone(lab.channels[1])
    assert starts == [1, 2, 2, 3, 3]
    a, b, c = lab.channels
    assert lab.turn_pids == [a.pid, a.pid, b.pid, b.pid, c.pid]
    assert worker.stats.deaths == 0 and lab.process_starts() == 3


async def test_a_recycle_that_fails_keeps_the_worker_and_tries_again_as_many_sessions_later(lab):
    async def refuse(driver, channel):
        await channel.send({"op": "hello"})
        await channel.receive()  # it started (and counted itself) before refusing
        raise ProtocolError("busy")

    lab.handshakes.extend(["1.0", refuse])
    starts = []
    async with lab.worker(recycle_after=2) as worker:
        for i in range(4):
            result = await lab.timed(worker, f"Question {i}?")
            assert result.verdict.status is Status.OK
            await settled(worker)
            starts.append((lab.process_starts(), worker.stats.starts))
        assert worker.usable and worker.stats.problem is None
    assert starts == [(1, 1), (2, 1), (2, 1), (3, 2)]


async def test_a_restarted_worker_is_recycled_too(lab):
    lab.turns.append(crash(3))
    async with lab.worker(recycle_after=2) as worker:
        await lab.timed(worker)
        await settled(worker)
        for _ in range(2):
            await lab.timed(worker)
        await settled(worker)
        assert worker.stats.starts == 3
    assert lab.process_starts() == 3


async def test_a_recycled_worker_that_will_not_exit_is_killed_after_the_grace(lab):
    lab.turns.append(stubborn_answer)
    async with lab.worker(recycle_after=1) as worker:
        await lab.timed(worker)
        await settled(worker)
        await gone(lab.channels[0])
        assert lab.channels[0].exit_code == -signal.SIGKILL


async def stubborn_answer(driver: Driver, channel: WorkerProcess, prompt: str) -> WarmTurn:
    await channel.send({"op": "stubborn"})
    await channel.receive()
    return await answer(driver, channel, prompt)


# -- memory --------------------------------------------------------------------------------


async def test_the_stats_report_the_memory_at_ready_and_the_peak_after_calls(lab, monkeypatch):
    readings = iter([12_345_678, 60 * MiB, 20 * MiB])
    monkeypatch.setattr(WorkerProcess, "rss_bytes", lambda self: next(readings))
    async with lab.worker() as worker:
        assert (worker.stats.rss_ready_mb, worker.stats.rss_peak_mb) == (11.8, 11.8)
        await lab.timed(worker)
        assert worker.stats.rss_peak_mb == 60.0
        await lab.timed(worker)
    assert worker.stats.report()["rss_peak_mb"] == 60.0
    assert worker.stats.rss_ready_mb == 11.8


async def test_a_peak_is_the_first_reading_when_the_ready_one_failed(lab, monkeypatch):
    readings = iter([None, 512 * 1024])
    monkeypatch.setattr(WorkerProcess, "rss_bytes", lambda self: next(readings))
    async with lab.worker() as worker:
        assert worker.stats.rss_peak_mb is None
        await lab.timed(worker)
        assert worker.stats.rss_peak_mb == 0.5


# -- starting ------------------------------------------------------------------------------


async def test_the_worker_runs_in_its_room_with_the_allow_listed_environment_and_room_files(
    lab,
):
    async with lab.worker(env={"GEMINI_CLI_MODE": "acp"}, room_files={"GEMINI.md": "rules"}):
        pass
    (hello,) = lab.hellos
    env = hello["env"]
    assert hello["cwd"] == str(lab.room)
    assert env["GEMINI_API_KEY"] == "for-gemini" and "OPENAI_API_KEY" not in env
    assert env["GEMINI_CLI_MODE"] == "acp" and env["TMPDIR"] == str(lab.tmp)
    assert env["COUNCIL_CALL_ID"].startswith(f"{os.getpid()}-")
    assert (lab.room / "GEMINI.md").read_text() == "rules"


async def write(lab: Lab, worker: WarmWorker, path: Path) -> bool:
    async def writes(driver, channel, prompt):
        await channel.send({"op": "write", "path": str(path)})
        reply = await channel.receive()
        return WarmTurn(Verdict(Status.OK, text=json.dumps(reply)))

    lab.turns.append(writes)
    result = await lab.timed(worker)
    return json.loads(result.verdict.text or "{}")["ok"]


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_a_confined_worker_writes_in_its_temp_dir_only(lab):
    project = lab.tmp_path / "project"
    project.mkdir()
    async with lab.worker() as worker:
        assert await write(lab, worker, lab.tmp / "scratch") is True
        assert await write(lab, worker, project / "file") is False
    assert list(project.iterdir()) == []


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_a_worker_started_unconfined_may_write_anywhere(lab):
    project = lab.tmp_path / "project"
    project.mkdir()
    async with lab.worker(confine=False) as worker:
        assert await write(lab, worker, project / "file") is True


async def test_what_the_worker_prints_outside_calls_is_kept_whole_in_its_logs(lab):
    async with lab.worker("--noise"):
        pass
    assert (lab.record / "critic-worker1.err").stat().st_size == len("starting\n") + 200_001
    assert (lab.record / "critic-worker1.out").stat().st_size > 100_000


async def test_a_worker_that_cannot_be_executed_says_so(lab):
    launch = WarmLaunch(("/nonexistent/council-warm", "--serve"), driver=lambda: Driver(lab))
    async with warm_worker(
        lab.adapter,
        Tool("gemini", ("/nonexistent/council-warm",)),
        launch,
        seat="critic",
        room=lab.room,
        tmp_dir=lab.tmp,
        record_dir=lab.record,
        environ=lab.environ,
    ) as worker:
        with pytest.raises(WarmStartError) as failed:
            await worker.start()
    assert str(failed.value) == "cannot start /nonexistent/council-warm: No such file or directory"
    assert worker.stats.problem == (
        "the warm worker did not start: cannot start /nonexistent/council-warm: "
        "No such file or directory"
    )
    del failed  # its traceback holds the process object
    gc.collect()  # nothing it opened is left to the collector (a warning fails the test)


async def test_a_refused_handshake_is_the_reason_as_the_worker_said_nothing(lab):
    lab.handshakes.append(ProtocolError("initialize: unsupported protocol version"))
    async with lab.worker(start=False) as worker:
        with pytest.raises(WarmStartError) as failed:
            await worker.start()
    assert str(failed.value) == "initialize: unsupported protocol version"
    assert not worker.usable and worker.stats.starts == 0


async def _make_stubborn(driver: Driver, channel: WorkerProcess) -> None:
    await channel.send({"op": "stubborn"})
    await channel.receive()


async def test_a_worker_whose_handshake_fails_is_killed_after_the_grace(lab):
    async def refuse(driver, channel):
        await _make_stubborn(driver, channel)
        raise ProtocolError("no")

    lab.handshakes.append(refuse)
    async with lab.worker(start=False) as worker:
        with pytest.raises(WarmStartError):
            await worker.start()
        assert lab.channels[0].exit_code == -signal.SIGKILL


async def test_a_start_cancelled_mid_handshake_kills_the_worker(lab):
    async def hang(driver, channel):
        await _make_stubborn(driver, channel)
        lab.entered.set()
        await anyio.sleep_forever()

    lab.handshakes.append(hang)
    async with lab.worker(start=False) as worker:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(worker.start)
                await lab.entered.wait()
                scope.cancel()
        assert lab.channels[0].exit_code == -signal.SIGKILL


# -- the end -------------------------------------------------------------------------------


async def test_a_closed_worker_runs_no_call_and_starts_nothing(lab):
    async with lab.worker() as worker:
        await worker.close()
        assert await lab.ask(worker) is None
        await anyio.sleep(0.1)
        assert worker.stats.starts == 1 and lab.process_starts() == 1


async def test_closing_while_a_call_runs_fails_that_call_and_starts_nothing(lab):
    async def slow(driver, channel, prompt):
        lab.entered.set()
        await anyio.sleep(0.3)
        return await answer(driver, channel, prompt)

    lab.turns.append(slow)
    async with lab.worker() as worker:
        results = []

        async def call() -> None:
            results.append(await lab.ask(worker))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await lab.entered.wait()
            await worker.close()
        await settled(worker)
        assert worker.stats.starts == 1 and lab.process_starts() == 1
    (result,) = results
    assert result is not None and result.verdict.status is Status.ERROR


async def test_a_worker_that_ignores_its_closed_stdin_is_killed_at_close(lab):
    lab.turns.append(stubborn_answer)
    async with lab.worker() as worker:
        await lab.timed(worker)
    await gone(lab.channels[0])
    assert lab.channels[0].exit_code == -signal.SIGKILL
