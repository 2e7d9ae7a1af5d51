"""Warm workers started lean (docs/lean.md, "Lean and warm"), on the fake CLIs' persistent
modes, which are as strict about flags as the real CLIs: a seat whose every call may run
lean starts its worker with council's system prompt and no tool; a call that needs its tools
spawns beside it; a CLI whose persistent mode cannot start lean, or whose `clis.<name>.lean`
is false, starts as usual and still serves the lean calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import COUNCIL_ROOM_DIR, CliSettings, Status
from council.adapters.warm import LeanStart
from council.prompts import render
from council.runner.warm import WarmStartError
from runner.test_warm import Seat

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio

SYSTEM = render("lean_system")
PROMPT = "ACTION: CHALLENGE\nQuestion {n}: one queue or two?\n"


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def _claude(turn: dict, room: Path) -> bool:
    argv = turn["argv"]
    return _value(argv, "--tools") == "" and _value(argv, "--system-prompt") == SYSTEM


def _codex(turn: dict, room: Path) -> bool:
    instructions = room / COUNCIL_ROOM_DIR / "codex-instructions.md"
    return (
        f'model_instructions_file="{instructions}"' in turn["argv"]
        and "features.shell_tool=false" in turn["argv"]
        and instructions.read_text(encoding="utf-8") == SYSTEM
    )


def _gemini(turn: dict, room: Path) -> bool:
    policy = Path(_value(turn["argv"], "--policy"))
    system = Path(turn["env"]["GEMINI_SYSTEM_MD"])
    return (
        policy.parent == system.parent == room / COUNCIL_ROOM_DIR
        and 'decision = "deny"' in policy.read_text(encoding="utf-8")
        and system.read_text(encoding="utf-8") == SYSTEM
    )


def _qwen(turn: dict, room: Path) -> bool:
    argv = turn["argv"]
    return _value(argv, "--system-prompt") == SYSTEM and "read_file" in _value(
        argv, "--exclude-tools"
    )


def _pi(turn: dict, room: Path) -> bool:
    argv = turn["argv"]
    return "--no-tools" in argv and "--tools" not in argv and SYSTEM in argv


# What a lean worker's turn shows, per CLI: its argv (and env) at start.
STARTED_LEAN = {"claude": _claude, "codex": _codex, "gemini": _gemini, "qwen": _qwen, "pi": _pi}


@pytest.mark.parametrize("name", list(STARTED_LEAN))
async def test_a_lean_worker_starts_with_council_s_system_prompt_and_no_tool(fakes, tmp_path, name):
    seat = Seat(fakes, name, None, tmp_path)
    seat.set()
    prompts = [PROMPT.format(n=n) for n in range(2)]
    async with seat.warm(lean=LeanStart(SYSTEM, seat.room)) as worker:
        assert worker.lean
        outcomes = [await seat.ask(p, lean_prompt=SYSTEM) for p in prompts]
        pid = worker.pid
    turns = seat.turns()
    for prompt, outcome, turn in zip(prompts, outcomes, turns, strict=True):
        assert outcome.text == expected_answer(name, prompt)
        assert [a.warm for a in outcome.attempts] == [True]
        assert turn["pid"] == pid and turn["read_only"]
        assert STARTED_LEAN[name](turn, seat.room), turn["argv"]


@pytest.mark.parametrize("name", list(STARTED_LEAN))
async def test_a_call_that_needs_its_tools_spawns_beside_a_lean_worker(fakes, tmp_path, name):
    seat = Seat(fakes, name, None, tmp_path)
    seat.set()
    async with seat.warm(lean=LeanStart(SYSTEM, seat.room)) as worker:
        tooled = await seat.ask(PROMPT.format(n=0))  # a file was cut: not lean
        lean = await seat.ask(PROMPT.format(n=1), lean_prompt=SYSTEM)
        assert worker.stats.calls == 1 and worker.stats.deaths == 0
    assert tooled.status is Status.OK and lean.status is Status.OK
    assert [a.warm for a in tooled.attempts] == [False]
    assert [a.warm for a in lean.attempts] == [True]
    assert SYSTEM not in tooled.attempts[0].argv


async def test_a_worker_of_a_cli_with_lean_false_starts_as_usual_and_serves_lean_calls(
    fakes, tmp_path
):
    seat = Seat(fakes, "claude", None, tmp_path)
    seat.adapter = adapter_for(
        "claude", {"claude": CliSettings(name="claude", adapter="claude", lean=False)}
    )
    seat.set()
    async with seat.warm(lean=LeanStart(SYSTEM, seat.room)) as worker:
        assert not worker.lean
        outcome = await seat.ask(PROMPT.format(n=0), lean_prompt=SYSTEM)
    assert [a.warm for a in outcome.attempts] == [True]
    (turn,) = seat.turns()
    assert _value(turn["argv"], "--tools") == "Read,Grep,Glob"
    assert "--system-prompt" not in turn["argv"]


async def test_kimi_acp_takes_no_agent_file_so_its_worker_starts_as_usual(fakes, tmp_path):
    seat = Seat(fakes, "kimi", "kimi-code", tmp_path)
    seat.set()
    async with seat.warm(lean=LeanStart(SYSTEM, seat.room)) as worker:
        assert not worker.lean
        outcome = await seat.ask(PROMPT.format(n=0), lean_prompt=SYSTEM)
    assert [a.warm for a in outcome.attempts] == [True]
    assert not (seat.room / COUNCIL_ROOM_DIR).exists()


async def test_a_lean_worker_with_a_flag_its_cli_does_not_know_does_not_start(fakes, tmp_path):
    """The fakes' persistent modes stay as strict as the real CLIs with lean's flags beside:
    pi has no --no-approvals, so the worker never comes up and the seat spawns per call."""
    seat = Seat(fakes, "pi", None, tmp_path)
    seat.adapter = adapter_for(
        "pi", {"pi": CliSettings(name="pi", adapter="pi", extra_args=("--no-approvals",))}
    )
    seat.set()
    async with seat.warm(lean=LeanStart(SYSTEM, seat.room), start=False) as worker:
        with pytest.raises(WarmStartError, match="Unknown option: --no-approvals"):
            await worker.start()
        assert worker.stats.mode == "spawn"
