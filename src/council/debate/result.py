"""The debate's result: `result.json` (schema `council.result/v1`, shipped with the package)
and `decision.md`, both built from the state alone so `council show` and resume agree."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from council.context.fences import injection_summary
from council.debate.state import DebateState
from council.panel.budget import dollars, spend_of
from council.panel.contribution import participant, run_usage, served_by, total_usage

SCHEMA_ID = "council.result/v1"
SCHEMA_FILE = Path(__file__).parents[1] / "schema" / "result.schema.json"


@cache
def result_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def build_result(state: DebateState, scratchpad: str) -> dict[str, Any]:
    plan = state.plan
    contributions = state.contributions()
    calls = state.every_call()
    seats = []
    usage_by_seat: list[tuple[str, list[Any]]] = []
    seat_names = [plan["advocate"], plan["critic"], *plan["proxies"]]
    if plan["lead"]:
        seat_names.append(plan["lead"])
    for seat_plan in seat_names:
        name = seat_plan["name"]
        info = state.seats.get(name, {})
        mine = [c for c in calls if c.seat == name and not c.skipped]  # the calls it made
        usage_by_seat.append((name, [c.usage for c in mine]))
        failed = [c.status for c in mine if not c.answered]
        if info.get("status") == "dropped":
            status = "dropped"
        elif failed:
            status = failed[-1]
        else:
            status = "ok" if mine else info.get("status", "ready")
        seats.append(
            {
                "name": name,
                "role": seat_plan["role"],
                "cli": info.get("cli", seat_plan["cli"]),
                # The model asked for: the seat's own, else its CLI's configured one.
                "model": seat_plan["model"] or next((c.model for c in mine if c.model), None),
                "effort": seat_plan["effort"],
                "version": info.get("version"),
                "status": status,
                "calls": len(mine),
                "retries": sum(max(0, c.attempts - 1) for c in mine),
                "latency_s": round(sum(c.latency_s for c in mine), 1),
                "words_out": sum(c.words for c in mine if c.role != "lead"),
                "usage": total_usage(c.usage for c in mine),
                "billing": info.get("billing"),
                "served_models": served_by(mine),
                "worker": info.get("worker"),
            }
        )
    decision_prompt = None
    if state.decision_prompt_file:
        path = Path(scratchpad) / state.decision_prompt_file
        decision_prompt = path.read_text(encoding="utf-8") if path.is_file() else None
    return {
        "schema": SCHEMA_ID,
        "id": state.id,
        "question": state.question,
        "status": state.status,
        "simulated": bool(plan.get("simulated")),
        "rounds": {
            "requested": plan["rounds"],
            "run": state.rounds_run,
            "stopped_early": state.stopped_early,
        },
        "started_at": state.started_at,
        "finished_at": state.finished_at,
        "duration_s": round(state.duration_s, 1),
        "seats": seats,
        "contributions": [
            {
                "seat": c.seat,
                "phase": c.phase,
                "round": c.round,
                "status": c.status,
                "text": c.text,
                "words": c.words,
                "truncated": c.truncated,
                "original_words": c.original_words,
                "latency_s": round(c.latency_s, 1),
                "attempts": c.attempts,
                "served_model": c.served_model,
                "served_models": list(c.served_models),
                "files": {"prompt": c.prompt_file, "response": c.response_file},
                "reason": c.reason,
                "injection": c.injection,
                "copied_from": c.copied_from,
            }
            for c in contributions
        ],
        "decision": state.decision,
        "decision_prompt": decision_prompt,
        "context": {
            "files": state.context.get("files", []),
            "technical_context": list(state.technical),
        },
        "usage": run_usage(usage_by_seat),
        "budget": _budget(plan.get("max_cost"), calls, state.budget_stop),
        "injection": injection_summary(
            calls,
            plan.get("on_injection", "warn"),
            [s["name"] for s in (plan["critic"], *plan["proxies"])],  # the voters
        ),
        "warnings": list(state.warnings),
        "scratchpad": scratchpad,
        "exit_code": state.exit_code if state.exit_code is not None else 0,
    }


def _votes(decision: Mapping[str, Any]) -> list[str]:
    """The seats' own votes, the tally, and a minority report for every `disagree`; a vote
    left out of the tally (`debate.on_injection: exclude`) says so and why."""
    votes = decision.get("votes") or {}
    reasons = decision.get("vote_reasons") or {}
    excluded = decision.get("excluded_votes") or {}
    lines = ["", "## Votes", "| seat | vote | reason |", "|---|---|---|"]
    for seat, vote in votes.items():
        shown = vote or "no vote"
        if seat in excluded:
            shown += f" (not counted: {excluded[seat]})"
        lines.append(f"| {seat} | {_cell(shown)} | {_cell(reasons.get(seat, ''))} |")
    if tally := decision.get("tally"):
        left_out = f", {tally['excluded']} not counted" if tally.get("excluded") else ""
        per = f" (one vote per {tally['distinct']})" if tally.get("distinct") else ""
        lines += [
            "",
            f"Tally{per}: {tally['agree']} agree, {tally['revise']} revise, "
            f"{tally['disagree']} disagree, {tally['no_vote']} no vote{left_out}",
        ]
        for group in tally.get("groups") or []:
            cast = [votes.get(seat) or "no vote" for seat in group["seats"]]
            lines.append(
                f"- {group['group']}: {', '.join(group['seats'])} ({', '.join(cast)}): "
                f"one vote, {group['vote'] or 'no vote'}"
            )
    if minority := decision.get("minority"):
        lines += ["", "## Minority report"]
        for dissent in minority:
            lines += ["", f"**{dissent['seat']}** voted disagree: {dissent['reason']}", ""]
            lines.append("> " + dissent["excerpt"])
    return lines


def _usage_text(usage: Mapping[str, Any] | None) -> str:
    """` · 18,234 tokens in, 912 out, $0.41`, with only what the CLIs reported, and the
    seats the total leaves out."""
    if not usage:
        return ""
    parts = []
    if usage.get("input_tokens") is not None:
        parts.append(f"{usage['input_tokens']:,} tokens in")
    if usage.get("output_tokens") is not None:
        parts.append(f"{usage['output_tokens']:,} out")
    if usage.get("cost_usd") is not None:
        cost = usage["cost_usd"]
        parts.append(dollars(cost))
    if not parts:
        return ""
    # A total that leaves seats out is a floor: say whose calls it does not count.
    missing = usage.get("unreported_seats") or []
    gap = f" (not counted: {', '.join(missing)}, which reported none)" if missing else ""
    return " · " + ", ".join(parts) + gap


def _budget(limit: float | None, calls: list[Any], stop: str | None) -> dict[str, Any]:
    """The cost cap (`--max-cost`), what was reported against it, whether it stopped the run,
    and the seats whose CLI prices nothing (the cap cannot see what they spend)."""
    spend = spend_of(calls)
    return {
        "max_cost_usd": limit,
        "spent_usd": spend.spent_usd,
        "stopped": stop,
        "unpriced_seats": spend.unpriced_seats,
    }


def _budget_text(budget: Mapping[str, Any]) -> str:
    """`Cost cap: $0.50, $0.62 reported; stopped before REBUTTAL; unpriced: critic`."""
    text = f"Cost cap: {dollars(budget['max_cost_usd'])}, {dollars(budget['spent_usd'])} reported"
    if budget["stopped"]:
        text += f"; {budget['stopped']}"
    if budget["unpriced_seats"]:
        text += f"; unpriced (their cost is not counted): {', '.join(budget['unpriced_seats'])}"
    return text


def _billing_text(seats: list[dict[str, Any]]) -> str:
    """`Billing: advocate, lead: metered API key (ANTHROPIC_API_KEY); critic: its own login
    (...)`: who pays for each seat's calls; nothing for a run that bills nobody (--sim)."""
    by_text: dict[str, list[str]] = {}
    for seat in seats:
        billing = seat.get("billing")
        if billing and billing["mode"] != "none":
            by_text.setdefault(billing["text"], []).append(seat["name"])
    if not by_text:
        return ""
    return "Billing: " + "; ".join(f"{', '.join(names)}: {text}" for text, names in by_text.items())


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _flag(injection: Mapping[str, Any] | None) -> str:
    """What a contribution's heading says about an injection: suspect with the evidence, or
    the injection it reported."""
    if not injection:
        return ""
    if injection.get("suspect"):
        return " · suspect: " + " and ".join(injection["evidence"])
    return " · reported an injection"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(result: dict[str, Any]) -> str:
    decision = result["decision"] or {}
    simulated = " (SIMULATED)" if result["simulated"] else ""
    # A run that never decided (interrupted, failed, still going) shows no DECISION at all:
    # "Blocking concerns: None - proceed" under a DECISION heading would read as a go-ahead.
    undecided = result["decision"] is None and not result.get("decision_prompt")
    heading = "NO DECISION" if undecided else "DECISION"
    lines = [f"# {heading}{simulated}: {result['question']}"]
    lines.append("Participants: " + ", ".join(participant(s) for s in result["seats"]))
    confidence = decision.get("confidence")
    status = result["status"]
    if decision.get("unchallenged"):
        status += " (unchallenged)"
    lines.append(
        f"Status: {status} · rounds {result['rounds']['run']}/{result['rounds']['requested']}"
        f" · {_duration(result['duration_s'])} · confidence "
        + (f"{confidence}/100" if confidence is not None else "n/a")
        + _usage_text(result.get("usage"))
    )
    if (budget := result.get("budget")) and budget["max_cost_usd"] is not None:
        lines.append(_budget_text(budget))
    if billed := _billing_text(result["seats"]):
        lines.append(billed)
    for warning in result["warnings"]:
        lines.append(f"> warning: {warning}")
    if undecided:
        ended = {"running": "is still going", "interrupted": "was interrupted"}.get(
            result["status"], f"ended {result['status']}"
        )
        lines += ["", f"The run {ended} before a DECISION: nothing here is a recommendation."]
        if result["status"] != "running":
            lines.append(f"Continue it with: council resume {result['id']}")
    elif result.get("decision_prompt"):
        lines += [
            "",
            "## Decision prompt (for the calling agent)",
            "No DECISION was synthesized (`--lead caller`): answer this prompt to write it.",
            "",
            "````markdown",
            result["decision_prompt"].rstrip(),
            "````",
        ]
    else:
        lines += ["", "## Recommendation", decision.get("recommendation") or "(none)"]
        lines += ["", "## Consensus"] + [f"- {p}" for p in decision.get("consensus") or ["(none)"]]
        lines += ["", "## Disagreements and rulings"]
        if decision.get("disagreements"):
            lines += ["| point | ruling | reason |", "|---|---|---|"]
            for d in decision["disagreements"]:
                loop = " (loop)" if d.get("loop") else ""
                lines.append(
                    f"| {_cell(d['point'])}{loop} | {_cell(d['ruling'])} | {_cell(d['reason'])} |"
                )
        else:
            lines.append("(none)")
        lines += ["", "## Accepted trade-offs"] + [
            f"- {t}" for t in decision.get("tradeoffs") or ["(none)"]
        ]
        if decision.get("synthesized") is False:
            concerns = ["Unknown: no DECISION could be synthesized; read the debate record below"]
        elif decision.get("blocking_concerns"):
            concerns = [f"- {b}" for b in decision["blocking_concerns"]]
        else:
            concerns = ["None - proceed"]
        lines += ["", "## Blocking concerns", *concerns]
        step = decision.get("next_step") or {}
        lines += [
            "",
            "## Next step",
            f"- Action: {step.get('action') or '(none)'}",
            f"- Verify: `{step.get('verify_command')}`"
            if step.get("verify_command")
            else "- Verify: (none)",
            f"- Done when: {step.get('done_criterion') or '(none)'}",
        ]
        lines += _votes(decision)
    lines += ["", "## Debate record"]
    current = None
    for c in result["contributions"]:
        if c["round"] != current:
            current = c["round"]
            lines += ["", f"### Round {current}"]
        cut = f", truncated from {c['original_words']} words" if c["truncated"] else ""
        lines += [
            "",
            f"**{c['seat']}**, {c['phase']} ({c['status']}, {c['words']} words{cut})"
            + _flag(c.get("injection")),
            "",
            c["text"],
        ]
    return "\n".join(lines).rstrip() + "\n"
