"""What each vendor CLI's output is read as and what isolation every call keeps, one row per
registered CLI (rows in adapter_tables.py): the model reported as the one that served (a side
model never first), and the read-only and clean-room flags present whatever lean mode,
extra_args, model or effort (docs/spec/clis.md, "Served model" and "read-only / isolation")."""

from __future__ import annotations

import json

import pytest
from adapter_tables import (
    IDS,
    ROWS,
    SERVED,
    TOOLS,
    argv_of,
    contains,
    request,
)

from council.adapters import adapter_for, registered
from council.adapters.base import CliSettings, RawResult

# -- 3. the model that served, as each CLI names it ------------------------------------------


def claude_usage(*models: tuple[str, int]) -> str:
    payload = json.loads((SERVED / "claude-2.1.332.json").read_text())
    template = next(iter(payload["modelUsage"].values()))
    payload["modelUsage"] = {name: {**template, "outputTokens": out} for name, out in models}
    return json.dumps(payload)


def stats_models(fixture: str, *models: tuple[str, int]) -> str:
    """gemini's or qwen's captured output, its `stats.models` replaced by `models` (name,
    candidates), in that order: a routing or memory-extractor model beside the main one."""
    printed = json.loads((SERVED / fixture).read_text())
    holder = printed if isinstance(printed, dict) else next(e for e in printed if "stats" in e)
    template = next(iter(holder["stats"]["models"].values()))
    holder["stats"]["models"] = {
        name: {**template, "tokens": {**template["tokens"], "candidates": out}}
        for name, out in models
    }
    return json.dumps(printed)


def pi_turns(*models: tuple[str, str]) -> str:
    """pi's captured JSON events with one assistant message per (provider, model), in order:
    the last one wrote the answer."""
    events = [json.loads(line) for line in (SERVED / "pi-1.6.0.jsonl").read_text().splitlines()]
    end = events.pop()  # the assistant's message_end
    for provider, model in models:
        events.append({**end, "message": {**end["message"], "provider": provider, "model": model}})
    return "\n".join(json.dumps(e) for e in events)


SERVED_ROWS = [
    # (cli, what it printed on stdout) -> the models reported, the one that answered first
    ("claude", (SERVED / "claude-2.1.332.json").read_text(), ("fake-model",)),
    (
        "claude",
        claude_usage(("claude-haiku-4-5", 12), ("claude-opus-4-5", 900)),
        ("claude-opus-4-5", "claude-haiku-4-5"),
    ),
    (
        "claude",
        claude_usage(("claude-sonnet-4-5", 700), ("claude-haiku-4-5", 30)),
        ("claude-sonnet-4-5", "claude-haiku-4-5"),
    ),
    ("gemini", (SERVED / "gemini-0.61.0.json").read_text(), ("fake-model",)),
    ("qwen", (SERVED / "qwen-0.15.10.json").read_text(), ("fake-model",)),
    (
        "gemini",
        stats_models("gemini-0.61.0.json", ("gemini-2.5-flash-lite", 3), ("gemini-2.5-pro", 400)),
        ("gemini-2.5-pro", "gemini-2.5-flash-lite"),
    ),
    (
        "qwen",
        stats_models("qwen-0.15.10.json", ("qwen-turbo", 20), ("qwen3-coder-plus", 500)),
        ("qwen3-coder-plus", "qwen-turbo"),
    ),
    ("pi", (SERVED / "pi-1.6.0.jsonl").read_text(), ("fakemodel/fake-model",)),
    (
        "pi",
        pi_turns(("openrouter", "qwen/qwen3-coder"), ("anthropic", "claude-sonnet-4-5")),
        ("anthropic/claude-sonnet-4-5", "openrouter/qwen/qwen3-coder"),
    ),
    ("codex", (SERVED / "codex-0.171.0-exec.jsonl").read_text(), ()),
    ("kimi", "Hello from kimi.\n", ()),
]


@pytest.mark.parametrize(("cli", "stdout", "served"), SERVED_ROWS)
def test_the_served_model_is_the_one_the_cli_names(cli, stdout, served):
    result = RawResult(0, stdout, "", output_format="json")
    assert adapter_for(cli).read_model(result) == served


def test_every_registered_cli_has_a_served_model_row():
    assert set(registered()) - {"sim"} <= {row[0] for row in SERVED_ROWS}


@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_the_model_council_asked_for_is_never_reported_as_served(tmp_path, cli, tool):
    # Nothing printed names a model: the call is "not reported", whatever council asked for.
    adapter = adapter_for(cli, {cli: CliSettings(name=cli, adapter=cli, model="asked-model")})
    assert adapter.read_model(RawResult(0, "Hello.\n", "")) == ()


# -- 4. isolation: the read-only and clean-room flags are always there ---------------------

# clis.md "read-only / isolation" and README's headless argv, per CLI (and kimi program).
ISOLATION: dict[str, list[list[str]]] = {
    "claude": [["--setting-sources", ""], ["--strict-mcp-config"], ["--no-session-persistence"]],
    "codex": [["-s", "read-only"], ["--ephemeral"]],
    "gemini": [["--approval-mode", "plan"]],
    "qwen": [["--approval-mode", "plan"]],
    "pi": [["--no-session"], ["--no-context-files"], ["--no-approve"], ["--no-mcp"]],
    "kimi-cli": [["--plan"]],
    "kimi-code": [],
    "sim": [],
}
ISOLATION_ENV = {
    "gemini": {"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_CLI_NO_RELAUNCH": "true"},
    "qwen": {"QWEN_CODE_NO_RELAUNCH": "true", "QWEN_CODE_SAFE_MODE": "true"},
}
SETUPS = [
    ("plain", {}, {}),
    ("lean", {"lean_prompt": "You are a seat."}, {}),
    ("extra-args", {}, {"extra_args": ("--verbose",)}),
    (
        "lean-extra-args-model-effort",
        {"lean_prompt": "S", "model": "m", "effort": "max"},
        {"extra_args": ("--debug",)},
    ),
    ("lean-off-in-config", {"lean_prompt": "S"}, {"lean": False}),
]


@pytest.mark.parametrize(("setup", "fields", "settings"), SETUPS, ids=[s[0] for s in SETUPS])
@pytest.mark.parametrize(("cli", "tool"), ROWS, ids=IDS)
def test_isolation_flags_are_always_in_the_argv(tmp_path, cli, tool, setup, fields, settings):
    clis = {cli: CliSettings(name=cli, adapter=cli, **settings)}
    adapter = adapter_for(cli, clis)
    invocation = adapter.build(tool, request(tmp_path, **fields))
    for part in ISOLATION[tool.variant or cli]:
        assert contains(invocation.argv, part), (part, invocation.argv)
    env = {**adapter.fixed_env, **invocation.env}
    for name, value in ISOLATION_ENV.get(cli, {}).items():
        assert env.get(name) == value, (name, env)


@pytest.mark.parametrize("fields", [{}, {"lean_prompt": "S"}], ids=["plain", "lean"])
def test_spawned_claude_offers_only_read_tools_or_none(tmp_path, fields):
    argv = argv_of(TOOLS["claude"][0], request(tmp_path, **fields), extra_args=("--verbose",))
    tools = "" if fields else "Read,Grep,Glob"
    assert contains(argv, ["--tools", tools]), argv
    assert argv.count("--tools") == 1, argv
