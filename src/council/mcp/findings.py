"""What the `review` and `review_result` tools return once a review has ended: its findings
as `review.md` gives them (Markdown, in the text and in the structured content), the findings
as `result.json` has them, the gate's verdict, every reviewer's status, the run's status and
exit code (6: the gate failed), and the record's path. Mirrors `council wait` on a review."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.mcp.outcome import ended_run
from council.panel.run import ENDED
from council.review.markdown import gate_text, render_markdown
from council.review.protocol import REVIEW
from council.runs.record import Record


@dataclass(frozen=True)
class Review:
    id: str
    status: str  # completed | degraded | failed | interrupted
    exit_code: int
    record: str  # as a user would type it: relative to the project when inside it
    error: str | None
    markdown: str  # review.md's text; "" without findings
    findings: tuple[dict[str, Any], ...]
    counts: dict[str, int]
    gate: dict[str, Any]  # fail_on, blocking, passed
    reviewers: tuple[dict[str, str], ...]

    @property
    def reviewed(self) -> bool:
        return self.status in ENDED

    def text(self) -> str:
        reviewers = " · ".join(
            f"{r['name']} ({r['cli']}) "
            + ("ok" if r["status"] == "ok" else f"FAILED: {r['status']}")
            for r in self.reviewers
        )
        footer = [
            f"Reviewers: {reviewers}",
            f"Gate: {self.verdict()}",
            f"Status: {self.status} · exit code {self.exit_code}",
            f"Record: {self.record} (review.md, review.sarif, result.json)",
        ]
        if self.error:
            footer.insert(0, f"council: {self.error}")
        if self.reviewed:
            return self.markdown.rstrip() + "\n\n---\n" + "\n".join(footer) + "\n"
        return self.note() + "\n\n" + "\n".join(footer) + "\n"

    def verdict(self) -> str:
        if not self.reviewed:
            return "none (the review reached no findings)"
        return gate_text(self.gate)

    def note(self) -> str:
        """What the host's model is to tell the user of a review that reached no findings."""
        ended = "was interrupted" if self.status == "interrupted" else self.status
        return (
            f"No findings: the review {ended}. Report this to the user as it is; do not "
            f"review the code in council's place. It can go on with: council resume {self.id}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "exit_code": self.exit_code,
            "record": self.record,
            "error": self.error,
            "reviewed": self.reviewed,
            "findings_markdown": self.markdown if self.reviewed else "",
            "findings": [dict(f) for f in self.findings],
            "counts": dict(self.counts),
            "gate": dict(self.gate),
            "note": None if self.reviewed else self.note(),
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
