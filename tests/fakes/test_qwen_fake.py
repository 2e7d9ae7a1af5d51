"""The fake ``qwen``: its JSON output is an array of events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.helpers import PROMPT, QWEN, documented_call, run
from fakes.install import FakeClis, expected_answer, expected_usage


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


def test_qwens_usage_counts_the_cached_tokens_in_the_input(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    QWEN.set(fake_clis, cached_tokens=2, reasoning_tokens=4)
    argv, stdin = documented_call(QWEN, room)
    result = json.loads(run(argv, env, room, stdin=stdin).stdout)[-1]
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("qwen", PROMPT))
    assert result["usage"] == {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cache_read_input_tokens": 2,
        "total_tokens": tokens_in + tokens_out,
    }
    (model,) = result["stats"]["models"].values()
    assert model["tokens"]["thoughts"] == 4 and model["tokens"]["candidates"] == tokens_out


@pytest.mark.parametrize(
    ("version", "refused", "accepted"),
    [("0.15.10", "--safe-mode", "--checkpointing"), ("0.24.4", "--checkpointing", "--safe-mode")],
)
def test_each_qwen_version_refuses_the_flags_the_other_one_has(
    fake_clis: FakeClis, env: dict[str, str], room: Path, version, refused, accepted
) -> None:
    """As the real ones: 0.24.x added `--safe-mode` (0.15.10: `Unknown arguments:
    safe-mode, safeMode`, exit 1) and removed `--checkpointing`."""
    QWEN.set(fake_clis, version=version)
    argv, stdin = documented_call(QWEN, room)
    assert run([*argv, "--version"], env, room).stdout.decode() == version + "\n"
    no = run([*argv, refused], env, room, stdin=stdin)
    assert no.returncode == 1
    assert f"Unknown argument: {refused[2:]}" in no.stderr.decode()
    yes = run([*argv, accepted], env, room, stdin=stdin)
    assert yes.returncode == 0, yes.stderr.decode()
    assert json.loads(yes.stdout)[-1]["result"] == expected_answer("qwen", PROMPT)
