"""The config files (`council.yaml`), read once into frozen objects.

Two files merge, mappings key by key: the project file (`./council.yaml`, or `--config PATH`)
over the user file (`$XDG_CONFIG_HOME/council/config.yaml`, default
`~/.config/council/config.yaml`); built-in defaults fill the rest. Each file is checked
against the shipped JSON Schema (`council schema config`), then the merged result against
what a schema cannot say (`build.py`). Every problem is a `ConfigError` (exit 4) naming the
file, the key path and what was expected. Each value remembers where it came from
(`layers.py`: flag > preset > project file > user file > default), for `council config show`.

A `clis.<name>` entry configures a built-in CLI when `name` is one; for another name it is
either a variant of a built-in (`adapter: sim` plus, say, `env: {COUNCIL_SIM_DELAY: "3"}`) or
a user-defined CLI (`command: [...]`). `env` (variables set for that CLI) and a preset's
`efforts` (effort per CLI) are council's additions to the keys of the specification.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.config.build import build_config
from council.config.defaults import default_tree
from council.config.files import ConfigFile, find_config_files, read_yaml, user_config_path
from council.config.layers import (
    DEFAULT_SOURCE,
    FLAG_SOURCE,
    KeyPath,
    Level,
    Source,
    Sourced,
    merge_layers,
    pick,
    unflatten,
)
from council.config.model import (
    CONFIG_NAME,
    EFFORTS,
    WORD_KEYS,
    Config,
    DebateSettings,
    Preset,
    QuorumSettings,
    RedactSettings,
    Roles,
    RunSettings,
    builtin_presets,
)


@dataclass(frozen=True)
class LoadedConfig:
    """The merged config, and every key path's value and source (the defaults included)."""

    config: Config
    values: Mapping[KeyPath, Sourced]
    files: tuple[ConfigFile, ...]


def read_config(
    explicit: Path | None = None,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadedConfig:
    files = find_config_files(
        explicit, cwd or Path.cwd(), os.environ if environ is None else environ
    )
    layers = []
    for file in files:
        raw = read_yaml(file.path)
        layers.append((file.source, _checked(raw, str(file.path))))
    return _merged(layers, tuple(files))


def load_config(
    explicit: Path | None = None,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    return read_config(explicit, cwd=cwd, environ=environ).config


def parse_config(raw: Any, source: Path | None = None) -> Config:
    """One config tree, as if it were the only (project) file."""
    where = str(source) if source is not None else None
    layer = (Source(Level.PROJECT, where), _checked(raw, where or "config"))
    return _merged([layer], ()).config


def _checked(raw: Any, where: str) -> dict[str, Any]:
    if raw is None:  # an empty file
        return {}
    from council.config.validation import check_against_schema

    raw = _without_nulls(raw)
    quorum = raw.get("quorum") if isinstance(raw, dict) else None
    if isinstance(quorum, dict) and quorum.get("distinct") is False:
        # YAML 1.1 reads an unquoted `off` as false: it is the setting `off` all the same.
        raw = {**raw, "quorum": {**quorum, "distinct": "off"}}
    check_against_schema(raw, where)
    return raw


def _without_nulls(value: Any) -> Any:
    """`value` without the mapping keys whose value is null: `null` means "not set" for every
    key (docs/spec/config.md), so it neither fails a key's type nor hides the user file's value."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _merged(
    layers: list[tuple[Source, dict[str, Any]]], files: tuple[ConfigFile, ...]
) -> LoadedConfig:
    given = merge_layers(layers)
    config = build_config(
        unflatten({path: chosen.value for path, chosen in given.items()}),
        {path: chosen.source for path, chosen in given.items()},
        tuple(file.path for file in files),
    )
    replaced = {name for _, tree in layers for name in (tree.get("presets") or {})}
    defaults = default_tree(config.clis, replaced)
    return LoadedConfig(config, merge_layers([(DEFAULT_SOURCE, defaults), *layers]), files)


__all__ = [
    "CONFIG_NAME",
    "DEFAULT_SOURCE",
    "EFFORTS",
    "FLAG_SOURCE",
    "WORD_KEYS",
    "Config",
    "ConfigFile",
    "DebateSettings",
    "KeyPath",
    "Level",
    "LoadedConfig",
    "Preset",
    "QuorumSettings",
    "RedactSettings",
    "Roles",
    "RunSettings",
    "Source",
    "Sourced",
    "builtin_presets",
    "find_config_files",
    "load_config",
    "parse_config",
    "pick",
    "read_config",
    "user_config_path",
]
