"""A check's result: `result.json` (schema `council.check/v1`, shipped with the package),
built from the state alone so `council show` and resume agree; the positions and the
agreement come from the answers by the rule of `positions.py`."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from council.check.positions import agreement, group, needs_human, read_stance
from council.check.state import CheckState
from council.context.fences import injection_summary
from council.panel.contribution import run_usage, served_by

SCHEMA_ID = "council.check/v1"
SCHEMA_FILE = Path(__file__).parents[1] / "schema" / "check.schema.json"


@cache
def check_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def build_result(state: CheckState, scratchpad: str) -> dict[str, Any]:
    plan = state.plan
    seat_plans = [plan["advocate"], plan["critic"], *plan["proxies"]]
    labels = state.labels
    calls = {c.seat: c for c in state.every_call()}
    options = list(plan.get("options") or ())
    # A seat's position is its vote: a suspect seat's is not counted under `exclude`.
    injection = injection_summary(
        list(calls.values()), plan.get("on_injection", "warn"), [s["name"] for s in seat_plans]
    )
    excluded = {s["seat"] for s in injection["suspects"] if s["excluded"]}
    answers = []
    stances: list[tuple[str, str]] = []
    for seat in seat_plans:
        name = seat["name"]
        call = calls.get(name)
        info = state.seats.get(name, {})
        stance = read_stance(call.text) if call is not None and call.answered else None
        if stance is not None and name not in excluded:
            stances.append((name, stance))
        if info.get("status") == "dropped":
            status = "dropped"
        else:
            status = call.status if call is not None else info.get("status", "ready")
        answers.append(
            {
                "seat": name,
                "role": seat["role"],
                "label": labels.get(name, name),
                "cli": info.get("cli", seat["cli"]),
                "model": seat["model"] or (call.model if call is not None else None),
                "status": status,
                "stance": stance,
                "counted": stance is not None and name not in excluded,
                "text": call.text if call is not None and call.answered else "",
                "words": call.words if call is not None else 0,
                "latency_s": round(call.latency_s, 1) if call is not None else 0.0,
                "served_models": served_by([call]) if call is not None else [],
                "files": {
                    "prompt": call.prompt_file if call is not None else "",
                    "response": call.response_file if call is not None else "",
                },
                "injection": call.injection if call is not None else None,
            }
        )
    ended = state.status in ("completed", "degraded")
    positions = group(stances, options)
    agreed = agreement(positions) if ended else None
    return {
        "schema": SCHEMA_ID,
        "id": state.id,
        "question": state.question,
        "options": options,
        "status": state.status,
        "simulated": bool(plan.get("simulated")),
        "agreement": agreed,
        "needs_human": needs_human(agreed) if agreed is not None else True,
        "positions": [
            {
                "stance": p.stance,
                "option": p.option,
                "seats": list(p.seats),
                "labels": [labels.get(s, s) for s in p.seats],
                "count": len(p.seats),
            }
            for p in positions
        ],
        "counted": len(stances),
        "asked": len(seat_plans),
        "answers": answers,
        "started_at": state.started_at,
        "finished_at": state.finished_at,
        "duration_s": round(state.duration_s, 1),
        "context": {
            "files": state.context.get("files", []),
            "technical_context": list(state.technical),
        },
        "usage": run_usage((c.seat, [c.usage]) for c in calls.values() if not c.skipped),
        "injection": injection,
        "warnings": list(state.warnings),
        "scratchpad": scratchpad,
        "exit_code": state.exit_code if state.exit_code is not None else 0,
    }
