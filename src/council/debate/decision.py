"""The DECISION's parts that need no model: reading the lead model's reply (tolerant of code
fences, prose around the object, trailing commas and smart quotes; strict about what reaches
the result), and finding the disagreements a seat repeated without new evidence (`loop`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from council.panel.replies import ReplyUnreadable, extract_json_object
from council.words import first_words

if TYPE_CHECKING:
    from council.debate.state import Contribution

VOTES = ("agree", "revise", "disagree")
# The reply holds no usable decision object; the message says why (for the repair ask).
DecisionUnreadable = ReplyUnreadable


def parse_decision(text: str) -> tuple[dict[str, Any], list[str]]:
    """The `decision` object of docs/spec/outputs.md (without the votes: the seats cast them),
    and warnings about what had to be fixed."""
    raw = extract_json_object(text)
    warnings: list[str] = []
    recommendation = raw.get("recommendation")
    if not isinstance(recommendation, str) or not recommendation.strip():
        raise DecisionUnreadable("`recommendation` is missing or empty")

    def strings(key: str) -> list[str]:
        value = raw.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            warnings.append(f"decision: `{key}` was not a list; ignored")
            return []
        return [str(v) for v in value if str(v).strip()]

    disagreements = []
    for item in raw.get("disagreements") or []:
        if isinstance(item, dict) and item.get("point"):
            disagreements.append(
                {
                    "point": str(item["point"]),
                    "ruling": str(item.get("ruling") or ""),
                    "reason": str(item.get("reason") or ""),
                    "loop": bool(item.get("loop", False)),
                }
            )
    step = raw.get("next_step") if isinstance(raw.get("next_step"), dict) else {}
    confidence = raw.get("confidence")
    if isinstance(confidence, str) and confidence.strip().isdigit():
        confidence = int(confidence.strip())
    if isinstance(confidence, float):
        confidence = round(confidence)
    valid = isinstance(confidence, int) and not isinstance(confidence, bool)
    if not valid or not 0 <= confidence <= 100:
        if confidence is not None:
            warnings.append(f"decision: confidence {confidence!r} is not 0-100; dropped")
        confidence = None
    return {
        "recommendation": recommendation.strip(),
        "consensus": strings("consensus"),
        "disagreements": disagreements,
        "tradeoffs": strings("tradeoffs"),
        "blocking_concerns": strings("blocking_concerns"),
        "next_step": {
            "action": str(step.get("action") or ""),
            "verify_command": str(step.get("verify_command") or ""),
            "done_criterion": str(step.get("done_criterion") or ""),
        },
        "confidence": confidence,
    }, warnings


def raw_text_decision(text: str) -> dict[str, Any]:
    """The fallback when even the repaired reply is unreadable: keep the text, claim nothing."""
    return {
        "recommendation": text.strip(),
        "consensus": [],
        "disagreements": [],
        "tradeoffs": [],
        "blocking_concerns": [],
        "next_step": {"action": "", "verify_command": "", "done_criterion": ""},
        "confidence": None,
    }


def parse_convergence(text: str) -> tuple[bool, list[str]] | None:
    """(converged, open blocking points) from the convergence reply; None when unreadable."""
    try:
        raw = extract_json_object(text)
    except DecisionUnreadable:
        return None
    converged = raw.get("converged")
    if not isinstance(converged, bool):
        return None
    points = raw.get("open_blocking") or []
    return converged, [str(p) for p in points] if isinstance(points, list) else []


_STOP = frozenset(
    {
        "that",
        "this",
        "with",
        "from",
        "have",
        "will",
        "would",
        "should",
        "could",
        "their",
        "there",
        "about",
        "which",
        "when",
        "what",
        "into",
        "also",
        "than",
        "then",
        "them",
        "they",
        "your",
        "more",
        "most",
        "only",
        "just",
    }
)
_EVIDENCE = re.compile(r"[\w./-]+\.\w{1,5}\b|\b\w+\(\)|`[^`]+`|\b\d+(?:\.\d+)?\b")


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z'-]{3,}", text.lower()) if w not in _STOP}


def find_loops(
    contributions: list[Contribution], advocate: str, names: Mapping[str, str] | None = None
) -> list[str]:
    """Disagreements a seat repeated in the next round without new evidence, each naming the
    seat as `names` shows it (an anonymous label in a prompt; the seat's name by default).

    Repeated: most of the later text's content words were already in the earlier one. New
    evidence: a file name, a call, a code span or a number the earlier text did not have.
    """
    loops = []
    by_seat: dict[str, list[Contribution]] = {}
    for c in contributions:
        if c.seat != advocate and c.answered and c.phase in ("CHALLENGE", "REBUTTAL"):
            by_seat.setdefault(c.seat, []).append(c)
    for seat, items in by_seat.items():
        for earlier, later in pairwise(items):
            before, after = _content_words(earlier.text), _content_words(later.text)
            if not after:
                continue
            overlap = len(before & after) / len(after)
            new_evidence = set(_EVIDENCE.findall(later.text)) - set(_EVIDENCE.findall(earlier.text))
            if overlap >= 0.7 and not new_evidence:
                shown = (names or {}).get(seat, seat)
                excerpt = first_words(later.text, 25)
                loops.append(f"{shown}, rounds {earlier.round}-{later.round}: {excerpt}")
    return loops


def mark_loops(decision: dict[str, Any], loops: list[str]) -> None:
    """Every repeated disagreement ends up ruled by the lead and marked `loop`."""
    if not loops:
        return
    marked = [d for d in decision["disagreements"] if d["loop"]]
    for point in loops[len(marked) :]:
        decision["disagreements"].append(
            {
                "point": point,
                "ruling": "Settled by the lead's recommendation above.",
                "reason": "Raised again in the next round without new evidence.",
                "loop": True,
            }
        )
