"""Following a run from its record: each new progress line once, the status line as a
heartbeat when nothing was said for a while, the end once the run lets go of its record. A
fake clock stands in for the 15 s, so nothing here waits."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.mcp.follow import HEARTBEAT_S, Follower
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, Record


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def record(tmp_path: Path) -> Record:
    record = Record.create(tmp_path / ".scratchpad")
    record.write_json("state.json", state("running"))
    return record


def state(status: str) -> dict:
    return {
        "id": "x",
        "status": status,
        "phase": "CHALLENGE",
        "round": 1,
        "plan": {"rounds": 2},
        "question": "Redis or Postgres?",
        "started_at": "2026-11-23T10:00:00+00:00",
        "seats": {"advocate": {"role": "advocate"}, "critic": {"role": "critic"}},
        "calls": {},
    }


def log(record: Record, *lines: str) -> None:
    with record.file(PROGRESS).open("a") as out:
        out.write("".join(f"{line}\n" for line in lines))


def test_new_lines_once_then_a_heartbeat_when_quiet_then_the_end(record):
    lock = RecordLock.acquire(record.path)  # the run's process, alive
    clock = Clock()
    follower = Follower(record, clock=clock)
    log(record, "[00:00] setup (SIMULATED): ...", "[00:00] ready 2/2")
    assert follower.poll() == (["[00:00] setup (SIMULATED): ...", "[00:00] ready 2/2"], True)
    assert follower.poll() == ([], True)  # nothing new, and not quiet for long yet

    clock.now += HEARTBEAT_S - 0.1
    assert follower.poll() == ([], True)
    clock.now += 0.1
    (heartbeat,), running = follower.poll()
    assert running
    assert heartbeat.startswith(f"{record.id} running · CHALLENGE round 1 · seats 2 ok, ")
    clock.now += 1
    assert follower.poll() == ([], True)  # the heartbeat counts as said

    with record.file(PROGRESS).open("a") as out:
        out.write("[00:03] CHALLENGE critic ok")  # a line still being written waits
    assert follower.poll() == ([], True)
    log(record, " 68 words 0.3s")
    assert follower.poll() == (["[00:03] CHALLENGE critic ok 68 words 0.3s"], True)

    log(record, "[00:04] DECISION lead ok")
    record.write_json("state.json", state("completed"))
    lock.release()  # the run's process ends
    assert follower.poll() == (["[00:04] DECISION lead ok"], False)


def test_a_run_whose_process_died_is_over_not_followed_forever(record):
    follower = Follower(record, clock=Clock())  # state says running, nobody holds the lock
    assert follower.poll() == ([], False)
