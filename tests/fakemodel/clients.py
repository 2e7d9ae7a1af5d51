"""Pointing each real vendor CLI at the fake model server (docs/spec/clis.md, "Contract tests").

`client_setup(name, server, home)` writes the CLI's config under `home` and returns the
environment variables it needs; the caller runs the CLI with HOME=home. Every name is also
the client prefix in the server's URL, so the server's log and rules know which CLI asked.
Names: codex, claude, gemini, qwen, pi, kimi-cli, kimi-code.

Every variable set here passes council's environment allow-list for that CLI's adapter
(the vendor's own prefixes), so a test runs the CLI exactly as council would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fakemodel.server import FakeModelServer

MODEL = "fake-model"
API_KEY = "fake-key-not-a-secret"
PI_PROVIDER = "fakemodel"


@dataclass(frozen=True)
class ClientSetup:
    """How one CLI reaches the fake server: its environment, and the model council asks for."""

    name: str
    adapter: str  # council's adapter name (both kimi programs are `kimi`)
    binary: str
    env: dict[str, str] = field(default_factory=dict)
    model: str | None = MODEL  # what a seat passes as `model`; None: the config's default


def client_setup(
    name: str, server: FakeModelServer, home: Path, *, credentials: bool = True
) -> ClientSetup:
    """Configure `name` under `home` to use `server`; without `credentials`, leave out every
    key (and every login) so the CLI must report that it is not logged in."""
    home.mkdir(parents=True, exist_ok=True)
    url = server.url(name)
    key = API_KEY if credentials else None
    return _SETUPS[name](url, home, key)


def _codex(url: str, home: Path, key: str | None) -> ClientSetup:
    (home / ".codex").mkdir(exist_ok=True)
    # A provider of the user's own (council caps its retries); its key in CODEX_API_KEY, a
    # variable council lets through to codex. `codex_built_in` uses codex's own provider.
    (home / ".codex" / "config.toml").write_text(
        f'model_provider = "fakemodel"\n'
        f'model = "{MODEL}"\n'
        "\n"
        "[model_providers.fakemodel]\n"
        'name = "fakemodel"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "CODEX_API_KEY"\n'
    )
    env = {"CODEX_API_KEY": key} if key else {}
    return ClientSetup("codex", "codex", "codex", env, model=None)


def codex_built_in(server: FakeModelServer, home: Path) -> None:
    """Point codex's built-in `openai` provider at `server` (`openai_base_url`, which 0.169.0
    and 0.171.0 read; they ignore OPENAI_BASE_URL): what a user with an OpenAI key runs, its
    credentials found as codex finds them (CODEX_API_KEY, `auth.json`)."""
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        f'model = "{MODEL}"\nopenai_base_url = "{server.url("codex")}/v1"\n'
    )


def _claude(url: str, home: Path, key: str | None) -> ClientSetup:
    env = {"ANTHROPIC_BASE_URL": url}
    if key:
        env["ANTHROPIC_API_KEY"] = key
    return ClientSetup("claude", "claude", "claude", env)


def _gemini(url: str, home: Path, key: str | None) -> ClientSetup:
    (home / ".gemini").mkdir(exist_ok=True)
    # One attempt per call: council's retry policy is the one in force (the CLI's default is
    # 10 attempts from 5 s apart, minutes against a persistent 429).
    settings: dict = {"general": {"maxAttempts": 1}}
    if key:
        # Without a selected auth type the CLI exits 41 even with a key in the environment.
        settings["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"GOOGLE_GEMINI_BASE_URL": url}
    if key:
        env["GEMINI_API_KEY"] = key
    return ClientSetup("gemini", "gemini", "gemini", env)


def _qwen(url: str, home: Path, key: str | None) -> ClientSetup:
    (home / ".qwen").mkdir(exist_ok=True)
    # council's retry policy is the one in force (the SDK's retries, under qwen's own).
    (home / ".qwen" / "settings.json").write_text(
        json.dumps({"model": {"generationConfig": {"maxRetries": 0}}})
    )
    env = {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_MODEL": MODEL}
    if key:
        env["OPENAI_API_KEY"] = key
    return ClientSetup("qwen", "qwen", "qwen", env)


def _pi(url: str, home: Path, key: str | None) -> ClientSetup:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    if not key:
        # A provider without a key is simply not offered; what a user without any login
        # runs is pi's default model, with no key for it.
        return ClientSetup("pi", "pi", "pi", {}, model=None)
    provider: dict = {
        "baseUrl": f"{url}/v1",
        "api": "openai-completions",
        "models": [{"id": MODEL, "name": MODEL, "contextWindow": 128000, "maxTokens": 8192}],
    }
    if key:
        provider["apiKey"] = key
    (agent / "models.json").write_text(json.dumps({"providers": {PI_PROVIDER: provider}}))
    # council's retry policy is the one in force (pi's default: 3 agent-level retries 2 s
    # apart, each over the SDK's own).
    (agent / "settings.json").write_text(
        json.dumps({"retry": {"enabled": False, "provider": {"maxRetries": 0}}})
    )
    return ClientSetup("pi", "pi", "pi", {}, model=f"{PI_PROVIDER}/{MODEL}")


def _kimi_cli(url: str, home: Path, key: str | None) -> ClientSetup:
    (home / ".kimi").mkdir(exist_ok=True)
    if key:
        (home / ".kimi" / "config.toml").write_text(
            'default_model = "fake"\n'
            "\n"
            "[providers.fakemodel]\n"
            'type = "openai_legacy"\n'
            f'base_url = "{url}/v1"\n'
            f'api_key = "{key}"\n'
            "\n"
            "[models.fake]\n"
            'provider = "fakemodel"\n'
            f'model = "{MODEL}"\n'
            "max_context_size = 128000\n"
        )
    return ClientSetup("kimi-cli", "kimi", "kimi", {}, model=None)


def _kimi_code(url: str, home: Path, key: str | None) -> ClientSetup:
    env = {
        "KIMI_MODEL_NAME": MODEL,
        "KIMI_MODEL_PROVIDER_TYPE": "openai",
        "KIMI_MODEL_BASE_URL": f"{url}/v1",
    }
    if key:
        env["KIMI_MODEL_API_KEY"] = key
    else:
        env = {}
    return ClientSetup("kimi-code", "kimi", "kimi", env, model=None)


_SETUPS = {
    "codex": _codex,
    "claude": _claude,
    "gemini": _gemini,
    "qwen": _qwen,
    "pi": _pi,
    "kimi-cli": _kimi_cli,
    "kimi-code": _kimi_code,
}
CLIENTS = tuple(_SETUPS)
