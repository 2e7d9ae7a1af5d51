"""The registry: one name for each CLI council can seat, built-in or from the config."""

from __future__ import annotations

from collections.abc import Mapping

from council.adapters.base import Adapter, CliSettings, Status
from council.adapters.claude import ClaudeAdapter
from council.adapters.codex import CodexAdapter
from council.adapters.custom import CustomAdapter
from council.adapters.gemini import GeminiAdapter
from council.adapters.kimi import KimiAdapter
from council.adapters.pi import PiAdapter
from council.adapters.qwen import QwenAdapter
from council.adapters.sim import SimAdapter
from council.errors import ConfigError

BUILTIN: dict[str, type[Adapter]] = {
    cls.name: cls
    for cls in (
        ClaudeAdapter,
        CodexAdapter,
        GeminiAdapter,
        QwenAdapter,
        KimiAdapter,
        PiAdapter,
        SimAdapter,
    )
}
# Vendor CLIs in the order the protocol picks defaults from (sim is never a default).
VENDOR_ORDER = ("claude", "codex", "gemini", "qwen", "kimi", "pi")


def known_names(clis: Mapping[str, CliSettings] | None = None) -> list[str]:
    return [*BUILTIN, *(name for name in (clis or {}) if name not in BUILTIN)]


def adapter_for(name: str, clis: Mapping[str, CliSettings] | None = None) -> Adapter:
    """The adapter for a CLI name, configured by the config's `clis.<name>` when present."""
    settings = (clis or {}).get(name)
    if settings is not None:
        if settings.adapter == "custom":
            return CustomAdapter(settings)
        return BUILTIN[settings.adapter](settings)
    if name in BUILTIN:
        return BUILTIN[name]()
    raise ConfigError(
        f"unknown CLI '{name}': use one of {', '.join(known_names(clis))}, "
        "or define it under `clis:` in council.yaml"
    )


__all__ = [
    "BUILTIN",
    "VENDOR_ORDER",
    "Adapter",
    "CliSettings",
    "Status",
    "adapter_for",
    "known_names",
]
