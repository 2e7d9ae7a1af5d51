"""The fake ``qwen``: its JSON output is an array of events."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.helpers import PROMPT, QWEN, documented_call, run
from fakes.install import FakeClis, expected_answer


def test_qwen_json_output_is_an_array_of_events_ending_with_the_result(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(QWEN, room)
    events = json.loads(run(argv, env, room, stdin=stdin).stdout)
    assert [e["type"] for e in events] == ["system", "assistant", "result"]
    assert events[0]["subtype"] == "init"
    assert events[1]["message"]["content"] == [
        {"type": "text", "text": expected_answer("qwen", PROMPT)}
    ]
    assert events[2]["is_error"] is False
    assert events[2]["result"] == expected_answer("qwen", PROMPT)
    assert set(events[2]["usage"]) >= {"input_tokens", "output_tokens"}
