"""Progress on stderr (docs/spec/outputs.md "Progress on stderr").

Not on a terminal (CI, pipes, IDE tool calls): plain append-only lines, one per event,
`[mm:ss] text`. On a terminal: the same lines scroll above a live block with one line per
seat (phase, state, elapsed / timeout, words), redrawn in place. `--quiet` keeps warnings and
errors only; `-v` adds each call's argv, timings and stderr tails.

Every line also goes to the run's `progress.log` once the record exists (`log_to`), whatever
`--quiet` says, so `council wait` can replay a run's progress.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from council.safetext import clean


@dataclass
class SeatLine:
    phase: str = "-"
    state: str = "starting"
    started: float | None = None
    timeout_s: float | None = None
    words: int | None = None


class Progress:
    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        verbose: bool = False,
        live: bool | None = None,
    ) -> None:
        self.stream: TextIO = _Terminal(stream or sys.stderr)
        self.quiet = quiet
        self.verbose = verbose
        self.live = (_redrawable(self.stream) if live is None else live) and not quiet
        self.start = time.monotonic()
        self.seats: dict[str, SeatLine] = {}
        self._drawn = 0
        self._log: int | None = None  # the fd of progress.log, once the record exists
        self._unlogged: list[str] = []  # lines from before that

    def terminal_gone(self) -> None:
        """The terminal hung up (SIGHUP): nothing more is shown; progress.log goes on."""
        assert isinstance(self.stream, _Terminal)
        self.stream.gone = True
        self.live = False

    def log_to(self, path: Path) -> None:
        """Append every line to `path` from now on, and the lines written so far."""
        self._log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if self._unlogged:
            os.write(self._log, "".join(self._unlogged).encode())
            self._unlogged.clear()

    def close_log(self) -> None:
        if self._log is not None:
            os.close(self._log)
            self._log = None

    def _stamp(self) -> str:
        minutes, seconds = divmod(int(time.monotonic() - self.start), 60)
        return f"[{minutes:02d}:{seconds:02d}]"

    def _emit(self, text: str, shown: bool = True) -> None:
        # The last line of defence: whatever a line quotes, no control sequence reaches the
        # terminal (the live view's own cursor moves are written apart, in _clear).
        line = f"{self._stamp()} {clean(text)}\n"
        if self._log is not None:
            try:
                os.write(self._log, line.encode())  # one write: a reader sees whole lines
            except OSError:
                # A failing disk: the record's own writes report it; the log just stops.
                self.close_log()
        else:
            self._unlogged.append(line)
        if shown:
            self._clear()
            self.stream.write(line)
            self._draw()
            self.stream.flush()

    def info(self, text: str) -> None:
        self._emit(text, shown=not self.quiet)

    def detail(self, text: str) -> None:
        if self.verbose:
            self._emit(text, shown=not self.quiet)

    def warn(self, text: str) -> None:
        self._emit(f"warning: {text}")

    # -- the live block ------------------------------------------------------------------

    def seat(self, name: str, **changes: object) -> None:
        line = self.seats.setdefault(name, SeatLine())
        for key, value in changes.items():
            setattr(line, key, value)
        if self.live:
            self._clear()
            self._draw()
            self.stream.flush()

    def tick(self) -> None:
        if self.live and self.seats:
            self._clear()
            self._draw()
            self.stream.flush()

    def _clear(self) -> None:
        if self.live and self._drawn:
            # up to the block's first line, then clear to the end of the screen
            self.stream.write(f"\x1b[{self._drawn}F\x1b[J")
            self._drawn = 0

    def _draw(self) -> None:
        if not self.live or not self.seats:
            return
        now = time.monotonic()
        width = max(len(name) for name in self.seats)
        for name, line in self.seats.items():
            elapsed = "" if line.started is None else f"{now - line.started:5.0f}s"
            limit = f" / {line.timeout_s:.0f}s" if line.timeout_s and line.started else ""
            words = f"  {line.words} words" if line.words is not None else ""
            self.stream.write(
                f"  {name.ljust(width)}  {line.phase:<13} {line.state:<12}{elapsed}{limit}{words}\n"
            )
        self._drawn = len(self.seats)


def _redrawable(stream: TextIO) -> bool:
    """A terminal that takes cursor moves: not a pipe or file, and not `TERM=dumb` (an
    editor's shell, a CI log viewer), which shows them as garbage."""
    return stream.isatty() and os.environ.get("TERM", "") != "dumb"


class _Terminal:
    """The stream progress is shown on, which may go away mid-run: a closed terminal (EIO),
    a reader that left (EPIPE). Showing progress must never end a run: once a write fails,
    nothing more is written there (the record's progress.log keeps every line)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):  # ValueError: the stream was closed
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self.gone = True

    def isatty(self) -> bool:
        try:
            return not self.gone and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)
