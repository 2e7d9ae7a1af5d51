"""Reading what a client sent its model: a test looks for a text anywhere in a request body."""

from __future__ import annotations

import contextlib
import json
from typing import Any


def strings(value: Any) -> list[str]:
    """Every string in a request body, and in any JSON inside one: a host may hand its model
    the tool's structured content as JSON (codex after a "Wall time: ..." preamble)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if not isinstance(value, str):
        return []
    found = [value]
    if "{" in value:
        with contextlib.suppress(ValueError):  # not JSON after all
            found += strings(json.JSONDecoder().raw_decode(value, value.index("{"))[0])
    return found
