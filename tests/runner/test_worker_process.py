"""The warm worker's process (runner/worker.py) driven by small Python scripts that each do one
thing: what a call reads back, what the user is told when the worker dies or is killed, what is
left running after a close or a kill, and the memory figure reported for its tree."""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
import psutil
import pytest

from council.adapters.warm import WorkerGone
from council.runner import proctree, reaper
from council.runner import worker as worker_module
from council.runner.environment import CALL_MARKER, new_call_id
from council.runner.sink import CappedSink
from council.runner.worker import WorkerProcess

pytestmark = pytest.mark.anyio

PRELUDE = r"""
import json, os, signal, sys, time

def say(**message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
"""


def make_worker(tmp_path: Path, script: str, *, marker: bool = True) -> WorkerProcess:
    call_id = new_call_id()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if marker:
        env[CALL_MARKER] = call_id
    return WorkerProcess(
        [sys.executable, "-c", PRELUDE + script],
        env=env,
        cwd=tmp_path,
        call_id=call_id,
        log_out=CappedSink(tmp_path / "worker.out"),
        log_err=CappedSink(tmp_path / "worker.err"),
    )


@asynccontextmanager
async def running(
    tmp_path: Path, script: str, *, marker: bool = True
) -> AsyncIterator[WorkerProcess]:
    """A started worker; killed at the end (a no-op when the test ended it already)."""
    process = make_worker(tmp_path, script, marker=marker)
    async with anyio.create_task_group() as tg:
        await process.start(tg)
        try:
            yield process
        finally:
            await process.kill(0.5)


async def gone_message(process: WorkerProcess) -> str:
    with anyio.fail_after(10), pytest.raises(WorkerGone) as gone:
        await process.receive()
    return str(gone.value)


def alive(pid: int | None) -> bool:
    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def sigkill(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def says(path: Path, text: str) -> bool:
    return path.exists() and text in path.read_text()


def pid_in(path: Path) -> int | None:
    return int(path.read_text()) if path.exists() else None  # written whole (a rename)


async def read_pid(path: Path) -> int:
    with anyio.fail_after(10):
        while (pid := pid_in(path)) is None:  # noqa: ASYNC110 - another process writes it
            await anyio.sleep(0.01)
    return pid


def block_until_zombie(pid: int) -> None:
    """Wait for `pid` to exit, without letting the event loop run meanwhile."""
    for _ in range(1000):
        if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return
        time.sleep(0.01)


async def finishes(job: Callable[[], Awaitable[None]], *, within: float, release: int) -> bool:
    """Whether `job` ends within `within` seconds; if not, SIGKILL `release` (what keeps it
    waiting) so that it does end."""
    done = anyio.Event()

    async def run() -> None:
        await job()
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        with anyio.move_on_after(within):
            await done.wait()
        in_time = done.is_set()
        if not in_time:
            sigkill(release)
    return in_time


# A grandchild whose parent exits at once, so that it is re-parented away from the worker: out
# of the worker's session (setsid) or not, its environment kept or replaced (`env`). With
# `late` it keeps the worker's stdout and stderr open, and says something once `late` exists.
DETACH = r"""
def detach(pidfile, *, setsid, env=None, late=None):
    child = os.fork()
    if child == 0:
        if setsid:
            os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            if late is None:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.execve("/bin/sleep", ["sleep", "60"], dict(os.environ) if env is None else env)
            while not os.path.exists(late):
                time.sleep(0.01)
            say(late=True)
            time.sleep(60)
        os._exit(0)
    os.waitpid(child, 0)
"""


@pytest.fixture(params=["pidfd", "no pidfd_open", "pidfd_open fails"])
def exit_watch(request, monkeypatch) -> str:
    """How the worker's exit is watched: a pidfd, or polling where there is none (a Python
    without os.pidfd_open, a kernel without the system call)."""
    if request.param == "no pidfd_open":
        monkeypatch.delattr(os, "pidfd_open")
    elif request.param == "pidfd_open fails":

        def refuse(pid: int, flags: int = 0) -> int:
            raise OSError(errno.ENOSYS, "Function not implemented")

        monkeypatch.setattr(os, "pidfd_open", refuse)
    return request.param


# -- what a warm call reads back --------------------------------------------------------------


async def test_the_worker_gets_the_message_as_utf8_text_and_its_answer_comes_back(tmp_path):
    echo = """
line = sys.stdin.buffer.readline()
open("wire", "wb").write(line)
say(got=json.loads(line))
sys.stdin.readline()
"""
    message = {"prompt": "Résumé : 問題は何ですか ✓"}
    async with running(tmp_path, echo) as process:
        await process.send(message)
        with anyio.fail_after(10):
            assert await process.receive() == {"got": message}
    # The CLI reads the prompt as it would from a terminal, not as \\u escapes.
    assert "Résumé : 問題は何ですか ✓".encode() in (tmp_path / "wire").read_bytes()


async def test_blank_lines_and_noise_between_messages_are_skipped(tmp_path):
    noisy = r"""
sys.stdin.readline()
sys.stdout.write("\n\n   \nloading model...\n[1, 2]\n{not json\n")
sys.stdout.flush()
say(answer=1)
sys.stdout.write("\n")
say(answer=2)
sys.stdin.readline()
"""
    async with running(tmp_path, noisy) as process:
        await process.send({"go": 1})
        with anyio.fail_after(10):
            assert [await process.receive(), await process.receive()] == [
                {"answer": 1},
                {"answer": 2},
            ]
    assert "loading model..." in (tmp_path / "worker.out").read_text()


async def test_a_last_message_without_its_newline_is_read(tmp_path):
    last = """
sys.stdin.readline()
sys.stdout.write(json.dumps({"answer": "last"}))
sys.stdout.flush()
"""
    async with running(tmp_path, last) as process:
        await process.send({"go": 1})
        with anyio.fail_after(10):
            assert await process.receive() == {"answer": "last"}
            await process.exited.wait()
        assert await gone_message(process) == "the worker exited (exit 0)"


async def test_a_message_of_exactly_the_line_limit_is_read_and_one_byte_more_is_dropped(
    tmp_path, monkeypatch
):
    limit = 256 * 1024
    monkeypatch.setattr(worker_module, "MAX_LINE_BYTES", limit)
    big = f"""
def line_of(size, n):
    head = json.dumps({{"n": n, "pad": ""}})
    return json.dumps({{"n": n, "pad": "x" * (size - len(head))}})

sys.stdin.readline()
for n, size in ((1, {limit}), (2, {limit} + 1)):
    sys.stdout.write(line_of(size, n))
    sys.stdout.flush()
    time.sleep(0.3)  # all of it is read before its newline comes
    sys.stdout.write("\\n")
    sys.stdout.flush()
say(n=3)
sys.stdin.readline()
"""
    async with running(tmp_path, big) as process:
        await process.send({"go": 1})
        with anyio.fail_after(10):
            first = await process.receive()
            assert (first["n"], len(json.dumps(first))) == (1, limit)
            assert await process.receive() == {"n": 3}


async def test_what_the_worker_said_between_calls_is_dropped_before_the_next_call(tmp_path):
    chatty = """
say(said="between calls")
line = sys.stdin.readline()
say(answer=json.loads(line)["ask"])
sys.stdin.readline()
"""
    async with running(tmp_path, chatty) as process:
        with anyio.fail_after(10):
            while not says(tmp_path / "worker.out", "between calls"):  # noqa: ASYNC110 - a file
                await anyio.sleep(0.01)
        await anyio.sleep(0.1)  # written down, then queued
        process.drain()
        await process.send({"ask": "the question"})
        with anyio.fail_after(10):
            assert await process.receive() == {"answer": "the question"}


async def test_a_pipe_that_says_try_again_loses_nothing(tmp_path, monkeypatch):
    echo = """
say(got=json.loads(sys.stdin.readline()))
sys.stdin.readline()
"""
    real_write, real_read = os.write, os.read
    refused: list[str] = []
    armed = False

    def write(fd: int, data) -> int:
        if bytes(data[:8]) == b'{"ask": ' and "write" not in refused:
            refused.append("write")
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return real_write(fd, data)

    def read(fd: int, n: int) -> bytes:
        if armed and "read" not in refused:
            refused.append("read")
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return real_read(fd, n)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "read", read)
    async with running(tmp_path, echo) as process:
        armed = True  # the worker prints nothing until asked: the next read is its answer's
        await process.send({"ask": "whole?"})
        with anyio.fail_after(10):
            assert await process.receive() == {"got": {"ask": "whole?"}}
    assert sorted(refused) == ["read", "write"]


async def test_a_send_to_a_worker_that_does_not_read_gives_up_at_the_callers_deadline(tmp_path):
    deaf = """
say(ready=True)
time.sleep(3)
sys.stdin.read()
"""
    async with running(tmp_path, deaf) as process:
        with anyio.fail_after(10):
            await process.receive()
        with anyio.move_on_after(0.3) as scope:
            await process.send({"ask": "x" * (1 << 20)})  # far more than a pipe holds
        assert scope.cancelled_caught


# -- what the user is told when the worker goes -----------------------------------------------


async def test_a_worker_that_exits_is_told_by_its_exit_code(tmp_path, exit_watch):
    async with running(tmp_path, "sys.stdin.readline(); sys.exit(3)") as process:
        await process.send({"go": 1})
        with anyio.fail_after(10):
            await process.exited.wait()
        assert await gone_message(process) == "the worker exited (exit 3)"
        await process.kill(0.5)  # what is left of its tree: it is not "killed" for that
        assert await gone_message(process) == "the worker exited (exit 3)"


async def test_a_worker_that_exits_mid_call_is_told_by_its_exit_code_not_its_ended_output(
    tmp_path, monkeypatch
):
    # Polled, its exit is seen up to 50 ms after its output ends: a receive woken by the end
    # of its output waits for the exit (it said "the worker's output ended" before).
    monkeypatch.delattr(os, "pidfd_open")
    async with running(tmp_path, "sys.stdin.readline(); sys.exit(3)") as process:
        await process.send({"go": 1})
        assert await gone_message(process) == "the worker exited (exit 3)"


async def test_a_worker_that_closes_its_output_but_runs_on_is_told_so(tmp_path):
    async with running(tmp_path, "os.close(1); time.sleep(60)") as process:
        assert await gone_message(process) == "the worker's output ended"


async def test_a_killed_worker_is_told_as_killed_and_is_gone(tmp_path):
    async with running(tmp_path, "say(ready=True); time.sleep(60)") as process:
        with anyio.fail_after(10):
            await process.receive()
        await process.kill(0.5)
        assert await gone_message(process) == "the worker was killed"
        assert not alive(process.pid)


async def test_a_worker_that_could_not_start_is_not_running_and_ends_quietly(tmp_path):
    process = WorkerProcess(
        [str(tmp_path / "no-such-cli")],
        env={},
        cwd=tmp_path,
        call_id=new_call_id(),
        log_out=CappedSink(tmp_path / "worker.out"),
        log_err=CappedSink(tmp_path / "worker.err"),
    )
    async with anyio.create_task_group() as tg:
        with pytest.raises(OSError):
            await process.start(tg)
    assert (process.pid, process.alive, process.exit_code) == (None, False, None)
    assert process.rss_bytes() is None
    with pytest.raises(WorkerGone, match=r"^the worker's stdin is closed$"):
        await process.send({"ask": "anyone?"})
    await process.close(0.5)
    await process.kill(0.5)


async def test_a_send_after_close_says_the_workers_stdin_is_closed(tmp_path):
    async with running(tmp_path, "say(ready=True); sys.stdin.read()") as process:
        with anyio.fail_after(10):
            await process.receive()
        await process.close(0.5)
        with pytest.raises(WorkerGone) as gone:
            await process.send({"ask": "still there?"})
        assert str(gone.value) == "the worker's stdin is closed"


async def test_a_send_to_a_worker_that_closed_its_input_says_it_stopped_reading(tmp_path):
    async with running(tmp_path, "os.close(0); say(ready=True); time.sleep(60)") as process:
        with anyio.fail_after(10):
            await process.receive()
        with pytest.raises(WorkerGone) as gone:
            await process.send({"ask": "still there?"})
        assert str(gone.value).startswith("the worker stopped reading its input (")


async def test_a_worker_whose_exit_another_calls_kill_reaps_is_still_told_by_its_exit_code(
    tmp_path,
):
    with reaper.subreaper() as on:
        if not on:
            pytest.skip("council cannot be a child subreaper here")
        async with running(tmp_path, "sys.stdin.readline(); sys.exit(3)") as process:
            await process.send({"go": 1})
            # It exits; before this loop looks, another call's kill ends by reaping the
            # adopted children that are gone: never one council started itself.
            assert process.pid is not None
            block_until_zombie(process.pid)
            reaper.reap_adopted()
            with anyio.fail_after(10):
                await process.exited.wait()
            assert await gone_message(process) == "the worker exited (exit 3)"


# -- what is left running ---------------------------------------------------------------------


async def test_a_worker_is_ended_even_when_its_caller_is_cancelled(tmp_path):
    for end in ("close", "kill"):
        async with running(tmp_path, "say(ready=True); time.sleep(60)") as process:
            with anyio.fail_after(10):
                await process.receive()
            with anyio.CancelScope() as scope:
                scope.cancel()
                if end == "close":
                    await process.close(0.5, wait_s=0.1)
                else:
                    await process.kill(0.5)
            assert not alive(process.pid), end


async def test_a_start_cancelled_as_it_begins_still_hands_back_its_started_worker(tmp_path):
    # Its caller then kills it (warm.py): a worker it could not see would be lost.
    process = make_worker(tmp_path, "say(ready=True); sys.stdin.read()")
    async with anyio.create_task_group() as tg:
        with anyio.CancelScope() as scope:
            scope.cancel()
            await process.start(tg)
        try:
            assert process.pid is not None
            with anyio.fail_after(10):
                assert await process.receive() == {"ready": True}
        finally:
            await process.kill(0.5)


async def test_close_lets_the_worker_finish_and_exit_by_itself(tmp_path, exit_watch):
    tidy = """
sys.stdin.read()
time.sleep(0.3)
open("saved", "w").write("state")
"""
    async with running(tmp_path, tidy) as process:
        await process.close(0.5)
        assert process.exit_code == 0
    assert (tmp_path / "saved").read_text() == "state"


async def test_after_a_second_ctrl_c_close_kills_the_worker_at_once(tmp_path):
    slow = """
sys.stdin.read()
time.sleep(1)
open("saved", "w").write("state")
"""
    async with running(tmp_path, slow) as process:
        proctree.hurry()
        try:
            await process.close(0.5)
        finally:
            proctree.unhurried()
        assert process.exit_code == -signal.SIGKILL
    assert not (tmp_path / "saved").exists()


async def cancelled_after_ready(tmp_path: Path, script: str) -> WorkerProcess:
    """A worker whose task group (its pumps and exit watcher) was cancelled once it was
    ready, as Ctrl-C cancels a run's tasks before the workers are closed."""
    process = make_worker(tmp_path, script)
    async with anyio.create_task_group() as tg:
        await process.start(tg)
        with anyio.fail_after(10):
            assert await process.receive() == {"ready": True}
        tg.cancel_scope.cancel()
    return process


async def test_close_after_ctrl_c_sees_a_worker_exit_without_its_cancelled_watcher(tmp_path):
    polite = "say(ready=True)\nsys.stdin.read()\n"
    process = await cancelled_after_ready(tmp_path, polite)
    pid = process.pid
    assert pid is not None
    try:
        # It exits as soon as its stdin closes: close must not sit out its whole wait.
        ended = await finishes(lambda: process.close(0.5, wait_s=60), within=20, release=pid)
        assert ended, "close waited for an exit event its cancelled watcher never set"
        assert process.exit_code == 0
    finally:
        await process.kill(0.5)


async def test_a_second_ctrl_c_while_close_waits_kills_the_worker_at_once(tmp_path):
    deaf = "say(ready=True)\nwhile True:\n    time.sleep(1)\n"  # never reads its stdin
    process = await cancelled_after_ready(tmp_path, deaf)
    pid = process.pid
    assert pid is not None

    async def close_then_hurry() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(process.close, 30.0, 60.0)
            await anyio.sleep(0.2)  # close is waiting for the exit by now
            proctree.hurry()

    try:
        ended = await finishes(close_then_hurry, within=20, release=pid)
        assert ended, "a second Ctrl-C did not cut close's wait short"
        assert process.exit_code == -signal.SIGKILL
    finally:
        proctree.unhurried()
        await process.kill(0.5)


async def test_close_kills_a_worker_that_ignores_both_its_closed_input_and_sigterm(tmp_path):
    stubborn = """
signal.signal(signal.SIGTERM, signal.SIG_IGN)
say(ready=True)
while True:
    time.sleep(1)
"""
    async with running(tmp_path, stubborn) as process:
        with anyio.fail_after(10):
            await process.receive()
        pid = process.pid
        assert pid is not None
        ended = await finishes(lambda: process.close(0.2, wait_s=0.2), within=5, release=pid)
        assert ended, "close waited on a worker that would never exit"
        assert process.exit_code == -signal.SIGKILL


async def closes_with_its_descendant(process, pidfile: Path) -> None:
    """Once the worker is ready, the descendant it started (its pid in `pidfile`) is alive,
    and closing the worker kills it."""
    with anyio.fail_after(10):
        await process.receive()
    grandchild = await read_pid(pidfile)
    try:
        assert alive(grandchild)
        await process.close(0.5)
        assert not alive(grandchild)
    finally:
        sigkill(grandchild)


async def test_close_kills_a_descendant_left_in_the_workers_session(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    script = DETACH + f"detach({str(pidfile)!r}, setsid=False)\nsay(ready=True)\nsys.stdin.read()\n"
    async with running(tmp_path, script, marker=False) as process:
        await closes_with_its_descendant(process, pidfile)


async def test_close_kills_a_descendant_that_escaped_session_and_marker(tmp_path):
    # Re-parented to council, a child subreaper, and claimed by the worker's call window.
    pidfile = tmp_path / "grandchild.pid"
    script = DETACH + f"detach({str(pidfile)!r}, setsid=True, env={{}})\nsay(ready=True)\n"
    script += "sys.stdin.read()\n"
    with reaper.subreaper() as on:
        if not on:
            pytest.skip("council cannot be a child subreaper here")
        async with running(tmp_path, script) as process:
            await closes_with_its_descendant(process, pidfile)


async def test_close_kills_a_marked_descendant_started_while_a_slow_start_was_still_going(
    tmp_path, monkeypatch
):
    real = worker_module.start_confined

    def slow(popen, confinement):  # a confined start on a loaded machine
        child = real(popen, confinement)
        time.sleep(1.5)
        return child

    monkeypatch.setattr(worker_module, "start_confined", slow)
    pidfile = tmp_path / "grandchild.pid"
    script = DETACH + f"detach({str(pidfile)!r}, setsid=True)\nsay(ready=True)\nsys.stdin.read()\n"
    async with running(tmp_path, script) as process:
        await closes_with_its_descendant(process, pidfile)


async def test_a_descendant_holding_the_workers_output_hides_neither_its_death_nor_its_end(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(worker_module, "_EOF_AFTER_EXIT_S", 0.2)
    monkeypatch.setattr(worker_module, "_DRAIN_S", 0.2)
    pidfile, late = tmp_path / "grandchild.pid", tmp_path / "speak"
    script = DETACH + f"detach({str(pidfile)!r}, setsid=True, late={str(late)!r})\nsys.exit(5)\n"
    async with running(tmp_path, script, marker=False) as process:
        grandchild = await read_pid(pidfile)
        try:
            with anyio.fail_after(10):
                await process.exited.wait()
            assert await gone_message(process) == "the worker exited (exit 5)"
            # What the descendant says after that is written down, and read by no one.
            late.touch()
            with anyio.fail_after(10):
                while not says(tmp_path / "worker.out", "late"):  # noqa: ASYNC110 - a file
                    await anyio.sleep(0.01)
            await anyio.sleep(0.1)
            ended = await finishes(lambda: process.kill(0.5), within=5, release=grandchild)
            assert ended, "the kill waited for a pipe that a stray descendant holds"
        finally:
            sigkill(grandchild)


# -- memory -----------------------------------------------------------------------------------

TREE = r"""
ready = READY
child = os.fork()
if child == 0:
    grandchild = os.fork()
    if grandchild == 0:
        block = bytearray(32 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        with open(ready + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(ready + ".tmp", ready)
        time.sleep(60)
        os._exit(0)
    os.waitpid(grandchild, 0)
    os._exit(0)
while not os.path.exists(ready):
    time.sleep(0.01)
say(pids=[os.getpid(), child, int(open(ready).read())])
sys.stdin.read()
"""


async def steady(
    measure: Callable[[], int], report: Callable[[], int | None]
) -> tuple[int, int | None]:
    """The tree's memory as measured and as reported, once it held still across the report."""
    for _ in range(50):
        before, reported, after = measure(), report(), measure()
        if before == after:
            return before, reported
        await anyio.sleep(0.05)
    raise AssertionError("the tree's memory never held still")


async def test_the_memory_reported_is_the_whole_trees(tmp_path):
    script = TREE.replace("READY", repr(str(tmp_path / "ready")))
    async with running(tmp_path, script) as process:
        with anyio.fail_after(10):
            pids = (await process.receive())["pids"]
        members = [psutil.Process(pid) for pid in pids]
        measured, reported = await steady(
            lambda: sum(p.memory_info().rss for p in members), process.rss_bytes
        )
        assert reported == measured
        assert measured > 32 * 1024 * 1024  # the grandchild's block is in it
        await process.kill(0.5)
        assert process.rss_bytes() is None


async def test_a_process_of_the_tree_that_ends_while_measured_is_left_out(tmp_path, monkeypatch):
    script = TREE.replace("READY", repr(str(tmp_path / "ready")))
    async with running(tmp_path, script) as process:
        with anyio.fail_after(10):
            root, child, grandchild = (await process.receive())["pids"]
        real = psutil.Process.memory_info

        def memory_info(proc: psutil.Process):
            if proc.pid == grandchild:
                raise psutil.NoSuchProcess(grandchild)
            return real(proc)

        monkeypatch.setattr(psutil.Process, "memory_info", memory_info)
        members = [psutil.Process(root), psutil.Process(child)]
        measured, reported = await steady(
            lambda: sum(real(p).rss for p in members), process.rss_bytes
        )
        assert reported == measured


async def test_out_of_descriptors_just_after_the_worker_started_stops_and_kills_it(
    tmp_path, monkeypatch
):
    # As for a spawned call (test_attempt.py): the open-file limit reached before council's
    # first /proc read of the new worker stops the run (exit 130, the fix named), and the
    # worker that did start is killed and reaped, not left running.
    from council.errors import OutOfDescriptors

    started: list[int] = []

    def out_of_descriptors(pid: int, *args: object) -> None:
        started.append(pid)
        raise OSError(errno.EMFILE, "Too many open files", f"/proc/{pid}/stat")

    monkeypatch.setattr(proctree, "ProcessTree", out_of_descriptors)
    process = make_worker(tmp_path, "time.sleep(600)")
    caught: list[BaseException] = []
    try:
        async with anyio.create_task_group() as tg:
            await process.start(tg)
    except* OutOfDescriptors as group:
        caught = list(group.exceptions)
    (stopped,) = caught
    assert stopped.exit_code == 130
    assert "raise the open-file limit (`ulimit -n`) or seat fewer proxies" in str(stopped)
    (pid,) = started
    assert not psutil.pid_exists(pid)  # killed and reaped: not even a zombie
