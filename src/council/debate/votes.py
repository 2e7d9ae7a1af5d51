"""Votes cast by the seats, never by the lead (docs/spec/protocol.md section 7).

Each challenger's last contribution ends with `VOTE: agree|revise|disagree - <reason>`; this
module reads that line (tolerant of case, emphasis, a bullet, a trailing period), counts the
votes, and quotes every `disagree` in a minority report. A seat that did not answer, or gave
no readable vote, is `no vote` (None).

A seat whose answers echoed the run's canary or forged a fence is suspect (context/fences.py);
under `debate.on_injection: exclude` its vote is kept in the record as cast but left out of
the tally and the minority report, with the reason.

Under `quorum.distinct: vendor` (or `family`) the seats are grouped by their CLI's vendor (or
by the family of the model that served them, docs/spec/protocol.md section 7) and each group
is one voice: the tally counts one vote per group, the group's majority, a tie going to the
more cautious vote (disagree, then revise, then agree), since seats of one vendor that split
show a doubt the DECISION must not read as settled. Every vote is still kept as cast, and
every `disagree` still gets its minority report.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from council.adapters import registered
from council.adapters.base import model_family
from council.words import first_words

VOTES = ("agree", "revise", "disagree")
DISTINCT = ("off", "vendor", "family")  # what `quorum.distinct` takes
# A group's tie goes to the first of these: the more cautious vote.
CAUTION = ("disagree", "revise", "agree")
MINORITY_WORDS = 80

# Models write a full-width colon and en or em dashes too.
_VOTE_LINE = re.compile(
    r"^[\s>*_`#-]*(?:[-*+•]\s*)?[*_`]*vote[*_`]*\s*[:：=]\s*[*_`]*\s*"  # noqa: RUF001
    r"(?P<vote>agree|revise|disagree)\b[*_`]*"
    r"(?:\s*[-–—:;,]\s*|\s+)?(?P<reason>.*?)[*_`\s]*$",  # noqa: RUF001
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class Vote:
    vote: str  # agree | revise | disagree
    reason: str


def parse_vote(text: str) -> Vote | None:
    """The last readable `VOTE:` line of `text`, or None."""
    found = list(_VOTE_LINE.finditer(text))
    if not found:
        return None
    last = found[-1]
    reason = last.group("reason").strip().strip("*_`").strip()
    reason = reason.lstrip(".-\u2013\u2014:; ").strip()
    return Vote(last.group("vote").lower(), reason)


def vote_fields(text: str) -> dict[str, str]:
    """A last contribution's own vote as `Reply` fields, read from the whole answer before
    the word limit cuts it (none when it gave no readable vote)."""
    cast = parse_vote(text)
    return {"vote": cast.vote, "vote_reason": cast.reason} if cast is not None else {}


def group_of(distinct: str, vendor: str, served_model: str | None) -> str:
    """The voice a seat's call speaks with under `quorum.distinct` (`vendor` or `family`): its
    CLI's vendor, or the family of the model that served it (`model_family`; the vendor when
    the CLI named no model or no vendor claims it). Under `off` nobody asks: every seat is a
    voice of its own."""
    if distinct == "family":
        return model_family(served_model, registered().values()) or vendor
    return vendor


def distinct_voices(calls: Iterable[Any], groups: Mapping[str, str] | None) -> int:
    """How many voices `calls` (contributions) speak with: one per call's group under
    `quorum.distinct` (`groups`: a call's stem -> its group), one per call without."""
    calls = list(calls)
    if groups is None:
        return len(calls)
    return len({groups.get(c.stem, c.stem) for c in calls})


def group_vote(votes: Iterable[str]) -> str:
    """One group's vote: its majority, a tie going to the more cautious vote."""
    counts = Counter(votes)
    top = max(counts.values())
    return next(v for v in CAUTION if counts.get(v) == top)


def tally_votes(
    voters: Sequence[str],
    final: Mapping[str, Any | None],
    excluded: Mapping[str, str] | None = None,
    groups: Mapping[str, str] | None = None,
) -> tuple[dict[str, str | None], dict[str, str], dict[str, Any], list[dict[str, str]]]:
    """From each voter's last contribution (a `Contribution`, or None when it gave none):
    votes as cast (None = no vote), the reasons given, the tally, and the minority report.
    `excluded`: seat -> why its vote does not count; such a vote is counted as `excluded`
    (when it cast one), never as what it says. `groups` (`quorum.distinct`): seat -> its
    group; the tally then counts each group once (`group_vote`) and lists the groups."""
    excluded = excluded or {}
    votes: dict[str, str | None] = {}
    reasons: dict[str, str] = {}
    minority: list[dict[str, str]] = []
    for seat in voters:
        last = final.get(seat)
        vote = last.vote if last is not None and last.answered else None
        votes[seat] = vote
        if vote is not None:
            reasons[seat] = last.vote_reason
        if vote == "disagree" and seat not in excluded:
            minority.append(
                {
                    "seat": seat,
                    "reason": last.vote_reason,
                    "excerpt": first_words(last.text, MINORITY_WORDS),
                }
            )
    counted = {seat: vote for seat, vote in votes.items() if seat not in excluded}
    tally: dict[str, Any]
    if groups is None:
        tally = {v: sum(1 for x in counted.values() if x == v) for v in VOTES}
        tally["no_vote"] = sum(1 for x in votes.values() if x is None)
    else:
        tally = dict.fromkeys((*VOTES, "no_vote"), 0)
        tally["groups"] = []
        members: dict[str, list[str]] = {}
        for seat in voters:
            members.setdefault(groups.get(seat, seat), []).append(seat)
        for group, seats in members.items():
            cast = [counted[s] for s in seats if s in counted and counted[s] is not None]
            vote = group_vote(cast) if cast else None
            if vote is not None:
                tally[vote] += 1
            elif any(s in counted for s in seats):
                tally["no_vote"] += 1  # an excluded seat's silence is not a group's
            tally["groups"].append({"group": group, "seats": seats, "vote": vote})
    if excluded:
        tally["excluded"] = sum(1 for s, x in votes.items() if s in excluded and x is not None)
    return votes, reasons, tally, minority
