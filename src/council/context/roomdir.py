"""Where one run's clean rooms live: a private directory outside the project tree.

`$XDG_RUNTIME_DIR/council/<run id>.<pid>/` (else `<temp dir>/council-<uid>/...`), 0700, with
`<seat>/room/` (the seat's working directory, see `rooms.py`) and `<seat>/tmp/` (its TMPDIR)
for each seat. Outside the project, no relative path a CLI writes from its room reaches the
user's files (a room inside `.scratchpad` was four `..` away from them). The directory is
removed when the run ends (`remove`); one left by a council killed with SIGKILL is removed by
the next run that finds its process gone. The record keeps what each room held (`manifest`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from council.context.model import RunContext
from council.context.rooms import build_room, remove_room, room_files

RUNTIME_ENV = "XDG_RUNTIME_DIR"


def _private_base() -> Path:
    """The per-user parent of every run's directory: created 0700 and checked to be ours (a
    shared /tmp could hold a planted one)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    runtime = os.environ.get(RUNTIME_ENV)
    candidates = []
    if runtime and Path(runtime).is_absolute():
        candidates.append(Path(runtime) / "council")
    candidates.append(Path(tempfile.gettempdir()) / f"council-{uid}")
    for base in candidates:
        try:
            base.mkdir(mode=0o700, parents=False, exist_ok=True)
            info = base.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode) and info.st_uid == uid:
            os.chmod(base, 0o700)
            return base
    return Path(tempfile.mkdtemp(prefix="council-"))


LOCK = ".lock"  # held (flock) by the run's council for as long as it runs


def _sweep_stale(base: Path) -> None:
    """Remove the directories of runs whose council process is gone (killed with SIGKILL).

    A run holds an exclusive lock on its directory's lock file: the kernel lets go of it when
    the process dies, however it dies, and the lock means the same across PID namespaces (two
    containers sharing /tmp), where a pid number does not.
    """
    for entry in base.iterdir():
        try:
            fd = os.open(entry / LOCK, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            # A directory of an older council, or one a starting run has not locked yet.
            _, _, pid = entry.name.rpartition(".")
            if pid.isdigit() and not psutil.pid_exists(int(pid)) and _older_than(entry, 60):
                with contextlib.suppress(OSError):
                    remove_room(entry)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its council runs
        else:
            with contextlib.suppress(OSError):
                remove_room(entry)
        finally:
            os.close(fd)


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False


class RoomDir:
    """The rooms and temporary directories of one run."""

    def __init__(self, run_id: str, base: Path | None = None) -> None:
        base = base or _private_base()
        with contextlib.suppress(OSError):
            _sweep_stale(base)
        self.path = base / f"{run_id}.{os.getpid()}"
        self.path.mkdir(mode=0o700, exist_ok=True)
        # Kept open (not inherited by the CLIs) until the run's end or its process's death.
        self._lock = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        # Refused only where this process already holds it: a run resumed in the process
        # that ran it (the library's API), whose first lock then stands for both.
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.manifests: dict[str, dict[str, Any]] = {}

    def room(self, seat: str) -> Path:
        return self.path / seat / "room"

    def tmp(self, seat: str) -> Path:
        """The seat's TMPDIR: created on first use, kept for the run."""
        path = self.path / seat / "tmp"
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path

    def build(self, seat: str, context: RunContext) -> Path:
        """Build (or refresh) the seat's room and note what it holds."""
        room = self.room(seat)
        room.parent.mkdir(mode=0o700, exist_ok=True)
        build_room(room, context)
        self.manifests[seat] = manifest(room)
        return room

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            remove_room(self.path)
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1


def manifest(room: Path) -> dict[str, Any]:
    """What a room holds, for the record: each file's size and SHA-256."""
    files = {}
    for name, (_, text) in room_files(room).items():
        data = text.encode("utf-8")
        files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return {"path": str(room), "files": files}
