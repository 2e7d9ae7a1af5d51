"""An adapter's side of write confinement (runner/confine.py): where its CLI keeps its own
state, the only places besides its room and temp dir it may write to. A CLI that keeps none
(an adapter that is no `KeepsState`) writes to its room and temp dir only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from council.adapters.base import Adapter

Places = tuple[tuple[Path, ...], tuple[Path, ...]]


class KeepsState(Adapter):
    """A CLI that writes state of its own under HOME (sessions, logs, caches)."""

    # `~/` paths. Directories are created before the call; files only when the CLI creates
    # them itself.
    state_dirs: ClassVar[tuple[str, ...]] = ()
    state_files: ClassVar[tuple[str, ...]] = ()

    def state_paths(self, env: Mapping[str, str], home: Path) -> Places:
        """(directories, files) this CLI may write to besides its room and temp dir, for the
        environment it runs with: `state_dirs` and `state_files` under `home`. An adapter
        whose CLI moves its state with a variable (CODEX_HOME) adds that place."""
        return (
            tuple(_under(home, p) for p in self.state_dirs),
            tuple(_under(home, p) for p in self.state_files),
        )


def state_paths(adapter: Adapter, env: Mapping[str, str], home: Path) -> Places:
    """Where `adapter`'s CLI keeps its state for `env` (nowhere for one that keeps none)."""
    return adapter.state_paths(env, home) if isinstance(adapter, KeepsState) else ((), ())


def _under(home: Path, path: str) -> Path:
    return home / path[2:] if path.startswith("~/") else Path(path)
