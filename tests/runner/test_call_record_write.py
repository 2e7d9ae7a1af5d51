"""A call's response or error file that cannot be written stops the run with a
RecordWriteError naming that file and the `council resume` that continues it, whether the file
cannot be created or a write into it fails halfway (disk full)."""

from __future__ import annotations

import errno
import os
from contextlib import suppress
from pathlib import Path

import pytest

from council.adapters.sim import SimAdapter
from council.errors import RecordWriteError
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from runner.sim import sim_tool

pytestmark = pytest.mark.anyio

PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"


async def stopped_run(record_dir: Path, room: Path) -> RecordWriteError:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
    with pytest.raises(RecordWriteError) as got:
        await run_call(
            SimAdapter(),
            await sim_tool(),
            PROMPT,
            room=room,
            files=CallFiles(record_dir, "advocate-r1"),
            timeouts=Timeouts(soft_s=10, hard_s=15, grace_s=1),
            policy=RetryPolicy(rate_limit_retries=0, other_retries=0),
            environ=environ,
        )
    return got.value


def says_how_to_go_on(error: RecordWriteError, record_dir: Path, path: Path) -> None:
    assert error.path == path
    assert f": {path}: " in str(error)
    assert str(error).endswith(f"then: council resume {record_dir.name}")


@pytest.mark.parametrize("name", ["advocate-r1-response.md", "advocate-r1-response.err"])
async def test_a_response_or_error_file_that_cannot_be_created_stops_the_run_naming_it(
    record_dir, room, name
):
    blocker = record_dir / name
    blocker.mkdir()  # a directory where the file goes: it cannot be opened for writing
    error = await stopped_run(record_dir, room)
    says_how_to_go_on(error, record_dir, blocker)
    assert error.cause.errno == errno.EISDIR
    # Nothing of the stopped call stays open in council (a long MCP server would pile them up).
    assert not [fd for fd in os.listdir("/proc/self/fd") if opened_in(fd, record_dir)]


def opened_in(fd: str, folder: Path) -> bool:
    """Whether this process's descriptor `fd` is a file in `folder`."""
    with suppress(OSError):  # closed since it was listed
        return Path(os.readlink(f"/proc/self/fd/{fd}")).parent == folder
    return False


async def test_a_response_write_that_fails_stops_the_run_naming_the_file(record_dir, room):
    response = record_dir / "advocate-r1-response.md"
    response.symlink_to("/dev/full")  # opens, and every write fails: a full disk
    error = await stopped_run(record_dir, room)
    says_how_to_go_on(error, record_dir, response)
    assert error.cause.errno == errno.ENOSPC
    assert "No space left on device" in str(error)
