"""Claude Code (`@anthropic-ai/claude-code`), print mode with a JSON result object."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from council.adapters.base import (
    Adapter,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
    cost_figure,
    parse_retry_after,
    token_count,
)


class ClaudeAdapter(Adapter):
    name = "claude"
    vendor = "anthropic"
    binary = "claude"
    tested_version = "2.1.197"
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
    state_dirs = ("~/.claude",)
    host_dir_env = "CLAUDE_CONFIG_DIR"
    host_files = (
        ("claude/commands/debate.md", "commands/debate.md"),
        ("claude/commands/review.md", "commands/review.md"),
        ("claude/skills/council/SKILL.md", "skills/council/SKILL.md"),
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
            # Lean: "" is no tool at all (2.1.197), and council's system prompt replaces the
            # agent's (12.3 KB a request down to 1.2 KB, docs/lean.md).
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
        payload = _result_object(result.stdout)
        if payload is not None and payload.get("is_error"):
            message = str(payload.get("result") or payload.get("subtype") or "error")
            status = payload.get("api_error_status")
            if status in (401, 403):
                return Verdict(Status.AUTH, detail=self.auth_detail(message))
            if status == 429 or (isinstance(status, int) and status >= 500):
                return Verdict(
                    Status.RATE_LIMITED, detail=message, retry_after_s=parse_retry_after(message)
                )
            return self.classify_failure(result.exit_code or 1, message + "\n" + result.stderr)
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        payload = _result_object(result.stdout)
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
        payload = _result_object(result.stdout)
        if payload is None:
            return None
        cost = cost_figure(payload.get("total_cost_usd"))
        per_model = payload.get("modelUsage")
        if isinstance(per_model, dict) and per_model:
            counts = [
                (
                    token_count(m["inputTokens"])
                    + token_count(m.get("cacheReadInputTokens", 0))
                    + token_count(m.get("cacheCreationInputTokens", 0)),
                    token_count(m["outputTokens"]),
                )
                for m in per_model.values()
            ]
        elif isinstance(usage := payload.get("usage"), dict):
            counts = [
                (
                    token_count(usage["input_tokens"])
                    + token_count(usage.get("cache_read_input_tokens", 0))
                    + token_count(usage.get("cache_creation_input_tokens", 0)),
                    token_count(usage["output_tokens"]),
                )
            ]
        elif cost is None:
            return None
        else:
            return Usage(cost_usd=cost)
        return Usage(sum(c[0] for c in counts), sum(c[1] for c in counts), cost)

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
        # macOS keeps the login in the keychain, which we do not open.
        return AuthState(None, "no key in the environment or credentials file")


def _result_object(stdout: str) -> dict | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        # stream noise before the object: take the last line that is one
        for line in reversed(text.splitlines()):
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                    break
                except json.JSONDecodeError:
                    continue
        else:
            return None
    return value if isinstance(value, dict) else None
