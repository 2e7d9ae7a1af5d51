"""Records of runs for the MCP tools' in-process tests, written by hand: no run started."""

from __future__ import annotations

from pathlib import Path

from council.runs.record import Record


def bare_run(pad: Path, kind: str, status: str) -> Record:
    """A record with the least state a status reads: no seat, no call yet."""
    record = Record.create(pad, kind)
    record.write_json(
        "state.json",
        {
            "id": record.id, "status": status, "phase": "CHALLENGE", "round": 1,
            "plan": {"rounds": 2}, "question": "Redis or Postgres?",
            "started_at": "2026-11-23T10:00:00+00:00", "seats": {}, "calls": {},
        },
    )  # fmt: skip
    return record
