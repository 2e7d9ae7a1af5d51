"""One council per record: an OS lock on the record directory itself, plus who holds it.

The lock is `flock(2)` on the record's directory: the kernel drops it when the holding process
dies, however it dies, so a stale lock is simply free and the next council takes it over. It
is on the directory, not on a file in it, so deleting a file cannot let a second council in
(with the `lock` file it once was, `rm lock` did). The `lock` file only names the holder (pid
and start time) so a refusal can say which process runs the record and `council cancel` knows
whom to signal. A detached run's lock is taken by the process that
creates the record and inherited by the process that runs it (the same open file), so there
is no moment in which the record looks abandoned.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

import psutil

from council.errors import UsageError

LOCK = "lock"


@dataclass(frozen=True)
class Holder:
    pid: int
    started: float  # the process's start time, so a reused pid is not mistaken for it

    def alive(self) -> bool:
        try:
            return psutil.Process(self.pid).create_time() == self.started
        except psutil.Error:
            return False


class RecordLocked(Exception):
    def __init__(self, holder: Holder | None) -> None:
        self.holder = holder
        who = f"process {holder.pid}" if holder else "another process"
        super().__init__(f"the record is in use by {who}")


class RecordLock:
    """Held for as long as this object's directory fd stays open (and by every process
    sharing it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd  # the record directory's

    @classmethod
    def acquire(cls, record: Path, pid: int | None = None) -> RecordLock:
        """Take the lock of `record` for `pid` (this process when None), or raise
        `RecordLocked` naming the holder; a `UsageError` naming the cause when the record
        cannot be opened or written (a full disk, no descriptors left)."""
        try:
            return cls._acquire(record, pid)
        except OSError as exc:
            raise UsageError(
                f"cannot take the record {record}: {exc.strerror or exc}; free space (or "
                "descriptors, `ulimit -n`), or give another place with --scratchpad"
            ) from None

    @classmethod
    def _acquire(cls, record: Path, pid: int | None) -> RecordLock:
        fd = os.open(record, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RecordLocked(holder(record)) from None
        lock = cls(fd)
        try:
            lock.name_holder(pid or os.getpid())
        except BaseException:
            lock.release()
            raise
        return lock

    def name_holder(self, pid: int) -> None:
        """Say in the `lock` file which process runs the record (a detached run's child,
        say): written beside and renamed over it, so a reader never sees half of it."""
        data = json.dumps({"pid": pid, "started": psutil.Process(pid).create_time()}).encode()
        temporary = f".{LOCK}.{os.getpid()}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600, dir_fd=self.fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.fd)
            raise
        os.close(fd)
        os.replace(temporary, LOCK, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def inheritable(self) -> int:
        """The fd to hand to a child process that takes the run over."""
        os.set_inheritable(self.fd, True)
        return self.fd

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing our last copy drops the lock
            self.fd = -1


def is_held(record: Path) -> bool:
    """True while a live process holds the lock of `record` (a dead one holds nothing)."""
    try:
        fd = os.open(record, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # gone, or another user's: nothing this council can wait on or take
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also lets go of the shared lock, when we got it
    return False


def holder(record: Path) -> Holder | None:
    """The process named in the lock file of `record`, or None (never named, or unreadable).
    It holds the lock only while `is_held(record)`."""
    try:
        data = json.loads((record / LOCK).read_bytes() or b"{}")
        return Holder(int(data["pid"]), float(data["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
