"""Where a setting comes from, and the one precedence rule.

Five levels, highest first: a command-line flag, a preset, the project file (`./council.yaml`
or `--config PATH`), the user file (`~/.config/council/config.yaml`), the built-in default.
`pick` chooses among one setting's candidates; `merge_layers` applies the same order to whole
files, key path by key path: mappings merge key by key, a list or a scalar replaces the lower
level's whole value. A null (None) is "not set" at any level and never hides a lower one, so a
file written by `council init` with `model: null` leaves the user file's model in force.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

KeyPath = str  # dotted: "debate.words.proxy"; no key of council.yaml holds a dot


class Level(IntEnum):
    """Lower wins."""

    FLAG = 0
    PRESET = 1
    PROJECT = 2
    USER = 3
    DEFAULT = 4


@dataclass(frozen=True)
class Source:
    level: Level
    where: str | None = None  # the file's path, or the preset's name

    @property
    def label(self) -> str:
        return self.level.name.lower()

    def __str__(self) -> str:
        return f"{self.label}: {self.where}" if self.where else self.label


DEFAULT_SOURCE = Source(Level.DEFAULT)
FLAG_SOURCE = Source(Level.FLAG)


def file_source(level: Level, path: Path) -> Source:
    return Source(level, str(path))


@dataclass(frozen=True)
class Sourced:
    value: Any
    source: Source


def pick(*candidates: Sourced) -> Sourced:
    """The candidate of the highest level that is set (not None); the lowest candidate when
    none is, so an unset value still says where its (empty) default lives."""
    ordered = sorted(candidates, key=lambda c: c.source.level)
    return next((c for c in ordered if c.value is not None), ordered[-1])


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[KeyPath, Any]:
    """Leaves by key path. A list is a leaf (replaced whole); so is an empty mapping, so that
    `env: {}` still shows."""
    leaves: dict[KeyPath, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            leaves.update(flatten(value, path + "."))
        else:
            leaves[path] = value
    return leaves


def merge_layers(layers: Iterable[tuple[Source, Mapping[str, Any]]]) -> dict[KeyPath, Sourced]:
    """Every key path of every layer, each with the value and source `pick` chooses."""
    candidates: dict[KeyPath, list[Sourced]] = {}
    for source, tree in layers:
        for path, value in flatten(tree).items():
            candidates.setdefault(path, []).append(Sourced(value, source))
    merged = {path: pick(*found) for path, found in candidates.items()}
    # An empty mapping (or a null where a mapping goes) is only a placeholder: it goes when
    # some level put keys inside it.
    return {
        path: chosen
        for path, chosen in merged.items()
        if not _is_empty(chosen.value) or not any(o.startswith(path + ".") for o in merged)
    }


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, Mapping) and not value)


def unflatten(leaves: Mapping[KeyPath, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path, value in leaves.items():
        *parents, last = path.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return tree
