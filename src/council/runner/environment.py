"""The allow-listed environment a CLI runs with.

Security by default: a CLI sees the basics it needs to run and find its login (PATH, HOME,
USER, LANG, LC_*, TMPDIR), its own vendor's variables, and what the config names for it.
One vendor's keys never reach another vendor's CLI. Variables that make a nested CLI behave
as a child of an IDE session (a `claude -p` inside Claude Code can hang) are removed even when
a vendor prefix would let them through.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from council.adapters.base import Adapter

BASE_NAMES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "TMPDIR")
BASE_PREFIXES = ("LC_",)
FORCED = {"TERM": "dumb", "NO_COLOR": "1"}
CALL_MARKER = "COUNCIL_CALL_ID"


def new_call_id() -> str:
    """A marker value naming this council process first, so that a process can tell its own
    calls from those of another council running on the same machine."""
    return f"{os.getpid()}-{uuid.uuid4().hex}"


def _is_marker(name: str, markers: tuple[str, ...]) -> bool:
    return any(name.startswith(m) if m.endswith("_") else name == m for m in markers)


def build_env(
    source: Mapping[str, str],
    *,
    vendor_prefixes: Iterable[str] = (),
    vendor_names: Iterable[str] = (),
    pass_env: Iterable[str] = (),
    host_markers: Iterable[str] = (),
    overrides: Mapping[str, str] | None = None,
    call_id: str | None = None,
) -> dict[str, str]:
    """The child's environment: allow-listed names from `source`, then `overrides` on top.

    `host_markers` are the variables IDE hosts set for their own children (a name, or a
    prefix ending in `_`). `vendor_names` and `pass_env` are explicit, so they beat the
    marker removal (claude's CLAUDE_CODE_OAUTH_TOKEN); `vendor_prefixes` are broad, so they
    do not.
    """
    prefixes = tuple(vendor_prefixes)
    markers = tuple(host_markers)
    explicit = set(vendor_names) | set(pass_env)
    env: dict[str, str] = {}
    for name, value in source.items():
        if (
            name in explicit
            or name in BASE_NAMES
            or name.startswith(BASE_PREFIXES)
            or (prefixes and name.startswith(prefixes) and not _is_marker(name, markers))
        ):
            env[name] = value
    env.update(FORCED)
    env.update(overrides or {})
    if call_id:
        # Lets the killer find processes that left our process group and lost their parent.
        env[CALL_MARKER] = call_id
    return env


def adapter_env(
    adapter: Adapter,
    source: Mapping[str, str] | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    call_id: str | None = None,
) -> dict[str, str]:
    """The environment `adapter`'s CLI runs with: its vendor's variables, its adapter's
    `fixed_env` (every run: a call, a warm worker, the probe), what the config names for it
    (`pass_env`, and `env` on top of everything), no IDE host's markers."""
    from council.adapters.registry import host_markers

    return build_env(
        os.environ if source is None else source,
        vendor_prefixes=adapter.env_prefixes,
        vendor_names=adapter.env_names,
        pass_env=adapter.settings.pass_env,
        host_markers=host_markers(),
        overrides={**adapter.fixed_env, **(overrides or {}), **adapter.settings.env},
        call_id=call_id,
    )
