"""The one exception family council raises on purpose, each carrying its exit code.

The CLI catches `CouncilError`, prints its message as one line on stderr and exits with
`exit_code`; anything else escaping is a bug (traceback under -v).
"""

from __future__ import annotations


class CouncilError(Exception):
    """An expected failure with a one-line message that names the problem and the fix."""

    exit_code: int = 1


class UsageError(CouncilError):
    exit_code = 2


class NoUsableCliError(CouncilError):
    exit_code = 3


class ConfigError(CouncilError):
    exit_code = 4


class DegradedError(CouncilError):
    exit_code = 5


class ReviewGateError(CouncilError):
    exit_code = 6


class InterruptedRun(CouncilError):
    exit_code = 130
