"""One attempt of a CLI that needs a terminal (runner/terminal.py), against small Python
scripts run under a pseudo-terminal: where it runs and what it sees, what lands in the
response file, the exit status and timeout it reports, the interactive prompt a seat is told
about, and no process of its left behind, whether it ends by itself, at its deadline, or by
the caller's cancellation."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
from functools import partial
from pathlib import Path

import anyio
import psutil
import pytest

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, Timeouts, confine, reaper, run_call
from council.runner.attempt import AttemptResult
from council.runner.environment import CALL_MARKER, new_call_id
from council.runner.sink import CappedSink
from council.runner.terminal import run_in_terminal

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "linux", reason="sessions, /proc and a subreaper: Linux"),
]

MIB = 1024 * 1024


class Terminal:
    """A terminal CLI that runs `body` (a Python script), its output in `response`."""

    def __init__(self, tmp_path: Path, body: str, *args: str) -> None:
        self.script = tmp_path / "cli.py"
        self.script.write_text(body)
        self.argv = [sys.executable, "-I", "-S", str(self.script), *args]
        self.response = tmp_path / "response.md"
        self.room = tmp_path / "room"
        self.room.mkdir(exist_ok=True)
        self.call_id = new_call_id()
        self.env = {"PATH": os.environ["PATH"], CALL_MARKER: self.call_id}

    async def run(
        self, *, remaining_s: float = 20.0, argv: list[str] | None = None, **kw
    ) -> AttemptResult:
        out = CappedSink(self.response, MIB)
        try:
            return await run_in_terminal(
                argv or self.argv,
                stdin=None,
                env=self.env,
                cwd=self.room,
                deadline=anyio.current_time() + remaining_s,
                out=out,
                grace_s=1.0,
                call_id=self.call_id,
                prompts=CustomAdapter.interactive_prompts,
                **kw,
            )
        finally:
            out.close()

    def said(self) -> bytes:
        return self.response.read_bytes()


def gone(pid: int) -> bool:
    """Dead and reaped: not even a zombie left in the process table."""
    return not psutil.pid_exists(pid)


def dead(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# -- where it runs and what it sees ----------------------------------------------------------

SURROUNDINGS = """\
import os
size = os.get_terminal_size()
print(os.getcwd())
print(os.environ.get("COUNCIL_SEAT"), os.environ.get("LEAKED"))
print(f"{size.columns}x{size.lines}")
"""


async def test_a_terminal_cli_runs_in_its_room_with_only_its_environment_on_a_wide_screen(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LEAKED", "council's own variable")
    cli = Terminal(tmp_path, SURROUNDINGS)
    cli.env["COUNCIL_SEAT"] = "critic"
    result = await cli.run()
    assert result.exit_code == 0
    # 200 columns: a CLI that wraps its answer to the screen does not cut it at 80.
    assert cli.said().decode().splitlines() == [str(cli.room), "critic None", "200x50"]


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_a_terminal_cli_may_write_only_where_its_confinement_allows(tmp_path):
    target = tmp_path / "project" / "notes.txt"
    target.parent.mkdir()
    body = (
        "import sys\n"
        "try:\n"
        "    open(sys.argv[1], 'w').write('written')\n"
        "    print('written')\n"
        "except OSError as exc:\n"
        "    print(exc.strerror)\n"
    )
    cli = Terminal(tmp_path, body, str(target))
    result = await cli.run(confinement=confine.Confinement((Path("/dev"),)))
    assert result.exit_code == 0
    assert cli.said() == b"Permission denied\r\n"
    assert not target.exists()


# -- what it said and how it ended ---------------------------------------------------------


async def test_a_terminal_clis_exit_status_output_and_duration_are_reported(tmp_path):
    cli = Terminal(tmp_path, "import sys\nprint('Use Redis.')\nsys.exit(3)\n")
    before = anyio.current_time()
    result = await cli.run()
    elapsed = anyio.current_time() - before
    assert result.exit_code == 3 and not result.timed_out and result.spawn_error is None
    assert cli.said() == b"Use Redis.\r\n"
    assert 0 < result.duration_s <= elapsed


async def test_a_terminal_cli_killed_by_a_signal_reports_it_as_a_negative_exit(tmp_path):
    cli = Terminal(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = await cli.run()
    assert result.exit_code == -signal.SIGKILL


async def test_output_that_is_not_utf8_is_kept_as_it_came(tmp_path):
    body = "import os\nos.write(1, b'Use Redis \\xff\\xfe for caching.\\n')\n"
    cli = Terminal(tmp_path, body)
    result = await cli.run()
    assert result.exit_code == 0
    assert cli.said() == b"Use Redis \xff\xfe for caching.\r\n"


async def test_a_cli_that_cannot_be_started_is_a_spawn_error_naming_it(tmp_path):
    missing = tmp_path / "no-such-cli"
    cli = Terminal(tmp_path, "")
    result = await cli.run(argv=[str(missing), "--print"])
    assert result.exit_code is None
    assert result.spawn_error is not None
    assert result.spawn_error.startswith(f"cannot start {missing}: ")
    assert "not found" in result.spawn_error


# -- deadlines -------------------------------------------------------------------------------

SILENT = "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n"


async def test_a_silent_terminal_cli_is_stopped_at_its_deadline_and_reaped(tmp_path):
    cli = Terminal(tmp_path, SILENT)
    # As during a run: council is a subreaper and collects what its calls' trees leave.
    with reaper.subreaper():
        # Well short of pexpect's own read timeout (30 s): the deadline bounds every read.
        with anyio.fail_after(15):
            result = await cli.run(remaining_s=0.5)
    pid = int(cli.said().split()[0])
    assert result.timed_out and result.killed
    assert result.exit_code == -signal.SIGTERM
    assert gone(pid)


async def test_an_attempt_whose_deadline_has_passed_is_a_timeout_with_nothing_read(tmp_path):
    cli = Terminal(tmp_path, "print('Use Redis.')\n")
    result = await cli.run(remaining_s=-1.0)
    assert result.timed_out
    assert cli.said() == b""


async def test_a_quick_cli_with_one_second_left_still_answers(tmp_path):
    cli = Terminal(tmp_path, "")
    echo = shutil.which("echo")
    assert echo is not None
    result = await cli.run(remaining_s=1.0, argv=[echo, "Use Redis."])
    assert not result.timed_out and result.exit_code == 0
    assert cli.said() == b"Use Redis.\r\n"


# -- cancelled by the caller -------------------------------------------------------------------

LATE = """\
import os, time
print(os.getpid(), flush=True)
time.sleep(3)
print("late", flush=True)
"""


async def test_a_cancelled_terminal_call_kills_its_cli_at_once(tmp_path):
    cli = Terminal(tmp_path, LATE)
    async with anyio.create_task_group() as group:
        group.start_soon(partial(cli.run, remaining_s=30.0))
        with anyio.fail_after(15):
            while not (cli.response.exists() and cli.said().strip()):  # noqa: ASYNC110
                await anyio.sleep(0.02)
        group.cancel_scope.cancel()
    pid = int(cli.said().split()[0])
    assert gone(pid)
    # Killed when cancelled, not left to finish: it never got to say more.
    assert b"late" not in cli.said()


# -- processes that escaped the terminal's session --------------------------------------------

ESCAPING = """\
import os, sys, time

def escape(env):
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execve(sys.argv[1], [sys.argv[1], "60"], env)
        print("escaped", pid, flush=True)
        os._exit(0)
    os.wait()

escape(dict(os.environ))  # keeps the call's marker
escape({})  # env -i: no marker
time.sleep(2.5)
print("Use Redis.", flush=True)
"""


async def test_processes_that_left_the_terminals_session_early_are_killed_with_the_call(tmp_path):
    sleep = shutil.which("sleep")
    assert sleep is not None
    cli = Terminal(tmp_path, ESCAPING, sleep)
    with reaper.subreaper() as enabled:
        if not enabled:
            pytest.skip("no child subreaper here")
        result = await cli.run()
    assert result.exit_code == 0
    lines = cli.said().decode().splitlines()
    assert lines[-1] == "Use Redis."
    escaped = [int(line.split()[1]) for line in lines if line.startswith("escaped")]
    assert len(escaped) == 2
    # Both were made seconds before the call ended: the call's window began before them.
    assert all(dead(pid) for pid in escaped)


# -- an interactive prompt -------------------------------------------------------------------


def seat(tmp_path: Path, screen: bytes) -> tuple[CustomAdapter, Tool]:
    """A user-defined terminal CLI that shows `screen` and waits for an answer."""
    script = tmp_path / "asks.py"
    script.write_text(f"import os, time\nos.write(1, {screen!r})\ntime.sleep(60)\n")
    command = (sys.executable, "-I", "-S", str(script))
    settings = CliSettings(name="asks", adapter="custom", command=command, tty=True, input="arg")
    return CustomAdapter(settings), Tool("asks", command)


@pytest.mark.parametrize(
    "screen",
    [
        b"Do you trust this folder? (y/n)",
        # One write: the question is the last of three lines, the one before it also a
        # known prompt, of lower rank.
        b"Starting up\nPlease log in to continue\nDo you trust this folder? (y/n)",
        # Over 4 KB of start-up output first: the question is at the end of the screen.
        b"Loading extensions ...\n" * 300 + b"Do you trust this folder? (y/n)",
    ],
    ids=["alone", "after-other-lines", "after-6kb-of-output"],
)
async def test_a_seat_stopped_at_a_prompt_is_told_the_question_it_stopped_at(
    tmp_path, record_dir, room, screen
):
    adapter, tool = seat(tmp_path, screen)
    outcome = await run_call(
        adapter,
        tool,
        "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n",
        room=room,
        files=CallFiles(record_dir, "critic-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
    )
    assert outcome.status is Status.AUTH
    shown = re.search(r"stopped at an interactive prompt \((.*)\);", outcome.detail)
    assert shown is not None, outcome.detail
    assert shown.group(1) == "Do you trust this folder? (y/n)"
