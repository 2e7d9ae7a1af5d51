"""`clis.<name>.env` in council.yaml sets variables for one CLI on top of everything else
(README, config; runner/environment.py): over the variables an adapter always sets for its
CLI, and over the user's own environment. One row per built-in CLI that fixes a variable."""

from __future__ import annotations

from dataclasses import replace

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
