"""pi (`@earendil-works/pi-coding-agent`, formerly `@mariozechner/pi-coding-agent` up to
0.73.1), print mode restricted to its read-only tools."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from council.adapters.base import (
    AuthState,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
    VersionInfo,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import AUTH_PATTERNS
from council.adapters.output import cost_figure, json_objects, token_count
from council.adapters.versions import KnownBroken, parse_version
from council.adapters.versions import version_at_least as base_version_at_least
from council.adapters.warm import (
    Channel,
    LeanStart,
    ProtocolError,
    SessionDriver,
    WarmLaunch,
    WarmMode,
    WarmTurn,
    answer_verdict,
    failure_verdict,
)

# The pi releases council's argv depends on (the package's CHANGELOG.md).
NODE_22_SINCE = (0, 75, 0)  # engines.node >= 22.19.0: older Nodes die importing the CLI
# Project trust, `--approve` / `--no-approve`; before it pi loads the cwd's `.pi/extensions`.
APPROVE_SINCE = (0, 79, 0)
# `--mode json` stopped repeating the whole message so far in every `message_update`: before,
# an answer streamed token by token printed hundreds of MB, so print mode stays text there.
LINEAR_JSON_SINCE = (0, 84, 0)
# MCP servers of the user's config connect by default since 0.99.0, and `--tools` keeps their
# tools; `--no-mcp` exists since 1.0.4.
NO_MCP_SINCE = (1, 0, 4)
MIN_NODE = (22, 19)
_NODE_CRASH = re.compile(r"^Node\.js v(\d+)\.(\d+)\.\d+", re.M)


def version_at_least(version: str | None, minimum: tuple[int, ...]) -> bool:
    """`version` (as `pi --version` prints it) is `minimum` or later, compared as numbers. An
    unknown version counts as a current one: a current pi must never run without its
    read-only flags, and an old one refuses an unknown flag loudly."""
    return parse_version(version) is None or base_version_at_least(version, minimum)


class PiAdapter(WarmMode, KeepsState):
    name = "pi"
    vendor = "pi"
    binary = "pi"
    tested_version = "1.6.0"
    # The previous pin, the last release under the old name: the realcli suite passed on it
    # too (2026-11-28), and each version-gated flag has a test of its own.
    tested_versions = ("0.73.1",)
    known_broken = (
        # pi's CHANGELOG: MCP built in since 0.99.0, `--no-mcp` only since 1.0.4.
        KnownBroken(
            "connects the MCP servers of your pi config, whose tools a read-only seat should "
            "not have, and has no switch to stop it",
            "upgrade pi to 1.0.4 or later (npm install -g @earendil-works/pi-coding-agent)",
            since=(0, 99, 0),
            before=(1, 0, 4),
        ),
    )
    install_hint = "npm install -g @earendil-works/pi-coding-agent (needs Node >= 22.19)"
    login_hint = "run `pi` and log in with /login, or configure ~/.pi/agent/models.json"
    read_only_tools = "read,grep,find,ls"
    sandbox = (
        f"--tools {read_only_tools} --no-context-files; --no-approve (before 0.79 "
        "--no-extensions), --no-mcp where the release has it"
    )
    # pi speaks to many providers; it reads their usual key variables.
    # Model providers' key families only: account-wide credentials it can also use (AWS for
    # Bedrock, a GitHub token for Copilot, Cloudflare's) reach it only by `pass_env`.
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
        "DEEPSEEK_",
        "AZURE_OPENAI_",
        "ZAI_",
        "MINIMAX_",
        "MOONSHOT_",
        "FIREWORKS_",
        "OPENCODE_",
    )
    env_names = ("HF_TOKEN", "AI_GATEWAY_API_KEY", "KIMI_API_KEY")
    # Settings, auth and models live under ~/.pi/agent (sessions too, without --no-session).
    state_dirs = ("~/.pi",)
    soft_timeout_s = 600.0
    soft_timeout_high_s = 900.0
    high_efforts = frozenset({"xhigh"})
    efforts = frozenset({"off", "minimal", "low", "medium", "high", "xhigh"})
    # Unknown: pi's model is a provider/model pair from the user's own set-up (clis.md names
    # none). xhigh tops --thinking in every release council supports.
    strongest_model = None
    strongest_effort = "xhigh"
    # pi with no key anywhere: "No API key found for the selected model." (exit 1)
    auth_patterns = (*AUTH_PATTERNS, re.compile(r"no api key found", re.I))
    # Trusting the room's project files would load its `.pi/` settings and extensions. (Not
    # `-a`: the list is every CLI's, and codex's `-a` is another flag.)
    forbidden_args = ("--approve",)
    # The warm worker's argv depends on the version (its RPC names none).
    warm_needs_probe = True

    def read_version(self, exit_code: int | None, stdout: str, stderr: str) -> VersionInfo:
        # pi >= 0.75 on an older Node dies at import with a stack trace; Node prints its own
        # version as the trace's last line.
        crash = _NODE_CRASH.search(stderr or stdout) if exit_code != 0 else None
        if crash is not None and (int(crash.group(1)), int(crash.group(2))) < MIN_NODE:
            node = crash.group(0).removeprefix("Node.js ")
            return VersionInfo(
                None,
                unusable=f"pi needs Node >= 22.19 and `node` here is {node}: install Node "
                "22.19 or later and put it first on PATH (or, on this Node, "
                "@mariozechner/pi-coding-agent@0.73.1)",
            )
        return super().read_version(exit_code, stdout, stderr)

    def whole_output(self, tool: Tool) -> bool:
        return version_at_least(tool.version, LINEAR_JSON_SINCE)  # JSONL, else plain text

    def read_only_args(self, version: str | None) -> list[str]:
        """What keeps a call read-only and deaf to the room's and the user's extras, for the
        flags this version has."""
        args = ["--no-session", "--no-context-files", "--offline"]
        if version_at_least(version, APPROVE_SINCE):
            args.append("--no-approve")  # the room's .pi/ (settings, extensions) is not trusted
        else:
            # No project trust yet: the extensions under the cwd's .pi/ would load and run, and
            # only this switch stops them (the user's own global extensions with them).
            args.append("--no-extensions")
        if version_at_least(version, NO_MCP_SINCE):
            args.append("--no-mcp")  # `--tools` alone keeps the user's MCP servers' tools
        return args

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command, "-p", *self.read_only_args(tool.version)]
        json_mode = version_at_least(tool.version, LINEAR_JSON_SINCE)
        if json_mode:
            argv += ["--mode", "json"]  # the only print mode that reports usage
        if (lean := self.lean_for(request)) is not None:
            # No tool at all (built-in or an extension's), no skills, and council's system
            # prompt in place of pi's (4.9 KB a request down to 0.4 KB, docs/lean.md).
            argv += ["--no-tools", "--no-skills", "--system-prompt", lean]
        else:
            argv += ["--tools", self.read_only_tools]
        argv += _model_args(self.model_for(request))
        if effort := self.effort_for(request):
            argv += ["--thinking", effort]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
            output_format="json" if json_mode else "text",
        )

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        """JSON mode exits 0 when the model failed: the turn's last assistant message says
        how it ended (`stopReason` `error` with an `errorMessage`, or `aborted`)."""
        if result.output_format == "json" and result.exit_code == 0:
            last = _last_assistant(_events(result.stdout))
            if last is not None and last.get("stopReason") == "error":
                return self.classify_failure(1, str(last.get("errorMessage", "")))
            if last is not None and last.get("stopReason") == "aborted":
                return Verdict(Status.ERROR, detail="pi aborted the turn")
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        if result.output_format != "json":
            return result.stdout
        last = _last_assistant(_events(result.stdout))
        if last is None:
            raise ValueError("no assistant message in pi's JSON events")
        return _text_of(last)

    def read_usage(self, result: RawResult) -> Usage | None:
        """JSON mode: the sum over the run's assistant messages (`message_end`), a tool call
        and the answer after it each one. Text mode (pi < 0.84) prints the answer alone."""
        if result.output_format != "json":
            return None
        return usage_of(_events(result.stdout))

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """JSON mode: the `provider/model` of each assistant message (`message_end`), the
        last one (the answer's) first. Text mode (pi < 0.84) names none."""
        if result.output_format != "json":
            return ()
        return models_of(_assistant_ends(_events(result.stdout)))

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        """A provider key in the environment, else a login `/login` saved in auth.json (a
        file with at least one provider in it, not one that merely exists); pi's own
        settings pick among them, which council does not second-guess."""
        keys = [n for n in sorted(env) if n.endswith("_API_KEY") or n == "HF_TOKEN"]
        for name in keys:
            if env[name] and (name in self.env_names or name.startswith(self.env_prefixes)):
                return AuthState(True, name)
        auth = _agent_dir(env, home) / "auth.json"
        try:
            saved = json.loads(auth.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = None
        if isinstance(saved, dict) and saved:
            return AuthState(True, str(auth))
        return AuthState(None, "no provider key in the environment and no login in auth.json")

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """~/.pi, and where PI_CODING_AGENT_DIR moves pi's agent directory."""
        dirs, files = super().state_paths(env, home)
        moved = (_agent_dir(env, home),) if env.get("PI_CODING_AGENT_DIR") else ()
        return (*dirs, *moved), files

    # -- warm worker: `pi --mode rpc` --------------------------------------------------------

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """The RPC mode with print mode's read-only flags (and lean, a lean call's), and
        `new_session` before every call but a new process's first. pi takes its cwd per
        process (the seat's room); its RPC names no version, and the flags depend on it: the
        probe runs first."""
        lean = self.lean_start(lean)
        tools = ["--no-tools", "--no-skills", "--system-prompt", lean.prompt] if lean else []
        argv = [
            *tool.command,
            "--mode",
            "rpc",
            *self.read_only_args(tool.version),
            *(tools or ["--tools", self.read_only_tools]),
            *_model_args(model or self.settings.model),
        ]
        if effort in self.efforts:
            argv += ["--thinking", str(effort)]
        argv += self.settings.extra_args
        return WarmLaunch(
            argv=tuple(argv),
            driver=lambda: PiRpcDriver(self),
            reports_version=False,
            lean=lean is not None,
        )


def _model_args(model: str | None) -> list[str]:
    if not model:
        return []
    # `provider/model` picks the provider too (split once: model ids may hold slashes)
    provider, _, model_id = model.partition("/")
    return ["--provider", provider, "--model", model_id] if model_id else ["--model", model]


def _events(stdout: str) -> list[Mapping[str, Any]]:
    return [e for e in json_objects(stdout) if isinstance(e, Mapping)]


def _assistant_ends(events: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The assistant messages as each one ended (`message_end`, the authoritative copy)."""
    ends = []
    for event in events:
        message = event.get("message")
        if (
            event.get("type") == "message_end"
            and isinstance(message, Mapping)
            and message.get("role") == "assistant"
        ):
            ends.append(message)
    return ends


def _last_assistant(events: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    ends = _assistant_ends(events)
    return ends[-1] if ends else None


def _text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    return "".join(
        str(p.get("text", "")) for p in parts if isinstance(p, Mapping) and p.get("type") == "text"
    )


def models_of(messages: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """The models that wrote `messages` (assistant messages), as pi names them: its own
    `provider/model` (the form `--model` takes), the last message's first."""
    named: list[str] = []
    for message in reversed(messages):
        model, provider = message.get("model"), message.get("provider")
        if not isinstance(model, str) or not model.strip():
            continue
        name = f"{provider}/{model}" if isinstance(provider, str) and provider else model
        if name not in named:
            named.append(name)
    return tuple(named)


def usage_of(events: list[Mapping[str, Any]]) -> Usage | None:
    """pi's own usage record of each assistant message, summed: `input` is the uncached
    part, `cacheRead` and `cacheWrite` apart; `output` holds the thinking (1.x also shows it
    as `reasoning`); `cost.total` is pi's price from its model table, 0 for a model it has no
    price for (reported as no cost, not as free)."""
    ends = _assistant_ends(events)
    if not ends:
        return None
    total = Usage(0, 0)
    for message in ends:
        usage = message["usage"]
        cost = cost_figure(usage.get("cost", {}).get("total"))
        total += Usage(
            token_count(usage["input"])
            + token_count(usage.get("cacheRead", 0))
            + token_count(usage.get("cacheWrite", 0)),
            token_count(usage["output"]),
            cost or None,
        )
    return total


class PiRpcDriver(SessionDriver):
    """pi's RPC: commands `{"id", "type", ...}` each answered by a `response`; a prompt's
    events end with `agent_end`, whose last message says how the turn ended (`stopReason`
    `stop`, `error` with an `errorMessage`, `aborted`). Each assistant message's
    `message_end` carries its usage."""

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
        ended: list[Mapping[str, Any]] = []  # this turn's assistant messages, as they ended
        try:
            await self._command(channel, "prompt", message=prompt)
            while (event := await channel.receive()).get("type") != "agent_end":
                ended += _assistant_ends([event])
        finally:
            self._prompting = False
        try:
            usage = usage_of([{"type": "message_end", "message": m} for m in ended])
        except (KeyError, TypeError, ValueError, AttributeError):
            usage = None  # a format council does not know: no figure rather than a wrong one
        messages = event.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else None
        last = last if isinstance(last, Mapping) else {}
        stop = last.get("stopReason")
        served = models_of(ended)
        if stop == "error":
            error = str(last.get("errorMessage", ""))
            verdict = failure_verdict(self.adapter, error)
            return WarmTurn(replace(verdict, usage=usage, served=served))
        if stop == "aborted":
            verdict = Verdict(Status.ERROR, detail="pi aborted the turn", usage=usage)
            return WarmTurn(replace(verdict, served=served))
        return WarmTurn(replace(answer_verdict(_text_of(last), prompt, usage), served=served))

    async def cancel(self, channel: Channel) -> None:
        if self._prompting:
            await channel.send({"type": "abort"})


def _agent_dir(env: Mapping[str, str], home: Path) -> Path:
    """pi's settings, logins and models: ~/.pi/agent, or where PI_CODING_AGENT_DIR says."""
    moved = env.get("PI_CODING_AGENT_DIR")
    return Path(moved).expanduser() if moved else home / ".pi" / "agent"
