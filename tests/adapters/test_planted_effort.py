"""A seat's own effort (`--advocate claude#max`, a preset's) beats the CLI's configured one
(`clis.claude.effort`): the more specific setting wins (docs/spec/config.md, precedence);
without one, the configured effort is used."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"


@pytest.mark.parametrize(("asked", "sent"), [("max", "max"), (None, "low")])
async def test_the_seats_effort_beats_the_configured_one(fakes, seat_for, asked, sent):
    outcome = await seat_for("claude", effort="low").ask(PROMPT, effort=asked)
    assert outcome.status is Status.OK
    argv = answer_calls(fakes, "claude")[0]["argv"]
    assert argv[argv.index("--effort") + 1] == sent
