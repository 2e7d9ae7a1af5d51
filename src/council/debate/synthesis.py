"""The lead's own model calls (docs/spec/protocol.md section 7): the DECISION with its one
repair, and the convergence check before an extra cycle. They take the same call path as a
seat's calls (`council.panel.calls`) and are stored as contributions of the `lead` seat, so
`council resume` reuses a DECISION already written.
"""

from __future__ import annotations

from typing import Any

from council.adapters import adapter_for
from council.context.fences import Fences
from council.debate.decision import (
    DecisionUnreadable,
    parse_convergence,
    parse_decision,
    raw_text_decision,
)
from council.debate.plan import DebatePlan
from council.debate.roster import DebateRoster
from council.debate.state import Contribution
from council.panel.calls import CallSite, Tuning, call_cli
from council.panel.journal import Journal
from council.panel.messages import Ask
from council.panel.seats import soft_timeout_of
from council.prompts import render

DECISION_WORDS = 700
CONVERGENCE_WORDS = 150


class Synthesis:
    def __init__(
        self, roster: DebateRoster, journal: Journal, tuning: Tuning, fences: Fences
    ) -> None:
        self.roster = roster
        self.journal = journal
        self.tuning = tuning
        self.fences = fences

    @property
    def plan(self) -> DebatePlan:
        return self.roster.plan

    async def _call(self, stem: str, phase: str, round_no: int, prompt: str) -> Contribution:
        """One call of the lead's CLI, or the answer a previous run already stored."""
        stored = self.journal.state.contribution(stem)
        if stored is not None and stored.status == "ok":
            return stored
        seat = self.plan.lead
        assert seat is not None
        tool = await self.roster.lead_tool_ready()  # resolved beside the seats, long since
        adapter = adapter_for(seat.cli, self.roster.config.clis)
        room = self.roster.build_room("lead")
        site = CallSite(
            seat=seat.name,
            adapter=adapter,
            tool=tool,
            record_dir=self.journal.record.path,
            room=room,
            soft_timeout_s=soft_timeout_of(seat, adapter),
            hard_timeout_factor=self.plan.hard_timeout_factor,
            model=seat.model,
            effort=seat.effort,
            tmp_dir=self.roster.rooms.tmp("lead"),
            guard=self.roster.guard,
            warm=await self.roster.lead_worker_ready(),
        )
        await self.journal.note(f"lead calls {seat.cli}", stem=stem)
        self.journal.progress.info(f"{phase} the lead ({seat.cli}) is writing it")
        lean_prompt = self.roster.lean_prompt()
        # The lead reads the debate: it is watched as the seats are.
        ask = Ask(
            prompt=prompt,
            stem=stem,
            limit=None,
            lean_prompt=lean_prompt,
            inspect=self.fences.inspect,
        )
        reply = await call_cli(site, ask, self.tuning)
        self.roster.lead_worker_used()
        contribution = Contribution.of(reply, seat, phase, round_no, reply.status)
        self.journal.project_changed(reply.project_warning)
        self.journal.store(contribution)
        await self.journal.note(f"lead {phase} {reply.status}", **reply.meta())
        return contribution

    async def converged(self, round_no: int) -> bool:
        """The convergence check before an extra cycle (rounds 4 and 5)."""
        if self.plan.lead is None:
            return False
        stem = f"lead-r{round_no}-convergence"
        stored = self.journal.state.contribution(stem)
        if stored is None or stored.status != "ok":
            await self.journal.enter("CONVERGENCE", round_no)
        prompt = render(
            "convergence",
            round=round_no,
            question=self.plan.question,
            contributions=self.journal.state.contributions(),
            labels=self.journal.state.labels or self.plan.labels(),
            limit=CONVERGENCE_WORDS,
            fences=self.fences,
        )
        answer = await self._call(stem, "CONVERGENCE", round_no, prompt)
        verdict = parse_convergence(answer.text if answer.status == "ok" else "")
        if verdict is None:
            await self.journal.warn(
                f"convergence check unreadable after round {round_no}; running the extra cycle"
            )
            return False
        converged, open_points = verdict
        self.journal.progress.info(
            f"convergence after round {round_no}: "
            + ("no open blocking disagreement" if converged else f"{len(open_points)} open")
        )
        return converged

    async def decide(self, round_no: int, prompt: str) -> tuple[Any, bool]:
        """The DECISION object and whether it was synthesized (False: the lead's call failed,
        and the object only says so)."""
        answer = await self._call("lead-decision", "DECISION", round_no, prompt)
        if answer.status != "ok":
            await self.journal.warn(f"the DECISION could not be synthesized: {answer.detail}")
            return raw_text_decision(
                f"The lead could not synthesize a DECISION ({answer.status}: "
                f"{answer.detail}). See the debate record below."
            ), False
        try:
            decision, problems = parse_decision(answer.text)
        except DecisionUnreadable as first_problem:
            repair = render(
                "repair",
                question=self.plan.question,
                previous=answer.text,
                problem=str(first_problem),
                limit=DECISION_WORDS,
                fences=self.fences,
            )
            repaired = await self._call("lead-decision-repair", "REPAIR", round_no, repair)
            try:
                decision, problems = parse_decision(repaired.text)
            except DecisionUnreadable as second_problem:
                await self.journal.warn(
                    f"the DECISION reply was not valid JSON ({second_problem}), "
                    "even after one repair: kept as raw text, confidence unknown"
                )
                return raw_text_decision(answer.text), True
        for problem in problems:
            await self.journal.warn(problem)
        return decision, True
