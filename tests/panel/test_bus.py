"""The message bus: routing, ordering, and the transcript written as messages are sent."""

from __future__ import annotations

import anyio
import pytest

from council.panel.bus import Bus, Kind, Message, action_body, cancelled_stem

pytestmark = pytest.mark.anyio


def close(bus: Bus, *inboxes) -> None:
    bus.close()
    for inbox in inboxes:
        inbox.close()


async def test_a_dm_reaches_only_its_seat_and_a_broadcast_everyone_but_its_sender():
    log: list[dict] = []
    bus = Bus(log.append)
    lead, critic, proxy = bus.subscribe("lead"), bus.subscribe("critic"), bus.subscribe("proxy")
    await bus.send(Message(Kind.DM, "lead", "critic", action_body("CHALLENGE")))
    await bus.send(Message(Kind.BROADCAST, "critic", "*", "my challenge"))
    assert (await critic.receive()).action == "CHALLENGE"
    assert (await lead.receive()).body == "my challenge"
    assert (await proxy.receive()).body == "my challenge"
    assert critic.statistics().current_buffer_used == 0  # no echo of its own broadcast
    close(bus, lead, critic, proxy)


async def test_every_message_is_in_the_transcript_in_order_with_the_prompt_left_out():
    log: list[dict] = []
    bus = Bus(log.append)
    inbox = bus.subscribe("critic")
    await bus.send(
        Message(
            Kind.DM,
            "lead",
            "critic",
            action_body("CHALLENGE", "round=2"),
            round=2,
            phase="CHALLENGE",
            meta={"prompt_file": "critic-r2-prompt.md"},
            payload="a very long prompt",
        )
    )
    await bus.send(Message(Kind.SYSTEM, "lead", "record", "phase RESPOND"))
    assert [e["seq"] for e in log] == [1, 2]
    assert set(log[0]) == {
        "seq",
        "ts",
        "kind",
        "from",
        "to",
        "action",
        "round",
        "phase",
        "body",
        "meta",
    }
    assert log[0]["action"] == "CHALLENGE" and log[0]["meta"]["prompt_file"]
    assert "a very long prompt" not in str(log)
    close(bus, inbox)


def test_only_a_dm_starting_with_action_is_an_order():
    assert Message(Kind.DM, "lead", "critic", "ACTION:REBUTTAL round=3").action == "REBUTTAL"
    assert Message(Kind.DM, "lead", "critic", "please do ACTION:REBUTTAL").action is None
    assert Message(Kind.BROADCAST, "critic", "*", "ACTION:PROPOSAL").action is None


async def test_a_message_to_a_seat_that_has_gone_is_dropped_not_blocking():
    log: list[dict] = []
    bus = Bus(log.append, buffer=1)
    lead = bus.subscribe("lead")
    gone = bus.subscribe("proxy")
    gone.close()
    # More messages than its inbox holds: a bus still delivering to it would block or raise.
    for round_no in (2, 3, 4):
        await bus.send(Message(Kind.DM, "lead", "proxy", action_body("CHALLENGE"), round=round_no))
    await bus.send(Message(Kind.BROADCAST, "critic", "*", "my challenge"))
    assert [(e["to"], e["round"]) for e in log] == [("proxy", n) for n in (2, 3, 4)] + [("*", None)]
    assert (await lead.receive()).body == "my challenge"  # the bus still serves the others
    assert lead.statistics().current_buffer_used == 0  # and nothing meant for the proxy
    close(bus, lead)


def test_a_cancel_dm_names_the_call_it_ends():
    assert cancelled_stem(Message(Kind.DM, "lead", "critic", "CANCEL:critic-r1")) == "critic-r1"
    assert cancelled_stem(Message(Kind.DM, "lead", "critic", "CANCEL: ")) is None
    assert cancelled_stem(Message(Kind.BROADCAST, "lead", "*", "CANCEL:critic-r1")) is None
    assert cancelled_stem(Message(Kind.DM, "lead", "critic", "ACTION:CHALLENGE")) is None


async def test_a_resumed_runs_transcript_numbers_on_and_notes_reach_no_seat():
    log: list[dict] = []
    bus = Bus(log.append, first_seq=41)  # the record's transcript already holds 40 messages
    lead, critic = bus.subscribe("lead"), bus.subscribe("critic")
    await bus.send(Message(Kind.SYSTEM, "lead", "record", "phase CHALLENGE"))
    await bus.send(Message(Kind.SYSTEM, "lead", "*", "a note for everyone"))
    await bus.send(Message(Kind.SYSTEM, "critic", "lead", "SHUTDOWN-ACK:critic"))
    await bus.send(Message(Kind.READY, "critic", "lead", "READY:critic"))
    assert [e["seq"] for e in log] == [41, 42, 43, 44]
    assert [e["kind"] for e in log] == ["system", "system", "system", "ready"]
    assert critic.statistics().current_buffer_used == 0  # notes go to the record only
    assert (await lead.receive()).body == "SHUTDOWN-ACK:critic"
    assert (await lead.receive()).body == "READY:critic"
    assert lead.statistics().current_buffer_used == 0
    close(bus, lead, critic)


async def test_a_restarted_seat_gets_a_new_inbox_and_the_old_one_ends():
    bus = Bus(lambda entry: None)
    old = bus.subscribe("critic")
    new = bus.subscribe("critic")
    await bus.send(Message(Kind.DM, "lead", "critic", action_body("CHALLENGE")))
    assert (await new.receive()).action == "CHALLENGE"
    with pytest.raises(anyio.EndOfStream):
        await old.receive()
    bus.unsubscribe("critic")
    await bus.send(Message(Kind.DM, "lead", "critic", action_body("RESPOND")))  # dropped
    with pytest.raises(anyio.EndOfStream):
        await new.receive()
    close(bus, old, new)
