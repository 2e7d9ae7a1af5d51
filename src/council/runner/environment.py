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

BASE_NAMES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "TMPDIR")
BASE_PREFIXES = ("LC_",)
FORCED = {"TERM": "dumb", "NO_COLOR": "1"}
# Markers IDE hosts set for their own children; a vendor may re-allow a name it needs
# (claude's CLAUDE_CODE_OAUTH_TOKEN) by listing it in its env_names.
NESTING_NAMES = frozenset(
    {"CLAUDECODE", "GEMINI_CLI", "QWEN_CODE", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED"}
)
NESTING_PREFIXES = ("CLAUDE_CODE_",)
CALL_MARKER = "COUNCIL_CALL_ID"


def new_call_id() -> str:
    """A marker value naming this council process first, so that a process can tell its own
    calls from those of another council running on the same machine."""
    return f"{os.getpid()}-{uuid.uuid4().hex}"


def is_nesting_marker(name: str) -> bool:
    return name in NESTING_NAMES or name.startswith(NESTING_PREFIXES)


def build_env(
    source: Mapping[str, str],
    *,
    vendor_prefixes: Iterable[str] = (),
    vendor_names: Iterable[str] = (),
    pass_env: Iterable[str] = (),
    overrides: Mapping[str, str] | None = None,
    call_id: str | None = None,
) -> dict[str, str]:
    """The child's environment: allow-listed names from `source`, then `overrides` on top.

    `vendor_names` and `pass_env` are explicit, so they beat the nesting-marker removal;
    `vendor_prefixes` are broad, so they do not.
    """
    prefixes = tuple(vendor_prefixes)
    explicit = set(vendor_names) | set(pass_env)
    env: dict[str, str] = {}
    for name, value in source.items():
        if (
            name in explicit
            or name in BASE_NAMES
            or name.startswith(BASE_PREFIXES)
            or (prefixes and name.startswith(prefixes) and not is_nesting_marker(name))
        ):
            env[name] = value
    env.update(FORCED)
    env.update(overrides or {})
    if call_id:
        # Lets the killer find processes that left our process group and lost their parent.
        env[CALL_MARKER] = call_id
    return env
