"""Google Gemini CLI (`@google/gemini-cli`), JSON output in plan (read-only) approval mode."""

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
    Verdict,
    first_line,
)

EXIT_AUTH = 41
EXIT_INPUT = 42
EXIT_TURN_LIMIT = 53
EXIT_UNTRUSTED = 55


class GeminiAdapter(Adapter):
    name = "gemini"
    vendor = "google"
    binary = "gemini"
    tested_version = "0.61.0"
    install_hint = "npm install -g @google/gemini-cli"
    login_hint = "run `gemini` once to log in, or set GEMINI_API_KEY"
    sandbox = "--approval-mode plan"
    env_prefixes = ("GEMINI_", "GOOGLE_")
    host_markers = ("GEMINI_CLI",)
    forbidden_args = ("--yolo", "-y", "--approval-mode=yolo")
    host_dirs = {"project": ".gemini", "user": "~/.gemini"}
    host_files = (("gemini/commands/debate.toml", "commands/debate.toml"),)
    soft_timeout_s = 300.0
    soft_timeout_high_s = 300.0
    # Unknown: clis.md names no gemini model, and without -m the CLI routes each prompt to a
    # model itself. gemini takes no effort setting.
    strongest_model = None
    strongest_effort = None

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command, "-o", "json", "--approval-mode", "plan"]
        # Without -m the CLI first calls a routing model: one more round trip.
        if model := self.model_for(request):
            argv += ["-m", model]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv),
            stdin=request.prompt.encode(),
            # The room is ours and read-only; an untrusted folder exits 55 headless.
            env={"GEMINI_CLI_TRUST_WORKSPACE": "true"},
        )

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        if result.exit_code == EXIT_AUTH:
            return Verdict(Status.AUTH, detail=self.auth_detail(result.stderr or result.stdout))
        if result.exit_code == EXIT_UNTRUSTED:
            return Verdict(
                Status.AUTH,
                detail="gemini refused the folder as untrusted; set "
                "GEMINI_CLI_TRUST_WORKSPACE=true or update gemini",
            )
        if result.exit_code in (EXIT_INPUT, EXIT_TURN_LIMIT):
            reason = (
                "rejected the input" if result.exit_code == EXIT_INPUT else "hit its turn limit"
            )
            return Verdict(
                Status.ERROR,
                detail=f"exit {result.exit_code}: gemini {reason}: {first_line(result.stderr)}",
            )
        return super().classify(result, prompt)

    def extract(self, result: RawResult) -> str:
        try:
            payload = json.loads(result.stdout)
        except json.JSONDecodeError as exc:
            raise ValueError("expected a JSON object with a `response` field") from exc
        if not isinstance(payload, dict):
            raise ValueError("expected a JSON object with a `response` field")
        return str(payload.get("response") or "")

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"):
            if env.get(name):
                return AuthState(True, name)
        creds = home / ".gemini" / "oauth_creds.json"
        if creds.is_file():
            return AuthState(True, str(creds))
        return AuthState(False, "no GEMINI_API_KEY and no ~/.gemini/oauth_creds.json")
