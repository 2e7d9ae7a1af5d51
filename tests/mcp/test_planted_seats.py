"""What the debate tools say about each seat of a run that ended before every seat was asked:
a seat nobody asked yet (the lead of a run stopped at PROPOSAL) did not fail, and the tool's
Seats line must not tell the host's model that it did (docs/spec/commands.md, `council mcp`:
every seat's status)."""

from __future__ import annotations

from pathlib import Path

import pytest
from served import call, serving, text

from project import QUESTION, Project

HUNG = {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "PROPOSAL"}  # runs until cancelled


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.anyio
async def test_a_seat_never_asked_is_not_reported_as_failed(project):
    async with serving(project, **HUNG) as session:
        run_id = (await call(session, "debate_start", question=QUESTION, sim=True))["id"]
        await call(session, "debate_cancel", id=run_id)
        result = await session.call_tool("debate_result", {"id": run_id})
    seats = {s["name"]: s["status"] for s in result.structured_content["seats"]}
    assert seats["lead"] == "ready"  # the lead is asked only at DECISION
    (line,) = [ln for ln in text(result).splitlines() if ln.startswith("Seats: ")]
    assert "lead (sim) ok" in line.split(" · ")
    assert "FAILED: ready" not in line
