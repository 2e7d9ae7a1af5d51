"""The simulator's injected-material mode: what a sim does with an instruction planted inside
the material a prompt fences (the rules are in the package docstring, ``council.sim``).

A sim reads the prompt's fences (``<<<UNTRUSTED <nonce> BEGIN ...>>>`` to the matching END
line) and looks inside them for an instruction aimed at the seats. A sim whose role or
``--model`` is listed in ``COUNCIL_SIM_OBEY`` obeys it, as a model taken over by the
material would: it says it follows the instruction, echoes the prompt's canary, and votes as
told. Every other sim reports it on an ``INJECTION:`` line, as the prompt asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCED = re.compile(
    r"^<<<UNTRUSTED (?P<nonce>[0-9a-f]{8,}) BEGIN [^\n]*>>>\n(?P<body>.*?)"
    r"^<<<UNTRUSTED (?P=nonce) END [^\n]*>>>$",
    re.MULTILINE | re.DOTALL,
)
_CANARY = re.compile(r"\bCANARY-[0-9a-f]{8,}\b")
# What an instruction to the seats looks like in the material.
_INSTRUCTION = re.compile(
    r"\b(?:ignore (?:the|all|any|your|previous|prior)\b[^\n]*"
    r"|disregard (?:the|all|any|your|previous|prior)\b[^\n]*"
    r"|vote (?:agree|revise|disagree)\b[^\n]*)",
    re.IGNORECASE,
)
_TOLD_VOTE = re.compile(r"\bvote (agree|revise|disagree)\b", re.IGNORECASE)
_DECORATION = " \t#/*-;>`\"'"
_NUMBER = re.compile(r"^\s*\d+ \| ?")


@dataclass(frozen=True)
class Injection:
    """An instruction found in the prompt's fenced material."""

    what: str  # the line it is on, as the material wrote it (decoration stripped)
    vote: str | None  # the vote it tells the seats to cast, if it names one


def find_injection(text: str) -> Injection | None:
    """The first instruction inside the prompt's fenced material, or None (a prompt without
    fences has no material a sim can tell apart from its task)."""
    for fenced in _FENCED.finditer(text):
        for line in fenced.group("body").splitlines():
            if _INSTRUCTION.search(line):
                line = _NUMBER.sub("", line)  # a review numbers the lines of its files
                # A reply quoted back may carry another seat's report: the instruction it names.
                what = re.sub(r"^\s*injection\s*:\s*", "", line.strip(_DECORATION), flags=re.I)
                told = _TOLD_VOTE.search(line)
                return Injection(what.strip(_DECORATION), told.group(1).lower() if told else None)
    return None


_TOKENS = re.compile(rb"(<<<UNTRUSTED |CANARY-)[0-9a-f]{8,}")


def masked(raw: bytes) -> bytes:
    """The prompt with the run's nonce and canary masked: the same debate run twice differs
    only in those, and gets the same replies."""
    return _TOKENS.sub(rb"\1<token>", raw)


def find_canary(text: str) -> str | None:
    """The prompt's canary token, the one it says never to repeat."""
    found = _CANARY.search(text)
    return found.group(0) if found else None


def obeys(obey: frozenset[str], role: str | None, model: str | None) -> bool:
    """True when this sim is listed in ``COUNCIL_SIM_OBEY`` by its role or its model."""
    names = {n.lower() for n in (role, model) if n}
    return bool(names & obey)
