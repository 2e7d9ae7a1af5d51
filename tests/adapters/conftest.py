"""Fixtures for running adapters through the real runner against the strict fake CLIs."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import Adapter, CliSettings
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, run_call
from council.runner.resolve import Resolution, resolve_tool

from fakes.install import FakeClis

FAST_RETRY = RetryPolicy(base_delay_s=0.02, max_delay_s=0.1, other_delay_s=0.01)


class Seat:
    """One adapter wired to a fake, its room and record directory."""

    def __init__(self, adapter: Adapter, tmp_path: Path) -> None:
        self.adapter = adapter
        self.room = tmp_path / "room"
        self.record = tmp_path / "record"
        self.room.mkdir(exist_ok=True)
        self.calls = 0

    async def resolve(self) -> Resolution:
        return await resolve_tool(self.adapter, timeout_s=10)

    async def ask(
        self,
        prompt: str,
        *,
        soft: float = 20,
        hard: float | None = None,
        grace: float = 1.0,
        model: str | None = None,
        effort: str | None = None,
        policy: RetryPolicy = FAST_RETRY,
        lean_prompt: str | None = None,
    ) -> CallOutcome:
        resolved = await self.resolve()
        assert resolved.tool is not None, resolved.problem
        self.calls += 1
        return await run_call(
            self.adapter,
            resolved.tool,
            prompt,
            room=self.room,
            files=CallFiles(self.record, f"seat-r{self.calls}"),
            timeouts=Timeouts(soft_s=soft, hard_s=hard or soft * 1.5, grace_s=grace),
            policy=policy,
            model=model,
            effort=effort,
            lean_prompt=lean_prompt,
        )


@pytest.fixture
def seat_for(fakes: FakeClis, tmp_path: Path):
    def make(name: str, **settings) -> Seat:
        clis = {name: CliSettings(name=name, adapter=name, **settings)} if settings else None
        return Seat(adapter_for(name, clis), tmp_path)

    return make
