"""OpenAI Codex CLI (`@openai/codex`), `codex exec` in the read-only sandbox."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from council.adapters.base import (
    COUNCIL_ROOM_DIR,
    AuthState,
    Billing,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
)
from council.adapters.codex_config import (
    API_KEY_ENV,
    api_key_refusal,
    codex_home_of,
    credentials,
    retry_caps,
    saved_key_billing,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import (
    AUTH_PATTERNS,
    RATE_LIMIT_PATTERNS,
    first_line,
    parse_retry_after,
)
from council.adapters.host import IdeHost
from council.adapters.output import json_objects, token_count
from council.adapters.warm import (
    Channel,
    JsonRpc,
    LeanStart,
    ProtocolError,
    SessionDriver,
    WarmLaunch,
    WarmMode,
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


class CodexAdapter(WarmMode, IdeHost, KeepsState):
    name = "codex"
    vendor = "openai"
    # gpt-5.2, gpt-5.2-codex, o3, o4-mini, codex-mini-latest, chatgpt-4o-latest.
    model_families = ((r"gpt|chatgpt|o\d|codex", "openai"),)
    binary = "codex"
    tested_version = "0.171.0"
    # The previous pin: the realcli suite passed on it too (2026-11-28), and the fake CLI
    # and the replayed-output tests still speak it.
    tested_versions = ("0.169.0",)
    install_hint = "npm install -g @openai/codex"
    login_hint = "run `codex login`, or set CODEX_API_KEY (codex does not read OPENAI_API_KEY)"
    sandbox = "-s read-only"
    # Exactly what codex reads: its home, its key, and the two headers its built-in `openai`
    # provider takes from the environment (OpenAI-Organization, OpenAI-Project). Not
    # OPENAI_API_KEY nor the rest of OPENAI_*: codex never reads the key (nor OPENAI_BASE_URL),
    # so passing it would only put a metered key into a process that has no use for it. A
    # provider of the user's own that reads a variable (`env_key`) gets it through `pass_env`
    # (`auth_state` says so when it is missing).
    env_prefixes = ()
    env_names = ("CODEX_HOME", API_KEY_ENV, "OPENAI_ORGANIZATION", "OPENAI_PROJECT")
    host_markers = ("CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")
    forbidden_args = (
        "--dangerously-bypass-approvals-and-sandbox",
        "--full-auto",
        "--yolo",
        "-s=danger-full-access",
        "--sandbox=danger-full-access",
    )
    # 0.169.0 dropped custom prompts (`/prompts:debate` is an unknown command); it reads
    # agent skills from <project>/.agents/skills/ and $CODEX_HOME/skills/ (0.171.0's strings).
    host_dirs = {"project": ".agents", "user": "~/.codex"}
    host_dir_env = "CODEX_HOME"
    # 0.169.0: its sqlite databases (state, logs, memories, goals, queue), shell snapshots,
    # tmp/ and .tmp/ under CODEX_HOME; TMPDIR for its sandbox's mount targets.
    state_dirs = ("~/.codex",)
    host_files = (
        ("codex/skills/council/SKILL.md", "skills/council/SKILL.md"),
        ("codex/skills/council-review/SKILL.md", "skills/council-review/SKILL.md"),
    )
    # 0.171.0 runs `exec`'s commands in its sandbox and never asks: council writes its record
    # in the project (workspace-write is enough for --sim), and its seats reach the network
    # and write their own homes. A prefix rule (`decision="allow"`) does not lift the sandbox.
    host_headless = (
        "codex exec --sandbox danger-full-access ... (council's seats need the network and "
        "their own homes; --sandbox workspace-write runs --sim only)"
    )
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
    # codex 0.169.0 when a provider's key variable (`env_key`) is unset:
    # "Missing environment variable: `OPENAI_API_KEY`." (exit 1)
    auth_patterns = (
        *AUTH_PATTERNS,
        re.compile(r"missing environment variable: `\w*(?:KEY|TOKEN)\w*`", re.I),
    )

    def whole_output(self, tool: Tool) -> bool:
        return False  # plain text

    def build(self, tool: Tool, request: Request) -> Invocation:
        # The answer file goes to the record, not the room: rooms are read-only. `--json`:
        # events on stdout, the turn's token counts among them (`read_usage`).
        argv = [
            *tool.command,
            "exec",
            "--skip-git-repo-check",
            "--ephemeral",
            "--color",
            "never",
            "--json",
            "-s",
            "read-only",
            "-o",
            str(request.answer_path),
        ]
        argv += retry_caps(self.settings.extra_args, codex_home_of(self.settings.env))
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
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """JSON-RPC on stdio; a thread per call, in the read-only sandbox with approvals
        never asked, its cwd the seat's room. Model, effort, the retry caps and lean mode's
        settings as config overrides, as a spawned call has them: the app-server reads them
        for every thread it starts."""
        lean = self.lean_start(lean)
        argv = [*tool.command]
        argv += retry_caps(self.settings.extra_args, codex_home_of(self.settings.env))
        room_files: dict[str, str] = {}
        if lean is not None:
            room_files[LEAN_INSTRUCTIONS] = lean.prompt
            argv += lean_config(lean.room / LEAN_INSTRUCTIONS)
        if model := model or self.settings.model:
            argv += ["-c", f'model="{model}"']
        if effort in self.efforts:
            argv += ["-c", f'model_reasoning_effort="{effort}"']
        argv += [*self.settings.extra_args, "app-server"]
        return WarmLaunch(
            argv=tuple(argv),
            room_files=room_files,
            driver=lambda: CodexAppDriver(self),
            lean=lean is not None,
        )

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        """A failure is read from what codex said went wrong (its `error` and `turn.failed`
        events, and stderr), never from the answer text the events also carry. Without
        `--json` (0.169.0) it echoes the prompt on stderr: "401" or "rate limit" in a debated
        log must not be read as codex's own error either way."""
        if result.exit_code != 0:
            stderr = result.stderr.replace(prompt.strip(), "") if prompt.strip() else result.stderr
            result = replace(result, stdout=_failure_text(result.stdout), stderr=stderr)
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        if result.answer_file_text is not None and result.answer_file_text.strip():
            return result.answer_file_text
        # The last agent message of the events, when codex wrote no answer file.
        texts = [
            str(_mapping(event.get("item")).get("text", ""))
            for event in _events(result.stdout)
            if event.get("type") == "item.completed"
            and _mapping(event.get("item")).get("type") == "agent_message"
        ]
        return texts[-1] if texts else ""

    def read_usage(self, result: RawResult) -> Usage | None:
        """The `usage` of the run's `turn.completed` event (`codex exec --json`, 0.169.0 and
        0.171.0), summed over the turn's requests. `input_tokens` already includes
        `cached_input_tokens` and `output_tokens` the `reasoning_output_tokens` (the Responses
        API's counts), so input is every token the model read, as council counts it for
        every CLI. A failed turn reports none. (The `tokens used` number codex prints on stderr
        without `--json` is input minus cached input plus output: no figure council keeps.)
        """
        for event in reversed(_events(result.stdout)):
            if event.get("type") == "turn.completed" and isinstance(event.get("usage"), Mapping):
                usage = event["usage"]
                tokens = (usage["input_tokens"], usage["output_tokens"])
                return Usage(token_count(tokens[0]), token_count(tokens[1]))
        return None

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        if codex_home := env.get("CODEX_HOME"):
            return (Path(codex_home),), ()
        return super().state_paths(env, home)

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        """What authenticates the provider codex will use, as the call's environment has it.

        OpenAI (the built-in `openai`, or a provider of the user's own with
        `requires_openai_auth`): CODEX_API_KEY, else `auth.json` in CODEX_HOME (written by
        `codex login`; with `cli_auth_credentials_store` keyring or auto the login may be in the
        OS keyring, which council cannot look at). A provider of the user's own with
        `env_key`: that variable, which must reach codex (`pass_env`)."""
        return credentials(self, env, home)

    def billing(self, env: Mapping[str, str], home: Path) -> Billing:
        """`codex login` writes auth.json: a ChatGPT login (tokens: the user's plan), or with
        `--with-api-key` an API key (metered), which the file says by its fields."""
        return saved_key_billing(super().billing(env, home))

    def warm_refusal(self, tool: Tool, env: Mapping[str, str], home: Path) -> str | None:
        """`codex app-server` does not read CODEX_API_KEY (0.169.0 and 0.171.0: its requests
        carry no key; `codex exec` sends it): with that key and no `codex login`, every call
        spawns `codex exec`."""
        return api_key_refusal(self.settings, env, home)


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
        thread_info = _mapping(_mapping(started).get("thread"))
        thread = thread_info.get("id")
        if not isinstance(thread, str):
            raise ProtocolError("thread/start answered without a thread id")
        # The thread's metadata names the model its turns run on (0.171.0 in the thread and
        # beside it); `codex exec --json` names none, so a spawned call's is not reported.
        model = thread_info.get("model") or _mapping(started).get("model")
        served = (model,) if isinstance(model, str) and model.strip() else ()
        texts: list[str] = []
        ended: list[Mapping[str, Any]] = []
        counts: list[Mapping[str, Any]] = []

        def on_note(message: dict[str, Any]) -> None:
            params = _mapping(message.get("params"))
            if params.get("threadId") != thread:
                return
            if message.get("method") == "thread/tokenUsage/updated":
                counts.append(_mapping(_mapping(params.get("tokenUsage")).get("total")))
            elif message.get("method") == "item/completed":
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
        usage = _turn_usage(counts[-1]) if counts else None
        if status == "completed":
            verdict = answer_verdict(texts[-1] if texts else "", prompt, usage)
            return WarmTurn(replace(verdict, served=served))
        if status == "interrupted":
            verdict = Verdict(Status.ERROR, detail="the turn was interrupted")
        else:
            verdict = self._failure(_mapping(ended[0].get("error")))
        return WarmTurn(replace(verdict, usage=usage, served=served))

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


def _turn_usage(total: Mapping[str, Any]) -> Usage | None:
    """A call's figures from its thread's running `total` (a new thread per call, so the
    thread's total is the call's): `inputTokens` includes `cachedInputTokens` and
    `outputTokens` the `reasoningOutputTokens`, as in `codex exec --json`."""
    try:
        return Usage(token_count(total["inputTokens"]), token_count(total["outputTokens"]))
    except (KeyError, ValueError):
        return None  # a shape council does not know: no figure rather than a wrong one


def _events(stdout: str) -> list[Mapping[str, Any]]:
    """The JSON events of `codex exec --json`, one a line."""
    return [e for e in json_objects(stdout) if isinstance(e, Mapping)]


def _failure_text(stdout: str) -> str:
    """What codex said went wrong in its events (`error`, `turn.failed`), and any line of
    stdout that is no event; never an agent message."""
    lines: list[str] = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            lines.append(line)
            continue
        if not isinstance(event, Mapping):
            continue
        if event.get("type") == "error":
            lines.append(str(event.get("message", "")))
        elif event.get("type") == "turn.failed":
            lines.append(str(_mapping(event.get("error")).get("message", "")))
    return "\n".join(lines)


def lean_config(instructions: Path) -> list[str]:
    """The `-c` overrides of a lean call: council's instructions (`instructions`, a file) in
    place of codex's, and no tool at all. `-s read-only` stays as it is."""
    settings = [
        f"model_instructions_file={json.dumps(str(instructions))}",
        *LEAN_SETTINGS,
        *(f"features.{name}=false" for name in LEAN_FEATURES),
    ]
    return [arg for setting in settings for arg in ("-c", setting)]
