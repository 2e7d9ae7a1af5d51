"""A stream's destination: a file on disk written as bytes arrive, and a capped copy in memory.

Writing as the bytes arrive means a killed call still leaves on disk what it had said.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_CAP_BYTES = 20 * 1024 * 1024


class CappedSink:
    def __init__(self, path: Path | None, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.kept = bytearray()
        self.dropped = 0
        self._fd: int | None = None
        if path is not None:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def write(self, chunk: bytes) -> None:
        room = self.cap_bytes - len(self.kept)
        if room < len(chunk):
            self.dropped += len(chunk) - max(room, 0)
            chunk = chunk[: max(room, 0)]
        if not chunk:
            return
        self.kept += chunk
        if self._fd is not None:
            # A plain write of at most one pipe read (64 KiB) into the page cache: cheaper
            # than a thread hop per chunk, and ordering stays trivial.
            os.write(self._fd, chunk)

    @property
    def marker(self) -> str:
        mib = self.cap_bytes / (1024 * 1024)
        return f"\n[council: output cut at {mib:g} MiB; {self.dropped} more bytes dropped]\n"

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._fd is None:
            return
        if self.dropped:
            os.write(self._fd, self.marker.encode())
        os.close(self._fd)
        self._fd = None
