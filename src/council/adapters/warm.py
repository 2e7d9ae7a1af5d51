"""A vendor CLI's persistent mode as its adapter describes it: how the long-lived process
starts (`WarmLaunch`), and how one call runs inside it as a fresh session with no history (a
`SessionDriver`). An adapter whose CLI has one is a `WarmMode`.

The runner owns the process (`runner/warm.py`) and hands the driver a `Channel` over its
stdio: JSON messages, one a line. Nothing here starts a process. ACP, the one protocol that
several vendors share (gemini, qwen, both kimis), is driven by the runner's client
(`runner/acp.py`); the adapter gives it options and reads its outcome (`acp_verdict`). A
vendor's own protocol (claude's stream-json, codex's app-server, pi's RPC) is a driver in
that vendor's module.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from council.adapters.base import Adapter, Status, Tool, Usage, Verdict, is_echo

# Recycle a worker after this many sessions: every CLI keeps 1-4 MB per session it served
# (codex never unloads its ephemeral threads), so a long debate must not grow without bound.
RECYCLE_AFTER = 15


class WorkerGone(Exception):
    """The worker's stdout ended: it exited, or was killed."""


class ProtocolError(Exception):
    """The worker refused or garbled a step of its protocol (a session it would not open, a
    read-only mode it would not take): the call cannot run warm."""


class Channel(Protocol):
    """The worker's stdio: one JSON object a line each way."""

    async def send(self, message: Mapping[str, Any]) -> None: ...

    async def receive(self) -> dict[str, Any]:
        """The next message the worker printed; `WorkerGone` when it printed its last."""
        ...


@dataclass(frozen=True)
class WarmTurn:
    """How one warm call ended, as the driver read it."""

    verdict: Verdict
    # The persistent mode said too little to classify (both kimis end a turn the model
    # refused with 429 or 500 as an empty success): run the call again, spawn per call, to
    # learn what happened.
    redo_cold: bool = False


class SessionDriver:
    """One persistent protocol: the handshake once per process, then a fresh session per call.

    A driver serves one process: a restarted worker gets a new driver."""

    async def handshake(self, channel: Channel) -> str | None:
        """Initialize the worker; the CLI's version when the handshake tells it."""
        raise NotImplementedError

    async def turn(self, channel: Channel, prompt: str, room: Path) -> WarmTurn:
        """Open a new session with no history, ask `prompt`, read the answer to its end."""
        raise NotImplementedError

    async def cancel(self, channel: Channel) -> None:
        """Ask the worker to stop the turn in flight (the hard limit passed); `turn` then
        returns once the worker says it stopped."""
        raise NotImplementedError


@dataclass(frozen=True)
class AcpOptions:
    """How council runs an ACP agent's sessions."""

    # The mode every session must be in before the prompt: the agent's read-only mode
    # (gemini, qwen and kimi-code call it `plan`). The prompt is never sent in another.
    mode: str | None = None
    close: bool = False  # end each session with session/close where the agent offers it


@dataclass(frozen=True)
class AcpOutcome:
    """What one ACP prompt ended with, for the adapter to read (`WarmMode.acp_verdict`)."""

    stop_reason: str | None  # end_turn, cancelled, max_tokens, ...; None after an error
    text: str  # the agent's message chunks, joined
    error: RpcError | None = None  # the JSON-RPC error the prompt (or its session) got
    meta: Mapping[str, Any] = field(default_factory=dict)  # the prompt result's `_meta`
    # `_meta` of every session/update that carried one (qwen reports usage there).
    update_meta: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class WarmLaunch:
    """How a seat's warm worker starts. The runner adds what every CLI call gets (the
    allow-listed environment, TMPDIR, the room as the working directory, write confinement)."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)  # on top of the allow-list
    room_files: Mapping[str, str] = field(default_factory=dict)  # written into the room first
    driver: Callable[[], SessionDriver] | None = None  # the vendor's own protocol ...
    acp: AcpOptions | None = None  # ... or ACP, with these options
    # The handshake names the version, so the `--version` probe is not needed (pi's RPC says
    # none; kimi must be probed first to tell its two programs apart).
    reports_version: bool = True
    recycle_after: int = RECYCLE_AFTER
    # The worker started lean (docs/lean.md): council's system prompt and no tool. Only a call
    # that may run lean runs on it; any other spawns the CLI with its tools.
    lean: bool = False


@dataclass(frozen=True)
class LeanStart:
    """What a worker started lean needs: council's system prompt, and the seat's room, where
    a CLI that reads the prompt (or its tool settings) only from a file finds them."""

    prompt: str
    room: Path


class RpcError(Exception):
    """A JSON-RPC error object the worker answered a request with."""

    def __init__(self, code: Any, message: str, data: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data

    @property
    def text(self) -> str:
        """Everything the error says, for the adapter's classification."""
        parts = [str(self.code), self.message]
        if isinstance(self.data, Mapping):
            parts += [str(v) for v in self.data.values() if isinstance(v, str | int)]
        elif self.data is not None:
            parts.append(str(self.data))
        return " ".join(p for p in parts if p)


Handler = Callable[[dict[str, Any]], Awaitable[None] | None]


class JsonRpc:
    """JSON-RPC requests over a `Channel`, read in line: a request waits for its response,
    handing every notification to `on_notification` and every request the worker makes to
    `on_request` (which answers it) on the way. One call at a time per worker, so no reader
    task is needed. `stamp`: put `"jsonrpc": "2.0"` on every message (codex's app-server
    omits it)."""

    def __init__(
        self,
        channel: Channel,
        *,
        stamp: bool = True,
        on_request: Callable[[JsonRpc, dict[str, Any]], Awaitable[None]] | None = None,
    ) -> None:
        self.channel = channel
        self.stamp = stamp
        self.on_request = on_request
        self._ids = itertools.count(1)

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", **body} if self.stamp else body

    async def request(
        self,
        method: str,
        params: Mapping[str, Any],
        on_notification: Handler | None = None,
    ) -> Any:
        ident = next(self._ids)
        await self.channel.send(self._message({"id": ident, "method": method, "params": params}))
        while True:
            message = await self.channel.receive()
            if "method" in message:
                if "id" in message:
                    await self._answer(message)
                elif on_notification is not None:
                    handled = on_notification(message)
                    if handled is not None:
                        await handled
                continue
            if message.get("id") != ident:
                continue  # a late answer to a request given up on (a cancelled turn)
            if "error" in message:
                error = message["error"] if isinstance(message["error"], Mapping) else {}
                raise RpcError(error.get("code"), str(error.get("message", "")), error.get("data"))
            return message.get("result")

    async def post(self, method: str, params: Mapping[str, Any]) -> None:
        """A request whose response nobody waits for (read and dropped by the loop reading
        then): how a turn is interrupted while another task reads the worker."""
        ident = next(self._ids)
        await self.channel.send(self._message({"id": ident, "method": method, "params": params}))

    async def pump(self, until: Callable[[], bool], on_notification: Handler) -> None:
        """Read the worker's messages, answering its requests and handing notifications to
        `on_notification`, until `until()` holds."""
        while not until():
            message = await self.channel.receive()
            if "method" not in message:
                continue  # a late response
            if "id" in message:
                await self._answer(message)
                continue
            handled = on_notification(message)
            if handled is not None:
                await handled

    async def notify(self, method: str, params: Mapping[str, Any]) -> None:
        await self.channel.send(self._message({"method": method, "params": params}))

    async def respond(self, ident: Any, result: Any = None, error: Mapping | None = None) -> None:
        body: dict[str, Any] = {"id": ident}
        if error is not None:
            body["error"] = dict(error)
        else:
            body["result"] = result
        await self.channel.send(self._message(body))

    async def _answer(self, message: dict[str, Any]) -> None:
        if self.on_request is not None:
            await self.on_request(self, message)
        else:
            await self.refuse(message)

    async def refuse(self, message: Mapping[str, Any]) -> None:
        """Answer a request council does not serve (file system, terminal, approvals)."""
        await self.respond(
            message.get("id"),
            error={"code": -32601, "message": f"council does not serve {message.get('method')}"},
        )


def answer_verdict(text: str, prompt: str, usage: Usage | None = None) -> Verdict:
    """A turn that ended normally, read as a spawned call's exit 0 is: an answer, or empty."""
    text = text.strip()
    if not text:
        return Verdict(Status.EMPTY, detail="the session ended with no answer", usage=usage)
    if is_echo(text, prompt):
        return Verdict(Status.EMPTY, detail="the output only echoes the prompt", usage=usage)
    return Verdict(Status.OK, text=text, usage=usage)


def failure_verdict(adapter: Adapter, text: str) -> Verdict:
    """An error the worker reported, read by the adapter's failure patterns like a spawned
    call's output (there is no exit code to name)."""
    verdict = adapter.classify_failure(None, text)
    if verdict.status is Status.ERROR:
        return Verdict(Status.ERROR, detail=f"the CLI reported an error: {text.strip()[:240]}")
    return verdict


class WarmMode(Adapter):
    """A CLI with a persistent mode a seat can keep running between its calls (runner/warm.py;
    docs/adr/007-warm-seat-workers.md)."""

    # The persistent mode's argv depends on what the `--version` probe finds (kimi: which of
    # its two programs is installed), so the probe runs before the worker starts.
    warm_needs_probe: ClassVar[bool] = False

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """How a seat keeps this CLI running between its calls, a fresh session per call, in
        the same read-only measures as `build`; None: every call spawns the CLI. `lean`: every
        call of the seat may run lean, so the worker may start lean (`WarmLaunch.lean` says
        whether it did: a CLI that cannot, or `clis.<name>.lean: false`, starts as usual)."""
        raise NotImplementedError

    def lean_start(self, lean: LeanStart | None) -> LeanStart | None:
        """`lean` unless the config turned lean mode off for this CLI."""
        return lean if self.settings.lean else None

    def warm_refusal(self, tool: Tool, env: Mapping[str, str], home: Path) -> str | None:
        """Why this CLI cannot run warm here although it has a persistent mode (kimi-cli
        without a login token); None when it can."""
        return None

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """Read how one ACP prompt ended (ACP agents only): an error by this CLI's failure
        patterns, an ended turn as an answer or empty."""
        if outcome.error is not None:
            return WarmTurn(failure_verdict(self, outcome.error.text))
        if outcome.stop_reason in ("end_turn", "max_tokens", "max_turn_requests"):
            return WarmTurn(answer_verdict(outcome.text, prompt))
        return WarmTurn(
            Verdict(Status.ERROR, detail=f"the session stopped early ({outcome.stop_reason})")
        )


def warm_mode(adapter: Adapter) -> WarmMode | None:
    """`adapter` when its CLI has a persistent mode; None: every call spawns it."""
    return adapter if isinstance(adapter, WarmMode) else None
