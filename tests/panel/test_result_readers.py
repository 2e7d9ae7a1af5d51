"""How `council show`, `wait` and `list` read any record's result (`panel.protocol`): from
`result.json` once the run ended and wrote it, else built from the state so far; a
`result.json` that something changed is named, with the way to write it again, never a crash,
while a failure reading a result built from the state is a bug and propagates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.errors import UsageError
from council.panel.protocol import load_result, reading_result
from council.runs.record import Record
from panel.echo import ECHO, EchoState


def record_of(tmp_path: Path, *, finished: bool, stored: dict | None) -> tuple[Record, dict]:
    record = Record.create(tmp_path / ".scratchpad", kind="echo")
    state = EchoState(id=record.id, question="echo", plan={}, reply="from the state")
    if finished:
        state.status, state.finished_at = "completed", "2026-11-28T10:00:00+00:00"
    record.save_state(state)
    if stored is not None:
        record.write_json("result.json", stored)
    return record, json.loads(record.file("state.json").read_text())


def test_an_ended_runs_result_is_its_result_json(tmp_path: Path):
    stored = {"status": "completed", "scratchpad": ".scratchpad", "reply": "from result.json"}
    record, state = record_of(tmp_path, finished=True, stored=stored)
    assert load_result(ECHO, record, state) == stored


def test_a_run_still_going_has_its_result_built_from_its_state(tmp_path: Path):
    # A result.json without finished_at is a leftover (a resumed run writes a new one).
    record, state = record_of(tmp_path, finished=False, stored={"reply": "stale"})
    result = load_result(ECHO, record, state)
    assert (result["id"], result["status"], result["reply"]) == (
        record.id,
        "running",
        "from the state",
    )


def test_a_changed_result_json_is_named_with_the_way_to_write_it_again(tmp_path: Path):
    stored = {"status": "completed", "scratchpad": ".scratchpad"}  # its `reply` was lost
    record, state = record_of(tmp_path, finished=True, stored=stored)
    with pytest.raises(UsageError) as raised, reading_result(record, state):
        ECHO.render(load_result(ECHO, record, state), "md")
    assert str(raised.value) == (
        f"{record.file('result.json')}: cannot be read (KeyError: 'reply'); "
        f"`council resume {record.id}` writes it again"
    )


def test_a_failure_reading_a_result_built_from_the_state_is_a_bug_and_propagates(
    tmp_path: Path,
):
    record, state = record_of(tmp_path, finished=False, stored=None)
    with pytest.raises(KeyError), reading_result(record, state):
        {}["id"]
