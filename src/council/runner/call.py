"""`run_call`: one seat call from prompt to typed outcome, with the retry policy applied.

The caller (the lead) gets a `CallOutcome` whatever happens: the runner never raises for a
CLI's failure, only for cancellation, which it re-raises after killing the process tree.
Everything the call produced is on disk as it arrives: the prompt before the start, and each
attempt's stdout and stderr while the CLI writes them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from council.adapters.base import (
    Adapter,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Verdict,
    tail,
)
from council.atomicio import write_private
from council.errors import RecordWriteError
from council.runner.attempt import AttemptResult, run_piped
from council.runner.confine import call_confinement
from council.runner.environment import adapter_env, new_call_id
from council.runner.outcome import Attempt, CallFiles, CallOutcome, Timeouts
from council.runner.retry import RetryPolicy
from council.runner.rooms import place_room_files
from council.runner.sink import DEFAULT_CAP_BYTES, CappedSink

if TYPE_CHECKING:
    from council.runner.warm import WarmWorker

# How much of a plain-text answer memory keeps from its start (its last 64 KiB are kept too):
# some 150,000 words, far past any word limit.
TEXT_WINDOW_BYTES = 1024 * 1024


async def run_call(
    adapter: Adapter,
    tool: Tool,
    prompt: str,
    *,
    room: Path,
    files: CallFiles,
    timeouts: Timeouts,
    policy: RetryPolicy | None = None,
    model: str | None = None,
    effort: str | None = None,
    environ: Mapping[str, str] | None = None,
    cap_bytes: int = DEFAULT_CAP_BYTES,
    tmp_dir: Path | None = None,
    confine: bool = True,
    warm: WarmWorker | None = None,
    lean_prompt: str | None = None,
) -> CallOutcome:
    """`tmp_dir`: the CLI's TMPDIR (None: a private one for this call, removed after it).
    `confine`: run it under write confinement where the kernel has it (runner/confine.py).
    `warm`: the seat's warm worker, which runs each attempt in a fresh session while it can
    (runner/warm.py); an attempt it cannot take, or must have classified again, spawns.
    `lean_prompt`: council's system prompt when the call may run lean (`Request.lean_prompt`).
    A warm worker runs with the tools it started with: a call that may not run lean never
    runs on a worker started lean (it spawns, with its tools); a lean call may run on a
    worker started as usual."""
    policy = policy or RetryPolicy()
    if tmp_dir is None:
        # Never the shared temp dir (the user's project may live there): one of its own.
        with _private_tmp() as own:
            return await run_call(
                adapter,
                tool,
                prompt,
                room=room,
                files=files,
                timeouts=timeouts,
                policy=policy,
                model=model,
                effort=effort,
                environ=environ,
                cap_bytes=cap_bytes,
                tmp_dir=own,
                confine=confine,
                warm=warm,
                lean_prompt=lean_prompt,
            )
    # A few kilobytes into the page cache: cheaper inline than a thread hop per call, which
    # sixteen seats asked at once would queue behind each other.
    with _record_write(files, files.prompt):
        _prepare(files, room, prompt)

    start = anyio.current_time()
    started_at = time.time()
    hard_deadline = start + timeouts.hard_s
    attempts: list[Attempt] = []
    verdict = Verdict(Status.ERROR, detail="not started")
    last_err = ""
    hidden_words = 0

    number = 0
    retries = 0  # what the retry policy counts: a redo to classify a warm failure is none
    redo_cold = False
    while True:
        number += 1
        attempt_start = anyio.current_time()
        ran: _Ran | None = None
        if (
            warm is not None
            and warm.usable
            and not redo_cold
            # A worker started lean has no tool: a call that needs one spawns.
            and (lean_prompt is not None or not warm.lean)
        ):
            ran = await _warm_attempt(warm, prompt, files, number, hard_deadline, timeouts)
        if ran is None:
            ran = await _spawn_attempt(
                adapter,
                tool,
                prompt,
                room=room,
                files=files,
                number=number,
                model=model,
                effort=effort,
                environ=environ,
                cap_bytes=cap_bytes,
                tmp_dir=tmp_dir,
                confine=confine,
                deadline=hard_deadline,
                timeouts=timeouts,
                lean_prompt=lean_prompt,
            )
        verdict, hidden_words = ran.verdict, ran.hidden_words
        last_err = ran.err_text
        attempts.append(
            Attempt(
                number=number,
                started_s=round(attempt_start - start, 3),
                status=verdict.status,
                exit_code=ran.exit_code,
                duration_s=ran.duration_s,
                detail=verdict.detail,
                argv=ran.argv,
                response_file=files.response(number),
                err_file=files.err(number),
                killed=ran.killed,
                dropped_bytes=ran.dropped_bytes,
                usage=verdict.usage,
                served=verdict.served,
                warm=ran.warm,
            )
        )
        if ran.spawn_error:
            break  # a missing or unrunnable binary will not appear on a retry
        if ran.redo_cold and anyio.current_time() < hard_deadline:
            redo_cold = True  # at once, and not counted: it only reads what happened
            continue
        redo_cold = False
        delay = policy.delay(verdict.status, retries, verdict.retry_after_s)
        if delay is None:
            break
        retries += 1
        if anyio.current_time() + delay >= hard_deadline:
            verdict = Verdict(
                verdict.status,
                verdict.text,
                f"{verdict.detail} (no time left for a retry before the hard "
                f"limit of {timeouts.hard_s:g}s)",
            )
            break
        await anyio.sleep(delay)

    latency_s = anyio.current_time() - start
    return CallOutcome(
        status=verdict.status,
        text=verdict.text,
        detail=verdict.detail,
        latency_s=latency_s,
        started_at=started_at,
        exceeded_soft=latency_s > timeouts.soft_s,
        attempts=tuple(attempts),
        stderr_tail=tail(last_err, 20),
        hidden_words=hidden_words if verdict.status is Status.OK else 0,
    )


def _prepare(files: CallFiles, room: Path, prompt: str) -> None:
    files.record_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    room.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(files.prompt, prompt)


@dataclass(frozen=True)
class _Ran:
    """One attempt, spawned or warm, as the call's loop needs it."""

    verdict: Verdict
    argv: tuple[str, ...]
    duration_s: float
    exit_code: int | None = None
    killed: bool = False
    dropped_bytes: int = 0
    err_text: str = ""  # what the attempt said on stderr (or stdout, failing), for the tail
    hidden_words: int = 0
    spawn_error: bool = False
    redo_cold: bool = False
    warm: bool = False


async def _spawn_attempt(
    adapter: Adapter,
    tool: Tool,
    prompt: str,
    *,
    room: Path,
    files: CallFiles,
    number: int,
    model: str | None,
    effort: str | None,
    environ: Mapping[str, str] | None,
    cap_bytes: int,
    tmp_dir: Path,
    confine: bool,
    deadline: float,
    timeouts: Timeouts,
    lean_prompt: str | None = None,
) -> _Ran:
    """Start the CLI for this attempt alone, and read what it left."""
    request = Request(
        prompt=prompt,
        room=room,
        answer_path=files.answer(number),
        prompt_path=files.prompt,
        model=model,
        effort=effort,
        lean_prompt=lean_prompt,
    )
    invocation = adapter.build(tool, request)
    place_room_files(room, invocation.room_files)
    call_id = new_call_id()
    overrides = dict(invocation.env)
    if invocation.tty:
        overrides.setdefault("TERM", "xterm-256color")
    overrides["TMPDIR"] = str(tmp_dir)
    env = adapter_env(adapter, environ, overrides=overrides, call_id=call_id)
    confinement = None
    if confine and invocation.answer_file is not None:
        with _record_write(files, invocation.answer_file):
            _touch(invocation.answer_file)  # a rule can only name an existing file
    if confine:
        confinement = call_confinement(
            adapter,
            env,
            tmp_dir=tmp_dir,
            files=[invocation.answer_file] if invocation.answer_file else [],
        )
    # Plain text: only its start and end in memory (the word limit keeps a few hundred
    # words); stderr is only read for its last lines.
    window = None if adapter.whole_output(tool) else TEXT_WINDOW_BYTES
    out, err = _sinks(files, number, cap_bytes, window)
    try:
        if invocation.tty:
            # pexpect only for a CLI that needs a terminal: most debates never load it.
            from council.runner.terminal import run_in_terminal

            raw = await run_in_terminal(
                invocation.argv,
                stdin=invocation.stdin,
                env=env,
                cwd=room,
                deadline=deadline,
                out=out,
                grace_s=timeouts.grace_s,
                call_id=call_id,
                prompts=adapter.interactive_prompts,
                confinement=confinement,
            )
        else:
            raw = await run_piped(
                invocation.argv,
                stdin=invocation.stdin,
                env=env,
                cwd=room,
                deadline=deadline,
                out=out,
                err=err,
                grace_s=timeouts.grace_s,
                call_id=call_id,
                confinement=confinement,
            )
    finally:
        out.close()
        err.close()
    _check_sinks(files, out, err)
    verdict, hidden_words = _judge(adapter, invocation, raw, out, err, prompt, timeouts, window)
    return _Ran(
        verdict,
        invocation.argv,
        raw.duration_s,
        exit_code=raw.exit_code,
        killed=raw.killed,
        dropped_bytes=out.dropped + err.dropped,
        err_text=err.text() or (out.text() if verdict.status is not Status.OK else ""),
        hidden_words=hidden_words,
        spawn_error=bool(raw.spawn_error),
    )


async def _warm_attempt(
    warm: WarmWorker,
    prompt: str,
    files: CallFiles,
    number: int,
    deadline: float,
    timeouts: Timeouts,
) -> _Ran | None:
    """This attempt on the seat's warm worker: its messages and stderr are the attempt's
    response and error files. None when the worker cannot take it."""
    out, err = _sinks(files, number, DEFAULT_CAP_BYTES, TEXT_WINDOW_BYTES)
    try:
        result = await warm.attempt(
            prompt, out=out, err=err, deadline=deadline, hard_s=timeouts.hard_s
        )
    finally:
        out.close()
        err.close()
    _check_sinks(files, out, err)
    if result is None:
        return None
    verdict = result.verdict
    return _Ran(
        verdict,
        result.argv,
        result.duration_s,
        killed=result.killed,
        dropped_bytes=out.dropped + err.dropped,
        err_text=err.text() if verdict.status is not Status.OK else "",
        redo_cold=result.redo_cold,
        warm=True,
    )


def _sinks(
    files: CallFiles, number: int, cap_bytes: int, window: int | None
) -> tuple[CappedSink, CappedSink]:
    with _record_write(files, files.response(number)):
        out = CappedSink(files.response(number), cap_bytes, window)
    try:
        with _record_write(files, files.err(number)):
            err = CappedSink(files.err(number), cap_bytes, TEXT_WINDOW_BYTES)
    except RecordWriteError:
        out.close()  # the call stops here: its open response file is not left behind
        raise
    return out, err


def _check_sinks(files: CallFiles, *sinks: CappedSink) -> None:
    for sink in sinks:
        if sink.error is not None and sink.path is not None:
            # The tree is dead already: the call ends here, not stored anywhere.
            raise RecordWriteError(sink.path, sink.error, files.record_dir.name)


def _judge(
    adapter: Adapter,
    invocation: Invocation,
    raw: AttemptResult,
    out: CappedSink,
    err: CappedSink,
    prompt: str,
    timeouts: Timeouts,
    window: int | None,
) -> tuple[Verdict, int]:
    """The adapter's verdict, and how many words of the answer memory did not keep."""
    if raw.spawn_error:
        return Verdict(Status.ERROR, detail=raw.spawn_error), 0
    if raw.timed_out:
        return Verdict(
            Status.TIMEOUT,
            detail=f"no answer within the hard limit of {timeouts.hard_s:g}s; process tree killed",
        ), 0
    if raw.interactive_prompt is not None:
        return Verdict(
            Status.AUTH, detail=adapter.interactive_prompt_detail(raw.interactive_prompt)
        ), 0
    answer_text = None
    hidden = out.hidden_words
    answer_file = invocation.answer_file
    if answer_file is not None and answer_file.is_file():
        answer = _read_window(answer_file, window)
        answer_text, hidden = answer.text(), answer.hidden_words
    result = RawResult(raw.exit_code, out.text(), err.text(), answer_text, invocation.output_format)
    verdict = adapter.classify(result, prompt)
    try:
        usage = adapter.read_usage(result)
    except (ValueError, KeyError, TypeError, AttributeError):
        usage = None  # a format the adapter did not expect: no figure rather than a wrong one
    try:
        served = tuple(adapter.read_model(result))
    except (ValueError, KeyError, TypeError, AttributeError):
        served = ()  # as for usage: no name rather than a wrong one
    return replace(verdict, usage=usage, served=served), hidden


def _read_window(path: Path, window: int | None) -> CappedSink:
    """An answer file read as a stream is: only a window of it in memory when `window`."""
    sink = CappedSink(None, DEFAULT_CAP_BYTES, window)
    with path.open("rb") as handle:
        while chunk := handle.read(1024 * 1024):
            sink.write(chunk)
    return sink


@contextmanager
def _record_write(files: CallFiles, path: Path) -> Iterator[None]:
    """A failed write of a call's file into the record ends the run (RecordWriteError)."""
    try:
        yield
    except OSError as exc:
        raise RecordWriteError(path, exc, files.record_dir.name) from exc


@contextmanager
def _private_tmp() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="council-call-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _touch(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.close(fd)
