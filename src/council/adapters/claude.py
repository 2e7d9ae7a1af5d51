"""Claude Code (`@anthropic-ai/claude-code`), print mode with a JSON result object."""

from __future__ import annotations

import itertools
import json
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
)
from council.adapters.claude_usage import (
    Totals,
    ranked_by_output,
    result_object,
    result_usage,
    totals,
    turn_models,
    turn_usage,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import parse_retry_after
from council.adapters.host import IdeHost
from council.adapters.warm import (
    Channel,
    LeanStart,
    ProtocolError,
    SessionDriver,
    WarmLaunch,
    WarmMode,
    WarmTurn,
    answer_verdict,
)


class ClaudeAdapter(WarmMode, IdeHost, KeepsState):
    name = "claude"
    vendor = "anthropic"
    # Its aliases (opus, sonnet, haiku) as well as its full names (claude-opus-4-5-...).
    model_families = (("claude|opus|sonnet|haiku", "anthropic"),)
    binary = "claude"
    tested_version = "2.1.332"
    # The previous pin: the realcli suite passed on it too (2026-11-28), and the fake CLI
    # and the replayed-output tests still speak it.
    tested_versions = ("2.1.197",)
    install_hint = "npm install -g @anthropic-ai/claude-code"
    login_hint = "run `claude` and type /login, or set ANTHROPIC_API_KEY"
    read_only_tools = "Read,Grep,Glob"
    sandbox = f"--tools {read_only_tools} --setting-sources '' --strict-mcp-config"
    env_prefixes = ("ANTHROPIC_",)
    # Auth and provider switches that live under the otherwise removed CLAUDE_CODE_ prefix.
    env_names = (
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CONFIG_DIR",
    )
    host_markers = ("CLAUDECODE", "CLAUDE_CODE_")
    forbidden_args = (
        "--dangerously-skip-permissions",
        "--allow-dangerously-skip-permissions",
        "--permission-mode=bypassPermissions",
    )
    host_dirs = {"project": ".claude", "user": "~/.claude"}
    # 2.1.197 writes sessions, backups and its cleanup stamp under ~/.claude, and
    # TMPDIR/claude-<uid>/. It also rewrites ~/.claude.json (counters and tips) through a lock
    # directory and a temporary file beside it, in HOME itself: allowing that would open all
    # of HOME, so those writes fail and claude answers without them (strace, contract tests).
    # 2.1.332 adds ~/.claude/plugins/store/ (its built-in plugins' usage), a socket directory
    # TMPDIR/cc-socks/ and a file-watch probe in TMPDIR/claude-<uid>/: all inside the above.
    state_dirs = ("~/.claude",)
    host_dir_env = "CLAUDE_CONFIG_DIR"
    host_files = (
        ("claude/commands/debate.md", "commands/debate.md"),
        ("claude/commands/review.md", "commands/review.md"),
        ("claude/skills/council/SKILL.md", "skills/council/SKILL.md"),
    )
    # `claude -p "/debate ..."` needs nothing (the command's own `allowed-tools`); a prompt
    # in words, which the skill answers, does (2.1.332).
    host_headless = (
        'claude -p ... --allowedTools "Bash(council:*)" (or "Bash(council:*)" in '
        "permissions.allow of .claude/settings.json; /debate and /review need nothing)"
    )
    soft_timeout_s = 600.0
    soft_timeout_high_s = 900.0
    efforts = frozenset({"low", "medium", "high", "xhigh", "max"})
    # `opus` is the CLI's own alias for its latest Opus model (`claude --help`, --model): an
    # alias, so it does not go stale with the next release. `max` tops --effort (clis.md).
    strongest_model = "opus"
    strongest_effort = "max"

    def build(self, tool: Tool, request: Request) -> Invocation:
        lean = self.lean_for(request)
        argv = [
            *tool.command,
            "-p",
            "--output-format",
            "json",
            "--no-session-persistence",
            "--tools",
            # Lean: "" is no tool at all (2.1.197, 2.1.332), and council's system prompt
            # replaces the agent's (12.3 KB a request down to 1.2 KB on 2.1.197, docs/lean.md;
            # 14.8 KB to 1.8 KB on 2.1.332).
            "" if lean is not None else self.read_only_tools,
            "--setting-sources",
            "",
            "--strict-mcp-config",
        ]
        if lean is not None:
            argv += ["--system-prompt", lean]
        if model := self.model_for(request):
            argv += ["--model", model]
        if effort := self.effort_for(request):
            argv += ["--effort", effort]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
            # council owns retries; telemetry and update checks only slow a headless call.
            env={"CLAUDE_CODE_MAX_RETRIES": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
        )

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        payload = result_object(result.stdout)
        if payload is not None and payload.get("is_error"):
            return self.error_verdict(payload, result.exit_code or 1, result.stderr)
        return super().classify(result, prompt)

    def error_verdict(self, payload: Mapping[str, Any], exit_code: int, stderr: str) -> Verdict:
        """A result object with `is_error`: by its `api_error_status`, else its words."""
        message = str(payload.get("result") or payload.get("subtype") or "error")
        status = payload.get("api_error_status")
        if status in (401, 403):
            return Verdict(Status.AUTH, detail=self.auth_detail(message))
        if status == 429 or (isinstance(status, int) and status >= 500):
            return Verdict(
                Status.RATE_LIMITED, detail=message, retry_after_s=parse_retry_after(message)
            )
        return self.classify_failure(exit_code, message + "\n" + stderr)

    def extract(self, result: RawResult) -> str:
        payload = result_object(result.stdout)
        if payload is None:
            raise ValueError("expected a JSON object with a `result` field on stdout")
        return str(payload.get("result") or "")

    def read_usage(self, result: RawResult) -> Usage | None:
        """The result object's token counts and `total_cost_usd` (claude's own price for the
        model; an error result reports zeros, and zero is then what the attempt cost).

        Input is every input token the model read: claude reports the prompt cache apart
        (`input_tokens` is only the uncached part; `cache_read_input_tokens` and
        `cache_creation_input_tokens` are the rest), and council counts all three, as the
        other CLIs' input counts include their cached tokens. Output includes thinking.

        The counts come from `modelUsage` (one entry per model this run called) when it has
        entries: it covers every call `total_cost_usd` prices, side calls to a smaller model
        included, where `usage` counts only the main conversation's turns. An error result
        has it empty; `usage` (zeros) is read then.
        """
        payload = result_object(result.stdout)
        return None if payload is None else result_usage(payload)

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The keys of the result's `modelUsage`: every model the run called, the one that
        wrote most output (the answer) first, a side call to a small model after it. An error
        result has it empty: no model named. They are the models claude called, aliases
        resolved: a name the API answered under instead (a gateway's fallback) shows only in
        stream-json's assistant messages, which a warm call reads."""
        payload = result_object(result.stdout)
        per_model = payload.get("modelUsage") if payload is not None else None
        return ranked_by_output(per_model) if isinstance(per_model, Mapping) else ()

    # -- warm worker: stream-json on stdin (2.1.197 and 2.1.332) ----------------------------

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """Print mode reading stream-json messages on stdin, with the spawned call's tools,
        settings and MCP measures, and lean the spawned lean call's flags (no tool, council's
        system prompt: stream-json input honours both); `/clear` before every call but a new
        process's first starts a new session (no model request). Its cwd is the process's
        (the seat's room); the version comes only with the first turn, so the probe runs
        beside the start."""
        lean = self.lean_start(lean)
        argv = [
            *tool.command,
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--no-session-persistence",
            "--tools",
            "" if lean is not None else self.read_only_tools,
            "--setting-sources",
            "",
            "--strict-mcp-config",
        ]
        if lean is not None:
            argv += ["--system-prompt", lean.prompt]
        if model := model or self.settings.model:
            argv += ["--model", model]
        if effort in self.efforts:
            argv += ["--effort", str(effort)]
        argv += self.settings.extra_args
        return WarmLaunch(
            argv=tuple(argv),
            env={"CLAUDE_CODE_MAX_RETRIES": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
            driver=lambda: ClaudeStreamDriver(self),
            reports_version=False,
            lean=lean is not None,
        )

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        # CLAUDE_CONFIG_DIR moves both: .claude.json then lives inside it.
        if config_dir := env.get("CLAUDE_CONFIG_DIR"):
            return (Path(config_dir),), ()
        return super().state_paths(env, home)

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
            if env.get(name):
                return AuthState(True, name)
        config_dir = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
        if (config_dir / ".credentials.json").is_file():
            return AuthState(True, str(config_dir / ".credentials.json"))
        # /login with a Console account saves an API key (metered) in .claude.json, beside
        # HOME's other files, or inside CLAUDE_CONFIG_DIR when that is set.
        saved = (
            config_dir / ".claude.json" if env.get("CLAUDE_CONFIG_DIR") else home / ".claude.json"
        )
        try:
            settings = json.loads(saved.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            settings = None
        if isinstance(settings, dict) and settings.get("primaryApiKey"):
            return AuthState(True, f"primaryApiKey in {saved}")
        # macOS keeps the login in the keychain, which we do not open.
        return AuthState(None, "no key in the environment or credentials file")


class ClaudeStreamDriver(SessionDriver):
    """claude's stream-json input (2.1.197, 2.1.332): control requests (`initialize`,
    `interrupt`) answered by a `control_response`, user messages answered by events that end
    with one `result` object, as `-p --output-format json` prints it."""

    def __init__(self, adapter: ClaudeAdapter) -> None:
        self.adapter = adapter
        self._ids = itertools.count(1)
        self._fresh = True  # no call served yet: the session is new
        self._prompting = False
        self._answered_by: list[str] = []  # the models named by the answers to the last message

    async def _control(self, channel: Channel, subtype: str) -> None:
        ident = f"council-{next(self._ids)}"
        request = {"subtype": subtype}
        await channel.send({"type": "control_request", "request_id": ident, "request": request})
        if subtype == "interrupt":
            return  # the turn's `result` says it stopped; `turn` reads it
        while True:
            message = await channel.receive()
            response = message.get("response")
            if message.get("type") != "control_response" or not isinstance(response, Mapping):
                continue
            if response.get("request_id") != ident:
                continue
            if response.get("subtype") != "success":
                raise ProtocolError(f"claude refused {subtype}: {response.get('error')}")
            return

    async def _user(self, channel: Channel, text: str) -> Mapping[str, Any]:
        content = [{"type": "text", "text": text}]
        message = {"role": "user", "content": content}
        await channel.send(
            {"type": "user", "message": message, "parent_tool_use_id": None, "session_id": ""}
        )
        self._answered_by = []
        while (event := await channel.receive()).get("type") != "result":
            if event.get("type") == "assistant":
                model = _mapping(event.get("message")).get("model")
                # claude names an answer it made up itself (an API error's) `<synthetic>`.
                if isinstance(model, str) and model.strip() and not model.startswith("<"):
                    self._answered_by.append(model)
        return event

    async def handshake(self, channel: Channel) -> str | None:
        await self._control(channel, "initialize")
        return None

    async def turn(self, channel: Channel, prompt: str, room: Path) -> WarmTurn:
        baseline: Totals | None = Totals()  # a new process has spent nothing
        cleared_usage: Any = {}
        if not self._fresh:
            cleared = await self._user(channel, "/clear")  # a new session, no model request
            if cleared.get("is_error"):
                raise ProtocolError(f"claude refused /clear: {cleared.get('result')}")
            baseline = totals(cleared)
            cleared_usage = cleared.get("modelUsage")
        self._fresh = False
        self._prompting = True
        try:
            result = await self._user(channel, prompt)
        finally:
            self._prompting = False
        usage = turn_usage(result, baseline)
        # Each assistant message names the model the API said answered it (2.1.332), where
        # `modelUsage` has the one claude asked for: the messages' first, the last one's first.
        answered = tuple(dict.fromkeys(reversed(self._answered_by)))
        served = answered or turn_models(result, cleared_usage)
        if result.get("is_error"):
            if result.get("subtype") == "error_during_execution" and not result.get("result"):
                return WarmTurn(Verdict(Status.ERROR, detail="the turn was interrupted"))
            verdict = self.adapter.error_verdict(result, 1, "")
            return WarmTurn(replace(verdict, usage=usage, served=served))
        verdict = answer_verdict(str(result.get("result") or ""), prompt, usage)
        return WarmTurn(replace(verdict, served=served))

    async def cancel(self, channel: Channel) -> None:
        if self._prompting:
            await self._control(channel, "interrupt")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
