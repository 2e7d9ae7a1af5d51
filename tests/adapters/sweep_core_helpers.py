"""A helper the core sweep's tests share: one call of a small Python script configured as a
user-defined CLI, through the real runner."""

from __future__ import annotations

import sys
from pathlib import Path

from council.adapters import adapter_for
from council.adapters.base import Tool
from council.config import parse_config
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, run_call


async def call_script(
    tmp_path: Path, name: str, source: str, prompt: str, **settings: object
) -> CallOutcome:
    """Ask `prompt` of `source` run as `clis.<name>: {command: [python, script], ...}`."""
    script = tmp_path / f"{name}.py"
    script.write_text(source)
    command = [sys.executable, str(script)]
    config = parse_config({"clis": {name: {"command": command, **settings}}})
    adapter = adapter_for(name, config.clis)
    room = tmp_path / "room"
    room.mkdir()
    return await run_call(
        adapter,
        Tool(name, tuple(adapter.command())),
        prompt,
        room=room,
        files=CallFiles(tmp_path / "record", f"proxy-{name}-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=0.5),
        policy=RetryPolicy(base_delay_s=0.01, other_delay_s=0.01),
    )
