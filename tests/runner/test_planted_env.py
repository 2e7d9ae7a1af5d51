"""`clis.<name>.env` in council.yaml sets variables for one CLI on top of everything else
(README, config; runner/environment.py): over the variables an adapter always sets for its
CLI, and over the user's own environment. One row per built-in CLI that fixes a variable.
And pi gets every provider key family docs/spec/clis.md names, account-wide credentials only
by `pass_env`."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from council.adapters import adapter_for, registered
from council.runner.environment import adapter_env

SOURCE = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8"}
FIXING = sorted((name, var) for name, cls in registered().items() for var in cls.fixed_env)


def test_some_built_in_cli_fixes_a_variable():
    assert FIXING, "no adapter fixes a variable: the table below would test nothing"


@pytest.mark.parametrize(("cli", "variable"), FIXING)
def test_the_config_env_beats_what_the_adapter_fixes(cli, variable):
    adapter = adapter_for(cli)
    assert adapter_env(adapter, SOURCE)[variable] == adapter.fixed_env[variable]
    adapter.settings = replace(adapter.settings, env={variable: "set-by-the-user"})
    assert adapter_env(adapter, SOURCE)[variable] == "set-by-the-user"
    source = {**SOURCE, variable: "from-the-shell"}
    assert adapter_env(adapter, source)[variable] == "set-by-the-user"


def pi_key_variables() -> list[str]:
    """The provider keys docs/spec/clis.md says pi reads: `pi reads the key variables of many
    model providers (...)`."""
    spec = (Path(__file__).parents[2] / "docs" / "spec" / "clis.md").read_text(encoding="utf-8")
    sentence = spec.split("pi reads the key variables of many model providers (", 1)[1]
    return re.findall(r"`([A-Z][A-Z0-9_]+)`", sentence.split(")", 1)[0])


def test_the_spec_names_pis_provider_keys():
    assert len(pi_key_variables()) >= 5


@pytest.mark.parametrize("variable", pi_key_variables())
def test_every_provider_key_the_spec_names_reaches_pi(variable):
    assert adapter_env(adapter_for("pi"), {**SOURCE, variable: "key"}).get(variable) == "key"


@pytest.mark.parametrize(
    "variable", ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CLOUDFLARE_API_TOKEN"]
)
def test_account_wide_credentials_reach_pi_only_by_pass_env(variable):
    adapter = adapter_for("pi")
    assert variable not in adapter_env(adapter, {**SOURCE, variable: "secret"})
    adapter.settings = replace(adapter.settings, pass_env=(variable,))
    assert adapter_env(adapter, {**SOURCE, variable: "secret"})[variable] == "secret"
