"""Who pays for a seat's calls (`Adapter.billing`): a metered API key that reaches the CLI,
or the CLI's own login, judged from the environment the CLI really runs with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.runner.environment import adapter_env


def billing(name: str, home: Path, **env: str):
    adapter = adapter_for(name, {})
    return adapter.billing(adapter_env(adapter, {"HOME": str(home), **env}), home)


@pytest.mark.parametrize(
    ("cli", "env", "key"),
    [
        ("claude", {"ANTHROPIC_API_KEY": "sk-ant-x"}, "ANTHROPIC_API_KEY"),
        ("codex", {"CODEX_API_KEY": "sk-x"}, "CODEX_API_KEY"),
        ("gemini", {"GEMINI_API_KEY": "g"}, "GEMINI_API_KEY"),
        (
            "qwen",
            {"OPENAI_API_KEY": "a", "OPENAI_BASE_URL": "b", "OPENAI_MODEL": "m"},
            "OPENAI_API_KEY",
        ),
    ],
)
def test_a_key_that_reaches_the_cli_is_a_metered_api_key(tmp_path, cli, env, key):
    found = billing(cli, tmp_path, **env)
    assert (found.mode, found.source) == ("api_key", key)
    assert found.text == f"metered API key ({key})"


def test_an_oauth_token_or_a_credentials_file_is_the_clis_own_login(tmp_path):
    assert billing("claude", tmp_path, CLAUDE_CODE_OAUTH_TOKEN="t").mode == "login"
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / ".credentials.json").write_text("{}")
    assert billing("claude", tmp_path).mode == "login"


def test_a_key_in_the_environment_wins_over_a_login_as_the_cli_uses_it_first(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / ".credentials.json").write_text("{}")
    assert billing("claude", tmp_path, ANTHROPIC_API_KEY="sk").mode == "api_key"


def test_a_key_the_cli_never_receives_bills_nothing(tmp_path):
    # codex does not read OPENAI_API_KEY, and the allow-list keeps it from codex
    assert billing("codex", tmp_path, OPENAI_API_KEY="sk-x").mode == "unknown"


@pytest.mark.parametrize(
    ("saved", "mode"),
    [
        ({"OPENAI_API_KEY": "sk-x", "tokens": None}, "api_key"),
        ({"tokens": {"id_token": "t"}}, "login"),
    ],
)
def test_codex_login_is_metered_only_when_it_saved_an_api_key(tmp_path, saved, mode):
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text(json.dumps(saved))
    assert billing("codex", tmp_path).mode == mode


def test_the_simulator_bills_nothing(tmp_path):
    assert billing("sim", tmp_path).text == "nothing billed"


def test_a_console_login_of_claude_saved_an_api_key_and_is_metered(tmp_path):
    (tmp_path / ".claude.json").write_text(json.dumps({"primaryApiKey": "sk-ant-api03-x"}))
    found = billing("claude", tmp_path)
    assert (found.mode, found.source) == ("api_key", "primaryApiKey")


def test_pi_is_logged_in_by_a_provider_key_or_a_saved_login_not_by_an_empty_file(tmp_path):
    agent = tmp_path / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "auth.json").write_text("{}")
    assert billing("pi", tmp_path).mode == "unknown"  # exists, holds no login
    assert billing("pi", tmp_path, DEEPSEEK_API_KEY="sk-d").source == "DEEPSEEK_API_KEY"
    (agent / "auth.json").write_text(json.dumps({"anthropic": {"type": "oauth"}}))
    assert billing("pi", tmp_path).mode == "login"


def test_pi_looks_for_its_login_where_pi_coding_agent_dir_moves_it(tmp_path):
    moved = tmp_path / "pi-agent"
    moved.mkdir()
    (moved / "auth.json").write_text(json.dumps({"openai": {"type": "oauth"}}))
    found = billing("pi", tmp_path, PI_CODING_AGENT_DIR=str(moved))
    assert (found.mode, found.source) == ("login", str(moved / "auth.json"))
    adapter = adapter_for("pi", {})
    dirs, _ = adapter.state_paths({"PI_CODING_AGENT_DIR": str(moved)}, tmp_path)
    assert moved in dirs  # writable under confinement, where pi keeps its state now
