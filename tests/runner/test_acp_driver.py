"""council's ACP client (`runner/acp.py`) against an agent scripted in process: what it
declares in the handshake, the session it opens (in the room, put in the read-only mode or
never prompted), the answer a prompt turn gives, what a cancel sends, and what it answers the
agent's own requests: every permission refused, nothing else served."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.adapters import adapter_for
from council.adapters.base import Status, Usage
from council.adapters.warm import AcpOptions, ProtocolError, WarmTurn, WorkerGone
from council.runner.acp import AcpDriver

pytestmark = pytest.mark.anyio

ROOM = Path("/rooms/critic")
PROMPT = "ACTION: CHALLENGE\nIs the parser safe?\n"
PLAN = AcpOptions(mode="plan")
NO_FILES = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
CAN_CLOSE = {"sessionCapabilities": {"close": {}}}
WRITE = {"sessionId": "s1", "toolCall": {"toolCallId": "t1", "title": "WriteFile: notes.txt"}}


@dataclass(frozen=True)
class Refuse:
    """A JSON-RPC error the agent answers a request with."""

    code: int
    message: str
    data: Any = None


@dataclass(frozen=True)
class Hold:
    """No answer (yet): council waits."""


@dataclass(frozen=True)
class Prompt:
    """How the agent runs a prompt turn: the requests it makes of council first (each after
    council answered the one before), then its session updates, then the prompt's result."""

    asks: tuple[dict[str, Any], ...] = ()
    updates: tuple[dict[str, Any], ...] = ()
    result: Any = field(default_factory=lambda: {"stopReason": "end_turn"})


def chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


ANSWER = Prompt(updates=(chunk("It is "), chunk("safe.")))


class Agent:
    """An ACP agent on the other end of the channel, scripted by what it answers each method
    council may call. Strict: a method it has no answer for gets `Method not found`, and it
    has nothing more to say once its script ran out (`WorkerGone`, unless it holds an
    answer back)."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers: dict[str, Any] = {
            "initialize": {
                "protocolVersion": 1,
                "agentInfo": {"name": "agent", "version": "0.61.0"},
                "agentCapabilities": {},
            },
            "session/new": {"sessionId": "s1", "modes": {"currentModeId": "plan"}},
            "session/prompt": ANSWER,
            **(answers or {}),
        }
        self.sent: list[dict[str, Any]] = []  # everything council sent, in order
        self.replies: list[dict[str, Any]] = []  # council's answers to the agent's requests
        self.holding = anyio.Event()  # set once the agent holds an answer back
        self._inbox: deque[dict[str, Any]] = deque()
        self._arrived = anyio.Event()
        self._asks: deque[dict[str, Any]] = deque()
        self._after_asks: list[dict[str, Any]] = []
        self._prompt_id: Any = None

    def requests(self, method: str) -> list[Any]:
        """The params of every request or notification of `method` council sent."""
        return [m.get("params") for m in self.sent if m.get("method") == method]

    def methods(self) -> list[str]:
        return [m["method"] for m in self.sent if "method" in m]

    # the Channel

    async def send(self, message: dict[str, Any]) -> None:
        assert message.get("jsonrpc") == "2.0", message
        self.sent.append(message)
        method = message.get("method")
        if method is None:
            self.replies.append(message)
            self._next_ask()
        elif "id" not in message:
            if method == "session/cancel" and self._prompt_id is not None:
                self._put({"id": self._prompt_id, "result": {"stopReason": "cancelled"}})
        else:
            self._answer(message["id"], method, message.get("params"))

    async def receive(self) -> dict[str, Any]:
        while not self._inbox:
            if not self.holding.is_set():
                raise WorkerGone("the scripted agent has nothing more to say")
            self._arrived = anyio.Event()
            await self._arrived.wait()
        return self._inbox.popleft()

    # the script

    def _put(self, message: dict[str, Any]) -> None:
        self._inbox.append({"jsonrpc": "2.0", **message})
        self._arrived.set()

    def _answer(self, ident: Any, method: str, params: Any) -> None:
        answer = self.answers.get(method, Refuse(-32601, f"Method not found: {method}"))
        if isinstance(answer, Hold):
            if method == "session/prompt":
                self._prompt_id = ident
            self.holding.set()
        elif isinstance(answer, Refuse):
            self._put(_error(ident, answer))
        elif isinstance(answer, Prompt):
            sid = params["sessionId"]
            updates = [
                {"method": "session/update", "params": {"sessionId": sid, "update": u}}
                for u in answer.updates
            ]
            end = (
                _error(ident, answer.result)
                if isinstance(answer.result, Refuse)
                else {"id": ident, "result": answer.result}
            )
            self._asks.extend(answer.asks)
            self._after_asks = [*updates, end]
            self._next_ask()
        else:
            self._put({"id": ident, "result": answer})

    def _next_ask(self) -> None:
        if self._asks:
            self._put(self._asks.popleft())
        elif self._after_asks:
            for message in self._after_asks:
                self._put(message)
            self._after_asks = []


def _error(ident: Any, refusal: Refuse) -> dict[str, Any]:
    error: dict[str, Any] = {"code": refusal.code, "message": refusal.message}
    if refusal.data is not None:
        error["data"] = refusal.data
    return {"id": ident, "error": error}


def asking(*asks: dict[str, Any]) -> Agent:
    """An agent that asks council `asks` in its prompt turn, then answers."""
    return Agent({"session/prompt": Prompt(asks=asks, updates=ANSWER.updates)})


def driver(options: AcpOptions = PLAN, vendor: str = "gemini") -> AcpDriver:
    return AcpDriver(options, adapter_for(vendor).acp_verdict)


async def call(
    agent: Agent, options: AcpOptions = PLAN, vendor: str = "gemini", prompt: str = PROMPT
) -> WarmTurn:
    """One warm call as the runner makes it: the handshake, then a turn."""
    acp = driver(options, vendor)
    await acp.handshake(agent)
    return await acp.turn(agent, prompt, ROOM)


def permission(options: Any, ident: Any = "perm-7") -> dict[str, Any]:
    params = dict(WRITE) if options is None else {**WRITE, "options": options}
    return {"id": ident, "method": "session/request_permission", "params": params}


def option(kind: str, option_id: str) -> dict[str, str]:
    return {"kind": kind, "name": option_id.title(), "optionId": option_id}


# What council answers the agent's requests


@pytest.mark.parametrize(
    ("options", "chosen"),
    [
        (
            [
                option("allow_once", "approve"),
                option("allow_always", "approve_for_session"),
                option("reject_once", "reject"),
            ],
            "reject",
        ),
        ([option("reject_always", "never"), option("allow_once", "yes")], "never"),
        (
            [
                "reject_once",
                option("allow_always", "always"),
                option("reject_always", "no-forever"),
                option("reject_once", "no"),
            ],
            "no-forever",
        ),
    ],
    ids=["allow-first", "reject-always", "first-reject"],
)
async def test_a_permission_the_agent_asks_for_is_refused_by_its_reject_option(options, chosen):
    agent = asking(permission(options))
    turn = await call(agent)
    assert agent.replies == [
        {
            "jsonrpc": "2.0",
            "id": "perm-7",
            "result": {"outcome": {"outcome": "selected", "optionId": chosen}},
        }
    ]
    assert turn.verdict.status is Status.OK
    assert turn.verdict.text == "It is safe."


@pytest.mark.parametrize(
    "options",
    [
        [option("allow_once", "approve"), option("allow_always", "approve_for_session")],
        [],
        None,  # no options at all
        {"kind": "reject_once", "optionId": "reject"},  # not a list
        ["reject_once", 3],
    ],
    ids=["only-allow", "empty", "missing", "not-a-list", "not-options"],
)
async def test_a_permission_with_no_reject_option_is_withdrawn(options):
    agent = asking(permission(options, 12))
    turn = await call(agent)
    assert agent.replies == [
        {"jsonrpc": "2.0", "id": 12, "result": {"outcome": {"outcome": "cancelled"}}}
    ]
    assert turn.verdict.text == "It is safe."


async def test_every_permission_of_a_turn_is_refused_each_under_its_own_id():
    asks = (
        permission([option("allow_once", "go"), option("reject_once", "stop")], 1),
        permission([option("allow_always", "go")], 2),
        permission([option("reject_always", "halt")], 3),
    )
    agent = asking(*asks)
    await call(agent)
    assert [(r["id"], r["result"]["outcome"]) for r in agent.replies] == [
        (1, {"outcome": "selected", "optionId": "stop"}),
        (2, {"outcome": "cancelled"}),
        (3, {"outcome": "selected", "optionId": "halt"}),
    ]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("fs/write_text_file", {"sessionId": "s1", "path": "/rooms/critic/x.py", "content": "rm"}),
        ("fs/read_text_file", {"sessionId": "s1", "path": "/etc/passwd"}),
        ("terminal/create", {"sessionId": "s1", "command": "rm", "args": ["-rf", "/"]}),
        ("session/request_permissions", {"sessionId": "s1", "options": []}),
    ],
)
async def test_anything_else_the_agent_asks_of_council_is_refused_with_an_error(method, params):
    agent = asking({"id": 40, "method": method, "params": params})
    turn = await call(agent)
    assert agent.replies == [
        {
            "jsonrpc": "2.0",
            "id": 40,
            "error": {"code": -32601, "message": f"council does not serve {method}"},
        }
    ]
    assert turn.verdict.text == "It is safe."


# The handshake


async def test_the_handshake_declares_protocol_1_and_no_file_system_and_no_terminal():
    agent = Agent()
    await driver().handshake(agent)
    assert agent.requests("initialize") == [{"protocolVersion": 1, "clientCapabilities": NO_FILES}]


@pytest.mark.parametrize(
    ("result", "version"),
    [
        ({"agentInfo": {"name": "gemini-cli", "version": "0.61.0"}}, "0.61.0"),
        ({"agentInfo": {"name": "qwen-code", "version": 7}}, "7"),
        ({"agentInfo": {"name": "gemini-cli"}}, None),
        ({"agentInfo": {"name": "gemini-cli", "version": ""}}, None),
        ({"protocolVersion": 1}, None),
        (None, None),
        (["not", "an", "object"], None),
    ],
)
async def test_the_handshake_tells_the_version_the_agent_names_and_none_otherwise(result, version):
    assert await driver().handshake(Agent({"initialize": result})) == version


@pytest.mark.parametrize(
    ("close", "capabilities", "closed"),
    [
        (True, CAN_CLOSE, True),
        (True, {"sessionCapabilities": {"resume": {}}}, False),
        (True, {"loadSession": True}, False),
        (True, {"close": {}}, False),  # not under sessionCapabilities
        (False, CAN_CLOSE, False),
    ],
    ids=["offered", "other-capability", "none", "misplaced", "not-wanted"],
)
async def test_a_session_is_closed_after_its_turn_only_where_wanted_and_offered(
    close, capabilities, closed
):
    agent = Agent(
        {
            "initialize": {"protocolVersion": 1, "agentCapabilities": capabilities},
            "session/close": {},
        }
    )
    turn = await call(agent, AcpOptions(mode="plan", close=close))
    assert agent.requests("session/close") == ([{"sessionId": "s1"}] if closed else [])
    assert turn.verdict.text == "It is safe."


async def test_a_session_the_agent_will_not_close_still_gives_its_answer():
    agent = Agent(
        {
            "initialize": {"protocolVersion": 1, "agentCapabilities": CAN_CLOSE},
            "session/close": Refuse(-32602, "unknown session"),
        }
    )
    turn = await call(agent, AcpOptions(mode="plan", close=True))
    assert agent.methods()[-1] == "session/close"
    assert turn.verdict.status is Status.OK
    assert turn.verdict.text == "It is safe."


# The session


async def test_a_session_opens_in_the_room_with_no_mcp_server():
    agent = Agent()
    await call(agent)
    assert agent.requests("session/new") == [{"cwd": str(ROOM), "mcpServers": []}]
    assert agent.requests("session/prompt") == [
        {"sessionId": "s1", "prompt": [{"type": "text", "text": PROMPT}]}
    ]


async def test_a_session_the_agent_refuses_to_open_is_read_by_the_adapter():
    agent = Agent({"session/new": Refuse(401, '{"error": {"code": 401, "message": "no key"}}')})
    turn = await call(agent)
    assert turn.verdict.status is Status.AUTH
    assert "session/prompt" not in agent.methods()


@pytest.mark.parametrize("answer", [None, {}, {"sessionId": 5}, ["s1"]])
async def test_a_session_opened_without_an_id_is_a_protocol_error(answer):
    agent = Agent({"session/new": answer})
    with pytest.raises(ProtocolError, match=r"^session/new answered without a sessionId$"):
        await call(agent)
    assert "session/prompt" not in agent.methods()


IN_PLAN = [
    {"sessionId": "s1", "modes": {"currentModeId": "plan", "availableModes": []}},
    {
        "sessionId": "s1",
        "configOptions": [
            "mode",
            {"type": "select", "id": "model", "currentValue": "k2"},
            {"type": "select", "id": "mode", "currentValue": "plan"},
        ],
    },
]


@pytest.mark.parametrize("session", IN_PLAN, ids=["modes", "config-options"])
async def test_a_session_already_in_the_read_only_mode_is_prompted_as_it_is(session):
    # The agent has no session/set_mode: asking it would fail the call.
    agent = Agent({"session/new": session})
    turn = await call(agent)
    assert agent.methods() == ["initialize", "session/new", "session/prompt"]
    assert turn.verdict.text == "It is safe."


NOT_IN_PLAN = [
    {"sessionId": "s1", "modes": {"currentModeId": "default"}},
    {"sessionId": "s1", "modes": {"availableModes": [{"id": "plan"}]}},
    {"sessionId": "s1", "configOptions": [{"id": "mode", "currentValue": "default"}]},
    {"sessionId": "s1", "configOptions": [{"id": "mode"}]},
    {"sessionId": "s1", "configOptions": [{"id": "model", "currentValue": "plan"}]},
    {"sessionId": "s1"},
]


@pytest.mark.parametrize("session", NOT_IN_PLAN)
async def test_a_session_in_another_mode_is_put_in_the_read_only_mode_before_its_prompt(session):
    agent = Agent({"session/new": session, "session/set_mode": {}})
    turn = await call(agent)
    assert agent.methods() == ["initialize", "session/new", "session/set_mode", "session/prompt"]
    assert agent.requests("session/set_mode") == [{"sessionId": "s1", "modeId": "plan"}]
    assert turn.verdict.text == "It is safe."


async def test_an_agent_that_refuses_the_read_only_mode_is_never_prompted():
    agent = Agent(
        {
            "session/new": {"sessionId": "s1", "modes": {"currentModeId": "default"}},
            "session/set_mode": Refuse(-32602, "Invalid params: mode 'plan'"),
        }
    )
    with pytest.raises(ProtocolError) as refused:
        await call(agent)
    assert str(refused.value) == (
        "the agent refused its read-only mode 'plan': -32602: Invalid params: mode 'plan'"
    )
    assert "session/prompt" not in agent.methods()


async def test_an_agent_with_no_read_only_mode_to_enter_is_prompted_as_it_is():
    agent = Agent({"session/new": {"sessionId": "s1", "modes": {"currentModeId": "default"}}})
    turn = await call(agent, AcpOptions(), "kimi")
    assert agent.methods() == ["initialize", "session/new", "session/prompt"]
    assert turn.verdict.text == "It is safe."


# The prompt turn


async def test_the_answer_is_the_agents_text_chunks_joined():
    updates = (
        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}},
        chunk("It is "),
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "image", "data": "AA"}},
        chunk("safe."),
    )
    turn = await call(Agent({"session/prompt": Prompt(updates=updates)}))
    assert turn.verdict.status is Status.OK
    assert turn.verdict.text == "It is safe."


async def test_the_usage_qwen_reports_in_its_updates_is_the_calls_usage():
    used = [{"inputTokens": 1200, "outputTokens": 30}, {"inputTokens": 1300, "outputTokens": 12}]
    updates = (
        {**chunk("It is "), "_meta": {"usage": used[0]}},
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "_meta": {"usage": used[1]}},
        chunk("safe."),
    )
    turn = await call(Agent({"session/prompt": Prompt(updates=updates)}), vendor="qwen")
    assert turn.verdict.text == "It is safe."
    assert turn.verdict.usage == Usage(2500, 42)


async def test_the_usage_gemini_reports_in_the_prompts_result_is_the_calls_usage():
    tokens = {"input_tokens": 1200, "output_tokens": 30}
    result = {"stopReason": "end_turn", "_meta": {"quota": {"token_count": tokens}}}
    turn = await call(Agent({"session/prompt": Prompt(updates=ANSWER.updates, result=result)}))
    assert turn.verdict.text == "It is safe."
    assert turn.verdict.usage == Usage(1200)


async def test_a_prompt_the_agent_fails_is_read_by_the_adapter():
    refused = Refuse(429, "Resource has been exhausted (e.g. check quota).")
    turn = await call(Agent({"session/prompt": Prompt(updates=(chunk("It"),), result=refused)}))
    assert turn.verdict.status is Status.RATE_LIMITED
    assert turn.verdict.detail == "429 Resource has been exhausted (e.g. check quota)."


# Cancelling


async def test_a_cancel_stops_the_prompt_in_flight():
    agent = Agent({"session/prompt": Hold()})
    acp = driver()
    await acp.handshake(agent)
    turns: list[WarmTurn] = []
    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            turns.append(await acp.turn(agent, PROMPT, ROOM))

        tg.start_soon(ask)
        await agent.holding.wait()
        await acp.cancel(agent)
    assert agent.requests("session/cancel") == [{"sessionId": "s1"}]
    assert turns[0].verdict.detail == "the session stopped early (cancelled)"


@pytest.mark.parametrize("held", ["session/new", "session/close"])
async def test_a_cancel_with_no_prompt_in_flight_sends_nothing(held):
    """The hard limit can pass while the session opens or closes: there is no prompt to
    stop, and no session to name."""
    agent = Agent(
        {
            "initialize": {"protocolVersion": 1, "agentCapabilities": CAN_CLOSE},
            held: Hold(),
        }
    )
    acp = driver(AcpOptions(mode="plan", close=True))
    await acp.handshake(agent)
    async with anyio.create_task_group() as tg:
        tg.start_soon(acp.turn, agent, PROMPT, ROOM)
        await agent.holding.wait()
        await acp.cancel(agent)
        tg.cancel_scope.cancel()
    assert agent.methods()[-1] == held
    assert agent.requests("session/cancel") == []


class StaleChunks(Agent):
    """An agent that still streams a chunk of an earlier session (one cancelled at its hard
    limit) while the new session's prompt runs."""

    def _answer(self, ident: Any, method: str, params: Any) -> None:
        if method == "session/prompt":
            stale = {"sessionId": "s0", "update": chunk("An answer to another question. ")}
            self._put({"method": "session/update", "params": stale})
        super()._answer(ident, method, params)


async def test_a_chunk_of_another_session_is_not_taken_into_the_answer():
    turn = await call(StaleChunks())
    assert turn.verdict.status is Status.OK
    assert turn.verdict.text == "It is safe."
