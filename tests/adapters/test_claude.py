"""claude: print mode with a JSON result, read tools only, nothing of the caller's settings."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: RESPOND\nQuestion: keep the cache?"


async def test_claude_sees_only_read_tools_and_none_of_the_callers_settings(fakes, seat_for):
    await seat_for("claude").ask(PROMPT)
    argv = answer_calls(fakes, "claude")[0]["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    assert argv[argv.index("--tools") + 1] == "Read,Grep,Glob"
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert "--strict-mcp-config" in argv and "--no-session-persistence" in argv
    assert "--dangerously-skip-permissions" not in argv


async def test_claude_effort_and_model_flags(fakes, seat_for):
    outcome = await seat_for("claude").ask(PROMPT, model="opus", effort="max")
    argv = answer_calls(fakes, "claude")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("--model") + 1] == "opus"
    assert argv[argv.index("--effort") + 1] == "max"


async def test_an_effort_claude_does_not_know_is_left_out(fakes, seat_for):
    outcome = await seat_for("claude").ask(PROMPT, effort="minimal")
    assert outcome.status is Status.OK
    assert "--effort" not in answer_calls(fakes, "claude")[0]["argv"]


async def test_nested_claude_loses_the_ide_markers_but_keeps_its_login(
    fakes, seat_for, monkeypatch
):
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_SSE_PORT", "4242")
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "token")
    await seat_for("claude").ask(PROMPT)
    env = answer_calls(fakes, "claude")[0]["env"]
    assert "CLAUDECODE" not in env and "CLAUDE_CODE_SSE_PORT" not in env
    assert env["CLAUDE_CODE_OAUTH_TOKEN"] == "token"
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "1"  # council's retry policy is the one in force


async def test_a_server_error_reported_in_claudes_json_is_retried(fakes, seat_for):
    fakes.set("claude", "server_error")
    outcome = await seat_for("claude").ask(PROMPT)
    assert outcome.status is Status.RATE_LIMITED
    assert len(outcome.attempts) == 3
