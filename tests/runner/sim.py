"""The simulator as the runner's tests call it: its resolved tool (path, version)."""

from __future__ import annotations

from council.adapters.base import Tool
from council.adapters.sim import SimAdapter
from council.runner.resolve import resolve_tool


async def sim_tool() -> Tool:
    resolved = await resolve_tool(SimAdapter())
    assert resolved.tool is not None, resolved.problem
    return resolved.tool
