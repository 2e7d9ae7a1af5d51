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
import stat
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from council.context.paths import OUTSIDE_DIR
from council.runner import confine
from council.runner.local import LocalTimeout, run_local

GIT_TIMEOUT_S = 30.0


# What a path's change was: its bytes, its permission bits, or only its times. Landlock stops a
# CLI's writes but not chmod(2) or utime(2), so the last two stay a seat's doing under it.
CONTENT, MODE, TIMES = "content", "mode", "times"
# Tracked files whose mode and times are watched (a bigger repository: the given files and
# the changed ones only; lstat of 20,000 files takes ~20 ms).
MAX_STAT_TRACKED = 20_000
DIGEST_LIMIT = 8 * 2**20  # files past this are compared by size and times, not hashed


@dataclass(frozen=True)
class PathState:
    mode: int | None  # None: missing
    mtime_ns: int = 0
    size: int = -1
    digest: str | None = None  # sha256 where the content is compared (None: not hashed)


@dataclass(frozen=True)
class Snapshot:
    paths: dict[str, PathState]  # given, changed (git status) and tracked files
    git: dict[str, str] | None  # path -> status code; None: no repo (or git failed)

    def changed_since(self, before: Snapshot) -> dict[str, set[str]]:
        """Each path that changed, with what changed of it."""
        found: dict[str, set[str]] = {}
        for path in self.paths.keys() | before.paths.keys():
            was, now = before.paths.get(path), self.paths.get(path)
            if was is None or now is None:
                continue  # no longer (or not yet) watched: git status below tells
            kinds = set()
            if was.mode is None or now.mode is None:
                if was.mode != now.mode:
                    kinds.add(CONTENT)  # created or deleted
            else:
                # A file is hashed only while given or changed: compare sizes where either
                # side was not (git status below tells a change of a clean tracked file).
                hashed = was.digest is not None and now.digest is not None
                if was.digest != now.digest if hashed else was.size != now.size:
                    kinds.add(CONTENT)
                if was.mode != now.mode:
                    kinds.add(MODE)
                if not kinds and was.mtime_ns != now.mtime_ns:
                    kinds.add(TIMES)
            if kinds:
                found[path] = kinds
        if self.git is not None and before.git is not None:
            for path in self.git.keys() | before.git.keys():
                if self.git.get(path) == before.git.get(path):
                    continue
                # A chmod of a clean tracked file shows as modified too: its mode says which.
                was, now = before.paths.get(path), self.paths.get(path)
                chmod = bool(
                    was and now and None not in (was.mode, now.mode) and was.mode != now.mode
                )
                kinds = found.setdefault(path, set())
                kinds.add(MODE if chmod else CONTENT)
                if CONTENT in kinds:
                    kinds.discard(TIMES)  # a write changes the times too
        return dict(sorted(found.items()))


@dataclass
class Seen:
    """What one call's check found: the changed paths (with what changed of each), the seats
    whose calls overlapped, and whether write confinement was in force (then no seat can have
    changed a file's content: only its mode or times)."""

    changes: dict[str, set[str]] = field(default_factory=dict)
    others: list[str] = field(default_factory=list)
    confined: bool = False

    @property
    def paths(self) -> list[str]:
        return list(self.changes)

    def warning(self, seat: str) -> str | None:
        if not self.changes:
            return None
        also = f" (calls of {', '.join(self.others)} overlapped it)" if self.others else ""
        if not self.confined:
            shown = _shown(self.changes, kinds=True)
            return f"the project changed during {seat}'s call{also}: {shown}"
        outside = {p: k for p, k in self.changes.items() if CONTENT in k}
        by_seat = {p: k - {CONTENT} for p, k in self.changes.items() if k - {CONTENT}}
        parts = []
        if by_seat:
            parts.append(
                f"file modes or times in the project changed during {seat}'s call{also}: "
                + _shown(by_seat, kinds=True)
            )
        if outside:
            parts.append(
                "the project changed during the run, outside council (write confinement "
                f"stops every seat's writes): {_shown(outside, kinds=False)}"
            )
        return "; ".join(parts)


def _shown(changes: dict[str, set[str]], *, kinds: bool) -> str:
    items = list(changes.items())

    def one(path: str, what: set[str]) -> str:
        return f"{path} ({', '.join(sorted(what))})" if kinds and what != {CONTENT} else path

    shown = ", ".join(one(p, k) for p, k in items[:10])
    return shown + (f" (+{len(items) - 10} more)" if len(items) > 10 else "")


class ProjectGuard:
    """The before-and-after check of a run's project. `exclude`: directories inside the project
    that council itself writes (the scratchpad). council's own stdout and stderr, when they are
    files in the project (`2> log.txt`), are never a change either."""

    def __init__(self, root: Path, files: Iterable[str], exclude: Iterable[Path] = ()) -> None:
        self.root = root
        self.files = [f for f in files if not f.startswith(f"{OUTSIDE_DIR}/")]
        self.repo = (root / ".git").exists()
        self.exclude = [
            p.resolve().relative_to(root.resolve()).as_posix()
            for p in exclude
            if p.resolve().is_relative_to(root.resolve()) and p.resolve() != root.resolve()
        ]
        self.own_outputs = _own_outputs()
        self._tracked: list[str] | None = None
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
                    seen.changes = now.changed_since(self._last)
                    self._last = now
            seen.others = others
            seen.confined = confine.abi() > 0

    def snapshot(self) -> Snapshot:
        git = self._git_status() if self.repo else None
        if self.repo and self._tracked is None:
            self._tracked = self._git_files()
        paths: dict[str, PathState] = {}
        for name in self.files:
            paths[name] = self._state(name, hashed=True)
        for name in git or {}:
            paths.setdefault(name, self._state(name, hashed=True))
        for name in self._tracked or ():
            paths.setdefault(name, self._state(name, hashed=False))
        own = {p for p, state in paths.items() if state is _OWN}
        for path in own:
            del paths[path]
        if git is not None:
            git = {p: code for p, code in git.items() if p not in own}
        return Snapshot(paths, git)

    def _state(self, name: str, *, hashed: bool) -> PathState:
        path = self.root / name
        try:
            info = os.lstat(path)
        except OSError:
            return PathState(None)
        if (info.st_dev, info.st_ino) in self.own_outputs:
            return _OWN
        digest = None
        if hashed and stat.S_ISREG(info.st_mode) and info.st_size <= DIGEST_LIMIT:
            digest = _digest(path)
        return PathState(stat.S_IMODE(info.st_mode), info.st_mtime_ns, info.st_size, digest)

    def _git(self, *args: str) -> list[str] | None:
        """A git command's NUL-separated output (None when git fails): no fsmonitor daemon
        (it would outlive the command), no index refresh written, the scratchpad left out."""
        argv = [
            "git",
            "-c",
            "core.fsmonitor=false",
            "--no-optional-locks",
            *args,
            "-z",
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
        return done.stdout.decode("utf-8", "replace").split("\0")

    def _git_files(self) -> list[str]:
        tracked = [p for p in self._git("ls-files") or () if p]
        return tracked if len(tracked) <= MAX_STAT_TRACKED else []

    def _git_status(self) -> dict[str, str] | None:
        parts = self._git("status", "--porcelain=v1", "--untracked-files=normal")
        if parts is None:
            return None
        entries: dict[str, str] = {}
        i = 0
        while i < len(parts):
            item = parts[i]
            i += 1
            if len(item) < 4:
                continue
            code, path = item[:2], item[3:]
            if "R" in code or "C" in code:
                i += 1  # the rename's source follows
            entries[path] = code
        return entries


# A path that is council's own stdout or stderr: never compared.
_OWN = PathState(None, -1, -1, "council's own output")


def _own_outputs() -> set[tuple[int, int]]:
    """The files council's stdout and stderr go to (device, inode): `council ... 2> log.txt`
    inside the project grows with every progress line, and that is no seat's change."""
    own = set()
    for fd in (1, 2):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            own.add((info.st_dev, info.st_ino))
    return own


def _digest(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None
