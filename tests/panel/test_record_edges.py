"""What a record keeps on the paths a run seldom takes: a run that starts with a call copied from
another record (`council debate --from`) reuses it, its reply in the new record, and asks
nothing for it; a `state.json` whose reply file names a path elsewhere is never read through
it; free calls ($0.00, no tokens) count as reported; `result.json` keeps non-ASCII text as
it is; each seat's billing is kept with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.config import parse_config
from council.panel.contribution import Contribution, run_usage, total_usage
from council.panel.protocol import rendered
from council.panel.run import start
from council.panel.state import RunState
from panel.echo import ECHO, SEAT, EchoFlags, EchoState
from panel.test_run_edges import echo_project
from panel.test_run_life import calls, quiet

STEM = f"{SEAT}-r1"


class OneSeat(RunState):
    PHASE_ORDER = ("REVIEW",)

    def seat_order(self) -> list[str]:
        return [SEAT]


def copied_answer() -> Contribution:
    return Contribution(
        stem=STEM,
        seat=SEAT,
        role="reviewer",
        phase="REVIEW",
        round=1,
        status="ok",
        text="the copied check's answer",
        cli="sim",
        copied_from="check-20261128-101010-abcd/reviewer-sim-r1",
    )


def test_a_run_started_with_a_copied_call_reuses_it_from_its_own_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    project, count = echo_project(tmp_path, monkeypatch)

    def new_state(shared, plan, context) -> EchoState:
        state = EchoState(**shared, question="echo")
        state.store(copied_answer())
        return state

    monkeypatch.setattr(ECHO, "new_state", new_state)
    config = parse_config({"clis": {"sim": {"env": {"COUNCIL_SIM_COUNT_FILE": str(count)}}}})
    run = start(ECHO, EchoFlags(files=("app.py",)), config, quiet(), cwd=project)
    assert run.exit_code == 0, run.error
    record = run.record.path
    assert (record / f"{STEM}-reply.md").read_text() == "the copied check's answer"
    assert run.result["reply"] == "the copied check's answer"
    assert calls(count) == []  # the simulator was never asked
    notes = [
        json.loads(line)["body"]
        for line in (record / "transcript.jsonl").read_text().splitlines()
        if json.loads(line)["kind"] == "system"
    ]
    assert f"reused {STEM} from check check-20261128-101010-abcd/reviewer-sim-r1" in notes


@pytest.mark.parametrize("name", ["../echo-r1-reply.md", "/etc/hostname", "sub/echo-r1-reply.md"])
def test_a_reply_file_named_outside_the_record_is_not_read_and_the_call_is_asked_again(
    tmp_path: Path, name: str
):
    folder = tmp_path / "record"
    (folder / "sub").mkdir(parents=True)
    for path in (tmp_path / "echo-r1-reply.md", folder / "sub" / "echo-r1-reply.md"):
        path.write_text("text from elsewhere")
    state = OneSeat(id="echo-20261128-101010-abcd", question="q", plan={})
    state.store(copied_answer())
    data = state.to_json()
    data["calls"][STEM]["reply_file"] = name
    found = OneSeat.from_json(data, folder).contribution(STEM)
    assert found is not None
    assert (found.status, found.text) == ("error", "")
    assert found.detail == f"{name}: the reply is missing"


def test_free_calls_are_reported_zero_not_missing():
    free = {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
    assert total_usage([free]) == {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
    assert run_usage([("critic", [free])]) == {
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "partial": False,
        "unreported_seats": [],
    }


def test_the_json_result_keeps_non_ascii_text_as_it_is():
    text = rendered(ECHO, {"reply": "Größe: naïve café ✓"}, "json")
    assert text == '{\n  "reply": "Größe: naïve café ✓"\n}\n'
