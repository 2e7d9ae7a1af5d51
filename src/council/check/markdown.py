"""A check's result as Markdown (`check.md` in the record, and what `council check` prints):
the agreement, the positions with who holds each, then every seat's answer."""

from __future__ import annotations

from typing import Any

AGREEMENT_WORDS = {
    "unanimous": "every seat that answered holds the same position",
    "majority": "one position is held by more than half of the seats that answered",
    "split": "no position is held by more than half of the seats that answered",
    "insufficient": "fewer than two seats gave a position",
}


def render_markdown(result: dict[str, Any]) -> str:
    simulated = " (SIMULATED)" if result["simulated"] else ""
    lines = [f"# CHECK{simulated}: {result['question']}", ""]
    agreement = result["agreement"]
    if agreement is None:
        lines.append(f"Status: {result['status']}: no agreement was reached.")
    else:
        human = "yes" if result["needs_human"] else "no"
        lines += [
            f"Agreement: **{agreement}** ({AGREEMENT_WORDS[agreement]}) · needs a human: "
            f"{human} · {result['counted']} of {result['asked']} seats gave a position",
        ]
    if result["options"]:
        lines += ["", "Options: " + ", ".join(result["options"])]
    lines += ["", "## Positions"]
    for position in result["positions"]:
        holders = ", ".join(position["labels"])
        lines.append(
            f"- **{position['stance']}** ({position['count']} of {result['counted']}): {holders}"
        )
    if not result["positions"]:
        lines.append("(none: no seat gave a readable POSITION line)")
    lines += ["", "## Answers"]
    for answer in result["answers"]:
        stance = answer["stance"] or "no position"
        if answer["stance"] and not answer["counted"]:
            stance += " (not counted: suspect)"
        lines += [
            "",
            f"### {answer['label']}: {answer['seat']} ({answer['cli']}), {stance}",
            "",
            answer["text"] or f"(no answer: {answer['status']})",
        ]
    for warning in result["warnings"]:
        lines += ["", f"> warning: {warning}"]
    lines += [
        "",
        "---",
        f"Continue as a full debate, without asking the seats again: council debate --from "
        f"{result['id']}",
        f"Record: {result['scratchpad']}",
    ]
    return "\n".join(lines) + "\n"
