"""claude: print mode with a JSON result, read tools only, nothing of the caller's settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Usage
from council.adapters.claude import ClaudeStreamDriver
from council.adapters.warm import WorkerGone

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


# -- warm worker (stream-json): usage per call ---------------------------------------------

CAPTURED = Path(__file__).parents[1] / "data" / "claude"


class Replay:
    """claude's stdout in stream-json mode as captured from the real CLI against the fake
    model server (tests/data/claude: its `control_response` and `result` events, the others
    left out): what it printed after each message, in order, whatever the message says."""

    def __init__(self, version: str, edit=None) -> None:
        lines = (CAPTURED / f"stream-json-{version}.jsonl").read_text().splitlines()
        self.printed = [json.loads(line) for line in lines]
        if edit is not None:
            edit(self.printed)
        self.pending: list[dict] = []
        self.sent: list[dict] = []

    async def send(self, message) -> None:
        self.sent.append(dict(message))
        while self.printed:
            event = self.printed.pop(0)
            self.pending.append(event)
            if event["type"] in ("control_response", "result"):
                return

    async def receive(self) -> dict:
        if not self.pending:
            raise WorkerGone("stdout ended")
        return self.pending.pop(0)


# The three calls of each capture: an answer with 3 tokens read from the cache, a 500 from the
# model server, an answer; `/clear` before the second and the third.
CALLS = ["Question: first? [[fake:cached=3]]", "Question: fail?", "Question: third?"]


async def warm_calls(channel: Replay) -> list:
    driver = ClaudeStreamDriver(adapter_for("claude"))
    await driver.handshake(channel)
    return [(await driver.turn(channel, prompt, Path("."))).verdict for prompt in CALLS]


def user_texts(channel: Replay) -> list[str]:
    return [m["message"]["content"][0]["text"] for m in channel.sent if m["type"] == "user"]


async def test_a_warm_claude_2_1_197_counting_over_the_process_reports_each_calls_rise():
    channel = Replay("2.1.197")
    verdicts = await warm_calls(channel)
    assert user_texts(channel) == [CALLS[0], "/clear", CALLS[1], "/clear", CALLS[2]]
    assert [v.status for v in verdicts] == [Status.OK, Status.RATE_LIMITED, Status.OK]
    # claude printed totals of 5 + 3 cached in, 36 out, $0.0009265 after the first call and
    # the same after the failed one; 12 + 3 in, 72 out, $0.0018615 after the third.
    assert [v.usage for v in verdicts] == [
        Usage(8, 36, 0.0009265),
        Usage(0, 0, 0.0),
        Usage(7, 36, 0.000935),
    ]


async def test_a_warm_claude_2_1_332_counting_per_session_reports_each_calls_own_figures():
    channel = Replay("2.1.332")
    verdicts = await warm_calls(channel)
    assert user_texts(channel) == [CALLS[0], "/clear", CALLS[1], "/clear", CALLS[2]]
    assert [v.status for v in verdicts] == [Status.OK, Status.RATE_LIMITED, Status.OK]
    # `/clear`'s result says 0 there: each call's result has its own figures, the same as
    # claude's own `model_usage_since_last_result` says.
    assert [v.usage for v in verdicts] == [
        Usage(8, 36, 0.0007406),
        Usage(0, 0, 0.0),
        Usage(7, 36, 0.000748),
    ]


def _last_result_counts_from_zero(printed: list[dict]) -> None:
    """A release that would reset its totals after `/clear` printed them: the third call's
    result counts from zero while the `/clear` before it still says the process's totals."""
    last = printed[-1]
    model = last["modelUsage"]["fake-model"]
    model.update(inputTokens=7, cacheReadInputTokens=0, outputTokens=36, costUSD=0.000935)
    last["total_cost_usd"] = 0.000935


async def test_a_warm_figure_below_the_one_clear_printed_is_no_usage_not_a_negative_one():
    verdicts = await warm_calls(Replay("2.1.197", edit=_last_result_counts_from_zero))
    assert verdicts[2].status is Status.OK
    assert verdicts[2].usage is None


def _clear_prints_no_count(printed: list[dict]) -> None:
    printed[-2]["modelUsage"]["fake-model"]["outputTokens"] = "72"


async def test_a_warm_call_after_a_clear_whose_figures_are_unreadable_has_no_usage():
    verdicts = await warm_calls(Replay("2.1.197", edit=_clear_prints_no_count))
    assert verdicts[0].usage == Usage(8, 36, 0.0009265)
    assert verdicts[2].status is Status.OK and verdicts[2].usage is None
