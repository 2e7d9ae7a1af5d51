"""qwen: a JSON array of events whose `result` event holds the answer; plan mode."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import RawResult, Status

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: REBUTTAL\nQuestion: rewrite or refactor?"


async def test_qwen_runs_in_plan_mode_and_reads_the_result_event(fakes, seat_for):
    outcome = await seat_for("qwen").ask(PROMPT, model="qwen3-coder-plus")
    argv = answer_calls(fakes, "qwen")[0]["argv"]
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-m") + 1] == "qwen3-coder-plus"
    assert outcome.text == expected_answer("qwen", PROMPT)


def test_a_result_event_marked_as_error_is_not_an_answer():
    from council.adapters import adapter_for

    stdout = '[{"type":"result","is_error":true,"result":"Model stream ended"}]'
    verdict = adapter_for("qwen").classify(RawResult(0, stdout, ""), PROMPT)
    assert verdict.status is Status.ERROR
