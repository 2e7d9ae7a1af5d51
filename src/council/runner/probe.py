"""A quick command with a short deadline (`--version`), under the same rules as a seat call."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from council.runner.attempt import run_piped
from council.runner.environment import CALL_MARKER, new_call_id
from council.runner.sink import CappedSink

_PROBE_CAP = 256 * 1024


@dataclass(frozen=True)
class ProbeResult:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    error: str | None = None


async def run_probe(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout_s: float = 10.0,
) -> ProbeResult:
    """`env` is the allow-listed environment (`environment.adapter_env`); the probe adds its
    own call marker, so a hung probe's whole tree is found and killed."""
    call_id = new_call_id()
    env = {**env, CALL_MARKER: call_id}
    out, err = CappedSink(None, _PROBE_CAP), CappedSink(None, _PROBE_CAP)
    # A neutral cwd, so a probe never reads the project's own config files.
    raw = await run_piped(
        argv,
        stdin=None,
        env=env,
        cwd=Path(tempfile.gettempdir()),
        deadline=anyio.current_time() + timeout_s,
        out=out,
        err=err,
        grace_s=1.0,
        call_id=call_id,
    )
    return ProbeResult(raw.exit_code, out.text(), err.text(), raw.timed_out, raw.spawn_error)
