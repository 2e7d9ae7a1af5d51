"""A CLI's version as its probe printed it: parsed, compared, and checked against the
releases council knows to be broken (`KnownBroken`, for doctor and READY)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A version in a CLI's output: "2.1.197 (Claude Code)", "codex-cli 0.171.0", "kimi, version
# 1.51.0", "v22.23.3"; its pre-release ("-beta.2", PEP 440's "rc1", ".dev3") is group 2, its
# build metadata ("+abc") is dropped. Never one glued to a word ("gemini2") or a dotted name.
_VERSION = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+)(-[0-9A-Za-z][0-9A-Za-z.-]*|(?:a|b|rc|\.dev)\d+)?"
    r"(?:\+[0-9A-Za-z.-]+)?"
)


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """The release numbers of the first version in `text` ("codex-cli 0.171.0" -> (0, 171, 0)),
    or None when it names none. For version gates: `parse_version(v) >= (0, 24)`; a pre-release
    counts as its release here (1.6.0-beta.2 -> (1, 6, 0)), since it usually carries what its
    release brings. `same_version` tells the two apart."""
    match = _VERSION.search(text or "")
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def version_at_least(text: str | None, minimum: tuple[int, ...]) -> bool:
    """True when `text` names a version at or after `minimum` (as `parse_version` reads it);
    False when it is older or names no version."""
    found = parse_version(text)
    if found is None:
        return False
    width = max(len(found), len(minimum))  # 2.1 is 2.1.0
    return found + (0,) * (width - len(found)) >= minimum + (0,) * (width - len(minimum))


def same_version(a: str | None, b: str | None) -> bool:
    """True when `a` and `b` name the same release: numbers compared as numbers (2.1 is 2.1.0,
    2.1.19 is not 2.1.197), the pre-release too (2.1.0-beta.1 is not 2.1.0); prefixes and
    suffixes around the version ("codex-cli", "(Claude Code)") do not count."""
    found_a, found_b = _VERSION.search(a or ""), _VERSION.search(b or "")
    if found_a is None or found_b is None:
        return False
    return _release(found_a) == _release(found_b) and found_a.group(2) == found_b.group(2)


def versions_in(text: str | None) -> tuple[str, ...]:
    """Every version `text` names, as written ("1.51.0 (kimi-cli), 2.1.0 (kimi-code)" ->
    ("1.51.0", "2.1.0"))."""
    return tuple(m.group(0) for m in _VERSION.finditer(text or ""))


def _release(match: re.Match[str]) -> tuple[int, ...]:
    numbers = [int(part) for part in match.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


@dataclass(frozen=True)
class KnownBroken:
    """Releases of a CLI council knows to be broken: what breaks and the way round it, for
    `council doctor` and a warning when a seat runs one. Facts only (a vendor's bug, an
    archived release), never a gap of council's own that a council release fixes."""

    breaks: str  # what goes wrong, for a user: "an archived stub that cannot answer"
    workaround: str  # what to do instead: "install kimi-code: npm install -g ..."
    since: tuple[int, ...] | None = None  # the first broken release; None: every one before
    before: tuple[int, ...] | None = None  # the first fixed release; None: none fixed yet
    variant: str | None = None  # only this one of the programs behind the binary (kimi-cli)
    # True: council refuses the CLI (a seat on it cannot run) rather than warn.
    unusable: bool = False

    def applies(self, version: str | None, variant: str | None = None) -> bool:
        """Whether a CLI reporting `version` (and `variant`) is in this range; an unknown
        version is in none."""
        found = parse_version(version)
        if found is None or (self.variant is not None and variant != self.variant):
            return False
        return (self.since is None or found >= self.since) and (
            self.before is None or found < self.before
        )

    @property
    def versions(self) -> str:
        """The range as doctor shows it: ">= 1.52", "< 0.9", ">= 1.2, < 1.4"."""
        since = f">= {_dotted(self.since)}" if self.since else ""
        before = f"< {_dotted(self.before)}" if self.before else ""
        shown = ", ".join(filter(None, (since, before))) or "every release"
        return f"{self.variant} {shown}" if self.variant else shown

    def warning(self, cli: str, version: str | None) -> str:
        """One line naming the version, what breaks and the way round."""
        return (
            f"{cli} {version} is a known-broken release ({self.versions}): {self.breaks}; "
            f"{self.workaround}"
        )


def _dotted(numbers: tuple[int, ...]) -> str:
    return ".".join(map(str, numbers))


_DOTTED = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+][\w.]+)?")
_BARE = re.compile(r"(?<![\w.-])v?(\d+)(?![\w.])")


def probed_version(text: str) -> str | None:
    """The version a probe printed: a dotted one first, else a bare number (`mytool v1`)."""
    if dotted := _DOTTED.search(text):
        return dotted.group(0)
    bare = _BARE.search(text)
    return bare.group(1) if bare else None
