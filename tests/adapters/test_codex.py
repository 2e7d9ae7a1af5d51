"""codex: `codex exec` in the read-only sandbox, the answer read from its `-o` file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import answer_calls, warm_calls

from council.adapters.base import CliSettings, RawResult, Status, Tool, Usage
from council.adapters.codex import CodexAdapter

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: monolith or services?"
SPEC_CLIS = Path(__file__).resolve().parents[2] / "docs" / "spec" / "clis.md"


async def test_codex_runs_exec_read_only(fakes, seat_for):
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert argv[0] == "exec" and argv[-1] == "-"
    assert argv[argv.index("-s") + 1] == "read-only"
    assert not any("dangerously" in a or a in ("--full-auto", "--yolo") for a in argv)


async def test_codex_exec_runs_with_the_argv_the_spec_gives_it(fakes, seat_for):
    """docs/spec/clis.md's row for codex, up to the answer file: `--ephemeral` among it, so
    no call leaves a session file in the user's CODEX_HOME."""
    row = next(
        line for line in SPEC_CLIS.read_text().splitlines() if line.startswith("| codex | `")
    )
    spec_argv = row.split("`")[1].split(" -o ")[0].split()[1:]  # after `codex`
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert argv[: len(spec_argv)] == spec_argv


def write_codex_config(home: Path, text: str, name: str = "config.toml") -> None:
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / name).write_text(text)


PROVIDER = '[model_providers.{id}]\nname = "{id}"\nbase_url = "http://127.0.0.1:1/v1"\n'


def caps(argv: list[str]) -> list[str]:
    return [a for a in argv if "max_retries" in a]


async def test_codex_retries_are_capped_on_the_provider_the_user_defined(fakes, seat_for):
    """0.169.0 ignores top-level `request_max_retries` (a warning) and reads it per provider:
    the caps go to the user's own provider, one retry in all (a 500 is 2 requests)."""
    write_codex_config(Path.home(), 'model_provider = "corp"\n' + PROVIDER.format(id="corp"))
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert caps(argv) == [
        "model_providers.corp.request_max_retries=0",
        "model_providers.corp.stream_max_retries=1",
    ]
    assert all(argv[argv.index(c) - 1] == "-c" for c in caps(argv))


def test_a_warm_codex_worker_is_capped_as_a_spawned_call_is():
    """`codex app-server` runs every warm call of a seat: without the caps a 500 on a warm
    worker would be codex's own dozens of requests, council's retries on top."""
    write_codex_config(Path.home(), 'model_provider = "corp"\n' + PROVIDER.format(id="corp"))
    adapter = CodexAdapter(CliSettings(name="codex", adapter="codex"))
    launch = adapter.warm_launch(Tool("codex", ("codex",)), model=None, effort=None)
    assert launch is not None and launch.argv[-1] == "app-server"
    assert caps(list(launch.argv)) == [
        "model_providers.corp.request_max_retries=0",
        "model_providers.corp.stream_max_retries=1",
    ]


async def test_codex_on_a_built_in_provider_gets_no_retry_setting_it_would_refuse(fakes, seat_for):
    """A built-in provider's id under [model_providers] stops 0.169.0 ("Built-in providers
    cannot be overridden"), and a top-level key is ignored: nothing is passed."""
    write_codex_config(Path.home(), 'model = "gpt-5.5"\n')
    await seat_for("codex").ask(PROMPT)
    assert caps(answer_calls(fakes, "codex")[0]["argv"]) == []


async def test_codex_retry_caps_follow_a_provider_or_profile_chosen_in_extra_args(fakes, seat_for):
    write_codex_config(Path.home(), PROVIDER.format(id="corp"))
    write_codex_config(
        Path.home(), 'model_provider = "lab"\n' + PROVIDER.format(id="lab"), "fast.config.toml"
    )
    chosen = seat_for("codex", extra_args=("-c", 'model_provider="corp"'))
    await chosen.ask(PROMPT)
    profiled = seat_for("codex", extra_args=("--profile", "fast"))
    await profiled.ask(PROMPT)
    first, second = answer_calls(fakes, "codex")
    assert caps(first["argv"])[0] == "model_providers.corp.request_max_retries=0"
    assert caps(second["argv"])[0] == "model_providers.lab.request_max_retries=0"


async def test_codex_answer_comes_from_the_output_file_in_the_record_not_the_room(fakes, seat_for):
    seat = seat_for("codex")
    outcome = await seat.ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    answer_file = argv[argv.index("-o") + 1]
    assert answer_file.startswith(str(seat.record))
    assert outcome.text == expected_answer("codex", PROMPT)
    assert list(seat.room.iterdir()) == []


async def test_codex_model_and_effort_are_passed_as_codex_expects(fakes, seat_for):
    outcome = await seat_for("codex").ask(PROMPT, model="gpt-5.3-codex", effort="xhigh")
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("-m") + 1] == "gpt-5.3-codex"
    assert 'model_reasoning_effort="xhigh"' in argv


async def test_codex_gets_its_own_key_and_openai_headers_but_never_openai_api_key(
    fakes, seat_for, monkeypatch
):
    """What codex reads (0.169.0, 0.171.0): CODEX_API_KEY, and OPENAI_ORGANIZATION and
    OPENAI_PROJECT for its built-in provider's headers. It never reads OPENAI_API_KEY, so a
    metered key has no business in its process; nor another vendor's key."""
    for name, value in {
        "CODEX_API_KEY": "sk-codex",
        "OPENAI_ORGANIZATION": "org-1",
        "OPENAI_PROJECT": "proj-1",
        "OPENAI_API_KEY": "sk-openai",
        "OPENAI_BASE_URL": "http://elsewhere",
        "ANTHROPIC_API_KEY": "sk-ant",
    }.items():
        monkeypatch.setenv(name, value)
    await seat_for("codex").ask(PROMPT)
    env = answer_calls(fakes, "codex")[0]["env"]
    assert env["CODEX_API_KEY"] == "sk-codex"
    assert (env["OPENAI_ORGANIZATION"], env["OPENAI_PROJECT"]) == ("org-1", "proj-1")
    assert not {"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"} & set(env)


async def test_a_codex_provider_that_reads_openai_api_key_gets_it_when_the_config_passes_it(
    fakes, seat_for, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    await seat_for("codex", pass_env=("OPENAI_API_KEY",)).ask(PROMPT)
    assert answer_calls(fakes, "codex")[0]["env"]["OPENAI_API_KEY"] == "sk-openai"


def codex_auth(environ: dict[str, str], home: Path, **settings) -> tuple[bool | None, str]:
    adapter = CodexAdapter(CliSettings(name="codex", adapter="codex", **settings))
    state = adapter.auth_state(environ, home)
    return state.found, state.source


def test_codex_with_only_openai_api_key_is_not_logged_in_and_the_hint_names_codex_api_key(
    tmp_path,
):
    found, source = codex_auth({"OPENAI_API_KEY": "sk-openai"}, tmp_path)
    assert found is False
    assert "OPENAI_API_KEY is set, but codex does not read it" in source
    assert "CODEX_API_KEY" in CodexAdapter.login_hint and "codex login" in CodexAdapter.login_hint


def test_codex_is_logged_in_by_codex_api_key_or_the_auth_json_of_codex_login(tmp_path):
    assert codex_auth({"CODEX_API_KEY": "sk-codex"}, tmp_path) == (True, "CODEX_API_KEY")
    assert codex_auth({}, tmp_path, env={"CODEX_API_KEY": "sk-codex"})[0] is True
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "auth.json").write_text("{}")
    assert codex_auth({"CODEX_HOME": str(moved)}, tmp_path) == (True, str(moved / "auth.json"))
    assert codex_auth({}, tmp_path)[0] is False  # ~/.codex has none
    write_codex_config(tmp_path, 'cli_auth_credentials_store = "keyring"\n')
    assert codex_auth({}, tmp_path)[0] is None  # in the OS keyring, maybe: cannot tell


def test_codex_on_a_users_provider_needs_that_providers_key_passed_to_it(tmp_path):
    write_codex_config(
        tmp_path,
        'model_provider = "corp"\n' + PROVIDER.format(id="corp") + 'env_key = "CORP_KEY"\n',
    )
    env = {"CORP_KEY": "k", "CODEX_API_KEY": "sk-codex"}
    found, source = codex_auth(env, tmp_path)
    assert found is False and "add it to clis.codex.pass_env" in source
    assert codex_auth(env, tmp_path, pass_env=("CORP_KEY",)) == (True, "CORP_KEY")
    assert codex_auth({}, tmp_path, pass_env=("CORP_KEY",))[0] is False


def test_a_codex_seat_with_only_codex_api_key_spawns_per_call_as_the_app_server_ignores_it(
    tmp_path,
):
    adapter = CodexAdapter(CliSettings(name="codex", adapter="codex"))
    tool = Tool("codex", ("codex",))
    refusal = adapter.warm_refusal(tool, {"CODEX_API_KEY": "sk-codex"}, tmp_path)
    assert refusal is not None and "does not read CODEX_API_KEY" in refusal
    assert "codex login --with-api-key" in refusal
    write_codex_config(tmp_path, "")
    (tmp_path / ".codex" / "auth.json").write_text("{}")
    assert adapter.warm_refusal(tool, {"CODEX_API_KEY": "sk-codex"}, tmp_path) is None


def test_a_codex_seat_on_a_users_provider_runs_warm_with_that_providers_key(tmp_path):
    write_codex_config(
        tmp_path,
        'model_provider = "corp"\n' + PROVIDER.format(id="corp") + 'env_key = "CODEX_API_KEY"\n',
    )
    adapter = CodexAdapter(CliSettings(name="codex", adapter="codex"))
    assert adapter.warm_refusal(Tool("codex", ("codex",)), {"CODEX_API_KEY": "k"}, tmp_path) is None


def test_codex_timeouts_follow_the_effort():
    from council.adapters import adapter_for

    codex = adapter_for("codex")
    assert codex.soft_timeout(None) == 600 and codex.soft_timeout("xhigh") == 1800


async def test_codex_usage_is_its_turns_json_counts_the_cache_and_the_thinking_included(
    fakes, seat_for
):
    fakes.set("codex", "ok", cached_tokens=3, reasoning_tokens=2)
    outcome = await seat_for("codex").ask(PROMPT)
    answer = expected_answer("codex", PROMPT)
    assert outcome.status is Status.OK and outcome.text == answer
    assert "--json" in answer_calls(fakes, "codex")[0]["argv"]
    assert outcome.usage is not None
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == expected_usage(
        PROMPT, answer
    )
    assert outcome.usage.cost_usd is None  # codex prices nothing


async def test_a_codex_failure_is_read_from_its_error_events_with_the_login_hint(fakes, seat_for):
    fakes.set("codex", "auth")
    outcome = await seat_for("codex").ask("Question: is a 429 in our logs a rate limit?")
    assert outcome.status is Status.AUTH, outcome.detail
    assert "401 Unauthorized" in outcome.detail and CodexAdapter.login_hint in outcome.detail
    assert outcome.usage is None


def test_codex_answer_comes_from_its_last_agent_message_when_it_wrote_no_file():
    events = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "first"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "last"}},
        {"type": "turn.completed", "usage": {"input_tokens": 9, "output_tokens": 4}},
    ]
    stdout = "\n".join(json.dumps(e) for e in events) + "\n"
    adapter = CodexAdapter()
    result = RawResult(0, stdout, "", answer_file_text="")
    assert adapter.classify(result, PROMPT).text == "last"
    assert adapter.read_usage(result) == Usage(9, 4)


async def test_each_warm_codex_call_reports_its_own_threads_token_counts(fakes, tmp_path):
    fakes.set("codex", "ok", cached_tokens=3, reasoning_tokens=2)
    adapter = CodexAdapter()
    tool = Tool("codex", (str(fakes.executable("codex")),))
    launch = adapter.warm_launch(tool, model=None, effort=None)
    assert launch is not None
    prompts = ["Question: first?\n", "Question: second, a longer one?\n"]
    outcomes = await warm_calls(adapter, tool, launch, tmp_path, prompts)
    for prompt, outcome in zip(prompts, outcomes, strict=True):
        assert outcome.status is Status.OK and outcome.attempts[0].warm
        assert outcome.usage is not None
        assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == expected_usage(
            prompt, expected_answer("codex", prompt)
        )
