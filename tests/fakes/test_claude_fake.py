"""The fake ``claude``: its JSON result object and commander's variadic options."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.helpers import CLAUDE, PROMPT, documented_call, run
from fakes.install import FakeClis, expected_answer, expected_usage


def test_claude_json_output_is_one_result_object(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CLAUDE, room)
    result = json.loads(run(argv, env, room, stdin=stdin).stdout)
    assert result["type"] == "result"
    assert result["subtype"] == "success"
    assert result["is_error"] is False
    assert result["num_turns"] == 1
    assert result["result"] == expected_answer("claude", PROMPT)
    assert isinstance(result["session_id"], str)
    assert result["total_cost_usd"] > 0
    assert result["api_error_status"] is None


def test_claude_reports_the_prompt_cache_apart_and_one_usage_entry_per_model(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    CLAUDE.set(fake_clis, cached_tokens=3, cost_usd=0.25)
    argv, stdin = documented_call(CLAUDE, room)
    result = json.loads(run([*argv, "--model", "opus"], env, room, stdin=stdin).stdout)
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("claude", PROMPT))
    usage = result["usage"]
    assert (usage["input_tokens"], usage["cache_read_input_tokens"]) == (tokens_in - 3, 3)
    assert (usage["cache_creation_input_tokens"], usage["output_tokens"]) == (0, tokens_out)
    assert result["total_cost_usd"] == 0.25
    assert result["modelUsage"] == {
        "opus": {
            "inputTokens": tokens_in - 3,
            "outputTokens": tokens_out,
            "cacheReadInputTokens": 3,
            "cacheCreationInputTokens": 0,
            "webSearchRequests": 0,
            "costUSD": 0.25,
            "contextWindow": 200000,
            "maxOutputTokens": 32000,
        }
    }


def test_a_claude_error_result_reports_zero_usage_and_no_model(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    CLAUDE.set(fake_clis, "server_error")
    argv, stdin = documented_call(CLAUDE, room)
    result = json.loads(run(argv, env, room, stdin=stdin).stdout)
    assert result["is_error"] is True and result["api_error_status"] == 500
    assert (result["usage"]["input_tokens"], result["usage"]["output_tokens"]) == (0, 0)
    assert result["modelUsage"] == {} and result["total_cost_usd"] == 0


def test_claude_tools_flag_swallows_a_following_prompt_like_commanders_variadic_option(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    result = run(["claude", "-p", "--tools", "Read", "the prompt"], env, room)
    assert result.returncode == 1
    assert "Input must be provided" in result.stderr.decode()


def test_claude_json_failures_carry_is_error_and_the_api_status(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CLAUDE, room)
    outcomes = {}
    for mode in ("rate_limit", "auth", "server_error"):
        fake_clis.set("claude", mode)
        result = run(argv, env, room, stdin=stdin)
        outcomes[mode] = (result.returncode, json.loads(result.stdout))
    assert {code for code, _ in outcomes.values()} == {1}
    limited, auth, server = (outcomes[m][1] for m in ("rate_limit", "auth", "server_error"))
    assert limited["is_error"] is True
    assert limited["api_error_status"] == 429
    assert limited["result"] == "API Error: Request rejected (429) · Rate limited"
    assert auth["is_error"] is True
    assert auth["result"] == "Not logged in · Please run /login"
    assert auth["api_error_status"] is None  # as 2.1.197 prints it when not logged in
    assert server["api_error_status"] == 500
