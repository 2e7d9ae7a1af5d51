"""The record of one debate: `.scratchpad/debate-<YYYYMMDD-HHMMSS>-<4 chars>/`.

Directory 0700, files 0600, every file written atomically as the debate goes (docs/spec/protocol.md
section 5), so a crash, Ctrl-C or SIGKILL loses nothing already received, and `council resume`
can pick up from `state.json`.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import string
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from council.atomicio import append_private, write_json, write_private
from council.errors import UsageError


class RunState(Protocol):
    """What a run keeps in `state.json` (a debate's `DebateState`, say)."""

    def to_json(self) -> dict[str, Any]: ...


ID_PATTERN = re.compile(r"^debate-\d{8}-\d{6}-[a-z0-9]{4}$")
STATE = "state.json"
TRANSCRIPT = "transcript.jsonl"


class Record:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def id(self) -> str:
        return self.path.name

    @classmethod
    def create(cls, scratchpad: Path, now: datetime | None = None) -> Record:
        scratchpad.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        alphabet = string.ascii_lowercase + string.digits
        while True:
            suffix = "".join(secrets.choice(alphabet) for _ in range(4))
            path = scratchpad / f"debate-{stamp}-{suffix}"
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                continue
            os.chmod(path, 0o700)  # whatever the umask
            return cls(path)

    @classmethod
    def open(cls, scratchpad: Path, debate_id: str) -> Record:
        name = debate_id.rstrip("/").rsplit("/", 1)[-1]
        path = scratchpad / name
        if not ID_PATTERN.match(name) or not (path / STATE).is_file():
            known = ", ".join(r.id for r in list_records(scratchpad)[:3]) or "none"
            raise UsageError(
                f"no debate '{debate_id}' in {scratchpad} (recent: {known}); see `council list`"
            )
        return cls(path)

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


def list_records(scratchpad: Path) -> list[Record]:
    if not scratchpad.is_dir():
        return []
    found = [
        Record(p)
        for p in scratchpad.iterdir()
        if ID_PATTERN.match(p.name) and (p / STATE).is_file()
    ]
    return sorted(found, key=lambda r: r.id, reverse=True)
