"""codex's own configuration as a call finds it (docs/spec/clis.md, codex's credentials and
retry caps): the provider a call uses, whichever way it was chosen, its retry caps, what logs
it in, and when a seat cannot run warm."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adapters.base import CliSettings, Tool
from council.adapters.codex import CodexAdapter
from council.adapters.codex_config import active_provider, codex_home_of, retry_caps

PROVIDER = '[model_providers.{id}]\nname = "{id}"\nbase_url = "http://127.0.0.1:1/v1"\n'


def config(home: Path, text: str, name: str = "config.toml") -> Path:
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / name).write_text(text)
    return home / ".codex"


def codex(**settings) -> CodexAdapter:
    return CodexAdapter(CliSettings(name="codex", adapter="codex", **settings))


@pytest.mark.parametrize(
    ("extra_args", "provider"),
    [
        ((), "corp"),
        (("-c", 'model_provider="lab"'), "lab"),
        (("-c", "model_provider='lab'"), "lab"),
        (("--config", "model_provider = lab"), "lab"),
        (("--config=model_provider=lab",), "lab"),
        (("--profile=fast",), "lab"),
        (("--profile", "fast"), "lab"),
        (("-p", "fast"), "lab"),
        (("--oss",), "oss"),
    ],
)
def test_the_provider_a_codex_call_uses_follows_its_config_profile_and_flags(
    tmp_path, extra_args, provider
):
    home = config(
        tmp_path,
        'model_provider = "corp"\n' + PROVIDER.format(id="corp") + PROVIDER.format(id="lab"),
    )
    config(tmp_path, 'model_provider = "lab"\n', "fast.config.toml")
    assert active_provider(extra_args, home)[0] == provider


def test_both_retry_caps_go_to_the_users_provider_and_none_to_a_built_in_one(tmp_path):
    home = config(tmp_path, 'model_provider = "corp"\n' + PROVIDER.format(id="corp"))
    assert retry_caps((), home) == [
        "-c",
        "model_providers.corp.request_max_retries=0",
        "-c",
        "model_providers.corp.stream_max_retries=1",
    ]
    # a provider it names but does not define is codex's own (`openai`, `ollama`): untouched
    assert retry_caps(("-c", 'model_provider="ollama"'), home) == []
    assert retry_caps(("--oss",), home) == []


def test_codex_home_in_the_configs_env_wins_over_the_process_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "process"))
    assert codex_home_of({"CODEX_HOME": str(tmp_path / "config")}) == tmp_path / "config"
    assert codex_home_of({}) == tmp_path / "process"


def test_a_codex_provider_of_the_users_with_no_key_needs_none(tmp_path):
    config(tmp_path, 'model_provider = "local"\n' + PROVIDER.format(id="local"))
    state = codex().auth_state({}, tmp_path)
    assert state.found is True and "takes no key" in state.source


def test_a_provider_that_requires_openai_auth_is_logged_in_as_openai_is(tmp_path):
    config(
        tmp_path,
        'model_provider = "proxy"\n'
        + PROVIDER.format(id="proxy")
        + 'requires_openai_auth = true\nenv_key = "PROXY_KEY"\n',
    )
    assert codex().auth_state({"CODEX_API_KEY": "k"}, tmp_path).source == "CODEX_API_KEY"
    assert codex().auth_state({"PROXY_KEY": "k"}, tmp_path).found is False


def test_a_provider_key_given_in_the_configs_env_reaches_codex(tmp_path):
    home = tmp_path
    config(home, 'model_provider = "corp"\n' + PROVIDER.format(id="corp") + 'env_key = "CK"\n')
    assert codex(env={"CK": "v"}).auth_state({}, home).found is True


def test_a_built_in_provider_other_than_openai_is_not_checked(tmp_path):
    state = codex(extra_args=("--oss",)).auth_state({}, tmp_path)
    assert state.found is None and "`oss`" in state.source
    state = codex(extra_args=("-c", 'model_provider="openai"')).auth_state({}, tmp_path)
    assert state.found is False  # openai is checked: no key, no auth.json


def test_a_login_kept_by_the_auto_store_may_be_in_the_keyring(tmp_path):
    config(tmp_path, 'cli_auth_credentials_store = "auto"\n')
    assert codex().auth_state({}, tmp_path).found is None


def test_only_a_login_in_auth_json_is_billed_as_the_key_it_saved(tmp_path):
    home = config(tmp_path, "")
    (home / "auth.json").write_text('{"OPENAI_API_KEY": "sk-x", "tokens": null}')
    billing = codex().billing({}, tmp_path)
    assert (billing.mode, billing.source) == ("api_key", f"the API key in {home / 'auth.json'}")
    (home / "auth.json").write_text('{"OPENAI_API_KEY": null, "tokens": {"id_token": "t"}}')
    assert codex().billing({}, tmp_path).mode == "login"


def test_a_warm_codex_on_a_key_only_user_provider_is_not_refused(tmp_path):
    config(tmp_path, 'model_provider = "corp"\n' + PROVIDER.format(id="corp") + 'env_key = "CK"\n')
    tool_env = {"CODEX_API_KEY": "k", "CK": "v"}
    assert codex().warm_refusal(Tool("codex", ("codex",)), tool_env, tmp_path) is None


def test_a_codex_api_key_given_in_the_configs_env_also_keeps_the_seat_spawning(tmp_path):
    tool = Tool("codex", ("codex",))
    refusal = codex(env={"CODEX_API_KEY": "k"}).warm_refusal(tool, {}, tmp_path)
    assert refusal is not None and "does not read CODEX_API_KEY" in refusal
