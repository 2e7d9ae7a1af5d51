"""Qwen Code (`@qwen-code/qwen-code`), JSON event array in plan (read-only) approval mode."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from council.adapters.base import (
    AUTH_PATTERNS,
    Adapter,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Tool,
    Usage,
    Verdict,
    json_objects,
    token_count,
)
from council.adapters.warm import AcpOptions, AcpOutcome, WarmLaunch, WarmTurn

# After its own retries qwen -o json reports an API failure as a *successful* result whose
# text is the error, and exits 0 (measured with 0.15.10 against 429, 401 and 400).
_API_ERROR = re.compile(r"^\s*\[API Error:")


QWEN_SETTINGS = '{"memory": {"enableManagedAutoMemory": false}}\n'

# Every tool 0.15.10 offers in plan mode, by name (`--core-tools` keeps the deferred ones such
# as tool_search and agent): lean mode declares none.
LEAN_EXCLUDED = (
    "tool_search",
    "agent",
    "task_stop",
    "send_message",
    "skill",
    "list_directory",
    "read_file",
    "grep_search",
    "glob",
    "todo_write",
    "ask_user_question",
    "exit_plan_mode",
    "web_fetch",
)


class QwenAdapter(Adapter):
    name = "qwen"
    vendor = "alibaba"
    binary = "qwen"
    tested_version = "0.15.10"
    install_hint = "npm install -g @qwen-code/qwen-code"
    login_hint = "run `qwen` and type /auth, or set OPENAI_API_KEY for an OpenAI-compatible key"
    sandbox = "--approval-mode plan"
    env_prefixes = ("OPENAI_", "DASHSCOPE_", "QWEN_")
    # 0.15.10 otherwise runs itself again in a second node process (to raise its heap limit
    # when settings ask it to): ~1.1 s more CPU and ~210 MB more a call.
    fixed_env = {"QWEN_CODE_NO_RELAUNCH": "true"}
    host_markers = ("QWEN_CODE",)
    forbidden_args = ("--yolo", "-y", "--approval-mode=yolo")
    host_dirs = {"project": ".qwen", "user": "~/.qwen"}
    # 0.15.10: debug logs, projects/<path>/ (chats, memory), settings.json migrations.
    state_dirs = ("~/.qwen",)
    host_files = (("qwen/commands/debate.toml", "commands/debate.toml"),)
    soft_timeout_s = 300.0
    soft_timeout_high_s = 300.0
    auth_patterns = (*AUTH_PATTERNS, re.compile(r"no auth type is selected", re.I))
    # Unknown: qwen's model is whatever its auth set up (OPENAI_MODEL, settings); clis.md names
    # none. qwen takes no effort setting.
    strongest_model = None
    strongest_effort = None

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command, "-o", "json", "--approval-mode", "plan"]
        if (lean := self.lean_for(request)) is not None:
            # Plan mode stays; every tool left out and council's system prompt in place of
            # qwen's (54.3 KB a request down to 2.6 KB, docs/lean.md).
            argv += ["--system-prompt", lean, "--exclude-tools", ",".join(LEAN_EXCLUDED)]
        if model := self.model_for(request):
            argv += ["-m", model]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
            env=dict(self.fixed_env),
            # qwen 0.15 reads settings from its working directory (the seat's room): its
            # managed auto-memory would make a second model request after every answer, and
            # the call would wait for it.
            room_files={".qwen/settings.json": QWEN_SETTINGS},
        )

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        if result.exit_code == 0:
            try:
                text = self.extract(result)
            except ValueError:
                text = ""
            if _API_ERROR.match(text):
                return self.classify_failure(result.exit_code, text + "\n" + result.stderr)
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        event = _result_event(result.stdout)
        if event is None:
            raise ValueError("expected a JSON array with a `result` event")
        if event.get("is_error"):
            raise ValueError(f"qwen reported an error: {event.get('result')}")
        return str(event.get("result") or "")

    def read_usage(self, result: RawResult) -> Usage | None:
        """The `result` event's `usage`: qwen's sum over every model call of the run, its
        background memory extractor included (0.15.10 starts one after a prompt unless
        `memory.enableManagedAutoMemory` is false). qwen prints no cost.

        `input_tokens` already holds the cached tokens (qwen copies the API's prompt_tokens,
        which include `cache_read_input_tokens`), so that figure is not added again;
        `output_tokens` is the API's completion_tokens, reasoning included.
        """
        event = _result_event(result.stdout)
        usage = event.get("usage") if event is not None else None
        if not isinstance(usage, dict):
            return None
        return Usage(token_count(usage["input_tokens"]), token_count(usage["output_tokens"]))

    # Qwen's own models, for `quorum.distinct: family` (qwen also serves others' models).
    model_families = (("qwen|qwq", "qwen"),)

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The `result` event's `stats.models` keys (gemini's shape: 0.15.10), most output
        (`candidates`) first; its memory extractor's model among them when it ran. The ACP
        mode names no model that served a prompt (its session lists the selected one only),
        so a warm call's model is not reported."""
        from council.adapters.base import output_figure, ranked_models

        event = _result_event(result.stdout)
        stats = event.get("stats") if event is not None else None
        models = stats.get("models") if isinstance(stats, dict) else None
        if not isinstance(models, dict):
            return ()
        return ranked_models(
            {
                str(name): output_figure((figures.get("tokens") or {}).get("candidates"))
                if isinstance(figures, dict)
                else 0
                for name, figures in models.items()
            }
        )

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        for name in ("OPENAI_API_KEY", "DASHSCOPE_API_KEY"):
            if env.get(name):
                return AuthState(True, name)
        creds = home / ".qwen" / "oauth_creds.json"
        if creds.is_file():
            return AuthState(True, str(creds))
        return AuthState(False, "no OPENAI_API_KEY and no ~/.qwen/oauth_creds.json")

    # -- warm worker: `qwen --acp` (0.15.10) -----------------------------------------------

    def warm_launch(
        self, tool: Tool, *, model: str | None, effort: str | None
    ) -> WarmLaunch | None:
        """ACP, each session in plan mode (`--approval-mode plan` at spawn, checked on every
        session; qwen refuses a write itself). The room's settings are the spawned call's."""
        argv = [*tool.command, "--acp", "--approval-mode", "plan"]
        if model := model or self.settings.model:
            argv += ["-m", model]
        argv += self.settings.extra_args
        return WarmLaunch(
            argv=tuple(argv),
            room_files={".qwen/settings.json": QWEN_SETTINGS},
            acp=AcpOptions(mode="plan"),
        )

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """0.15.10 reports a refused model call as `-32603 Internal error` with the API's
        words in `data.details` (`401 ...`), which the failure patterns read; the usage of
        each model request comes in the `_meta.usage` of a session update."""
        turn = super().acp_verdict(outcome, prompt)
        if outcome.error is not None:
            return turn
        counts = [m["usage"] for m in outcome.update_meta if isinstance(m.get("usage"), dict)]
        usage = None
        if counts:
            try:
                usage = Usage(
                    sum(token_count(c["inputTokens"]) for c in counts),
                    sum(token_count(c["outputTokens"]) for c in counts),
                )
            except (KeyError, ValueError):
                usage = None
        return replace(turn, verdict=replace(turn.verdict, usage=usage))


def _result_event(stdout: str) -> dict | None:
    """The last `result` event of `-o json` (one JSON array of events; JSONL also read)."""
    events: list[object] = []
    for value in json_objects(stdout):
        events.extend(value if isinstance(value, list) else [value])
    for event in reversed(events):
        if isinstance(event, dict) and event.get("type") == "result":
            return event
    return None
