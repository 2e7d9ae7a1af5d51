"""Where a CLI's answer is read from, as a user sees it: qwen's failed API call that exits 0
is a failure, not an answer (docs/spec/clis.md, the error table), and a user-defined CLI's
`output: json:<path>` reads the final JSON value its run printed (docs/spec/config.md)."""

from __future__ import annotations

import json

import pytest

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status
from council.config import parse_config

PROMPT = "ACTION: PROPOSAL\nQuestion: tabs or spaces?\n"


def qwen_json(result: str) -> str:
    """qwen -o json: one array of events, the `result` event last."""
    return json.dumps(
        [
            {"type": "system", "subtype": "init"},
            {"type": "result", "subtype": "success", "is_error": False, "result": result},
        ]
    )


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("[API Error: 429 Too Many Requests]", Status.RATE_LIMITED),
        ("[API Error: 401 Incorrect API key provided]", Status.AUTH),
        ("[API Error: Connection error.]", Status.ERROR),
    ],
)
def test_a_qwen_api_error_printed_as_its_result_with_exit_0_is_a_failed_call(error, expected):
    """After its own retries qwen prints `[API Error: ...]` as a successful result and exits 0:
    the seat must not record that text as its answer."""
    verdict = adapter_for("qwen").classify(RawResult(0, qwen_json(error), ""), PROMPT)
    assert verdict.status is expected
    assert verdict.status is not Status.OK


def test_a_qwen_answer_that_merely_mentions_an_api_error_is_an_answer():
    answer = "Spaces. A client that logs [API Error: 429] should retry."
    verdict = adapter_for("qwen").classify(RawResult(0, qwen_json(answer), ""), PROMPT)
    assert verdict.status is Status.OK


def custom(output: str):
    config = parse_config({"clis": {"mytool": {"command": ["mytool"], "output": output}}})
    return adapter_for("mytool", config.clis)


def test_a_custom_json_output_reads_the_last_value_of_jsonl_progress_events():
    stdout = (
        '{"type": "progress", "result": "thinking..."}\n'
        '{"type": "progress", "result": "reading files"}\n'
        '{"type": "final", "result": "Spaces, four of them."}\n'
    )
    assert custom("json:result").extract(RawResult(0, stdout, "")) == ("Spaces, four of them.")


def test_a_custom_json_output_with_one_value_reads_it():
    stdout = json.dumps({"answer": {"text": "Tabs."}})
    assert custom("json:answer.text").extract(RawResult(0, stdout, "")) == "Tabs."
