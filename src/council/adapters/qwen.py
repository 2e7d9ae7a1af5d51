"""Qwen Code (`@qwen-code/qwen-code`), JSON event array in plan (read-only) approval mode."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from council.adapters.base import (
    AuthState,
    Invocation,
    RawResult,
    Request,
    Tool,
    Usage,
    Verdict,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import AUTH_PATTERNS
from council.adapters.host import IdeHost
from council.adapters.output import json_objects, token_count
from council.adapters.warm import (
    AcpOptions,
    AcpOutcome,
    LeanStart,
    WarmLaunch,
    WarmMode,
    WarmTurn,
)

# After its own retries qwen -o json reports an API failure as a *successful* result whose
# text is the error, and exits 0 (measured with 0.15.10 against 429, 401 and 400).
_API_ERROR = re.compile(r"^\s*\[API Error:")


QWEN_SETTINGS = '{"memory": {"enableManagedAutoMemory": false}}\n'

# Every built-in tool qwen has, by name, as its bundle's `ToolNames` lists them (every tool
# class takes its name from there): lean mode excludes them all. A name a version does not
# know is ignored (0.15.10 answers lean with the whole list), so every version gets it.
# Excluding only what plan mode declares is not enough: with `tool_search` gone, 0.24.x
# declares its deferred tools (cron_*, enter_worktree, update_goal, ...) instead. qwen has no
# allow-list that covers every tool: `--core-tools` leaves out the ones it calls non-core
# (agent, skill, tool_search, ...) and safe mode ignores it; `tools.eager` only defers.
_TOOLS_0_15 = (
    "edit",
    "write_file",
    "read_file",
    "grep_search",
    "glob",
    "run_shell_command",
    "todo_write",
    "save_memory",
    "agent",
    "skill",
    "exit_plan_mode",
    "web_fetch",
    "list_directory",
    "lsp",
    "ask_user_question",
    "cron_create",
    "cron_list",
    "cron_delete",
    "task_stop",
    "send_message",
    "monitor",
    "tool_search",
    "structured_output",
)
_ADDED_BY_0_24 = (
    "exec",
    "zoom_image",
    "enter_plan_mode",
    "web_search",
    "image_gen",
    "loop_wakeup",
    "create_sub_session",
    "list_agents",
    "task_create",
    "task_update",
    "task_list",
    "team_create",
    "team_delete",
    "team_plan_approval",
    "request_shutdown",
    "notebook_edit",
    "tool_call",
    "read_mcp_resource",
    "enter_worktree",
    "exit_worktree",
    "workflow",
    "artifact",
    "record_artifact",
    "record_source",
    "report_findings",
    "get_goal",
    "update_goal",
    "omni_downsample_image",
    "omni_downscale_video",
    "omni_downsample_audio",
    "omni_extract_keyframes",
    "omni_extract_audio",
    "omni_clip_video",
    "omni_convert_image",
    "omni_transcribe_audio",
    "omni_clip_image",
    "omni_clip_audio",
    "omni_caption_image",
    "omni_caption_audio",
    "omni_ocr_image",
    "omni_understand_video_segments",
    "omni_recall_media_memory",
    "propose_goal",
    "display_image",
)
LEAN_EXCLUDED = _TOOLS_0_15 + _ADDED_BY_0_24


class QwenAdapter(WarmMode, IdeHost, KeepsState):
    name = "qwen"
    vendor = "alibaba"
    binary = "qwen"
    tested_version = "0.24.4"
    # The contract tests pass on the previous pin too (the same argv and environment).
    tested_versions = ("0.15.10",)
    install_hint = "npm install -g @qwen-code/qwen-code"
    login_hint = (
        "run `qwen` and type /auth, or set OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL "
        "for an OpenAI-compatible endpoint"
    )
    sandbox = "--approval-mode plan, safe mode"
    env_prefixes = ("OPENAI_", "DASHSCOPE_", "QWEN_")
    # QWEN_CODE_NO_RELAUNCH: qwen otherwise runs itself again in a second node process (to
    # raise its heap limit): ~1.1 s more CPU and ~210 MB more a call (0.15.10). 0.24.x's
    # launcher (`cli-entry.js`) still starts the CLI in a node process of its own (for
    # `--expose-gc`) whatever its environment says, and waits for it: ~45 MB and ~0.03 s of
    # CPU; the runner kills both with the process group.
    # QWEN_CODE_SAFE_MODE (what `--safe-mode` sets; a version without it ignores it): none of
    # the user's hooks, MCP servers, extensions, skills or QWEN.md reach a seat, on every
    # version that has it, with no flag another version would refuse.
    fixed_env = {"QWEN_CODE_NO_RELAUNCH": "true", "QWEN_CODE_SAFE_MODE": "true"}
    host_markers = ("QWEN_CODE",)
    forbidden_args = ("--yolo", "-y", "--approval-mode=yolo")
    host_dirs = {"project": ".qwen", "user": "~/.qwen"}
    # 0.15.10: debug logs, projects/<path>/ (chats, memory), settings.json migrations.
    state_dirs = ("~/.qwen",)
    host_files = (
        ("qwen/commands/debate.toml", "commands/debate.toml"),
        ("qwen/commands/review.toml", "commands/review.toml"),
    )
    # 0.24.4 reads each line of a heredoc as a command of its own, so an allow rule for
    # `council` does not cover the question's line and headless qwen declines it.
    host_headless = (
        "qwen -p ... --approval-mode yolo, in a sandbox (--allowed-tools "
        '"run_shell_command(council)" does not cover the heredoc\'s lines in 0.24.4)'
    )
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
            # qwen's: what qwen adds to a request, 54.2 KB down to 2.9 KB (0.15.10), 58.2 KB
            # down to 11.5 KB (0.24.4, which lists its bundled skills even in safe mode).
            argv += lean_args(lean)
        if model := self.model_for(request):
            argv += ["-m", model]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
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

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """`~/.qwen`, and where QWEN_HOME and QWEN_RUNTIME_DIR move qwen's state: confined
        without them, 0.15.10 dies writing `$QWEN_HOME/output-language.md`."""
        dirs, files = super().state_paths(env, home)
        moved = (_qwen_path(env[n], home) for n in ("QWEN_HOME", "QWEN_RUNTIME_DIR") if env.get(n))
        return (*dirs, *moved), files

    # Qwen's own models, for `quorum.distinct: family` (qwen also serves others' models).
    model_families = (("qwen|qwq", "qwen"),)

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The `result` event's `stats.models` keys (gemini's shape: 0.15.10), most output
        (`candidates`) first; its memory extractor's model among them when it ran. The ACP
        mode names no model that served a prompt (its session lists the selected one only),
        so a warm call's model is not reported."""
        from council.adapters.output import output_figure, ranked_models

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
        """What selects an auth type headless (0.15.10 and 0.24.4 alike): OPENAI_API_KEY with
        OPENAI_BASE_URL and a model (OPENAI_MODEL; 0.24.x also QWEN_MODEL), QWEN_OAUTH, or
        `security.auth.selectedType` in qwen's settings.json. A key alone, or
        DASHSCOPE_API_KEY, ends `No auth type is selected` (exit 1)."""
        model = next((n for n in ("OPENAI_MODEL", "QWEN_MODEL") if env.get(n)), None)
        if env.get("OPENAI_API_KEY") and env.get("OPENAI_BASE_URL") and model:
            return AuthState(True, f"OPENAI_API_KEY, OPENAI_BASE_URL, {model}")
        if env.get("QWEN_OAUTH"):
            return AuthState(True, "QWEN_OAUTH")
        settings = _qwen_path(env.get("QWEN_HOME") or "~/.qwen", home) / "settings.json"
        try:
            auth = json.loads(settings.read_text(encoding="utf-8")).get("security", {}).get("auth")
        except FileNotFoundError:
            auth = None
        except (OSError, ValueError, AttributeError):
            # settings.json may hold comments, which qwen reads and json does not
            return AuthState(None, f"{settings} could not be read")
        if isinstance(auth, dict) and auth.get("selectedType"):
            return AuthState(True, f"{settings} (auth type {auth['selectedType']})")
        if env.get("OPENAI_API_KEY"):
            return AuthState(
                False, "OPENAI_API_KEY alone (no OPENAI_BASE_URL and OPENAI_MODEL) selects no auth"
            )
        return AuthState(False, f"no OPENAI_API_KEY and no auth type in {settings}")

    # -- warm worker: `qwen --acp` (0.15.10, 0.24.4) ---------------------------------------

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """ACP, each session in plan mode (`--approval-mode plan` at spawn, checked on every
        session; qwen refuses a write itself). The room's settings, and lean a lean call's
        flags, are the spawned call's."""
        lean = self.lean_start(lean)
        argv = [*tool.command, "--acp", "--approval-mode", "plan"]
        if lean is not None:
            argv += lean_args(lean.prompt)
        if model := model or self.settings.model:
            argv += ["-m", model]
        argv += self.settings.extra_args
        return WarmLaunch(
            argv=tuple(argv),
            room_files={".qwen/settings.json": QWEN_SETTINGS},
            acp=AcpOptions(mode="plan"),
            lean=lean is not None,
        )

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """0.15.10 and 0.24.4 report a refused model call as `-32603 Internal error` with
        the API's words in `data.details` (`401 ...`), which the failure patterns read; the
        usage of each model request comes in the `_meta.usage` of a session update. A
        cancelled prompt ends in an error (0.15.10) or stopReason `cancelled` (0.24.4)."""
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


def lean_args(system_prompt: str) -> list[str]:
    """Lean mode's flags: council's system prompt, and every tool qwen has left out."""
    return ["--system-prompt", system_prompt, "--exclude-tools", ",".join(LEAN_EXCLUDED)]


def _qwen_path(value: str, home: Path) -> Path:
    """A path as qwen reads QWEN_HOME: `~` and `~/...` under HOME."""
    if value == "~":
        return home
    return home / value[2:] if value.startswith("~/") else Path(value)


def _result_event(stdout: str) -> dict | None:
    """The last `result` event of `-o json` (one JSON array of events; JSONL also read)."""
    events: list[object] = []
    for value in json_objects(stdout):
        events.extend(value if isinstance(value, list) else [value])
    for event in reversed(events):
        if isinstance(event, dict) and event.get("type") == "result":
            return event
    return None
