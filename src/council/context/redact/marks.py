"""How a redaction is written: `[REDACTED:<kind>]`, counted per kind, line count kept."""

from __future__ import annotations

import re
import string
from collections.abc import Callable

MARKER = "[REDACTED:{kind}]"

Replace = Callable[[re.Match[str]], str]


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


def sub_near(
    text: str,
    needle: re.Pattern[str],
    rule: re.Pattern[str],
    repl: Replace,
    *,
    before: int,
    after: int,
    haystack: str | None = None,
) -> str:
    """`rule.sub(repl, text)`, tried only in windows around the needle's hits (found in
    `haystack`: the text or a lower-case copy of the same length). A rule that starts with a
    look-behind or a case-blind alternation costs a try at every character; on a megabyte
    bundle the windows are the difference between seconds and milliseconds."""
    spans: list[list[int]] = []
    for hit in needle.finditer(text if haystack is None else haystack):
        start, end = max(0, hit.start() - before), min(len(text), hit.end() + after)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    out: list[str] = []
    done = 0
    for start, end in spans:
        for m in rule.finditer(text, max(start, done), end):
            replacement = repl(m)
            if replacement != m.group(0):
                out += [text[done : m.start()], replacement]
                done = m.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def lower_same_length(text: str) -> str:
    """`text.lower()` when it keeps every index (always for ASCII), else ASCII-only lowering."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
