"""The allow-listed environment: basics, the CLI's own vendor, what the config names; nothing
else, and never an IDE's nesting markers."""

from __future__ import annotations

from dataclasses import replace

from council.adapters import adapter_for
from council.runner.environment import CALL_MARKER, adapter_env, build_env

SOURCE = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "USER": "u",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp",
    "TERM": "xterm-256color",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "OPENAI_API_KEY": "sk-openai-secret",
    "CODEX_API_KEY": "sk-codex-secret",
    "GEMINI_API_KEY": "gem-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "CLAUDE_CODE_OAUTH_TOKEN": "oauth-token",
    "GEMINI_CLI": "1",
    "MY_TOOL_TOKEN": "mine",
}


def env_for(cli: str, pass_env: tuple[str, ...] = (), call_id: str | None = None) -> dict[str, str]:
    adapter = adapter_for(cli)
    adapter.settings = replace(adapter.settings, pass_env=pass_env)
    return adapter_env(adapter, SOURCE, call_id=call_id)


def test_basics_pass_and_terminal_settings_are_forced():
    env = env_for("codex")
    assert {k: env[k] for k in ("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR")} == {
        k: SOURCE[k] for k in ("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR")
    }
    assert env["TERM"] == "dumb" and env["NO_COLOR"] == "1"


def test_one_vendors_keys_never_reach_another_vendors_cli():
    claude, codex, gemini = env_for("claude"), env_for("codex"), env_for("gemini")
    assert claude["ANTHROPIC_API_KEY"] and "OPENAI_API_KEY" not in claude
    # codex reads CODEX_API_KEY, never OPENAI_API_KEY: the metered key stays out of it too.
    assert codex["CODEX_API_KEY"] and "OPENAI_API_KEY" not in codex
    assert "ANTHROPIC_API_KEY" not in codex
    assert gemini["GEMINI_API_KEY"] and "OPENAI_API_KEY" not in gemini
    assert all("CODEX_API_KEY" not in e for e in (claude, gemini))
    assert all("AWS_SECRET_ACCESS_KEY" not in e for e in (claude, codex, gemini))


def test_ide_nesting_markers_are_removed_but_claudes_own_login_token_is_kept():
    claude = env_for("claude")
    assert "CLAUDECODE" not in claude and "CLAUDE_CODE_ENTRYPOINT" not in claude
    assert claude["CLAUDE_CODE_OAUTH_TOKEN"] == "oauth-token"
    assert "GEMINI_CLI" not in env_for("gemini")


def test_variables_named_in_the_config_pass_through():
    assert env_for("codex", pass_env=("MY_TOOL_TOKEN",))["MY_TOOL_TOKEN"] == "mine"
    assert "MY_TOOL_TOKEN" not in env_for("codex")


def test_every_call_carries_its_marker_so_escaped_processes_can_be_found():
    assert env_for("pi", call_id="abc")[CALL_MARKER] == "abc"


def test_a_host_marker_is_one_name_or_every_name_under_a_prefix_ending_in_underscore():
    source = {
        "GEMINI_CLI": "1",  # the marker itself
        "GEMINI_CLI_HOME": "/home/u/.gemini",  # another variable, merely longer
        "GEMINI_API_KEY": "gem-secret",
        "CLAUDE_CODE_SSE_PORT": "4242",  # under the prefix marker
        "CLAUDE_MODEL": "opus",
    }
    env = build_env(
        source, vendor_prefixes=("GEMINI_", "CLAUDE_"), host_markers=("GEMINI_CLI", "CLAUDE_CODE_")
    )
    assert {k: env[k] for k in source if k in env} == {
        "GEMINI_CLI_HOME": "/home/u/.gemini",
        "GEMINI_API_KEY": "gem-secret",
        "CLAUDE_MODEL": "opus",
    }


def test_a_clis_fixed_variables_reach_every_run_of_it_a_warm_workers_too():
    # gemini's warm worker once ran without GEMINI_CLI_NO_RELAUNCH: a second node process
    # (~150 MB) for the whole run
    from council.adapters import adapter_for
    from council.runner.environment import adapter_env

    for name, fixed in (("gemini", "GEMINI_CLI_NO_RELAUNCH"), ("qwen", "QWEN_CODE_SAFE_MODE")):
        adapter = adapter_for(name, {})
        assert adapter_env(adapter, {"PATH": "/bin"})[fixed] == "true"
        assert adapter_env(adapter, {}, overrides={"X": "1"})[fixed] == "true"


# What a desktop session or a developer's shell carries that no CLI asked for: the clean room
# keeps it out, whichever CLI runs (a user's XDG_CONFIG_HOME would point a CLI at their own
# settings, SSH_AUTH_SOCK at their keys, NODE_OPTIONS or PYTHONPATH would change its code).
SESSION = {
    "XDG_CONFIG_HOME": "/home/u/.config",
    "XDG_DATA_HOME": "/home/u/.local/share",
    "XDG_RUNTIME_DIR": "/run/user/1000",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
    "SSH_AUTH_SOCK": "/run/user/1000/ssh-agent",
    "DISPLAY": ":0",
    "NODE_OPTIONS": "--require /home/u/hook.js",
    "PYTHONPATH": "/home/u/lib",
    "GIT_ASKPASS": "/home/u/askpass",
}


def test_no_cli_receives_the_users_session_variables():
    from council.adapters.registry import registered

    for cli in registered():
        adapter = adapter_for(cli)
        env = adapter_env(adapter, {**SOURCE, **SESSION})
        own = set(adapter.env_names) | set(adapter.fixed_env)
        leaked = {
            name
            for name in SESSION
            if name in env and name not in own and not name.startswith(tuple(adapter.env_prefixes))
        }
        assert leaked == set(), cli
