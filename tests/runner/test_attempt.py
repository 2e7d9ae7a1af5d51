"""One attempt of a CLI call (`runner/attempt.py`): the CLI's stdin, its output pipes, its exit
status, and the sweep of its process tree, whatever the CLI or the machine does meanwhile."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import anyio
import psutil
import pytest

from council.runner import attempt as attempt_module
from council.runner import reaper, run_probe
from council.runner.attempt import AttemptResult, run_piped
from council.runner.environment import CALL_MARKER, new_call_id
from council.runner.sink import CappedSink

pytestmark = pytest.mark.anyio
ENV = {"PATH": os.defpath, "LANG": "C.UTF-8"}


def python(code: str, *args: str | Path) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", code, *map(str, args)]


async def attempt(
    argv: list[str], *, stdin: bytes | None = None, grace_s: float = 1.0
) -> tuple[AttemptResult, str]:
    """One attempt as a seat call makes it (the call's marker in the environment); returns its
    result and what it printed on stdout."""
    call_id = new_call_id()
    out, err = CappedSink(None, 8 * 1024 * 1024), CappedSink(None, 1024 * 1024)
    result = await run_piped(
        argv,
        stdin=stdin,
        env={**ENV, CALL_MARKER: call_id},
        cwd=Path(tempfile.gettempdir()),
        deadline=anyio.current_time() + 30,
        out=out,
        err=err,
        grace_s=grace_s,
        call_id=call_id,
    )
    return result, out.text()


async def appears(path: Path) -> None:
    with anyio.fail_after(20):
        while not await anyio.Path(path).exists():  # noqa: ASYNC110 - the CLI says so in a file
            await anyio.sleep(0.01)


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# Writes its pid to argv[1] (whole, by a rename), then runs the rest of the script.
SAY_PID = """
import os, sys, time
def say_pid(path):
    with open(path + ".tmp", "w") as handle:
        handle.write(str(os.getpid()))
    os.rename(path + ".tmp", path)
"""


async def test_an_attempt_reports_the_exit_code_what_was_printed_and_how_long_it_ran():
    before = anyio.current_time()
    result, out = await attempt(python("import sys; print('answered'); sys.exit(3)"))
    elapsed = anyio.current_time() - before
    assert (result.exit_code, out, result.timed_out, result.spawn_error) == (
        3,
        "answered\n",
        False,
        None,
    )
    assert 0 < result.duration_s <= elapsed


async def test_a_cli_given_no_prompt_reads_end_of_input_at_once():
    # A --version probe feeds no stdin: a CLI that reads it anyway must not wait for the
    # deadline.
    result = await run_probe(python("import sys; print(len(sys.stdin.read()))"), env=ENV)
    assert (result.exit_code, result.stdout, result.timed_out) == (0, "0\n", False)


async def test_a_cli_that_cannot_start_is_named_with_the_systems_reason(tmp_path):
    missing = tmp_path / "no-such-cli"
    result = await run_probe([str(missing), "--version"], env=ENV)
    # What `council doctor` shows in its PROBLEM column.
    assert result.error == f"cannot start {missing}: No such file or directory"


BANNER_THEN_READ = """
import hashlib, sys
sys.stdout.write("loading...\\n" * 30_000)  # 330 KB, five times what a pipe holds
sys.stdout.flush()
data = sys.stdin.buffer.read()
print(len(data), hashlib.sha256(data).hexdigest())
"""


async def test_a_cli_printing_more_than_a_pipe_holds_before_reading_its_prompt_gets_it_whole():
    prompt = b"a line of a long prompt\n" * 50_000
    result, out = await attempt(python(BANNER_THEN_READ), stdin=prompt)
    assert (result.exit_code, result.timed_out) == (0, False)
    assert out.count("loading...") == 30_000
    assert out.splitlines()[-1].split() == [str(len(prompt)), hashlib.sha256(prompt).hexdigest()]


async def test_where_pidfd_open_is_refused_a_call_still_ends_when_its_cli_exits(monkeypatch):
    # A kernel before 5.3 under a Python built for a newer one (ENOSYS), or a seccomp filter
    # (EPERM): the runner polls for the exit instead.
    def refused(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))

    monkeypatch.setattr(os, "pidfd_open", refused)
    result, out = await attempt(python("print('answered')"))
    assert (result.exit_code, out, result.timed_out) == (0, "answered\n", False)


FORKS_THEN_EXITS = (
    SAY_PID
    + """
if os.fork() == 0:
    say_pid(sys.argv[1])
    time.sleep(60)
    os._exit(0)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
print("answered")
"""
)


async def test_what_a_cli_leaves_running_is_killed_even_when_starting_it_was_slow(
    tmp_path, monkeypatch
):
    """On a busy machine the thread that started the CLI may hand it over seconds later; the
    CLI has forked a child and exited by then. That child is still the call's."""
    pid_file = tmp_path / "child.pid"
    start_confined = attempt_module.start_confined

    def slow_start(start, confinement):
        cli = start_confined(start, confinement)
        deadline = time.monotonic() + 20
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(2.0)
        return cli

    monkeypatch.setattr(attempt_module, "start_confined", slow_start)
    result, out = await attempt(python(FORKS_THEN_EXITS, pid_file))
    assert (result.exit_code, out) == (0, "answered\n")
    assert result.killed
    assert gone(int(pid_file.read_text()))


# The CLI's grandchild leaves the session and clears its environment (no marker) while keeping
# the CLI's stdout and stderr; without a subreaper nothing ties it to the call any more.
HOLDS_THE_PIPES = (
    SAY_PID
    + """
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        say_pid(sys.argv[1])
        # Lets go of the pipes after 10 s, saying so first (in argv[2]).
        hold = "import sys, time; time.sleep(10); open(sys.argv[1], 'w').close()"
        os.execve(sys.executable, [sys.executable, "-c", hold, sys.argv[2]], {})
    os._exit(0)
os.wait()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
print("answered")
"""
)


async def test_a_process_the_sweep_cannot_find_holding_the_output_does_not_keep_a_call_open(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(attempt_module, "_DRAIN_S", 0.3)
    pid_file, released = tmp_path / "escaped.pid", tmp_path / "released"
    try:
        result, out = await attempt(python(HOLDS_THE_PIPES, pid_file, released))
        # Over once the drain's bound passed, while the pipes were still held.
        assert not released.exists()
        assert (result.exit_code, out) == (0, "answered\n")
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)


IGNORES_SIGTERM = (
    SAY_PID
    + """
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
say_pid(sys.argv[1])
time.sleep(60)
"""
)


async def test_a_cancelled_attempt_kills_a_cli_that_ignores_sigterm(tmp_path):
    pid_file = tmp_path / "cli.pid"
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: attempt(python(IGNORES_SIGTERM, pid_file), grace_s=0.3))
        await appears(pid_file)
        tg.cancel_scope.cancel()
    assert gone(int(pid_file.read_text()))


async def test_a_reaped_cli_is_forgotten_so_a_process_reusing_its_pid_is_not_taken_for_ours():
    result, out = await attempt(python("import os; print(os.getpid())"))
    assert result.exit_code == 0
    assert int(out) not in reaper._spawned


WAITS_THEN_FAILS = (
    SAY_PID
    + """
say_pid(sys.argv[1])
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
sys.exit(3)
"""
)


@pytest.mark.skipif(sys.platform != "linux", reason="a child subreaper is Linux only")
async def test_another_calls_sweep_never_takes_the_exit_status_of_a_cli_that_just_exited(
    tmp_path,
):
    """Every sweep ends by reaping the dead children council adopted; the CLI of a running
    call, dead but not yet looked at by its own call, is not one of them."""
    pid_file, go = tmp_path / "cli.pid", tmp_path / "go"
    results: list[tuple[AttemptResult, str]] = []

    async def run() -> None:
        results.append(await attempt(python(WAITS_THEN_FAILS, pid_file, go)))

    with reaper.subreaper() as enabled:  # as a debate's run is
        assert enabled
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await appears(pid_file)
            cli = psutil.Process(int(pid_file.read_text()))
            # From here the event loop is held: the call cannot look at its CLI before the
            # sweep does.
            go.touch()
            deadline = time.monotonic() + 20
            while cli.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
                time.sleep(0.005)  # noqa: ASYNC251 - holding the event loop on purpose
            reaper.reap_adopted()  # how another call's sweep ends (ProcessTree.kill)
    assert results[0][0].exit_code == 3


async def test_out_of_descriptors_just_after_the_start_stops_the_run_and_kills_the_cli(
    tmp_path, monkeypatch
):
    # `ulimit -n` reached between the spawn and the first /proc read of the new child: the run
    # stops as when the spawn itself ran out (exit 130, the fix named), never an internal
    # error, and the CLI that did start is killed and reaped, not left running.
    from council.errors import OutOfDescriptors
    from council.runner import proctree

    pid_file = tmp_path / "pid"
    started: list[int] = []

    def out_of_descriptors(pid: int, *args: object) -> None:
        started.append(pid)
        raise OSError(errno.EMFILE, "Too many open files", f"/proc/{pid}/stat")

    monkeypatch.setattr(proctree, "ProcessTree", out_of_descriptors)
    script = "import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(600)"
    with pytest.raises(OutOfDescriptors) as stopped:
        await attempt(python(script, pid_file))
    assert stopped.value.exit_code == 130
    assert "Too many open files" in str(stopped.value)
    assert "raise the open-file limit (`ulimit -n`) or seat fewer proxies" in str(stopped.value)
    (pid,) = started
    assert gone(pid)
