"""A check's state made by hand, as a finished `council check` leaves it in `state.json`: the
seats of a debate (the advocate, the critic, proxies), each seat's one CHECK call with the text
it answered. Tests build results, Markdown and exit codes from it in-process, without a run."""

from __future__ import annotations

from typing import Any

from council.check.state import CheckState
from council.panel.contribution import Contribution

CHECK_ID = "check-20261128-143005-k3x9"
QUESTION = "Redis or Postgres for sessions?"
LABELS = {
    "advocate": "the advocate",
    "critic": "Seat A (critic)",
    "proxy-gemini": "Seat B (proxy)",
    "proxy-claude": "Seat C (proxy)",
}
CLIS = {"advocate": "claude", "critic": "codex", "proxy-gemini": "gemini", "proxy-claude": "claude"}
SUSPECT = {"suspect": True, "evidence": ["echoed the canary"], "reported": []}


def seat_plan(name: str, model: str | None = None) -> dict[str, Any]:
    role = name.split("-")[0]
    return {"name": name, "role": role, "cli": CLIS[name], "model": model, "effort": None}


def answer(position: str | None, *, body: str = "I would pick it.") -> str:
    """A seat's answer: its reasons, then its closing POSITION line (none when None)."""
    return body if position is None else f"{body}\nPOSITION: {position}"


def made_state(
    answers: dict[str, str | None],
    *,
    options: tuple[str, ...] = (),
    on_injection: str = "warn",
    status: str = "completed",
    failed: tuple[str, ...] = (),
    injection: dict[str, dict[str, Any]] | None = None,
    proxies: tuple[str, ...] = ("proxy-gemini",),
) -> CheckState:
    """A check whose seats said `answers` (seat -> POSITION, None: no POSITION line; a seat
    left out never answered); `failed` seats' calls ended `error`."""
    plan = {
        "question": QUESTION,
        "options": list(options),
        "on_injection": on_injection,
        "simulated": False,
        "advocate": seat_plan("advocate"),
        "critic": seat_plan("critic"),
        "proxies": [seat_plan(p) for p in proxies],
        "files": [],
        "limit": 150,
    }
    names = ["advocate", "critic", *proxies]
    state = CheckState(
        id=CHECK_ID,
        question=QUESTION,
        plan=plan,
        status=status,
        phase="CHECK",
        round=1,
        started_at="2026-11-28T14:30:05+00:00",
        finished_at="2026-11-28T14:30:49+00:00",
        duration_s=44.04,
        labels={n: LABELS[n] for n in names},
        seats={n: {"role": seat_plan(n)["role"], "cli": CLIS[n], "status": "ready"} for n in names},
    )
    for name in names:
        if name not in answers and name not in failed:
            continue
        bad = name in failed
        state.store(
            Contribution(
                stem=f"{name}-r1",
                seat=name,
                role=seat_plan(name)["role"],
                phase="CHECK",
                round=1,
                status="error" if bad else "ok",
                text="(no answer: error)" if bad else answer(answers.get(name)),
                cli=CLIS[name],
                words=0 if bad else 5,
                latency_s=12.34,
                prompt_file=f"{name}-r1-prompt.md",
                response_file=f"{name}-r1-response.md",
                injection=(injection or {}).get(name),
            )
        )
    return state
