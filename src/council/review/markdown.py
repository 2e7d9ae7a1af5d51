"""`review.md` and the default stdout of `council review`: the findings by severity, each with
who raised it, who confirmed it and who disputed it (with their reasons), then the reviewers.
Reviewers are shown by their real seat names here, as in the record: the anonymity holds in
the prompts, not in the report to the user."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from council.panel.contribution import participant
from council.review.merge import rules_text

SEVERITY_ORDER = ("critical", "high", "medium", "low")


def render_markdown(result: Mapping[str, Any]) -> str:
    simulated = " (SIMULATED)" if result["simulated"] else ""
    lines = [f"# REVIEW{simulated}: {result['subject']}"]
    lines.append("Reviewers: " + ", ".join(participant(r) for r in result["reviewers"]))
    lines.append(_status_line(result))
    for warning in result["warnings"]:
        lines.append(f"> warning: {warning}")
    if result.get("error"):
        lines.append(f"> error: {result['error']}")
    findings = [f for f in result["findings"] if not f.get("out_of_scope")]
    outside = [f for f in result["findings"] if f.get("out_of_scope")]
    if not findings:
        lines += ["", "No findings." if result["status"] != "running" else "(still running)"]
    for severity in SEVERITY_ORDER:
        mine = [f for f in findings if f["severity"] == severity]
        if not mine:
            continue
        lines += ["", f"## {severity.capitalize()} ({len(mine)})"]
        for finding in mine:
            lines += _finding(finding)
    if outside:  # kept for the record: never gating, never in SARIF
        lines += ["", f"## Out of scope ({len(outside)})"]
        for finding in outside:
            where = f"{finding['file']}:{finding['line']}" if finding["line"] else finding["file"]
            lines.append(
                f"- {finding['id']} {_cell(finding['title'])} ({where}): {finding['out_of_scope']}"
            )
    lines += ["", "## Reviewers", "| reviewer | review | cross-check | findings | problem |"]
    lines.append("|---|---|---|---|---|")
    for r in result["reviewers"]:
        problem = r["problems"]["review"] or r["problems"]["cross_check"] or ""
        lines.append(
            f"| {r['name']} ({r['cli']}) | {r['review']} | {r['cross_check']} | "
            f"{r['findings_raised']} | {_cell(problem)} |"
        )
    return "\n".join(lines).rstrip() + "\n"


def _status_line(result: Mapping[str, Any]) -> str:
    counts = result["counts"]
    found = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"
    total = len(result["reviewers"])
    return (
        f"Status: {result['status']} · {result['answered']} of {total} reviewers answered · "
        f"{sum(counts.values())} findings ({found}) · {gate_text(result['gate'])} · "
        f"{_duration(result['duration_s'])}"
    )


def _finding(finding: Mapping[str, Any]) -> list[str]:
    return ["", f"### {finding['id']} {finding['title']}", *finding_body(finding)]


def gate_text(gate: Mapping[str, Any]) -> str:
    """`gate high (any): FAILED (F1, F2)`; an old record's gate has no rules: majority."""
    if gate["fail_on"] is None:
        return "no gate"
    name = f"gate {gate['fail_on']} ({rules_text(gate.get('rules') or {})})"
    if gate["blocking"]:
        return f"{name}: FAILED ({', '.join(gate['blocking'])})"
    return f"{name}: passed"


def finding_body(finding: Mapping[str, Any]) -> list[str]:
    """A finding's Markdown under its heading: where, support, who raised, confirmed and
    disputed it, its detail and suggestion (the HTML page shows the same words)."""
    where = _where(finding)
    blocking = " · BLOCKING" if finding["blocking"] else ""
    majority = "majority" if finding["majority"] else "no majority"
    lines = [
        f"`{where}` · {finding['kind']} · support {finding['support']} of "
        f"{finding['reviewers']} ({majority}){blocking}"
        + (f" · confidence {finding['confidence']}" if finding["confidence"] is not None else ""),
        "",
        f"- Raised by: {_names(finding['raised_by'])}",
        f"- Confirmed by: {_names(finding['confirmed_by'])}",
    ]
    if finding["disputed_by"]:
        lines.append("- Disputed by:")
        for dispute in finding["disputed_by"]:
            reason = dispute["reason"] or "(no reason given)"
            lines.append(f"  - {dispute['reviewer']}: {reason}")
    else:
        lines.append("- Disputed by: nobody")
    if finding["detail"]:
        lines += ["", finding["detail"]]
    if finding["suggestion"]:
        lines += ["", f"Suggestion: {finding['suggestion']}"]
    return lines


def _where(finding: Mapping[str, Any]) -> str:
    file = finding["file"] or "(no file)"
    if finding["line"] is None:
        return file
    end = f"-{finding['end_line']}" if finding["end_line"] else ""
    return f"{file}:{finding['line']}{end}"


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "nobody"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
