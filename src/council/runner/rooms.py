"""Files a CLI must find in its room (qwen's settings, kimi-code's long prompt), written by
council before the CLI starts: the room is read-only, so it is opened briefly."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from council.atomicio import write_private


def place_room_files(room: Path, room_files: Mapping[str, str]) -> None:
    if not room_files:
        return
    mode = stat.S_IMODE(room.stat().st_mode)
    os.chmod(room, mode | stat.S_IWUSR | stat.S_IXUSR)
    try:
        for name, text in room_files.items():
            target = room / name
            # Level by level: mkdir(parents=True) gives the levels above the last the default
            # mode (0755 under the usual umask), not 0700.
            directory = room
            for part in Path(name).parent.parts:
                directory = directory / part
                directory.mkdir(exist_ok=True, mode=0o700)
            with suppress(FileNotFoundError):
                os.chmod(target, 0o600)
            write_private(target, text)
            os.chmod(target, 0o400)
    finally:
        os.chmod(room, mode)
