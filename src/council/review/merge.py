"""MERGE: the reviewers' findings made into one list, with each finding's support, and the
gate. Plain Python, no model: the same reviews and verdicts always give the same findings.

The merge rule: two findings of different reviewers are the same issue when they name the same
file (after `./`, `a/`, `b/` and backslashes are normalised), their line ranges lie within
`NEARBY_LINES` lines of each other (or neither names a line), and their titles share at least
`SIMILAR_TITLES` of the shorter title's words (lower-cased, stop words and words under three
letters left out, an ending -s, -ed or -ing dropped). Findings are taken in seat order, each
reviewer's in its own order; each joins the first group whose first finding it matches and
that holds no finding of its own reviewer yet, else it starts a group. A group keeps its
first finding's title, detail and suggestion, the highest severity, the widest line range and
the mean confidence. Titles worded too differently stay two findings; the cross-check still counts
every confirmation for each.

Support: the reviewers who raised a finding (raising is confirming) and those who confirmed
any finding of its group; a reviewer who raised none of it, confirmed none and disputed one is
a dispute, with its reasons. A finding raised by one reviewer is never dropped: it stays with
its support ("1 of 3").

The gate: a finding blocks when its severity is at or above `--fail-on` and its support meets
the gate rule for its severity (`--gate`, or `review.gate` by severity in council.yaml):
`majority` (the default): a strict majority of the reviewers that answered (whose blind review
could be read); `unanimous`: every one of them; `any`: one reviewer is enough ("a bug seen by one
model is still a bug"), except that a finding only one reviewer raised or confirmed does not
block when another reviewer disputed it in the cross-check: with two supporters or more it
blocks whatever the disputes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from council.review.findings import SEVERITIES, Finding, Verdict

NEARBY_LINES = 3
GATES = ("majority", "any", "unanimous")
DEFAULT_GATE = "majority"
MAJORITY: Mapping[str, str] = MappingProxyType({})  # no rule given: majority throughout
SIMILAR_TITLES = 0.5
# Words that say nothing about which issue a title names.
_STOP_WORDS = frozenset(
    (  # noqa: SIM905 - a list of words reads better as the words
        "the and for with from into that this when where which while not are was has have its "
        "can may might should must use used using via than then there their them they any all"
    ).split()
)
_WORD = re.compile(r"[a-z0-9_]+")


def finding_key(seat: str, number: int) -> str:
    """A blind finding's key for the record: its reviewer and its place in the review."""
    return f"{seat}#{number}"


@dataclass
class Merged:
    """One finding of the review, as the outputs show it."""

    members: list[tuple[str, int, Finding]]  # (reviewer, number in its review, finding)
    raised_by: list[str] = field(default_factory=list)
    confirmed_by: list[str] = field(default_factory=list)
    disputed_by: list[dict[str, str]] = field(default_factory=list)  # reviewer, reason
    reviewers: int = 0  # how many reviewers answered: what support is out of
    id: str = ""

    @property
    def first(self) -> Finding:
        return self.members[0][2]

    @property
    def severity(self) -> str:
        return max((f.severity for _, _, f in self.members), key=SEVERITIES.index)

    @property
    def line(self) -> int | None:
        lines = [f.line for _, _, f in self.members if f.line is not None]
        return min(lines) if lines else None

    @property
    def end_line(self) -> int | None:
        ends = [f.end_line or f.line for _, _, f in self.members if f.line is not None]
        end = max((e for e in ends if e is not None), default=None)
        return end if end is not None and self.line is not None and end > self.line else None

    @property
    def support(self) -> int:
        return len(self.raised_by) + len(self.confirmed_by)

    @property
    def majority(self) -> bool:
        return self.reviewers > 0 and 2 * self.support > self.reviewers

    def passes(self, rule: str) -> bool:
        """Whether its support meets a gate rule (the module's docstring)."""
        if rule == "unanimous":
            return self.reviewers > 0 and self.support >= self.reviewers
        if rule == "any":
            return self.support >= 2 or (self.support == 1 and not self.disputed_by)
        return self.majority

    def rule(self, rules: Mapping[str, str]) -> str:
        """The gate rule its severity is held to."""
        return rules.get(self.severity, DEFAULT_GATE)

    def blocks(self, fail_on: str | None, rules: Mapping[str, str] = MAJORITY) -> bool:
        if fail_on is None:
            return False
        above = SEVERITIES.index(self.severity) >= SEVERITIES.index(fail_on)
        return above and self.passes(self.rule(rules))

    def fingerprint(self) -> str:
        """Stable across pushes that move the code: the file, the kind and the title's words,
        never the line numbers."""
        words = " ".join(sorted(title_words(self.first.title)))
        text = f"{normal_path(self.first.file)}\0{self.first.kind}\0{words}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def to_json(self, fail_on: str | None, rules: Mapping[str, str] = MAJORITY) -> dict[str, Any]:
        first = self.first
        confidences = [f.confidence for _, _, f in self.members if f.confidence is not None]
        return {
            "id": self.id,
            "severity": self.severity,
            "kind": first.kind,
            "file": normal_path(first.file),
            "line": self.line,
            "end_line": self.end_line,
            "title": first.title,
            "detail": first.detail,
            "suggestion": first.suggestion,
            "confidence": round(sum(confidences) / len(confidences)) if confidences else None,
            "raised_by": list(self.raised_by),
            "confirmed_by": list(self.confirmed_by),
            "disputed_by": [dict(d) for d in self.disputed_by],
            "support": self.support,
            "reviewers": self.reviewers,
            "majority": self.majority,
            "gate": self.rule(rules),
            "blocking": self.blocks(fail_on, rules),
            "fingerprint": self.fingerprint(),
            "raised": [
                {"reviewer": seat, "number": number, "title": f.title, "severity": f.severity}
                for seat, number, f in self.members
            ],
        }


def normal_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if path.startswith(("a/", "b/")):  # as a diff names it
        path = path[2:]
    return path


def title_words(title: str) -> frozenset[str]:
    words = set()
    for word in _WORD.findall(title.lower()):
        if len(word) < 3 or word in _STOP_WORDS:
            continue
        words.add(_stem(word))
    return frozenset(words)


def _stem(word: str) -> str:
    """`formatted`, `formatting`, `formats` -> `format`: enough for two titles to meet."""
    for ending in ("ing", "ed", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def same_issue(a: Finding, b: Finding) -> bool:
    """The merge rule (see the module's docstring)."""
    if normal_path(a.file) != normal_path(b.file):
        return False
    if (a.line is None) != (b.line is None):
        return False
    if a.line is not None and b.line is not None:
        a_end, b_end = a.end_line or a.line, b.end_line or b.line
        gap = max(a.line, b.line) - min(a_end, b_end)
        if gap > NEARBY_LINES:
            return False
    a_words, b_words = title_words(a.title), title_words(b.title)
    if not a_words or not b_words:
        return a.title.strip().lower() == b.title.strip().lower()
    shared = len(a_words & b_words)
    return shared >= SIMILAR_TITLES * min(len(a_words), len(b_words))


def merge(
    reviews: Mapping[str, Sequence[Finding]],
    verdicts: Mapping[str, Mapping[str, Verdict]],
    answered: Sequence[str],
    order: Sequence[str],
) -> list[Merged]:
    """The merged findings, sorted and numbered (F1, F2, ...). `reviews`: each reviewer's
    readable findings; `verdicts`: each checker's verdict by finding key
    (`finding_key`); `answered`: the reviewers whose blind review was read (what support is
    out of); `order`: every reviewer in seat order."""
    groups: list[Merged] = []
    for seat in order:
        for number, finding in enumerate(reviews.get(seat, ()), 1):
            for group in groups:
                if seat not in {s for s, _, _ in group.members} and same_issue(
                    group.first, finding
                ):
                    group.members.append((seat, number, finding))
                    break
            else:
                groups.append(Merged(members=[(seat, number, finding)]))
    for group in groups:
        _support(group, verdicts, order, len(answered))
    groups.sort(key=_rank)
    for number, group in enumerate(groups, 1):
        group.id = f"F{number}"
    return groups


def _support(
    group: Merged, verdicts: Mapping[str, Mapping[str, Verdict]], order: Sequence[str], out_of: int
) -> None:
    raisers = {seat for seat, _, _ in group.members}
    keys = [finding_key(seat, number) for seat, number, _ in group.members]
    group.reviewers = out_of
    for seat in order:
        if seat in raisers:
            group.raised_by.append(seat)
            continue
        mine = [verdicts.get(seat, {}).get(key) for key in keys]
        said = [v for v in mine if v is not None]
        if any(v.verdict == "confirm" for v in said):
            group.confirmed_by.append(seat)
        elif said:
            reasons = list(dict.fromkeys(v.reason for v in said if v.reason))
            group.disputed_by.append({"reviewer": seat, "reason": "; ".join(reasons)})


def _rank(group: Merged) -> tuple[int, int, str, int, str]:
    """Most severe first, then best supported, then by place in the code."""
    return (
        -SEVERITIES.index(group.severity),
        -group.support,
        normal_path(group.first.file),
        group.line or 0,
        group.first.title.lower(),
    )


def gate(
    findings: Sequence[Merged], fail_on: str | None, rules: Mapping[str, str] = MAJORITY
) -> list[str]:
    """The ids of the findings that block (empty: the gate passes)."""
    return [f.id for f in findings if f.blocks(fail_on, rules)]


def gate_rules(rule: str | None, by_severity: Mapping[str, str]) -> dict[str, str]:
    """The rule for every severity: `--gate` for all of them when given, else council.yaml's
    `review.gate` by severity, else `majority`."""
    return {severity: rule or by_severity.get(severity, DEFAULT_GATE) for severity in SEVERITIES}


def rules_text(rules: Mapping[str, str]) -> str:
    """The rules in words: `majority` when one rule holds for every severity, else each
    severity's, most severe first (`critical any, high majority, ...`)."""
    chosen = [rules.get(severity, DEFAULT_GATE) for severity in reversed(SEVERITIES)]
    if len(set(chosen)) == 1:
        return chosen[0]
    return ", ".join(f"{s} {r}" for s, r in zip(reversed(SEVERITIES), chosen, strict=True))
