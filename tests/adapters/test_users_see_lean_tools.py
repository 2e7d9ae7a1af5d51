"""Lean mode, per CLI, as docs/lean.md's table "What each pinned version honours" lists it:
every flag, setting and file that takes a tool (or the agent's system prompt) away is on the
argv of a lean call, so a dropped exclusion fails here by name. Each argv is run by the
strict fake of its CLI through the real runner."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters.base import COUNCIL_ROOM_DIR
from council.prompts import render
from vendor_lists import programs, vendors

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"
SYSTEM = render("lean_system")


def expand(text: str) -> list[str]:
    """A shell-style brace expansion, as docs/lean.md writes a family of settings:
    `features.{a,b}=false` -> `features.a=false`, `features.b=false`."""
    parts = re.split(r"\{([^}]*)\}", text)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


# (flag, value) pairs the lean argv holds, copied from docs/lean.md's "lean flags" column;
# `{room}` is the seat's room. A value None is a flag alone.
CODEX_SETTINGS = [
    'model_instructions_file="{room}/.council/codex-instructions.md"',
    *expand(
        "features.{shell_tool,unified_exec,view_image,multi_agent,goals,image_generation}=false"
    ),
    'web_search="disabled"',
    "tools.experimental_request_user_input.enabled=false",
    "skills.include_instructions=false",
    *expand("include_{permissions,apps,collaboration_mode}_instructions=false"),
    "include_environment_context=false",
]
LEAN_ARGV: dict[str, list[tuple[str, str | None]]] = {
    "claude": [("--tools", ""), ("--system-prompt", SYSTEM)],
    "codex": [("-c", setting) for setting in CODEX_SETTINGS],
    "gemini": [("--policy", "{room}/.council/gemini-policy.toml")],
    "qwen": [("--system-prompt", SYSTEM)],
    "pi": [("--no-tools", None), ("--no-skills", None), ("--system-prompt", SYSTEM)],
    "kimi-cli": [("--agent-file", "{room}/.council/kimi-agent.yaml")],
    "kimi-code": [("--agent-file", "{room}/.council/kimi-seat.md")],
}
# What the files council writes for a CLI that reads them say: no tool at all.
LEAN_FILES = {
    "gemini": {"gemini-policy.toml": ['toolName = "*"', 'decision = "deny"']},
    "kimi-cli": {"kimi-agent.yaml": ["tools: []", "subagents: {}"]},
    "kimi-code": {"kimi-seat.md": ["tools: []"]},
}
# docs/lean.md: `--exclude-tools` names every built-in tool qwen has, 67 in 0.24.4 (23 in
# 0.15.10, all among them), the same list for every version.
QWEN_TOOLS = 67


def _text(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8")


def _holds(argv: list[str], flag: str, value: str | None) -> bool:
    if value is None:
        return flag in argv
    return any(a == flag and b == value for a, b in itertools.pairwise(argv))


async def _lean_call(fakes, seat_for, program: str) -> tuple[dict, Path]:
    cli = "kimi" if program.startswith("kimi") else program
    if cli == "kimi":
        fakes.set("kimi", "ok", variant=program)
    seat = seat_for(cli)
    await seat.ask(PROMPT, lean_prompt=SYSTEM)
    (call,) = answer_calls(fakes, cli)
    return call, seat.room


def test_the_table_has_a_row_for_every_program_the_registry_seats():
    assert set(LEAN_ARGV) == set(programs())
    assert {p if not p.startswith("kimi") else "kimi" for p in LEAN_ARGV} == set(vendors())


@pytest.mark.parametrize("program", list(LEAN_ARGV))
async def test_a_lean_call_takes_away_every_tool_the_docs_list_for_its_cli(
    fakes, seat_for, program
):
    call, room = await _lean_call(fakes, seat_for, program)
    argv = call["argv"]
    missing = [
        f"{flag} {value!r}" if value is not None else flag
        for flag, template in LEAN_ARGV[program]
        for value in [None if template is None else template.format(room=room)]
        if not _holds(argv, flag, value)
    ]
    assert not missing, f"{program}'s lean argv lacks: " + ", ".join(missing)
    for name, lines in LEAN_FILES.get(program, {}).items():
        text = _text(room / COUNCIL_ROOM_DIR / name)
        assert all(line in text for line in lines), f"{name}: {text}"
    if program == "gemini":
        assert _text(call["env"]["GEMINI_SYSTEM_MD"]) == SYSTEM


@pytest.mark.parametrize("version", ["0.15.10", "0.24.4"])
async def test_qwen_lean_excludes_every_built_in_tool_of_the_newest_version(
    fakes, seat_for, version
):
    fakes.set("qwen", "ok", version=version)
    call, _ = await _lean_call(fakes, seat_for, "qwen")
    argv = call["argv"]
    excluded = argv[argv.index("--exclude-tools") + 1].split(",")
    assert len(set(excluded)) == len(excluded) == QWEN_TOOLS
    # qwen's shell and write tools are the ones plan mode must never be left with
    assert {"run_shell_command", "write_file", "edit", "exec", "tool_search"} <= set(excluded)


@pytest.mark.parametrize("program", list(LEAN_ARGV))
async def test_a_call_that_is_not_lean_keeps_every_tool_setting_out(fakes, seat_for, program):
    cli = "kimi" if program.startswith("kimi") else program
    if cli == "kimi":
        fakes.set("kimi", "ok", variant=program)
    seat = seat_for(cli)
    await seat.ask(PROMPT)
    (call,) = answer_calls(fakes, cli)
    kept = [
        flag
        for flag, template in LEAN_ARGV[program]
        if _holds(call["argv"], flag, None if template is None else template.format(room=seat.room))
    ]
    assert not kept and "--exclude-tools" not in call["argv"]
