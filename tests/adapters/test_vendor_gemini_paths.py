"""gemini's second paths (docs/spec/clis.md "Per CLI", its credentials, "Failure signatures",
"Token usage"): each of its own exit codes, the auth type's order and where its variables
may come from, lean mode's files, and a warm (ACP) turn's error codes and figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Request, Status, Tool, Usage
from council.adapters.warm import AcpOutcome, LeanStart, RpcError

GEMINI = Tool("gemini", ("gemini",), "0.61.0")


def gemini(**settings):
    clis = {"gemini": CliSettings(name="gemini", adapter="gemini", **settings)}
    return adapter_for("gemini", clis if settings else None)


# clis.md: 0 ok, 1 API, 41 auth, 42 input, 53 turn limit, 55 trust
@pytest.mark.parametrize(
    ("exit_code", "status", "detail"),
    [
        (41, Status.AUTH, "gemini is not logged in"),
        (55, Status.AUTH, "gemini refused the folder as untrusted"),
        (42, Status.ERROR, "exit 42: gemini rejected the input: bad flag"),
        (53, Status.ERROR, "exit 53: gemini hit its turn limit: bad flag"),
    ],
)
def test_each_gemini_exit_code_is_read_as_clis_md_gives_it(exit_code, status, detail):
    verdict = gemini().classify(RawResult(exit_code, "", "bad flag\nmore\n"), "Q?")
    assert verdict.status is status
    assert verdict.detail.startswith(detail)


def test_gemini_exit_1_with_an_ordinary_error_is_an_error_not_auth():
    verdict = gemini().classify(RawResult(1, "", "Error: the model went away\n"), "Q?")
    assert verdict.status is Status.ERROR


def test_gemini_asks_for_json_in_plan_mode_with_the_seats_model(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", model="gemini-x")
    invocation = gemini(model="gemini-y").build(GEMINI, request)
    argv = list(invocation.argv)
    assert argv[argv.index("-o") + 1] == "json"
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-m") + 1] == "gemini-x"
    assert invocation.env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"


def test_a_lean_gemini_call_gets_its_system_prompt_and_deny_all_policy_by_full_path(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", lean_prompt="Hi.")
    invocation = gemini().build(GEMINI, request)
    system = tmp_path / ".council" / "gemini-system.md"
    policy = tmp_path / ".council" / "gemini-policy.toml"
    assert invocation.env["GEMINI_SYSTEM_MD"] == str(system)
    assert list(invocation.argv)[list(invocation.argv).index("--policy") + 1] == str(policy)
    assert invocation.room_files[".council/gemini-system.md"] == "Hi."
    assert 'decision = "deny"' in invocation.room_files[".council/gemini-policy.toml"]
    assert invocation.argv[invocation.argv.index("--approval-mode") + 1] == "plan"


def test_a_warm_gemini_is_trusted_in_plan_mode_and_lean_by_its_files(tmp_path):
    launch = gemini().warm_launch(GEMINI, model="m1", effort=None, lean=LeanStart("Hi.", tmp_path))
    argv = list(launch.argv)
    assert argv[:2] == ["gemini", "--acp"]
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-m") + 1] == "m1"
    assert launch.env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    assert launch.env["GEMINI_SYSTEM_MD"] == str(tmp_path / ".council" / "gemini-system.md")
    assert launch.acp is not None and launch.acp.mode == "plan"
    assert launch.lean is True


def test_usage_counts_tool_prompts_as_input_and_thoughts_as_output():
    tokens = {"prompt": 100, "input": 60, "cached": 40, "candidates": 20, "thoughts": 7}
    payload = {"response": "x", "stats": {"models": {"m": {"tokens": {**tokens, "tool": 5}}}}}
    assert gemini().read_usage(RawResult(0, json.dumps(payload), "")) == Usage(105, 27)


# -- credentials (clis.md: selected type, else GCA, Vertex, gateway, key, in that order) ------


def auth(env: dict, home: Path, selected: str | None = None):
    if selected:
        (home / ".gemini").mkdir(exist_ok=True)
        settings = {"security": {"auth": {"selectedType": selected}}}
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    state = gemini().auth_state(env, home)
    return state.found, state.source


def test_a_google_login_variable_outranks_vertex(tmp_path):
    env = {"GOOGLE_GENAI_USE_GCA": "true", "GOOGLE_GENAI_USE_VERTEXAI": "true"}
    found, source = auth({**env, "GOOGLE_API_KEY": "g"}, tmp_path)
    assert found is None and "a Google login" in source  # Vertex's key would say True


def test_a_gateway_logs_gemini_in_before_its_key_is_looked_at(tmp_path):
    env = {"GOOGLE_GEMINI_BASE_URL": "http://gw", "GEMINI_API_KEY": ""}
    assert auth(env, tmp_path) == (True, "GOOGLE_GEMINI_BASE_URL (a gateway)")


def test_the_selected_auth_type_outranks_the_variables(tmp_path):
    found, source = auth({"GEMINI_API_KEY": "k"}, tmp_path, selected="oauth-personal")
    assert found is None and "oauth_creds.json" in source


def test_gemini_reads_gemini_dir_env_before_home_env_quotes_and_export_stripped(tmp_path):
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / ".env").write_text('export GOOGLE_GENAI_USE_VERTEXAI="true"\n')
    (tmp_path / ".env").write_text("GEMINI_API_KEY=k\n")
    found, source = auth({}, tmp_path)
    assert found is False and source.startswith("Vertex AI needs")


def test_a_variable_set_in_the_environment_beats_its_dotenv_value(tmp_path):
    (tmp_path / ".env").write_text("GOOGLE_GENAI_USE_VERTEXAI=true\n")
    found, _ = auth({"GOOGLE_GENAI_USE_VERTEXAI": "false", "GEMINI_API_KEY": "k"}, tmp_path)
    assert found is True


def test_gemini_cli_home_moves_where_its_files_are_read(tmp_path):
    moved = tmp_path / "moved"
    (moved / ".gemini").mkdir(parents=True)
    (moved / ".gemini" / ".env").write_text("GEMINI_API_KEY=k\n")
    found, source = auth({"GEMINI_CLI_HOME": str(moved)}, tmp_path)
    assert found is True and source == f"GEMINI_API_KEY in {moved / '.gemini' / '.env'}"


def test_a_key_saved_by_gemini_may_be_kept_without_the_variable(tmp_path):
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "gemini-credentials.json").write_text("{}")
    assert auth({}, tmp_path, selected="gemini-api-key")[0] is None


@pytest.mark.parametrize(
    ("env", "found"),
    [
        ({"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "eu"}, None),
        ({"GOOGLE_CLOUD_PROJECT_ID": "p", "GOOGLE_CLOUD_LOCATION": "eu"}, None),
        ({"GOOGLE_CLOUD_PROJECT": "p"}, False),
        ({"GOOGLE_CLOUD_LOCATION": "eu"}, False),
    ],
)
def test_vertex_by_application_credentials_needs_a_project_and_a_location(tmp_path, env, found):
    env = {"GOOGLE_GENAI_USE_VERTEXAI": "true", **env}
    assert auth(env, tmp_path)[0] is found


# -- warm (ACP): the HTTP status is the JSON-RPC error code (0.61.0) ---------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (401, Status.AUTH),
        (403, Status.AUTH),
        (429, Status.RATE_LIMITED),
        (500, Status.RATE_LIMITED),
        (503, Status.RATE_LIMITED),
    ],
)
def test_a_refused_warm_gemini_call_is_read_by_its_error_code(code, status):
    error = RpcError(code, '{"error": {"message": "refused"}}')
    outcome = AcpOutcome(stop_reason=None, text="", error=error)
    assert gemini().acp_verdict(outcome, "Q?").verdict.status is status


def test_a_warm_gemini_turn_reports_its_input_only_and_every_model_most_output_first():
    quota = {
        "token_count": {"input_tokens": 120, "output_tokens": 30},
        "model_usage": [
            {"model": "flash", "token_count": {"output_tokens": 20}},
            {"model": "pro", "token_count": {"output_tokens": 15}},
            {"model": "pro", "token_count": {"output_tokens": 15}},
        ],
    }
    outcome = AcpOutcome(stop_reason="end_turn", text="An answer.", meta={"quota": quota})
    verdict = gemini().acp_verdict(outcome, "Q?").verdict
    assert verdict.status is Status.OK
    assert verdict.usage == Usage(120, None)  # the thinking is left out of output_tokens
    assert verdict.served == ("pro", "flash")


def test_gemini_names_the_model_that_wrote_most_output_first_not_the_one_that_read_most():
    models = {
        "router": {"tokens": {"prompt": 5000, "candidates": 2}},
        "pro": {"tokens": {"prompt": 900, "candidates": 300}},
    }
    payload = {"response": "x", "stats": {"models": models}}
    assert gemini().read_model(RawResult(0, json.dumps(payload), "")) == ("pro", "router")
