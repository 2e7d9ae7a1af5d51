"""What every vendor adapter must do with its strict fake CLI: the argv is accepted, the
prompt arrives byte for byte, the answer is extracted exactly, and each failure class ends
in the right status with nothing left running."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status
from vendor_lists import vendors

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio

VENDORS = vendors()
PROMPT = (
    "IMPORTANT: You are an independent analyst in a structured technical debate.\n"
    "ACTION: CHALLENGE\nQuestion: Redis or Postgres for sessions? ünïcödé — 中文 ✓\n"
    "  indented line with trailing spaces   \n\n\nlast line without newline"
)


@pytest.mark.parametrize("cli", VENDORS)
async def test_the_adapter_argv_is_accepted_and_the_answer_extracted_exactly(cli, fakes, seat_for):
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == expected_answer(cli, PROMPT)
    assert len(answer_calls(fakes, cli)) == 1


@pytest.mark.parametrize("cli", VENDORS)
async def test_the_prompt_arrives_byte_identical(cli, fakes, seat_for):
    await seat_for(cli).ask(PROMPT)
    (call,) = answer_calls(fakes, cli)
    assert call["stdin"] == PROMPT


@pytest.mark.parametrize("cli", VENDORS)
async def test_the_cli_runs_in_its_room_in_a_new_session_with_stdin_closed(cli, fakes, seat_for):
    seat = seat_for(cli)
    await seat.ask(PROMPT)
    (call,) = answer_calls(fakes, cli)
    assert call["cwd"] == str(seat.room)
    assert call["pgid"] == call["pid"]  # its own process group: the whole tree can be killed
    assert call["stdin_isatty"] is False


@pytest.mark.parametrize("cli", VENDORS)
async def test_the_cli_sees_an_allow_listed_environment(cli, fakes, seat_for, monkeypatch):
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "never-share")
    monkeypatch.setenv("SOME_UNRELATED_TOKEN", "never-share")
    await seat_for(cli).ask(PROMPT)
    env = answer_calls(fakes, cli)[0]["env"]
    assert "CLAUDECODE" not in env and "CLAUDE_CODE_ENTRYPOINT" not in env
    assert "AWS_SECRET_ACCESS_KEY" not in env and "SOME_UNRELATED_TOKEN" not in env
    assert env["TERM"] == "dumb" and env["NO_COLOR"] == "1"


@pytest.mark.parametrize("cli", VENDORS)
async def test_a_rate_limit_once_is_classified_and_retried(cli, fakes, seat_for):
    fakes.set(cli, "rate_limit", times=1, **({"variant": "kimi-cli"} if cli == "kimi" else {}))
    outcome = await seat_for(cli).ask(PROMPT)
    assert [a.status for a in outcome.attempts] == [Status.RATE_LIMITED, Status.OK]
    assert outcome.text == expected_answer(cli, PROMPT)


@pytest.mark.parametrize("cli", VENDORS)
async def test_a_persistent_rate_limit_ends_rate_limited(cli, fakes, seat_for):
    fakes.set(cli, "rate_limit", times=99)
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.RATE_LIMITED
    assert len(outcome.attempts) == 3


@pytest.mark.parametrize("cli", VENDORS)
async def test_missing_credentials_end_auth_at_once_with_a_hint(cli, fakes, seat_for):
    fakes.set(cli, "auth")
    seat = seat_for(cli)
    outcome = await seat.ask(PROMPT)
    assert outcome.status is Status.AUTH, outcome.detail
    assert len(outcome.attempts) == 1
    assert seat.adapter.login_hint in outcome.detail


@pytest.mark.parametrize("cli", VENDORS)
async def test_a_hung_cli_times_out_and_its_tree_is_killed(cli, fakes, seat_for):
    fakes.set(cli, "ignore_term")
    outcome = await seat_for(cli).ask(PROMPT, soft=0.5, hard=1.0, grace=0.5)
    assert outcome.status is Status.TIMEOUT
    assert fakes.leftovers() == []


@pytest.mark.parametrize("cli", VENDORS)
async def test_an_escaped_grandchild_is_killed_when_the_cli_exits(cli, fakes, seat_for):
    fakes.set(cli, "grandchild")
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.OK
    assert fakes.grandchildren(cli)
    assert fakes.leftovers() == []


@pytest.mark.parametrize("cli", VENDORS)
async def test_a_crash_is_an_error_with_the_stderr_tail_after_one_retry(cli, fakes, seat_for):
    fakes.set(cli, "crash")
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.ERROR
    assert len(outcome.attempts) == 2
    assert "Traceback" in outcome.stderr_tail


@pytest.mark.parametrize("cli", VENDORS)
async def test_an_empty_answer_is_retried_once_then_empty(cli, fakes, seat_for):
    fakes.set(cli, "empty")
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.EMPTY
    assert len(outcome.attempts) == 2


@pytest.mark.parametrize("cli", VENDORS)
async def test_an_answer_that_only_echoes_the_prompt_is_empty(cli, fakes, seat_for):
    fakes.set(cli, "echo")
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.EMPTY


@pytest.mark.parametrize("cli", VENDORS)
async def test_invalid_utf8_in_the_answer_is_survived(cli, fakes, seat_for):
    fakes.set(cli, "garbage")
    outcome = await seat_for(cli).ask(PROMPT)
    assert outcome.status is Status.OK, outcome.detail
    assert "\ufffd" in outcome.text  # decoded with replacement, never an exception
    assert outcome.text.startswith(f"FAKE-{cli} answer")
