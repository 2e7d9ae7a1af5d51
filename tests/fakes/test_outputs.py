"""What every fake prints: the answer of its documented headless call, its failure signatures.

The calls, output formats and failure texts are those of ``docs/spec/clis.md``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.helpers import PROMPT, WORKING, Target, answer_of, by_id, documented_call, run
from fakes.install import FakeClis, expected_answer


@by_id(WORKING)
def test_the_documented_headless_call_answers_with_the_prompts_digest(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    argv, stdin = documented_call(target, room)
    result = run(argv, {**env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}, room, stdin=stdin)
    assert result.returncode == 0, result.stderr.decode()
    expected = expected_answer(target.name, PROMPT)
    assert answer_of(target, result.stdout) == expected
    assert expected.startswith(f"FAKE-{target.name} answer ")
    assert expected.endswith(": Review this change: naïve — café ✓ line three")


SIMPLE_CALL = {
    "codex": ["codex", "exec", "--skip-git-repo-check", "-"],
    "claude": ["claude", "-p"],
    "gemini": ["gemini", "-m", "m", "--skip-trust"],
    "qwen": ["qwen"],
    "pi": ["pi", "-p"],
    "kimi-cli": ["kimi", "--quiet"],
    "kimi-code": ["kimi", "-p", PROMPT],
}
FAILURES = {
    # id: {mode: (stream, text, exit code)}
    "codex": {
        "rate_limit": (
            "stderr",
            "ERROR: exceeded retry limit, last status: 429 Too Many Requests",
            1,
        ),
        "auth": (
            "stderr",
            "ERROR: unexpected status 401 Unauthorized: Missing bearer or basic authentication",
            1,
        ),
        "server_error": ("stderr", "ERROR: unexpected status 500 Internal Server Error", 1),
        "connection": ("stderr", "ERROR: stream disconnected before completion", 1),
    },
    "claude": {
        "rate_limit": ("stdout", "API Error: Request rejected (429)", 1),
        "auth": ("stdout", "Not logged in · Please run /login", 1),
        "server_error": ("stdout", 'API Error: 500 {"type":"error","error":{"type":"api_error"', 1),
        "connection": ("stdout", "API Error: Unable to connect to API", 1),
    },
    "gemini": {
        "rate_limit": (
            "stderr",
            '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check '
            'quota).","status":"RESOURCE_EXHAUSTED"}}]',
            1,
        ),
        "auth": ("stderr", "Please set an Auth method in your", 41),
        "server_error": ("stderr", '[API Error: {"error":{"code":500', 1),
        "connection": ("stderr", "fetch failed", 1),
    },
    "qwen": {
        "rate_limit": ("stderr", "[API Error: 429 Too Many Requests]", 1),
        "auth": ("stderr", "[API Error: 401 Incorrect API key provided]", 1),
        "server_error": ("stderr", "[API Error: 500", 1),
        "connection": ("stderr", "[API Error: Connection error.]", 1),
    },
    "pi": {
        "rate_limit": ("stderr", "429 Too Many Requests: rate limit exceeded", 1),
        "auth": ("stderr", "401 Unauthorized: invalid api key", 1),
        "server_error": ("stderr", "500 Internal Server Error", 1),
        "connection": ("stderr", "Connection error.", 1),
    },
    "kimi-cli": {
        "rate_limit": (
            "stdout",
            "Error code: 429 - {'error': {'message': 'rate limit reached'",
            75,
        ),
        "auth": ("stdout", "Error code: 401 - {'error': {'message': 'Invalid Authentication'", 75),
        "server_error": ("stdout", "Error code: 500", 75),
        "connection": ("stdout", "Connection error.", 75),
    },
    "kimi-code": {
        "rate_limit": ("stderr", "provider.rate_limit: 429 Too Many Requests", 1),
        "auth": ("stderr", "provider.auth_error: 401 Unauthorized", 1),
        "server_error": ("stderr", "provider.server_error: 500", 1),
        "connection": ("stderr", "provider.connection_error", 1),
    },
}


@pytest.mark.parametrize("mode", ["auth", "server_error", "connection"])
@by_id(WORKING)
def test_each_failure_mode_prints_the_vendors_signature_on_the_vendors_stream(
    target: Target, mode: str, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis, mode)
    stream, text, code = FAILURES[target.id][mode]
    result = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    assert result.returncode == code
    assert text in getattr(result, stream).decode()
    assert "FAKE-" not in result.stdout.decode()


@by_id(WORKING)
def test_rate_limit_with_times_one_fails_once_then_succeeds(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis, "rate_limit", times=1, retry_after=7)
    stream, text, code = FAILURES[target.id]["rate_limit"]
    first = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    second = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    assert first.returncode == code
    assert text in getattr(first, stream).decode()
    assert "Retry after 7s" in getattr(first, stream).decode()
    assert second.returncode == 0
    assert expected_answer(target.name, PROMPT) in second.stdout.decode()
