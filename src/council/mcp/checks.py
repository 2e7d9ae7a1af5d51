"""What the `check` tool returns once a check has ended: `check.md` (in the text and in the
structured content), the agreement, `needs_human`, the positions with who holds each, every
seat's answer, the run's status and exit code (8 split, 9 insufficient: no tool error, the
check worked) and the record's path. Mirrors `council wait` on a check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.check.markdown import render_markdown
from council.check.protocol import CHECK
from council.mcp.outcome import Ended, ended_facts, ended_run
from council.panel.protocol import ENDED
from council.runs.record import Record


@dataclass(frozen=True)
class Check(Ended):
    markdown: str  # check.md's text; "" when the check reached no agreement
    agreement: str | None
    needs_human: bool
    positions: tuple[dict[str, Any], ...]
    answers: tuple[dict[str, Any], ...]

    def text(self) -> str:
        human = "yes" if self.needs_human else "no"
        above = [f"Agreement: {self.agreement or 'none'} · needs a human: {human}"]
        return self.framed(self.markdown, self.note(), above, "check.md, result.json")

    def note(self) -> str:
        return self.missing("positions", "answer the question")

    def to_json(self) -> dict[str, Any]:
        return {
            **self.facts(),
            "checked": self.reached,
            "agreement": self.agreement,
            "needs_human": self.needs_human,
            "positions": [dict(p) for p in self.positions],
            "answers": [dict(a) for a in self.answers],
            "markdown": self.markdown,
            "note": None if self.reached else self.note(),
        }


def check_of(record: Record, cwd: Path | None = None) -> Check:
    """The outcome of a check that has ended."""
    state, summary, result = ended_run(CHECK, record)
    return Check(
        **ended_facts(record, state, summary, cwd),
        markdown=render_markdown(result) if summary.status in ENDED else "",
        agreement=result["agreement"],
        needs_human=result["needs_human"],
        positions=tuple(result["positions"]),
        answers=tuple(
            {k: a[k] for k in ("seat", "role", "label", "cli", "status", "stance", "text")}
            for a in result["answers"]
        ),
    )
