"""A preset as a layer over the merged files, for `council config show --preset NAME`.

What a preset sets, said in council.yaml's keys: `rounds`, `quorum` and `blind` under
`debate`, `proxies` under `roles`, and each CLI's `model` and `effort` under `clis` (its effort
for every seat shows on every CLI council knows). The same `pick` as a debate's plan decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from council.config.layers import KeyPath, Level, Source, Sourced, flatten, pick
from council.errors import UsageError

if TYPE_CHECKING:
    from council.config import LoadedConfig


def with_preset(loaded: LoadedConfig, name: str) -> dict[KeyPath, Sourced]:
    """The merged values with preset `name` laid over them."""
    from council.adapters import known_names

    config = loaded.config
    preset = config.presets.get(name)
    if preset is None:
        raise UsageError(f"unknown preset '{name}': use one of {', '.join(config.presets)}")
    clis = {
        cli: {"model": preset.models.get(cli), "effort": preset.efforts.get(cli, preset.effort)}
        for cli in known_names(config.clis)
    }
    layer = {
        "debate": {"rounds": preset.rounds, "quorum": preset.quorum, "blind": preset.blind},
        "roles": {"proxies": None if preset.proxies is None else list(preset.proxies)},
        "clis": clis,
    }
    source = Source(Level.PRESET, name)
    values = dict(loaded.values)
    for path, value in flatten(layer).items():
        if value is not None:
            mine = Sourced(value, source)
            values[path] = pick(mine, values[path]) if path in values else mine
    return values
