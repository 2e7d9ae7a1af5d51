"""The record of one run: `.scratchpad/<kind>-<YYYYMMDD-HHMMSS>-<4 chars>/`.

Directory 0700, files 0600, every file written atomically as the run goes
(docs/spec/protocol.md section 5), so a crash, Ctrl-C or SIGKILL loses nothing already
received, and `council resume` can pick up from `state.json`. `progress.log` holds the run's
progress lines, for `council wait` and for a detached run.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import string
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from council.atomicio import append_private, write_json, write_private
from council.errors import UsageError


class RunState(Protocol):
    """What a run keeps in `state.json` (a debate's `DebateState`, say)."""

    def to_json(self) -> dict[str, Any]: ...


KINDS = ("debate", "review")
ID_PATTERN = re.compile(rf"^(?:{'|'.join(KINDS)})-\d{{8}}-\d{{6}}-[a-z0-9]{{4}}$")
STATE = "state.json"
TRANSCRIPT = "transcript.jsonl"
PROGRESS = "progress.log"


def now_iso() -> str:
    """Now, as a record writes times: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def kind_of(record_id: str) -> str:
    """`debate` or `review`: the protocol a record belongs to, from its id."""
    return record_id.split("-", 1)[0]


def is_record_name(name: str) -> bool:
    return ID_PATTERN.match(name) is not None


class Record:
    def __init__(self, path: Path) -> None:
        self.path = path

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
            scratchpad.mkdir(parents=True, exist_ok=True, mode=0o700)
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
        write_private(self.file(name), text)

    def write_json(self, name: str, value: Any) -> None:
        write_json(self.file(name), value)

    def save_state(self, state: RunState) -> None:
        """`state.json`, rewritten after every change of a debate: compact, to stay cheap."""
        write_json(self.file(STATE), state.to_json(), compact=True)

    def read_json(self, name: str) -> Any:
        return json.loads(self.file(name).read_text(encoding="utf-8"))

    def append_transcript(self, entry: dict[str, Any]) -> None:
        append_private(
            self.file(TRANSCRIPT), json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        )

    def transcript(self) -> list[dict[str, Any]]:
        path = self.file(TRANSCRIPT)
        if not path.exists():
            return []
        entries = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn by SIGKILL
        return entries

    def room(self, seat: str) -> Path:
        return self.path / "rooms" / seat
