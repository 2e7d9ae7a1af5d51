"""A session with `council mcp` as an IDE host holds one, over stdio with the MCP SDK's own
client, and the calls the tests make through it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from project import Project

LIMIT_S = 60  # a bound on a test's waits, never an assertion about speed


@asynccontextmanager
async def serving(project: Project, *global_args: str, **env: str) -> AsyncIterator[ClientSession]:
    """A session with `council mcp` started as a host starts it, in the project."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "council", *global_args, "mcp"],
        env=project.env(**env),
        cwd=project.root,
    )
    with (project.root.parent / "server.err").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def text(result: CallToolResult) -> str:
    (content,) = result.content
    return content.text


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool call that must succeed: its structured content."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    return result.structured_content


async def until_ended(
    session: ClientSession, run_id: str, tool: str = "debate_status"
) -> list[dict[str, Any]]:
    """A status tool until the run has ended: every status seen."""
    seen = []
    with anyio.fail_after(LIMIT_S):
        while True:
            seen.append(await call(session, tool, id=run_id))
            if not seen[-1]["running"]:
                return seen
            await anyio.sleep(0.1)
