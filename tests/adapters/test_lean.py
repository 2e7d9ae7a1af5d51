"""Lean mode (docs/lean.md): when a call's prompt holds every given file whole, each adapter
runs its CLI with the fewest tools it allows and council's own system prompt, keeping its
read-only mode; `clis.<name>.lean: false` keeps the usual set-up. Every argv here is run by
the strict fake of its CLI, so a flag the real CLI would refuse fails the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters.base import COUNCIL_ROOM_DIR, Status
from council.adapters.kimi import ARG_PROMPT_LIMIT, PROMPT_FILE
from council.prompts import render
from vendor_lists import vendors

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"
SYSTEM = render("lean_system")


def value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def text_of(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8")


async def test_council_s_system_prompt_says_the_seat_has_no_tools_and_everything_is_inlined():
    assert "no tools" in SYSTEM and "in full" in SYSTEM
    # kimi-cli renders its system prompt as a Jinja template with ${...} variables.
    assert "${" not in SYSTEM and "{%" not in SYSTEM and len(SYSTEM.encode()) < 1024


async def test_claude_lean_has_no_tool_at_all_and_council_s_system_prompt(fakes, seat_for):
    outcome = await seat_for("claude").ask(PROMPT, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "claude")[0]["argv"]
    assert outcome.text == expected_answer("claude", PROMPT)
    assert value(argv, "--tools") == "" and value(argv, "--system-prompt") == SYSTEM
    # what keeps the caller's settings and MCP servers out stays
    assert value(argv, "--setting-sources") == "" and "--strict-mcp-config" in argv


async def test_codex_lean_reads_council_s_instructions_from_the_room_and_turns_its_tools_off(
    fakes, seat_for
):
    seat = seat_for("codex")
    outcome = await seat.ask(PROMPT, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert outcome.status is Status.OK
    assert value(argv, "-s") == "read-only"
    instructions = seat.room / COUNCIL_ROOM_DIR / "codex-instructions.md"
    assert f'model_instructions_file="{instructions}"' in argv
    assert text_of(instructions) == SYSTEM
    for setting in (
        "features.shell_tool=false",
        "features.unified_exec=false",
        "features.view_image=false",
        "features.multi_agent=false",
        "features.goals=false",
        'web_search="disabled"',
        "tools.experimental_request_user_input.enabled=false",
        "skills.include_instructions=false",
        "include_environment_context=false",
    ):
        assert argv[argv.index(setting) - 1] == "-c", setting


async def test_gemini_lean_denies_every_tool_by_policy_and_reads_council_s_system_prompt(
    fakes, seat_for
):
    seat = seat_for("gemini")
    outcome = await seat.ask(PROMPT, lean_prompt=SYSTEM, model="gemini-2.5-pro")
    call = answer_calls(fakes, "gemini")[0]
    assert outcome.status is Status.OK
    assert value(call["argv"], "--approval-mode") == "plan"
    policy = Path(value(call["argv"], "--policy"))
    assert policy.parent == seat.room / COUNCIL_ROOM_DIR
    assert 'toolName = "*"' in text_of(policy) and 'decision = "deny"' in text_of(policy)
    assert text_of(call["env"]["GEMINI_SYSTEM_MD"]) == SYSTEM


# What each version declares in plan mode when left alone, and what 0.24.4 declared instead
# when only the first were excluded (its deferred tools, shown once `tool_search` is gone).
QWEN_PLAN_TOOLS = {
    "0.15.10": {"tool_search", "agent", "task_stop", "send_message", "skill", "list_directory"}
    | {"read_file", "grep_search", "glob", "todo_write", "ask_user_question"}
    | {"exit_plan_mode", "web_fetch"},
    "0.24.4": {"agent", "get_goal", "glob", "grep_search", "list_agents", "read_file", "skill"}
    | {"tool_call", "tool_search", "update_goal"}
    | {"cron_create", "cron_delete", "cron_list", "enter_worktree", "exit_worktree"}
    | {"loop_wakeup", "read_mcp_resource", "record_artifact", "report_findings"},
}


@pytest.mark.parametrize("version", list(QWEN_PLAN_TOOLS))
async def test_qwen_lean_excludes_every_tool_in_plan_mode_with_council_s_system_prompt(
    fakes, seat_for, version
):
    fakes.set("qwen", "ok", version=version)
    outcome = await seat_for("qwen").ask(PROMPT, lean_prompt=SYSTEM)
    call = answer_calls(fakes, "qwen")[0]
    argv = call["argv"]
    assert outcome.status is Status.OK
    assert value(argv, "--approval-mode") == "plan"
    assert value(argv, "--system-prompt") == SYSTEM
    excluded = value(argv, "--exclude-tools").split(",")
    assert QWEN_PLAN_TOOLS[version] <= set(excluded)
    assert len(excluded) == len(set(excluded))
    # the user's hooks, MCP servers, skills and extensions stay out (0.24.x's safe mode)
    assert call["env"]["QWEN_CODE_SAFE_MODE"] == "true"


async def test_pi_lean_has_no_tool_and_no_skill_and_council_s_system_prompt(fakes, seat_for):
    outcome = await seat_for("pi").ask(PROMPT, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert outcome.status is Status.OK
    assert "--no-tools" in argv and "--no-skills" in argv and "--tools" not in argv
    assert value(argv, "--system-prompt") == SYSTEM
    assert {"--no-context-files", "--no-session", "--offline"} <= set(argv)


async def test_kimi_cli_lean_runs_council_s_agent_with_no_tool_in_plan_mode(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-cli")
    seat = seat_for("kimi")
    outcome = await seat.ask(PROMPT, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "kimi")[0]["argv"]
    assert outcome.status is Status.OK and "--plan" in argv
    agent = Path(value(argv, "--agent-file"))
    assert agent.parent == seat.room / COUNCIL_ROOM_DIR
    spec = text_of(agent)
    assert "tools: []" in spec and "subagents: {}" in spec
    assert "system_prompt_path: ./kimi-system.md" in spec
    # A Jinja template that renders to council's text, whatever braces it holds.
    system = text_of(agent.parent / "kimi-system.md")
    assert system == "{% raw %}" + SYSTEM + "{% endraw %}"


async def test_kimi_code_lean_runs_council_s_agent_with_no_tool(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-code")
    seat = seat_for("kimi")
    outcome = await seat.ask(PROMPT, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "kimi")[0]["argv"]
    assert outcome.text == expected_answer("kimi", PROMPT)
    agent = text_of(value(argv, "--agent-file"))
    head, body = agent.removeprefix("---\n").split("\n---\n", 1)
    assert "tools: []" in head.splitlines() and body == SYSTEM.strip() + "\n"


async def test_kimi_code_handed_its_prompt_in_a_file_keeps_its_tools_to_read_it(fakes, seat_for):
    fakes.set("kimi", "ok", variant="kimi-code")
    seat = seat_for("kimi")
    long_prompt = PROMPT + "context line\n" * (ARG_PROMPT_LIMIT // 10)
    outcome = await seat.ask(long_prompt, lean_prompt=SYSTEM)
    argv = answer_calls(fakes, "kimi")[0]["argv"]
    assert outcome.status is Status.OK
    assert "--agent-file" not in argv and (seat.room / PROMPT_FILE).is_file()


@pytest.mark.parametrize("cli", vendors())
async def test_lean_false_in_the_config_keeps_the_cli_s_usual_set_up(fakes, seat_for, cli):
    fakes.set("kimi", "ok", variant="kimi-code")
    lean_off, usual = seat_for(cli, lean=False), seat_for(cli)
    await lean_off.ask(PROMPT, lean_prompt=SYSTEM)
    await usual.ask(PROMPT)
    first, second = answer_calls(fakes, cli)
    assert first["argv"] == second["argv"]
    assert first["env"].get("GEMINI_SYSTEM_MD") is None
    assert not (lean_off.room / COUNCIL_ROOM_DIR).exists()
    assert SYSTEM not in first["argv"]


async def test_a_lean_flag_a_cli_does_not_know_still_fails_like_the_real_one(fakes, seat_for):
    """The fakes stay strict: pi 0.73.1 has no --no-approvals, and says so."""
    outcome = await seat_for("pi", extra_args=("--no-approvals",)).ask(PROMPT, lean_prompt=SYSTEM)
    assert outcome.status is Status.ERROR
    assert "Unknown option: --no-approvals" in outcome.detail
