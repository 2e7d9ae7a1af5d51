"""kimi's second paths (docs/spec/clis.md "Per CLI", its credentials; the module's docstring):
`kimi --version` told apart version by version, each program's argv, kimi-code's stream with
several messages, and when a seat runs warm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Request, Status, Tool
from council.adapters.kimi import ARG_PROMPT_LIMIT, KIMI_CLI, KIMI_CODE, PROMPT_FILE
from council.adapters.warm import AcpOutcome

KIMI_CLI_TOOL = Tool("kimi", ("kimi",), "1.51.0", KIMI_CLI)
KIMI_CODE_TOOL = Tool("kimi", ("kimi",), "2.1.0", KIMI_CODE)


def kimi(**settings):
    clis = {"kimi": CliSettings(name="kimi", adapter="kimi", **settings)}
    return adapter_for("kimi", clis if settings else None)


@pytest.mark.parametrize(
    ("exit_code", "stdout", "version", "variant", "usable"),
    [
        (0, "kimi, version 1.51.0\n", "1.51.0", KIMI_CLI, True),
        (0, "kimi, version 1.52.0\n", "1.52.0", KIMI_CLI, False),
        (0, "kimi, version 1.60.2\n", "1.60.2", KIMI_CLI, False),
        (0, "2.1.0\n", "2.1.0", KIMI_CODE, True),
        (0, "v3.0.1\n", "3.0.1", KIMI_CODE, True),
        (0, "1.9.0\n", None, None, False),  # a bare 1.x is neither program
        (1, "2.1.0\n", None, None, False),  # a failed probe names no version
    ],
)
def test_kimi_version_output_tells_the_two_programs_apart(
    exit_code, stdout, version, variant, usable
):
    info = kimi().read_version(exit_code, stdout, "")
    assert (info.version, info.variant, info.unusable is None) == (version, variant, usable)
    if not usable:
        assert "npm install -g @moonshot-ai/kimi-code" in info.unusable


def test_a_deprecation_notice_on_stderr_is_an_unusable_kimi_cli():
    info = kimi().read_version(0, "", "WARNING: kimi-cli is Deprecated, use kimi-code\n")
    assert (info.variant, info.version) == (KIMI_CLI, None)
    assert info.unusable.startswith("this kimi is deprecated")


def request(tmp_path, prompt: str = "Q?", **fields) -> Request:
    return Request(prompt=prompt, room=tmp_path, answer_path=tmp_path / "a", **fields)


def test_kimi_cli_runs_quiet_in_plan_mode_with_one_retry_and_the_seats_model(tmp_path):
    invocation = kimi(model="cfg").build(KIMI_CLI_TOOL, request(tmp_path, model="seat"))
    argv = list(invocation.argv)
    assert argv[:3] == ["kimi", "--quiet", "--plan"]
    assert argv[argv.index("--max-retries-per-step") + 1] == "1"
    assert argv[argv.index("-m") + 1] == "seat"
    assert invocation.stdin == b"Q?"


@pytest.mark.parametrize(("effort", "thinking"), [("medium", False), ("high", True)])
def test_kimi_cli_thinks_from_high_effort_on(tmp_path, effort, thinking):
    argv = kimi().build(KIMI_CLI_TOOL, request(tmp_path, effort=effort)).argv
    assert ("--thinking" in argv) is thinking


def test_a_lean_kimi_cli_prompt_renders_to_itself_as_a_jinja_template(tmp_path):
    lean = "Answer in {{ braces }} and ${VAR}."
    invocation = kimi().build(KIMI_CLI_TOOL, request(tmp_path, lean_prompt=lean))
    system = invocation.room_files[".council/kimi-system.md"]
    assert system == "{% raw %}" + lean + "{% endraw %}"
    argv = list(invocation.argv)
    assert argv[argv.index("--agent-file") + 1] == str(tmp_path / ".council" / "kimi-agent.yaml")


def test_kimi_code_gets_stream_json_and_its_retry_and_telemetry_settings(tmp_path):
    invocation = kimi().build(KIMI_CODE_TOOL, request(tmp_path))
    argv = list(invocation.argv)
    assert argv[argv.index("--output-format") + 1] == "stream-json"
    assert invocation.stdin is None  # `-p` does not read stdin
    assert invocation.env == {
        "KIMI_DISABLE_TELEMETRY": "1",
        "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP": "2",
    }


def test_a_prompt_of_many_bytes_but_fewer_characters_goes_to_a_file(tmp_path):
    prompt = "é" * (ARG_PROMPT_LIMIT // 2 + 10)  # over the limit in bytes, not in characters
    invocation = kimi().build(KIMI_CODE_TOOL, request(tmp_path, prompt, lean_prompt="Hi."))
    assert invocation.room_files[PROMPT_FILE] == prompt
    # the file needs kimi's read tool: a lean agent (no tool) would leave it unread
    assert "--agent-file" not in invocation.argv
    short = kimi().build(KIMI_CODE_TOOL, request(tmp_path, "Q?", lean_prompt="Hi."))
    assert "--agent-file" in short.argv


def test_kimi_code_answer_is_the_last_assistant_messages_text_parts():
    lines = [
        {"role": "assistant", "content": [{"type": "text", "text": "draft"}]},
        {"role": "tool", "content": "tool output that is no answer"},
        {
            "role": "assistant",
            "content": [
                {"type": "think", "text": "hidden reasoning"},
                {"type": "text", "text": "the answer"},
            ],
        },
        {"role": "assistant", "content": ""},
    ]
    stdout = "\n".join(json.dumps(line) for line in lines)
    raw = RawResult(0, stdout, "", output_format="stream-json")
    assert kimi().extract(raw) == "the answer"


def test_kimi_code_output_with_no_assistant_message_is_unreadable_not_an_answer():
    stdout = json.dumps({"role": "tool", "content": "only a tool"})
    verdict = kimi().classify(RawResult(0, stdout, "", output_format="stream-json"), "Q?")
    assert verdict.status is Status.ERROR


def test_kimi_cli_prints_text_and_kimi_code_json_lines():
    assert kimi().whole_output(KIMI_CLI_TOOL) is False
    assert kimi().whole_output(KIMI_CODE_TOOL) is True


# -- warm (`kimi acp` takes no options) ------------------------------------------------------


def test_kimi_code_runs_warm_in_plan_mode_closing_each_session():
    launch = kimi().warm_launch(KIMI_CODE_TOOL, model=None, effort=None)
    assert launch.argv == ("kimi", "acp")
    assert (launch.acp.mode, launch.acp.close) == ("plan", True)
    assert launch.env["KIMI_LOOP_MAX_ATTEMPTS_PER_STEP"] == "2"


@pytest.mark.parametrize(
    ("tool", "model", "effort", "extra", "warm"),
    [
        (KIMI_CODE_TOOL, "kimi-k2", None, (), False),
        (KIMI_CODE_TOOL, None, None, ("--debug",), False),
        (KIMI_CLI_TOOL, None, "high", (), False),
        (KIMI_CLI_TOOL, None, "low", (), True),
        (KIMI_CODE_TOOL, None, "high", (), True),
    ],
)
def test_a_kimi_seat_with_options_acp_cannot_take_spawns_per_call(tool, model, effort, extra, warm):
    adapter = kimi(extra_args=extra) if extra else kimi()
    launch = adapter.warm_launch(tool, model=model, effort=effort)
    assert (launch is not None) is warm


def test_an_empty_warm_kimi_turn_is_asked_again_spawned_but_an_error_is_not():
    empty = kimi().acp_verdict(AcpOutcome(stop_reason="end_turn", text="  "), "Q?")
    assert empty.redo_cold is True
    answered = kimi().acp_verdict(AcpOutcome(stop_reason="end_turn", text="An answer."), "Q?")
    assert answered.redo_cold is False and answered.verdict.text == "An answer."


def test_a_kimi_config_whose_key_variable_is_unset_is_not_a_login(tmp_path):
    (tmp_path / ".kimi-code").mkdir()
    config = tmp_path / ".kimi-code" / "config.toml"
    config.write_text(
        'default_model = "m"\n[models.m]\nprovider = "p"\n'
        '[providers.p]\ntype = "kimi"\napi_key_env = "MY_KIMI_KEY"\n'
    )
    assert kimi().auth_state({}, tmp_path).found is None
    assert kimi().auth_state({"MY_KIMI_KEY": "k"}, tmp_path).found is True


def test_a_kimi_login_file_without_a_token_is_no_login(tmp_path):
    creds = tmp_path / ".kimi-code" / "credentials"
    creds.mkdir(parents=True)
    (creds / "kimi-code.json").write_text('{"refresh_token": ""}')
    assert kimi().auth_state({}, tmp_path).found is False
    # kimi-cli's `kimi acp` needs its own login under ~/.kimi, not kimi-code's
    (creds / "kimi-code.json").write_text('{"access_token": "t"}')
    assert kimi().warm_refusal(KIMI_CLI_TOOL, {}, tmp_path) is not None


def test_kimi_code_takes_the_seats_model():
    invocation = kimi(model="cfg").build(KIMI_CODE_TOOL, request(Path("/room"), model="k2"))
    argv = list(invocation.argv)
    assert argv[argv.index("-m") + 1] == "k2"


def test_a_kimi_cli_login_in_its_own_home_counts(tmp_path):
    creds = tmp_path / ".kimi" / "credentials"
    creds.mkdir(parents=True)
    (creds / "kimi-code.json").write_text('{"access_token": "t"}')
    state = kimi().auth_state({}, tmp_path)
    assert (state.found, state.source) == (True, str(creds / "kimi-code.json"))
    assert kimi().warm_refusal(KIMI_CLI_TOOL, {}, tmp_path) is None
