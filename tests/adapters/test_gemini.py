"""gemini: JSON output in plan mode, the room trusted, its own exit codes read."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: which queue?"


async def test_gemini_runs_in_plan_mode_in_a_trusted_room(fakes, seat_for):
    outcome = await seat_for("gemini").ask(PROMPT, model="gemini-2.5-pro")
    call = answer_calls(fakes, "gemini")[0]
    assert outcome.status is Status.OK
    assert call["argv"][call["argv"].index("--approval-mode") + 1] == "plan"
    assert call["argv"][call["argv"].index("-m") + 1] == "gemini-2.5-pro"
    assert call["env"]["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    assert "--yolo" not in call["argv"] and "-y" not in call["argv"]


async def test_gemini_exit_41_is_auth_and_not_retried(fakes, seat_for):
    fakes.set("gemini", "auth")
    outcome = await seat_for("gemini").ask(PROMPT)
    assert outcome.status is Status.AUTH and outcome.exit_code == 41
    assert len(outcome.attempts) == 1


async def test_gemini_effort_is_ignored_because_it_has_no_such_flag(fakes, seat_for):
    outcome = await seat_for("gemini").ask(PROMPT, effort="high")
    assert outcome.status is Status.OK
