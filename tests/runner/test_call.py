"""The runner against the simulator's fault injection: every way a CLI can misbehave ends in a
typed outcome within the hard limit, with nothing left running and what it said on disk."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import CustomAdapter
from council.adapters.sim import SimAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from runner.sim import sim_tool

pytestmark = pytest.mark.anyio

FAST_RETRY = RetryPolicy(base_delay_s=0.05, max_delay_s=0.2, other_delay_s=0.01)
PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\nFile: app.py\n"


def sim_env(**faults: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
    env.update({f"COUNCIL_SIM_{k.upper()}": v for k, v in faults.items()})
    return env


async def call(
    record_dir: Path,
    room: Path,
    *,
    soft: float = 10,
    hard: float | None = None,
    grace: float = 3.0,
    policy: RetryPolicy = FAST_RETRY,
    prompt: str = PROMPT,
    cap_bytes: int = 20 * 1024 * 1024,
    **faults: str,
):
    timeouts = Timeouts(soft_s=soft, hard_s=hard or soft * 1.5, grace_s=grace)
    return await run_call(
        SimAdapter(),
        await sim_tool(),
        prompt,
        room=room,
        files=CallFiles(record_dir, "advocate-r1"),
        timeouts=timeouts,
        policy=policy,
        environ=sim_env(**faults),
        cap_bytes=cap_bytes,
    )


async def test_ok_call_writes_prompt_and_response_and_returns_the_answer(record_dir, room):
    outcome = await call(record_dir, room)
    assert outcome.status is Status.OK
    assert "SIMULATED" in outcome.text
    assert (record_dir / "advocate-r1-prompt.md").read_text() == PROMPT
    assert (record_dir / "advocate-r1-response.md").read_text().strip() == outcome.text
    assert (record_dir / "advocate-r1-response.err").exists()
    assert len(outcome.attempts) == 1


class _UnreadableUsage(SimAdapter):
    def read_usage(self, result):
        raise ValueError("a figure in a format this adapter does not know")


async def test_usage_is_none_when_the_cli_reports_none_or_the_adapter_cannot_read_it(
    record_dir, room
):
    plain = await call(record_dir, room)  # the simulator prints no usage
    unreadable = await run_call(
        _UnreadableUsage(),
        await sim_tool(),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, "critic-r1"),
        timeouts=Timeouts(soft_s=10, hard_s=15),
        environ=sim_env(),
    )
    assert plain.status is unreadable.status is Status.OK
    assert plain.usage is None and plain.attempts[0].usage is None
    assert unreadable.usage is None  # never a guess, and the answer still counts


async def test_record_files_are_private(record_dir, room):
    await call(record_dir, room)
    for name in ("advocate-r1-prompt.md", "advocate-r1-response.md", "advocate-r1-response.err"):
        assert (record_dir / name).stat().st_mode & 0o777 == 0o600


async def test_hard_timeout_kills_a_cli_that_ignores_sigterm(record_dir, room):
    outcome = await call(
        record_dir, room, soft=1, hard=1.5, grace=1.0, hang="1", ignore_sigterm="1"
    )
    assert outcome.status is Status.TIMEOUT
    assert outcome.attempts[-1].killed
    # It shrugged off SIGTERM: only the SIGKILL after the grace period ended it.
    assert outcome.exit_code == -signal.SIGKILL
    assert "hard limit of 1.5s" in outcome.detail and "killed" in outcome.detail


async def test_hard_timeout_kills_a_grandchild_that_escaped_the_process_group(record_dir, room):
    outcome = await call(record_dir, room, soft=1, hard=1.5, grace=1.0, hang="1", grandchild="1")
    # The autouse no_orphans fixture fails the test if the escaped grandchild survived.
    assert outcome.status is Status.TIMEOUT


async def test_a_grandchild_holding_stdout_does_not_keep_a_finished_call_alive(record_dir, room):
    outcome = await call(record_dir, room, soft=30, grandchild="1")
    assert outcome.status is Status.OK
    assert "SIMULATED" in outcome.text
    # Ended when the CLI exited: not held open by the grandchild until its timeouts.
    assert not outcome.exceeded_soft
    assert outcome.attempts[-1].killed  # the grandchild, still holding stdout


async def test_soft_timeout_is_reported_and_the_call_goes_on_to_answer(record_dir, room):
    outcome = await call(record_dir, room, soft=0.3, hard=10, delay="1.0")
    assert outcome.status is Status.OK and "SIMULATED" in outcome.text
    assert outcome.exceeded_soft and outcome.latency_s > 0.3


async def test_an_answer_before_the_soft_timeout_is_not_marked_as_exceeding_it(record_dir, room):
    outcome = await call(record_dir, room, soft=20)
    assert outcome.status is Status.OK and not outcome.exceeded_soft


async def test_a_rate_limit_is_retried_then_succeeds(record_dir, room, tmp_path):
    outcome = await call(record_dir, room, rate_limit="1", state_dir=str(tmp_path))
    assert outcome.status is Status.OK
    assert [a.status for a in outcome.attempts] == [Status.RATE_LIMITED, Status.OK]
    assert (record_dir / "advocate-r1-a2-response.md").read_text().strip() == outcome.text
    assert "429" in (record_dir / "advocate-r1-response.err").read_text()


async def test_a_persistent_rate_limit_ends_rate_limited_after_two_retries(
    record_dir, room, tmp_path
):
    outcome = await call(record_dir, room, rate_limit="10", state_dir=str(tmp_path))
    assert outcome.status is Status.RATE_LIMITED
    assert len(outcome.attempts) == 3


async def test_a_stated_reset_time_past_the_hard_limit_stops_retrying(record_dir, room, tmp_path):
    outcome = await call(
        record_dir, room, soft=2, hard=3, rate_limit="10", retry_after="60", state_dir=str(tmp_path)
    )
    assert outcome.status is Status.RATE_LIMITED
    assert len(outcome.attempts) == 1
    assert "no time left for a retry" in outcome.detail


async def test_an_auth_failure_is_never_retried_and_names_the_fix(record_dir, room):
    outcome = await call(record_dir, room, auth="1")
    assert outcome.status is Status.AUTH
    assert len(outcome.attempts) == 1
    assert "not logged in" in outcome.detail.lower()


async def test_empty_output_is_retried_once_then_reported_empty(record_dir, room):
    outcome = await call(record_dir, room, empty="1")
    assert outcome.status is Status.EMPTY
    assert len(outcome.attempts) == 2


async def test_a_crash_is_retried_once_then_reported_with_its_stderr(record_dir, room):
    outcome = await call(record_dir, room, exit="3", stderr="boom: the model exploded")
    assert outcome.status is Status.ERROR
    assert len(outcome.attempts) == 2
    assert "boom: the model exploded" in outcome.stderr_tail
    assert outcome.exit_code == 3


async def test_output_over_the_cap_is_dropped_with_a_marker(record_dir, room):
    cap = 256 * 1024
    outcome = await call(record_dir, room, huge=str(1024 * 1024), cap_bytes=cap)
    response = (record_dir / "advocate-r1-response.md").read_bytes()
    assert outcome.status is Status.OK
    assert b"[council: output cut at" in response
    assert cap <= len(response) < cap + 200
    assert outcome.attempts[-1].dropped_bytes > 700 * 1024


async def test_twenty_five_megabytes_of_output_are_capped_at_twenty(record_dir, room):
    outcome = await call(record_dir, room, huge=str(25 * 1024 * 1024))
    size = (record_dir / "advocate-r1-response.md").stat().st_size
    assert outcome.status is Status.OK
    assert 20 * 1024 * 1024 <= size < 20 * 1024 * 1024 + 200


async def test_invalid_utf8_is_decoded_with_replacement(record_dir, room):
    outcome = await call(record_dir, room, garbage="1")
    assert outcome.status is Status.OK
    assert "\ufffd" in outcome.text and "SIMULATED" in outcome.text


async def test_a_missing_executable_is_an_error_without_retry(record_dir, room):
    tool = Tool("sim", ("/nonexistent/council-sim",))
    outcome = await run_call(
        SimAdapter(),
        tool,
        PROMPT,
        room=room,
        files=CallFiles(record_dir, "critic-r2"),
        timeouts=Timeouts(soft_s=5, hard_s=7.5),
        policy=FAST_RETRY,
    )
    assert outcome.status is Status.ERROR
    assert len(outcome.attempts) == 1
    assert "cannot start" in outcome.detail


async def test_cancelling_a_call_kills_its_process_tree(record_dir, room):
    with anyio.move_on_after(1.0):
        await call(record_dir, room, soft=60, hang="1", grandchild="1", grace=0.5)
    # no_orphans checks that the hung CLI and its escaped grandchild are gone;
    # what the call wrote before it was cancelled is still on disk:
    assert (record_dir / "advocate-r1-prompt.md").read_text() == PROMPT


async def test_what_a_killed_call_had_said_is_on_disk(record_dir, room, tmp_path):
    script = tmp_path / "talks_then_hangs.py"
    script.write_text(
        "import sys, time\n"
        "sys.stdin.read()\n"
        "print('first half of an answer', flush=True)\n"
        "print('a warning', file=sys.stderr, flush=True)\n"
        "time.sleep(60)\n"
    )
    settings = CliSettings(name="slowpoke", adapter="custom", command=(sys.executable, str(script)))
    adapter = CustomAdapter(settings)
    outcome = await run_call(
        adapter,
        Tool("slowpoke", settings.command),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, "proxy-slowpoke-r2"),
        timeouts=Timeouts(soft_s=0.5, hard_s=1.0, grace_s=0.5),
        policy=FAST_RETRY,
    )
    assert outcome.status is Status.TIMEOUT
    assert (record_dir / "proxy-slowpoke-r2-response.md").read_text() == "first half of an answer\n"
    assert (record_dir / "proxy-slowpoke-r2-response.err").read_text() == "a warning\n"


async def test_a_prompt_larger_than_a_pipe_buffer_reaches_the_cli_whole(record_dir, room, tmp_path):
    script = tmp_path / "measures_stdin.py"
    script.write_text(
        "import hashlib, sys\n"
        "data = sys.stdin.buffer.read()\n"
        "print(len(data), hashlib.sha256(data).hexdigest())\n"
    )
    settings = CliSettings(name="measurer", adapter="custom", command=(sys.executable, str(script)))
    prompt = "ACTION: PROPOSAL\n" + "".join(f"line {i} of a long file\n" for i in range(60_000))
    outcome = await run_call(
        CustomAdapter(settings),
        Tool("measurer", settings.command),
        prompt,
        room=room,
        files=CallFiles(record_dir, "proxy-measurer-r2"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        policy=FAST_RETRY,
    )
    data = prompt.encode()
    assert len(data) > 1024 * 1024  # far past the 64 KiB a pipe holds
    assert outcome.status is Status.OK
    assert outcome.text.split() == [str(len(data)), hashlib.sha256(data).hexdigest()]


async def test_without_a_pidfd_calls_still_end_on_exit_and_at_the_hard_limit(
    record_dir, room, monkeypatch
):
    # Linux before 5.3 (and other systems) has no pidfd: the runner polls for the exit.
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    outcome = await call(record_dir, room)
    assert outcome.status is Status.OK and "SIMULATED" in outcome.text
    hung = await call(record_dir, room, soft=0.5, hard=1.0, grace=0.5, hang="1", grandchild="1")
    assert hung.status is Status.TIMEOUT and hung.attempts[-1].killed
