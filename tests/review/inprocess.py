"""A review's lead run by hand, in this process, with no CLI: the record, plan and context
`council review` would make (`council.panel.run.prepare`), a `ReviewLead` over them, and the
answers a test makes up handed to it as the seats would (`answer`). The lead reads, merges
and gates them; `finish` writes the result files and gives the exit code, as a run ends."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from council.config import parse_config
from council.context.roomdir import RoomDir
from council.errors import CouncilError
from council.panel.contribution import Contribution
from council.panel.run import Prepared, Run, finish, prepare
from council.progress import Progress
from council.review.flags import ReviewFlags
from council.review.lead import ReviewLead, run_review
from council.review.protocol import REVIEW
from council.review.state import ReviewState


@dataclass
class Harness:
    ready: Prepared
    lead: ReviewLead
    progress: io.StringIO
    cwd: Path
    calls: int = field(default=0)
    error: CouncilError | None = None

    @property
    def state(self) -> ReviewState:
        return self.ready.state  # type: ignore[return-value]

    def answer(
        self, seat: str, phase: str, text: str, status: str = "ok", **more: Any
    ) -> str | None:
        """Hand the lead `seat`'s answer to `phase` (REVIEW, CROSS_CHECK or a repair) as a
        finished call; what `_take` says (the problem of an unreadable first answer)."""
        self.calls += 1
        base = phase.removesuffix("_REPAIR")
        stem = f"{seat}-r{1 if base == 'REVIEW' else 2}" + ("-repair" if phase != base else "")
        plan = next(r for r in self.ready.plan.reviewers if r.name == seat)
        call = Contribution(
            stem=stem, seat=seat, role="reviewer", phase=phase,
            round=1 if base == "REVIEW" else 2, status=status, text=text, cli=plan.cli, **more,
        )  # fmt: skip
        self.state.store(call)
        return asyncio.run(self.lead._take(call))

    def show(self, checker: str) -> list[str]:
        """The cross-check list `checker` would be shown (and is recorded as shown)."""
        shown = self.lead._shuffled_for(checker)
        self.state.shown[checker] = shown
        return shown

    def merge(self) -> CouncilError | None:
        try:
            asyncio.run(self.lead.merge())
        except CouncilError as error:
            return error
        return None

    def finish(self, error: CouncilError | None = None) -> Run:
        return finish(REVIEW, self.ready.record, self.state, self.cwd, error)

    def record_file(self, name: str) -> Path:
        return self.ready.record.file(name)


# What a made-up reviewer answers: (seat, phase, the prompt's values) -> its reply's text, or
# (status, text) for a call that did not end ok.
Script = Callable[[str, str, dict[str, Any]], "str | tuple[str, str]"]


class ScriptedDispatch:
    """The seats' side of a run, made up: every ask is answered at once by `script`, in
    order; each prompt file holds its ACTION line (a repair quotes the task from it)."""

    def __init__(self, harness: Harness, script: Script) -> None:
        self.harness = harness
        self.script = script
        self.asked: list[tuple[str, str, dict[str, Any]]] = []

    @asynccontextmanager
    async def seated(self) -> AsyncIterator[None]:
        yield

    async def ask(self, seat: Any, phase: str, round_no: int, template: str, limit: int, *,
                  stem: str | None = None, whole: bool = False, once_free: Any = None,
                  **values: Any) -> Contribution:  # fmt: skip
        stem = stem or f"{seat.name}-r{round_no}"
        self.asked.append((seat.name, phase, {**values, "limit": limit}))
        record = self.harness.ready.record
        prompt = f"{stem}-prompt.md"
        record.write_text(prompt, f"IMPORTANT: header\n\nACTION: {phase}\nthe task of {stem}\n")
        said = self.script(seat.name, phase, values)
        status, text = said if isinstance(said, tuple) else ("ok", said)
        call = Contribution(
            stem=stem, seat=seat.name, role="reviewer", phase=phase, round=round_no,
            status=status, text=text, cli=seat.cli, prompt_file=prompt, attempts=1,
            detail="" if status == "ok" else f"{status} after 5 s",
        )  # fmt: skip
        self.harness.state.store(call)
        return call

    async def gather(self, asked: list[Contribution], *, progressive: bool) -> list[Contribution]:
        return list(asked)

    def busy(self, seat: Any) -> bool:
        return False

    def seen(self, late: Contribution) -> None:
        pass

    def take_unseen_late(self) -> list[Contribution]:
        return []

    async def wait_for_stragglers(self) -> None:
        pass


def run_scripted(harness: Harness, script: Script) -> ScriptedDispatch:
    """The whole review (REVIEW, CROSS_CHECK, settle, MERGE) on scripted answers, every
    seat READY; MERGE's error, if any, is the harness's `error`."""
    dispatch = ScriptedDispatch(harness, script)
    harness.lead.dispatch = dispatch  # type: ignore[assignment]
    for seat in harness.ready.plan.reviewers:
        harness.lead.roster.ready[seat.name] = None  # type: ignore[assignment]
    try:
        asyncio.run(run_review(harness.lead))
    except CouncilError as error:
        harness.error = error
    return dispatch


@contextmanager
def review_by_hand(
    root: Path, *reviewers: str, config: str = "", **flags: Any
) -> Iterator[Harness]:
    """A review of `service.py` under `root` (made by the test) by `reviewers` on the
    simulator; nothing is asked of them: the test answers for them."""
    if config:
        (root / "council.yaml").write_text(config)
    values: dict[str, Any] = {"files": ("service.py",), "sim": True}
    values["reviewers"] = reviewers or None
    values.update(flags)
    progress = io.StringIO()
    ready = prepare(
        REVIEW,
        ReviewFlags(**values),
        parse_config({}),
        Progress(progress, live=False),
        cwd=root,
    )
    (root.parent / "rooms").mkdir(mode=0o700, exist_ok=True)
    rooms = RoomDir(ready.record.id, base=root.parent / "rooms")
    try:
        lead = ReviewLead(
            ready.plan, ready.context, ready.record, ready.state,
            Progress(progress, live=False), parse_config({}), rooms=rooms,
        )  # fmt: skip
        for seat in ready.plan.reviewers:  # as the roster records a seat that started
            ready.state.seats[seat.name] = {"status": "ready", "cli": seat.cli}
        yield Harness(ready, lead, progress, root)
    finally:
        ready.lock.release()
        rooms.remove()


def findings(*items: dict[str, Any]) -> str:
    return json.dumps({"findings": list(items)})


def verdicts(**by_id: str) -> str:
    return json.dumps(
        {"verdicts": [{"id": i, "verdict": v, "reason": f"{v}: {i}"} for i, v in by_id.items()]}
    )
