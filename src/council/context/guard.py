"""Did a CLI call change the user's project? The given files' hashes and `git status`, before
and after each call (docs/spec/protocol.md section 3, "Clean room and environment").

Write confinement (Landlock) stops a seat's CLI from writing outside its room where the kernel
has it; this check is what every platform has. One snapshot is shared by every call of a run:
a call's end compares the project with the last snapshot taken, so a change is reported once,
naming the seat whose call just ended and the seats whose calls overlapped it (any of them, or
the user, may have made it).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from council.context.paths import OUTSIDE_DIR
from council.runner.local import LocalTimeout, run_local

GIT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Snapshot:
    files: dict[str, str | None]  # given file (root-relative) -> sha256, None when missing
    git: dict[str, tuple[str, int, int]] | None  # path -> (status, mtime_ns, size); None: no repo

    def changed_since(self, before: Snapshot) -> list[str]:
        paths = {p for p, digest in self.files.items() if before.files.get(p) != digest}
        if self.git is not None and before.git is not None:
            for path in self.git.keys() | before.git.keys():
                if self.git.get(path) != before.git.get(path):
                    paths.add(path)
        return sorted(paths)


@dataclass
class Seen:
    """What one call's check found: the changed paths, and the seats whose calls overlapped."""

    paths: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)

    def warning(self, seat: str) -> str | None:
        if not self.paths:
            return None
        shown = ", ".join(self.paths[:10]) + (
            f" (+{len(self.paths) - 10} more)" if len(self.paths) > 10 else ""
        )
        also = f" (calls of {', '.join(self.others)} overlapped it)" if self.others else ""
        return f"the project changed during {seat}'s call{also}: {shown}"


class ProjectGuard:
    """The before-and-after check of a run's project. `exclude`: directories inside the project
    that council itself writes (the scratchpad)."""

    def __init__(self, root: Path, files: Iterable[str], exclude: Iterable[Path] = ()) -> None:
        self.root = root
        self.files = [f for f in files if not f.startswith(f"{OUTSIDE_DIR}/")]
        self.repo = (root / ".git").exists()
        self.exclude = [
            p.resolve().relative_to(root.resolve()).as_posix()
            for p in exclude
            if p.resolve().is_relative_to(root.resolve()) and p.resolve() != root.resolve()
        ]
        self._last: Snapshot | None = None
        self._lock = anyio.Lock()
        self._running: dict[str, int] = {}

    @asynccontextmanager
    async def watch(self, seat: str) -> AsyncIterator[Seen]:
        seen = Seen()
        async with self._lock:
            if self._last is None:
                self._last = await anyio.to_thread.run_sync(self.snapshot)
        self._running[seat] = self._running.get(seat, 0) + 1
        try:
            yield seen
        finally:
            self._running[seat] -= 1
            others = sorted(s for s, n in self._running.items() if n and s != seat)
            with anyio.CancelScope(shield=True):
                async with self._lock:
                    now = await anyio.to_thread.run_sync(self.snapshot)
                    seen.paths = now.changed_since(self._last)
                    self._last = now
            seen.others = others

    def snapshot(self) -> Snapshot:
        files = {name: _digest(self.root / name) for name in self.files}
        return Snapshot(files, self._git_status() if self.repo else None)

    def _git_status(self) -> dict[str, tuple[str, int, int]] | None:
        # No fsmonitor daemon (it would outlive the command), no index refresh written.
        argv = [
            "git",
            "-c",
            "core.fsmonitor=false",
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=normal",
            "--",
            ".",
            *(f":(exclude,top){p}" for p in self.exclude),
        ]
        try:
            done = run_local(argv, cwd=self.root, timeout_s=GIT_TIMEOUT_S)
        except (OSError, LocalTimeout):
            return None
        if done.returncode != 0:
            return None
        entries: dict[str, tuple[str, int, int]] = {}
        parts = done.stdout.decode("utf-8", "replace").split("\0")
        i = 0
        while i < len(parts):
            item = parts[i]
            i += 1
            if len(item) < 4:
                continue
            code, path = item[:2], item[3:]
            if "R" in code or "C" in code:
                i += 1  # the rename's source follows
            try:
                info = os.lstat(self.root / path)
                entries[path] = (code, info.st_mtime_ns, info.st_size)
            except OSError:
                entries[path] = (code, 0, -1)
        return entries


def _digest(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None
