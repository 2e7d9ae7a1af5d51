"""What the `review` and `review_result` tools return once a review has ended: its findings
as `review.md` gives them (Markdown, in the text and in the structured content), the findings
as `result.json` has them, the gate's verdict, every reviewer's status, the run's status and
exit code (6: the gate failed), and the record's path. Mirrors `council wait` on a review."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.mcp.outcome import Ended, ended_run, seats_text
from council.panel.protocol import ENDED
from council.review.markdown import gate_text, render_markdown
from council.review.protocol import REVIEW
from council.runs.record import Record


@dataclass(frozen=True)
class Review(Ended):
    markdown: str  # review.md's text; "" without findings
    findings: tuple[dict[str, Any], ...]
    counts: dict[str, int]
    gate: dict[str, Any]  # fail_on, rules, blocking, passed
    reviewers: tuple[dict[str, str], ...]

    def text(self) -> str:
        above = [f"Reviewers: {seats_text(self.reviewers, ('ok',))}", f"Gate: {self.verdict()}"]
        files = "review.md, review.sarif, result.json"
        return self.framed(self.markdown, self.note(), above, files)

    def verdict(self) -> str:
        return gate_text(self.gate) if self.reached else "none (the review reached no findings)"

    def note(self) -> str:
        return self.missing("findings", "review the code")

    def to_json(self) -> dict[str, Any]:
        return {
            **self.facts(),
            "reviewed": self.reached,
            "findings_markdown": self.markdown if self.reached else "",
            "findings": [dict(f) for f in self.findings],
            "counts": dict(self.counts),
            "gate": dict(self.gate),
            "note": None if self.reached else self.note(),
            "reviewers": [dict(r) for r in self.reviewers],
        }


def review_of(record: Record, cwd: Path | None = None) -> Review:
    """The outcome of a review that has ended."""
    state, summary, result = ended_run(REVIEW, record)
    return Review(
        id=record.id,
        status=summary.status,
        exit_code=int(state.get("exit_code") or 0),
        record=record.display(cwd),
        error=state.get("error"),
        markdown=render_markdown(result) if summary.status in ENDED else "",
        findings=tuple(result["findings"]),
        counts=dict(result["counts"]),
        gate=dict(result["gate"]),
        reviewers=tuple(
            {
                "name": r["name"],
                "cli": r["cli"],
                "status": r["status"],
                "review": r["review"],
                "cross_check": r["cross_check"],
            }
            for r in result["reviewers"]
        ),
    )
