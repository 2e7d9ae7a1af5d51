"""The check's lead: every seat answers the question once, blind and in parallel, with the
same prompt (`prompts/check.md.j2`: the isolation header, the question, the technical context,
the files, the options), and nothing else. Plain Python: it calls no model of its own; the
answers are grouped by a rule when the result is built (`positions.py`).

A seat that does not answer within its hard limit is recorded as failed, like any call; the
check goes on with the others. None answering is exit 3, as a review none of whose reviewers
answered."""

from __future__ import annotations

from typing import Any

from council.check.plan import CheckPlan
from council.check.positions import read_stance
from council.check.state import PHASE, CheckState
from council.config import Config
from council.context import RunContext, files_block
from council.context.fences import Fences
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.errors import NoUsableCliError
from council.panel.bus import Bus
from council.panel.calls import Tuning
from council.panel.dispatch import Dispatch
from council.panel.journal import Journal
from council.panel.roster import Roster
from council.progress import Progress
from council.runs.record import Record

TEMPLATE = "check"


class CheckLead:
    def __init__(
        self,
        plan: CheckPlan,
        context: RunContext,
        record: Record,
        state: CheckState,
        progress: Progress,
        config: Config,
        *,
        tuning: Tuning | None = None,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
    ) -> None:
        self.plan, self.state = plan, state
        self.fences = Fences.from_json(state.fences)
        state.fences = self.fences.to_json()
        bus = Bus(record.append_transcript, first_seq=len(record.transcript()) + 1)
        self.journal = Journal(record, state, progress, bus)
        self.roster = Roster(
            plan.seats,
            plan,
            context,
            config,
            bus,
            self.journal,
            tuning or Tuning(),
            rooms,
            guard,
            first_template=TEMPLATE,
        )
        self.files = files_block(context, self.fences)
        self.dispatch = Dispatch(
            self.roster, self.journal, self._prompt_values, watch=self.fences.inspect
        )

    def _prompt_values(self) -> dict[str, Any]:
        """What the one prompt is rendered with: the same for every seat, byte for byte (no
        role, no label: a seat's role matters only once the check is continued as a debate)."""
        return {
            "question": self.plan.question,
            "options": self.plan.options,
            "technical": self.state.technical,
            "files": self.files,
            "fences": self.fences,
        }


async def run_check(lead: CheckLead) -> None:
    """PARSE + CONTEXT are done before the record exists (bad input leaves no record)."""
    journal, dispatch, roster, state = lead.journal, lead.dispatch, lead.roster, lead.state
    async with dispatch.seated():  # SETUP + READY; SHUTDOWN on the way out, whatever happens
        await journal.enter(PHASE, 1)
        # Whole: the closing POSITION line must survive, and the answer is short anyway.
        asks = [
            await dispatch.ask(seat, PHASE, 1, TEMPLATE, lead.plan.limit, whole=True)
            for seat in roster.seated(lead.plan.seats)
        ]
        answers = await dispatch.gather(asks, progressive=False)
    if not any(answer.answered for answer in answers):
        state.status = "failed"
        journal.save()
        raise NoUsableCliError(
            f"no seat answered the check; see {state.id}'s record, fix the CLIs (council "
            f"doctor --probe), then `council resume {state.id}`"
        )
    # Degraded: a seat is missing from the positions (it failed, or wrote no POSITION line).
    everyone = len(answers) == len(lead.plan.seats) and all(
        a.answered and read_stance(a.text) for a in answers
    )
    state.status = "completed" if everyone else "degraded"
    journal.save()
