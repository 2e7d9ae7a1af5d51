"""Each adapter reads the real failure texts of its CLI (docs/spec/clis.md) into the right
status, from stdout or stderr, whatever the exit code says."""

from __future__ import annotations

import json

import pytest

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status
from council.adapters.failures import parse_retry_after

PROMPT = "ACTION: CHALLENGE\nQuestion: is this right?"

# (cli, exit code, stdout, stderr, expected status)
REAL_FAILURES = [
    (
        "codex",
        1,
        "",
        "ERROR: exceeded retry limit, last status: 429 Too Many Requests",
        Status.RATE_LIMITED,
    ),
    ("codex", 1, "", "ERROR: unexpected status 500 Internal Server Error", Status.RATE_LIMITED),
    ("codex", 1, "", "ERROR: unexpected status 401 Unauthorized: Missing bearer", Status.AUTH),
    ("codex", 1, "", "ERROR: stream disconnected before completion", Status.ERROR),
    ("claude", 1, "API Error: Request rejected (429)", "", Status.RATE_LIMITED),
    (
        "claude",
        1,
        'API Error: 500 {"type":"error","error":{"type":"api_error"}}',
        "",
        Status.RATE_LIMITED,
    ),
    ("claude", 1, "Not logged in · Please run /login", "", Status.AUTH),
    (
        "gemini",
        1,
        "",
        'Error: [API Error: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]\n  at x (y.js:1)',
        Status.RATE_LIMITED,
    ),
    ("gemini", 41, "", "Please set an Auth method in your settings.json", Status.AUTH),
    ("gemini", 55, "", "Gemini CLI is not running in a trusted directory", Status.AUTH),
    ("gemini", 42, "", "Invalid input", Status.ERROR),
    ("gemini", 53, "", "Maximum session turns exceeded", Status.ERROR),
    ("qwen", 1, "", "[API Error: 429 Too Many Requests]", Status.RATE_LIMITED),
    ("qwen", 1, "", "[API Error: Connection error.]", Status.ERROR),
    ("qwen", 1, "", "[API Error: 401 Incorrect API key provided]", Status.AUTH),
    ("pi", 1, "", "429 Too Many Requests: rate limit exceeded", Status.RATE_LIMITED),
    ("pi", 1, "", "Connection error.", Status.ERROR),
    ("pi", 1, "", "Request timed out.", Status.ERROR),
    (
        "kimi",
        75,
        "Error code: 429 - {'error': {'message': 'rate limit reached'}}",
        "",
        Status.RATE_LIMITED,
    ),
    ("kimi", 75, "Connection error.", "", Status.ERROR),
    (
        "kimi",
        75,
        "Error code: 401 - {'error': {'message': 'Invalid Authentication'}}",
        "",
        Status.AUTH,
    ),
    ("kimi", 1, "", "provider.rate_limit: 429 Too Many Requests", Status.RATE_LIMITED),
    ("kimi", 1, "", "provider.connection_error", Status.ERROR),
]


@pytest.mark.parametrize(("cli", "code", "stdout", "stderr", "expected"), REAL_FAILURES)
def test_real_failure_texts_are_classified(cli, code, stdout, stderr, expected):
    verdict = adapter_for(cli).classify(RawResult(code, stdout, stderr), PROMPT)
    assert verdict.status is expected, verdict.detail


def test_claude_json_error_object_is_read_by_its_api_error_status():
    claude = adapter_for("claude")
    for status, expected in (
        (429, Status.RATE_LIMITED),
        (401, Status.AUTH),
        (529, Status.RATE_LIMITED),
        (400, Status.ERROR),
    ):
        stdout = json.dumps(
            {
                "type": "result",
                "is_error": True,
                "api_error_status": status,
                "result": f"API Error: {status}",
            }
        )
        assert claude.classify(RawResult(1, stdout, ""), PROMPT).status is expected


def test_claude_not_logged_in_inside_a_json_error_is_auth_with_the_login_command():
    stdout = json.dumps(
        {"type": "result", "is_error": True, "result": "Not logged in · Please run /login"}
    )
    verdict = adapter_for("claude").classify(RawResult(1, stdout, ""), PROMPT)
    assert verdict.status is Status.AUTH
    assert "/login" in verdict.detail


def test_auth_failures_name_the_command_that_fixes_them():
    for cli, hint in (("codex", "codex login"), ("gemini", "GEMINI_API_KEY"), ("qwen", "/auth")):
        verdict = adapter_for(cli).classify(RawResult(1, "", "401 Unauthorized"), PROMPT)
        assert hint in verdict.detail


def test_a_nonzero_exit_is_a_failure_even_with_an_answer_on_stdout():
    verdict = adapter_for("pi").classify(RawResult(1, "a plausible answer", ""), PROMPT)
    assert verdict.status is Status.ERROR


def test_exit_zero_with_only_whitespace_is_empty():
    assert adapter_for("pi").classify(RawResult(0, "  \n", ""), PROMPT).status is Status.EMPTY


def test_exit_zero_that_echoes_the_prompt_is_empty():
    assert adapter_for("pi").classify(RawResult(0, PROMPT, ""), PROMPT).status is Status.EMPTY


def test_ordinary_answers_mentioning_numbers_are_not_failures():
    text = "Use 429 as the status for the rate-limit path and keep 500 for server errors."
    assert adapter_for("pi").classify(RawResult(0, text, ""), PROMPT).status is Status.OK


def test_unparseable_json_output_is_an_error_not_a_crash():
    verdict = adapter_for("gemini").classify(RawResult(0, "not json", ""), PROMPT)
    assert verdict.status is Status.ERROR
    assert "unreadable output" in verdict.detail


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("429 Too Many Requests. Retry after 30s", 30),
        ("retry-after: 12", 12),
        ("Please try again in 1.5 seconds", 1.5),
        ("quota resets in 2m 30s", 150),
        ("rate limited, retry after 500ms", 0.5),
        ("429 Too Many Requests", None),
    ],
)
def test_stated_reset_times_are_read(text, seconds):
    assert parse_retry_after(text) == seconds
