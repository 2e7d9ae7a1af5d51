"""The protocols a run can follow, by the kind its record's id begins with. The front ends
start, resume, follow and show every run through this registry, never by asking which kind
a record is; a third protocol is its plan, lead and protocol module and one line here."""

from __future__ import annotations

from council.check.protocol import CHECK
from council.debate.protocol import DEBATE
from council.errors import UsageError
from council.panel.protocol import RunProtocol
from council.review.protocol import REVIEW
from council.runs.record import Record, kind_of

PROTOCOLS: dict[str, RunProtocol] = {p.kind: p for p in (DEBATE, REVIEW, CHECK)}


def protocol_of(record: Record | str) -> RunProtocol:
    """The protocol that wrote a record (or a record id)."""
    record_id = record if isinstance(record, str) else record.id
    kind = kind_of(record_id)
    if kind not in PROTOCOLS:
        raise UsageError(f"{record_id}: not a record of council's ({', '.join(PROTOCOLS)})")
    return PROTOCOLS[kind]
