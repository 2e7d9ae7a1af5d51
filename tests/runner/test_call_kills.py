"""What a call kills when it ends, times out or is cancelled (README: "the whole process tree
is killed ... including grandchildren that left the process group"): here the CLI's children
carry no marker (started with a clean environment, as a node worker or an MCP server may be),
so once re-parented away from the CLI nothing but the call's own sweep can find them, and the
suite's orphan check cannot see them either: each test looks for them itself."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import anyio
import psutil
import pytest

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call

pytestmark = pytest.mark.anyio

SLEEPER = [sys.executable, "-I", "-S", "-c", "import time; time.sleep(600)"]
DEAF = [
    sys.executable,
    "-I",
    "-S",
    "-c",
    "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\ntime.sleep(600)",
]

# Starts one child (`how`: "group" stays in the CLI's process group, "own-group" moves to a
# process group of its own in the CLI's session), prints its pid, then `then`: "exit" or
# "hang".
CLI = """\
import json, subprocess, sys, time
argv, how, then = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
kid = subprocess.Popen(
    argv, env={}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    process_group=0 if how == "own-group" else None,
)
kid.stdout.readline() if b"ready" in argv[-1].encode() else None
print(kid.pid, flush=True)
if then == "hang":
    time.sleep(600)
"""


def cli(tmp_path: Path, argv: list[str], how: str, then: str) -> tuple[CustomAdapter, Tool]:
    script = tmp_path / "parent.py"
    script.write_text(CLI)
    command = (sys.executable, "-I", "-S", str(script), json.dumps(argv), how, then)
    return CustomAdapter(CliSettings(name="parent", adapter="custom", command=command)), Tool(
        "parent", command
    )


def pid_in(path: Path) -> int:
    return int(path.read_text().split()[0])


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@contextlib.contextmanager
def cleanup(record_dir: Path):
    """Kill whatever child the CLI reported, should the call have left it."""
    try:
        yield
    finally:
        response = record_dir / "parent-r1-response.md"
        with contextlib.suppress(OSError, ValueError, IndexError, psutil.Error):
            psutil.Process(pid_in(response)).kill()


async def ask(adapter, tool, record_dir, room, timeouts):
    return await run_call(
        adapter,
        tool,
        "ACTION: PROPOSAL\nQuestion: Redis?\n",
        room=room,
        files=CallFiles(record_dir, "parent-r1"),
        timeouts=timeouts,
        policy=RetryPolicy(rate_limit_retries=0, other_retries=0),
    )


@pytest.mark.parametrize("how", ["group", "own-group"])
async def test_a_cli_that_exits_leaving_a_child_without_its_marker_takes_it_along(
    tmp_path, record_dir, room, how
):
    adapter, tool = cli(tmp_path, SLEEPER, how, "exit")
    with cleanup(record_dir):
        outcome = await ask(adapter, tool, record_dir, room, Timeouts(20, 30, 1))
        assert outcome.status is Status.OK, outcome.detail
        assert outcome.attempts[0].killed  # something of its tree still ran
        assert gone(int(outcome.text))


async def test_at_the_hard_limit_a_child_deaf_to_sigterm_is_killed_with_its_cli(
    tmp_path, record_dir, room
):
    adapter, tool = cli(tmp_path, DEAF, "group", "hang")
    with cleanup(record_dir):
        outcome = await ask(adapter, tool, record_dir, room, Timeouts(0.5, 1, 0.5))
        assert outcome.status is Status.TIMEOUT
        assert gone(pid_in(record_dir / "parent-r1-response.md"))


async def test_a_cancelled_call_kills_its_clis_children_too(tmp_path, record_dir, room):
    adapter, tool = cli(tmp_path, SLEEPER, "own-group", "hang")
    response = record_dir / "parent-r1-response.md"
    with cleanup(record_dir):
        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, adapter, tool, record_dir, room, Timeouts(60, 90, 1))
            # Cancelled once the CLI has said which child it started: an event, not a clock.
            while not (response.exists() and response.read_text().strip()):  # noqa: ASYNC110
                await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
        assert gone(pid_in(response))
