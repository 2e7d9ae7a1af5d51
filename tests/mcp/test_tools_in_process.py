"""The tools as the server declares them, called in-process (no stdio, no debate): arguments
a tool does not take, bad CLI names in `models`/`timeouts`, the descriptions that name the
command line's flag, what a started run's reply says, and the status tool's `running` and
next step for each kind of run. docs/spec/commands.md "council mcp"."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from records import bare_run

from council.debate.flags import DebateFlags
from council.errors import UsageError
from council.mcp.arguments import flag_values, tool_options
from council.mcp.follow import HEARTBEAT_S, Follower
from council.mcp.server import Council, Settings, build_server
from council.runs.lock import RecordLock
from council.runs.record import PROGRESS, Record
from report.pages import call, finished_debate


@functools.cache
def server() -> Any:
    return build_server(Settings())  # its tools hold no state between calls that refuse


async def _call(name: str, arguments: dict[str, Any]) -> Any:
    return await server().call_tool(name, arguments)


def refused(name: str, **arguments: Any) -> str:
    """The tool error a call gets, as the host shows it."""
    with pytest.raises(ToolError) as error:
        anyio.run(_call, name, arguments)
    return str(error.value)


@pytest.mark.parametrize(
    ("tool", "takes"),
    [
        ("debate_status", "id, since, scratchpad"),
        ("debate_result", "id, scratchpad"),
        ("review_cancel", "id, scratchpad"),
        ("doctor", "timeout_s"),
    ],
)
def test_an_argument_a_tool_does_not_take_is_refused_naming_it_and_those_it_takes(tool, takes):
    message = refused(tool, round=2, colour="red")
    assert f"{tool} takes no argument 'colour', 'round'; it takes {takes}" in message


def test_every_argument_a_tool_takes_is_accepted_by_its_check():
    # The check lists only the unknown ones: the known ones go on to their own validation.
    message = refused("debate_result", id="")
    assert "takes no argument" not in message and "at least 1 character" in message


@pytest.mark.parametrize("name", ["", " ", "codex:gpt", "a,b", "x=1"])
@pytest.mark.parametrize("what", ["models", "timeouts"])
def test_a_bad_cli_name_in_a_mapping_is_refused_as_the_command_line_would(name, what):
    value = {name: "gpt-5.2"} if what == "models" else {name: 60.0}
    message = refused("debate", question="Redis or Postgres?", **{what: value})
    assert f"bad CLI name '{name}' in {what}: expected a name such as codex" in message


def test_a_good_mapping_becomes_the_flags_pairs():
    given = {o.name: o.default for o in tool_options(DebateFlags)}
    given |= {"models": {"codex": "gpt-5.2"}, "timeouts": {"gemini": 90.0}}
    values = flag_values(DebateFlags, given)
    assert (values["models"], values["timeouts"]) == (("codex:gpt-5.2",), ("gemini=90",))
    with pytest.raises(UsageError):
        flag_values(DebateFlags, {**given, "models": {" ": "x"}})


@functools.cache
def schemas() -> dict[str, dict[str, Any]]:
    async def listed() -> dict[str, dict[str, Any]]:
        tools = await server().list_tools()
        return {tool.name: tool.input_schema for tool in tools}

    return anyio.run(listed)


@pytest.mark.parametrize(
    ("tool", "parameter", "flag"),
    [
        ("debate", "proxies", "--with"),
        ("debate", "models", "--model"),
        ("debate", "timeouts", "--timeout"),
        ("review", "reviewers", "--with"),
    ],
)
def test_a_parameter_named_unlike_its_flag_says_which_flag_it_is(tool, parameter, flag):
    description = schemas()[tool]["properties"][parameter]["description"]
    assert description.endswith(f"(like {flag}).")


@pytest.mark.parametrize("parameter", ["rounds", "files", "preset"])
def test_a_parameter_named_as_its_flag_does_not_repeat_it(parameter):
    description = schemas()["debate"]["properties"][parameter]["description"]
    assert "(like --" not in description and description.endswith(".")


@pytest.mark.parametrize("parameter", ["models", "timeouts"])
def test_a_mapping_parameter_defaults_to_null_and_shows_an_example(parameter):
    schema = schemas()["debate"]["properties"][parameter]
    assert schema["default"] is None
    assert {"type": "null"} in schema["anyOf"]
    assert ", e.g. {" in schema["description"]


@pytest.fixture
def pad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path / ".scratchpad"


@pytest.mark.parametrize("kind", ["debate", "review"])
def test_a_started_run_says_its_id_record_and_the_tools_to_follow_it(pad, kind, monkeypatch):
    record = Record.create(pad, kind)
    council = Council(Settings())
    monkeypatch.setattr(council, "start", lambda _kind, _flags: record)
    result = anyio.run(council.started, kind, object())
    (content,) = result.content
    assert content.text == (
        f"started {record.id} (record .scratchpad/{record.id}/); follow it with "
        f"{kind}_status, then get its result with {kind}_result"
    )
    assert result.structured_content == {"id": record.id, "record": f".scratchpad/{record.id}/"}
    assert result.is_error is False


def status_of(pad: Path, record: Record) -> tuple[dict[str, Any], str]:
    result = Council(Settings())._status(record.id, None, str(pad))
    (content,) = result.content
    return result.structured_content, content.text


def test_a_run_that_ended_but_still_holds_its_record_is_still_running(pad):
    # Its process has written the end but not let go of the record yet: wait for it.
    record = finished_debate(pad, call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]))
    lock = RecordLock.acquire(record.path)
    try:
        data, text = status_of(pad, record)
    finally:
        lock.release()
    assert data["running"] is True
    assert text.splitlines()[-1] == "still running: call debate_status again"
    data, text = status_of(pad, record)
    assert data["running"] is False
    assert text.splitlines()[-1] == "ended: call debate_result for its result"


def test_the_status_of_an_ended_check_names_check_result(pad):
    record = bare_run(pad, "check", "completed")
    data, text = status_of(pad, record)
    assert data["running"] is False and data["status"] == "completed"
    assert text.splitlines()[-1] == "ended: call check_result for its result"


def test_lines_told_put_off_the_next_heartbeat(pad):
    record = bare_run(pad, "debate", "running")
    now = [1000.0]
    lock = RecordLock.acquire(record.path)
    try:
        follower = Follower(record, clock=lambda: now[0])
        now[0] += HEARTBEAT_S - 1
        with record.file(PROGRESS).open("a") as out:
            out.write("[00:14] CHALLENGE critic ok\n")
        assert follower.poll() == (["[00:14] CHALLENGE critic ok"], True)
        now[0] += HEARTBEAT_S - 1  # quiet since the line, not since the start
        assert follower.poll() == ([], True)
        now[0] += 1
        (heartbeat,), running = follower.poll()
        assert running and heartbeat.startswith(f"{record.id} running · CHALLENGE round 1")
    finally:
        lock.release()


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("doctor", {"timeout_s": 0.1}, "greater than or equal to 0.5"),
        ("debate_status", {"id": "last", "since": -1}, "greater than or equal to 0"),
        ("debate_result", {"id": ""}, "at least 1 character"),
    ],
)
def test_an_argument_out_of_its_bounds_is_refused_by_the_schema(tool, arguments, says):
    message = refused(tool, **arguments)
    assert says in message and f"{tool}Arguments" in message


def test_the_scratchpad_argument_is_where_the_run_is_looked_for(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # its own .scratchpad is empty
    elsewhere = tmp_path / "ci-artifacts"
    record = finished_debate(elsewhere, call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]))
    council = Council(Settings())
    data = council._status(record.id, None, str(elsewhere)).structured_content
    assert data["id"] == record.id and data["status"] == "completed"
    with pytest.raises(UsageError):
        council._status(record.id, None, None)


@pytest.mark.parametrize(
    ("outbound", "cancelled"),
    [("set", True), ("unset", False), ("missing", True)],
)
def test_only_a_host_that_asked_to_cancel_stops_the_run(outbound, cancelled):
    from types import SimpleNamespace

    from council.mcp.server import host_cancelled

    event = anyio.Event()
    if outbound == "set":
        event.set()
    session = SimpleNamespace()
    if outbound != "missing":
        session._request_outbound = SimpleNamespace(cancel_requested=event)
    ctx = SimpleNamespace(request_context=SimpleNamespace(session=session))
    # When the SDK's private names move, every cancellation counts as the host's.
    assert host_cancelled(ctx) is cancelled
