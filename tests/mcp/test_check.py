"""The check over MCP (docs/spec/commands.md "council mcp"): the `check` tool, spoken to with
the MCP SDK's own client, checks on the simulator. The positions are in the structured
content, which is all some hosts hand their model."""

from __future__ import annotations

from pathlib import Path

import pytest
from served import serving, text

from council.check.flags import CheckFlags
from council.options import options_of
from project import Project

SPLIT = "Redis or Postgres? SIM_PREFER(alpha=Redis,beta=Postgres)"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.anyio
async def test_the_check_tool_returns_the_positions_and_who_holds_each(project):
    async with serving(project) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        offered = [o.name for o in options_of(CheckFlags).values() if o.tool]
        assert list(tools["check"].input_schema["properties"]) == ["question", *offered]
        result = await session.call_tool(
            "check",
            {
                "question": SPLIT,
                "options": ["Redis", "Postgres"],
                "advocate": "sim:alpha",
                "critic": "sim:beta",
                "proxies": ["sim:gamma"],
            },
        )
        again = await session.call_tool("check_result", {"id": "last"})
        refused = await session.call_tool("debate_result", {"id": "last"})
    assert not result.is_error, text(result)  # a majority is an answer, not an error
    structured = result.structured_content
    assert structured["id"].startswith("check-") and structured["exit_code"] == 0
    assert (structured["agreement"], structured["needs_human"]) == ("majority", True)
    positions = [(p["stance"], p["seats"]) for p in structured["positions"]]
    assert positions == [("Redis", ["advocate", "proxy-sim"]), ("Postgres", ["critic"])]
    assert structured["markdown"] == (project.record() / "check.md").read_text()
    assert "Agreement: majority · needs a human: yes" in text(result)
    assert again.structured_content == structured  # the same result, by the check's id
    assert refused.is_error and "get its result with check_result" in text(refused)


@pytest.mark.anyio
async def test_a_failed_check_is_a_tool_error(project):
    async with serving(project, COUNCIL_SIM_EXIT="1") as session:
        result = await session.call_tool("check", {"question": "Cache?", "sim": True})
    assert result.is_error
    structured = result.structured_content
    assert (structured["status"], structured["exit_code"], structured["checked"]) == (
        "failed",
        3,
        False,
    )
    assert "No positions: the run failed" in text(result)
