"""The config file (`council.yaml`), parsed once into frozen objects.

Looked up in order, first found wins: `--config PATH`, `./council.yaml`,
`$XDG_CONFIG_HOME/council/config.yaml`. Built-in defaults fill everything not given. Every
problem is a `ConfigError` (exit 4) naming the file, the key path and what was expected.

A `clis.<name>` entry configures a built-in CLI when `name` is one; for another name it is
either a variant of a built-in (`adapter: sim` plus, say, `env: {COUNCIL_SIM_DELAY: "3"}`) or
a user-defined CLI (`command: [...]`). `env` (variables set for that CLI) is council's
addition to the keys of the specification: it is how one seat of the simulator gets its own
fault injection.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from council.adapters.base import CliSettings
from council.errors import ConfigError

CONFIG_NAME = "council.yaml"
WORD_KEYS = ("proposal", "challenge", "proxy", "respond", "rebuttal", "final_summary")
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Roles:
    advocate: str | None = None
    critic: str | None = None
    lead: str | None = None
    proxies: tuple[str, ...] = ()


@dataclass(frozen=True)
class DebateSettings:
    rounds: int = 2
    quorum: int = 1
    words: Mapping[str, int] = field(
        default_factory=lambda: {
            "proposal": 300,
            "challenge": 300,
            "proxy": 200,
            "respond": 300,
            "rebuttal": 200,
            "final_summary": 200,
        }
    )
    context_lines: int = 15
    file_lines: int = 500
    total_lines: int = 2000
    ready_timeout_s: float = 60.0
    hard_timeout_factor: float = 1.5


@dataclass(frozen=True)
class Preset:
    name: str
    rounds: int | None = None
    effort: str | None = None
    quorum: int | None = None
    models: Mapping[str, str] = field(default_factory=dict)
    proxies: tuple[str, ...] | None = None


BUILTIN_PRESETS = {
    "quick": Preset("quick", rounds=2, effort="low"),
    "balanced": Preset("balanced", rounds=2, effort="high"),
    "deep": Preset("deep", rounds=3, effort="xhigh"),
}


@dataclass(frozen=True)
class RedactSettings:
    extra_patterns: tuple[str, ...] = ()
    allow_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    source: Path | None = None
    roles: Roles = field(default_factory=Roles)
    debate: DebateSettings = field(default_factory=DebateSettings)
    presets: Mapping[str, Preset] = field(default_factory=lambda: dict(BUILTIN_PRESETS))
    clis: Mapping[str, CliSettings] = field(default_factory=dict)
    scratchpad: str = ".scratchpad"
    redact: RedactSettings = field(default_factory=RedactSettings)


def find_config(explicit: Path | None, cwd: Path, environ: Mapping[str, str]) -> Path | None:
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found; check the --config path")
        return explicit
    local = cwd / CONFIG_NAME
    if local.is_file():
        return local
    xdg = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")) / ".config")
    user = Path(xdg).expanduser() / "council" / "config.yaml"
    return user if user.is_file() else None


def load_config(
    explicit: Path | None = None,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    path = find_config(explicit, cwd or Path.cwd(), os.environ if environ is None else environ)
    if path is None:
        return Config()
    import yaml  # only when there is a file: keeps start-up light

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}:{where}: YAML syntax error: {problem}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror}") from None
    return parse_config(raw if raw is not None else {}, path)


def parse_config(raw: Any, source: Path | None = None) -> Config:
    c = _Checker(source)
    top = c.mapping(
        raw, "", ("version", "roles", "debate", "presets", "clis", "scratchpad", "redact")
    )
    if "version" in top and top["version"] != 1:
        c.fail("version", "expected 1", top["version"])
    clis = {name: c.cli(name, value) for name, value in c.mapping(top.get("clis"), "clis").items()}
    presets = dict(BUILTIN_PRESETS)
    for name, value in c.mapping(top.get("presets"), "presets").items():
        presets[str(name)] = c.preset(str(name), value)
    return Config(
        source=source,
        roles=c.roles(top.get("roles")),
        debate=c.debate(top.get("debate")),
        presets=presets,
        clis=clis,
        scratchpad=c.string(top.get("scratchpad", ".scratchpad"), "scratchpad"),
        redact=c.redact(top.get("redact")),
    )


class _Checker:
    """Walks the raw YAML value; every complaint names the file and the key path."""

    def __init__(self, source: Path | None) -> None:
        self.where = str(source) if source else "config"

    def fail(self, path: str, expected: str, got: Any = ...) -> None:
        shown = "" if got is ... else f", got {got!r}"
        raise ConfigError(f"{self.where}: {path}: {expected}{shown}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...] | None = None) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(path or "top level", "expected a mapping", value)
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    self.fail(
                        _join(path, str(key)), f"unknown key; known keys: {', '.join(allowed)}"
                    )
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(path, "expected a non-empty string", value)
        return value

    def optional_string(self, value: Any, path: str) -> str | None:
        return None if value is None else self.string(value, path)

    def integer(self, value: Any, path: str, low: int, high: int | None = None) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            span = f"from {low} to {high}" if high is not None else f"of at least {low}"
            self.fail(path, f"expected an integer {span}", value)
        return value

    def number(self, value: Any, path: str, low: float) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
            self.fail(path, f"expected a number of at least {low:g}", value)
        return float(value)

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(path, "expected a list of strings", value)
        return tuple(value)

    def effort(self, value: Any, path: str) -> str | None:
        if value is not None and value not in EFFORTS:
            self.fail(path, f"expected one of {', '.join(EFFORTS)}", value)
        return value

    def roles(self, value: Any) -> Roles:
        m = self.mapping(value, "roles", ("advocate", "critic", "lead", "proxies"))
        return Roles(
            advocate=self.optional_string(m.get("advocate"), "roles.advocate"),
            critic=self.optional_string(m.get("critic"), "roles.critic"),
            lead=self.optional_string(m.get("lead"), "roles.lead"),
            proxies=self.strings(m.get("proxies"), "roles.proxies"),
        )

    def debate(self, value: Any) -> DebateSettings:
        d = DebateSettings()
        m = self.mapping(value, "debate", tuple(DebateSettings.__dataclass_fields__))
        words = dict(d.words)
        for key, count in self.mapping(m.get("words"), "debate.words", WORD_KEYS).items():
            words[key] = self.integer(count, f"debate.words.{key}", 1)
        return DebateSettings(
            rounds=self.integer(m.get("rounds", d.rounds), "debate.rounds", 2, 5),
            quorum=self.integer(m.get("quorum", d.quorum), "debate.quorum", 0),
            words=words,
            context_lines=self.integer(
                m.get("context_lines", d.context_lines), "debate.context_lines", 1
            ),
            file_lines=self.integer(m.get("file_lines", d.file_lines), "debate.file_lines", 1),
            total_lines=self.integer(m.get("total_lines", d.total_lines), "debate.total_lines", 1),
            ready_timeout_s=self.number(
                m.get("ready_timeout_s", d.ready_timeout_s), "debate.ready_timeout_s", 0.1
            ),
            hard_timeout_factor=self.number(
                m.get("hard_timeout_factor", d.hard_timeout_factor),
                "debate.hard_timeout_factor",
                1.0,
            ),
        )

    def preset(self, name: str, value: Any) -> Preset:
        path = f"presets.{name}"
        m = self.mapping(value, path, ("rounds", "effort", "quorum", "models", "proxies"))
        models = {
            str(cli): self.string(model, f"{path}.models.{cli}")
            for cli, model in self.mapping(m.get("models"), f"{path}.models").items()
        }
        return Preset(
            name=name,
            rounds=None if "rounds" not in m else self.integer(m["rounds"], f"{path}.rounds", 2, 5),
            effort=self.effort(m.get("effort"), f"{path}.effort"),
            quorum=None if "quorum" not in m else self.integer(m["quorum"], f"{path}.quorum", 0),
            models=models,
            proxies=None if "proxies" not in m else self.strings(m["proxies"], f"{path}.proxies"),
        )

    def cli(self, name: Any, value: Any) -> CliSettings:
        from council.adapters import find_forbidden, registered
        from council.adapters.custom import INPUT_MODES, output_mode_problem

        path = f"clis.{name}"
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            self.fail(path, "a CLI name is lower-case letters, digits, '-' and '_'")
        m = self.mapping(
            value,
            path,
            (
                "command",
                "adapter",
                "model",
                "effort",
                "timeout_s",
                "extra_args",
                "pass_env",
                "env",
                "input",
                "output",
                "model_flag",
                "tty",
            ),
        )
        command = self.strings(m.get("command"), f"{path}.command") or None
        adapter = m.get("adapter")
        builtin = tuple(registered())
        if name in builtin:
            if adapter not in (None, name):
                self.fail(
                    f"{path}.adapter", f"a built-in CLI keeps its own adapter ({name})", adapter
                )
            adapter = name
        elif adapter is None:
            if command is None:
                self.fail(
                    path,
                    f"a user-defined CLI needs `command:` (or `adapter:` one of "
                    f"{', '.join(builtin)})",
                )
            adapter = "custom"
        elif adapter not in builtin:
            self.fail(f"{path}.adapter", f"expected one of {', '.join(builtin)}", adapter)
        extra_args = self.strings(m.get("extra_args"), f"{path}.extra_args")
        if (forbidden := find_forbidden(extra_args)) is not None:
            self.fail(
                f"{path}.extra_args",
                "flags that bypass approvals or sandboxes are never passed; remove it",
                forbidden,
            )
        pass_env = self.strings(m.get("pass_env"), f"{path}.pass_env")
        env = {}
        for key, val in self.mapping(m.get("env"), f"{path}.env").items():
            if not isinstance(key, str) or not _ENV_NAME.match(key):
                self.fail(f"{path}.env", "expected variable names", key)
            if not isinstance(val, str | int | float) or isinstance(val, bool):
                self.fail(f"{path}.env.{key}", "expected a string or number", val)
            env[key] = str(val)
        custom_keys = ("input", "output", "model_flag", "tty")
        if adapter != "custom":
            for key in custom_keys:
                if key in m:
                    self.fail(
                        f"{path}.{key}",
                        "only a user-defined CLI (with `command:` and no "
                        "`adapter:`) takes this key",
                    )
        io_input = m.get("input", "stdin")
        if io_input not in INPUT_MODES:
            self.fail(f"{path}.input", f"expected one of {', '.join(INPUT_MODES)}", io_input)
        io_output = m.get("output", "stdout")
        if not isinstance(io_output, str) or (
            adapter == "custom" and (problem := output_mode_problem(io_output, command or ()))
        ):
            self.fail(
                f"{path}.output",
                problem if isinstance(io_output, str) else "expected a string",
                io_output,
            )
        tty = m.get("tty", False)
        if not isinstance(tty, bool):
            self.fail(f"{path}.tty", "expected true or false", tty)
        timeout = m.get("timeout_s")
        return CliSettings(
            name=name,
            adapter=adapter,
            command=command,
            model=self.optional_string(m.get("model"), f"{path}.model"),
            effort=self.effort(m.get("effort"), f"{path}.effort"),
            timeout_s=None if timeout is None else self.number(timeout, f"{path}.timeout_s", 1),
            extra_args=extra_args,
            pass_env=pass_env,
            env=env,
            input=io_input,
            output=io_output,
            model_flag=self.optional_string(m.get("model_flag"), f"{path}.model_flag"),
            tty=tty,
        )

    def redact(self, value: Any) -> RedactSettings:
        m = self.mapping(value, "redact", ("extra_patterns", "allow_files"))
        patterns = self.strings(m.get("extra_patterns"), "redact.extra_patterns")
        for i, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                self.fail(
                    f"redact.extra_patterns[{i}]",
                    f"not a valid regular expression ({exc})",
                    pattern,
                )
        return RedactSettings(patterns, self.strings(m.get("allow_files"), "redact.allow_files"))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
