"""A short local command council itself needs (git), synchronous, before any seat exists.

Same rules as a seat call where they matter: an argv list (never a shell), its own process
session, stdin from /dev/null, and on timeout the whole group killed and reaped.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from council.runner import reaper


class LocalTimeout(Exception):
    pass


@dataclass(frozen=True)
class LocalResult:
    returncode: int
    stdout: bytes
    stderr: bytes


def run_local(argv: Sequence[str], *, cwd: Path, timeout_s: float) -> LocalResult:
    """Raises FileNotFoundError when the program is missing, LocalTimeout on timeout."""
    with reaper.spawning():  # council's own child: never taken for a CLI's escaped one
        proc = subprocess.Popen(  # noqa: S603 - an argv list, never a shell
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        reaper.note_spawned(proc.pid)
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise LocalTimeout(f"{argv[0]} took over {timeout_s:g}s") from None
    finally:
        reaper.note_reaped(proc.pid)
    return LocalResult(proc.returncode, stdout, stderr)
