"""The run's journal as the record shows it: entering a phase saves the phase, the round and
the rounds run in `state.json` and notes it in the transcript; under a cost cap
(`--max-cost`) no phase but the DECISION is entered once the reported cost reached the cap
(the DECISION is built from what exists); an ended call's reply goes to its own file before
the state names it; a warning is in the state, the progress and the transcript once."""

from __future__ import annotations

import io
import json
from pathlib import Path

import anyio
import pytest

from council.panel.budget import BudgetSpent
from council.panel.bus import Bus
from council.panel.contribution import Contribution
from council.panel.journal import Journal
from council.panel.state import RunState
from council.progress import Progress
from council.runs.record import Record


class DebateLike(RunState):
    PHASE_ORDER = ("PROPOSAL", "CHALLENGE", "RESPOND")

    def seat_order(self) -> list[str]:
        return ["advocate", "critic"]


def answered(stem: str, cost: float | None) -> Contribution:
    seat = stem.rpartition("-")[0]
    usage = {"input_tokens": 10, "output_tokens": 5, "cost_usd": cost}
    return Contribution(
        stem=stem,
        seat=seat,
        role=seat,
        phase="CHALLENGE",
        round=2,
        status="ok",
        text=f"the answer of {stem}",
        cli="claude",
        usage=usage,
    )


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    record = Record.create(tmp_path / ".scratchpad")
    state = DebateLike(id=record.id, question="Redis or Postgres?", plan={"rounds": 3})
    progress = Progress(io.StringIO(), verbose=True, live=False)
    return Journal(record, state, progress, Bus(record.append_transcript))


def saved(journal: Journal) -> dict:
    return json.loads(journal.record.file("state.json").read_text())


def notes(journal: Journal) -> list[dict]:
    return [m for m in journal.record.transcript() if m["kind"] == "system"]


def test_entering_a_phase_saves_it_with_its_round_and_the_rounds_run(journal):
    anyio.run(journal.enter, "CHALLENGE", 2)
    state = saved(journal)
    assert (state["phase"], state["round"], state["rounds_run"]) == ("CHALLENGE", 2, 2)
    (note,) = notes(journal)
    assert (note["body"], note["meta"], note["phase"], note["round"]) == (
        "phase CHALLENGE",
        {"round_no": 2},
        "CHALLENGE",
        2,
    )
    anyio.run(journal.enter, "DECISION", 1)  # a resumed run's earlier round: never fewer run
    assert (saved(journal)["round"], saved(journal)["rounds_run"]) == (1, 2)


def test_under_a_cost_cap_no_phase_but_the_decision_is_entered_once_it_is_reached(journal):
    journal.store(answered("advocate-r1", 0.6))
    journal.cap_cost(1.0, journal.state.every_call)
    anyio.run(journal.enter, "CHALLENGE", 2)  # $0.60 of $1.00: on
    journal.store(answered("critic-r2", 0.4))
    with pytest.raises(BudgetSpent) as spent:
        anyio.run(journal.enter, "RESPOND", 2)
    assert "the cost cap of $1.00 was reached ($1.00 reported) before RESPOND" in str(spent.value)
    assert saved(journal)["phase"] == "CHALLENGE"  # RESPOND was never entered
    anyio.run(journal.enter, "DECISION", 2)
    assert saved(journal)["phase"] == "DECISION"
    journal.cap_cost(None, journal.state.every_call)  # no cap: every phase is entered
    anyio.run(journal.enter, "RESPOND", 3)
    assert saved(journal)["phase"] == "RESPOND"


def test_an_ended_call_is_its_reply_file_and_its_entry_in_the_state(journal):
    journal.store(answered("critic-r2", None))
    record = journal.record
    assert record.file("critic-r2-reply.md").read_text() == "the answer of critic-r2"
    call = saved(journal)["calls"]["critic-r2"]
    assert (call["reply_file"], call["status"], call["usage"]["input_tokens"]) == (
        "critic-r2-reply.md",
        "ok",
        10,
    )
    assert saved(journal)["order"] == ["critic-r2"]


def test_a_warning_is_saved_shown_and_noted_once_without_control_sequences(journal):
    anyio.run(journal.warn, "sim-b 1.0\x1b[31m is known broken")
    anyio.run(journal.warn, "sim-b 1.0\x1b[31m is known broken")
    assert saved(journal)["warnings"] == ["sim-b 1.0 is known broken"]
    assert [n["body"] for n in notes(journal)] == ["warning: sim-b 1.0 is known broken"] * 2
