"""codex: `codex exec` in the read-only sandbox, the answer read from its `-o` file."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: monolith or services?"


async def test_codex_runs_exec_read_only_with_its_own_retries_capped(fakes, seat_for):
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert argv[0] == "exec" and argv[-1] == "-"
    assert argv[argv.index("-s") + 1] == "read-only"
    assert "request_max_retries=1" in argv and "stream_max_retries=1" in argv
    assert not any("dangerously" in a or a in ("--full-auto", "--yolo") for a in argv)


async def test_codex_answer_comes_from_the_output_file_in_the_record_not_the_room(fakes, seat_for):
    seat = seat_for("codex")
    outcome = await seat.ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    answer_file = argv[argv.index("-o") + 1]
    assert answer_file.startswith(str(seat.record))
    assert outcome.text == expected_answer("codex", PROMPT)
    assert list(seat.room.iterdir()) == []


async def test_codex_model_and_effort_are_passed_as_codex_expects(fakes, seat_for):
    outcome = await seat_for("codex").ask(PROMPT, model="gpt-5.3-codex", effort="xhigh")
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("-m") + 1] == "gpt-5.3-codex"
    assert 'model_reasoning_effort="xhigh"' in argv


async def test_codex_gets_openai_keys_but_not_anthropic_ones(fakes, seat_for, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    await seat_for("codex").ask(PROMPT)
    env = answer_calls(fakes, "codex")[0]["env"]
    assert env["OPENAI_API_KEY"] == "sk-openai" and "ANTHROPIC_API_KEY" not in env


def test_codex_timeouts_follow_the_effort():
    from council.adapters import adapter_for

    codex = adapter_for("codex")
    assert codex.soft_timeout(None) == 600 and codex.soft_timeout("xhigh") == 1800


async def test_codex_usage_is_none_its_only_figure_being_a_blend_of_input_and_output(
    fakes, seat_for
):
    fakes.set("codex", "ok", cached_tokens=3)
    outcome = await seat_for("codex").ask(PROMPT)
    err = outcome.attempts[0].err_file.read_text()
    assert outcome.status is Status.OK
    assert outcome.text == expected_answer("codex", PROMPT)
    # `tokens used` (uncached input + output) is on stderr; it is no figure council keeps.
    assert "\ntokens used\n" in err
    assert outcome.usage is None
