"""The vendor registry: the one place that knows which CLIs council can seat.

Everything else that depends on the set of CLIs derives it from here: the names a
`council.yaml` may use, the order default seats are picked in, the flags no config may pass,
and the variables IDE hosts set for their children. Registering an adapter class is all it
takes for council to seat a new CLI (see docs/architecture.md, "A CLI").
"""

from __future__ import annotations

from collections.abc import Mapping

from council.adapters.base import Adapter, CliSettings
from council.adapters.host import IdeHost
from council.errors import ConfigError

_REGISTERED: dict[str, type[Adapter]] = {}


def register(cls: type[Adapter]) -> type[Adapter]:
    """Make `cls` seatable under `cls.name`. Registration order is the default seat order."""
    if cls.name in _REGISTERED and _REGISTERED[cls.name] is not cls:
        raise ValueError(f"an adapter named {cls.name!r} is already registered")
    _REGISTERED[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def registered() -> Mapping[str, type[Adapter]]:
    """Every registered adapter class by name, in registration order."""
    return dict(_REGISTERED)


def default_order() -> tuple[str, ...]:
    """The CLIs a default seat is picked from, in order (docs/spec/protocol.md section 1)."""
    return tuple(name for name, cls in _REGISTERED.items() if cls.default_seat)


def forbidden_args() -> frozenset[str]:
    """Flags that switch off some CLI's approvals or sandbox: never passed, whoever asks.
    An entry is a flag (`--yolo`) or a flag with the value that makes it one
    (`--approval-mode=yolo`)."""
    return frozenset(arg for cls in _REGISTERED.values() for arg in cls.forbidden_args)


def find_forbidden(args: tuple[str, ...] | list[str]) -> str | None:
    """The first argument (or flag and value) of `args` that is a forbidden flag, or None."""
    forbidden = forbidden_args()
    for i, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        joined = f"{arg}={args[i + 1]}" if i + 1 < len(args) else None
        if arg in forbidden or name in forbidden:
            return arg
        if joined is not None and "=" not in arg and joined in forbidden:
            return f"{arg} {args[i + 1]}"
    return None


def host_markers() -> tuple[str, ...]:
    """Variables the CLIs set for the processes they run (a name, or a prefix ending in `_`)."""
    hosts = (cls for cls in _REGISTERED.values() if issubclass(cls, IdeHost))
    return tuple(dict.fromkeys(m for cls in hosts for m in cls.host_markers))


def known_names(clis: Mapping[str, CliSettings] | None = None) -> list[str]:
    return [*_REGISTERED, *(name for name in (clis or {}) if name not in _REGISTERED)]


def adapter_for(name: str, clis: Mapping[str, CliSettings] | None = None) -> Adapter:
    """The adapter for a CLI name, configured by the config's `clis.<name>` when present."""
    settings = (clis or {}).get(name)
    if settings is not None:
        if settings.adapter == "custom":
            from council.adapters.custom import CustomAdapter

            return CustomAdapter(settings)
        return _REGISTERED[settings.adapter](settings)
    if name in _REGISTERED:
        return _REGISTERED[name]()
    raise ConfigError(
        f"unknown CLI '{name}': use one of {', '.join(known_names(clis))}, "
        "or define it under `clis:` in council.yaml"
    )
