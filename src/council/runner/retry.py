"""When to try a seat call again, and after how long (docs/spec/protocol.md, "Retries and
failures").

The policy looks only at the outcome's Status, never at error text: the adapters have already
turned text into a Status.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from council.adapters.base import Status


@dataclass(frozen=True)
class RetryPolicy:
    base_delay_s: float = 5.0
    max_delay_s: float = 60.0
    jitter: float = 0.2  # each backoff is scaled by a random factor in [1 - jitter, 1 + jitter]
    rate_limit_retries: int = 2
    other_retries: int = 1  # empty output, or another failure
    other_delay_s: float = 1.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, status: Status, retries_done: int, retry_after_s: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None when there is none.

        `retries_done` counts every retry so far, whatever its reason, so a call is tried
        at most 1 + rate_limit_retries times in all.
        """
        if status is Status.RATE_LIMITED:
            if retries_done >= self.rate_limit_retries:
                return None
            if retry_after_s is not None:
                return max(0.0, retry_after_s)
            backoff = min(self.max_delay_s, self.base_delay_s * 2**retries_done)
            scale = self.rng.uniform(1 - self.jitter, 1 + self.jitter)
            return min(self.max_delay_s, backoff * scale)
        if status in (Status.EMPTY, Status.ERROR):
            return self.other_delay_s if retries_done < self.other_retries else None
        return None  # ok, auth (a retry cannot log in) and timeout (the hard limit is spent)
