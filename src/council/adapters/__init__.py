"""The vendor adapters: one module per CLI, one registry (`council.adapters.registry`).

The built-in adapters are registered here, in the order default seats are picked from.
"""

from __future__ import annotations

from council.adapters.base import Adapter, CliSettings, Status
from council.adapters.claude import ClaudeAdapter
from council.adapters.codex import CodexAdapter
from council.adapters.gemini import GeminiAdapter
from council.adapters.kimi import KimiAdapter
from council.adapters.pi import PiAdapter
from council.adapters.qwen import QwenAdapter
from council.adapters.registry import (
    adapter_for,
    default_order,
    find_forbidden,
    forbidden_args,
    host_markers,
    known_names,
    register,
    registered,
)
from council.adapters.sim import SimAdapter

for _builtin in (
    ClaudeAdapter,
    CodexAdapter,
    GeminiAdapter,
    QwenAdapter,
    KimiAdapter,
    PiAdapter,
    SimAdapter,
):
    register(_builtin)

__all__ = [
    "Adapter",
    "CliSettings",
    "Status",
    "adapter_for",
    "default_order",
    "find_forbidden",
    "forbidden_args",
    "host_markers",
    "known_names",
    "register",
    "registered",
]
