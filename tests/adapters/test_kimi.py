"""kimi: two programs share the binary name. council tells them apart by `--version`, drives
each its own way, refuses the archived kimi-cli 1.52+, and never runs `kimi` bare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Tool
from council.adapters.kimi import ARG_PROMPT_LIMIT, KIMI_CLI, KIMI_CODE, PROMPT_FILE

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: SQLite or Postgres?"


def never_run_bare(fakes) -> None:
    assert all(call["argv"] for call in fakes.calls("kimi")), "kimi was run with no arguments"


async def test_kimi_cli_is_recognised_and_reads_the_prompt_on_stdin(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-cli")
    seat = seat_for("kimi")
    assert (await seat.resolve()).tool.variant == KIMI_CLI
    outcome = await seat.ask(PROMPT, effort="high")
    call = answer_calls(fakes, "kimi")[0]
    assert outcome.text == expected_answer("kimi", PROMPT)
    assert call["stdin"] == PROMPT
    assert "--quiet" in call["argv"] and "--thinking" in call["argv"]
    assert "--plan" in call["argv"]  # its read-only mode
    never_run_bare(fakes)


async def test_kimi_code_is_recognised_and_gets_the_prompt_as_an_argument(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-code")
    seat = seat_for("kimi")
    assert (await seat.resolve()).tool.variant == KIMI_CODE
    outcome = await seat.ask(PROMPT)
    call = answer_calls(fakes, "kimi")[0]
    assert outcome.status is Status.OK
    assert outcome.text == expected_answer("kimi", PROMPT)
    assert call["argv"][call["argv"].index("-p") + 1] == PROMPT
    assert call["env"]["KIMI_DISABLE_TELEMETRY"] == "1"
    never_run_bare(fakes)


async def test_kimi_code_answer_in_content_parts_is_joined(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-code", content_parts=True)
    outcome = await seat_for("kimi").ask(PROMPT)
    assert outcome.text == expected_answer("kimi", PROMPT)


async def test_a_prompt_too_long_for_an_argument_goes_to_a_file_in_the_room(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-code")
    seat = seat_for("kimi")
    long_prompt = PROMPT + "\n" + "context line\n" * (ARG_PROMPT_LIMIT // 10)
    outcome = await seat.ask(long_prompt)
    argv = answer_calls(fakes, "kimi")[0]["argv"]
    assert outcome.status is Status.OK
    assert PROMPT_FILE in argv[argv.index("-p") + 1]
    assert len(argv[argv.index("-p") + 1]) < 1000
    assert (seat.room / PROMPT_FILE).read_text() == long_prompt


async def test_archived_kimi_cli_is_reported_unusable_and_never_run_bare(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-cli-1.52")
    resolved = await seat_for("kimi").resolve()
    assert resolved.tool is None
    assert "kimi-code" in resolved.problem and "1.52.0" in resolved.problem
    assert [c["argv"] for c in fakes.calls("kimi")] == [["--version"]]


def test_kimi_code_stream_takes_the_last_assistant_message():
    stdout = "\n".join(
        json.dumps(e)
        for e in (
            {"role": "user", "content": "question"},
            {"role": "assistant", "content": "draft"},
            {"role": "tool", "content": "ls output"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "final "}, {"type": "text", "text": "answer"}],
            },
        )
    )
    raw = RawResult(0, stdout, "", output_format="stream-json")
    verdict = adapter_for("kimi").classify(raw, PROMPT)
    assert verdict.text == "final answer"


def test_a_kimi_cli_answer_that_is_a_json_object_is_taken_as_the_answer():
    """kimi-cli prints plain text; a lead's DECISION is a JSON object, and must not be read as
    kimi-code's stream-json (it used to be, failed, was retried, and the run ended degraded)."""
    decision = json.dumps({"recommendation": "Use Redis.", "confidence": 70})
    verdict = adapter_for("kimi").classify(RawResult(0, decision + "\n", ""), PROMPT)
    assert verdict.status.value == "ok" and verdict.text == decision


def test_kimi_thinking_doubles_the_timeout():
    kimi = adapter_for("kimi")
    assert kimi.soft_timeout(None) == 300 and kimi.soft_timeout("high") == 600


@pytest.mark.parametrize("variant", [KIMI_CLI, KIMI_CODE])
async def test_neither_kimi_reports_usage_in_the_mode_council_runs_it(fakes, seat_for, variant):
    fakes.set("kimi", "ok", variant=variant)
    outcome = await seat_for("kimi").ask(PROMPT)
    assert outcome.text == expected_answer("kimi", PROMPT)
    assert outcome.usage is None


def kimi_auth(environ: dict[str, str], home: Path) -> tuple[bool | None, str]:
    state = adapter_for("kimi").auth_state(environ, home)
    return state.found, state.source


@pytest.mark.parametrize("name", ["MOONSHOT_API_KEY", "KIMI_MODEL_API_KEY", "KIMI_API_KEY"])
def test_a_kimi_key_without_a_model_is_no_login(tmp_path, name):
    """Measured: either program with only this key answers "No model configured" (kimi-code
    2.1.0) or "LLM not set" (kimi-cli 1.51.0)."""
    assert kimi_auth({name: "k"}, tmp_path)[0] is False


def test_a_kimi_model_from_the_environment_needs_its_name_and_key(tmp_path):
    code = {"KIMI_MODEL_NAME": "m", "KIMI_MODEL_API_KEY": "k"}
    assert kimi_auth(code, tmp_path)[0] is True
    assert kimi_auth({"KIMI_MODEL_NAME": "m", "KIMI_API_KEY": "k"}, tmp_path)[0] is True


def test_a_kimi_login_counts_where_either_program_keeps_it(tmp_path):
    moved = tmp_path / "code-home"
    creds = moved / "credentials"
    creds.mkdir(parents=True)
    (creds / "kimi-code.json").write_text('{"access_token": "t"}')
    assert kimi_auth({}, tmp_path)[0] is False
    found, source = kimi_auth({"KIMI_CODE_HOME": str(moved)}, tmp_path)
    assert found is True and source == str(creds / "kimi-code.json")


def test_a_kimi_config_logs_in_only_when_its_default_model_has_a_key(tmp_path):
    (tmp_path / ".kimi").mkdir()
    config = tmp_path / ".kimi" / "config.toml"
    config.write_text("[providers]\n")  # what a first run leaves: no model
    assert kimi_auth({}, tmp_path)[0] is False
    config.write_text(
        'default_model = "m"\n[models.m]\nprovider = "p"\nmodel = "x"\n'
        '[providers.p]\ntype = "kimi"\napi_key = "k"\n'
    )
    assert kimi_auth({}, tmp_path) == (True, str(config))


def test_kimi_may_write_where_its_variables_moved_its_home(tmp_path):
    env = {"KIMI_CODE_HOME": str(tmp_path / "a"), "KIMI_SHARE_DIR": str(tmp_path / "b")}
    dirs, _ = adapter_for("kimi").state_paths(env, tmp_path)
    assert {tmp_path / "a", tmp_path / "b", tmp_path / ".kimi", tmp_path / ".kimi-code"} <= set(
        dirs
    )


def test_kimi_cli_logged_in_under_kimi_share_dir_runs_warm(tmp_path):
    share = tmp_path / "share"
    (share / "credentials").mkdir(parents=True)
    (share / "credentials" / "kimi-code.json").write_text('{"access_token": "t"}')
    tool = Tool("kimi", ("kimi",), "1.51.0", "kimi-cli")
    adapter = adapter_for("kimi")
    assert adapter.warm_refusal(tool, {}, tmp_path) is not None
    assert adapter.warm_refusal(tool, {"KIMI_SHARE_DIR": str(share)}, tmp_path) is None
