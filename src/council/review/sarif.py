"""The review as SARIF 2.1.0, for GitHub code scanning (`github/codeql-action/upload-sarif`)
and any other SARIF viewer.

One run, tool `council`; one rule per finding kind (`council/security`, ...); one result per
finding, with its physical location (the file relative to the repository root, its lines),
its level (critical and high: error, medium: warning, low: note), its support and who raised,
confirmed and disputed it as properties, and `partialFingerprints` built from the file, the
kind and the title's words (never the lines), so code scanning tracks a finding across pushes
that move it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from council import __version__
from council.review.findings import KINDS
from council.review.merge import gate_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}
FINGERPRINT = "councilFinding/v1"
_RULE_TEXT = {
    "security": "A security problem: injection, secrets, unsafe deserialisation, access.",
    "correctness": "The code does not do what it means to: a bug.",
    "reliability": "Errors, resources or concurrency handled in a way that fails in use.",
    "performance": "Work that grows or waits more than it needs to.",
    "maintainability": "Code that will be hard to change safely.",
    "testing": "A risky path no test covers.",
    "style": "Readability and convention.",
    "other": "Anything else the reviewers agreed to raise.",
}


def rule_id(kind: str) -> str:
    return f"council/{kind}"


def render_sarif(result: Mapping[str, Any]) -> dict[str, Any]:
    # What was not reviewed (a path outside the project, a file not given) is never reported.
    findings = [f for f in result["findings"] if not f.get("out_of_scope")]
    kinds = [k for k in KINDS if any(f["kind"] == k for f in findings)]
    rules = [
        {
            "id": rule_id(kind),
            "name": kind.capitalize(),
            "shortDescription": {"text": f"{kind.capitalize()} finding of a council review"},
            "fullDescription": {"text": _RULE_TEXT[kind]},
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["council", kind]},
        }
        for kind in kinds
    ]
    results = [_result(f, kinds.index(f["kind"])) for f in findings]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "council", "version": __version__, "rules": rules}},
        "results": results,
        "invocations": [
            {
                "executionSuccessful": result["status"] in ("completed", "degraded"),
                "exitCode": result["exit_code"],
            }
        ],
        "properties": {
            "id": result["id"],
            "subject": result["subject"],
            "status": result["status"],
            "simulated": result["simulated"],
            "failOn": result["gate"]["fail_on"],
            "gate": dict(result["gate"].get("rules") or gate_rules(None, {})),
            "blocking": list(result["gate"]["blocking"]),
            "reviewers": [r["name"] for r in result["reviewers"]],
            "answered": result["answered"],
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _result(finding: Mapping[str, Any], rule_index: int) -> dict[str, Any]:
    sarif: dict[str, Any] = {
        "ruleId": rule_id(finding["kind"]),
        "ruleIndex": rule_index,
        "level": LEVELS[finding["severity"]],
        "message": {"text": _message(finding)},
        "partialFingerprints": {FINGERPRINT: finding["fingerprint"]},
        "properties": {
            "id": finding["id"],
            "severity": finding["severity"],
            "confidence": finding["confidence"],
            "support": finding["support"],
            "reviewers": finding["reviewers"],
            "majority": finding["majority"],
            "blocking": finding["blocking"],
            "raisedBy": list(finding["raised_by"]),
            "confirmedBy": list(finding["confirmed_by"]),
            "disputedBy": [dict(d) for d in finding["disputed_by"]],
        },
    }
    if finding["file"]:
        location: dict[str, Any] = {
            "artifactLocation": {"uri": quote(finding["file"], safe="/"), "uriBaseId": "%SRCROOT%"}
        }
        if finding["line"] is not None:
            region = {"startLine": finding["line"]}
            if finding["end_line"]:
                region["endLine"] = finding["end_line"]
            location["region"] = region
        sarif["locations"] = [{"physicalLocation": location}]
    return sarif


def _message(finding: Mapping[str, Any]) -> str:
    parts = [finding["title"]]
    if finding["detail"]:
        parts.append(finding["detail"])
    if finding["suggestion"]:
        parts.append(f"Suggestion: {finding['suggestion']}")
    who = [f"raised by {', '.join(finding['raised_by'])}"]
    if finding["confirmed_by"]:
        who.append(f"confirmed by {', '.join(finding['confirmed_by'])}")
    if finding["disputed_by"]:
        who.append(
            "disputed by "
            + "; ".join(
                f"{d['reviewer']} ({d['reason'] or 'no reason given'})"
                for d in finding["disputed_by"]
            )
        )
    parts.append(
        f"Support {finding['support']} of {finding['reviewers']} reviewers "
        f"({finding['severity']}): {'; '.join(who)}."
    )
    return "\n\n".join(parts)
