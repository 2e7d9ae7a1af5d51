"""Google Gemini CLI (`@google/gemini-cli`), JSON output in plan (read-only) approval mode."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from council.adapters.base import (
    COUNCIL_ROOM_DIR,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Status,
    Tool,
    Usage,
    Verdict,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import first_line, parse_retry_after
from council.adapters.host import IdeHost
from council.adapters.output import output_figure, ranked_models, token_count
from council.adapters.warm import (
    AcpOptions,
    AcpOutcome,
    LeanStart,
    WarmLaunch,
    WarmMode,
    WarmTurn,
)

LEAN_SYSTEM = f"{COUNCIL_ROOM_DIR}/gemini-system.md"
LEAN_POLICY = f"{COUNCIL_ROOM_DIR}/gemini-policy.toml"
# A user-tier policy rule (--policy) outranks every rule of the default tier, plan mode's
# included: every tool denied, so none is declared to the model.
DENY_ALL_POLICY = '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 999\n'

EXIT_AUTH = 41
EXIT_INPUT = 42
EXIT_TURN_LIMIT = 53
EXIT_UNTRUSTED = 55


def _dotenv(gemini_home: Path) -> dict[str, str]:
    """The variables of the first `.env` 0.61.0 finds from a seat's room (none there):
    `~/.gemini/.env`, else `~/.env`. Plain `NAME=value` lines; quotes stripped."""
    for path in (gemini_home / ".gemini" / ".env", gemini_home / ".env"):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        values = {}
        for line in lines:
            name, sep, value = line.strip().removeprefix("export ").partition("=")
            if sep and name.strip() and not name.startswith("#"):
                values[name.strip()] = value.strip().strip("\"'")
        return values
    return {}


def _selected_auth(settings: Path) -> str | None:
    """`security.auth.selectedType` of the user's settings (what `gemini` saves at login)."""
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    auth = data.get("security", {}).get("auth", {}) if isinstance(data, dict) else {}
    selected = auth.get("selectedType") if isinstance(auth, dict) else None
    return selected if isinstance(selected, str) and selected else None


def _auth_type_from_env(env: Mapping[str, str]) -> str | None:
    """The auth type 0.61.0 takes from its variables when none is selected, in its order."""
    if env.get("GOOGLE_GENAI_USE_GCA") == "true":
        return "oauth-personal"
    if env.get("GOOGLE_GENAI_USE_VERTEXAI") == "true":
        return "vertex-ai"
    if env.get("GOOGLE_GEMINI_BASE_URL"):
        return "gateway"
    if env.get("GEMINI_API_KEY"):
        return "gemini-api-key"
    if env.get("GEMINI_CLI_USE_COMPUTE_ADC") == "true":
        return "compute-default-credentials"
    return None


def _source(name: str, env: Mapping[str, str], gemini_home: Path) -> str:
    if env.get(name):
        return name
    for path in (gemini_home / ".gemini" / ".env", gemini_home / ".env"):
        if path.is_file():
            return f"{name} in {path}"
    return name


class GeminiAdapter(WarmMode, IdeHost, KeepsState):
    name = "gemini"
    vendor = "google"
    model_families = (("gemini|gemma", "google"),)
    binary = "gemini"
    tested_version = "0.61.0"
    install_hint = "npm install -g @google/gemini-cli"
    login_hint = "run `gemini` once to log in, or set GEMINI_API_KEY"
    sandbox = "--approval-mode plan"
    env_prefixes = ("GEMINI_", "GOOGLE_")
    # 0.61.0 otherwise starts a second node process to raise its heap limit, `--version`
    # included: ~0.9 s more CPU and ~150 MB more a call. council's prompts fit the default heap.
    fixed_env = {"GEMINI_CLI_NO_RELAUNCH": "true"}
    host_markers = ("GEMINI_CLI",)
    forbidden_args = ("--yolo", "-y", "--approval-mode=yolo")
    host_dirs = {"project": ".gemini", "user": "~/.gemini"}
    # 0.61.0: projects.json (atomically, through a temporary file beside it), history/ and
    # tmp/ per project, installation_id.
    state_dirs = ("~/.gemini",)
    host_files = (
        ("gemini/commands/debate.toml", "commands/debate.toml"),
        ("gemini/commands/review.toml", "commands/review.toml"),
    )
    # 0.61.0: --allowed-tools (deprecated) does not cover the heredoc the commands use (a
    # redirection); a policy rule does with allowRedirection. It refuses `$(` and backticks
    # anywhere in a command, even in a quoted heredoc: such a question never runs.
    host_headless = (
        "a policy in ~/.gemini/policies/council.toml: [[rule]] toolName = "
        '"run_shell_command", commandPrefix = "council", decision = "allow", priority = 100, '
        "allowRedirection = true (and gemini -p --skip-trust outside a trusted folder)"
    )
    soft_timeout_s = 300.0
    soft_timeout_high_s = 300.0
    # Unknown: clis.md names no gemini model, and without -m the CLI routes each prompt to a
    # model itself. gemini takes no effort setting.
    strongest_model = None
    strongest_effort = None

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command, "-o", "json", "--approval-mode", "plan"]
        # The room is ours and read-only; an untrusted folder exits 55 headless.
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        room_files: dict[str, str] = {}
        if (lean := self.lean_for(request)) is not None:
            room_files, lean_env, lean_args = self._lean_files(lean, request.room)
            env.update(lean_env)
            argv += lean_args
        # Without -m the CLI first calls a routing model: one more round trip.
        if model := self.model_for(request):
            argv += ["-m", model]
        argv += self.settings.extra_args
        return Invocation(
            argv=tuple(argv), stdin=request.prompt.encode(), env=env, room_files=room_files
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
        payload = _payload(result.stdout)
        if payload is None:
            raise ValueError("expected a JSON object with a `response` field")
        return str(payload.get("response") or "")

    def read_usage(self, result: RawResult) -> Usage | None:
        """`stats.models.<model>.tokens`, summed over the models the run called (without -m a
        routing model is one of them). gemini prints no cost.

        Input is `prompt` (the API's promptTokenCount, cached tokens included: `input` is
        prompt minus `cached`) plus `tool` (toolUsePromptTokenCount, input outside the
        prompt count); output is `candidates` plus `thoughts` (thinking tokens, which the
        API counts apart and claude's and codex's output counts include). In and out then
        add up to gemini's `total`. A failed run prints an error object and no stats.
        """
        payload = _payload(result.stdout)
        stats = payload.get("stats") if payload is not None else None
        models = stats.get("models") if isinstance(stats, dict) else None
        if not isinstance(models, dict) or not models:
            return None
        tokens = [model["tokens"] for model in models.values()]
        return Usage(
            sum(token_count(t["prompt"]) + token_count(t.get("tool", 0)) for t in tokens),
            sum(token_count(t["candidates"]) + token_count(t.get("thoughts", 0)) for t in tokens),
        )

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The keys of `stats.models`: every model the run called (without -m a routing model
        is one of them), the one that wrote most output first."""
        payload = _payload(result.stdout)
        stats = payload.get("stats") if payload is not None else None
        models = stats.get("models") if isinstance(stats, dict) else None
        return _stats_models(models) if isinstance(models, dict) else ()

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        """As 0.61.0 decides headless: the auth type selected in its settings, else the one
        its variables name; then that type's credentials. The variables may also come from
        `~/.gemini/.env` or `~/.env` (read when not set already). GOOGLE_API_KEY counts only
        for Vertex AI: alone it exits 41 ("Please set an Auth method")."""
        env = {**env, **self.settings.env}
        gemini_home = Path(env.get("GEMINI_CLI_HOME") or home)
        found = {**_dotenv(gemini_home), **env}
        selected = _selected_auth(gemini_home / ".gemini" / "settings.json")
        kind = selected or _auth_type_from_env(found)
        if kind is None:
            return AuthState(
                False, "no GEMINI_API_KEY and no auth method in ~/.gemini/settings.json"
            )
        if kind == "gemini-api-key":
            if found.get("GEMINI_API_KEY"):
                return AuthState(True, _source("GEMINI_API_KEY", env, gemini_home))
            if (gemini_home / ".gemini" / "gemini-credentials.json").is_file():
                return AuthState(None, "GEMINI_API_KEY unset; a key saved by `gemini` may be kept")
            return AuthState(False, "gemini-api-key selected, but GEMINI_API_KEY is not set")
        if kind == "oauth-personal":
            creds = gemini_home / ".gemini" / "oauth_creds.json"
            if creds.is_file():
                return AuthState(True, str(creds))
            if found.get("GOOGLE_APPLICATION_CREDENTIALS"):
                return AuthState(True, "GOOGLE_APPLICATION_CREDENTIALS")
            return AuthState(None, f"a Google login, not in {creds} (maybe in the keychain)")
        if kind == "vertex-ai":
            if found.get("GOOGLE_API_KEY"):
                return AuthState(True, _source("GOOGLE_API_KEY", env, gemini_home))
            project = found.get("GOOGLE_CLOUD_PROJECT") or found.get("GOOGLE_CLOUD_PROJECT_ID")
            if project and found.get("GOOGLE_CLOUD_LOCATION"):
                return AuthState(None, "Vertex AI by Application Default Credentials: not checked")
            return AuthState(
                False, "Vertex AI needs GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and _LOCATION"
            )
        if kind == "gateway":
            return AuthState(True, "GOOGLE_GEMINI_BASE_URL (a gateway)")
        return AuthState(None, f"auth type {kind}: not checked")

    # -- warm worker: `gemini --acp` (0.61.0) ----------------------------------------------

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """ACP, each session in plan mode (read-only tools; gemini refuses a write itself):
        `--approval-mode plan` at spawn, checked on every session, since an untrusted folder
        would turn it back to `default`. Lean: the spawned lean call's policy and system
        prompt, which the ACP mode reads at start for every session."""
        lean = self.lean_start(lean)
        argv = [*tool.command, "--acp", "--approval-mode", "plan"]
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        room_files: dict[str, str] = {}
        if lean is not None:
            room_files, lean_env, lean_args = self._lean_files(lean.prompt, lean.room)
            env.update(lean_env)
            argv += lean_args
        if model := model or self.settings.model:
            argv += ["-m", model]  # without it every prompt first asks a routing model
        argv += self.settings.extra_args
        return WarmLaunch(
            argv=tuple(argv),
            env=env,
            room_files=room_files,
            acp=AcpOptions(mode="plan"),
            lean=lean is not None,
        )

    @staticmethod
    def _lean_files(prompt: str, room: Path) -> tuple[dict[str, str], dict[str, str], list[str]]:
        """Lean mode's room files, variables and flags: plan mode stays; a deny-all policy
        above it leaves no tool to declare (a denied tool is not offered), and council's
        system prompt replaces gemini's (43.9 KB a request down to 0.8 KB, docs/lean.md)."""
        files = {LEAN_SYSTEM: prompt, LEAN_POLICY: DENY_ALL_POLICY}
        env = {"GEMINI_SYSTEM_MD": str(room / LEAN_SYSTEM)}
        return files, env, ["--policy", str(room / LEAN_POLICY)]

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """0.61.0 answers a refused model call with the HTTP status as the JSON-RPC error
        code (401, 429, 500) and the API's error object as its message. The turn's usage is
        in the result's `_meta.quota.token_count`: `input_tokens` is every request's prompt
        count (cached tokens included), but `output_tokens` leaves out the thinking tokens
        and nothing says how many there were, so the output stays unknown (None)."""
        error = outcome.error
        if error is not None and isinstance(error.code, int):
            if error.code in (401, 403):
                return WarmTurn(Verdict(Status.AUTH, detail=self.auth_detail(error.text)))
            if error.code == 429 or 500 <= error.code < 600:
                return WarmTurn(
                    Verdict(
                        Status.RATE_LIMITED,
                        detail=first_line(error.text),
                        retry_after_s=parse_retry_after(error.text),
                    )
                )
        turn = super().acp_verdict(outcome, prompt)
        if outcome.error is None:
            quota = outcome.meta.get("quota")
            tokens = quota.get("token_count") if isinstance(quota, dict) else None
            if isinstance(tokens, dict):
                try:
                    usage = Usage(token_count(tokens["input_tokens"]))
                except (KeyError, ValueError):
                    usage = None
                turn = replace(turn, verdict=replace(turn.verdict, usage=usage))
            served = _quota_models(quota.get("model_usage") if isinstance(quota, dict) else None)
            turn = replace(turn, verdict=replace(turn.verdict, served=served))
        return turn


def _stats_models(models: Mapping[str, Any]) -> tuple[str, ...]:
    """`stats.models`' names (gemini's, and qwen's which keeps its shape), the one with most
    output (`candidates`) first."""
    return ranked_models(
        {
            name: output_figure(_tokens(figures).get("candidates"))
            for name, figures in models.items()
        }
    )


def _tokens(figures: Any) -> Mapping[str, Any]:
    tokens = figures.get("tokens") if isinstance(figures, Mapping) else None
    return tokens if isinstance(tokens, Mapping) else {}


def _quota_models(per_model: Any) -> tuple[str, ...]:
    """ACP's `_meta.quota.model_usage` (0.61.0): `[{model, token_count}]`, most output first."""
    if not isinstance(per_model, list):
        return ()
    outputs: dict[str, int] = {}
    for entry in per_model:
        if isinstance(entry, Mapping) and isinstance(name := entry.get("model"), str):
            count = entry.get("token_count")
            count = count if isinstance(count, Mapping) else {}
            outputs[name] = outputs.get(name, 0) + output_figure(count.get("output_tokens"))
    return ranked_models(outputs)


def _payload(stdout: str) -> dict | None:
    """The one JSON object `-o json` prints on stdout; None when stdout is not one."""
    try:
        payload = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    return payload if isinstance(payload, dict) else None
