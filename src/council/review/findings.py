"""What a reviewer answers, read tolerantly and checked strictly: its findings (the blind
review) and its verdicts on the others' findings (the cross-check).

Tolerant of what models do (a fenced block, prose around the JSON, a bare list instead of the
object, `"High"` for `"high"`, `"12"` for 12, `"80%"` for 80); strict about what reaches the
result: a finding without a title or with an unknown severity is left out with a warning, and
a reply with no readable JSON at all is `ReviewUnreadable`, which earns it one repair ask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from council.panel.replies import ReplyUnreadable, extract_json_list, extract_json_object

SEVERITIES = ("low", "medium", "high", "critical")
KINDS = (
    "security",
    "correctness",
    "reliability",
    "performance",
    "maintainability",
    "testing",
    "style",
    "other",
)
VERDICTS = ("confirm", "dispute")

# What models write instead of the four severities.
_SEVERITY_WORDS = {
    "info": "low",
    "informational": "low",
    "minor": "low",
    "trivial": "low",
    "nit": "low",
    "moderate": "medium",
    "warning": "medium",
    "major": "high",
    "error": "high",
    "severe": "critical",
    "blocker": "critical",
}
_VERDICT_WORDS = {
    "confirm": "confirm",
    "confirmed": "confirm",
    "agree": "confirm",
    "valid": "confirm",
    "true positive": "confirm",
    "yes": "confirm",
    "dispute": "dispute",
    "disputed": "dispute",
    "disagree": "dispute",
    "reject": "dispute",
    "invalid": "dispute",
    "false positive": "dispute",
    "no": "dispute",
}
_DIGITS = re.compile(r"-?\d+")


class ReviewUnreadable(ReplyUnreadable):
    """No usable findings or verdicts in a reply; the message says why (for the repair)."""


@dataclass(frozen=True)
class Finding:
    severity: str  # low | medium | high | critical
    file: str  # as the reviewer named it ("" for a finding about no one file)
    line: int | None
    end_line: int | None
    title: str
    detail: str = ""
    suggestion: str = ""
    confidence: int | None = None  # 0-100
    kind: str = "other"  # one of KINDS: the SARIF rule it falls under

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Verdict:
    verdict: str  # confirm | dispute
    reason: str = ""


def parse_findings(text: str) -> tuple[list[Finding], list[str]]:
    """A blind review's findings, and warnings about what had to be left out. An empty list
    is a valid review (nothing found); no readable JSON is `ReviewUnreadable`."""
    items = _items(text, "findings")
    findings: list[Finding] = []
    warnings: list[str] = []
    for number, item in enumerate(items, 1):
        try:
            findings.append(_finding(item))
        except ValueError as why:
            warnings.append(f"finding {number} left out: {why}")
    if items and not findings:
        raise ReviewUnreadable(f"no finding could be read ({'; '.join(warnings)})")
    return findings, warnings


def parse_verdicts(text: str, ids: list[str]) -> tuple[dict[str, Verdict], list[str]]:
    """A cross-check's verdicts by finding id (`F1`, ...; only ids in `ids` count), and
    warnings. A finding the reply says nothing about has no verdict."""
    items = _items(text, "verdicts")
    known = {i.upper(): i for i in ids}
    verdicts: dict[str, Verdict] = {}
    warnings: list[str] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        given = str(item.get("id") or item.get("finding") or "").strip().upper()
        if given.isdigit():
            given = f"F{given}"
        verdict = _VERDICT_WORDS.get(str(item.get("verdict") or "").strip().lower())
        if given not in known or verdict is None:
            warnings.append(f"verdict {item.get('id')!r}: {item.get('verdict')!r} not understood")
            continue
        reason = " ".join(str(item.get("reason") or "").split())
        verdicts[known[given]] = Verdict(verdict, reason)
    if ids and not verdicts:
        raise ReviewUnreadable("no verdict on any of the listed findings could be read")
    return verdicts, warnings


def _items(text: str, key: str) -> list[Any]:
    """The list under `key` of the reply's JSON object, else a bare JSON list, else the one
    list the object holds (`{"results": [...]}`)."""
    try:
        found = extract_json_object(text)
    except ReplyUnreadable as why:
        found, problem = {}, str(why)
    else:
        problem = f"the JSON object has no `{key}` list"
    if isinstance(found.get(key), list):
        return list(found[key])
    try:
        return extract_json_list(text)
    except ReplyUnreadable:
        pass
    lists = [value for value in found.values() if isinstance(value, list)]
    if len(found) == 1 and lists:
        return lists[0]
    raise ReviewUnreadable(problem)


def _finding(item: Any) -> Finding:
    if not isinstance(item, Mapping):
        raise ValueError("not a JSON object")
    title = " ".join(str(item.get("title") or "").split())
    if not title:
        raise ValueError("no title")
    severity = str(item.get("severity") or "").strip().lower()
    severity = _SEVERITY_WORDS.get(severity, severity)
    if severity not in SEVERITIES:
        raise ValueError(f"unknown severity {item.get('severity')!r}")
    line = _number(item.get("line"))
    end_line = _number(item.get("end_line"))
    line = line if line is not None and line >= 1 else None
    if line is None or end_line is None or end_line < line:
        end_line = None
    kind = str(item.get("kind") or item.get("category") or "other").strip().lower()
    confidence = _number(item.get("confidence"))
    return Finding(
        severity=severity,
        file=str(item.get("file") or item.get("path") or "").strip(),
        line=line,
        end_line=end_line,
        title=title,
        detail=str(item.get("detail") or item.get("description") or "").strip(),
        suggestion=str(item.get("suggestion") or item.get("fix") or "").strip(),
        confidence=confidence if confidence is not None and 0 <= confidence <= 100 else None,
        kind=kind if kind in KINDS else "other",
    )


def _number(value: Any) -> int | None:
    """12, 12.0, "12", "80%" -> an int; anything else (a bool, "", None) -> None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value)
    match = _DIGITS.search(str(value))
    return int(match.group()) if match else None
