"""`council mcp` as an IDE host runs it: a process started in the user's project, spoken to
over stdio with the MCP SDK's own client. Debates run on the simulator: slowed down
(COUNCIL_SIM_DELAY) where progress is watched, hung at PROPOSAL (COUNCIL_SIM_HANG) where a run
must still be running when a tool looks at it, so no assertion depends on timing. Every run a
test starts ends or is cancelled, and the server exits when the client closes its stdin."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from served import LIMIT_S, call, serving, text, until_ended

from council.runs.record import Record
from council.runs.store import cancel_run, summarize
from project import QUESTION, Project

SLOW = {"COUNCIL_SIM_DELAY": "0.3"}  # seconds per simulated call: several phases to report
HUNG = {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "PROPOSAL"}  # runs until cancelled
TOOLS = {
    *(
        f"{kind}{tool}"
        for kind in ("debate", "review")
        for tool in ("", "_start", "_status", "_result", "_cancel")
    ),
    "check",
    "check_result",
    "doctor",
}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def log_lines(project: Project) -> list[str]:
    return (project.record() / "progress.log").read_text().splitlines()


def schema_of(property_schema: dict[str, Any]) -> dict[str, Any]:
    """The non-null arm of an optional property's schema."""
    arms = property_schema.get("anyOf", [property_schema])
    (arm,) = [a for a in arms if a.get("type") != "null"]
    return arm


@pytest.mark.anyio
async def test_the_tools_take_the_debate_flags_as_typed_validated_arguments(project):
    async with serving(project) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    debate = tools["debate"].input_schema
    assert debate["required"] == ["question"]
    properties = debate["properties"]
    assert schema_of(properties["rounds"]) == {"type": "integer", "minimum": 2, "maximum": 5}
    assert schema_of(properties["quorum"]) == {"type": "integer", "minimum": 0}
    assert schema_of(properties["effort"])["enum"] == ["low", "medium", "high", "xhigh"]
    assert properties["files"]["items"] == {"type": "string"}
    assert schema_of(properties["proxies"])["items"] == {"type": "string"}
    timeouts = schema_of(properties["timeouts"])
    assert timeouts["type"] == "object"
    assert timeouts["additionalProperties"] == {
        "type": "number",
        "minimum": 1,
        "maximum": 86_400,
    }
    assert schema_of(properties["models"])["additionalProperties"]["type"] == "string"
    assert properties["sim"]["type"] == "boolean"
    assert {"lead", "advocate", "critic", "preset", "diff", "scratchpad"} <= set(properties)
    start = tools["debate_start"].input_schema
    assert {**start, "title": ""} == {**debate, "title": ""}  # one declaration, two tools
    assert set(tools["debate_status"].input_schema["properties"]) == {"id", "since", "scratchpad"}
    for name in ("debate", "debate_start", "debate_result"):
        assert "never answer the question yourself" in tools[name].description
    assert "caller" in tools["debate"].description


@pytest.mark.anyio
async def test_debate_reports_progress_and_returns_the_decision_without_the_transcript(project):
    messages: list[tuple[float, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append((value, message))

    async with serving(project, **SLOW) as session:
        result = await session.call_tool(
            "debate",
            {"question": QUESTION, "sim": True, "files": ["app.py"], "rounds": 2},
            progress_callback=progress,
        )
    assert not result.is_error, text(result)
    run_id = result.structured_content["id"]
    record = f".scratchpad/{run_id}/"
    # The DECISION is in the structured content too: the only part some hosts show the model.
    decision = result.structured_content.pop("decision_markdown")
    assert decision.startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert "## Recommendation" in decision and "## Debate record" not in decision
    assert decision.rstrip() in text(result)
    assert result.structured_content == {
        "id": run_id,
        "status": "completed",
        "exit_code": 0,
        "record": record,
        "error": None,
        "decision_reached": True,
        "note": None,
        "seats": [
            {"name": "advocate", "role": "advocate", "cli": "sim", "status": "ok"},
            {"name": "critic", "role": "critic", "cli": "sim", "status": "ok"},
            {"name": "lead", "role": "lead", "cli": "sim", "status": "ok"},
        ],
    }
    answer = text(result)
    assert answer.startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert "## Recommendation" in answer and "## Debate record" not in answer
    assert f"Record: {record}" in answer and "Status: completed · exit code 0" in answer
    assert "Seats: advocate (sim) ok · critic (sim) ok · lead (sim) ok" in answer
    # Every line of the run's progress.log was one notification, in order (a heartbeat, the
    # status line, may come between them on a slow machine); the phases are among them.
    told = [message for _, message in messages]
    assert [m for m in told if m.startswith("[")] == log_lines(project)
    assert any(" PROPOSAL advocate ok " in m for m in told)
    assert any(" CHALLENGE critic ok " in m for m in told)
    values = [value for value, _ in messages]
    assert values == sorted(set(values))  # progress only grows


@pytest.mark.anyio
async def test_a_started_run_is_followed_with_status_then_its_result(project):
    async with serving(project, **SLOW) as session:
        started = await call(session, "debate_start", question=QUESTION, sim=True)
        run_id = started["id"]
        assert started["record"] == f".scratchpad/{run_id}/"
        statuses = await until_ended(session, run_id[:-1])  # a unique prefix names it too
        result = await session.call_tool("debate_result", {"id": "last"})
        again = await call(session, "debate_status", id=run_id)
        replay = await call(session, "debate_status", id=run_id, since=0)
    assert {s["id"] for s in statuses} == {run_id}
    last = statuses[-1]
    assert last["status"] == "completed" and last["running"] is False
    assert last["seats"] == {"ok": 2, "failed": 0, "waiting": 0}
    assert last["status_line"].startswith(f"{run_id} completed · ")
    # The server kept a cursor: each progress line came once, in order, across the calls.
    lines = log_lines(project)
    assert [line for s in statuses for line in s["lines"]] == lines
    assert last["since"] == len(lines)
    assert again["lines"] == [] and replay["lines"] == lines
    assert not result.is_error, text(result)
    assert text(result).startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert result.structured_content["status"] == "completed"


@pytest.mark.anyio
async def test_a_running_run_has_no_result_yet_and_cancel_stops_it_resumably(project):
    async with serving(project, **HUNG) as session:
        run_id = (await call(session, "debate_start", question=QUESTION, sim=True))["id"]
        early = await session.call_tool("debate_result", {"id": run_id})
        cancelled = await call(session, "debate_cancel", id=run_id)
        status = await call(session, "debate_status", id=run_id)
        result = await session.call_tool("debate_result", {"id": run_id})
        again = await session.call_tool("debate_cancel", {"id": run_id})
    assert early.is_error and f"{run_id} is still running (" in text(early)
    assert cancelled == {"id": run_id, "status": "interrupted", "stopped": True}
    assert status["status"] == "interrupted" and status["running"] is False
    # No DECISION: the result says so, and that nobody is to answer in council's place.
    assert result.is_error and result.structured_content["status"] == "interrupted"
    assert result.structured_content["exit_code"] == 130
    assert "No DECISION" in text(result) and "do not answer the question" in text(result)
    assert f"council resume {run_id}" in text(result)
    structured = result.structured_content  # what a host that shows only it tells its model
    assert structured["decision_markdown"] == "" and structured["note"] in text(result)
    assert again.is_error and "is not running (interrupted); nothing to cancel" in text(again)


@pytest.mark.anyio
async def test_the_host_cancelling_a_debate_call_cancels_the_run(project):
    ready = anyio.Event()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if message and "] ready " in message:
            ready.set()  # the seats are up, the run waits on its hung PROPOSAL

    async with serving(project, **HUNG) as session:
        async with anyio.create_task_group() as calls:

            async def debate() -> None:
                await session.call_tool(
                    "debate", {"question": QUESTION, "sim": True}, progress_callback=progress
                )

            calls.start_soon(debate)
            with anyio.fail_after(LIMIT_S):
                await ready.wait()
            calls.cancel_scope.cancel()  # the client sends notifications/cancelled
        statuses = await until_ended(session, "last")
    assert statuses[-1]["status"] == "interrupted"


@pytest.mark.parametrize("gone", ["stdin", "both pipes"])
def test_a_host_that_hangs_up_leaves_the_run_going(project, tmp_path, gone):
    """The host's stdin closes in the middle of a `debate` call (it restarts the server), or
    the host is gone altogether (both pipes: the server's next progress line meets a broken
    pipe): the server ends as normal (exit 0, no "internal error"), the detached run goes on,
    to be followed after a reconnect."""
    with (tmp_path / "server.err").open("w") as errlog:
        server = subprocess.Popen(
            project.argv("mcp"),
            cwd=project.root,
            env=project.env(**HUNG),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
        )

    def send(message: dict[str, Any]) -> None:
        server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        server.stdin.flush()

    def receive() -> dict[str, Any]:
        line = server.stdout.readline()
        assert line, "the server closed stdout"
        return json.loads(line)

    try:
        hello = {"name": "test", "version": "0"}
        version = HANDSHAKE_PROTOCOL_VERSIONS[-1]
        initialize = {"protocolVersion": version, "capabilities": {}, "clientInfo": hello}
        send({"id": 1, "method": "initialize", "params": initialize})
        assert receive()["id"] == 1
        send({"method": "notifications/initialized"})
        arguments = {"question": QUESTION, "sim": True}
        params = {"name": "debate", "arguments": arguments, "_meta": {"progressToken": "p"}}
        send({"id": 2, "method": "tools/call", "params": params})
        while "] ready " not in receive().get("params", {}).get("message", ""):
            pass
        if gone == "both pipes":
            server.stdout.close()
        server.stdin.close()
        assert server.wait(timeout=LIMIT_S) == 0
        assert "internal error" not in (tmp_path / "server.err").read_text()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
    record = Record(project.record())
    assert summarize(record).running  # it outlived the server
    assert cancel_run(record, LIMIT_S) is None
    assert summarize(record).status == "interrupted"


@pytest.mark.anyio
async def test_bad_input_and_unknown_ids_are_tool_errors_with_councils_message(project):
    async with serving(project) as session:
        rounds = await session.call_tool("debate", {"question": QUESTION, "rounds": 9})
        effort = await session.call_tool("debate_start", {"question": QUESTION, "effort": "huge"})
        timeouts = await session.call_tool(
            "debate", {"question": QUESTION, "sim": True, "timeouts": {"sim": 0}}
        )
        missing = await session.call_tool(
            "debate", {"question": QUESTION, "sim": True, "files": ["nope.py"]}
        )
        preset = await session.call_tool(
            "debate_start", {"question": QUESTION, "sim": True, "preset": "fast"}
        )
        unknown = {
            tool: await session.call_tool(tool, {"id": "nope"})
            for tool in ("debate_status", "debate_result", "debate_cancel")
        }
    # The schema's constraints, checked before any tool runs.
    assert rounds.is_error and "rounds" in text(rounds)
    assert "less than or equal to 5" in text(rounds)
    assert effort.is_error and "effort" in text(effort)
    assert timeouts.is_error and "greater than or equal to 1" in text(timeouts)
    # council's own checks, with the message the CLI prints.
    assert missing.is_error and "nope.py: no such file" in text(missing)
    assert preset.is_error and "unknown preset 'fast'" in text(preset)
    for tool, result in unknown.items():
        assert result.is_error, tool
        assert f"no run 'nope' in {project.root / '.scratchpad'}" in text(result)
    assert project.records() == []  # bad input stops before any record exists


@pytest.mark.anyio
async def test_an_argument_a_tool_does_not_take_is_refused_naming_it(project):
    """A misspelt argument (`round`) would otherwise be dropped unseen, and the debate run
    with the default rounds."""
    async with serving(project) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        misspelt = await session.call_tool("debate", {"question": QUESTION, "round": 3})
        extra = await session.call_tool(
            "debate_start", {"question": QUESTION, "sim": True, "cold": True, "verbose": 1}
        )
        status = await session.call_tool("debate_status", {"id": "last", "follow": True})
    assert all(tool.input_schema["additionalProperties"] is False for tool in tools.values())
    assert misspelt.is_error and "debate takes no argument 'round'; it takes question, " in text(
        misspelt
    )
    assert "rounds" in text(misspelt)  # what it takes, to correct the call
    assert extra.is_error and "takes no argument 'cold', 'verbose'" in text(extra)
    assert status.is_error and "debate_status takes no argument 'follow'" in text(status)
    assert project.records() == []  # refused before anything started


@pytest.mark.anyio
async def test_the_config_option_reaches_the_server_and_its_runs(project):
    (project.root / "other.yaml").write_text("debate:\n  rounds: 3\n")
    async with serving(project, "--config", "other.yaml") as session:
        result = await call(session, "debate", question=QUESTION, sim=True)
        status = await call(session, "debate_status", id=result["id"])
    assert result["status"] == "completed"
    assert status["rounds"] == 3


@pytest.mark.anyio
async def test_with_lead_caller_the_result_is_the_decision_prompt_for_the_host(project):
    async with serving(project) as session:
        result = await session.call_tool(
            "debate", {"question": QUESTION, "sim": True, "lead": "caller"}
        )
    assert not result.is_error, text(result)
    answer = text(result)
    assert "## Decision prompt (for the calling agent)" in answer
    assert "## Debate record" not in answer
    assert [s["name"] for s in result.structured_content["seats"]] == ["advocate", "critic"]


@pytest.mark.anyio
async def test_doctor_returns_the_doctor_report(project):
    async with serving(project) as session:
        result = await session.call_tool("doctor", {"timeout_s": 5})
    assert not result.is_error, text(result)
    report = result.structured_content
    assert json.loads(text(result)) == report  # the same report, as `council doctor --json`
    assert {"clis", "can_debate", "usable", "defaults"} <= set(report)
    assert "sim" in {row["name"] for row in report["clis"]}


@pytest.mark.anyio
async def test_a_finished_run_leaves_no_zombie_under_the_long_lived_server(project):
    import psutil

    async with serving(project) as session:
        (server,) = [
            p
            for p in psutil.Process().children()
            if "mcp" in p.cmdline() and "council" in p.cmdline()
        ]
        started = await call(session, "debate_start", question=QUESTION, sim=True)
        await until_ended(session, started["id"])

        # The run's process ends, and is reaped by the server at once, not left a zombie.
        for _ in range(int(LIMIT_S / 0.05)):
            if not server.children():
                break
            await anyio.sleep(0.05)
        assert [(c.pid, c.status()) for c in server.children()] == []


@pytest.mark.anyio
async def test_the_question_is_refused_over_mcp_as_on_the_command_line(project):
    async with serving(project) as session:
        huge = await session.call_tool("debate", {"question": "why? " * 400_000, "sim": True})
        blank = await session.call_tool("debate_start", {"question": "  \n\t ", "sim": True})
        control = await session.call_tool("debate", {"question": "\x1b\x07", "sim": True})
    assert huge.is_error and "over the 16,000 a question may have" in text(huge)
    assert blank.is_error and "the question is empty" in text(blank)
    assert control.is_error and "only control characters" in text(control)
    assert project.records() == []  # nothing started
