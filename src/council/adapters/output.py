"""Helpers for reading a CLI's structured output: its JSON values and the usage figures
it printed (token counts, cost, the models that served). A figure council cannot read is a
ValueError, never a guess."""

from __future__ import annotations

import json
from collections.abc import Mapping


def token_count(value: object) -> int:
    """A token count as a CLI printed it: a non-negative integer, or a ValueError (which the
    runner turns into "no usage": a figure council cannot read is not guessed)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a token count: {value!r}")
    return value


def cost_figure(value: object) -> float | None:
    """A cost in USD as a CLI printed it (None when it printed none); a ValueError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"not a cost: {value!r}")
    return float(value)


def ranked_models(output_tokens: Mapping[str, int]) -> tuple[str, ...]:
    """Model names by the output tokens each produced, most first (the main model, which wrote
    the answer, before a side model that titled or routed); ties keep the CLI's order."""
    named = [name for name in output_tokens if isinstance(name, str) and name.strip()]
    return tuple(sorted(named, key=lambda name: -output_tokens[name]))


def output_figure(value: object) -> int:
    """A per-model output count for `ranked_models`: 0 when it is not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def json_objects(text: str) -> list[object]:
    """Every JSON value in `text`: the whole text if it parses, else one per line (JSONL)."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        return [json.loads(stripped)]
    except json.JSONDecodeError:
        pass
    values: list[object] = []
    for line in stripped.splitlines():
        line = line.strip()
        if line.startswith(("{", "[")):
            try:
                values.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return values
