"""Finding a CLI on this machine and asking it its version: what a seat needs before READY."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import anyio

from council.adapters.base import Adapter, Tool, VersionInfo
from council.runner.environment import adapter_env
from council.runner.probe import run_probe

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Resolution:
    adapter: Adapter
    tool: Tool | None  # None: not installed or not usable
    version: VersionInfo | None = None
    problem: str | None = None  # why there is no tool, with the fix
    found: bool = True  # the executable exists (it may still be unusable)


async def resolve_tool(adapter: Adapter, timeout_s: float = PROBE_TIMEOUT_S) -> Resolution:
    """Locate the CLI and run its version probe (never the bare command: see kimi), unless the
    adapter has none. A release its adapter lists as known broken and unusable is refused
    with what breaks and the way round (`Adapter.known_broken`)."""
    command = adapter.locate()
    if command is None:
        hint = adapter.missing_hint()
        missing = f"`{adapter.command()[0]}` not found on PATH" + (f"; {hint}" if hint else "")
        return Resolution(adapter, None, problem=missing, found=False)
    version_args = adapter.version_argv()
    if version_args is None:
        # A CLI without a version probe (`version_args: []`): found is all READY can know.
        info = VersionInfo(None)
        return Resolution(adapter, Tool(adapter.display_name, tuple(command)), info)
    probe = await run_probe(
        [*command, *version_args],
        env=adapter_env(adapter),
        timeout_s=timeout_s,
    )
    if probe.error:
        return Resolution(adapter, None, problem=probe.error)
    if probe.timed_out:
        shown = " ".join((command[0], *version_args))
        return Resolution(adapter, None, problem=f"`{shown}` did not answer within {timeout_s:g}s")
    info = adapter.read_version(probe.exit_code, probe.stdout, probe.stderr)
    if not info.unusable:
        refused = [e for e in adapter.known_broken_for(info.version, info.variant) if e.unusable]
        if refused:
            info = replace(info, unusable=refused[0].warning(adapter.display_name, info.version))
    if info.unusable:
        return Resolution(adapter, None, info, problem=info.unusable)
    tool = Tool(adapter.display_name, tuple(command), info.version, info.variant)
    return Resolution(adapter, tool, info)


@dataclass
class ToolCache:
    """One probe per CLI and run: seats on the same CLI share its `--version` answer."""

    timeout_s: float = PROBE_TIMEOUT_S
    _results: dict[str, Resolution] = field(default_factory=dict)
    _locks: dict[str, anyio.Lock] = field(default_factory=dict)

    async def resolve(self, adapter: Adapter) -> Resolution:
        key = adapter.display_name
        async with self._locks.setdefault(key, anyio.Lock()):
            if key not in self._results:
                self._results[key] = await resolve_tool(adapter, self.timeout_s)
            return self._results[key]
