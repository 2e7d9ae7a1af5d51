"""pytest fixtures: the fake model server, and real CLIs wired to it, ready for council.

Import them into a conftest.py (`from fakemodel.fixtures import fake_model, real_cli`):

    async def test_something(real_cli):
        cli = real_cli("qwen")                   # skips when qwen did not install
        outcome = await cli.ask("ACTION: PROPOSAL ...", soft=30)
        assert cli.server.prompts("qwen") == [...]

Each CLI gets HOME, TMPDIR, a read-only room and a record directory of its own under the
test's tmp_path; its bin directory goes first on PATH (through monkeypatch, so
`resolve_tool`'s version probe finds it too). The environment council is given holds only
the basics and the variables the CLI needs for the fake server, never the developer's own
keys, so a test is hermetic.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import Adapter, Request, Tool
from council.adapters.warm import LeanStart
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, run_call
from council.runner.resolve import resolve_tool
from council.runner.warm import WarmWorker, warm_worker
from fakemodel.clients import ClientSetup, client_setup
from fakemodel.installed import installed
from fakemodel.server import FakeModelServer

# council's backoff, scaled down: the real CLIs' own retries are what a test waits for.
FAST_RETRY = RetryPolicy(base_delay_s=0.05, max_delay_s=0.2, other_delay_s=0.05)
ROOM_FILE = "notes.md"
ROOM_TEXT = "# Notes\n\nA file the seat may read but never change.\n"
# Versions the tests actually ran (as the version probe reported them), for the summary.
TESTED_VERSIONS: dict[str, str] = {}
# One version probe per installed CLI and test run: a node CLI takes ~1 s to say its version.
_PROBED: dict[Path, Tool] = {}


@pytest.fixture
def fake_model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@dataclass
class RealCli:
    """One real CLI pointed at the fake server, called the way a seat calls it."""

    name: str
    setup: ClientSetup
    adapter: Adapter
    server: FakeModelServer
    environ: dict[str, str]
    home: Path
    room: Path
    record: Path
    tmp: Path
    calls: int = 0
    tool: Tool | None = field(default=None, repr=False)

    async def resolve(self) -> Tool:
        if self.tool is None:
            resolved = await resolve_tool(self.adapter, timeout_s=30)
            assert resolved.tool is not None, resolved.problem
            self.tool = resolved.tool
            _PROBED[Path(resolved.tool.command[0]).parent] = resolved.tool
            TESTED_VERSIONS[self.name] = resolved.tool.version or "?"
        return self.tool

    async def ask(
        self,
        prompt: str,
        *,
        soft: float,
        hard: float | None = None,
        grace: float = 1.0,
        policy: RetryPolicy = FAST_RETRY,
        warm: WarmWorker | None = None,
        lean_prompt: str | None = None,
    ) -> CallOutcome:
        """One call as a seat makes it: spawned, or on `warm` (see `warm_worker`);
        `lean_prompt`: run it lean (docs/lean.md)."""
        tool = await self.resolve()
        self.calls += 1
        return await run_call(
            self.adapter,
            tool,
            prompt,
            room=self.room,
            files=CallFiles(self.record, f"{self.name}-r{self.calls}"),
            timeouts=Timeouts(soft_s=soft, hard_s=hard or soft * 1.5, grace_s=grace),
            policy=policy,
            model=self.setup.model,
            environ=self.environ,
            tmp_dir=self.tmp if warm is not None else None,
            warm=warm,
            lean_prompt=lean_prompt,
        )

    @asynccontextmanager
    async def warm_worker(
        self, *, grace: float = 1.0, lean: LeanStart | None = None, **options: object
    ) -> AsyncIterator[WarmWorker]:
        """The CLI's warm worker as a seat starts it (READY), torn down on the way out;
        `lean`: started lean, as a seat whose every call may run lean starts it."""
        tool = await self.resolve()
        launch = self.adapter.warm_launch(tool, model=self.setup.model, effort=None, lean=lean)
        assert launch is not None, f"{self.name} has no warm mode"
        self.record.mkdir(parents=True, exist_ok=True, mode=0o700)
        async with warm_worker(
            self.adapter,
            tool,
            launch,
            seat=self.name,
            room=self.room,
            tmp_dir=self.tmp,
            record_dir=self.record,
            environ=self.environ,
            grace_s=grace,
            **options,
        ) as worker:
            await worker.start()
            yield worker

    def room_snapshot(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.room)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(self.room.rglob("*"))
        }

    async def placed_by_council(
        self, prompt: str, lean_prompt: str | None = None
    ) -> dict[str, bytes]:
        """What council itself writes into the room before it starts the CLI (qwen's settings,
        kimi-code's prompt file, lean mode's files), as `room_snapshot` shows it."""
        request = Request(
            prompt=prompt,
            room=self.room,
            answer_path=self.record / "answer.md",
            lean_prompt=lean_prompt,
        )
        placed: dict[str, bytes] = {}
        for name, text in self.adapter.build(await self.resolve(), request).room_files.items():
            parts = Path(name).parts
            placed.update({str(Path(*parts[:n])): b"<dir>" for n in range(1, len(parts))})
            placed[name] = text.encode()
        return placed


def council_env(
    server: FakeModelServer, clis: Sequence[str], home: Path, tmpdir: Path
) -> tuple[dict[str, str], list[str]]:
    """What a `council` subprocess needs to run `clis` (each installed) against `server`:
    its environment (only the basics, the CLIs' bin directories and what each needs for the
    server), and the `--model` values (`cli:model`) of those that name one."""
    bins = [str(installed(name).bin_dir) for name in clis]
    env = {
        "PATH": os.pathsep.join([*bins, str(Path(sys.executable).parent), os.defpath]),
        "HOME": str(home),
        "TMPDIR": str(tmpdir),
        "LANG": "C.UTF-8",
    }
    models = []
    for name in clis:
        setup = client_setup(name, server, home)
        env.update(setup.env)
        if setup.model:
            models.append(f"{setup.adapter}:{setup.model}")
    return env, models


def _skip_or_fail(reason: str) -> None:
    # In CI the installer runs first: a CLI it never tried is a broken pipeline, not a skip.
    if os.environ.get("CI") and "not installed" in reason:
        pytest.fail(reason)
    pytest.skip(f"REAL CLI NOT TESTED: {reason}")


@pytest.fixture
def real_cli(
    fake_model: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., RealCli]]:
    made: list[RealCli] = []

    def make(name: str, *, credentials: bool = True, label: str = "") -> RealCli:
        """`label` tells apart two seats of the same CLI in one test."""
        found = installed(name)
        if not found.ok:
            _skip_or_fail(found.problem())
        base = tmp_path / (f"{name}-{label}" if label else name)
        home, tmpdir, room, record = (base / d for d in ("home", "tmp", "room", "record"))
        for directory in (home, tmpdir, room):
            directory.mkdir(parents=True)
        # Like council's rooms: a read-only copy of the files under debate.
        (room / ROOM_FILE).write_text(ROOM_TEXT)
        (room / ROOM_FILE).chmod(0o400)
        room.chmod(0o500)
        setup = client_setup(name, fake_model, home, credentials=credentials)
        path = f"{found.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        monkeypatch.setenv("PATH", path)
        monkeypatch.setenv("HOME", str(home))
        environ = {"PATH": path, "HOME": str(home), "TMPDIR": str(tmpdir), "LANG": "C.UTF-8"}
        for name_ in ("USER", "LOGNAME"):
            if name_ in os.environ:
                environ[name_] = os.environ[name_]
        environ.update(setup.env)
        cli = RealCli(
            name, setup, adapter_for(setup.adapter), fake_model, environ, home, room, record, tmpdir
        )
        cli.tool = _PROBED.get(found.bin_dir)
        made.append(cli)
        return cli

    yield make
    for cli in made:  # let pytest remove what the test made read-only
        for path in [cli.room, *cli.room.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IRWXU)
