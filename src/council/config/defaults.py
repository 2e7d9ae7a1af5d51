"""The built-in defaults as a council.yaml tree: the lowest layer of `council config show`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict
from typing import Any

from council.adapters.base import CliSettings
from council.config.model import (
    SEVERITY_KEYS,
    DebateSettings,
    Preset,
    QuorumSettings,
    RedactSettings,
    Roles,
    builtin_presets,
)


def default_tree(clis: Mapping[str, CliSettings], replaced_presets: Collection[str]) -> dict:
    """Every key at its default. `clis`: the CLIs the files name (a CLI no file names is at
    its adapter's defaults throughout); `replaced_presets`: built-in presets a file replaces."""
    roles = asdict(Roles())
    redact = asdict(RedactSettings())
    return {
        "version": 1,
        "roles": {**roles, "proxies": list(roles["proxies"])},
        "debate": asdict(DebateSettings()),
        "quorum": asdict(QuorumSettings()),
        "presets": {
            name: preset_tree(preset)
            for name, preset in builtin_presets().items()
            if name not in replaced_presets
        },
        "clis": {name: cli_defaults(settings) for name, settings in clis.items()},
        "scratchpad": ".scratchpad",
        "redact": {key: list(value) for key, value in redact.items()},
        "review": {"gate": dict.fromkeys(SEVERITY_KEYS, "majority")},
        "adr": {"dir": None},
    }


def preset_tree(preset: Preset) -> dict[str, Any]:
    """What a preset sets, as its council.yaml entry would say it (unset keys left out)."""
    tree: dict[str, Any] = {
        "rounds": preset.rounds,
        "effort": preset.effort,
        "quorum": preset.quorum,
        "models": dict(preset.models) or None,
        "efforts": dict(preset.efforts) or None,
        "proxies": None if preset.proxies is None else list(preset.proxies),
        "blind": preset.blind,
    }
    return {key: value for key, value in tree.items() if value is not None}


def cli_defaults(settings: CliSettings) -> dict[str, Any]:
    """A CLI entry with every key it takes at its default (null: the adapter decides)."""
    from council.adapters import registered

    adapter = registered().get(settings.adapter)
    tree: dict[str, Any] = {
        "command": [adapter.binary] if adapter is not None else None,
        "model": None,
        "effort": None,
        "timeout_s": None,
        "extra_args": [],
        "pass_env": [],
        "env": {},
        "lean": True,
        "warm": True,
    }
    if settings.adapter == "custom":
        tree.update(
            input="stdin",
            output="stdout",
            model_flag=None,
            tty=False,
            version_args=["--version"],
            state_dirs=[],
        )
    return tree
