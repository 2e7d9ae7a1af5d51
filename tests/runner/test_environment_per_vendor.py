"""The allow-list per vendor as docs/spec/protocol.md ("Clean room and environment"), README
("the environment is an allow-list") and docs/spec/clis.md (each CLI's credentials) name it,
and what a CLI really finds in its environment when council runs it."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from council.adapters import adapter_for
from council.adapters.base import Status, Tool
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from council.runner.environment import CALL_MARKER, adapter_env

# Everything a developer's shell may hold, each vendor's keys among them.
SHELL = {
    "PATH": "/usr/local/bin:/usr/bin",
    "HOME": "/home/ada",
    "USER": "ada",
    "LOGNAME": "ada",
    "LANG": "en_GB.UTF-8",
    "LC_CTYPE": "en_GB.UTF-8",
    "TMPDIR": "/var/tmp/ada",
    "TERM": "xterm-256color",
    "COLORTERM": "truecolor",
    "SHELL": "/bin/zsh",
    "EDITOR": "vim",
    "ANTHROPIC_API_KEY": "sk-ant",
    "ANTHROPIC_BASE_URL": "https://gateway.example",
    "CLAUDE_CODE_OAUTH_TOKEN": "oauth",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "OPENAI_API_KEY": "sk-openai",
    "OPENAI_BASE_URL": "https://api.example/v1",
    "OPENAI_ORGANIZATION": "org-1",
    "OPENAI_PROJECT": "proj-1",
    "CODEX_HOME": "/home/ada/.codex",
    "CODEX_API_KEY": "sk-codex",
    "CODEX_SANDBOX": "seatbelt",
    "GEMINI_API_KEY": "gem",
    "GOOGLE_CLOUD_PROJECT": "ada-project",
    "GEMINI_CLI": "1",
    "DASHSCOPE_API_KEY": "dash",
    "QWEN_HOME": "/home/ada/.qwen",
    "QWEN_CODE": "1",
    "KIMI_API_KEY": "kimi",
    "MOONSHOT_API_KEY": "moon",
    "DEEPSEEK_API_KEY": "deep",
    "HF_TOKEN": "hf",
    "PI_CODING_AGENT_DIR": "/home/ada/.pi/agent",
    "AWS_SECRET_ACCESS_KEY": "aws",
    "GITHUB_TOKEN": "ghp",
}
BASICS = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_CTYPE", "TMPDIR"}

OPENAI = {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORGANIZATION", "OPENAI_PROJECT"}
# What each CLI gets beside the basics, and what of the shell must never reach it.
VENDORS = {
    "claude": (
        {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN"},
        {
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "KIMI_API_KEY",
            "CLAUDECODE",
            "CLAUDE_CODE_ENTRYPOINT",
        },
    ),
    "codex": (
        {"CODEX_HOME", "CODEX_API_KEY", "OPENAI_ORGANIZATION", "OPENAI_PROJECT"},
        {"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "CODEX_SANDBOX"},
    ),
    "gemini": (
        {"GEMINI_API_KEY", "GOOGLE_CLOUD_PROJECT"},
        {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_CLI"},
    ),
    "qwen": (
        {"DASHSCOPE_API_KEY", "QWEN_HOME", *OPENAI},
        {"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "CODEX_API_KEY", "QWEN_CODE"},
    ),
    "kimi": (
        {"KIMI_API_KEY", "MOONSHOT_API_KEY"},
        {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"},
    ),
    "pi": (
        {
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            *OPENAI,
            "GEMINI_API_KEY",
            "KIMI_API_KEY",
            "MOONSHOT_API_KEY",
            "DEEPSEEK_API_KEY",
            "HF_TOKEN",
            "PI_CODING_AGENT_DIR",
        },
        {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CLAUDECODE", "GEMINI_CLI", "CODEX_API_KEY"},
    ),
}
NOBODYS = {"SHELL", "EDITOR", "COLORTERM", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}


@pytest.mark.parametrize("cli", sorted(VENDORS))
def test_each_cli_gets_the_basics_its_vendors_variables_and_nothing_else(cli):
    own, never = VENDORS[cli]
    adapter = adapter_for(cli)
    env = adapter_env(adapter, SHELL)
    fixed = set(adapter.fixed_env)
    from_shell = {name for name in env if name not in fixed | {"TERM", "NO_COLOR"}}
    assert from_shell == BASICS | own
    assert {name: env[name] for name in BASICS | own} == {
        name: SHELL[name] for name in BASICS | own
    }
    assert never.isdisjoint(env)
    assert NOBODYS.isdisjoint(env)


@pytest.mark.parametrize("cli", sorted(VENDORS))
def test_every_cli_gets_a_plain_terminal_whatever_the_users_is(cli):
    env = adapter_env(adapter_for(cli), SHELL)
    assert (env["TERM"], env["NO_COLOR"]) == ("dumb", "1")


def test_a_calls_own_settings_beat_the_users_and_its_marker_is_added():
    adapter = adapter_for("gemini")
    overrides = {"TMPDIR": "/run/council/call-1", "TERM": "xterm-256color"}
    env = adapter_env(adapter, SHELL, overrides=overrides, call_id="77-abc")
    assert env["TMPDIR"] == "/run/council/call-1"
    assert env["TERM"] == "xterm-256color"
    assert env[CALL_MARKER] == "77-abc"


@pytest.mark.anyio
async def test_a_claude_call_runs_in_its_room_with_the_model_effort_and_allow_listed_env(
    fakes, record_dir, room, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("EDITOR", "vim")
    fakes.set("claude", "ok")
    tool = Tool("claude", (str(fakes.executable("claude")),))
    outcome = await run_call(
        adapter_for("claude"),
        tool,
        "ACTION: PROPOSAL\nQuestion: Redis?\n",
        room=room,
        files=CallFiles(record_dir, "critic-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        policy=RetryPolicy(rate_limit_retries=0, other_retries=0),
        model="opus",
        effort="high",
    )
    assert outcome.status is Status.OK, outcome.detail
    (call,) = fakes.calls("claude")
    argv, env = call["argv"], call["env"]
    assert argv[argv.index("--model") + 1] == "opus"
    assert argv[argv.index("--effort") + 1] == "high"
    assert Path(call["cwd"]) == room
    assert env["ANTHROPIC_API_KEY"] == "sk-ant"
    assert {"OPENAI_API_KEY", "CLAUDECODE", "EDITOR"}.isdisjoint(env)
    assert (env["TERM"], env["NO_COLOR"]) == ("dumb", "1")
    assert env[CALL_MARKER].startswith(f"{os.getpid()}-")
    # A temp dir of the call's own, not the shared one, and gone once the call ended.
    tmp = Path(env["TMPDIR"])
    assert tmp.name.startswith("council-call-") and not await anyio.Path(tmp).exists()
    assert outcome.usage is not None and outcome.usage.cost_usd == pytest.approx(0.0012)
