"""Private, atomic file writes: what a crash, Ctrl-C or SIGKILL leaves is the old file or the
new one, never half of one; and nobody but the user can read a record."""

from __future__ import annotations

import errno
import json
import os
import stat
import uuid
from pathlib import Path
from typing import Any


def write_private(path: Path, text: str, mode: int = 0o600) -> None:
    """Atomic write (temporary file in the same directory, then rename), 0600 unless `mode`
    says otherwise (the umask applies to that)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_output(path: Path, text: str) -> None:
    """A user's `--output`, written as a shell redirection would: a regular file (or a new
    one) is replaced atomically with the umask's mode, a symlink is followed (its target is
    replaced, the link stays), and a device or FIFO (`/dev/stdout`, `/dev/null`, a pipe) is
    written in place, never replaced by a file. A directory is an IsADirectoryError."""
    try:
        kind = os.stat(path).st_mode  # through symlinks: /dev/stdout is one to a pipe's fd
    except FileNotFoundError:
        kind = None
    if kind is not None and stat.S_ISDIR(kind):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if kind is not None and not stat.S_ISREG(kind):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    write_private(Path(os.path.realpath(path)), text, mode=0o666)


def write_json(path: Path, value: Any, *, compact: bool = False) -> None:
    """`compact` for a file rewritten often: json's C encoder only runs without indentation,
    several times faster than the pure-Python one on a large state."""
    if compact:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    write_private(path, text + "\n")


def append_private(path: Path, line: str) -> None:
    """Append one line to a 0600 file; a line is written with one write(2), so a reader (or a
    resume after SIGKILL) sees whole lines only, except possibly a torn last one."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        data = memoryview(line.encode("utf-8"))
        while data:  # a short write (a disk filling up) is followed by the error itself
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


# What council writes into a directory of its own inside the user's repository.
IGNORE_ALL = "# Made by council: nothing here is to be committed.\n*\n"


def make_ignored_dir(path: Path, mode: int = 0o700) -> None:
    """Make the directory `path` (and its parents); when this call makes it, put a `.gitignore`
    of `*` in it, as pytest does for its cache, so nothing council keeps there shows in the
    user's `git status`. A `.gitignore` the user deleted later stays deleted."""
    existed = path.is_dir()
    path.mkdir(parents=True, exist_ok=True, mode=mode)
    if not existed:
        write_private(path / ".gitignore", IGNORE_ALL, 0o644)


def remove_own_ignore(path: Path) -> None:
    """Remove the `.gitignore` `make_ignored_dir` wrote in `path` once nothing else is left
    there, so the empty directory can go; one the user changed stays."""
    ignore = path / ".gitignore"
    try:
        if [p.name for p in path.iterdir()] == [".gitignore"] and ignore.read_text() == IGNORE_ALL:
            ignore.unlink()
    except OSError:
        pass
