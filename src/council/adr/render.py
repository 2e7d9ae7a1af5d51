"""A debate's DECISION as the text of an ADR, MADR or Nygard form: the question (the context),
the options considered (the adopted recommendation, the advocate's first proposal, each
dissenting seat's position), the ruling with the lead's rulings on the points argued, the
votes, the minority report, the consequences (trade-offs, blocking concerns, next step) and
the record's id and path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from council.adr.layout import MADR, Layout
from council.words import cut_words

TITLE_CHARS = 120
PROPOSAL_WORDS = 60


@dataclass(frozen=True)
class Source:
    """The debate an ADR is made of: its result, and how the ADR names its record."""

    result: Mapping[str, Any]
    record_id: str
    record_path: str  # as a user types it: `.scratchpad/debate-.../`
    record_link: str  # to its decision.md, relative to the ADR's directory

    @property
    def decision(self) -> Mapping[str, Any]:
        return self.result["decision"]

    @property
    def question(self) -> str:
        return str(self.result["question"]).strip()

    @property
    def date(self) -> str:
        return str(self.result.get("finished_at") or self.result["started_at"])[:10]

    @property
    def status(self) -> str:
        """accepted; proposed when the debate was degraded (no quorum: a person confirms)."""
        return "accepted" if self.result["status"] == "completed" else "proposed"


def title_of(question: str) -> str:
    """The question's first line, as the ADR's title."""
    line = " ".join(question.strip().splitlines()[0].split()) if question.strip() else "Decision"
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 3].rstrip() + "..."


def record_line(source: Source) -> str:
    return (
        f"Record: [`{source.record_id}`]({source.record_link}) (`{source.record_path}`; "
        f"`council show {source.record_id}`)"
    )


def render(source: Source, layout: Layout) -> str:
    if layout.template == MADR:
        return _madr(source, layout)
    return _nygard(source, layout)


def _madr(source: Source, layout: Layout) -> str:
    decision, title = source.decision, title_of(source.question)
    makers = _participants(source.result)
    if layout.front_matter:
        head = ["---", f"status: {source.status}", f"date: {source.date}"]
        head += [f"decision-makers: {makers}", "---", "", f"# {title}"]
    else:
        head = [f"# {title}", "", f"* Status: {source.status}", f"* Deciders: {makers}"]
        head += [f"* Date: {source.date}"]
    lines = [*head, "", "## Context and Problem Statement", "", *_quoted(source.question), ""]
    lines += ["Decided by a council debate.", "", "## Considered Options", ""]
    lines += [f"* {option}" for option in _options(source)]
    lines += ["", "## Decision Outcome", "", f'Chosen option: "{_one_line(decision)}"']
    lines += _confidence(decision)
    lines += _rulings(decision, "### Rulings on the points argued")
    lines += ["", "### Consequences", ""]
    lines += [f"* {line}" for line in _consequences(decision)]
    lines += ["", "### Confirmation", "", *_next_step(decision)]
    lines += ["", "### Votes", "", *_votes(decision)]
    lines += ["", "### Minority Report", "", *_minority(decision)]
    lines += ["", "## More Information", "", record_line(source)]
    return "\n".join(lines).rstrip() + "\n"


def _nygard(source: Source, layout: Layout) -> str:
    decision, title = source.decision, title_of(source.question)
    lines = [f"# {layout.number}. {title}", "", f"Date: {source.date}", "", "## Status", ""]
    lines += [source.status.capitalize(), "", "## Context", "", *_quoted(source.question), ""]
    lines += ["Options considered:", ""]
    lines += [f"- {option}" for option in _options(source)]
    lines += ["", f"Debated by {_participants(source.result)}.", record_line(source)]
    lines += ["", "## Decision", "", str(decision["recommendation"]).strip()]
    lines += _confidence(decision)
    lines += _rulings(decision, "Rulings on the points argued:")
    lines += ["", "Votes:", "", *_votes(decision)]
    lines += ["", "Minority report:", "", *_minority(decision)]
    lines += ["", "## Consequences", ""]
    lines += [f"- {line}" for line in _consequences(decision)]
    lines += ["", *_next_step(decision)]
    return "\n".join(lines).rstrip() + "\n"


def _quoted(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in text.splitlines()]


def _one_line(decision: Mapping[str, Any]) -> str:
    return " ".join(str(decision["recommendation"]).split()).replace('"', "'")


def _options(source: Source) -> list[str]:
    """The adopted recommendation, the advocate's first proposal (its opening words) and each
    dissenting seat's position: what the debate weighed."""
    options = [f"{_one_line(source.decision)} (chosen)"]
    proposal = next(
        (
            c["text"]
            for c in source.result.get("contributions", ())
            if c.get("phase") == "PROPOSAL" and c.get("text")
        ),
        None,
    )
    if proposal:
        opening = " ".join(cut_words(proposal, PROPOSAL_WORDS).split())
        more = "..." if len(opening) < len(" ".join(proposal.split())) else ""
        options.append(f"The advocate's first proposal: {opening}{more}")
    for dissent in source.decision.get("minority") or ():
        options.append(f"{dissent['seat']}'s position (voted disagree): {dissent['reason']}")
    return options


def _confidence(decision: Mapping[str, Any]) -> list[str]:
    if decision.get("confidence") is None:
        return []
    return ["", f"Confidence: {decision['confidence']}/100."]


def _rulings(decision: Mapping[str, Any], heading: str) -> list[str]:
    points = decision.get("disagreements") or ()
    if not points:
        return []
    lines = ["", heading, ""]
    for point in points:
        loop = " (repeated without new evidence)" if point.get("loop") else ""
        lines.append(f"- {point['point']} Ruling: {point['ruling']} ({point['reason']}){loop}")
    return lines


def _consequences(decision: Mapping[str, Any]) -> list[str]:
    lines = [f"Accepted trade-off: {t}" for t in decision.get("tradeoffs") or ()]
    lines += [f"Blocking concern: {c}" for c in decision.get("blocking_concerns") or ()]
    lines += [f"Agreed by every seat: {c}" for c in decision.get("consensus") or ()]
    return lines or ["None recorded."]


def _next_step(decision: Mapping[str, Any]) -> list[str]:
    step = decision.get("next_step") or {}
    if not step.get("action"):
        return ["Next step: none recorded."]
    action = str(step["action"]).strip()
    lines = [f"Next step: {action}{'' if action.endswith(('.', '!', '?')) else '.'}"]
    if step.get("verify_command"):
        lines.append(f"Verify with `{step['verify_command']}`.")
    if step.get("done_criterion"):
        lines.append(f"Done when: {step['done_criterion']}")
    return [" ".join(lines)]


def _votes(decision: Mapping[str, Any]) -> list[str]:
    votes = decision.get("votes") or {}
    if not votes:
        return ["No seat voted (the proposal went unchallenged)."]
    reasons = decision.get("vote_reasons") or {}
    lines = ["| seat | vote | reason |", "|---|---|---|"]
    for seat, vote in votes.items():
        reason = " ".join(str(reasons.get(seat, "")).split()).replace("|", "\\|")
        lines.append(f"| {seat} | {vote or 'no vote'} | {reason} |")
    if counted := tally_text(decision):
        lines += ["", f"Tally: {counted}."]
    return lines


def tally_text(decision: Mapping[str, Any]) -> str:
    """`agree 1, revise 0, disagree 1, no vote 0`; "" when the DECISION has no tally."""
    tally = decision.get("tally") or {}
    keys = ("agree", "revise", "disagree", "no_vote")
    return ", ".join(f"{k.replace('_', ' ')} {tally[k]}" for k in keys if k in tally)


def _minority(decision: Mapping[str, Any]) -> list[str]:
    dissents = decision.get("minority") or ()
    if not dissents:
        return ["None: no seat voted disagree."]
    lines: list[str] = []
    for dissent in dissents:
        lines += [f"**{dissent['seat']}**: {dissent['reason']}", ""]
        lines += [*_quoted(str(dissent["excerpt"]).strip()), ""]
    return lines[:-1]  # the next section brings its own blank line: one, never two


def _participants(result: Mapping[str, Any]) -> str:
    seats = ", ".join(f"{s['name']} ({s['cli']})" for s in result.get("seats", ()))
    return f"council debate: {seats}" if seats else "council debate"
