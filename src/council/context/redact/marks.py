"""How a redaction is written: `[REDACTED:<kind>]`, counted per kind, line count kept."""

from __future__ import annotations

import re

MARKER = "[REDACTED:{kind}]"


def marker(kind: str) -> str:
    return MARKER.format(kind=kind)


class Hits:
    def __init__(self) -> None:
        self.kinds: dict[str, int] = {}

    def hit(self, kind: str) -> str:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return marker(kind)


def replace_group(m: re.Match[str], group: int | str, replacement: str) -> str:
    whole = m.group(0)
    start, end = m.span(group)
    return whole[: start - m.start()] + replacement + whole[end - m.start() :]


def keep_lines(replacement: str, original: str) -> str:
    return replacement + "\n" * original.count("\n")
