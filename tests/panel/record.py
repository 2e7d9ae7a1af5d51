"""Reading a finished run's record in the tests of tests/panel: its transcript, its stored
calls, its contributions, and the orders and answers of one seat."""

from __future__ import annotations

import json

from council.panel.run import Run


def transcript(run: Run) -> list[dict]:
    path = run.record.path / "transcript.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def stored(run: Run, stem: str) -> dict:
    """One call as the record keeps it: its entry in `state.json`, with the text of the reply
    file that entry names."""
    call = json.loads((run.record.path / "state.json").read_text())["calls"][stem]
    assert "text" not in call  # a reply lives in its own file, never in `state.json`
    return {**call, "text": (run.record.path / call["reply_file"]).read_text()}


def contribution(run: Run, seat: str, phase: str) -> dict:
    (found,) = [c for c in run.result["contributions"] if c["seat"] == seat and c["phase"] == phase]
    return found


def asks_of(messages: list[dict], seat: str) -> list[dict]:
    return [m for m in messages if m["kind"] == "dm" and m["to"] == seat and m["action"]]


def answer_of(messages: list[dict], seat: str, phase: str) -> dict:
    (found,) = [
        m
        for m in messages
        if m["kind"] == "broadcast" and m["from"] == seat and m["phase"] == phase
    ]
    return found
