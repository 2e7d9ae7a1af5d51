"""The retry policy of docs/spec/protocol.md: what is retried, how often, after how long."""

from __future__ import annotations

import random

from council.adapters.base import Status
from council.runner import RetryPolicy


def policy(seed: int = 1) -> RetryPolicy:
    return RetryPolicy(rng=random.Random(seed))


def test_rate_limits_back_off_from_five_seconds_doubling_with_jitter():
    for seed in range(50):
        first = policy(seed).delay(Status.RATE_LIMITED, 0, None)
        second = policy(seed).delay(Status.RATE_LIMITED, 1, None)
        assert 4.0 <= first <= 6.0
        assert 8.0 <= second <= 12.0
    # The jitter spreads both ways: seats limited together do not retry together.
    firsts = [policy(seed).delay(Status.RATE_LIMITED, 0, None) for seed in range(50)]
    assert min(firsts) < 4.5 and max(firsts) > 5.5


def test_backoff_is_capped_at_sixty_seconds():
    wide = RetryPolicy(rate_limit_retries=10, rng=random.Random(3))
    assert all(wide.delay(Status.RATE_LIMITED, n, None) <= 60.0 for n in range(10))
    assert wide.delay(Status.RATE_LIMITED, 8, None) >= 48.0


def test_rate_limits_get_at_most_two_retries():
    assert policy().delay(Status.RATE_LIMITED, 2, None) is None


def test_a_stated_reset_time_replaces_the_backoff():
    assert policy().delay(Status.RATE_LIMITED, 0, 17.0) == 17.0
    assert policy().delay(Status.RATE_LIMITED, 0, 0.0) == 0.0  # "retry now" means now
    assert policy().delay(Status.RATE_LIMITED, 0, -3.0) == 0.0  # a reset already past


def test_auth_and_timeout_are_never_retried():
    assert policy().delay(Status.AUTH, 0, None) is None
    assert policy().delay(Status.TIMEOUT, 0, None) is None
    assert policy().delay(Status.OK, 0, None) is None


def test_empty_and_error_are_retried_once():
    for status in (Status.EMPTY, Status.ERROR):
        assert policy().delay(status, 0, None) is not None
        assert policy().delay(status, 1, None) is None


def test_a_stated_reset_time_never_buys_a_third_retry():
    assert policy().delay(Status.RATE_LIMITED, 2, 5.0) is None
    assert policy().delay(Status.RATE_LIMITED, 1, 5.0) == 5.0


def test_an_empty_answer_or_a_crash_is_retried_after_one_second():
    assert policy().delay(Status.EMPTY, 0, None) == 1.0
    assert policy().delay(Status.ERROR, 0, None) == 1.0
    # A reset time only concerns rate limits.
    assert policy().delay(Status.ERROR, 0, 30.0) == 1.0
