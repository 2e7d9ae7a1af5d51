"""The fake ``claude``: its JSON result object and commander's variadic options."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.helpers import CLAUDE, PROMPT, documented_call, run
from fakes.install import FakeClis, expected_answer


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
    assert set(result["usage"]) >= {"input_tokens", "output_tokens"}
    assert "api_error_status" not in result


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
    assert "api_error_status" not in auth
    assert server["api_error_status"] == 500
