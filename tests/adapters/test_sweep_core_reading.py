"""How council reads one finished call of any CLI (the shared part of every adapter,
`adapters/base.py` and `failures.py`), as docs/spec/protocol.md "Retries and failures" says:
a rate limit (429, "rate limit", "quota", "resource exhausted", "overloaded", 5xx, connection
reset) is retried after its stated wait; a missing login (401, 403, invalid key) is `auth`
with the login command; exit 0 with no answer or an echo of the prompt is `empty`; any other
failure is `error` naming its exit code and the line that says what went wrong, with the last
20 lines of stderr kept. Read through a user-defined CLI (it has no reading of its own) and
through the runner, the way a seat's result shows it."""

from __future__ import annotations

import pytest
from sweep_core_helpers import call_script

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Usage
from council.config import parse_config
from council.runner import RetryPolicy

PROMPT = "ACTION: CHALLENGE\nQuestion: should the session cache live in Redis or Postgres?\n"


def mine(**settings: object):
    """A user-defined CLI `mine` (no reading of its own: the shared one)."""
    config = parse_config({"clis": {"mine": {"command": ["mine"], **settings}}})
    return adapter_for("mine", config.clis)


def failed(stderr: str, code: int = 1, stdout: str = ""):
    return mine().classify(RawResult(code, stdout, stderr), PROMPT)


# -- which failure is which: every wording protocol.md names, one row each ---------------

RATE_LIMITED = [
    "HTTP 429",
    "rate limit exceeded for this organization",
    "rate_limit_error",
    "Too Many Requests",
    "You exceeded your current quota",
    "RESOURCE_EXHAUSTED",
    "resource exhausted",
    "the model is overloaded, try later",
    "upstream status: 503",
    "error: 502",
    "HTTP 504 from the gateway",
    "502 Bad Gateway",
    "Internal Server Error",
    "The service is temporarily unavailable: Service Unavailable",
    "read ECONNRESET",
    "connection reset by peer",
]
AUTH = [
    "Not logged in",
    "please login first",
    "Please run /login",
    "HTTP 401",
    "HTTP 403",
    "Unauthorized",
    "request unauthorised",
    "Invalid API key",
    "invalid x-api-key",
    "API key not valid. Please pass a valid API key.",
    "Authentication failed",
    "authentication required",
    "Forbidden: this project cannot use the model",
    "login required",
    "missing API key",
    "Missing credentials",
    # a missing login is never retried, whatever else the line says
    "401 Unauthorized: check your quota project",
]
OTHER = [
    "Connection error.",
    "Error: model `x` does not exist",
    "read 5000 tokens, status 200",
    "Error: request req_4291 failed",  # 429 inside a longer number is no rate limit
    "TypeError: cannot read properties of undefined",
]


# One test per table (the rows are cheap; each test pays the suite's leak check): every row
# that reads wrong is listed.


def seen(printed: str, code: int = 1) -> tuple[Status, float | None, str]:
    """What a user sees of a failed call: its status, the wait before its retry (None: no
    retry), its detail."""
    verdict = failed(printed, code)
    wait = RetryPolicy(jitter=0).delay(verdict.status, 0, verdict.retry_after_s)
    return verdict.status, wait, verdict.detail


def test_a_transient_refusal_is_rate_limited_and_retried_with_backoff():
    # the detail is the line that said so
    expected = {said: (Status.RATE_LIMITED, 5.0, f"mine: {said}") for said in RATE_LIMITED}
    wrong = {said: got for said in RATE_LIMITED if (got := seen(f"mine: {said}")) != expected[said]}
    assert not wrong


def test_a_missing_login_is_auth_and_never_retried():
    expected = {said: (Status.AUTH, None, f"mine is not logged in ({said})") for said in AUTH}
    wrong = {said: got for said in AUTH if (got := seen(f"boot ok\n{said}\nbye")) != expected[said]}
    assert not wrong


def test_any_other_failure_is_an_error_naming_the_exit_code():
    expected = {said: (Status.ERROR, 1.0, f"exit 3: {said}") for said in OTHER}
    wrong = {said: got for said in OTHER if (got := seen(said, code=3)) != expected[said]}
    assert not wrong


def test_the_rate_limited_detail_is_the_first_line_that_says_so():
    verdict = failed("starting\nattempt 1: 429 Too Many Requests\nattempt 2: quota exceeded\n")
    assert verdict.detail == "attempt 1: 429 Too Many Requests"


LOGIN_HINTS = {
    "claude": "run `claude` and type /login, or set ANTHROPIC_API_KEY",
    "codex": "run `codex login`, or set CODEX_API_KEY",
    "gemini": "run `gemini` once to log in, or set GEMINI_API_KEY",
    "pi": "run `pi` and log in with /login",
}


def test_an_auth_failure_names_the_cli_what_it_said_and_the_login_command():
    for cli, hint in LOGIN_HINTS.items():
        verdict = adapter_for(cli).classify(RawResult(1, "", "Error: 401 Unauthorized"), PROMPT)
        assert verdict.status is Status.AUTH
        assert verdict.detail.startswith(f"{cli} is not logged in (Error: 401 Unauthorized); ")
        assert hint in verdict.detail


# -- the telling line of an error -------------------------------------------------------

CRASH = (
    "loading config\n"
    "TypeError: Cannot read properties of undefined (reading 'model')\n"
    "    at handleError (/usr/lib/node_modules/cli/dist/errors.js:10:5)\n"
    '  File "/usr/lib/cli/failure.py", line 3, in <module>\n'
    "╰──────────────────────────╯\n"
    "----\n"
)


def test_an_errors_detail_is_its_last_error_line_not_a_stack_frame_or_a_frame_of_boxes():
    verdict = failed(CRASH, code=1)
    assert verdict.detail == (
        "exit 1: TypeError: Cannot read properties of undefined (reading 'model')"
    )


# Words that mark a line as the one saying what went wrong (with a line after it that has none).
TELLING = [
    "open /etc/mine.toml: permission denied",
    "model gpt-9 not found",
    "cannot reach the proxy",
    "can't parse the answer",
    "unable to start the agent",
    "invalid --model value",
    "connection refused by 127.0.0.1:8080",
    "missing config key `provider`",
    "no such file: prompt.md",
    "the request timed out",
    "aborting: the session was closed",
    "unhandled exception in the worker",
    "the tool call failed",
    "fatal: out of memory",
]


def test_the_line_with_a_word_of_failure_is_the_detail_not_the_last_line():
    wrong = {
        line: detail
        for line in TELLING
        if (detail := failed(f"starting\n{line}\ncleaning up the session\n").detail)
        != f"exit 1: {line}"
    }
    assert not wrong


def test_the_last_error_line_wins_over_an_earlier_one():
    verdict = failed("Error: retrying after a hiccup\nrequest sent\nfatal: the model exploded\n")
    assert verdict.detail == "exit 1: fatal: the model exploded"


def test_without_an_error_word_the_last_worded_line_is_the_detail():
    verdict = failed("warming up\nsomething odd happened here\n---\n", code=7)
    assert verdict.detail == "exit 7: something odd happened here"


def test_the_detail_reads_only_the_last_20_lines():
    lines = ["fatal: an early failure", *(f"progress {n}" for n in range(20))]
    verdict = failed("\n".join(lines), code=2)
    assert verdict.detail == "exit 2: progress 19"


def test_a_silent_failure_says_no_output():
    verdict = failed("", code=137)
    assert verdict.detail == "exit 137: no output"


def test_a_very_long_error_line_is_cut_at_240_characters():
    verdict = failed("Error: " + "x" * 400, code=1)
    assert verdict.detail == "exit 1: Error: " + "x" * 233


def test_a_long_auth_line_is_quoted_up_to_120_characters():
    line = "401 Unauthorized " + "y" * 300
    verdict = failed(line)
    assert verdict.detail == f"mine is not logged in ({line[:120]})"


# -- exit 0: an answer, nothing, an echo, or a killed process ----------------------------


def test_exit_0_with_an_answer_is_ok_and_the_answer_is_stripped():
    verdict = mine().classify(RawResult(0, "\n  Postgres, with a TTL column.  \n", ""), PROMPT)
    assert (verdict.status, verdict.text) == (Status.OK, "Postgres, with a TTL column.")


def test_exit_0_with_nothing_is_empty():
    verdict = mine().classify(RawResult(0, " \n\t", "warning: slow"), PROMPT)
    assert (verdict.status, verdict.detail) == (Status.EMPTY, "exit 0 with no answer")


ECHOES = [
    PROMPT,
    "  ACTION:   CHALLENGE Question: should the session cache live in Redis or Postgres?",
    # a piece of the prompt of 40 characters or more is an echo too
    "should the session cache live in Redis or Postgres?",
]


def test_exit_0_that_only_repeats_the_prompt_is_empty():
    for answer in ECHOES:
        verdict = mine().classify(RawResult(0, answer, ""), PROMPT)
        assert (verdict.status, verdict.detail) == (
            Status.EMPTY,
            "the output only echoes the prompt",
        ), answer


def test_a_short_answer_that_happens_to_be_in_the_prompt_is_an_answer():
    for answer in ("Redis or Postgres?", "Postgres", "CHALLENGE"):
        assert mine().classify(RawResult(0, answer, ""), PROMPT).status is Status.OK, answer


def test_a_process_that_was_killed_is_a_failure_whatever_it_printed():
    verdict = mine().classify(RawResult(None, "half an answer", "Killed"), PROMPT)
    assert verdict.status is Status.ERROR
    assert verdict.detail == "exit None: Killed"


def test_a_json_answer_that_does_not_parse_is_an_error_not_an_answer():
    verdict = mine(output="json:text").classify(RawResult(0, "Sure! {not json", ""), PROMPT)
    assert verdict.status is Status.ERROR
    assert verdict.detail == "unreadable output: expected JSON on stdout"


# -- the wait a rate limit names ------------------------------------------------------------


WAITS = {
    "429: retry after 250ms": 0.25,
    "429: retry after 3 secs": 3.0,
    "429: retry after 2 hrs": 7200.0,
    "quota: resets in 1h": 3600.0,
    "quota: resets in 1 hour 30 minutes": 5400.0,
    "rate limit: retry in 2 min": 120.0,
    "rate limit: retry-after: 4.5": 4.5,
}


def test_the_wait_a_rate_limit_names_is_read_in_its_unit():
    read = {said: seen(said)[:2] for said in WAITS}
    assert read == {said: (Status.RATE_LIMITED, wait) for said, wait in WAITS.items()}


# -- what a call shows through the runner: detail, stderr tail, usage over attempts ------

NOISY = """
import sys
for n in range(30):
    print(f"log line {n}", file=sys.stderr)
print("fatal: the backend refused the model", file=sys.stderr)
sys.exit(3)
"""


@pytest.mark.anyio
async def test_a_failed_call_keeps_the_last_20_lines_of_stderr_and_names_its_exit(tmp_path):
    outcome = await call_script(tmp_path, "noisy", NOISY, PROMPT)
    assert outcome.status is Status.ERROR
    assert len(outcome.attempts) == 2  # one retry, then error
    assert outcome.detail == "exit 3: fatal: the backend refused the model"
    assert outcome.stderr_tail.splitlines() == [
        *(f"log line {n}" for n in range(11, 30)),
        "fatal: the backend refused the model",
    ]


def test_usage_over_attempts_adds_what_each_reported_and_keeps_an_unknown_figure_unknown():
    first = Usage(input_tokens=100, output_tokens=20, cost_usd=None)
    second = Usage(input_tokens=50, output_tokens=5, cost_usd=0.25)
    assert first + second == Usage(150, 25, 0.25)
    assert Usage() + Usage() == Usage(None, None, None)
    assert Usage(None, 7, None) + Usage(3, None, 0.0) == Usage(3, 7, 0.0)
