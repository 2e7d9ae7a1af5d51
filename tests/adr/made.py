"""A finished debate made by hand, as `council adr` reads it: its `state.json` and its
`result.json` with a DECISION that holds every part an ADR shows."""

from __future__ import annotations

import json
from pathlib import Path

RECORD = "debate-20261128-143005-k3x9"
PROPOSAL = " ".join(f"w{i}" for i in range(70))  # the advocate's first proposal: 70 words


def made_result(**decision: object) -> dict:
    full = {
        "recommendation": 'Keep sessions in "Postgres",\nwith an expiry.',
        "confidence": 72,
        "disagreements": [
            {"point": "Latency.", "ruling": "Postgres is fast enough.", "reason": "measured",
             "loop": False},
            {"point": "Memory.", "ruling": "Not a concern.", "reason": "bounded", "loop": True},
        ],
        "tradeoffs": ["A query per request."],
        "blocking_concerns": ["Backups must cover the table."],
        "consensus": ["Sessions must survive a restart."],
        "next_step": {"action": "Add the sessions table", "verify_command": "make test",
                      "done_criterion": "Logins survive a restart."},
        "votes": {"critic": "disagree", "proxy-gemini": None},
        "vote_reasons": {"critic": "Redis is\nfaster | cheaper"},
        "tally": {"agree": 0, "revise": 0, "disagree": 1, "no_vote": 1},
        "minority": [{"seat": "critic", "reason": "Redis is faster.",
                      "excerpt": "Redis answers in a millisecond.\nPostgres does not."}],
        "synthesized": True,
    }  # fmt: skip
    full.update(decision)
    return {
        "id": RECORD,
        "question": "Redis or Postgres for sessions?\nWe have 10k users.",
        "status": "completed",
        "started_at": "2026-11-27T23:59:00+00:00",
        "finished_at": "2026-11-28T00:03:00+00:00",
        "seats": [
            {"name": "advocate", "cli": "claude"},
            {"name": "critic", "cli": "codex"},
        ],
        "contributions": [
            {"phase": "BLIND_TAKE", "text": "blind"},
            {"phase": "PROPOSAL", "text": PROPOSAL},
        ],
        "decision": full,
    }


def made_debate(
    pad: Path, name: str = RECORD, *, status: str = "completed", decision: object = "made"
) -> Path:
    """A debate's record in the scratchpad `pad`, ended `status`, its DECISION the made one
    (or `decision`: None for none at all)."""
    record = pad / name
    record.mkdir(parents=True)
    result = made_result()
    result.update(id=name, status=status, scratchpad=f".scratchpad/{name}/")
    if decision != "made":
        result["decision"] = decision
    state = {
        "id": name,
        "question": result["question"],
        "plan": {},
        "status": status,
        "started_at": result["started_at"],
        "finished_at": result["finished_at"],
    }
    (record / "state.json").write_text(json.dumps(state))
    (record / "result.json").write_text(json.dumps(result))
    (record / "decision.md").write_text("# DECISION\n")
    return record
