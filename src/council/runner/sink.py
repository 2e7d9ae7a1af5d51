"""A stream's destination: a file on disk written as bytes arrive, and a bounded copy in memory.

Writing as the bytes arrive means a killed call still leaves on disk what it had said. The
file takes up to `cap_bytes`; memory takes up to `memory_bytes` of the start and the last
`TAIL_BYTES` (a reply's VOTE line is at its end), and only counts the words in between: a
30 MB reply must not cost council 30 MB (or, decoded and split, ten times that) when the word
limit keeps a few hundred words of it. `memory_bytes=None` keeps everything up to the cap, for
output that must be read whole (a JSON document).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from council.words import LONG_WORD

DEFAULT_CAP_BYTES = 20 * 1024 * 1024
TAIL_BYTES = 64 * 1024
_WORD = re.compile(rb"\S+")


class CappedSink:
    def __init__(
        self, path: Path | None, cap_bytes: int = DEFAULT_CAP_BYTES, memory_bytes: int | None = None
    ) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.memory_bytes = cap_bytes if memory_bytes is None else min(memory_bytes, cap_bytes)
        self.kept = bytearray()
        self.tail = bytearray()  # the last TAIL_BYTES past `kept`, once memory is full
        self.dropped = 0  # bytes past the file's cap
        self.written = 0  # bytes taken (file and memory), up to the cap
        self.hidden_words = 0  # words between `kept` and `tail`, counted, not kept
        self._hidden_open = False  # the hidden part ends inside a word
        self.error: OSError | None = None  # a write to the file failed (disk full, ...)
        self._text: str | None = None
        self._fd: int | None = None
        if path is not None:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def write(self, chunk: bytes) -> None:
        room = self.cap_bytes - self.written
        if room < len(chunk):
            self.dropped += len(chunk) - max(room, 0)
            chunk = chunk[: max(room, 0)]
        if not chunk:
            return
        self.written += len(chunk)
        self._text = None
        self._remember(chunk)
        if self._fd is not None:
            # A plain write of at most one pipe read (64 KiB) into the page cache: cheaper
            # than a thread hop per chunk, and ordering stays trivial.
            self._write_all(chunk)

    @property
    def spilled(self) -> bool:
        """More was said than memory kept: `text()` is the start and the end, not the whole."""
        return self.written > len(self.kept) + len(self.tail)

    def _remember(self, chunk: bytes) -> None:
        head_room = self.memory_bytes - len(self.kept)
        if head_room > 0:
            self.kept += chunk[:head_room]
            chunk = chunk[head_room:]
            if not chunk:
                return
        self.tail += chunk
        if len(self.tail) > TAIL_BYTES:
            # What leaves the tail is only counted (whitespace-separated, a long token one
            # word per LONG_WORD bytes begun, like words.py for everything but CJK runs: the
            # count is shown as "~N").
            out = bytes(self.tail[: len(self.tail) - TAIL_BYTES])
            del self.tail[: len(out)]
            words = sum(-(-len(token) // LONG_WORD) for token in _WORD.findall(out))
            if words and self._hidden_open and not out[:1].isspace():
                words -= 1  # a word split between two pieces
            self.hidden_words += words
            self._hidden_open = not out[-1:].isspace()

    def _write_all(self, data: bytes) -> None:
        """Write to the file; on failure keep the error, stop writing, go on draining (a
        pump that stopped reading would leave the CLI blocked on a full pipe)."""
        assert self._fd is not None
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            self.error = exc
            os.close(self._fd)
            self._fd = None

    @property
    def marker(self) -> str:
        mib = self.cap_bytes / (1024 * 1024)
        return f"\n[council: output cut at {mib:g} MiB; {self.dropped} more bytes dropped]\n"

    def text(self) -> str:
        """What memory kept, decoded once: the whole output, or (`spilled`) its start, a line
        saying how much was left out, and its end."""
        if self._text is None:
            if not self.spilled:  # just over `memory_bytes`: the tail goes on where kept ends
                text = (self.kept + self.tail).decode("utf-8", errors="replace")
            else:
                gap = self.written - len(self.kept) - len(self.tail)
                text = self.kept.decode("utf-8", errors="replace")
                text += f"\n[council: {gap} bytes (~{self.hidden_words} words) kept on disk only]\n"
                text += self.tail.decode("utf-8", errors="replace")
            self._text = text
        return self._text

    def close(self) -> None:
        if self._fd is None:
            return
        if self.dropped:
            self._write_all(self.marker.encode())
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
