"""The record of one run: `.scratchpad/<kind>-<YYYYMMDD-HHMMSS>-<4 chars>/`.

Directory 0700, files 0600, every file written atomically as the run goes
(docs/spec/protocol.md section 5), so a crash, Ctrl-C or SIGKILL loses nothing already
received, and `council resume` can pick up from `state.json`. `progress.log` holds the run's
progress lines, for `council wait` and for a detached run.

A write that fails (a read-only directory, a full disk) raises `RecordWriteError` naming the
file, and freezes the record: nothing more is written, so what is on disk stays the last
consistent picture. `state.json` and `transcript.jsonl` agree in it: a failed `state.json`
write cuts the transcript back to what the last good `state.json` knew (a reply broadcast
after it is not in the state, and must not be in the transcript either), and a transcript
line that fails is never followed by the state that would record its reply.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import string
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from council.atomicio import append_private, make_ignored_dir, write_json, write_private
from council.errors import RecordWriteError, UsageError


class RunState(Protocol):
    """What a run keeps in `state.json` (a debate's `DebateState`, say)."""

    def to_json(self) -> dict[str, Any]: ...


# `<kind>-<YYYYMMDD>-<HHMMSS>-<4 chars>`, whatever the kind: the protocols are registered above
# this layer (`council.protocols`), and a record of any of them is found, listed and waited on.
ID_PATTERN = re.compile(r"^[a-z]+-\d{8}-\d{6}-[a-z0-9]{4}$")
STATE = "state.json"
TRANSCRIPT = "transcript.jsonl"
PROGRESS = "progress.log"


def now_iso() -> str:
    """Now, as a record writes times: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def kind_of(record_id: str) -> str:
    """`debate`, `review`, ...: the protocol a record belongs to, from its id."""
    return record_id.split("-", 1)[0]


def is_record_name(name: str) -> bool:
    return ID_PATTERN.match(name) is not None


class Record:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.failed: RecordWriteError | None = None  # the first write that failed
        self._transcript_size: int | None = None  # bytes of transcript.jsonl, as we wrote it
        self._committed: int | None = None  # ... when state.json was last written

    @property
    def id(self) -> str:
        return self.path.name

    @classmethod
    def create(cls, scratchpad: Path, kind: str = "debate", now: datetime | None = None) -> Record:
        if scratchpad.exists() and not scratchpad.is_dir():
            raise UsageError(
                f"{scratchpad} is a file, not a directory for records; "
                "give another with --scratchpad"
            )
        try:
            make_ignored_dir(scratchpad)
        except OSError as exc:
            raise UsageError(
                f"cannot make the records directory {scratchpad}: {exc.strerror}; "
                "give a writable one with --scratchpad"
            ) from None
        if not os.access(scratchpad, os.W_OK | os.X_OK):
            raise UsageError(
                f"cannot write records in {scratchpad}: permission denied; "
                "give a writable one with --scratchpad"
            )
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        alphabet = string.ascii_lowercase + string.digits
        while True:
            suffix = "".join(secrets.choice(alphabet) for _ in range(4))
            path = scratchpad / f"{kind}-{stamp}-{suffix}"
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                continue
            os.chmod(path, 0o700)  # whatever the umask
            return cls(path)

    def display(self, cwd: Path | None = None) -> str:
        """The record's path as a user would type it: relative to `cwd` when inside it."""
        cwd = cwd or Path.cwd()
        try:
            inside = self.path.absolute().is_relative_to(cwd.absolute())
        except ValueError:
            inside = False
        shown = os.path.relpath(self.path.absolute(), cwd.absolute()) if inside else str(self.path)
        return shown + "/"

    def file(self, name: str) -> Path:
        return self.path / name

    def write_text(self, name: str, text: str) -> None:
        self._guarded(name, write_private, self.file(name), text)

    def write_json(self, name: str, value: Any) -> None:
        self._guarded(name, write_json, self.file(name), value)

    def save_state(self, state: RunState) -> None:
        """`state.json`, rewritten after every change of a debate: compact, to stay cheap."""
        size = self._size()
        try:
            self._guarded(STATE, write_json, self.file(STATE), state.to_json(), compact=True)
        except RecordWriteError:
            self._cut_transcript()
            raise
        self._committed = size

    def failure(self, path: Path, exc: OSError) -> RecordWriteError:
        """Freeze the record after a failed write of `path` (by the record or by the runner
        writing a call's files into it); the error to raise."""
        if self.failed is None:
            self.failed = RecordWriteError(path, exc, self.id)
        return self.failed

    def _guarded(self, name: str, write: Any, *args: Any, **kwargs: Any) -> None:
        if self.failed is not None:
            raise self.failed
        try:
            write(*args, **kwargs)
        except OSError as exc:
            raise self.failure(self.file(name), exc) from exc

    def _size(self) -> int:
        if self._transcript_size is None:
            try:
                self._transcript_size = self.file(TRANSCRIPT).stat().st_size
            except FileNotFoundError:
                self._transcript_size = 0
        return self._transcript_size

    def _cut_transcript(self) -> None:
        """Drop the transcript lines written since the last good `state.json`."""
        if self._committed is None:
            return  # no state written by this process: nothing to agree with yet
        try:
            os.truncate(self.file(TRANSCRIPT), self._committed)
            self._transcript_size = self._committed
        except OSError:
            pass  # a reader skips a torn last line; resume trusts state.json

    def read_json(self, name: str) -> Any:
        return json.loads(self.file(name).read_text(encoding="utf-8"))

    def append_transcript(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        size = self._size()
        try:
            self._guarded(TRANSCRIPT, append_private, self.file(TRANSCRIPT), line)
        except RecordWriteError:
            # A short write (ENOSPC) may have left part of the line: take it back.
            with contextlib.suppress(OSError):
                os.truncate(self.file(TRANSCRIPT), size)
            raise
        self._transcript_size = size + len(line.encode("utf-8"))

    def transcript(self) -> list[dict[str, Any]]:
        """The transcript's entries; a line that is not a whole JSON object (torn by SIGKILL,
        even inside a multibyte character) is skipped. A transcript that cannot be read is a
        `UsageError` naming it."""
        path = self.file(TRANSCRIPT)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise UsageError(f"{path}: cannot be read ({exc.strerror})") from None
        entries = []
        for line in data.splitlines():
            try:
                entry = json.loads(line.decode("utf-8"))
            except ValueError:
                continue  # a line torn by SIGKILL
            if isinstance(entry, dict):
                entries.append(entry)
        return entries
