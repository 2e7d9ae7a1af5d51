"""qwen: a JSON array of events whose `result` event holds the answer; plan mode."""

from __future__ import annotations

import json

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Usage

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: REBUTTAL\nQuestion: rewrite or refactor?"


async def test_qwen_runs_in_plan_mode_and_reads_the_result_event(fakes, seat_for):
    outcome = await seat_for("qwen").ask(PROMPT, model="qwen3-coder-plus")
    argv = answer_calls(fakes, "qwen")[0]["argv"]
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-m") + 1] == "qwen3-coder-plus"
    assert outcome.text == expected_answer("qwen", PROMPT)


async def test_qwen_finds_its_auto_memory_switched_off_in_its_room(fakes, seat_for):
    """qwen 0.15 reads `.qwen/settings.json` in its working directory (the room); with its
    managed auto-memory on it makes a second model request after every answer."""
    seat = seat_for("qwen")
    await seat.ask(PROMPT)
    settings = json.loads((seat.room / ".qwen" / "settings.json").read_text())
    assert settings == {"memory": {"enableManagedAutoMemory": False}}
    assert answer_calls(fakes, "qwen")[0]["cwd"] == str(seat.room)


async def test_qwen_is_never_relaunched_for_a_bigger_heap_probe_included(fakes, seat_for):
    """0.15.10 restarts itself in a second node process unless told not to: 0.7 s a run."""
    await seat_for("qwen").ask(PROMPT)
    probe, call = fakes.calls("qwen")
    assert probe["argv"] == ["--version"]
    assert probe["env"]["QWEN_CODE_NO_RELAUNCH"] == call["env"]["QWEN_CODE_NO_RELAUNCH"] == "true"


def test_a_result_event_marked_as_error_is_not_an_answer():
    stdout = '[{"type":"result","is_error":true,"result":"Model stream ended"}]'
    verdict = adapter_for("qwen").classify(RawResult(0, stdout, ""), PROMPT)
    assert verdict.status is Status.ERROR


async def test_qwen_usage_is_its_result_events_whose_input_already_holds_the_cache(fakes, seat_for):
    # The fake reports 2 cache reads inside input_tokens (and apart), as qwen does.
    fakes.set("qwen", "ok", cached_tokens=2, reasoning_tokens=4)
    outcome = await seat_for("qwen").ask(PROMPT)
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("qwen", PROMPT))
    assert outcome.usage == Usage(tokens_in, tokens_out, None)


@pytest.mark.parametrize(
    "stdout",
    ['[{"type":"result","is_error":false,"result":"an answer"}]', "plain text", ""],
    ids=["no-usage", "text", "empty"],
)
def test_qwen_output_without_usage_reads_as_none_not_zero(stdout):
    assert adapter_for("qwen").read_usage(RawResult(0, stdout, "")) is None
