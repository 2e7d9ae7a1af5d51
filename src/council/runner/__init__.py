"""The only part of council that starts processes: one seat call, or one quick probe."""

from council.runner import confine, landlock
from council.runner.call import run_call
from council.runner.outcome import Attempt, CallFiles, CallOutcome, Timeouts
from council.runner.probe import ProbeResult, run_probe
from council.runner.retry import RetryPolicy

__all__ = [
    "Attempt",
    "CallFiles",
    "CallOutcome",
    "ProbeResult",
    "RetryPolicy",
    "Timeouts",
    "confine",
    "landlock",
    "run_call",
    "run_probe",
]
