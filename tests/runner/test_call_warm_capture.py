"""What a warm attempt leaves (runner/call.py's `_warm_attempt`), with a stand-in worker that
writes what it is told into the call's files: its stderr is the call's stderr tail only when
the attempt failed, and what went past the cap is counted and marked."""

from __future__ import annotations

import pytest

from council.adapters.base import Status, Tool, Verdict
from council.adapters.sim import SimAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from council.runner.sink import DEFAULT_CAP_BYTES
from council.runner.warm import WarmResult

pytestmark = pytest.mark.anyio

ONCE = RetryPolicy(rate_limit_retries=0, other_retries=0)
PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"


class Scripted:
    """A warm worker that writes `out` and `err` into the attempt's sinks, then says `verdict`."""

    usable = True
    lean = False  # started as usual: takes every call

    def __init__(self, verdict: Verdict, out: bytes = b"", err: bytes = b"") -> None:
        self.verdict, self.out, self.err = verdict, out, err

    async def attempt(self, prompt, *, out, err, deadline, hard_s) -> WarmResult:
        out.write(self.out)
        err.write(self.err)
        return WarmResult(self.verdict, ("gemini", "--acp"), 0.01)


async def warm_call(record_dir, room, tmp_path, worker: Scripted):
    # The stand-in takes the attempt (a spawned one would not find the binary); no retry.
    return await run_call(
        SimAdapter(),
        Tool("sim", ("/nonexistent/council-sim",)),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, "critic-r1"),
        timeouts=Timeouts(soft_s=10, hard_s=15, grace_s=1),
        policy=ONCE,
        tmp_dir=tmp_path,
        warm=worker,  # type: ignore[arg-type]
    )


async def test_a_warm_answer_shows_no_stderr_tail_though_the_worker_wrote_some(
    record_dir, room, tmp_path
):
    worker = Scripted(Verdict(Status.OK, text="Use Redis."), b"{}\n", b"a deprecation warning\n")
    outcome = await warm_call(record_dir, room, tmp_path, worker)
    assert outcome.status is Status.OK and outcome.text == "Use Redis."
    assert [a.warm for a in outcome.attempts] == [True]
    assert outcome.stderr_tail == ""
    assert (record_dir / "critic-r1-response.err").read_text() == "a deprecation warning\n"


async def test_a_failed_warm_attempt_shows_the_workers_stderr(record_dir, room, tmp_path):
    worker = Scripted(
        Verdict(Status.ERROR, detail="session ended"), err=b"starting\nconnection reset by peer\n"
    )
    outcome = await warm_call(record_dir, room, tmp_path, worker)
    assert outcome.status is Status.ERROR and len(outcome.attempts) == 1
    assert outcome.stderr_tail == "starting\nconnection reset by peer"


async def test_stderr_past_the_cap_on_a_warm_attempt_is_counted_and_marked(
    record_dir, room, tmp_path
):
    worker = Scripted(Verdict(Status.OK, text="Use Redis."), err=b"w" * (DEFAULT_CAP_BYTES + 1000))
    outcome = await warm_call(record_dir, room, tmp_path, worker)
    assert outcome.status is Status.OK
    assert outcome.attempts[0].dropped_bytes == 1000
    with (record_dir / "critic-r1-response.err").open("rb") as err:
        err.seek(DEFAULT_CAP_BYTES)
        assert err.read() == b"\n[council: output cut at 20 MiB; 1000 more bytes dropped]\n"
