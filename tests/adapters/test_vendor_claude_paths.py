"""claude's second paths (docs/spec/clis.md "Per CLI", "Failure signatures", "Token usage"):
a result object that says `is_error` by its `api_error_status` whatever its exit code, the
warm worker's argv, where its login is looked for, and the running figures of a warm turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Status, Tool, Usage
from council.adapters.claude_usage import Totals, result_object, turn_models, turn_usage
from council.adapters.warm import LeanStart

CLAUDE = Tool("claude", ("claude",), "2.1.332")


def claude(**settings):
    clis = {"claude": CliSettings(name="claude", adapter="claude", **settings)}
    return adapter_for("claude", clis if settings else None)


def error_result(status: int | None, words: str, exit_code: int = 1) -> RawResult:
    payload = {"type": "result", "subtype": "success", "is_error": True, "result": words}
    if status is not None:
        payload["api_error_status"] = status
    return RawResult(exit_code, json.dumps(payload), "")


# The words say nothing a failure pattern reads: the status alone decides (clis.md: claude's
# JSON carries `api_error_status`; protocol.md: 401/403 auth, 429 and 5xx retried).
@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, Status.AUTH),
        (403, Status.AUTH),
        (429, Status.RATE_LIMITED),
        (500, Status.RATE_LIMITED),
        (529, Status.RATE_LIMITED),
        (400, Status.ERROR),
        (None, Status.ERROR),
    ],
)
@pytest.mark.parametrize("exit_code", [1, 0], ids=["exit1", "exit0"])
def test_a_claude_error_result_is_read_by_its_api_status_whatever_the_exit(
    status, expected, exit_code
):
    verdict = claude().classify(error_result(status, "The request was refused.", exit_code), "Q?")
    assert verdict.status is expected
    assert verdict.text == ""


def test_a_claude_403_says_it_is_not_logged_in_with_the_login_hint():
    verdict = claude().classify(error_result(403, "Organization has no access."), "Q?")
    assert verdict.detail.startswith("claude is not logged in")
    assert "/login" in verdict.detail


def test_a_claude_429_result_waits_as_long_as_it_says():
    verdict = claude().classify(error_result(429, "Slow down: retry after 7 s."), "Q?")
    assert (verdict.status, verdict.retry_after_s) == (Status.RATE_LIMITED, 7)


def test_claude_reads_the_last_json_line_after_stream_noise():
    first = json.dumps({"type": "system", "result": "not this"})
    last = json.dumps({"type": "result", "result": "the answer"})
    stdout = f"{first}\nnoise\n{last}\n"
    assert result_object(stdout)["result"] == "the answer"
    assert claude().extract(RawResult(0, stdout, "")) == "the answer"


# -- the warm worker's argv (clis.md "Warm workers": the lean call's flags beside
# --input-format stream-json) ---------------------------------------------------------------


def test_a_warm_claude_takes_the_seats_model_over_the_configs_and_drops_an_unknown_effort():
    launch = claude(model="sonnet").warm_launch(CLAUDE, model="opus", effort="minimal")
    argv = list(launch.argv)
    assert argv[argv.index("--model") + 1] == "opus"
    assert "--effort" not in argv  # `minimal` is codex's, not one of claude's efforts


@pytest.mark.parametrize("effort", ["low", "medium", "high", "xhigh", "max"])
def test_a_warm_claude_gets_each_effort_it_knows(effort):
    argv = list(claude().warm_launch(CLAUDE, model=None, effort=effort).argv)
    assert argv[argv.index("--effort") + 1] == effort


def test_a_warm_claude_without_a_model_asks_for_the_configs():
    argv = list(claude(model="sonnet").warm_launch(CLAUDE, model=None, effort=None).argv)
    assert argv[argv.index("--model") + 1] == "sonnet"


def test_a_warm_claude_is_read_only_and_lean_only_when_started_lean(tmp_path):
    usual = list(claude().warm_launch(CLAUDE, model=None, effort=None).argv)
    assert usual[usual.index("--tools") + 1] == "Read,Grep,Glob"
    assert "--system-prompt" not in usual
    lean_start = LeanStart("You are a seat.", tmp_path)
    lean = claude().warm_launch(CLAUDE, model=None, effort=None, lean=lean_start)
    argv = list(lean.argv)
    assert argv[argv.index("--tools") + 1] == ""
    assert argv[argv.index("--system-prompt") + 1] == "You are a seat."
    assert lean.lean is True
    for needed in ("--no-session-persistence", "--strict-mcp-config", "--verbose"):
        assert needed in argv
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert argv[argv.index("--input-format") + 1] == "stream-json"
    assert lean.env["CLAUDE_CODE_MAX_RETRIES"] == "1"


def test_a_warm_claude_with_lean_off_in_the_config_keeps_its_tools(tmp_path):
    launch = claude(lean=False).warm_launch(
        CLAUDE, model=None, effort=None, lean=LeanStart("x", tmp_path)
    )
    argv = list(launch.argv)
    assert argv[argv.index("--tools") + 1] == "Read,Grep,Glob"
    assert launch.lean is False


def test_claude_extra_args_come_last_spawned_and_warm(tmp_path):
    adapter = claude(extra_args=("--debug",))
    assert adapter.warm_launch(CLAUDE, model=None, effort=None).argv[-1] == "--debug"


# -- login (clis.md: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN,
# .credentials.json, primaryApiKey in ~/.claude.json, inside CLAUDE_CONFIG_DIR when set) -----


@pytest.mark.parametrize(
    "name", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]
)
def test_each_claude_key_variable_logs_it_in(tmp_path, name):
    state = claude().auth_state({name: "k"}, tmp_path)
    assert (state.found, state.source) == (True, name)


def test_claude_logins_are_looked_for_where_claude_config_dir_moves_them(tmp_path):
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    assert claude().auth_state(env, tmp_path).found is None
    (moved / ".credentials.json").write_text("{}")
    assert claude().auth_state(env, tmp_path).source == str(moved / ".credentials.json")


def test_a_console_key_saved_by_login_counts_beside_home_or_in_the_moved_dir(tmp_path):
    saved = {"primaryApiKey": "sk-ant-x"}
    (tmp_path / ".claude.json").write_text(json.dumps(saved))
    assert claude().auth_state({}, tmp_path).found is True
    moved = tmp_path / "moved"
    moved.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    assert claude().auth_state(env, tmp_path).found is None  # HOME's file is not read
    (moved / ".claude.json").write_text(json.dumps(saved))
    assert claude().auth_state(env, tmp_path).source == f"primaryApiKey in {moved}/.claude.json"


def test_claude_may_write_only_where_claude_config_dir_moves_its_state(tmp_path):
    dirs, files = claude().state_paths({"CLAUDE_CONFIG_DIR": "/x/claude"}, tmp_path)
    assert (dirs, files) == ((Path("/x/claude"),), ())


# -- a warm turn's figures (clis.md "Token usage": the result's less the /clear result's) ----


def result_with(per_model: dict, cost: float, usage: dict | None = None) -> dict:
    return {"modelUsage": per_model, "total_cost_usd": cost, "usage": usage or {}}


def counts(inp: int, out: int, read: int = 0, created: int = 0) -> dict:
    return {
        "inputTokens": inp,
        "outputTokens": out,
        "cacheReadInputTokens": read,
        "cacheCreationInputTokens": created,
    }


def test_a_warm_turn_counts_the_rise_of_both_figures_and_the_cost():
    before = Totals((100, 20), 0.25)
    now = result_with({"m": counts(150, 25, read=30, created=20)}, 0.40)
    assert turn_usage(now, before) == Usage(100, 5, 0.15)


def test_a_warm_turn_after_a_clear_that_reset_the_cost_to_zero_counts_all_of_it():
    now = result_with({"m": counts(10, 4)}, 0.02)
    assert turn_usage(now, Totals(None, 0.0)) == Usage(10, 4, 0.02)


def test_a_free_warm_turn_costs_zero_not_unknown():
    now = result_with({"m": counts(10, 4)}, 0.0)
    assert turn_usage(now, Totals(None, 0.0)) == Usage(10, 4, 0.0)


def test_a_warm_error_turn_with_no_model_usage_counts_its_own_usage_with_the_cache():
    usage = {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 7}
    now = result_with({}, 0.0, usage)
    assert turn_usage(now, Totals()) == Usage(12, 2, 0.0)


def test_a_warm_turn_names_only_the_models_whose_figures_rose():
    cleared = {"a": counts(100, 10), "b": counts(5, 1)}
    now = {"modelUsage": {"a": counts(100, 10), "b": counts(50, 9), "c": counts(1, 1)}}
    assert turn_models(now, cleared) == ("b", "c")
