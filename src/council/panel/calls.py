"""One call of a seat's CLI, from an `Ask` to a `Reply`: the path every model call of a run
takes, a seat's and the lead's own (a debate's DECISION and convergence check), so every call
record has one shape."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from council.adapters.base import Adapter, Status, Tool
from council.context.guard import ProjectGuard, Seen
from council.panel.messages import Ask, Reply
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from council.runner.confine import SUITE_ENV
from council.runner.environment import adapter_env
from council.runner.warm import WarmWorker
from council.safetext import clean
from council.words import truncate

BLIND_GRACE_S = 0.1
HEAD_START_S = 2.0
# Test-only (counts under COUNCIL_TEST_SUITE alone): another grace for a blind take, so that
# tests whose subject is not the blind take are not at the mercy of a busy machine's timing.
BLIND_GRACE_ENV = "COUNCIL_TEST_BLIND_GRACE_S"


def blind_grace_s() -> float:
    """The grace of a blind take still running when the PROPOSAL is in."""
    if os.environ.get(SUITE_ENV) == "1" and (value := os.environ.get(BLIND_GRACE_ENV)):
        return float(value)
    return BLIND_GRACE_S


@dataclass(frozen=True)
class Tuning:
    """Knobs tests and benchmarks turn; users get the protocol's defaults."""

    policy: RetryPolicy | None = None
    grace_s: float = 3.0  # between SIGTERM and SIGKILL
    environ: Mapping[str, str] | None = None  # the environment CLIs are allow-listed from
    # How long a blind take still running when the PROPOSAL is in may take to finish before
    # it is cancelled (docs/spec/protocol.md section 3, row 3b).
    blind_grace_s: float = field(default_factory=lambda: blind_grace_s())
    # The most the other seats (and the lead's probe) wait for the first seat's READY before
    # they start (docs/spec/protocol.md section 3, "READY handshake"); 0: all start at once.
    head_start_s: float = HEAD_START_S


@dataclass(frozen=True)
class CallSite:
    """Where and how one seat's calls run."""

    seat: str
    adapter: Adapter
    tool: Tool
    record_dir: Path
    room: Path
    soft_timeout_s: float
    hard_timeout_factor: float
    model: str | None = None
    effort: str | None = None
    tmp_dir: Path | None = None  # the seat's TMPDIR (None: one per call)
    guard: ProjectGuard | None = None  # checks the user's project around each call
    warm: WarmWorker | None = None  # the seat's warm worker (None: every call spawns)


def billing_of(adapter: Adapter, tuning: Tuning) -> dict[str, str]:
    """Who pays for `adapter`'s calls in this run (`Adapter.billing`), judged from the very
    environment its CLI gets: a metered API key, its own login, or unknown."""
    environ = tuning.environ if tuning.environ is not None else os.environ
    home = Path(environ.get("HOME") or Path.home())
    found = adapter.billing(adapter_env(adapter, environ), home)
    return {"mode": found.mode, "source": found.source, "text": found.text}


async def call_cli(site: CallSite, ask: Ask, tuning: Tuning) -> Reply:
    soft = site.soft_timeout_s
    files = CallFiles(site.record_dir, ask.stem)
    watch = site.guard.watch(site.seat) if site.guard is not None else _unwatched()
    async with watch as seen:
        outcome = await run_call(
            site.adapter,
            site.tool,
            ask.prompt,
            room=site.room,
            files=files,
            timeouts=Timeouts(soft, soft * site.hard_timeout_factor, tuning.grace_s),
            policy=tuning.policy,
            model=site.model,
            effort=site.effort,
            lean_prompt=ask.lean_prompt,
            environ=tuning.environ,
            tmp_dir=site.tmp_dir,
            warm=site.warm,
        )
    last = outcome.attempts[-1] if outcome.attempts else None
    # What a CLI printed is untrusted: no control sequence of it reaches a terminal, a record
    # meant for reading or another prompt (the response file keeps the raw bytes).
    answer, detail = clean(outcome.text), clean(outcome.detail)
    served = served_names(outcome.served)
    common = {
        "stem": ask.stem,
        "cli": site.adapter.display_name,
        "status": outcome.status.value,
        "model": site.model or site.adapter.settings.model,
        "latency_s": round(outcome.latency_s, 2),
        "attempts": len(outcome.attempts),
        "exit_code": outcome.exit_code,
        "detail": detail,
        "exceeded_soft": outcome.exceeded_soft,
        "prompt_file": files.prompt.name,
        "response_file": last.response_file.name if last else "",
        "argv": tuple(mask_argv(last.argv)) if last else (),
        "started_at": round(outcome.started_at, 3),
        "spans": tuple((s.start_s, round(s.duration_s, 3), s.status) for s in outcome.spans),
        "soft_s": soft,
        "hard_s": soft * site.hard_timeout_factor,
        "usage": asdict(outcome.usage) if outcome.usage is not None else None,
        "served_model": served[0] if served else None,
        "served_models": served,
        "project_changes": tuple(seen.paths),
        "project_warning": seen.warning(site.seat),
    }
    if outcome.status is not Status.OK:
        notice = f"{site.seat} {outcome.status.value}: {detail}"
        return Reply(text=notice, stderr_tail=clean(outcome.stderr_tail), **common)
    if ask.inspect is not None:
        common |= dict(ask.inspect(answer))
    if ask.limit is None:
        words = len(answer.split())
        return Reply(
            text=answer, words=words, original_words=words + outcome.hidden_words, **common
        )
    # A long answer's middle is on disk only: its words are counted, not read again.
    cut = truncate(answer, ask.limit, outcome.hidden_words)
    return Reply(
        text=cut.text,
        words=cut.words,
        truncated=cut.truncated,
        original_words=cut.original_words,
        **common,
    )


@asynccontextmanager
async def _unwatched() -> AsyncIterator[Seen]:
    yield Seen()


SERVED_NAME_CHARS = 120


def served_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """Model names a CLI printed, fit to record and show: one line each, no control
    sequence, at most `SERVED_NAME_CHARS` characters, no duplicate, the order kept."""
    shown: list[str] = []
    for name in names:
        one = " ".join(clean(name).split())[:SERVED_NAME_CHARS]
        if one and one not in shown:
            shown.append(one)
    return tuple(shown)


_SECRET_FLAG = re.compile(r"(key|token|secret|password|passwd|auth)", re.IGNORECASE)


def mask_argv(argv: tuple[str, ...]) -> list[str]:
    """argv fit to show: a prompt passed as an argument is abbreviated, and the value of a
    flag that names a key, token, secret or password is masked."""
    shown: list[str] = []
    for arg in argv:
        previous = shown[-1] if shown else ""
        if previous.startswith("-") and "=" not in previous and _SECRET_FLAG.search(previous):
            shown.append("****")
        elif "=" in arg and arg.startswith("-") and _SECRET_FLAG.search(arg.split("=", 1)[0]):
            shown.append(arg.split("=", 1)[0] + "=****")
        elif len(arg) > 200 or "\n" in arg:
            shown.append(f"<prompt: {len(arg)} chars>")
        else:
            shown.append(arg)
    return shown
