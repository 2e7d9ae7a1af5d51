"""The fake ``codex``: the ``-o`` file, the git-repository check, stdin read to EOF."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from fakes.helpers import CODEX, PROMPT, documented_call, run, started
from fakes.install import FakeClis, expected_answer, expected_usage


def test_codex_writes_the_final_message_to_the_o_file(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CODEX, room)
    result = run(argv, env, room, stdin=stdin)
    assert result.returncode == 0
    assert (room / "last.txt").read_text() == expected_answer("codex", PROMPT)
    assert result.stdout.decode() == expected_answer("codex", PROMPT) + "\n"


def test_codex_echoes_the_prompt_and_ends_stderr_with_its_blended_token_total(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    CODEX.set(fake_clis, cached_tokens=3)
    argv, stdin = documented_call(CODEX, room)
    stderr = run(argv, env, room, stdin=stdin).stderr.decode()
    answer = expected_answer("codex", PROMPT)
    tokens_in, tokens_out = expected_usage(PROMPT, answer)
    assert f"--------\nuser\n{PROMPT}\n" in stderr
    # codex's "blended total": the uncached input plus the output.
    assert stderr.endswith(f"codex\n{answer}\ntokens used\n{tokens_in - 3 + tokens_out:,}\n")


def test_codex_json_events_end_with_the_turns_usage(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    CODEX.set(fake_clis, cached_tokens=3, reasoning_tokens=2)
    result = run(["codex", "exec", "--skip-git-repo-check", "--json", "-"], env, room, stdin=PROMPT)
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("codex", PROMPT))
    assert events[-1] == {
        "type": "turn.completed",
        "usage": {
            "input_tokens": tokens_in,
            "cached_input_tokens": 3,
            "cache_write_input_tokens": 0,
            "output_tokens": tokens_out,
            "reasoning_output_tokens": 2,
        },
    }


def test_codex_refuses_a_folder_outside_git_unless_told_to_skip_the_check(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    refused = run(["codex", "exec", "-"], env, room, stdin=PROMPT)
    (room / ".git").mkdir()
    accepted = run(["codex", "exec", "-"], env, room, stdin=PROMPT)
    assert refused.returncode == 1
    assert "--skip-git-repo-check was not specified" in refused.stderr.decode()
    assert accepted.returncode == 0


def test_codex_reads_stdin_to_eof_so_an_open_pipe_hangs_it(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    with started(
        ["codex", "exec", "--skip-git-repo-check", "-"],
        env=env,
        cwd=room,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write(PROMPT.encode())
        proc.stdin.flush()
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.3)
        assert fake_clis.calls("codex") == [], "nothing is recorded before stdin ends"
        stdout, _ = proc.communicate(timeout=10)  # closes stdin
    assert stdout.decode() == expected_answer("codex", PROMPT) + "\n"
