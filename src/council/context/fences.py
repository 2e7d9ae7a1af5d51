"""Untrusted material fenced and watched (docs/spec/protocol.md, "Untrusted material").

Everything a prompt quotes that council did not write itself (the files, the diff, the
technical context, other seats' replies, a reviewer's findings) enters it between two
delimiter lines that carry the run's nonce, an unguessable token made once per run and kept
in `state.json` (so a resumed run fences with the same one). Material cannot close its fence
early: the nonce is scrubbed out of it before it is fenced, so no END line inside it can carry
the token. Every prompt also carries the run's canary, a second token the seat is told never
to repeat.

A reply is then watched: one that contains the canary echoed what it was told never to
repeat, one that contains the nonce wrote a fence line of its own; either makes the call
`suspect`. An `INJECTION: <what it asked>` line is the seat reporting an instruction it found
in the material: the material carries an injection, and the seat that reported it, which did
its job, is not suspect for it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

REMOVED = "[fence token removed]"
# What a reply's evidence says, as the record and the DECISION show it.
ECHOED_CANARY = "echoed the run's canary"
FORGED_FENCE = "wrote the run's fence token (a forged fence)"
ON_INJECTION = ("warn", "exclude")
MAX_REPORTS = 5
REPORT_WORDS = 40

# Tolerant as the VOTE line's reading is (debate/votes.py): emphasis, a bullet, a quote mark,
# a full-width colon. The report is the rest of its own line: an empty `INJECTION:` line
# does not take the next line (a VOTE line) for its report.
_REPORT_LINE = re.compile(
    r"^[\s>*_`#-]*(?:[-*+•]\s*)?[*_`]*injection[*_`]*[ \t]*[:：][ \t]*(?P<what>.*?)[*_`\s]*$",  # noqa: RUF001
    re.IGNORECASE | re.MULTILINE,
)
# What a seat writes when asked to report and it found nothing: not a report.
_NOTHING = re.compile(
    r"^(?:none|no|n/?a|nothing|-|\(none\)|none found|no injection.*|not found|no instructions?.*)"
    r"[.!]?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Fences:
    """A run's nonce and canary, and what is done with them."""

    nonce: str
    canary: str

    @classmethod
    def new(cls) -> Fences:
        return cls(nonce=secrets.token_hex(8), canary=f"CANARY-{secrets.token_hex(8)}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Fences:
        """The run's fences as its state keeps them; new ones for a state from before fences
        existed (its earlier prompts had none to keep)."""
        if not data or not data.get("nonce") or not data.get("canary"):
            return cls.new()
        return cls(nonce=str(data["nonce"]), canary=str(data["canary"]))

    def to_json(self) -> dict[str, str]:
        return {"nonce": self.nonce, "canary": self.canary}

    def scrub(self, text: str) -> str:
        """`text` without the nonce or the canary, whatever their case: material that carries
        them (a reply that echoed one, quoted to the next seat) can neither close a fence nor
        lead an honest seat into repeating the canary."""
        for token in (self.nonce, self.canary):
            text = re.sub(re.escape(token), REMOVED, text, flags=re.IGNORECASE)
        return text

    def begin(self, kind: str, name: str) -> str:
        return f"<<<UNTRUSTED {self.nonce} BEGIN {kind}: {self._name(name)}>>>"

    def end(self, kind: str, name: str) -> str:
        return f"<<<UNTRUSTED {self.nonce} END {kind}: {self._name(name)}>>>"

    def _name(self, name: str) -> str:
        # A path may hold a newline; a delimiter is one line.
        return self.scrub(" ".join(str(name).split())) or "-"

    def wrap(self, kind: str, name: str, text: str) -> str:
        """`text` fenced as material of `kind` (file, diff, reply, ...) named `name`; no
        trailing newline."""
        body = self.scrub(str(text))
        if body and not body.endswith("\n"):
            body += "\n"
        return f"{self.begin(kind, name)}\n{body}{self.end(kind, name)}"

    def inspect(self, text: str) -> dict[str, Any]:
        """What a whole reply gives away, as `Reply` fields: `{"injection": {...}}` when it
        echoed the canary, forged a fence or reported an injection, else nothing."""
        found = watch(text, self)
        return {"injection": found} if found else {}


def watch(text: str, fences: Fences) -> dict[str, Any] | None:
    """A reply's injection record: `suspect` (it echoed the canary or forged a fence), the
    `evidence` for that, and the injections it `reported`; None when there is nothing."""
    lowered = text.lower()
    evidence = []
    if fences.canary.lower() in lowered:
        evidence.append(ECHOED_CANARY)
    if fences.nonce.lower() in lowered:
        evidence.append(FORGED_FENCE)
    reported = parse_reports(fences.scrub(text))
    if not evidence and not reported:
        return None
    return {"suspect": bool(evidence), "evidence": evidence, "reported": reported}


def parse_reports(text: str) -> list[str]:
    """Every `INJECTION: <what it asked>` line of `text` (up to five, each cut to 40 words);
    a line that says there was none is not a report."""
    reports: list[str] = []
    for found in _REPORT_LINE.finditer(text):
        what = found.group("what").strip().strip("*_`\"'").strip()
        if not what or _NOTHING.match(what):
            continue
        words = what.split()
        what = " ".join(words[:REPORT_WORDS]) + (" ..." if len(words) > REPORT_WORDS else "")
        if what not in reports:
            reports.append(what)
        if len(reports) == MAX_REPORTS:
            break
    return reports


def injection_summary(
    calls: Iterable[Any], on_injection: str, voters: Sequence[str] | None = None
) -> dict[str, Any]:
    """What a run's calls (`Contribution`s) gave away: each suspect seat with its evidence
    and calls, and whether its vote is excluded (`on_injection: exclude`, and it is a
    voter: every seat but the advocate and the lead when `voters` is None), and every
    injection a seat reported. A seat that only reported an injection is not suspect: it
    did what it was asked."""
    calls = list(calls)
    suspects: dict[str, dict[str, Any]] = {}
    reported: list[dict[str, Any]] = []
    for call in calls:
        found = call.injection
        if not found:
            continue
        if found.get("suspect"):
            suspect = suspects.setdefault(
                call.seat, {"seat": call.seat, "evidence": [], "calls": []}
            )
            suspect["evidence"] += [e for e in found["evidence"] if e not in suspect["evidence"]]
            suspect["calls"].append(call.stem)
        for what in found.get("reported") or ():
            reported.append(
                {"seat": call.seat, "phase": call.phase, "round": call.round, "what": what}
            )
    roles = {call.seat: call.role for call in calls}
    for suspect in suspects.values():
        votes = (
            suspect["seat"] in voters
            if voters is not None
            else roles.get(suspect["seat"]) not in ("advocate", "lead")
        )
        suspect["excluded"] = on_injection == "exclude" and votes
        suspect["reason"] = "suspect: " + " and ".join(suspect["evidence"])
    return {"on_injection": on_injection, "suspects": list(suspects.values()), "reported": reported}


def injection_warnings(summary: Mapping[str, Any], say: str = "vote") -> list[str]:
    """The run's warnings about injection (stderr, `warnings`, decision.md): one per suspect
    seat, one per distinct instruction reported, naming the seats that reported it. `say`:
    what a suspect's exclusion leaves out (a debater's `vote`, a reviewer's `verdicts`)."""
    policy = summary["on_injection"]
    lines = []
    for suspect in summary["suspects"]:
        counted = "not counted" if suspect["excluded"] else "counted"
        lines.append(
            f"injection: {suspect['seat']} {' and '.join(suspect['evidence'])} "
            f"({', '.join(suspect['calls'])}): suspect, its {say} {counted} "
            f"(debate.on_injection: {policy})"
        )
    by_what: dict[str, list[str]] = {}
    for report in summary["reported"]:
        seats = by_what.setdefault(report["what"], [])
        if report["seat"] not in seats:
            seats.append(report["seat"])
    for what, seats in by_what.items():
        lines.append(f"injection reported by {', '.join(seats)}: {what}")
    return lines


__all__ = [
    "ON_INJECTION",
    "Fences",
    "injection_summary",
    "injection_warnings",
    "parse_reports",
    "watch",
]
