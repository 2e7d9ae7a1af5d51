"""The fake ``gemini``: its trusted-folder gate and its stats."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.helpers import GEMINI, PROMPT, documented_call, run
from fakes.install import FakeClis, expected_answer, expected_usage


def test_gemini_refuses_an_untrusted_folder_with_exit_55(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    untrusted = run(["gemini", "-m", "m"], env, room, stdin=PROMPT)
    skipped = run(["gemini", "-m", "m", "--skip-trust"], env, room, stdin=PROMPT)
    assert untrusted.returncode == 55
    assert untrusted.stderr.decode().startswith("Gemini CLI is not running in a trusted directory")
    assert skipped.returncode == 0


def test_gemini_stats_count_cached_tokens_in_the_prompt_and_thoughts_apart(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    GEMINI.set(fake_clis, cached_tokens=2, reasoning_tokens=5)
    argv, stdin = documented_call(GEMINI, room)
    result = run(argv, {**env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}, room, stdin=stdin)
    stats = json.loads(result.stdout)["stats"]
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("gemini", PROMPT))
    assert list(stats["models"]) == ["gemini-2.5-pro"]
    assert stats["models"]["gemini-2.5-pro"]["tokens"] == {
        "input": tokens_in - 2,
        "prompt": tokens_in,
        "candidates": tokens_out - 5,
        "total": tokens_in + tokens_out,
        "cached": 2,
        "thoughts": 5,
        "tool": 0,
    }
