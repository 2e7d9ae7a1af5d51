"""qwen's lean call excludes every built-in tool qwen has, not only those plan mode shows
(docs/lean.md): plan mode hides the tools that change things, and lean mode must not lean on
that; a model given no shell, edit or write tool cannot be talked into using one."""

from __future__ import annotations

import pytest
from helpers import answer_calls

from council.adapters.base import Status
from council.prompts import render

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"
# qwen's tools that run or change something (its bundle's ToolNames, 0.15.10 and 0.24.4).
CHANGING = {"run_shell_command", "edit", "write_file", "save_memory", "todo_write"}


@pytest.mark.parametrize("version", ["0.15.10", "0.24.4"])
async def test_qwen_lean_excludes_the_tools_that_change_things(fakes, seat_for, version):
    fakes.set("qwen", "ok", version=version)
    outcome = await seat_for("qwen").ask(PROMPT, lean_prompt=render("lean_system"))
    assert outcome.status is Status.OK
    argv = answer_calls(fakes, "qwen")[0]["argv"]
    excluded = set(argv[argv.index("--exclude-tools") + 1].split(","))
    assert excluded >= CHANGING, sorted(CHANGING - excluded)
