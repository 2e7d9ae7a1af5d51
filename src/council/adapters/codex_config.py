"""codex's own configuration as a call will find it: the provider it uses (config.toml, a
`--profile` file, `-c model_provider=`), council's retry caps for that provider, what
authenticates it and who pays. Read from the files; never a network call."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from council.adapters.base import Adapter, AuthState, Billing, CliSettings

# council's retry policy is the one in force: one retry in codex (a 500 is 2 requests, as
# claude's), not its defaults of 4 request and 5 stream retries, which multiply (a 500 was 30
# requests over 24 s). 0.169.0 reads them per provider only, and refuses a built-in
# provider's id under [model_providers] ("Built-in providers cannot be overridden"): the caps
# go to a provider the user defined, and the built-in `openai` keeps codex's own retries.
RETRY_CAPS = ("request_max_retries=0", "stream_max_retries=1")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# The key codex takes from the environment for OpenAI (0.169.0 and 0.171.0, measured against a
# server that logs the Authorization header): `codex exec` sends it as the bearer token, and
# OPENAI_API_KEY is never read for that (it only names the key field of `auth.json`).
API_KEY_ENV = "CODEX_API_KEY"


def credentials(adapter: Adapter, env: Mapping[str, str], home: Path) -> AuthState:
    """What authenticates the provider `adapter`'s calls use (`CodexAdapter.auth_state`)."""
    env = {**env, **adapter.settings.env}
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    provider_id, provider = active_provider(adapter.settings.extra_args, codex_home)
    if provider is not None and not provider.get("requires_openai_auth"):
        key = provider.get("env_key")
        if not isinstance(key, str) or not key:
            return AuthState(True, f"codex's provider `{provider_id}` takes no key")
        if key not in {*adapter.env_names, *adapter.settings.pass_env, *adapter.settings.env}:
            return AuthState(
                False,
                f"{key} (env_key of codex's provider `{provider_id}`) does not reach codex: "
                f"add it to clis.{adapter.display_name}.pass_env",
            )
        if env.get(key):
            return AuthState(True, key)
        return AuthState(False, f"{key} (env_key of codex's provider `{provider_id}`) is unset")
    if provider is None and provider_id not in (None, "openai"):
        return AuthState(None, f"codex's built-in provider `{provider_id}`: not checked")
    if env.get(API_KEY_ENV):
        return AuthState(True, API_KEY_ENV)
    auth = codex_home / "auth.json"
    if auth.is_file():
        return AuthState(True, str(auth))
    store = read_toml(codex_home / "config.toml").get("cli_auth_credentials_store")
    if store in ("keyring", "auto"):
        return AuthState(None, f"no {API_KEY_ENV}; a `codex login` may be in the OS keyring")
    ignored = (
        "; OPENAI_API_KEY is set, but codex does not read it" if env.get("OPENAI_API_KEY") else ""
    )
    return AuthState(False, f"no {API_KEY_ENV} and no {auth}{ignored}")


def saved_key_billing(found: Billing) -> Billing:
    """`found` (a login's billing), or an API key's when the auth.json it names holds one."""
    if found.mode != "login" or not found.source.endswith("auth.json"):
        return found
    try:
        saved = json.loads(Path(found.source).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return found
    if isinstance(saved, dict) and saved.get("OPENAI_API_KEY"):
        return Billing("api_key", f"the API key in {found.source}")
    return found


def api_key_refusal(settings: CliSettings, env: Mapping[str, str], home: Path) -> str | None:
    """Why the app-server cannot run here: CODEX_API_KEY and no `codex login`; else None."""
    env = {**env, **settings.env}
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    _, provider = active_provider(settings.extra_args, codex_home)
    if provider is not None and not provider.get("requires_openai_auth"):
        return None  # its own key variable, which the app-server reads
    if env.get(API_KEY_ENV) and not (codex_home / "auth.json").is_file():
        return (
            f"`codex app-server` does not read {API_KEY_ENV}, so every call runs `codex "
            "exec`; `codex login --with-api-key` (the key on stdin) lets the seat run warm"
        )
    return None


def active_provider(
    extra_args: Sequence[str], codex_home: Path
) -> tuple[str | None, Mapping[str, Any] | None]:
    """The id of the provider a call will use (None: codex's default, `openai`; "oss":
    `--oss`, a local one) and its settings when the user defined it (config.toml, a
    `--profile` file, or `-c model_provider=` in extra_args); None for a built-in one."""
    config = read_toml(codex_home / "config.toml")
    provider = config.get("model_provider")
    providers = dict(config.get("model_providers") or {})
    for flag, value in pairwise(_split_long_flags(extra_args)):
        if flag in ("-p", "--profile") and value:
            profile = read_toml(codex_home / f"{value}.config.toml")
            provider = profile.get("model_provider", provider)
            providers.update(profile.get("model_providers") or {})
        elif flag in ("-c", "--config") and value.partition("=")[0].strip() == "model_provider":
            provider = value.partition("=")[2].strip().strip("\"'")
        elif flag == "--oss":
            return "oss", None  # a built-in local provider
    if not isinstance(provider, str):
        return None, None
    settings = providers.get(provider)
    return provider, settings if isinstance(settings, Mapping) else None


def _split_long_flags(extra_args: Sequence[str]) -> list[str]:
    """`extra_args` with `--profile=NAME` and `--config=KEY=VALUE` (clap's other spelling)
    split as `--profile NAME`, and a last empty value, so each flag pairs with its value."""
    args: list[str] = []
    for arg in extra_args:
        flag, sep, value = arg.partition("=")
        args += [flag, value] if sep and flag in ("--profile", "--config") else [arg]
    return [*args, ""]


def retry_caps(extra_args: Sequence[str], codex_home: Path) -> list[str]:
    """`-c model_providers.<id>.request_max_retries=0 ...` for the provider this call will
    use, when the user defined it; nothing for a built-in provider, which codex does not let
    us change."""
    provider, settings = active_provider(extra_args, codex_home)
    if provider is None or settings is None or not _BARE_KEY.match(provider):
        return []
    return [arg for cap in RETRY_CAPS for arg in ("-c", f"model_providers.{provider}.{cap}")]


def codex_home_of(env: Mapping[str, str]) -> Path:
    """Where codex reads its config: CODEX_HOME as the call will see it (the config's `env`
    for codex first), else ~/.codex."""
    return Path(env.get("CODEX_HOME") or os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def read_toml(path: Path) -> dict[str, Any]:
    """A codex config file's settings; {} when it is missing or unreadable (codex itself then
    says what is wrong with it)."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
