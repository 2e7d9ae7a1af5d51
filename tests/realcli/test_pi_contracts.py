"""pi against the fake model server: what only pi needs proven on the real CLI (the contracts
every CLI keeps are in test_contracts.py and test_warm.py)."""

from __future__ import annotations

import json

import anyio
import pytest

from council.adapters.base import Request, Status
from council.adapters.pi import version_at_least

pytestmark = [pytest.mark.anyio, pytest.mark.realcli]

SOFT_S = 30.0
MCP_SINCE = (0, 99, 0)  # pi's built-in MCP support


@pytest.mark.parametrize("cli", ["pi"])  # named like the other contracts, for the report
async def test_pi_starts_none_of_the_mcp_servers_in_the_users_pi_config(real_cli, tmp_path, cli):
    """pi 1.x connects every MCP server of ~/.pi/agent/mcp.json at start-up, and `--tools`
    keeps their tools: a read-only seat must start none (`--no-mcp`), spawned or warm."""
    seat = real_cli(cli)
    tool = await seat.resolve()
    # Under pi's state directory: a server pi starts is write-confined like pi itself.
    marker = seat.home / ".pi" / "mcp-server-started"
    server = tmp_path / "spy-mcp-server"
    server.write_text(f"#!/bin/sh\necho started >> '{marker}'\nexit 0\n")
    server.chmod(0o755)
    config = {"mcpServers": {"spy": {"command": str(server)}}}
    (seat.home / ".pi" / "agent" / "mcp.json").write_text(json.dumps(config))

    spawned = await seat.ask("Question: any MCP server?", soft=SOFT_S)
    async with seat.warm_worker() as worker:
        warm = await seat.ask("Question: any MCP server, warm?", soft=SOFT_S, warm=worker)
    for outcome in (spawned, warm):
        assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert not marker.exists()
    for request in seat.server.requests("pi", answered=True):
        assert not [t for t in request.tools if t.startswith("mcp__")], request.tools

    if version_at_least(tool.version, MCP_SINCE):
        # The same call without `--no-mcp` starts the server: what the flag is there for.
        prompt = "Question: and without --no-mcp?"
        request = Request(prompt, seat.room, seat.record / "unused.md", model=seat.setup.model)
        argv = [a for a in seat.adapter.build(tool, request).argv if a != "--no-mcp"]
        ran = await anyio.run_process(
            argv, input=prompt.encode(), cwd=seat.room, env=seat.environ, check=False
        )
        assert ran.returncode == 0, ran.stderr.decode()[-500:]
        assert marker.exists()


@pytest.mark.parametrize("cli", ["pi"])
async def test_no_extension_in_a_pi_directory_of_the_room_runs_even_where_the_user_trusts_all(
    real_cli, cli
):
    """An extension is code pi runs in its own process. Before 0.79 pi loads the cwd's
    `.pi/extensions` unasked (`--no-extensions` stops it); since, a user whose pi trusts every
    project (`defaultProjectTrust: "always"`, or a saved decision for a parent of the rooms)
    would have it loaded (`--no-approve` decides for the seat). Spawned or warm."""
    seat = real_cli(cli)
    tool = await seat.resolve()
    marker = seat.home / ".pi" / "room-extension-ran"  # pi's state: writable when confined
    settings = seat.home / ".pi" / "agent" / "settings.json"
    trust_all = {**json.loads(settings.read_text()), "defaultProjectTrust": "always"}
    settings.write_text(json.dumps(trust_all))
    seat.room.chmod(0o700)
    (seat.room / ".pi" / "extensions").mkdir(parents=True)
    (seat.room / ".pi" / "extensions" / "spy.js").write_text(
        'import { appendFileSync } from "node:fs";\n'
        "export default function () {\n"
        f"  appendFileSync({json.dumps(str(marker))}, 'ran\\n');\n"
        "}\n"
    )
    seat.room.chmod(0o500)

    spawned = await seat.ask("Question: the room's extension?", soft=SOFT_S)
    async with seat.warm_worker() as worker:
        warm = await seat.ask("Question: the room's extension, warm?", soft=SOFT_S, warm=worker)
    for outcome in (spawned, warm):
        assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert not marker.exists()

    # The same call without the flag that guards this release runs the room's extension.
    guard = "--no-approve" if version_at_least(tool.version, (0, 79, 0)) else "--no-extensions"
    prompt = "Question: and without the guard?"
    request = Request(prompt, seat.room, seat.record / "unused.md", model=seat.setup.model)
    argv = [a for a in seat.adapter.build(tool, request).argv if a != guard]
    ran = await anyio.run_process(
        argv, input=prompt.encode(), cwd=seat.room, env=seat.environ, check=False
    )
    assert ran.returncode == 0, ran.stderr.decode()[-500:]
    assert marker.read_text() == "ran\n"
