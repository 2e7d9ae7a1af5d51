"""pi: print mode with only its read tools, no session, no context files."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: threads or asyncio?"


async def test_pi_gets_only_read_tools_and_no_context_files(fakes, seat_for):
    await seat_for("pi").ask(PROMPT)
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert argv[argv.index("--tools") + 1] == "read,grep,find,ls"
    assert {"-p", "--no-session", "--no-context-files", "--offline"} <= set(argv)


async def test_a_provider_slash_model_spec_sets_both_flags(fakes, seat_for):
    outcome = await seat_for("pi").ask(
        PROMPT, model="openrouter/anthropic/claude-sonnet", effort="high"
    )
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("--provider") + 1] == "openrouter"
    assert argv[argv.index("--model") + 1] == "anthropic/claude-sonnet"
    assert argv[argv.index("--thinking") + 1] == "high"


async def test_pi_text_mode_reports_no_usage(fakes, seat_for):
    outcome = await seat_for("pi").ask(PROMPT)
    assert outcome.status is Status.OK
    assert outcome.usage is None
