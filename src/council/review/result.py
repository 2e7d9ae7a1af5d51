"""A review's result: `result.json` (schema `council.review/v1`, shipped with the package in
`schema/review.schema.json`), built from the state alone so `council show`, `wait` and resume
agree; and the three forms it is printed in (`--format md|json|sarif`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from council.context.fences import injection_summary
from council.panel.contribution import run_usage, served_by, total_usage
from council.review.annotations import render_github, render_gitlab
from council.review.findings import SEVERITIES
from council.review.markdown import render_markdown
from council.review.merge import gate_rules
from council.review.sarif import render_sarif
from council.review.state import ReviewState

SCHEMA_ID = "council.review/v1"
SCHEMA_FILE = Path(__file__).parents[1] / "schema" / "review.schema.json"


@cache
def review_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def render(result: dict[str, Any], form: str) -> str:
    """The result as `--format` asks: md, json, sarif, github or gitlab."""
    if form == "json":
        return json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    if form == "sarif":
        return json.dumps(render_sarif(result), indent=2, ensure_ascii=False) + "\n"
    if form == "github":
        return render_github(result)
    if form == "gitlab":
        return render_gitlab(result)
    return render_markdown(result)


def build_result(state: ReviewState, scratchpad: str) -> dict[str, Any]:
    plan = state.plan
    calls = state.contributions()
    labels = state.labels
    reviewers = []
    usage_by_seat: list[tuple[str, list[Any]]] = []
    for seat_plan in plan["reviewers"]:
        name = seat_plan["name"]
        info = state.seats.get(name, {})
        mine = [c for c in calls if c.seat == name and not c.skipped]  # the calls it made
        usage_by_seat.append((name, [c.usage for c in mine]))
        problems = state.failed.get(name, {})
        sat_out = {c.phase: c.detail for c in calls if c.seat == name and c.skipped}
        asked = info.get("status") == "ready"
        review = _part(name in state.reviews, "REVIEW" in problems, asked)
        shown = bool(state.shown.get(name))
        checked = _part(name in state.verdicts, "CROSS_CHECK" in problems, shown)
        if info.get("status") == "dropped":
            status = "dropped"
        elif review == "failed":
            status = "failed"
        elif review == "ok":
            status = "ok"
        else:
            status = "pending" if state.status == "running" else "failed"
        reviewers.append(
            {
                "name": name,
                "label": labels.get(name, ""),
                "cli": info.get("cli", seat_plan["cli"]),
                # The model asked for: the seat's own, else its CLI's configured one.
                "model": seat_plan["model"] or next((c.model for c in mine if c.model), None),
                "effort": seat_plan["effort"],
                "version": info.get("version"),
                "status": status,
                "review": review,
                "cross_check": checked,
                "problems": {
                    "review": problems.get("REVIEW") or info.get("problem"),
                    "cross_check": problems.get("CROSS_CHECK") or _sat_out(sat_out, "CROSS_CHECK"),
                },
                "findings_raised": len(state.reviews.get(name, [])),
                "calls": len(mine),
                "repairs": sum(1 for c in mine if c.phase.endswith("_REPAIR")),
                "retries": sum(max(0, c.attempts - 1) for c in mine),
                "latency_s": round(sum(c.latency_s for c in mine), 1),
                "usage": total_usage(c.usage for c in mine),
                "billing": info.get("billing"),
                "served_models": served_by(mine),
                "worker": info.get("worker"),
            }
        )
    findings = list(state.findings or [])
    counts = {severity: 0 for severity in reversed(SEVERITIES)}
    for finding in findings:
        if not finding.get("out_of_scope"):  # counted as SARIF and the gate see them
            counts[finding["severity"]] += 1
    return {
        "schema": SCHEMA_ID,
        "id": state.id,
        "subject": plan["subject"],
        "status": state.status,
        "simulated": bool(plan.get("simulated")),
        "diff_ref": plan.get("diff_ref"),
        "files": list(plan.get("files") or []),
        "gate": {
            "fail_on": plan.get("fail_on"),
            "rules": gate_rules(None, plan.get("gate") or {}),
            "blocking": list(state.blocking),
            # A review that read nothing (failed), or has not ended, passed no gate: a script
            # that reads only `passed` must not take a failed review for a clean one.
            "passed": not state.blocking and state.status in ("completed", "degraded"),
        },
        "seed": state.seed,
        "started_at": state.started_at,
        "finished_at": state.finished_at,
        "duration_s": round(state.duration_s, 1),
        "reviewers": reviewers,
        "answered": sum(1 for r in reviewers if r["review"] == "ok"),
        "findings": findings,
        "counts": counts,
        "calls": [
            {
                "reviewer": c.seat,
                "phase": c.phase,
                "round": c.round,
                "status": c.status,
                "latency_s": round(c.latency_s, 2),
                "attempts": c.attempts,
                "served_model": c.served_model,
                "served_models": list(c.served_models),
                "started_at": c.started_at,
                "spans": [list(span) for span in c.spans],
                "files": {"prompt": c.prompt_file, "response": c.response_file},
                "reason": c.reason,
                "injection": c.injection,
            }
            for c in calls
        ],
        "context": {
            "files": state.context.get("files", []),
            "technical_context": list(state.technical),
            **({"diff": state.context["diff"]} if "diff" in state.context else {}),
        },
        "usage": run_usage(usage_by_seat),
        "injection": injection_summary(
            calls, plan.get("on_injection", "warn"), [r["name"] for r in plan["reviewers"]]
        ),
        "warnings": list(state.warnings),
        "scratchpad": scratchpad,
        "exit_code": state.exit_code if state.exit_code is not None else 0,
        "error": state.error,
    }


def _sat_out(sat_out: dict[str, str], phase: str) -> str | None:
    """Why a reviewer sat a phase out (`busy`: still answering its review), if it did."""
    return f"busy: {sat_out[phase]}" if phase in sat_out else None


def _part(read: bool, failed: bool, asked: bool) -> str:
    """A reviewer's review or cross-check: ok, failed, pending (asked, no answer yet) or
    skipped (never asked: nothing to check, or its review failed)."""
    if read:
        return "ok"
    if failed:
        return "failed"
    return "pending" if asked else "skipped"
