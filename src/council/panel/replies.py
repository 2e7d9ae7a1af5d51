"""Reading the JSON a model was asked for, tolerantly: a fenced block, prose around the
object, trailing commas and smart quotes are forgiven; what the object holds is the protocol's
business."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class ReplyUnreadable(ValueError):
    """The reply holds no usable JSON; the message says why (for the repair ask)."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text` (a fenced one first), or `ReplyUnreadable`."""
    value = _extract(text, "{", "}", dict)
    assert isinstance(value, dict)
    return value


def extract_json_list(text: str) -> list[Any]:
    """The first JSON list in `text` (a fenced one first), or `ReplyUnreadable`."""
    value = _extract(text, "[", "]", list)
    assert isinstance(value, list)
    return value


def _extract(text: str, opening: str, closing: str, kind: type) -> object:
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    problem = "no JSON object found" if kind is dict else "no JSON list found"
    for candidate in candidates:
        start, end = candidate.find(opening), candidate.rfind(closing)
        if start < 0 or end <= start:
            continue
        body = candidate[start : end + 1]
        for attempt in (body, _loosen(body)):
            try:
                value = json.loads(attempt)
            except json.JSONDecodeError as exc:
                problem = f"invalid JSON: {exc.msg} at line {exc.lineno}"
                continue
            if isinstance(value, kind):
                return value
            problem = f"the JSON is not {'an object' if kind is dict else 'a list'}"
    raise ReplyUnreadable(problem)


def _loosen(body: str) -> str:
    body = body.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'")
    return _TRAILING_COMMA.sub(r"\1", body)
