"""`is_error` as an MCP host sees it (docs/spec/commands.md, "council mcp"): a run that
reached no result (no DECISION, no findings: it failed) is a tool error, so the host's model
does not take the text for council's answer; a run that reached one is not, degraded or not,
nor a review whose gate said no. One table of (tool, arguments) -> status, exit code,
is_error; the failures come from simulator seats whose every call fails."""

from __future__ import annotations

import pytest
from served import serving, text

from project import QUESTION, Project

pytestmark = pytest.mark.anyio
# Simulator seats whose every answer fails (COUNCIL_SIM_EXIT), beside the working simulator.
CONFIG = """\
clis:
  broken:
    adapter: sim
    env: {COUNCIL_SIM_EXIT: '1'}
  broken2:
    adapter: sim
    env: {COUNCIL_SIM_EXIT: '1'}
"""
DEBATE = {"question": QUESTION, "files": ["app.py"], "rounds": 2}
ROWS = [
    # (tool, arguments, status, exit code, is_error)
    ("debate", {**DEBATE, "sim": True}, "completed", 0, False),
    ("debate", {**DEBATE, "advocate": "broken", "critic": "sim", "lead": "sim"}, "failed", 3, True),
    (
        "debate",
        {**DEBATE, "advocate": "sim", "critic": "broken", "lead": "sim"},
        "degraded",
        5,
        False,
    ),
    ("review", {"files": ["app.py"], "sim": True}, "completed", 0, False),
    ("review", {"files": ["app.py"], "reviewers": ["broken", "broken2"]}, "failed", 3, True),
    ("review", {"files": ["app.py"], "reviewers": ["sim", "broken"]}, "degraded", 5, False),
]


@pytest.fixture
def project(tmp_path) -> Project:
    made = Project(tmp_path)
    made.write_config(CONFIG)
    return made


async def test_a_run_that_reached_no_result_is_a_tool_error_and_one_that_did_is_not(project):
    seen, wanted = [], []
    # One server for the whole table: a host keeps one, and each start costs a second of CPU.
    async with serving(project) as session:
        for tool, arguments, status, exit_code, is_error in ROWS:
            result = await session.call_tool(tool, arguments)
            ended = result.structured_content
            # the result tool says the same of the same run, later
            again = await session.call_tool(f"{tool}_result", {"id": ended["id"]})
            footer = f"Status: {status} · exit code {exit_code}" in text(result)
            seen.append(
                (tool, ended["status"], ended["exit_code"], result.is_error, again.is_error, footer)
            )
            wanted.append((tool, status, exit_code, is_error, is_error, True))
            if tool == "debate" and is_error:
                # The host's model is told why, in a line of its own, and is given no
                # DECISION the run never reached.
                assert ended["error"] and f"council: {ended['error']}" in text(result)
                assert ended["decision_markdown"] == ""
    assert seen == wanted
