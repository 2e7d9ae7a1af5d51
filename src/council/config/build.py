"""From the merged, schema-checked tree to `Config`: the checks a schema cannot express.

Each file was checked against the schema on its own (types, ranges, unknown keys); what needs
the registry, the merged result or Python itself is checked here: a built-in CLI keeps its own
adapter, a user-defined CLI has a command and keys that fit it, no `extra_args` bypasses a
sandbox, and every `redact.extra_patterns` entry compiles. A complaint names the file the
offending value came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from council.adapters.base import CliSettings
from council.config.layers import KeyPath, Source
from council.config.model import (
    AdrSettings,
    Config,
    DebateSettings,
    Preset,
    QuorumSettings,
    RedactSettings,
    ReviewSettings,
    Roles,
    builtin_presets,
)
from council.errors import ConfigError

# Keys only a user-defined CLI (`command:` and no `adapter:`) takes: a built-in adapter has its
# own argv, output format and version probe (kimi tells its two programs apart by it).
CUSTOM_ONLY_KEYS = ("input", "output", "model_flag", "tty", "version_args", "state_dirs")


def build_config(
    tree: Mapping[str, Any],
    origins: Mapping[KeyPath, Source],
    files: tuple[Path, ...] = (),
) -> Config:
    def fail(path: KeyPath, expected: str, got: Any = ...) -> None:
        shown = "" if got is ... else f", got {got!r}"
        raise ConfigError(f"{_file_of(path, origins)}: {path}: {expected}{shown}")

    presets = builtin_presets()
    for name, value in _mapping(tree.get("presets")).items():
        presets[name] = _preset(name, _mapping(value))
    roles, debate, quorum, redact = (
        _mapping(tree.get(k)) for k in ("roles", "debate", "quorum", "redact")
    )
    return Config(
        files=files,
        roles=Roles(
            advocate=roles.get("advocate"),
            critic=roles.get("critic"),
            lead=roles.get("lead"),
            proxies=_strings(roles.get("proxies")),
        ),
        debate=_debate(debate),
        quorum=QuorumSettings(**{k: v for k, v in quorum.items() if v is not None}),
        presets=presets,
        clis={
            name: _cli(name, _mapping(value), fail)
            for name, value in _mapping(tree.get("clis")).items()
        },
        scratchpad=tree.get("scratchpad") or ".scratchpad",
        redact=_redact(redact, fail),
        review=ReviewSettings(gate=dict(_mapping(_mapping(tree.get("review")).get("gate")))),
        adr=AdrSettings(dir=_mapping(tree.get("adr")).get("dir")),
        origins=dict(origins),
    )


def _debate(m: Mapping[str, Any]) -> DebateSettings:
    d = DebateSettings()
    given = {k: v for k, v in m.items() if v is not None and k != "words"}
    for key in ("rounds", "quorum", "context_lines", "file_lines", "total_lines", "max_warm_seats"):
        if key in given:
            given[key] = int(given[key])  # YAML's 3.0 passes the schema as an integer
    for key in ("ready_timeout_s", "hard_timeout_factor", "max_cost"):
        if key in given:
            given[key] = float(given[key])
    words = {**d.words, **{k: int(v) for k, v in _mapping(m.get("words")).items()}}
    return DebateSettings(**{**given, "words": words})


def _preset(name: str, m: Mapping[str, Any]) -> Preset:
    def number(key: str) -> int | None:
        return None if m.get(key) is None else int(m[key])

    return Preset(
        name=name,
        rounds=number("rounds"),
        effort=m.get("effort"),
        quorum=number("quorum"),
        models=dict(_mapping(m.get("models"))),
        efforts={k: v for k, v in _mapping(m.get("efforts")).items() if v is not None},
        proxies=None if m.get("proxies") is None else _strings(m["proxies"]),
        blind=m.get("blind"),
    )


def _cli(name: str, m: Mapping[str, Any], fail: Callable[..., None]) -> CliSettings:
    from council.adapters import find_forbidden, registered
    from council.adapters.custom import output_mode_problem

    path = f"clis.{name}"
    command = _strings(m.get("command")) or None
    adapter = m.get("adapter")
    builtin = tuple(registered())
    if name in builtin:
        if adapter not in (None, name):
            fail(f"{path}.adapter", f"a built-in CLI keeps its own adapter ({name})", adapter)
        adapter = name
    elif adapter is None:
        if command is None:
            fail(
                path,
                f"a user-defined CLI needs `command:` (or `adapter:` one of {', '.join(builtin)})",
            )
        adapter = "custom"
    elif adapter not in builtin:
        fail(f"{path}.adapter", f"expected one of {', '.join(builtin)}", adapter)
    extra_args = _strings(m.get("extra_args"))
    # A user-defined CLI's command is its argv too: the same flags are refused there.
    for key, args in (("extra_args", extra_args), ("command", (command or ())[1:])):
        if (forbidden := find_forbidden(args)) is not None:
            fail(
                f"{path}.{key}",
                "flags that bypass approvals or sandboxes are never passed; remove it",
                forbidden,
            )
    if adapter != "custom":
        for key in CUSTOM_ONLY_KEYS:
            if m.get(key) is not None:
                fail(
                    f"{path}.{key}",
                    "only a user-defined CLI (with `command:` and no `adapter:`) takes this key",
                )
    output = m.get("output") or "stdout"
    if adapter == "custom" and (problem := output_mode_problem(output, command or ())):
        fail(f"{path}.output", problem, output)
    timeout = m.get("timeout_s")
    version_args = m.get("version_args")
    state_dirs = _strings(m.get("state_dirs"))
    for i, state_dir in enumerate(state_dirs):
        if (problem := state_dir_problem(state_dir)) is not None:
            fail(f"{path}.state_dirs[{i}]", problem, state_dir)
    return CliSettings(
        name=name,
        adapter=adapter,
        command=command,
        model=m.get("model"),
        effort=m.get("effort"),
        timeout_s=None if timeout is None else float(timeout),
        extra_args=extra_args,
        pass_env=_strings(m.get("pass_env")),
        env={key: str(value) for key, value in _mapping(m.get("env")).items()},
        input=m.get("input") or "stdin",
        output=output,
        model_flag=m.get("model_flag"),
        tty=bool(m.get("tty", False)),
        version_args=None if version_args is None else tuple(version_args),
        state_dirs=state_dirs,
        lean=m.get("lean", True) is not False,
        warm=m.get("warm", True) is not False,
    )


def state_dir_problem(state_dir: str) -> str | None:
    """Why a user-defined CLI's `state_dirs` entry cannot be allowed; None when it can. Only
    a directory below HOME: HOME itself, or a way out of it, would open the user's files."""
    parts = state_dir.removeprefix("~/").split("/")
    if not state_dir.startswith("~/") or not any(parts) or ".." in parts:
        return "expected a directory below HOME written `~/...` (e.g. ~/.mytool), without `..`"
    return None


def _redact(m: Mapping[str, Any], fail: Callable[..., None]) -> RedactSettings:
    patterns = _strings(m.get("extra_patterns"))
    for i, pattern in enumerate(patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            fail(f"redact.extra_patterns[{i}]", f"not a valid regular expression ({exc})", pattern)
    return RedactSettings(patterns, _strings(m.get("allow_files")))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _strings(value: Any) -> tuple[str, ...]:
    """A list of strings as the schema allows it: a list, one string, or nothing."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _file_of(path: KeyPath, origins: Mapping[KeyPath, Source]) -> str:
    """The file that gave `path` (or, for a mapping, the highest one that gave a key in it)."""
    base = path.split("[", 1)[0]
    found = [s for k, s in origins.items() if k == base or k.startswith(base + ".")]
    if not found:
        return "config"
    return min(found, key=lambda s: s.level).where or "config"
