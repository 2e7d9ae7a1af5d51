"""Where scripts/install-real-clis.sh put the real vendor CLIs, and whether each one works.

The installer gives every CLI a directory `<cache>/<name>/` with `bin/` (to put first on
PATH) and `status` ("ok <version>" or "failed: <why>"). The cache is `.cache/real-clis` in
the repository unless COUNCIL_REALCLI_CACHE names another (the drift check uses its own).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE_ENV = "COUNCIL_REALCLI_CACHE"
INSTALLER = "scripts/install-real-clis.sh"


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or ROOT / ".cache" / "real-clis")


@dataclass(frozen=True)
class Installed:
    name: str
    bin_dir: Path
    status: str | None  # None: the installer never ran for this CLI

    @property
    def ok(self) -> bool:
        return self.status is not None and self.status.startswith("ok ")

    @property
    def version(self) -> str | None:
        return self.status[3:] if self.ok and self.status else None

    def problem(self) -> str:
        """Why this CLI cannot be tested, with the fix (only when not ok)."""
        if self.status is None:
            return f"{self.name} is not installed in {cache_dir()}: run {INSTALLER}"
        return f"{self.name} did not install ({self.status}); see {INSTALLER}"


def installed(name: str) -> Installed:
    directory = cache_dir() / name
    try:
        status: str | None = (directory / "status").read_text().strip()
    except FileNotFoundError:
        status = None
    return Installed(name, directory / "bin", status)
