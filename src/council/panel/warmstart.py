"""Starting a warm worker for a seat's CLI (runner/warm.py, docs/adr/007-warm-seat-workers.md):
a seat's at SETUP (`panel/seats.py`), and the lead's own while the debate runs
(`debate/roster.py`). The worker lives as long as the exit stack it is entered on."""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio

from council.adapters.base import Adapter, Tool
from council.adapters.warm import LeanStart, warm_mode
from council.panel.calls import Tuning
from council.panel.seat import SeatPlan
from council.runner.resolve import Resolution, ToolCache
from council.runner.warm import WarmStartError, WarmWorker, warm_worker


@dataclass
class WarmStart:
    """What starting the worker gave: the worker and the tool it runs (None: the seat spawns
    its CLI per call), and what the record says of it (None: no persistent mode here)."""

    worker: WarmWorker | None = None
    tool: Tool | None = None
    report: dict[str, Any] | None = None


async def start_warm(
    stack: AsyncExitStack,
    seat: SeatPlan,
    adapter: Adapter,
    *,
    tools: ToolCache,
    tuning: Tuning,
    room: Path,
    tmp_dir: Path | None,
    record_dir: Path,
    lean: LeanStart | None = None,
) -> WarmStart:
    """Start `seat`'s warm worker on `stack`; when it cannot run warm (no persistent mode,
    none here, or the worker did not start), `worker` is None and `report` says why. `lean`:
    start it lean (docs/lean.md), for a seat whose every call may run lean."""
    warm = warm_mode(adapter)
    if warm is None:
        return WarmStart()  # no persistent mode: every call spawns the CLI
    environ = tuning.environ if tuning.environ is not None else os.environ
    home = Path(environ.get("HOME") or Path.home())
    command = warm.locate()
    if command is None or tmp_dir is None:
        return WarmStart()  # the probe says what is missing
    tool = Tool(warm.display_name, tuple(command))
    if warm.warm_needs_probe:
        # The launch depends on what the probe finds (kimi: which of its two programs).
        resolved = await tools.resolve(warm)
        if resolved.tool is None:
            return WarmStart()
        tool = resolved.tool
    if (refusal := warm.warm_refusal(tool, environ, home)) is not None:
        return WarmStart(report={"mode": "spawn", "problem": refusal})
    model = seat.model or warm.settings.model
    effort = seat.effort or warm.settings.effort
    launch = warm.warm_launch(tool, model=model, effort=effort, lean=lean)
    if launch is None:
        return WarmStart()
    worker = await stack.enter_async_context(
        warm_worker(
            warm,
            tool,
            launch,
            seat=seat.name,
            room=room,
            tmp_dir=tmp_dir,
            record_dir=record_dir,
            environ=tuning.environ,
            grace_s=tuning.grace_s,
        )
    )
    probe: list[Resolution] = []
    async with anyio.create_task_group() as tg:
        if not launch.reports_version and tool.version is None:

            async def version() -> None:
                probe.append(await tools.resolve(warm))

            tg.start_soon(version)  # beside the start: its handshake says no version
        started = await _started(worker)
    if not started:
        return WarmStart(worker=worker, report=worker.stats.report())
    found = probe[0].tool if probe and probe[0].tool is not None else None
    tool = replace(
        tool,
        version=worker.version or (found.version if found else None) or tool.version,
        variant=tool.variant or (found.variant if found else None),
    )
    return WarmStart(worker=worker, tool=tool, report=worker.stats.report())


async def _started(worker: WarmWorker) -> bool:
    try:
        await worker.start()
    except WarmStartError:
        return False  # its stats say why
    return True
