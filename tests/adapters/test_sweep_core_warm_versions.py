"""The shared part of a warm seat (`adapters/warm.py`; docs/adr/007-warm-seat-workers.md):
JSON-RPC over the worker's stdio as council speaks it, how an ACP turn's end is read (an
answer, empty, an early stop, a failure by the CLI's own patterns), lean mode switched off per
CLI, and the replacement every 15 sessions (outputs.md). And the version helpers' edges
(clis.md "Versions"): a version gate on a two-part version, a range with no bounds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, Status, Tool, Usage
from council.adapters.versions import KnownBroken, same_version, version_at_least
from council.adapters.warm import (
    AcpOutcome,
    JsonRpc,
    LeanStart,
    RpcError,
    WarmLaunch,
    WorkerGone,
    answer_verdict,
    warm_mode,
)

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: should the session cache live in Redis or Postgres?\n"


class Worker:
    """A worker's stdio: council's messages are recorded; what the worker prints is given."""

    def __init__(self, printed: list[dict[str, Any]]) -> None:
        self.printed = list(printed)
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: Mapping[str, Any]) -> None:
        self.sent.append(dict(message))

    async def receive(self) -> dict[str, Any]:
        if not self.printed:
            raise WorkerGone("stdout ended")
        return self.printed.pop(0)


# -- JSON-RPC as council speaks it ----------------------------------------------------------


async def test_a_request_waits_for_its_own_answer_serving_what_comes_before_it():
    worker = Worker(
        [
            {"jsonrpc": "2.0", "method": "session/update", "params": {"n": 1}},
            {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file", "params": {}},
            {"jsonrpc": "2.0", "id": 99, "result": "late answer to a cancelled request"},
            {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s-1"}},
        ]
    )
    seen: list[dict] = []

    async def note(message: dict) -> None:
        seen.append(message)

    rpc = JsonRpc(worker)
    result = await rpc.request("session/new", {"cwd": "/room"}, note)
    assert result == {"sessionId": "s-1"}
    assert seen == [{"jsonrpc": "2.0", "method": "session/update", "params": {"n": 1}}]
    assert worker.sent == [
        {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/room"}},
        # the worker's own request is refused: council serves no file system
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32601, "message": "council does not serve fs/read_text_file"},
        },
    ]


async def test_each_request_has_a_new_id_and_a_codex_style_channel_has_no_jsonrpc_field():
    worker = Worker([{"id": 1, "result": None}, {"id": 2, "result": 5}])
    rpc = JsonRpc(worker, stamp=False)
    assert await rpc.request("a", {}) is None
    assert await rpc.request("b", {"x": 1}) == 5
    await rpc.notify("initialized", {})
    await rpc.post("turn/interrupt", {"turn": "t"})
    assert worker.sent == [
        {"id": 1, "method": "a", "params": {}},
        {"id": 2, "method": "b", "params": {"x": 1}},
        {"method": "initialized", "params": {}},
        {"id": 3, "method": "turn/interrupt", "params": {"turn": "t"}},
    ]


async def test_an_error_answer_raises_with_everything_it_says():
    worker = Worker(
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32603,
                    "message": "Internal error",
                    "data": {"details": "429 Too Many Requests", "status": 429, "ok": [1]},
                },
            }
        ]
    )
    with pytest.raises(RpcError) as raised:
        await JsonRpc(worker).request("session/prompt", {})
    error = raised.value
    assert (error.code, error.message) == (-32603, "Internal error")
    assert error.text == "-32603 Internal error 429 Too Many Requests 429"
    assert RpcError(500, "boom", "trace").text == "500 boom trace"


async def test_a_worker_that_dies_mid_request_ends_it():
    with pytest.raises(WorkerGone):
        await JsonRpc(Worker([])).request("initialize", {})


async def test_pump_serves_requests_and_notifications_until_told_to_stop():
    worker = Worker(
        [
            {"jsonrpc": "2.0", "id": 4, "result": "a late response"},
            {"jsonrpc": "2.0", "id": 5, "method": "session/request_permission", "params": {}},
            {"jsonrpc": "2.0", "method": "session/update", "params": {"done": True}},
            {"jsonrpc": "2.0", "method": "session/update", "params": {"never": "read"}},
        ]
    )
    seen: list[dict] = []

    async def note(message: dict) -> None:  # a handler may be a coroutine: it is awaited
        seen.append(message)

    await JsonRpc(worker).pump(lambda: bool(seen), note)
    assert seen == [{"jsonrpc": "2.0", "method": "session/update", "params": {"done": True}}]
    assert [m.get("id") for m in worker.sent] == [5]
    assert worker.sent[0]["error"]["code"] == -32601
    assert len(worker.printed) == 1  # stopped as soon as it was told


async def test_a_served_request_is_answered_by_the_handler_not_refused():
    async def grant(rpc: JsonRpc, message: dict) -> None:
        await rpc.respond(message["id"], {"outcome": "cancelled"})

    worker = Worker(
        [
            {"jsonrpc": "2.0", "id": 9, "method": "session/request_permission", "params": {}},
            {"jsonrpc": "2.0", "id": 1, "result": {}},
        ]
    )
    await JsonRpc(worker, on_request=grant).request("session/prompt", {})
    assert worker.sent[1] == {"jsonrpc": "2.0", "id": 9, "result": {"outcome": "cancelled"}}


# -- how an ACP turn's end is read (qwen reads it the shared way) -----------------------------


@pytest.mark.parametrize("stop", ["end_turn", "max_tokens", "max_turn_requests"])
def test_a_turn_that_ended_with_text_is_an_answer(stop):
    outcome = AcpOutcome(stop_reason=stop, text="  Postgres, with a TTL index.\n")
    verdict = adapter_for("qwen").acp_verdict(outcome, PROMPT).verdict
    assert (verdict.status, verdict.text) == (Status.OK, "Postgres, with a TTL index.")


@pytest.mark.parametrize("stop", ["cancelled", "refusal", None])
def test_a_turn_stopped_before_its_end_is_an_error_naming_why(stop):
    outcome = AcpOutcome(stop_reason=stop, text="half an ans")
    verdict = adapter_for("qwen").acp_verdict(outcome, PROMPT).verdict
    assert (verdict.status, verdict.detail) == (
        Status.ERROR,
        f"the session stopped early ({stop})",
    )


@pytest.mark.parametrize(
    ("details", "status"),
    [
        ("429 Too Many Requests", Status.RATE_LIMITED),
        ("401 Incorrect API key provided", Status.AUTH),
    ],
)
def test_a_turn_refused_by_the_model_is_read_by_the_clis_failure_patterns(details, status):
    error = RpcError(-32603, "Internal error", {"details": details})
    verdict = adapter_for("qwen").acp_verdict(AcpOutcome(None, "", error), PROMPT).verdict
    assert verdict.status is status


def test_any_other_reported_error_is_an_error_quoting_the_cli():
    error = RpcError(-32603, "Internal error", {"details": "socket hang up"})
    verdict = adapter_for("qwen").acp_verdict(AcpOutcome(None, "", error), PROMPT).verdict
    assert (verdict.status, verdict.detail) == (
        Status.ERROR,
        "the CLI reported an error: -32603 Internal error socket hang up",
    )


def test_a_warm_turn_with_no_answer_or_an_echo_is_empty_and_keeps_its_usage():
    usage = Usage(1200, 0)
    nothing = answer_verdict("  \n", PROMPT, usage)
    assert (nothing.status, nothing.detail, nothing.usage) == (
        Status.EMPTY,
        "the session ended with no answer",
        usage,
    )
    echo = answer_verdict(PROMPT, PROMPT, usage)
    assert (echo.status, echo.detail, echo.usage) == (
        Status.EMPTY,
        "the output only echoes the prompt",
        usage,
    )
    answer = answer_verdict("Redis.\n", PROMPT, usage)
    assert (answer.status, answer.text, answer.usage) == (Status.OK, "Redis.", usage)


# -- lean and recycling ---------------------------------------------------------------------


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini", "qwen"])
def test_lean_false_in_the_config_starts_the_worker_with_its_tools(tmp_path, cli):
    lean = LeanStart("You are a seat.", tmp_path)
    off = adapter_for(cli, {cli: CliSettings(name=cli, adapter=cli, lean=False)})
    on = adapter_for(cli)
    assert off.lean_start(lean) is None and on.lean_start(lean) == lean
    tool = Tool(cli, (cli,), on.tested()[0])
    assert warm_mode(off).warm_launch(tool, model=None, effort=None, lean=lean).lean is False
    assert warm_mode(on).warm_launch(tool, model=None, effort=None, lean=lean).lean is True


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini", "qwen", "kimi", "pi"])
def test_a_worker_is_replaced_after_15_sessions(cli):
    adapter = adapter_for(cli)
    version = adapter.tested()[-1]
    variant = "kimi-code" if cli == "kimi" else None
    launch = warm_mode(adapter).warm_launch(
        Tool(cli, (cli,), version, variant), model=None, effort=None
    )
    assert launch.recycle_after == 15
    assert WarmLaunch(argv=("x",)).recycle_after == 15


def test_the_simulator_has_no_warm_mode():
    assert warm_mode(adapter_for("sim")) is None


# -- version helpers' edges ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minimum", "at_least"),
    [
        ("2.1", (2, 1, 0), True),  # 2.1 is 2.1.0
        ("2.1.0", (2, 1), True),
        ("2.0.9", (2, 1), False),
        ("10.0", (9, 9, 9), True),
    ],
)
def test_a_version_gate_reads_missing_parts_as_zero(text, minimum, at_least):
    assert version_at_least(text, minimum) is at_least


def test_a_known_broken_entry_with_no_bounds_is_every_release():
    entry = KnownBroken("it cannot answer", "use another CLI")
    assert entry.versions == "every release"
    assert entry.applies("0.0.1") and entry.applies("99.0")
    assert not entry.applies(None)
    assert entry.warning("mine", "1.0") == (
        "mine 1.0 is a known-broken release (every release): it cannot answer; use another CLI"
    )


def test_a_range_holds_its_first_broken_release_and_not_its_first_fixed_one():
    entry = KnownBroken("drops the last line", "upgrade", since=(1, 52, 0), before=(1, 60, 0))
    got = {v: entry.applies(v) for v in ("1.51.9", "1.52.0", "1.59.9", "1.60.0")}
    assert got == {"1.51.9": False, "1.52.0": True, "1.59.9": True, "1.60.0": False}


def test_a_release_candidate_is_not_its_release_for_tested_but_is_for_gates():
    assert not same_version("1.52.0rc1", "1.52.0")
    assert version_at_least("1.52.0rc1", (1, 52))
