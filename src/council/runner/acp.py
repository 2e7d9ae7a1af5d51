"""An Agent Client Protocol (ACP) client: one protocol, several vendors' persistent modes
(gemini and qwen `--acp`, kimi-cli and kimi-code `kimi acp`).

Per call: `session/new` with the seat's room as its cwd (a new session has no history), the
read-only mode the adapter names (checked, set if the agent did not start in it, and the
prompt never sent otherwise), `session/prompt`, the agent's message chunks joined into the
answer, `session/close` where the agent offers it. council serves no file system and no
terminal (its capabilities say so) and refuses every permission the agent asks for, so a
tool that would write never runs. How the prompt ended is read by the adapter
(`WarmMode.acp_verdict`): the agents report errors each their own way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from council.adapters.warm import (
    AcpOptions,
    AcpOutcome,
    Channel,
    JsonRpc,
    ProtocolError,
    RpcError,
    SessionDriver,
    WarmTurn,
)

PROTOCOL_VERSION = 1
CLIENT_CAPABILITIES = {
    "fs": {"readTextFile": False, "writeTextFile": False},
    "terminal": False,
}
_REJECT_KINDS = ("reject_once", "reject_always")


class AcpDriver(SessionDriver):
    def __init__(self, options: AcpOptions, verdict: Callable[[AcpOutcome, str], WarmTurn]) -> None:
        self.options = options
        self.verdict = verdict
        self._rpc: JsonRpc | None = None
        self._can_close = False
        self._session: str | None = None  # the session of the prompt in flight

    def _client(self, channel: Channel) -> JsonRpc:
        if self._rpc is None:
            self._rpc = JsonRpc(channel, on_request=_answer_agent)
        return self._rpc

    async def handshake(self, channel: Channel) -> str | None:
        result = await self._client(channel).request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "clientCapabilities": CLIENT_CAPABILITIES},
        )
        result = result if isinstance(result, Mapping) else {}
        capabilities = _mapping(result.get("agentCapabilities"))
        self._can_close = self.options.close and "close" in _mapping(
            capabilities.get("sessionCapabilities")
        )
        version = _mapping(result.get("agentInfo")).get("version")
        return str(version) if version else None

    async def turn(self, channel: Channel, prompt: str, room: Path) -> WarmTurn:
        rpc = self._client(channel)
        try:
            session = await rpc.request("session/new", {"cwd": str(room), "mcpServers": []})
        except RpcError as exc:
            # Refused before any model call (kimi-cli without a login): the adapter reads it.
            return self.verdict(AcpOutcome(None, "", error=exc), prompt)
        session = session if isinstance(session, Mapping) else {}
        sid = session.get("sessionId")
        if not isinstance(sid, str):
            raise ProtocolError("session/new answered without a sessionId")
        try:
            await self._enter_mode(rpc, sid, session)
            return await self._prompt(rpc, sid, prompt)
        finally:
            if self._can_close:
                with suppress(RpcError):  # closing is housekeeping: the answer is in
                    await rpc.request("session/close", {"sessionId": sid})

    async def _enter_mode(self, rpc: JsonRpc, sid: str, session: Mapping[str, Any]) -> None:
        wanted = self.options.mode
        if wanted is None or _current_mode(session) == wanted:
            return
        try:
            await rpc.request("session/set_mode", {"sessionId": sid, "modeId": wanted})
        except RpcError as exc:
            raise ProtocolError(f"the agent refused its read-only mode {wanted!r}: {exc}") from exc

    async def _prompt(self, rpc: JsonRpc, sid: str, prompt: str) -> WarmTurn:
        chunks: list[str] = []
        metas: list[Mapping[str, Any]] = []

        def on_update(message: dict[str, Any]) -> None:
            if message.get("method") != "session/update":
                return
            params = _mapping(message.get("params"))
            if params.get("sessionId") != sid:
                return
            update = _mapping(params.get("update"))
            if meta := _mapping(update.get("_meta")):
                metas.append(meta)
            if update.get("sessionUpdate") == "agent_message_chunk":
                content = _mapping(update.get("content"))
                if content.get("type") == "text":
                    chunks.append(str(content.get("text", "")))

        self._session = sid
        try:
            result = await rpc.request(
                "session/prompt",
                {"sessionId": sid, "prompt": [{"type": "text", "text": prompt}]},
                on_update,
            )
        except RpcError as exc:
            outcome = AcpOutcome(None, "".join(chunks), error=exc, update_meta=tuple(metas))
        else:
            result = _mapping(result)
            outcome = AcpOutcome(
                str(result.get("stopReason")),
                "".join(chunks),
                meta=_mapping(result.get("_meta")),
                update_meta=tuple(metas),
            )
        finally:
            self._session = None
        return self.verdict(outcome, prompt)

    async def cancel(self, channel: Channel) -> None:
        if self._session is not None:
            await self._client(channel).notify("session/cancel", {"sessionId": self._session})


async def _answer_agent(rpc: JsonRpc, message: dict[str, Any]) -> None:
    """What an agent asks of council: every permission is refused; nothing else is served."""
    if message.get("method") != "session/request_permission":
        await rpc.refuse(message)
        return
    options = _mapping(message.get("params")).get("options")
    choices = [o for o in options if isinstance(o, Mapping)] if isinstance(options, list) else []
    reject = next((o for o in choices if o.get("kind") in _REJECT_KINDS), None)
    if reject is not None:
        outcome = {"outcome": "selected", "optionId": reject.get("optionId")}
    else:
        outcome = {"outcome": "cancelled"}  # no way to say no: withdraw the question
    await rpc.respond(message.get("id"), {"outcome": outcome})


def _current_mode(session: Mapping[str, Any]) -> str | None:
    """The mode a new session is in: `modes.currentModeId`, or (kimi-code) the `mode` entry
    of its `configOptions`."""
    modes = _mapping(session.get("modes"))
    if "currentModeId" in modes:
        return str(modes["currentModeId"])
    options = session.get("configOptions")
    if isinstance(options, list):
        for option in options:
            if isinstance(option, Mapping) and option.get("id") == "mode":
                return str(option.get("currentValue"))
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
