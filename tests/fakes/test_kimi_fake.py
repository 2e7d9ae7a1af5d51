"""The fake ``kimi``: kimi-code's output, the archived kimi-cli, and no run without arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.helpers import KIMI_ARCHIVED, KIMI_CLI, KIMI_CODE, PROMPT, Target, by_id, run
from fakes.install import EXIT_FORBIDDEN, FakeClis, expected_answer


@pytest.mark.parametrize("content_parts", [False, True], ids=["string", "parts"])
def test_kimi_code_stream_json_ends_with_the_full_answer_after_a_partial_one(
    content_parts: bool, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CODE.set(fake_clis, content_parts=content_parts)
    result = run(["kimi", "-p", PROMPT, "--output-format", "stream-json"], env, room, stdin="x")
    meta_first, *lines, meta_last = [
        json.loads(line) for line in result.stdout.decode().splitlines()
    ]
    answer = expected_answer("kimi", PROMPT)
    full = [{"type": "text", "text": answer}] if content_parts else answer
    assert result.returncode == 0
    assert meta_first == {"role": "meta", "type": "system.version", "version": "2.1.0"}
    assert meta_last["role"] == "meta" and meta_last["type"] == "session.resume_hint"
    assert all(line["role"] == "assistant" for line in lines)
    assert len(lines) == 2
    assert lines[-1]["content"] == full
    assert lines[0]["content"] != full
    assert fake_clis.calls("kimi")[-1]["stdin"] is None, "kimi-code -p never reads stdin"


def test_kimi_code_text_mode_prefixes_the_answer_with_a_bullet(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CODE.set(fake_clis)
    result = run(["kimi", "-p", PROMPT], env, room)
    assert result.stdout.decode() == f"• {expected_answer('kimi', PROMPT)}\n"


@by_id([KIMI_CLI, KIMI_CODE, KIMI_ARCHIVED])
def test_kimi_run_with_no_arguments_exits_99_and_is_recorded(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    result = run(["kimi"], env, room, stdin=PROMPT)
    assert result.returncode == EXIT_FORBIDDEN
    assert result.stderr.decode() == "FAKE: kimi run with no arguments\n"
    assert fake_clis.calls("kimi")[-1]["argv"] == []


def test_the_archived_kimi_cli_only_prints_its_deprecation_notice(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_ARCHIVED.set(fake_clis)
    result = run(["kimi", "--quiet"], env, room, stdin=PROMPT)
    assert result.returncode == 1
    assert result.stdout == b""
    assert "kimi-cli is deprecated; install kimi-code" in result.stderr.decode()
