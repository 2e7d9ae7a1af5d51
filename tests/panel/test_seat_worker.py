"""A seat worker as the lead meets it on the bus (docs/spec/protocol.md sections 2 and 3): its
READY names the model and effort its calls use and its soft timeout (the `--timeout` flag's
when given); a CLI that cannot run is READY `ok: false` with the reason; a `CANCEL:` DM ends
the call it names and no other: an order still queued never runs its CLI, a call running
for another stem goes on and is answered; SHUTDOWN is acknowledged.

One seat on the simulator, in this process; the simulator logs each call as it starts
(COUNCIL_SIM_COUNT_FILE); its CHALLENGE is held until the test lets it go.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from council.adapters import adapter_for
from council.config import parse_config
from council.panel.bus import EVERYONE, Bus, Kind, Message, action_body
from council.panel.calls import Tuning
from council.panel.messages import LEAD, Ask
from council.panel.seat import SeatPlan
from council.panel.seats import SeatWorker
from council.runner import RetryPolicy
from council.runner.resolve import ToolCache

pytestmark = pytest.mark.anyio


def worker(tmp_path: Path, plan: SeatPlan, settings: dict) -> tuple[SeatWorker, Bus]:
    config = parse_config({"clis": {"sim-x": {"adapter": "sim", **settings}}})
    bus = Bus(lambda entry: None)
    record, room = tmp_path / "record", tmp_path / "room"
    record.mkdir()
    room.mkdir()
    seat = SeatWorker(
        plan,
        adapter_for("sim-x", config.clis),
        bus,
        record_dir=record,
        room=room,
        hard_factor=2.0,
        tuning=Tuning(grace_s=1.0, policy=RetryPolicy(other_delay_s=0.0)),
        tools=ToolCache(timeout_s=60),
    )
    return seat, bus


def order(seat: str, phase: str, stem: str) -> Message:
    ask = Ask(
        prompt=f"ACTION: {phase}\nround=1\nQuestion: Redis or Postgres?\n", stem=stem, limit=None
    )
    return Message(
        Kind.DM, LEAD, seat, action_body(phase), round=1, phase=phase, meta=ask.meta(), payload=ask
    )


def cancel(seat: str, stem: str) -> Message:
    return Message(Kind.DM, LEAD, seat, f"CANCEL:{stem}")


async def written(path: Path) -> None:
    """Until something is written into `path` (a bound on a hang, never a clock)."""
    for _ in range(3000):
        if (await anyio.Path(path).stat()).st_size:
            return
        await anyio.sleep(0.02)
    raise AssertionError(f"nothing was written into {path}")


async def test_ready_names_the_seats_model_effort_and_timeout_and_shutdown_is_acknowledged(
    tmp_path: Path,
):
    plan = SeatPlan(
        name="critic", role="critic", cli="sim-x", model="m-seat", effort="high", soft_timeout_s=45
    )
    seat, bus = worker(tmp_path, plan, {"model": "m-config", "effort": "low"})
    inbox = bus.subscribe(LEAD)
    async with anyio.create_task_group() as tg:
        tg.start_soon(seat.run)
        ready = await inbox.receive()
        await bus.send(Message(Kind.SHUTDOWN, LEAD, "critic", "SHUTDOWN:critic"))
        ack = await inbox.receive()
    bus.close()
    inbox.close()
    assert (ready.kind, ready.sender, ready.body) == (Kind.READY, "critic", "READY:critic")
    report = ready.payload
    assert (report.ok, report.cli, report.problem) == (True, "sim-x", None)
    assert (report.model, report.effort, report.timeout_s) == ("m-seat", "high", 45)
    assert report.version and report.path
    assert (ack.kind, ack.sender, ack.to, ack.body) == (
        Kind.SYSTEM,
        "critic",
        LEAD,
        "SHUTDOWN-ACK:critic",
    )


async def test_a_seat_without_its_own_model_reports_its_clis_configured_one(tmp_path: Path):
    plan = SeatPlan(name="critic", role="critic", cli="sim-x")
    seat, bus = worker(tmp_path, plan, {"model": "m-config", "effort": "low"})
    inbox = bus.subscribe(LEAD)
    async with anyio.create_task_group() as tg:
        tg.start_soon(seat.run)
        report = (await inbox.receive()).payload
        await bus.send(Message(Kind.SHUTDOWN, LEAD, "critic", "SHUTDOWN:critic"))
        await inbox.receive()
    bus.close()
    inbox.close()
    assert (report.model, report.effort) == ("m-config", "low")


async def test_a_cli_that_cannot_run_is_ready_not_ok_with_the_reason_and_serves_nothing(
    tmp_path: Path,
):
    plan = SeatPlan(name="critic", role="critic", cli="sim-x")
    missing = str(tmp_path / "no-such-sim")
    seat, bus = worker(tmp_path, plan, {"command": [missing]})
    inbox = bus.subscribe(LEAD)
    with anyio.fail_after(60):  # a bound on a hang: the worker ends by itself
        await seat.run()
    ready = await inbox.receive()
    bus.close()
    inbox.close()
    assert ready.kind is Kind.READY and not ready.payload.ok
    assert missing in ready.payload.problem or "not found" in ready.payload.problem
    assert ready.payload.version is None


# The simulator, its CHALLENGE answer held (a HELD line in the call log says so) until the
# file RELEASE exists (a bound on a hang).
HELD = """\
import os, subprocess, sys, time

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if b"ACTION: CHALLENGE" in prompt:
    with open(os.environ["COUNCIL_SIM_COUNT_FILE"], "a") as log:  # confined: append only
        log.write("HELD\\t-\\n")
    give_up = time.monotonic() + 60
    while not os.path.exists(os.environ["RELEASE"]) and time.monotonic() < give_up:
        time.sleep(0.02)
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""


async def test_a_cancel_ends_only_the_call_it_names_and_a_queued_order_never_runs(
    tmp_path: Path,
):
    count = tmp_path / "sim-calls.txt"
    count.touch()
    release = tmp_path / "release"
    # The CHALLENGE call holds until the test releases it, so the orders after it wait in
    # the seat's queue however slow the machine.
    (tmp_path / "held.py").write_text(HELD)
    settings = {
        "command": [sys.executable, "-I", str(tmp_path / "held.py")],
        "env": {"COUNCIL_SIM_COUNT_FILE": str(count), "RELEASE": str(release)},
    }
    plan = SeatPlan(name="critic", role="critic", cli="sim-x")
    seat, bus = worker(tmp_path, plan, settings)
    inbox = bus.subscribe(LEAD)
    answers: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(seat.run)
        ready = await inbox.receive()
        assert ready.kind is Kind.READY and ready.payload.ok, ready.payload.problem
        await bus.send(order("critic", "CHALLENGE", "critic-r1"))
        await bus.send(order("critic", "REVIEW", "critic-r2"))  # queued behind critic-r1
        await written(count)  # critic-r1's CLI is running, held
        await bus.send(cancel("critic", "critic-r2"))  # ends the queued one, not critic-r1
        await bus.send(order("critic", "REVIEW", "critic-r3"))
        await anyio.Path(release).touch()  # the CANCEL is in the seat's inbox before this
        while "critic-r3" not in answers:
            message = await inbox.receive()
            if message.kind is Kind.BROADCAST:
                assert message.to == EVERYONE
                answers.append(message.payload.stem)
        await bus.send(Message(Kind.SHUTDOWN, LEAD, "critic", "SHUTDOWN:critic"))
        await inbox.receive()
    bus.close()
    inbox.close()
    assert answers == ["critic-r1", "critic-r3"]
    assert [line.split("\t")[0] for line in count.read_text().splitlines()] == [
        "HELD",
        "CHALLENGE",
        "REVIEW",
    ]
