"""The message bus: routing, ordering, and the transcript written as messages are sent."""

from __future__ import annotations

import pytest

from council.panel.bus import Bus, Kind, Message, action_body

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
