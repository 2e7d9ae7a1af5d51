"""What a review may find fault with: the files it was given (and the diff's changed files,
which it is given too), at lines those files have. A reviewer's finding on anything else (a
path outside the project such as `../../../../etc/passwd` or `/etc/shadow`, a file nobody
reviewed) is kept in the record, marked `out_of_scope` with the reason, and never reaches
SARIF or the gate; a line past the file's end is clamped to its last line, with a warning.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

OUTSIDE = "names a path outside the project"
NOT_REVIEWED = "names a file that was not reviewed"


def place(
    finding: dict[str, Any], reviewed: Mapping[str, int], root: Path
) -> tuple[dict[str, Any], str | None]:
    """`finding` (a merged finding's JSON) put in scope: its path made relative to the
    project and normalised, `out_of_scope` set (the reason, or None), its line clamped to the
    file's length; and a warning when anything was changed or left out."""
    placed = dict(finding)
    placed["out_of_scope"] = None
    path = placed["file"]
    if not path:
        return placed, None  # about the change as a whole, or no one file
    relative = _inside(path, root)
    if relative is None:
        return _out(placed, OUTSIDE)
    placed["file"] = relative
    if relative not in reviewed:
        return _out(placed, NOT_REVIEWED)
    lines = reviewed[relative]
    line = placed.get("line")
    if line is None or line <= lines:
        if placed.get("end_line") is not None and placed["end_line"] > lines:
            placed["end_line"] = lines if lines > (line or 0) else None
        return placed, None
    placed["line"], placed["end_line"] = max(lines, 1), None
    return placed, (
        f"{placed['id']} names line {line} of {relative}, which has {lines} lines: "
        f"shown at line {placed['line']}"
    )


def _out(placed: dict[str, Any], why: str) -> tuple[dict[str, Any], str]:
    placed["out_of_scope"] = why
    placed["blocking"] = False
    return placed, f"{placed['id']} ({placed['file']}) {why}: kept in the record only"


def _inside(path: str, root: Path) -> str | None:
    """`path` relative to the project root, POSIX and normalised; None when it leaves it."""
    posix = path.replace("\\", "/")
    if posixpath.isabs(posix):
        try:
            posix = PurePosixPath(posix).relative_to(root.as_posix()).as_posix()
        except ValueError:
            return None
    normal = posixpath.normpath(posix)
    if normal in (".", "") or normal == ".." or normal.startswith("../"):
        return None
    return normal
