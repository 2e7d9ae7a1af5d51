"""What one call leaves for the lead and the record, against small scripted CLIs: its files'
names and modes, the retries as they were made, what of a long answer memory keeps, the tail
of what a failing CLI said, the caller's settings kept when the call makes its own temp dir,
and a record that cannot be written stopping the run with the file named."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from collections.abc import Awaitable
from pathlib import Path

import anyio
import psutil
import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import CustomAdapter
from council.adapters.sim import SimAdapter
from council.errors import RecordWriteError
from council.runner import CallFiles, RetryPolicy, Timeouts, confine, run_call
from runner.sim import sim_tool

pytestmark = pytest.mark.anyio

PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"
STEM = "critic-r1"
MIB = 1024 * 1024
# Two mebibytes of plain words: past the mebibyte of an answer's start that memory keeps and
# the 64 KiB of its end.
LONG_ANSWER = """\
import sys
words = " ".join(f"w{i}" for i in range(300_000))
sys.stdout.write(words + "\\n")
"""


def scripted(
    tmp_path: Path, body: str, *args: str, name: str = "scripted", **settings
) -> tuple[CustomAdapter, Tool]:
    """A user-defined CLI that runs `body` (a Python script) with `args`."""
    script = tmp_path / f"{name}.py"
    script.write_text(body)
    command = (sys.executable, "-I", "-S", str(script), *args)
    adapter = CustomAdapter(CliSettings(name=name, adapter="custom", command=command, **settings))
    return adapter, Tool(name, command)


async def ask(adapter, tool, record_dir: Path, room: Path, **kw):
    kw.setdefault("timeouts", Timeouts(soft_s=20, hard_s=30, grace_s=1))
    return await run_call(adapter, tool, PROMPT, room=room, files=CallFiles(record_dir, STEM), **kw)


# -- the record's files ------------------------------------------------------------------


async def test_the_answer_file_of_a_cli_that_writes_one_is_named_after_the_call(
    tmp_path, record_dir, room
):
    body = "import sys\nopen(sys.argv[1], 'w').write('Use Redis.\\n')\n"
    adapter, tool = scripted(tmp_path, body, "{answer_file}", output="file")
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK and outcome.text == "Use Redis."
    answer = record_dir / f"{STEM}-answer.txt"
    assert answer.read_text() == "Use Redis.\n"
    assert outcome.attempts[0].argv[-1] == str(answer)


async def test_missing_record_and_room_directories_are_made_private_with_their_parents(
    tmp_path,
):
    record_dir = tmp_path / "runs" / "run-1" / "record"
    room = tmp_path / "rooms" / "run-1" / "critic"
    outcome = await ask(SimAdapter(), await sim_tool(), record_dir, room)
    assert outcome.status is Status.OK
    assert (record_dir / f"{STEM}-prompt.md").read_text() == PROMPT
    assert record_dir.stat().st_mode & 0o777 == 0o700
    assert room.stat().st_mode & 0o777 == 0o700


def failing_sim() -> dict[str, str]:
    """This environment with the simulator set to fail every call (exit 3)."""
    sim = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
    return {**sim, "COUNCIL_SIM_EXIT": "3"}


async def test_each_retry_is_numbered_and_starts_after_the_attempt_before_it_ended(
    tmp_path, record_dir, room
):
    body = "import sys\nprint('fatal: the model exploded', file=sys.stderr)\nsys.exit(3)\n"
    adapter, tool = scripted(tmp_path, body)
    policy = RetryPolicy(other_retries=5, other_delay_s=0.01)
    outcome = await ask(adapter, tool, record_dir, room, policy=policy)
    assert outcome.status is Status.ERROR and outcome.exit_code == 3
    attempts = outcome.attempts
    assert [a.number for a in attempts] == [1, 2, 3, 4, 5, 6]
    assert [a.response_file.name for a in attempts] == [f"{STEM}-response.md"] + [
        f"{STEM}-a{n}-response.md" for n in range(2, 7)
    ]
    assert all(a.detail == "exit 3: fatal: the model exploded" for a in attempts)
    # The timeline's starts: seconds after the call's start, in milliseconds, each past the
    # end of the attempt before it (and its retry delay).
    starts = [a.started_s for a in attempts]
    assert 0 <= starts[0] < 1
    for earlier, later in itertools.pairwise(attempts):
        assert later.started_s >= earlier.started_s + earlier.duration_s
    assert all(isinstance(s, float) and s == round(s, 3) for s in starts)
    assert [s.start_s for s in outcome.spans] == starts


async def test_a_quick_call_says_when_it_started_and_that_it_stayed_within_the_soft_limit(
    record_dir, room
):
    before = time.time()
    outcome = await ask(SimAdapter(), await sim_tool(), record_dir, room)
    after = time.time()
    assert outcome.status is Status.OK
    assert before <= outcome.started_at <= after
    assert outcome.exceeded_soft is False  # recorded as false, not as null


async def test_a_failure_with_no_time_left_for_its_retry_keeps_an_empty_text(record_dir, room):
    outcome = await ask(
        SimAdapter(),
        await sim_tool(),
        record_dir,
        room,
        timeouts=Timeouts(soft_s=2, hard_s=3, grace_s=1),
        policy=RetryPolicy(other_delay_s=60),
        environ=failing_sim(),
    )
    assert outcome.status is Status.ERROR and len(outcome.attempts) == 1
    assert "no time left for a retry before the hard limit of 3s" in outcome.detail
    assert outcome.text == ""


# -- what of the output memory keeps -------------------------------------------------------


async def test_a_long_plain_answer_keeps_its_start_and_end_and_counts_the_words_between(
    tmp_path, record_dir, room
):
    adapter, tool = scripted(tmp_path, LONG_ANSWER)
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK
    assert outcome.text.startswith("w0 w1 w2 ") and outcome.text.endswith(" w299999")
    assert "kept on disk only]" in outcome.text and len(outcome.text) < 1.2 * MIB
    # What the word limit's "original ~N words" adds: most of the 300,000 words.
    assert 100_000 < outcome.hidden_words < 300_000
    on_disk = (record_dir / f"{STEM}-response.md").read_text()
    assert len(on_disk.split()) == 300_000


async def test_a_long_answer_file_is_kept_like_a_long_stdout(tmp_path, record_dir, room):
    body = LONG_ANSWER.replace("sys.stdout.write(", "open(sys.argv[1], 'w').write(")
    adapter, tool = scripted(tmp_path, body, "{answer_file}", output="file")
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK
    assert "kept on disk only]" in outcome.text and len(outcome.text) < 1.2 * MIB
    assert 100_000 < outcome.hidden_words < 300_000


async def test_a_long_failing_output_counts_no_hidden_words(tmp_path, record_dir, room):
    adapter, tool = scripted(tmp_path, LONG_ANSWER + "sys.exit(1)\n")
    outcome = await ask(adapter, tool, record_dir, room, policy=RetryPolicy(other_retries=0))
    assert outcome.status is Status.ERROR
    assert outcome.hidden_words == 0  # no answer: nothing for a word limit to count


async def test_a_json_answer_longer_than_the_memory_window_is_read_whole(
    tmp_path, record_dir, room
):
    body = (
        "import json\nprint(json.dumps({'pad': 'x' * (2 * 1024 * 1024), 'answer': 'Use Redis.'}))\n"
    )
    adapter, tool = scripted(tmp_path, body, output="json:answer")
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == "Use Redis."


# -- what a failing CLI said ---------------------------------------------------------------


async def test_the_stderr_tail_is_the_last_twenty_lines(tmp_path, record_dir, room):
    body = (
        "import sys\n"
        "for i in range(1, 31):\n"
        "    print(f'error line {i}', file=sys.stderr)\n"
        "sys.exit(2)\n"
    )
    adapter, tool = scripted(tmp_path, body)
    outcome = await ask(adapter, tool, record_dir, room, policy=RetryPolicy(other_retries=0))
    assert outcome.status is Status.ERROR
    assert outcome.stderr_tail.splitlines() == [f"error line {i}" for i in range(11, 31)]


async def test_a_failing_cli_that_said_why_on_stdout_only_has_that_as_its_tail(
    tmp_path, record_dir, room
):
    body = "import sys\nprint('config error: no such model gpt-9')\nsys.exit(1)\n"
    adapter, tool = scripted(tmp_path, body)
    outcome = await ask(adapter, tool, record_dir, room, policy=RetryPolicy(other_retries=0))
    assert outcome.status is Status.ERROR
    assert outcome.stderr_tail == "config error: no such model gpt-9"


async def test_an_answer_is_not_taken_for_a_stderr_tail(tmp_path, record_dir, room):
    adapter, tool = scripted(tmp_path, "print('Use Redis.')\n")
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK and outcome.text == "Use Redis."
    assert outcome.stderr_tail == ""


async def test_stderr_past_the_cap_is_counted_as_dropped(tmp_path, record_dir, room):
    body = "import sys\nsys.stderr.write('e' * (100 * 1024))\nprint('Use Redis.')\n"
    adapter, tool = scripted(tmp_path, body)
    outcome = await ask(adapter, tool, record_dir, room, cap_bytes=64 * 1024)
    assert outcome.status is Status.OK
    assert outcome.attempts[0].dropped_bytes == 36 * 1024
    err = (record_dir / f"{STEM}-response.err").read_text()
    assert "[council: output cut at 0.0625 MiB; 36864 more bytes dropped]" in err


# -- the caller's settings, when the call makes its own temp dir ---------------------------


async def test_a_call_given_no_retries_is_tried_once(record_dir, room):
    outcome = await ask(
        SimAdapter(),
        await sim_tool(),
        record_dir,
        room,
        policy=RetryPolicy(other_retries=0),
        environ=failing_sim(),
    )
    assert outcome.status is Status.ERROR
    assert len(outcome.attempts) == 1


WRITER = """\
import sys
try:
    with open(sys.argv[1], "w") as handle:
        handle.write("written\\n")
    print("written")
except OSError as exc:
    print(exc.strerror)
"""


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_an_unconfined_call_writes_where_its_user_can(tmp_path, record_dir, room):
    target = tmp_path / "project" / "notes.txt"
    target.parent.mkdir()
    adapter, tool = scripted(tmp_path, WRITER, str(target))
    outcome = await ask(adapter, tool, record_dir, room, confine=False)
    assert outcome.status is Status.OK and outcome.text == "written"
    assert target.read_text() == "written\n"


async def test_a_lean_call_runs_the_cli_with_councils_system_prompt(fakes, record_dir, room):
    fakes.set("gemini", "ok")
    adapter = adapter_for("gemini")
    tool = Tool("gemini", (str(fakes.executable("gemini")),))
    outcome = await ask(adapter, tool, record_dir, room, lean_prompt="You are a council seat.")
    assert outcome.status is Status.OK, outcome.detail
    (call,) = fakes.calls("gemini")
    assert "--policy" in call["argv"]
    system = anyio.Path(call["env"]["GEMINI_SYSTEM_MD"])
    assert system.parent.parent == anyio.Path(room)
    assert await system.read_text() == "You are a council seat."


# -- a terminal CLI ------------------------------------------------------------------------

TERMINAL = """\
import os, sys
try:
    with open(sys.argv[1], "w") as handle:
        handle.write("written\\n")
    wrote = "written"
except OSError as exc:
    wrote = exc.strerror
print(f"TERM={os.environ.get('TERM')} {wrote}")
"""


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_a_terminal_cli_gets_a_capable_terminal_and_is_write_confined(
    tmp_path, record_dir, room
):
    target = tmp_path / "project" / "notes.txt"
    target.parent.mkdir()
    adapter, tool = scripted(tmp_path, TERMINAL, str(target), tty=True, input="arg")
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == "TERM=xterm-256color Permission denied"
    assert not target.exists()


def bystander() -> psutil.Process:
    """A process of the user's started just now, in no call: an orphan of a shell."""
    started = subprocess.run(
        ["sh", "-c", "sleep 60 >/dev/null 2>&1 </dev/null & echo $!"],
        capture_output=True,
        text=True,
        check=True,
    )
    return psutil.Process(int(started.stdout))


@pytest.mark.parametrize("tty", [False, True], ids=["piped", "terminal"])
async def test_a_call_kills_only_its_own_processes(tmp_path, record_dir, room, tty):
    adapter, tool = scripted(tmp_path, "print('Use Redis.')\n", tty=tty, input="arg")
    other = bystander()
    try:
        outcome = await ask(adapter, tool, record_dir, room)
        assert outcome.status is Status.OK and outcome.text == "Use Redis."
        assert other.is_running() and other.status() != psutil.STATUS_ZOMBIE
    finally:
        other.kill()


# -- a record that cannot be written -------------------------------------------------------


async def record_write_error(call: Awaitable[object]) -> RecordWriteError:
    """The RecordWriteError the call raised."""
    with pytest.raises(RecordWriteError) as failed:
        await call
    return failed.value


async def test_a_record_directory_that_cannot_be_made_stops_the_call_naming_the_prompt(
    tmp_path, room
):
    record_dir = tmp_path / "record"
    record_dir.write_text("a file where the record's directory should be\n")
    with pytest.raises(RecordWriteError) as failed:
        await ask(SimAdapter(), await sim_tool(), record_dir, room)
    assert failed.value.path == record_dir / f"{STEM}-prompt.md"
    assert "cannot write the record" in str(failed.value)


async def test_an_answer_file_that_cannot_be_made_stops_the_call_naming_it(
    tmp_path, record_dir, room
):
    (record_dir / f"{STEM}-answer.txt").mkdir()  # in the way
    body = "import sys\nopen(sys.argv[1], 'w').write('Use Redis.\\n')\n"
    adapter, tool = scripted(tmp_path, body, "{answer_file}", output="file")
    error = await record_write_error(ask(adapter, tool, record_dir, room))
    assert error.path == record_dir / f"{STEM}-answer.txt"


@pytest.mark.parametrize(("stream", "suffix"), [("stdout", "md"), ("stderr", "err")])
async def test_a_full_disk_under_a_response_file_stops_the_call_naming_it(
    tmp_path, record_dir, room, stream, suffix
):
    full = record_dir / f"{STEM}-response.{suffix}"
    full.symlink_to("/dev/full")  # every write fails with ENOSPC
    body = f"import sys\nprint('Use Redis.', file=sys.{stream})\nprint('Use Redis.')\n"
    adapter, tool = scripted(tmp_path, body)
    error = await record_write_error(ask(adapter, tool, record_dir, room))
    assert error.path == full
    assert "No space left on device" in str(error)
