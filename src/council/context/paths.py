"""Which files may be shared: the project root, the root check, secret-file names.

Every refusal is collected, so the user sees all bad paths in one error and fixes them at once.
A path is judged twice: by what was typed (for the message and the name shown to seats) and by
where it really leads (symlinks resolved), so a link inside the project that points outside
it, or an innocent name that points at `.env`, is refused like the target itself.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# Names that hold credentials by convention (docs/spec/protocol.md section 4), plus the
# other SSH and PKCS#12 key files and the password files of curl/ftp, PostgreSQL and git,
# whose lines (`machine h login u password p`, `host:port:db:user:password`,
# `https://user:token@host`) no redaction grammar reads: refused unless --allow-secrets or
# the config's `redact.allow_files`.
SECRET_NAME_PATTERNS = (
    ".env*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "credentials*",
    "*.p12",
    "*.pfx",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".git-credentials",
)
OUTSIDE_DIR = "_outside"  # where files from outside the root appear in rooms and prompts


def find_root(cwd: Path) -> Path:
    """The git top level above `cwd` (a `.git` directory or worktree file), else `cwd`.

    Found by walking up rather than by running git: no process for the common case.
    """
    start = cwd.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def is_secret_name(name: str, allow_files: Sequence[str] = (), shown: str = "") -> bool:
    """True when `name` (a base name) looks like a credentials file and no allow glob covers
    it; `shown` (the relative path) is also tried against the allow globs."""
    lowered = name.lower()
    if not any(fnmatch.fnmatchcase(lowered, p) for p in SECRET_NAME_PATTERNS):
        return False
    return not any(
        fnmatch.fnmatchcase(name, glob) or (shown and fnmatch.fnmatchcase(shown, glob))
        for glob in allow_files
    )


@dataclass(frozen=True)
class Accepted:
    """A file that passed every check."""

    given: str  # as typed
    real: Path  # symlinks resolved
    shown: str  # relative POSIX path shown to seats and used in rooms


@dataclass(frozen=True)
class Refusal:
    given: str
    reason: str  # "no such file", ...
    fix: str = ""  # the flag or setting that would lift it


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_paths(
    file_args: Sequence[str],
    *,
    cwd: Path,
    root: Path,
    allow_outside: bool = False,
    allow_secrets: bool = False,
    allow_files: Sequence[str] = (),
) -> tuple[list[Accepted], list[Refusal]]:
    """Split `file_args` into accepted files (in the order given, duplicates dropped) and
    refusals. Nothing is read here."""
    accepted: list[Accepted] = []
    refused: list[Refusal] = []
    seen: set[Path] = set()
    taken: set[str] = set()
    for given in file_args:
        try:
            given.encode("utf-8")
        except UnicodeEncodeError:
            # A name the shell passed as undecodable bytes: it could not be shown in a prompt,
            # a record or a message.
            shown = given.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            refused.append(Refusal(shown, "its name is not valid UTF-8", "rename the file"))
            continue
        if "\0" in given:
            # Only a JSON argument (the MCP server's `files`) can carry one: no file has it.
            refused.append(Refusal(given.replace("\0", "\\0"), "holds a NUL character"))
            continue
        lexical = Path(os.path.normpath(cwd / given))
        try:
            real = lexical.resolve(strict=True)
            mode = real.stat().st_mode
        except FileNotFoundError:
            refused.append(Refusal(given, "no such file"))
            continue
        except (OSError, RuntimeError) as exc:  # a symlink loop, a permission problem
            refused.append(Refusal(given, f"cannot be read ({_reason(exc)})"))
            continue
        if stat.S_ISDIR(mode):
            refused.append(Refusal(given, "is a directory", "name the files inside it"))
            continue
        if not stat.S_ISREG(mode):
            # A FIFO or a device would block or never end when read.
            refused.append(Refusal(given, "is not a regular file"))
            continue
        if not os.access(real, os.R_OK):
            refused.append(Refusal(given, "cannot be read (permission denied)"))
            continue
        inside = _within(real, root)
        if not inside and not allow_outside:
            where = "points outside" if lexical != real else "is outside"
            refused.append(
                Refusal(given, f"{where} the project root {root}", "pass --allow-outside")
            )
            continue
        shown = _shown_path(lexical, real, root, taken)
        names = {lexical.name, real.name}
        if not allow_secrets and any(is_secret_name(n, allow_files, shown) for n in names):
            refused.append(
                Refusal(
                    given,
                    "may hold secrets (by its name)",
                    "pass --allow-secrets, or list it under redact.allow_files",
                )
            )
            continue
        if real in seen:
            continue
        seen.add(real)
        taken.add(shown)
        accepted.append(Accepted(given, real, shown))
    return accepted, refused


def _shown_path(lexical: Path, real: Path, root: Path, taken: set[str]) -> str:
    """The name seats see: the path as typed, relative to the root; a file from outside the
    root appears under `_outside/` by its base name (never by its absolute path)."""
    for candidate in (lexical, real):
        if _within(candidate, root) and candidate != root:
            return candidate.relative_to(root).as_posix()
    shown = f"{OUTSIDE_DIR}/{real.name}"
    n = 2
    while shown in taken:
        shown = f"{OUTSIDE_DIR}/{n}/{real.name}"
        n += 1
    return shown


def _reason(exc: BaseException) -> str:
    # Python 3.11 and 3.12 raise RuntimeError for a loop, 3.13 an OSError with ELOOP.
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "symlink loop"
    return getattr(exc, "strerror", None) or type(exc).__name__


def describe_refusals(refused: Sequence[Refusal]) -> str:
    """One message for all of them: each path with its reason, then the fixes."""
    parts = [f"{r.given}: {r.reason}" + (f" ({r.fix})" if r.fix else "") for r in refused]
    noun = "file" if len(refused) == 1 else "files"
    return f"cannot use {len(refused)} {noun}: " + "; ".join(parts)


def safe_relative(shown: str) -> PurePosixPath:
    """`shown` as a relative path that cannot leave the directory it is joined to."""
    rel = PurePosixPath(shown)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ValueError(f"not a safe relative path: {shown!r}")
    return rel
