"""Finding the config files and reading their YAML.

The project file is `./council.yaml`, or the `--config PATH` that replaces it; the user file is
`$XDG_CONFIG_HOME/council/config.yaml` (default `~/.config/council/config.yaml`). Both are read
when both exist: `load_config` merges them, the project file over the user file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.config.layers import Level, Source, file_source
from council.config.model import CONFIG_NAME
from council.errors import ConfigError


@dataclass(frozen=True)
class ConfigFile:
    path: Path
    level: Level  # PROJECT or USER

    @property
    def source(self) -> Source:
        return file_source(self.level, self.path)


def user_config_path(environ: Mapping[str, str]) -> Path | None:
    """None when neither XDG_CONFIG_HOME nor HOME says where the user's files are."""
    if xdg := environ.get("XDG_CONFIG_HOME"):
        return Path(xdg) / "council" / "config.yaml"
    if home := environ.get("HOME"):
        return Path(home) / ".config" / "council" / "config.yaml"
    return None


def find_config_files(
    explicit: Path | None, cwd: Path, environ: Mapping[str, str]
) -> tuple[ConfigFile, ...]:
    """The files to merge, highest precedence first: the project file, then the user file."""
    if explicit is not None:
        if explicit.is_dir():
            raise ConfigError(f"{explicit}: is a directory, not a config file; check --config")
        if not explicit.exists():
            raise ConfigError(f"{explicit}: config file not found; check the --config path")
        if not (explicit.is_file() or _is_devnull(explicit)):
            # A detached run and `council mcp` read the file again later, and a pipe
            # (`--config <(...)`) would be empty by then: a different config, silently.
            raise ConfigError(
                f"{explicit}: not a regular file (a pipe or a device); "
                "write the config to a file and pass its path"
            )
        project: Path | None = explicit
    else:
        local = cwd / CONFIG_NAME
        project = local if _exists(local) else None
    user = user_config_path(environ)
    found = []
    if project is not None:
        found.append(ConfigFile(project, Level.PROJECT))
    if user is not None and _exists(user) and not _same_file(user, project):
        found.append(ConfigFile(user, Level.USER))
    return tuple(found)


def _is_devnull(path: Path) -> bool:
    """`--config /dev/null`: the usual way to say "no project file" (the user file and the
    defaults still apply)."""
    try:
        return path.samefile(os.devnull)
    except OSError:
        return False


def _exists(path: Path) -> bool:
    """A config file is there, or something in its place that `read_yaml` will name (a
    directory where a file belongs is a mistake to report, not a file to skip)."""
    try:
        return path.is_file() or path.is_dir()
    except OSError as exc:  # a home this user cannot enter (`sudo -u` keeps HOME)
        raise ConfigError(
            f"{path}: cannot read the config file: {exc.strerror}; fix its permissions, "
            "or point XDG_CONFIG_HOME elsewhere"
        ) from None


def read_yaml(path: Path) -> Any:
    """The file's YAML value (None for an empty file); a syntax error names the line."""
    import yaml  # only when there is a file: keeps start-up light

    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, not a config file; give a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror}") from None
    if "\0" in text:
        raise ConfigError(f"{path}: the config file is binary, not YAML text")
    try:
        return yaml.load(text, Loader=_loader())  # a SafeLoader that refuses aliases
    except _AliasUsed as alias:
        raise ConfigError(
            f"{path}: line {alias.line}: YAML aliases (*{alias.anchor}) are not supported in "
            "council's config; write the value out where it is used"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and context_mark is not None and context_mark.line != getattr(mark, "line", -1):
            # An unclosed bracket is found at the end of the file: say where it opened.
            problem += f" ({context} on line {context_mark.line + 1})"
        raise ConfigError(f"{path}:{where}: YAML syntax error: {problem}") from None


class _AliasUsed(Exception):
    def __init__(self, anchor: str, line: int) -> None:
        self.anchor, self.line = anchor, line


def _loader() -> type:
    """yaml's SafeLoader, refusing aliases: ten lines of nested aliases expand to billions of
    nodes (every command hung on such a `council.yaml`), and council's config needs none."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise _AliasUsed(event.anchor, event.start_mark.line + 1)
            return super().compose_node(parent, index)

    return NoAliases


def _same_file(a: Path, b: Path | None) -> bool:
    # `--config ~/.config/council/config.yaml` names the user file as the project file: once.
    try:
        return b is not None and a.samefile(b)
    except OSError:
        return False
