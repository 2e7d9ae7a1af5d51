"""pi (`@mariozechner/pi-coding-agent`), print mode restricted to its read-only tools."""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from council.adapters.base import (
    AUTH_PATTERNS,
    Adapter,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
)
from council.adapters.warm import (
    Channel,
    ProtocolError,
    SessionDriver,
    WarmLaunch,
    WarmTurn,
    answer_verdict,
    failure_verdict,
)


class PiAdapter(Adapter):
    name = "pi"
    vendor = "pi"
    binary = "pi"
    tested_version = "0.73.1"
    install_hint = "npm install -g @mariozechner/pi-coding-agent"
    login_hint = "run `pi` and log in with /login, or configure ~/.pi/agent/models.json"
    read_only_tools = "read,grep,find,ls"
    sandbox = f"--tools {read_only_tools} --no-context-files"
    # pi speaks to many providers; it reads their usual key variables.
    env_prefixes = (
        "PI_",
        "OPENAI_",
        "ANTHROPIC_",
        "GEMINI_",
        "OPENROUTER_",
        "GROQ_",
        "XAI_",
        "MISTRAL_",
        "CEREBRAS_",
    )
    # 0.73.1 keeps settings, auth and models under ~/.pi/agent (sessions too, without
    # --no-session).
    state_dirs = ("~/.pi",)
    soft_timeout_s = 600.0
    soft_timeout_high_s = 900.0
    high_efforts = frozenset({"xhigh"})
    efforts = frozenset({"off", "minimal", "low", "medium", "high", "xhigh"})
    # Unknown: pi's model is a provider/model pair from the user's own set-up (clis.md names
    # none). xhigh tops --thinking.
    strongest_model = None
    strongest_effort = "xhigh"
    # pi 0.73.1 with no key anywhere: "No API key found for the selected model." (exit 1)
    auth_patterns = (*AUTH_PATTERNS, re.compile(r"no api key found", re.I))

    def whole_output(self, tool: Tool) -> bool:
        return False  # plain text

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command, "-p", "--no-session", "--no-context-files", "--offline"]
        if (lean := self.lean_for(request)) is not None:
            # No tool at all (built-in or an extension's), no skills, and council's system
            # prompt in place of pi's (4.9 KB a request down to 0.4 KB, docs/lean.md).
            argv += ["--no-tools", "--no-skills", "--system-prompt", lean]
        else:
            argv += ["--tools", self.read_only_tools]
        if model := self.model_for(request):
            # `provider/model` picks the provider too (split once: model ids may hold slashes)
            provider, _, model_id = model.partition("/")
            argv += (
                ["--provider", provider, "--model", model_id] if model_id else ["--model", model]
            )
        if effort := self.effort_for(request):
            argv += ["--thinking", effort]
        argv += self.settings.extra_args
        return Invocation(argv=tuple(argv), stdin=request.prompt.encode())

    def read_usage(self, result: RawResult) -> Usage | None:
        """None: `-p` text mode prints the answer alone, stdout and stderr (0.73.1). Only
        `--mode json` carries usage, on each assistant message (`usage.input`, `output`,
        `cacheRead`, `cacheWrite`, `cost.total`)."""
        return None

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        agent = home / ".pi" / "agent"
        for name in ("auth.json", "models.json"):
            if (agent / name).is_file():
                return AuthState(True, str(agent / name))
        return AuthState(None, "pi takes keys from many providers; not checked")

    # -- warm worker: `pi --mode rpc` (0.73.1) ---------------------------------------------

    def warm_launch(
        self, tool: Tool, *, model: str | None, effort: str | None
    ) -> WarmLaunch | None:
        """The RPC mode with print mode's read-only tools, `new_session` before every call
        but a new process's first. pi takes its cwd per process (the seat's room) and names
        no version in its RPC: the probe runs beside the start."""
        argv = [
            *tool.command,
            "--mode",
            "rpc",
            "--no-session",
            "--no-context-files",
            "--offline",
            "--tools",
            self.read_only_tools,
        ]
        if model := model or self.settings.model:
            provider, _, model_id = model.partition("/")
            argv += (
                ["--provider", provider, "--model", model_id] if model_id else ["--model", model]
            )
        if effort in self.efforts:
            argv += ["--thinking", str(effort)]
        argv += self.settings.extra_args
        return WarmLaunch(argv=tuple(argv), driver=lambda: PiRpcDriver(self), reports_version=False)


class PiRpcDriver(SessionDriver):
    """pi's RPC (0.73.1): commands `{"id", "type", ...}` each answered by a `response`; a
    prompt's events end with `agent_end`, whose last message says how the turn ended
    (`stopReason` `stop`, `error` with an `errorMessage`, `aborted`)."""

    def __init__(self, adapter: PiAdapter) -> None:
        self.adapter = adapter
        self._ids = itertools.count(1)
        self._fresh = True  # the process has served no call yet: its session is new
        self._prompting = False

    async def _command(self, channel: Channel, kind: str, **fields: Any) -> dict[str, Any]:
        ident = f"council-{next(self._ids)}"
        await channel.send({"id": ident, "type": kind, **fields})
        while True:
            message = await channel.receive()
            if message.get("type") == "response" and message.get("id") == ident:
                if message.get("success") is False:
                    raise ProtocolError(f"pi refused {kind}: {message.get('error')}")
                return message

    async def handshake(self, channel: Channel) -> str | None:
        await self._command(channel, "get_state")
        return None

    async def turn(self, channel: Channel, prompt: str, room: Path) -> WarmTurn:
        if not self._fresh:
            await self._command(channel, "new_session")  # the conversation starts over
        self._fresh = False
        self._prompting = True
        try:
            await self._command(channel, "prompt", message=prompt)
            while (end := await channel.receive()).get("type") != "agent_end":
                pass
        finally:
            self._prompting = False
        messages = end.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else None
        last = last if isinstance(last, Mapping) else {}
        stop = last.get("stopReason")
        if stop == "error":
            return WarmTurn(failure_verdict(self.adapter, str(last.get("errorMessage", ""))))
        if stop == "aborted":
            return WarmTurn(Verdict(Status.ERROR, detail="pi aborted the turn"))
        content = last.get("content")
        parts = content if isinstance(content, list) else []
        texts = [p for p in parts if isinstance(p, Mapping) and p.get("type") == "text"]
        text = "".join(str(p.get("text", "")) for p in texts)
        return WarmTurn(answer_verdict(text, prompt))

    async def cancel(self, channel: Channel) -> None:
        if self._prompting:
            await channel.send({"type": "abort"})
