"""What one call's outcome tells the record (docs/spec/protocol.md, section 5, the record;
docs/spec/clis.md, token usage): its files' names per attempt, its usage summed over every
attempt, its exit code and served models from the attempt it ended with, and its timeline's
spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adapters.base import Status, Usage
from council.runner import CallFiles, Timeouts
from council.runner.outcome import DEFAULT_GRACE_S, Attempt, CallOutcome

RECORD = Path("/runs/run-1")
FILES = CallFiles(RECORD, "proxy-codex-r2")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (FILES.prompt, "proxy-codex-r2-prompt.md"),
        (FILES.response(1), "proxy-codex-r2-response.md"),
        (FILES.err(1), "proxy-codex-r2-response.err"),
        (FILES.answer(1), "proxy-codex-r2-answer.txt"),
        (FILES.response(2), "proxy-codex-r2-a2-response.md"),
        (FILES.err(2), "proxy-codex-r2-a2-response.err"),
        (FILES.answer(2), "proxy-codex-r2-a2-answer.txt"),
        (FILES.response(3), "proxy-codex-r2-a3-response.md"),
        (FILES.err(3), "proxy-codex-r2-a3-response.err"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_attempts_files_are_named_after_the_call_and_retries_add_their_number(name, expected):
    assert name == RECORD / expected


def attempt(number: int, status: Status = Status.OK, **kw) -> Attempt:
    kw.setdefault("exit_code", 0)
    return Attempt(
        number=number,
        status=status,
        duration_s=kw.pop("duration_s", 1.0),
        detail="",
        argv=("codex",),
        response_file=FILES.response(number),
        err_file=FILES.err(number),
        **kw,
    )


def outcome(*attempts: Attempt) -> CallOutcome:
    last = attempts[-1].status if attempts else Status.ERROR
    return CallOutcome(last, "", "", 3.0, False, attempts=attempts)


def test_a_call_retried_after_a_rate_limit_counts_the_tokens_and_cost_of_every_attempt():
    call = outcome(
        attempt(1, Status.RATE_LIMITED, exit_code=1, usage=Usage(1200, 30, 0.004)),
        attempt(2, Status.RATE_LIMITED, exit_code=1, usage=Usage(1200, 0, 0.001)),
        attempt(3, usage=Usage(1300, 250, 0.02)),
    )
    assert call.usage == Usage(3700, 280, pytest.approx(0.025))


def test_an_attempt_that_reported_nothing_adds_nothing_and_a_missing_figure_stays_missing():
    call = outcome(
        attempt(1, Status.ERROR, exit_code=3),  # crashed before printing any figure
        attempt(2, usage=Usage(800, 90, None)),  # a CLI that prints no price
    )
    assert call.usage == Usage(800, 90, None)
    first_only = outcome(attempt(1, usage=Usage(500, 40, 0.01)), attempt(2, Status.EMPTY))
    assert first_only.usage == Usage(500, 40, 0.01)


def test_a_call_whose_attempts_reported_no_usage_has_none_never_zero():
    assert outcome(attempt(1), attempt(2)).usage is None
    assert outcome().usage is None


def test_the_exit_code_and_served_models_are_the_last_attempts():
    call = outcome(
        attempt(1, Status.RATE_LIMITED, exit_code=1, served=("gpt-5-mini",)),
        attempt(2, exit_code=0, served=("gpt-5.2", "gpt-5-mini")),
    )
    assert call.exit_code == 0
    assert call.served == ("gpt-5.2", "gpt-5-mini")
    failed = outcome(attempt(1, exit_code=0), attempt(2, Status.ERROR, exit_code=3))
    assert failed.exit_code == 3 and failed.served == ()


def test_a_call_with_no_attempt_has_no_exit_code_and_no_served_model():
    assert outcome().exit_code is None
    assert outcome().served == ()


def test_the_timeline_has_one_span_per_attempt_with_its_start_length_and_status():
    call = outcome(
        attempt(1, Status.RATE_LIMITED, started_s=0.0, duration_s=1.5),
        attempt(2, Status.OK, started_s=6.5, duration_s=2.25),
    )
    assert [(s.start_s, s.duration_s, s.status) for s in call.spans] == [
        (0.0, 1.5, "rate_limited"),
        (6.5, 2.25, "ok"),
    ]


def test_the_grace_between_sigterm_and_sigkill_is_three_seconds_unless_given():
    assert DEFAULT_GRACE_S == 3.0
    assert Timeouts(soft_s=60, hard_s=90).grace_s == 3.0
    assert Timeouts(soft_s=60, hard_s=90, grace_s=1).grace_s == 1
