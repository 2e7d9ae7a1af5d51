"""qwen's second paths (docs/spec/clis.md "Per CLI", "Failure signatures", "Token usage"): an
API failure printed as a successful result with exit 0, several values in its output, the
warm worker's argv and room, and a warm turn's figures summed over its updates."""

from __future__ import annotations

import json

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Request, Status, Tool, Usage
from council.adapters.qwen import LEAN_EXCLUDED
from council.adapters.warm import AcpOutcome, LeanStart, RpcError

QWEN = Tool("qwen", ("qwen",), "0.24.4")
SETTINGS = {".qwen/settings.json": '{"memory": {"enableManagedAutoMemory": false}}\n'}


def qwen(**settings):
    clis = {"qwen": CliSettings(name="qwen", adapter="qwen", **settings)}
    return adapter_for("qwen", clis if settings else None)


def events(*items: dict) -> str:
    return json.dumps([{"type": "system", "subtype": "init"}, *items])


def result(text: str, **fields) -> dict:
    return {"type": "result", "is_error": False, "result": text, **fields}


# After its own retries qwen -o json prints an API failure as its result and exits 0.
@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("[API Error: 429 Too many requests, retry after 9 s]", Status.RATE_LIMITED),
        ("  [API Error: 401 Incorrect API key provided]", Status.AUTH),
        ("[API Error: Connection error.]", Status.ERROR),
    ],
)
def test_a_qwen_api_error_printed_as_its_result_with_exit_0_is_no_answer(text, status):
    verdict = qwen().classify(RawResult(0, events(result(text)), ""), "Q?")
    assert verdict.status is status
    assert verdict.text == ""


def test_a_qwen_answer_that_mentions_an_api_error_later_is_still_an_answer():
    text = "The log shows [API Error: 429] twice; retry with backoff."
    verdict = qwen().classify(RawResult(0, events(result(text)), ""), "Q?")
    assert (verdict.status, verdict.text) == (Status.OK, text)


def test_a_qwen_result_marked_as_error_is_an_error_even_with_text():
    stdout = events(result("Model stream ended with an invalid chunk", is_error=True))
    verdict = qwen().classify(RawResult(0, stdout, ""), "Q?")
    assert verdict.status is Status.ERROR and "Model stream ended" in verdict.detail


def test_qwen_reads_the_last_result_of_a_jsonl_stream_and_its_usage():
    stdout = "\n".join(
        json.dumps(e)
        for e in (
            {"type": "system"},
            result("draft", usage={"input_tokens": 1, "output_tokens": 1}),
            result("final", usage={"input_tokens": 50, "output_tokens": 7}),
        )
    )
    adapter = qwen()
    assert adapter.classify(RawResult(0, stdout, ""), "Q?").text == "final"
    assert adapter.read_usage(RawResult(0, stdout, "")) == Usage(50, 7)


def test_qwen_input_already_holds_its_cache_reads():
    usage = {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 30}
    stdout = events(result("x", usage=usage))
    assert qwen().read_usage(RawResult(0, stdout, "")) == Usage(40, 9)


def test_qwen_names_the_model_with_most_output_first():
    stats = {"models": {"extractor": {"tokens": {"prompt": 900, "candidates": 3}}}}
    stats["models"]["main"] = {"tokens": {"prompt": 100, "candidates": 40}}
    stdout = events(result("x", stats=stats))
    assert qwen().read_model(RawResult(0, stdout, "")) == ("main", "extractor")


def test_qwen_takes_the_seats_model_with_dash_m_in_plan_mode_and_its_settings_file(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", model="qwen3")
    invocation = qwen(model="other").build(QWEN, request)
    argv = list(invocation.argv)
    assert argv[argv.index("-m") + 1] == "qwen3"
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-o") + 1] == "json"
    assert invocation.room_files == SETTINGS


def test_a_lean_qwen_excludes_every_tool_as_one_comma_separated_list(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", lean_prompt="Hi.")
    argv = list(qwen().build(QWEN, request).argv)
    excluded = argv[argv.index("--exclude-tools") + 1].split(",")
    assert excluded == list(LEAN_EXCLUDED)
    assert {"run_shell_command", "write_file", "edit", "web_fetch"} <= set(excluded)
    assert argv[argv.index("--system-prompt") + 1] == "Hi."


def test_a_warm_qwen_gets_its_settings_file_plan_mode_and_the_seats_model(tmp_path):
    launch = qwen(model="cfg").warm_launch(
        QWEN, model="seat", effort=None, lean=LeanStart("Hi.", tmp_path)
    )
    argv = list(launch.argv)
    assert argv[:2] == ["qwen", "--acp"]
    assert argv[argv.index("-m") + 1] == "seat"
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert "--exclude-tools" in argv and launch.lean is True
    assert launch.room_files == SETTINGS
    assert launch.acp is not None and launch.acp.mode == "plan"


def test_a_warm_qwen_turn_sums_the_usage_of_every_update():
    updates = (
        {"usage": {"inputTokens": 100, "outputTokens": 10}},
        {"other": 1},
        {"usage": {"inputTokens": 150, "outputTokens": 25}},
    )
    outcome = AcpOutcome(stop_reason="end_turn", text="An answer.", update_meta=updates)
    verdict = qwen().acp_verdict(outcome, "Q?").verdict
    assert (verdict.status, verdict.usage) == (Status.OK, Usage(250, 35))


def test_a_refused_warm_qwen_call_is_read_from_the_apis_words_in_its_details():
    error = RpcError(-32603, "Internal error", {"details": "401 Incorrect API key provided"})
    outcome = AcpOutcome(stop_reason=None, text="", error=error)
    verdict = qwen().acp_verdict(outcome, "Q?").verdict
    assert verdict.status is Status.AUTH and verdict.usage is None


def test_a_qwen_settings_file_with_comments_is_unknown_not_logged_out(tmp_path):
    (tmp_path / ".qwen").mkdir()
    (tmp_path / ".qwen" / "settings.json").write_text('{ // my settings\n "x": 1 }')
    state = qwen().auth_state({}, tmp_path)
    assert state.found is None and "could not be read" in state.source


def test_qwen_home_at_the_home_itself_reads_settings_json_there(tmp_path):
    (tmp_path / "settings.json").write_text('{"security": {"auth": {"selectedType": "qwen"}}}')
    assert qwen().auth_state({"QWEN_HOME": "~"}, tmp_path).found is True


@pytest.mark.parametrize(
    "env",
    [
        {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://example.test/v1"},
        {"OPENAI_API_KEY": "k", "OPENAI_MODEL": "qwen3"},
    ],
    ids=["no-model", "no-base-url"],
)
def test_a_qwen_key_without_its_endpoint_and_model_selects_no_auth(tmp_path, env):
    state = qwen().auth_state(env, tmp_path)
    assert state.found is False and "selects no auth" in state.source
