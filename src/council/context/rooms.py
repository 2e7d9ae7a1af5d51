"""Clean rooms: a seat's working directory, holding read-only copies of the given files.

`rooms/<seat>/<relative path>` holds each file as redacted (whole, not capped: a seat's read
tools may look past the prompt's excerpt), files 0400 and directories 0500, so reading works
and writing fails with EACCES for the owner. Only regular files are written, never links, and
every relative path is checked, so nothing can land outside the room.

The permission bits do not bind root (CAP_DAC_OVERRIDE): as root, the room still keeps the
user's tree out of reach of relative writes, but the CLIs' own read-only modes are what stop
a write (see `protection_note`).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from council.atomicio import write_private
from council.context.model import RunContext
from council.context.paths import safe_relative

FILE_MODE = 0o400
DIR_MODE = 0o500


def _unlock(room: Path) -> None:
    """Make an existing room writable again (owner only) so it can be rebuilt or removed."""
    if not room.exists():
        return
    for current, dirs, files in os.walk(room, topdown=True):
        os.chmod(current, 0o700)
        for name in dirs:
            path = Path(current, name)
            if not path.is_symlink():
                os.chmod(path, 0o700)
        for name in files:
            path = Path(current, name)
            if not path.is_symlink():
                os.chmod(path, 0o600)


def _lock(room: Path) -> None:
    """Files 0400, then directories 0500 from the deepest up (a locked parent would stop
    us from changing its children)."""
    for current, dirs, files in os.walk(room, topdown=False):
        for name in files:
            path = Path(current, name)
            if not path.is_symlink():
                os.chmod(path, FILE_MODE)
        for name in dirs:
            path = Path(current, name)
            if not path.is_symlink():
                os.chmod(path, DIR_MODE)
    os.chmod(room, DIR_MODE)


def build_room(room: Path, ctx: RunContext) -> None:
    """Create or refresh `room` with the context's files. Idempotent: a second call on the
    same context leaves the same tree; files placed by others (a CLI's config the runner
    writes) are kept and locked with the rest."""
    room.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if room.is_symlink():
        raise ValueError(f"{room}: a room cannot be a symbolic link")
    room.mkdir(exist_ok=True, mode=0o700)
    _unlock(room)
    try:
        for excerpt in ctx.files:
            rel = safe_relative(excerpt.path)
            target = room.joinpath(*rel.parts)
            parent = target.parent
            # A component that is a link (planted since the last build) would lead outside.
            for ancestor in [*reversed(target.relative_to(room).parents)][1:]:
                step = room / ancestor
                if step.is_symlink() or (step.exists() and not step.is_dir()):
                    raise ValueError(f"{step}: not a directory inside the room")
            parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if target.is_symlink() or target.is_dir():
                raise ValueError(f"{target}: in the way of a room file")
            text = excerpt.room_text if excerpt.room_text is not None else excerpt.text
            write_private(target, text)
    finally:
        _lock(room)


def remove_room(room: Path) -> None:
    """Delete a room (or a `rooms/` directory): the read-only bits are lifted first, since
    `rm -r` cannot empty a 0500 directory."""
    if not room.exists() and not room.is_symlink():
        return
    if room.is_symlink() or not room.is_dir():
        room.unlink()
        return
    _unlock(room)
    shutil.rmtree(room)


def protection_note() -> str | None:
    """A warning for the setup report when nothing but the CLIs' own read-only modes and the
    after-call check stands between a CLI and the user's files: no write confinement
    (Landlock) here, or a test-only switch that would loosen it is set and ignored. Said once
    per run; None where Landlock is in force and no such switch is set."""
    from council.runner.confine import ignored_note, missing_note

    note = missing_note()
    if note and hasattr(os, "geteuid") and os.geteuid() == 0:
        note += "; as root, the read-only rooms do not stop a write either"
    notes = [n for n in (note, ignored_note()) if n]
    return "; ".join(notes) or None


def room_files(room: Path) -> dict[str, tuple[int, str]]:
    """Relative path -> (mode, text) of every file in a room; for checks and tests."""
    found = {}
    for path in sorted(room.rglob("*")):
        if path.is_file() and not path.is_symlink():
            mode = stat.S_IMODE(path.lstat().st_mode)
            found[path.relative_to(room).as_posix()] = (
                mode,
                path.read_bytes().decode("utf-8", "replace"),
            )
    return found
