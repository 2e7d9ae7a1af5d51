"""The in-process message bus between the lead and the seats (docs/spec/protocol.md section 2).

A fan-out over bounded anyio memory streams, one per subscriber. Messages are frozen
dataclasses; every message is appended to the transcript as it is sent, before delivery, so
the record shows the order things happened in even if the process dies a moment later.

Routing: `dm`, `ready` and `shutdown` go to the one subscriber named in `to`; a `broadcast`
goes to every subscriber but its sender; a `system` message is for the record, and is
delivered only when `to` names a subscriber (a seat's acknowledgement to the lead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

ACTION_PREFIX = "ACTION:"
CANCEL_PREFIX = "CANCEL:"  # a DM that ends a seat's call in flight (its stem follows)
EVERYONE = "*"
RECORD = "record"


class Kind(StrEnum):
    READY = "ready"
    DM = "dm"
    BROADCAST = "broadcast"
    SYSTEM = "system"
    SHUTDOWN = "shutdown"


@dataclass(frozen=True)
class Message:
    kind: Kind
    sender: str
    to: str
    body: str
    round: int | None = None
    phase: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    # In-memory only (a DM's prompt): the transcript names the prompt file instead.
    payload: Any = field(default=None, compare=False, repr=False)
    seq: int = 0
    ts: str = ""

    @property
    def action(self) -> str | None:
        """The phase a DM orders a seat to act on; None for anything else."""
        if self.kind is not Kind.DM or not self.body.startswith(ACTION_PREFIX):
            return None
        words = self.body[len(ACTION_PREFIX) :].split()
        return words[0] if words else None

    def transcript_entry(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind.value,
            "from": self.sender,
            "to": self.to,
            "action": self.action,
            "round": self.round,
            "phase": self.phase,
            "body": self.body,
            "meta": dict(self.meta),
        }


def cancelled_stem(message: Message) -> str | None:
    """The stem of the call a `CANCEL:` DM ends; None for anything else."""
    if message.kind is not Kind.DM or not message.body.startswith(CANCEL_PREFIX):
        return None
    return message.body[len(CANCEL_PREFIX) :].strip() or None


def action_body(phase: str, detail: str = "") -> str:
    return f"{ACTION_PREFIX}{phase}" + (f" {detail}" if detail else "")


class Bus:
    def __init__(
        self, transcript: Callable[[dict[str, Any]], None], buffer: int = 256, first_seq: int = 1
    ) -> None:
        self._transcript = transcript
        self._buffer = buffer
        self._seq = first_seq - 1
        self._inboxes: dict[str, MemoryObjectSendStream[Message]] = {}

    def subscribe(self, name: str) -> MemoryObjectReceiveStream[Message]:
        send, receive = anyio.create_memory_object_stream[Message](self._buffer)
        old = self._inboxes.get(name)
        if old is not None:
            old.close()  # a restarted seat replaces its old inbox
        self._inboxes[name] = send
        return receive

    def unsubscribe(self, name: str) -> None:
        inbox = self._inboxes.pop(name, None)
        if inbox is not None:
            inbox.close()

    async def send(self, message: Message) -> Message:
        self._seq += 1
        message = replace(
            message, seq=self._seq, ts=datetime.now(UTC).isoformat(timespec="milliseconds")
        )
        self._transcript(message.transcript_entry())
        for name in self._recipients(message):
            inbox = self._inboxes.get(name)
            if inbox is None:
                continue
            try:
                await inbox.send(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                # The subscriber has gone (a dropped seat): nothing is waiting for this.
                self.unsubscribe(name)
        return message

    def _recipients(self, message: Message) -> list[str]:
        if message.kind is Kind.BROADCAST:
            return [name for name in self._inboxes if name != message.sender]
        if message.kind is Kind.SYSTEM and message.to in (RECORD, EVERYONE):
            return []
        return [message.to]

    def close(self) -> None:
        for inbox in self._inboxes.values():
            inbox.close()
        self._inboxes.clear()


async def receive(
    inbox: MemoryObjectReceiveStream[Message], within_s: float | None
) -> Message | None:
    """The next message, or None at the end of the stream or after `within_s` (None: wait)."""
    with anyio.move_on_after(within_s):
        try:
            return await inbox.receive()
        except anyio.EndOfStream:
            return None
    return None
