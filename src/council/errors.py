"""Exit codes, and the one exception family council raises on purpose, each carrying its code.

The command line's edge (`council.cli.main`) catches `CouncilError`, prints its message as one
line on stderr and exits with `exit_code`; anything else escaping is a bug (traceback under -v).
The codes are those of docs/spec/protocol.md section 8.
"""

from __future__ import annotations

import errno
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1  # a bug
    USAGE = 2  # bad flags or input
    NO_CLI = 3  # no usable CLI for a required seat
    CONFIG = 4
    DEGRADED = 5  # no quorum, or no DECISION could be synthesized
    REVIEW_GATE = 6  # `review` found a blocking finding
    DECISION_CHANGED = 7  # `adr --recheck`: the new panel ruled that the decision changed
    CHECK_SPLIT = 8  # `check`: no position is held by more than half of the answers
    CHECK_INSUFFICIENT = 9  # `check`: fewer than two seats gave a position
    STILL_RUNNING = 75  # `wait` timed out while the run goes on (EX_TEMPFAIL)
    INTERRUPTED = 130  # 128 + SIGINT
    BROKEN_PIPE = 141  # 128 + SIGPIPE: stdout's reader went away, as a shell tool exits

    @classmethod
    def of_status(cls, status: str) -> ExitCode:
        """The exit code of a run that ended with `status` (state.json's `status`)."""
        return _BY_STATUS[status]


_BY_STATUS = {
    "completed": ExitCode.OK,
    "degraded": ExitCode.DEGRADED,
    "failed": ExitCode.NO_CLI,
    "interrupted": ExitCode.INTERRUPTED,
}


class CouncilError(Exception):
    """An expected failure with a one-line message that names the problem and the fix."""

    exit_code: ExitCode = ExitCode.INTERNAL


class UsageError(CouncilError):
    exit_code = ExitCode.USAGE


class NoUsableCliError(CouncilError):
    exit_code = ExitCode.NO_CLI


class ConfigError(CouncilError):
    exit_code = ExitCode.CONFIG


class InterruptedRun(CouncilError):
    exit_code = ExitCode.INTERRUPTED


class RecordWriteError(InterruptedRun):
    """A write into a run's record failed (read-only, ENOSPC, ...). The run stops where it is,
    like an interrupted one (exit 130): the record is consistent up to its last good write and
    `council resume` continues from there once the disk is fixed. Not exit 1: it is no bug."""

    def __init__(self, path: object, cause: OSError, run_id: str | None = None) -> None:
        self.path = path
        self.cause = cause
        why = cause.strerror or str(cause)
        then = f"council resume {run_id}" if run_id else "council resume"
        super().__init__(
            f"cannot write the record: {path}: {why}; the run stopped there, its record "
            f"whole up to that point; {_fix_for(cause)}, then: {then}"
        )


class OutOfDescriptors(InterruptedRun):
    """council itself ran out of file descriptors starting a CLI (`ulimit -n` too low for the
    seats): not that seat's failure but the run's, which stops where it is, resumable, as a
    record that cannot be written stops it (exit 130)."""

    def __init__(self, program: str, cause: OSError, run_id: str | None = None) -> None:
        self.program = program
        self.cause = cause
        then = f"council resume {run_id}" if run_id else "council resume"
        super().__init__(
            f"cannot start {program}: {cause.strerror or cause}; the run stopped there, its "
            f"record whole up to that point; {_fix_for(cause)}, then: {then}"
        )


def out_of_descriptors(cause: OSError) -> bool:
    return cause.errno in (errno.EMFILE, errno.ENFILE)


def _fix_for(cause: OSError) -> str:
    """What the user can do about a failed write, by what failed."""
    if out_of_descriptors(cause):  # the process's (or system's) descriptors
        return "raise the open-file limit (`ulimit -n`) or seat fewer proxies"
    if cause.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free space"
    if cause.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "fix the permissions"
    return "free space or fix the permissions"
