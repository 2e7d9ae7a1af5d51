"""What each vendor CLI is asked and how its failures are read, one table per concern, with a
row for every registered CLI (rows in adapter_tables.py; a CLI added to the registry without a
row fails `test_every_registered_cli_has_a_row`). Written from docs/spec/clis.md, config.md
and the README: the exact argv a seat's model and effort become (flag, preset and
council.yaml in their order), and the wait a rate limit's message buys. The served model and
the isolation flags: test_users_see_adapter_tables_output.py."""

from __future__ import annotations

import pytest
from adapter_tables import (
    EFFORT_MARKS,
    IDS,
    PROMPT,
    ROWS,
    TOOLS,
    argv_of,
    contains,
    effort_args,
    model_args,
    request,
)

from council.adapters import adapter_for, registered
from council.adapters.base import RawResult, Status
from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.runner import RetryPolicy


def test_every_registered_cli_has_a_row():
    assert set(registered()) <= set(TOOLS)


# -- 1. model and effort: which one wins, and the exact argv --------------------------------

MODEL_CASES = [
    # (the seat's model (seat spec, --model, preset), clis.<name>.model) -> sent
    ("seat-model", "config-model", "seat-model"),
    ("seat-model", None, "seat-model"),
    (None, "config-model", "config-model"),
]


@pytest.mark.parametrize(("asked", "configured", "sent"), MODEL_CASES)
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_the_seats_model_beats_the_configured_one(tmp_path, cli, tool, asked, configured, sent):
    argv = argv_of(tool, request(tmp_path, model=asked), model=configured)
    assert contains(argv, model_args(cli, sent)), argv
    others = {"seat-model", "config-model"} - {sent}
    assert not others & set(argv), argv


@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_no_model_anywhere_sends_no_model_flag(tmp_path, cli, tool):
    argv = argv_of(tool, request(tmp_path))
    assert not {"-m", "--model", "--provider"} & set(argv), argv


def test_a_pi_provider_slash_model_picks_the_provider_too(tmp_path):
    argv = argv_of(TOOLS["pi"][0], request(tmp_path, model="openrouter/openai/gpt-5.2"))
    assert contains(argv, ["--provider", "openrouter", "--model", "openai/gpt-5.2"]), argv


EFFORT_CASES = [
    # (the seat's effort, clis.<name>.effort) -> the effort in force
    ("high", "low", "high"),
    ("xhigh", None, "xhigh"),
    (None, "high", "high"),
    (None, "low", "low"),
]


@pytest.mark.parametrize(("asked", "configured", "used"), EFFORT_CASES)
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_the_seats_effort_beats_the_configured_one(tmp_path, cli, tool, asked, configured, used):
    argv = argv_of(tool, request(tmp_path, effort=asked), effort=configured)
    expected = effort_args(tool, used)
    if expected:
        assert contains(argv, expected), argv
        assert sum(m in arg for arg in argv for m in EFFORT_MARKS) == 1, argv
    else:
        assert not any(m in arg for arg in argv for m in EFFORT_MARKS), argv


@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_no_effort_anywhere_sends_no_effort(tmp_path, cli, tool):
    argv = argv_of(tool, request(tmp_path))
    assert not any(m in arg for arg in argv for m in EFFORT_MARKS), argv


# The whole way from a user's flags, preset and council.yaml to the argv: a seat spec beats
# --model, which beats the preset's `models`, which beats `clis.<name>.model`; a seat spec's
# effort beats --effort, which beats the preset's `efforts` for the CLI, then its `effort`,
# then `clis.<name>.effort` (config.md, precedence; debate/plan.py's docstring).
PLAN_CASES = [
    # (seat spec suffix, --model given, --effort, preset models?, preset efforts?) ->
    # (model sent, effort in force)
    (":spec-model#medium", True, "high", True, True, "spec-model", "medium"),
    ("", True, "high", True, True, "flag-model", "high"),
    ("", False, None, True, True, "preset-model", "xhigh"),
    ("", False, None, False, False, "config-model", "low"),
]


@pytest.mark.parametrize(
    ("suffix", "flag_model", "flag_effort", "p_models", "p_efforts", "model", "effort"),
    PLAN_CASES,
)
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_flags_preset_and_config_reach_the_argv_in_order(
    tmp_path, cli, tool, suffix, flag_model, flag_effort, p_models, p_efforts, model, effort
):
    preset = {
        "effort": "low",
        "models": {cli: "preset-model"} if p_models else {},
        "efforts": {cli: "xhigh"} if p_efforts else {},
    }
    config = parse_config(
        {
            "presets": {"mine": preset},
            "clis": {cli: {"model": "config-model", "effort": "medium"}},
        }
    )
    flags = DebateFlags(
        question="q",
        advocate=cli + suffix,
        critic=cli,
        lead=cli,
        preset="mine",
        models=(f"{cli}:flag-model",) if flag_model else (),
        effort=flag_effort,
    )
    seat = resolve_plan(flags, config, lambda name: True).advocate
    adapter = adapter_for(cli, config.clis)
    argv = adapter.build(tool, request(tmp_path, model=seat.model, effort=seat.effort)).argv
    assert contains(argv, model_args(cli, model)), argv
    expected = effort_args(tool, effort)
    if expected:
        assert contains(argv, expected), argv
    else:
        assert not any(m in arg for arg in argv for m in EFFORT_MARKS), argv


# -- 2. failures: rate limit, login, other; and the wait a rate limit buys ------------------

WAITS = [
    ("Rate limit reached. Please retry after 30 seconds.", 30.0),
    ("429 Too Many Requests: retry after 30s", 30.0),
    ("rate limited, retry after 45 sec", 45.0),
    ("Rate limit exceeded: retry after 2 minutes", 120.0),
    ("Rate limit exceeded: retry after 2 min", 120.0),
    ("Rate limit exceeded: retry after 2 mins", 120.0),
    ("429: rate limit, retry after 1m", 60.0),
    ("Too many requests. Please try again in 30s.", 30.0),
    ("Quota exceeded, try again in 20 seconds", 20.0),
    ("Rate limit hit. Try again in 5 minutes", 300.0),
    ("HTTP 429 Too Many Requests\nRetry-After: 7", 7.0),
    ("Error code: 429 - {'error': {'message': 'rate limit'}} retry-after: 1.5", 1.5),
    ("rate_limit_error: retry after 500ms", 0.5),
    ("Rate limited; retry in 30s", 30.0),
    ("429 Too Many Requests. Try again in 1m30s.", 90.0),
    ("Rate limit: try again in 2 minutes and 30 seconds", 150.0),
    ("Rate limit reached. Please retry after 1 hour.", 3600.0),
    ("Quota exceeded. Please try again in 2 hours", 7200.0),
    # The header's number is seconds: the next line's first letter is no unit.
    ("HTTP 429 Too Many Requests\nRetry-After: 7\nmessage: slow down", 7.0),
    ("rate limited\nRetry-After: 9\nserver: envoy", 9.0),
    ("You have hit your usage limit (429). Your limit resets in 1h 2m 3s", 3723.0),
]


@pytest.mark.parametrize(("message", "wait"), WAITS)
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_stated_reset_time_is_the_wait_before_the_retry(cli, tool, stream, message, wait):
    printed = {"stdout": "", "stderr": "", stream: message}
    verdict = adapter_for(cli).classify(RawResult(1, printed["stdout"], printed["stderr"]), PROMPT)
    assert verdict.status is Status.RATE_LIMITED, verdict
    assert RetryPolicy(jitter=0).delay(verdict.status, 0, verdict.retry_after_s) == wait


@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_without_a_stated_time_the_backoff_is_5_then_10_seconds_then_no_retry(cli, tool):
    verdict = adapter_for(cli).classify(RawResult(1, "", "429 Too Many Requests"), PROMPT)
    waits = [
        RetryPolicy(jitter=0).delay(verdict.status, n, verdict.retry_after_s) for n in (0, 1, 2)
    ]
    assert (verdict.status, verdict.retry_after_s, waits) == (
        Status.RATE_LIMITED,
        None,
        [5.0, 10.0, None],
    )


def test_the_backoff_doubles_from_5_seconds_up_to_60():
    policy = RetryPolicy(jitter=0, rate_limit_retries=6)
    waits = [policy.delay(Status.RATE_LIMITED, n, None) for n in range(7)]
    assert waits == [5.0, 10.0, 20.0, 40.0, 60.0, 60.0, None]


# What the CLIs print (clis.md "Failure signatures") -> status; auth is never retried, an
# error once after 1 s, a rate limit after its backoff.
KINDS = [
    ("API Error: Request rejected (429)", Status.RATE_LIMITED),
    (
        '{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests"}',
        Status.RATE_LIMITED,
    ),
    ("Error: [429] RESOURCE_EXHAUSTED: quota exceeded", Status.RATE_LIMITED),
    ("API Error: 500 Internal server error", Status.RATE_LIMITED),
    ("ApiError: RESOURCE_EXHAUSTED, slow down", Status.RATE_LIMITED),
    ("provider.rate_limit: 429 slow down", Status.RATE_LIMITED),
    ("Not logged in · Please run /login", Status.AUTH),
    ('API Error: 401 {"type":"error","error":{"type":"authentication_error"}}', Status.AUTH),
    ("unexpected status 401 Unauthorized: invalid key", Status.AUTH),
    ("Error: invalid x-api-key", Status.AUTH),
    ("403 Forbidden", Status.AUTH),
    ("[API Error: Connection error.]", Status.ERROR),
    ("provider.connection_error", Status.ERROR),
    ("TypeError: cannot read properties of undefined", Status.ERROR),
]
RETRY = {Status.RATE_LIMITED: 5.0, Status.AUTH: None, Status.ERROR: 1.0}


@pytest.mark.parametrize(("message", "status"), KINDS)
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_each_failure_is_classified_and_retried_as_the_spec_says(cli, tool, message, status):
    verdict = adapter_for(cli).classify(RawResult(1, message, ""), PROMPT)
    assert verdict.status is status, verdict
    assert RetryPolicy(jitter=0).delay(verdict.status, 0, verdict.retry_after_s) == RETRY[status]
