"""OpenAI Codex CLI (`@openai/codex`), `codex exec` in the read-only sandbox."""

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
)


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
            # council's retry policy is the one in force
            "-c",
            "request_max_retries=1",
            "-c",
            "stream_max_retries=1",
        ]
        if model := self.model_for(request):
            argv += ["-m", model]
        if effort := self.effort_for(request):
            argv += ["-c", f'model_reasoning_effort="{effort}"']
        argv += [*self.settings.extra_args, "-"]
        return Invocation(
            argv=tuple(argv), stdin=request.prompt.encode(), answer_file=request.answer_path
        )

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
