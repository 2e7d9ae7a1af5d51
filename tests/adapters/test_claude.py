"""claude: print mode with a JSON result, read tools only, nothing of the caller's settings."""

from __future__ import annotations

import json

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Usage

from fakes.install import expected_answer, expected_usage

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


async def test_claude_usage_is_its_result_objects_with_the_prompt_cache_counted_as_input(
    fakes, seat_for
):
    fakes.set("claude", "ok", cached_tokens=3, cost_usd=0.0421)
    outcome = await seat_for("claude").ask(PROMPT)
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("claude", PROMPT))
    # The fake reports 3 of the input tokens as cache reads, apart from `input_tokens`.
    assert outcome.usage == Usage(tokens_in, tokens_out, 0.0421)


async def test_a_calls_usage_adds_up_its_attempts_a_failed_one_reporting_zeros(fakes, seat_for):
    fakes.set("claude", "rate_limit", times=1, cost_usd=0.5)
    outcome = await seat_for("claude").ask(PROMPT)
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("claude", PROMPT))
    assert [a.usage for a in outcome.attempts] == [
        Usage(0, 0, 0.0),
        Usage(tokens_in, tokens_out, 0.5),
    ]
    assert outcome.usage == Usage(tokens_in, tokens_out, 0.5)


def test_claude_usage_covers_every_model_of_the_run_as_its_cost_does():
    # `usage` counts the main conversation; `modelUsage` also the side call to a small model.
    result = {
        "type": "result",
        "result": "answer",
        "total_cost_usd": 0.031,
        "usage": {"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 50},
        "modelUsage": {
            "claude-sonnet-4-5": {
                "inputTokens": 100,
                "outputTokens": 50,
                "cacheReadInputTokens": 900,
                "cacheCreationInputTokens": 20,
            },
            "claude-haiku-4-5": {"inputTokens": 30, "outputTokens": 5},
        },
    }
    usage = adapter_for("claude").read_usage(RawResult(0, json.dumps(result), ""))
    assert usage == Usage(100 + 900 + 20 + 30, 50 + 5, 0.031)


@pytest.mark.parametrize(
    "stdout",
    ["plain text, not JSON", '{"type":"result","result":"an answer"}', ""],
    ids=["text", "no-usage", "empty"],
)
def test_claude_output_without_usage_reads_as_none_not_zero(stdout):
    assert adapter_for("claude").read_usage(RawResult(0, stdout, "")) is None


def test_a_claude_figure_that_is_not_a_count_is_refused_not_guessed():
    result = {"type": "result", "usage": {"input_tokens": "12", "output_tokens": 3}}
    with pytest.raises(ValueError):
        adapter_for("claude").read_usage(RawResult(0, json.dumps(result), ""))
