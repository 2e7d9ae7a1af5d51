"""OpenAI Codex CLI (`@openai/codex`), `codex exec` in the read-only sandbox."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from council.adapters.base import (
    AUTH_PATTERNS,
    COUNCIL_ROOM_DIR,
    RATE_LIMIT_PATTERNS,
    Adapter,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
    first_line,
    parse_retry_after,
)
from council.adapters.warm import (
    Channel,
    JsonRpc,
    ProtocolError,
    SessionDriver,
    WarmLaunch,
    WarmTurn,
    answer_verdict,
    failure_verdict,
)

_USER_AGENT_VERSION = re.compile(r"^[^/\s]+/(\d+\.\d+\.\d+\S*)")
# `codexErrorInfo` of a failed turn (0.169.0) that says the model refused or failed.
_RATE_LIMITED = ("responseTooManyFailedAttempts", "internalServerError", "serverOverloaded")

LEAN_INSTRUCTIONS = f"{COUNCIL_ROOM_DIR}/codex-instructions.md"
# What lean mode turns off (0.169.0, measured against the fake model server: 39.6 KB a request
# down to 1.8 KB, docs/lean.md). `-c features.<name>=false` rather than `--disable <name>`: an
# unknown feature name is then a warning in another version, not a refusal to start.
LEAN_FEATURES = (
    "shell_tool",  # exec_command
    "unified_exec",  # exec_command and write_stdin
    "view_image",
    "multi_agent",
    "goals",  # get_goal, create_goal, update_goal
    "image_generation",
)
LEAN_SETTINGS = (
    # the agent's own instructions around the prompt: skills, the sandbox's and the apps'
    # notes, the environment (cwd, shell, date), collaboration modes
    "skills.include_instructions=false",
    "include_permissions_instructions=false",
    "include_apps_instructions=false",
    "include_environment_context=false",
    "include_collaboration_mode_instructions=false",
    "tools.experimental_request_user_input.enabled=false",
    'web_search="disabled"',
)
# council's retry policy is the one in force: one retry in codex (a 500 is 2 requests, as
# claude's), not its defaults of 4 request and 5 stream retries, which multiply (a 500 was 30
# requests over 24 s). 0.169.0 reads them per provider only, and refuses a built-in
# provider's id under [model_providers] ("Built-in providers cannot be overridden"): the caps
# go to a provider the user defined, and the built-in `openai` keeps codex's own retries.
RETRY_CAPS = ("request_max_retries=0", "stream_max_retries=1")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class CodexAdapter(Adapter):
    name = "codex"
    vendor = "openai"
    binary = "codex"
    tested_version = "0.169.0"
    install_hint = "npm install -g @openai/codex"
    login_hint = "run `codex login`, or set OPENAI_API_KEY"
    sandbox = "-s read-only"
    env_prefixes = ("OPENAI_",)
    env_names = ("CODEX_HOME",)
    host_markers = ("CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")
    forbidden_args = (
        "--dangerously-bypass-approvals-and-sandbox",
        "--full-auto",
        "--yolo",
        "-s=danger-full-access",
        "--sandbox=danger-full-access",
    )
    # Codex reads custom prompts from the user's CODEX_HOME only.
    host_dirs = {"project": None, "user": "~/.codex"}
    host_dir_env = "CODEX_HOME"
    # 0.169.0: its sqlite databases (state, logs, memories, goals, queue), shell snapshots,
    # tmp/ and .tmp/ under CODEX_HOME; TMPDIR for its sandbox's mount targets.
    state_dirs = ("~/.codex",)
    host_files = (("codex/prompts/debate.md", "prompts/debate.md"),)
    soft_timeout_s = 600.0
    soft_timeout_high_s = 1800.0
    efforts = frozenset({"minimal", "low", "medium", "high", "xhigh"})
    # The model docs/spec/config.md gives codex in its `deep` preset (clis.md names none).
    strongest_model = "gpt-5.2"
    strongest_effort = "xhigh"
    # After its own retries 0.169.0 reports a 500 as "We're currently experiencing high
    # demand, which may cause temporary errors." (no status): transient, retried.
    rate_limit_patterns = (
        *RATE_LIMIT_PATTERNS,
        re.compile(r"experiencing high demand", re.I),
    )
    # codex 0.169.0 when a provider's key variable is unset:
    # "ERROR: Missing environment variable: `OPENAI_API_KEY`." (exit 1)
    auth_patterns = (
        *AUTH_PATTERNS,
        re.compile(r"missing environment variable: `\w*(?:KEY|TOKEN)\w*`", re.I),
    )

    def whole_output(self, tool: Tool) -> bool:
        return False  # plain text

    def build(self, tool: Tool, request: Request) -> Invocation:
        # The answer file goes to the record, not the room: rooms are read-only.
        argv = [
            *tool.command,
            "exec",
            "--skip-git-repo-check",
            "--ephemeral",
            "--color",
            "never",
            "-s",
            "read-only",
            "-o",
            str(request.answer_path),
        ]
        argv += retry_caps(self.settings.extra_args, _codex_home(self.settings.env))
        room_files: dict[str, str] = {}
        if (lean := self.lean_for(request)) is not None:
            room_files[LEAN_INSTRUCTIONS] = lean
            argv += lean_config(request.room / LEAN_INSTRUCTIONS)
        if model := self.model_for(request):
            argv += ["-m", model]
        if effort := self.effort_for(request):
            argv += ["-c", f'model_reasoning_effort="{effort}"']
        argv += [*self.settings.extra_args, "-"]
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
            answer_file=request.answer_path,
            room_files=room_files,
        )

    # -- warm worker: `codex app-server` (0.169.0) ------------------------------------------

    def warm_launch(
        self, tool: Tool, *, model: str | None, effort: str | None
    ) -> WarmLaunch | None:
        """JSON-RPC on stdio; a thread per call, in the read-only sandbox with approvals
        never asked, its cwd the seat's room. Model, effort and the retry caps as config
        overrides, as a spawned call has them."""
        argv = [*tool.command]
        argv += retry_caps(self.settings.extra_args, _codex_home(self.settings.env))
        if model := model or self.settings.model:
            argv += ["-c", f'model="{model}"']
        if effort in self.efforts:
            argv += ["-c", f'model_reasoning_effort="{effort}"']
        argv += [*self.settings.extra_args, "app-server"]
        return WarmLaunch(argv=tuple(argv), driver=lambda: CodexAppDriver(self))

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        # `codex exec` echoes the prompt on stderr: "401" or "rate limit" in a debated log
        # must not be read as codex's own error.
        if result.exit_code != 0 and prompt.strip():
            result = replace(result, stderr=result.stderr.replace(prompt.strip(), ""))
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        if result.answer_file_text is not None and result.answer_file_text.strip():
            return result.answer_file_text
        return result.stdout  # stdout carries only the final message too

    def read_usage(self, result: RawResult) -> Usage | None:
        """None: what codex prints without `--json` fits no figure council keeps.

        Its last stderr lines are `tokens used` and one number (0.169.0; with thousands
        separators in the user's locale). That number is codex's "blended total": input
        minus cached input, plus output, summed over the run's requests. It is neither the
        input, nor the output, nor the total once a prompt cache is hit, and splitting it
        would be an estimate. `--json` would give `turn.completed` events with the split
        (`input_tokens`, `cached_input_tokens`, `output_tokens`, `reasoning_output_tokens`),
        but council runs codex in its plain mode, which also writes the answer file.
        """
        return None

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        if codex_home := env.get("CODEX_HOME"):
            return (Path(codex_home),), ()
        return super().state_paths(env, home)

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        if env.get("OPENAI_API_KEY"):
            return AuthState(True, "OPENAI_API_KEY")
        auth = Path(env.get("CODEX_HOME") or home / ".codex") / "auth.json"
        if auth.is_file():
            return AuthState(True, str(auth))
        return AuthState(False, "no OPENAI_API_KEY and no auth.json")


class CodexAppDriver(SessionDriver):
    """codex's app-server (0.169.0): JSON-RPC without the `jsonrpc` field. Per call a new
    ephemeral thread (`thread/start`: no history), `turn/start`, the agent's messages, and
    `turn/completed` with the turn's status (`completed`, `interrupted`, `failed` with a
    structured `codexErrorInfo`)."""

    def __init__(self, adapter: CodexAdapter) -> None:
        self.adapter = adapter
        self._rpc: JsonRpc | None = None
        self._turn: tuple[str, str] | None = None  # (thread, turn) in flight

    def _client(self, channel: Channel) -> JsonRpc:
        if self._rpc is None:
            self._rpc = JsonRpc(channel, stamp=False)  # asks for nothing it is given
        return self._rpc

    async def handshake(self, channel: Channel) -> str | None:
        rpc = self._client(channel)
        client = {"name": "council", "version": "1"}
        result = await rpc.request("initialize", {"clientInfo": client})
        await rpc.notify("initialized", {})
        agent = str(result.get("userAgent", "")) if isinstance(result, Mapping) else ""
        match = _USER_AGENT_VERSION.match(agent)
        return match.group(1) if match else None

    async def turn(self, channel: Channel, prompt: str, room: Path) -> WarmTurn:
        rpc = self._client(channel)
        # A new thread has no history; read-only sandbox, and no approval ever asked.
        params = {"cwd": str(room), "sandbox": "read-only", "approvalPolicy": "never"}
        started = await rpc.request("thread/start", {**params, "ephemeral": True})
        thread = _mapping(_mapping(started).get("thread")).get("id")
        if not isinstance(thread, str):
            raise ProtocolError("thread/start answered without a thread id")
        texts: list[str] = []
        ended: list[Mapping[str, Any]] = []

        def on_note(message: dict[str, Any]) -> None:
            params = _mapping(message.get("params"))
            if params.get("threadId") != thread:
                return
            if message.get("method") == "item/completed":
                item = _mapping(params.get("item"))
                if item.get("type") == "agentMessage":
                    texts.append(str(item.get("text", "")))
            elif message.get("method") == "turn/completed":
                ended.append(_mapping(params.get("turn")))

        text_input = [{"type": "text", "text": prompt}]
        turn = await rpc.request("turn/start", {"threadId": thread, "input": text_input}, on_note)
        turn_id = _mapping(_mapping(turn).get("turn")).get("id")
        self._turn = (thread, str(turn_id))
        try:
            await rpc.pump(lambda: bool(ended), on_note)
        finally:
            self._turn = None
        status = ended[0].get("status")
        if status == "completed":
            return WarmTurn(answer_verdict(texts[-1] if texts else "", prompt))
        if status == "interrupted":
            return WarmTurn(Verdict(Status.ERROR, detail="the turn was interrupted"))
        return WarmTurn(self._failure(_mapping(ended[0].get("error"))))

    def _failure(self, error: Mapping[str, Any]) -> Verdict:
        message = str(error.get("message") or "the turn failed")
        info = error.get("codexErrorInfo")
        status = None
        if isinstance(info, Mapping):
            failed = _mapping(info.get("httpConnectionFailed"))
            status = failed.get("httpStatusCode")
        if status in (401, 403) or info == "unauthorized":
            return Verdict(Status.AUTH, detail=self.adapter.auth_detail(message))
        if info in _RATE_LIMITED or status == 429 or (isinstance(status, int) and status >= 500):
            return Verdict(
                Status.RATE_LIMITED,
                detail=first_line(message),
                retry_after_s=parse_retry_after(message),
            )
        return failure_verdict(self.adapter, message)

    async def cancel(self, channel: Channel) -> None:
        if self._turn is not None:
            thread, turn = self._turn
            await self._client(channel).post("turn/interrupt", {"threadId": thread, "turnId": turn})


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def lean_config(instructions: Path) -> list[str]:
    """The `-c` overrides of a lean call: council's instructions (`instructions`, a file) in
    place of codex's, and no tool at all. `-s read-only` stays as it is."""
    settings = [
        f"model_instructions_file={json.dumps(str(instructions))}",
        *LEAN_SETTINGS,
        *(f"features.{name}=false" for name in LEAN_FEATURES),
    ]
    return [arg for setting in settings for arg in ("-c", setting)]


def retry_caps(extra_args: Sequence[str], codex_home: Path) -> list[str]:
    """`-c model_providers.<id>.request_max_retries=0 ...` for the provider this call will
    use, when the user defined it (config.toml, a `--profile` file, or `-c model_provider=`
    in extra_args); nothing for a built-in provider, which codex does not let us change."""
    config = _toml(codex_home / "config.toml")
    provider = config.get("model_provider")
    providers = dict(config.get("model_providers") or {})
    for flag, value in pairwise([*extra_args, ""]):
        if flag in ("-p", "--profile") and value:
            profile = _toml(codex_home / f"{value}.config.toml")
            provider = profile.get("model_provider", provider)
            providers.update(profile.get("model_providers") or {})
        elif flag in ("-c", "--config") and value.partition("=")[0].strip() == "model_provider":
            provider = value.partition("=")[2].strip().strip("\"'")
        elif flag == "--oss":
            provider = None  # a built-in local provider
    if not isinstance(provider, str) or provider not in providers or not _BARE_KEY.match(provider):
        return []
    return [arg for cap in RETRY_CAPS for arg in ("-c", f"model_providers.{provider}.{cap}")]


def _codex_home(env: Mapping[str, str]) -> Path:
    """Where codex reads its config: CODEX_HOME as the call will see it (the config's `env`
    for codex first), else ~/.codex."""
    return Path(env.get("CODEX_HOME") or os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def _toml(path: Path) -> dict[str, Any]:
    """A codex config file's settings; {} when it is missing or unreadable (codex itself then
    says what is wrong with it)."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
