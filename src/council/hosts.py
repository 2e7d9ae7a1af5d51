"""Installing council into IDE hosts: the `/debate` and `/review` slash-commands and the agent
skills of `skill/`, copied where each host reads them (the adapters say where), and taken back.

A manifest remembers every file council wrote and what it wrote (its sha256), so install never
overwrites a file it did not write (or that the user changed since) without `force`, and
uninstall removes exactly its own files. Project scope: `<project>/.council/installed.json`;
user scope: `$XDG_DATA_HOME/council/installed.json` (default `~/.local/share/...`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from council.adapters import registered
from council.adapters.host import IdeHost
from council.atomicio import make_ignored_dir, remove_own_ignore, write_private
from council.errors import UsageError

SCOPES = ("project", "user")


def skill_dir() -> Path:
    shipped = Path(__file__).parent / "skill"  # a wheel install
    if shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[2] / "skill"  # an editable install


def host_names() -> list[str]:
    """The registered CLIs that are IDE hosts council can install into."""
    return [
        name for name, cls in registered().items() if issubclass(cls, IdeHost) and cls.host_files
    ]


def skipped_hosts(scope: str) -> list[tuple[str, str]]:
    """(name, why) of each registered CLI that `--host all` installs nothing for in `scope`."""
    skipped = []
    for name, cls in registered().items():
        if not issubclass(cls, IdeHost) or not cls.host_files:
            skipped.append((name, "council knows no place where it reads commands or skills"))
        elif cls.host_dirs.get(scope) is None:
            skipped.append((name, f"it reads no {scope} commands or skills"))
    return skipped


def headless_setting(host: str) -> str:
    """What `host` needs so that its model may run council with nobody to approve it."""
    cls = registered()[host]
    return cls.host_headless if issubclass(cls, IdeHost) else ""


@dataclass(frozen=True)
class Placement:
    host: str
    source: Path
    target: Path
    base: Path  # the host's directory (`.claude`, `~/.gemini`, ...)


def placements(
    hosts: Sequence[str], scope: str, project: Path, environ: Mapping[str, str]
) -> list[Placement]:
    """Where each host's files go in `scope`. A host that does not read `scope` is a usage
    error when named alone; with several hosts it is left out."""
    found = []
    for name in hosts:
        cls = registered()[name]
        assert issubclass(cls, IdeHost), f"{name} is no IDE host"  # host_names() offers hosts
        base = _host_dir(cls.host_dirs.get(scope), cls.host_dir_env, scope, project, environ)
        if base is None:
            if len(hosts) == 1:
                other = next(s for s in SCOPES if s != scope)
                raise UsageError(f"{name} reads no {scope} files; use --scope {other}")
            continue
        for source, target in cls.host_files:
            found.append(Placement(name, skill_dir() / source, base / target, base))
    return found


def _host_dir(
    where: str | None, env: str | None, scope: str, project: Path, environ: Mapping[str, str]
) -> Path | None:
    if where is None:
        return None
    if scope == "project":
        return project / where
    if env and environ.get(env):
        return Path(environ[env]).expanduser()
    return Path(where.replace("~", str(_home(environ)), 1))


def _home(environ: Mapping[str, str]) -> Path:
    """The user's home as the environment names it. Unset, it is a usage error: the home of
    the user id (`~` of the password database) may be another's under `sudo` or in a
    container, and council writes no user files where the user did not point."""
    home = environ.get("HOME")
    if not home:
        raise UsageError("HOME is not set: set it, or install into the project (--scope project)")
    return Path(home)


def manifest_path(scope: str, project: Path, environ: Mapping[str, str]) -> Path:
    if scope == "project":
        return project / ".council" / "installed.json"
    data = Path(environ.get("XDG_DATA_HOME") or _home(environ) / ".local" / "share")
    return data / "council" / "installed.json"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load(manifest: Path) -> dict[str, dict[str, str]]:
    """path -> {host, sha256, base} of every file council installed in this scope."""
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"{manifest}: cannot read council's manifest ({exc.strerror})") from None
    except (ValueError, KeyError, TypeError):
        files = None
    fields = ("host", "sha256", "base")
    if not isinstance(files, dict) or not all(
        isinstance(e, dict) and all(isinstance(e.get(f), str) for f in fields)
        for e in files.values()
    ):
        raise UsageError(f"{manifest}: not a manifest council can read; move it away")
    return files


def writable(paths: Sequence[Path]) -> None:
    """A `UsageError` naming the first of `paths` that cannot be written (its nearest existing
    folder is read-only, or it is a folder), before anything is written."""
    for path in paths:
        if path.is_dir():
            raise UsageError(f"{path} is a directory where council would write a file")
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"cannot write {path}: {folder} is a file, not a folder")
        if (path.exists() and not os.access(path, os.W_OK)) or not os.access(
            folder, os.W_OK | os.X_OK
        ):
            raise UsageError(f"cannot write {path}: {folder} is read-only; nothing was written")


def _save(manifest: Path, files: Mapping[str, Mapping[str, str]]) -> None:
    if not files:
        manifest.unlink(missing_ok=True)
        remove_own_ignore(manifest.parent)
        return
    make_ignored_dir(manifest.parent, 0o777)
    write_private(manifest, json.dumps({"files": files}, indent=2, sort_keys=True) + "\n")


def _ours(path: Path, known: Mapping[str, Mapping[str, str]]) -> bool:
    """True when `path` is a file council wrote and nobody changed since."""
    entry = known.get(str(path))
    return entry is not None and path.is_file() and _digest(path.read_bytes()) == entry["sha256"]


def install(
    hosts: Sequence[str],
    scope: str,
    project: Path,
    environ: Mapping[str, str],
    *,
    force: bool = False,
) -> tuple[list[Path], list[Path]]:
    """Copy the hosts' files into place; returns (written, removed): a file council wrote
    there earlier that it no longer ships (codex's `prompts/debate.md`) is removed unless it
    was changed since. Nothing is written when one target is a file council did not write
    (or that was changed since) and not `force`."""
    manifest = manifest_path(scope, project, environ)
    known = _load(manifest)
    planned = placements(hosts, scope, project, environ)
    blocked = []
    for p in planned:
        data = p.source.read_bytes()
        clash = p.target.exists() and not _ours(p.target, known)
        if clash and not (p.target.is_file() and p.target.read_bytes() == data):
            blocked.append(p.target)
    if blocked and not force:
        listed = ", ".join(str(b) for b in blocked)
        raise UsageError(f"not overwriting files council did not write: {listed}; add --force")
    writable([*(p.target for p in planned), manifest])
    written = []
    for p in planned:
        data = p.source.read_bytes()
        p.target.parent.mkdir(parents=True, exist_ok=True)
        p.target.write_bytes(data)
        known[str(p.target)] = {"host": p.host, "sha256": _digest(data), "base": str(p.base)}
        written.append(p.target)
    removed = _remove_retired(hosts, {str(p.target) for p in planned}, known)
    _save(manifest, known)
    return written, removed


def _remove_retired(
    hosts: Sequence[str], shipped: set[str], known: dict[str, dict[str, str]]
) -> list[Path]:
    """Remove the files council installed for `hosts` that it no longer installs, as long as
    nobody changed them (a changed one stays for `uninstall` to report)."""
    removed = []
    for path_text, entry in sorted(known.items()):
        path = Path(path_text)
        if entry["host"] not in hosts or path_text in shipped:
            continue
        if path.exists() and not _ours(path, known):
            continue
        path.unlink(missing_ok=True)
        _prune(path.parent, stop=Path(entry["base"]).parent)
        del known[path_text]
        removed.append(path)
    return removed


def uninstall(
    hosts: Sequence[str],
    scope: str,
    project: Path,
    environ: Mapping[str, str],
    *,
    force: bool = False,
) -> tuple[list[Path], list[Path]]:
    """Remove the files council installed for `hosts` in `scope`. Returns (removed, kept):
    a file changed since it was installed is kept unless `force`."""
    manifest = manifest_path(scope, project, environ)
    known = _load(manifest)
    removed, kept = [], []
    for path_text, entry in sorted(known.items()):
        if entry["host"] not in hosts:
            continue
        path = Path(path_text)
        if path.exists() and not _ours(path, known) and not force:
            kept.append(path)
            continue
        path.unlink(missing_ok=True)
        _prune(path.parent, stop=Path(entry["base"]).parent)
        del known[path_text]
        removed.append(path)
    _save(manifest, known)
    if scope == "project":
        _prune(manifest.parent, stop=project)
    return removed, kept


def _prune(directory: Path, *, stop: Path) -> None:
    """Remove `directory` and its parents while they are empty, up to (not including) `stop`:
    the directories install created for its files, never the project or the home itself."""
    while directory != stop and directory.is_relative_to(stop):
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


__all__ = [
    "SCOPES",
    "headless_setting",
    "host_names",
    "install",
    "placements",
    "skill_dir",
    "skipped_hosts",
    "uninstall",
]
