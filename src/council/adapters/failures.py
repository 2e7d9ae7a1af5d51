"""Reading a failed CLI call: the texts every CLI shares for transient backend refusals
(retried with backoff) and missing logins, the wait a rate limit names, and the line of its
output that best says what went wrong. An adapter adds its own patterns on top."""

from __future__ import annotations

import re

# Texts the protocol treats as transient backend refusals (retried with backoff).
RATE_LIMIT_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b429\b",
        r"rate[ _-]?limit",
        r"too many requests",
        r"\bquota\b",
        r"resource[ _-]?exhausted",
        r"\boverloaded\b",
        r"(?:status|error|code|http)\W{0,3}5\d\d\b",
        r"\b5\d\d (?:internal server error|bad gateway|service unavailable|gateway timeout)",
        r"internal server error|service unavailable|bad gateway",
        r"connection reset|econnreset",
    )
)

AUTH_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"not logged in",
        r"please (?:run )?/?login",
        r"\b401\b",
        r"\b403\b",
        r"unauthori[sz]ed",
        r"invalid (?:x-)?api[ _-]?key",
        r"api key not valid",
        r"authentication (?:failed|error|required)",
        r"\bforbidden\b",
        r"login required",
        r"missing (?:api key|credentials)",
    )
)

# A duration's unit ends where the word does ("2 mins", never the "m" of "2 more"), and on
# its own line: a header's next line ("Retry-After: 7" then "message: ...") is no unit.
_UNIT = r"(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)(?![a-z])"
_DURATION = rf"(?:\d+(?:\.\d+)?[ \t]*{_UNIT}[ \t,]*(?:and[ \t]+)?)+"
_RETRY_AFTER = (
    # HTTP's Retry-After is a bare number of seconds.
    re.compile(rf"retry[- ]after\W{{0,3}}({_DURATION}|\d+(?:\.\d+)?)", re.I),
    re.compile(rf"(?:try again|retry|resets?) in[ \t]+({_DURATION})", re.I),
)
_DURATION_PART = re.compile(rf"(\d+(?:\.\d+)?)[ \t]*({_UNIT})", re.I)


def parse_retry_after(text: str) -> float | None:
    """Seconds until a rate limit resets, when the CLI says so ("retry after 30s", "try
    again in 1m30s", "resets in 1h 2m")."""
    for pattern in _RETRY_AFTER:
        match = pattern.search(text)
        if match:
            parts = _DURATION_PART.findall(match.group(1))
            if not parts:
                return float(match.group(1))
            return sum(float(n) * _seconds_per(unit) for n, unit in parts)
    return None


def _seconds_per(unit: str) -> float:
    unit = unit.lower()
    if unit == "ms":
        return 0.001
    return 60.0 if unit.startswith("m") else 3600.0 if unit.startswith("h") else 1.0


def first_line(text: str, limit: int = 240) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


_TELLING = re.compile(
    r"error|exception|failed|failure|fatal|denied|not found|cannot|can't|unable|invalid|"
    r"refused|missing|no such|timed? ?out|abort",
    re.IGNORECASE,
)


# A frame of a stack trace: Node's "    at f (file.js:1:2)", Python's '  File "x.py", line 3'.
_STACK_FRAME = re.compile(r"^(?:at\s+\S|File \"[^\"]*\", line \d+)")


def telling_line(text: str, limit: int = 240) -> str:
    """The line of a CLI's output that best says what went wrong: the last one of its last
    20 lines that names an error, else the last one with words in it. Lines of box drawing,
    rules or bare punctuation (a TUI's frame) never, nor a stack trace's frames (a crash's
    telling line is its exception: "SyntaxError: ...")."""
    lines = [line.strip() for line in text.strip().splitlines()[-20:]]
    lines = [line for line in lines if not _STACK_FRAME.match(line)]
    worded = [line for line in lines if sum(c.isalpha() for c in line) >= 3]
    telling = [line for line in worded if _TELLING.search(line)]
    chosen = (telling or worded or [""])[-1]
    return chosen[:limit]


def matching_line(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    """The first line of `text` one of `patterns` finds (all of `text` when none does)."""
    for line in text.splitlines():
        if any(p.search(line) for p in patterns):
            return line
    return text
