"""gemini: JSON output in plan mode, the room trusted, its own exit codes read."""

from __future__ import annotations

import json

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Usage

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: which queue?"


async def test_gemini_runs_in_plan_mode_in_a_trusted_room(fakes, seat_for):
    outcome = await seat_for("gemini").ask(PROMPT, model="gemini-2.5-pro")
    call = answer_calls(fakes, "gemini")[0]
    assert outcome.status is Status.OK
    assert call["argv"][call["argv"].index("--approval-mode") + 1] == "plan"
    assert call["argv"][call["argv"].index("-m") + 1] == "gemini-2.5-pro"
    assert call["env"]["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    assert "--yolo" not in call["argv"] and "-y" not in call["argv"]


async def test_gemini_is_never_relaunched_for_a_bigger_heap_probe_included(fakes, seat_for):
    """0.61.0 restarts itself in a second node process unless told not to: 0.4-0.7 s a run."""
    await seat_for("gemini").ask(PROMPT)
    probe, call = fakes.calls("gemini")
    assert probe["argv"] == ["--version"]
    assert probe["env"]["GEMINI_CLI_NO_RELAUNCH"] == call["env"]["GEMINI_CLI_NO_RELAUNCH"] == "true"


async def test_gemini_exit_41_is_auth_and_not_retried(fakes, seat_for):
    fakes.set("gemini", "auth")
    outcome = await seat_for("gemini").ask(PROMPT)
    assert outcome.status is Status.AUTH and outcome.exit_code == 41
    assert len(outcome.attempts) == 1


async def test_gemini_effort_is_ignored_because_it_has_no_such_flag(fakes, seat_for):
    outcome = await seat_for("gemini").ask(PROMPT, effort="high")
    assert outcome.status is Status.OK


async def test_gemini_usage_is_its_stats_with_cached_tokens_in_and_thoughts_out(fakes, seat_for):
    # The fake counts 2 cached tokens inside `prompt` and 5 thinking tokens apart from
    # `candidates`, as the API does.
    fakes.set("gemini", "ok", cached_tokens=2, reasoning_tokens=5)
    outcome = await seat_for("gemini").ask(PROMPT, model="gemini-2.5-pro")
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("gemini", PROMPT))
    assert outcome.usage == Usage(tokens_in, tokens_out, None)


def test_gemini_usage_sums_every_model_of_the_run():
    def model(prompt, candidates, thoughts=0, tool=0):
        tokens = {"prompt": prompt, "candidates": candidates, "thoughts": thoughts, "tool": tool}
        return {"tokens": {**tokens, "cached": 0, "input": prompt}}

    # Without -m a routing model answers first.
    stats = {
        "models": {
            "gemini-2.5-flash-lite": model(900, 12),
            "gemini-2.5-pro": model(1000, 80, 40, 7),
        }
    }
    stdout = json.dumps({"response": "answer", "stats": stats})
    usage = adapter_for("gemini").read_usage(RawResult(0, stdout, ""))
    assert usage == Usage(900 + 1000 + 7, 12 + 80 + 40, None)


@pytest.mark.parametrize(
    "stdout",
    [
        '{"session_id": "s", "error": {"type": "Error", "message": "500", "code": 500}}',
        '{"response": "answer", "stats": {"models": {}}}',
        "not JSON",
    ],
    ids=["error-object", "no-models", "text"],
)
def test_gemini_output_without_token_stats_reads_as_none_not_zero(stdout):
    assert adapter_for("gemini").read_usage(RawResult(1, stdout, "")) is None


def gemini_auth(environ: dict[str, str], home, selected: str | None = None):
    if selected is not None:
        (home / ".gemini").mkdir(exist_ok=True)
        settings = {"security": {"auth": {"selectedType": selected}}}
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    state = adapter_for("gemini").auth_state(environ, home)
    return state.found, state.source


def test_gemini_with_only_google_api_key_is_not_logged_in(tmp_path):
    """0.61.0 reads GOOGLE_API_KEY for Vertex AI only; alone it exits 41 (measured)."""
    assert gemini_auth({"GOOGLE_API_KEY": "g"}, tmp_path)[0] is False
    vertex = {"GOOGLE_API_KEY": "g", "GOOGLE_GENAI_USE_VERTEXAI": "true"}
    assert gemini_auth(vertex, tmp_path) == (True, "GOOGLE_API_KEY")


def test_gemini_application_credentials_alone_do_not_log_it_in(tmp_path):
    assert gemini_auth({"GOOGLE_APPLICATION_CREDENTIALS": "/k.json"}, tmp_path)[0] is False


def test_gemini_reads_its_key_from_the_environment_or_its_dotenv_files(tmp_path):
    assert gemini_auth({"GEMINI_API_KEY": "k"}, tmp_path) == (True, "GEMINI_API_KEY")
    (tmp_path / ".env").write_text("GEMINI_API_KEY=from-file\n")
    found, source = gemini_auth({}, tmp_path, selected="gemini-api-key")
    assert found is True and source == f"GEMINI_API_KEY in {tmp_path / '.env'}"


def test_gemini_selected_login_needs_its_credentials_file(tmp_path):
    assert gemini_auth({}, tmp_path, selected="oauth-personal")[0] is None
    (tmp_path / ".gemini" / "oauth_creds.json").write_text("{}")
    found, source = gemini_auth({}, tmp_path, selected="oauth-personal")
    assert found is True and source.endswith("oauth_creds.json")


def test_gemini_with_a_selected_api_key_but_no_key_is_not_logged_in(tmp_path):
    found, source = gemini_auth({}, tmp_path, selected="gemini-api-key")
    assert found is False and "GEMINI_API_KEY is not set" in source
