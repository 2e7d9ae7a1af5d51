"""The lead: runs one debate as docs/spec/protocol.md describes it, top to bottom.

`run_debate` is the protocol; the `Lead` methods are its phases. The lead is plain Python: it
calls a model only for the DECISION and, for rounds >= 4, the convergence check
(`synthesis`). It talks to the seats only over the bus: a seat calls its CLI only when a DM
starting with `ACTION:` tells it to (`dispatch`). Who sits is the `roster`'s business; the
`journal` saves every change to `state.json` at once, so `council resume` reuses every reply
already on disk and runs only what is missing.

Choices where the spec is silent (also in the README):
- A PROPOSAL that fails stops the run with exit 3 (state saved): challenging nothing is no
  debate. A failed RESPOND, CHALLENGE or REBUTTAL is recorded and the debate goes on.
- A seat whose CLI is missing or unusable at READY is dropped at once (a restart cannot
  install it); a seat that does not answer READY in time is restarted once, then dropped.
- Votes are asked from the challengers (critic and proxies); the advocate authored the
  position the DECISION weighs.
- Before the DECISION the lead waits for stragglers still inside their hard limit, so a late
  reply can still count and a hung one is recorded as `timeout`, not lost.
- A seat has at most one ACTION in flight: `dispatch.ask` returns a straggler `Busy`, and
  `dispatch.gather` asks it once it is free if the phase still collects (its prompt gets its
  own late answer as `own_late`), else records it `skipped` (`busy`).
- Once the PROPOSAL is in, the blind takes get `Tuning.blind_grace_s` (a challenger READY
  within it is asked then); what is not in by its end is cut (`skipped`, `late`: never
  asked, or cancelled), and a resumed run with the PROPOSAL on record asks none.
- The lead's calls run on a warm worker of its CLI started once the first CHALLENGE is out;
  the seats shut down as the DECISION begins.
"""

from __future__ import annotations

from typing import Any

from council.adapters import adapter_for
from council.config import Config, DebateSettings
from council.context import Redactor, RunContext, files_block, refresh_technical_context
from council.context.fences import Fences, injection_summary, injection_warnings
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.debate.decision import find_loops, mark_loops, raw_text_decision
from council.debate.plan import DebatePlan
from council.debate.roster import DebateRoster
from council.debate.state import Contribution, DebateState
from council.debate.synthesis import DECISION_WORDS, Synthesis
from council.debate.votes import distinct_voices, group_of, tally_votes, vote_fields
from council.errors import NoUsableCliError
from council.panel.budget import BudgetSpent
from council.panel.bus import Bus
from council.panel.calls import Tuning
from council.panel.dispatch import Dispatch
from council.panel.journal import Journal
from council.progress import Progress
from council.prompts import render
from council.runs.record import Record
from council.words import first_words


async def run_debate(lead: Lead) -> None:
    """PARSE + CONTEXT are done before the record exists (bad input leaves no record)."""
    round_no = 1
    async with lead.dispatch.seated():  # SETUP + READY; SHUTDOWN on the way out, whatever happens
        try:
            await lead.proposal(round_no=1)  # PROPOSAL
            round_no = 2
            await lead.challenge_and_respond(round_no=2)  # CHALLENGE (parallel) + RESPOND
            for _ in range(lead.plan.rounds - 3):  # rounds 4 and 5: extra CHALLENGE + RESPOND
                if await lead.synthesis.converged(round_no):
                    lead.state.stopped_early = True
                    break
                round_no += 1
                lead.refresh_context(round_no - 1)  # CONTEXT REFRESH
                await lead.challenge_and_respond(round_no)
            if lead.plan.rounds >= 3:
                round_no += 1
                lead.refresh_context(round_no - 1)  # CONTEXT REFRESH
                await lead.rebuttal_and_final_summary(round_no)  # REBUTTAL || FINAL_SUMMARY
        except BudgetSpent as spent:  # --max-cost: no new phase; the DECISION from what exists
            await lead.stop_for_budget(spent)
        await lead.dispatch.wait_for_stragglers()
        await lead.decide(round_no)  # DECISION, the seats shutting down meanwhile


class Lead:
    def __init__(
        self,
        plan: DebatePlan,
        context: RunContext,
        record: Record,
        state: DebateState,
        progress: Progress,
        config: Config,
        *,
        tuning: Tuning | None = None,
        redactor: Redactor | None = None,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
    ) -> None:
        tuning = self.tuning = tuning or Tuning()
        self.context = context
        self.redactor = redactor or Redactor(plan.extra_patterns)
        self.state = state
        self.fences = Fences.from_json(state.fences)
        state.fences = self.fences.to_json()
        bus = Bus(record.append_transcript, first_seq=len(record.transcript()) + 1)
        self.journal = Journal(record, state, progress, bus)
        self.roster = DebateRoster(plan, context, config, bus, self.journal, tuning, rooms, guard)
        self.dispatch = Dispatch(
            self.roster,
            self.journal,
            self._prompt_values,
            closing=vote_fields,
            watch=self.fences.inspect,
        )
        self.synthesis = Synthesis(self.roster, self.journal, tuning, self.fences)
        self.journal.cap_cost(plan.max_cost, state.every_call)

    @property
    def plan(self) -> DebatePlan:
        return self.roster.plan

    def _prompt_values(self) -> dict[str, object]:
        """What every debate prompt is rendered with."""
        return {
            "question": self.plan.question,
            "technical": self.state.technical,
            "labels": self.labels,
            "fences": self.fences,
        }

    @property
    def labels(self) -> dict[str, str]:
        """How prompts name each seat: by role and letter, never by CLI, vendor or model."""
        return self.state.labels or self.plan.labels()

    def position(self) -> Contribution | None:
        """The advocate's latest answer: what the challengers debate."""
        advocate = self.plan.advocate.name
        mine = [c for c in self.state.contributions() if c.seat == advocate and c.answered]
        return mine[-1] if mine else None

    def round_block(self, round_no: int) -> str:
        """Built once per round and sent byte for byte to every challenger."""
        position = self.position()
        views = [
            c
            for c in self.state.contributions()
            if c.seat != self.plan.advocate.name and c.phase != "BLIND_TAKE"
        ]
        fences = self.fences
        lines = [f"## Round {round_no} context", ""]
        if position is not None:
            lines += [
                f"### Position under debate (advocate, round {position.round}, {position.phase})",
                fences.wrap("reply", f"the advocate, round {position.round}", position.text),
                "",
            ]
        lines.append("### Views already received")
        # One fence for them all: an excerpt is one line, so none can pass for another's.
        excerpts = [
            f"- {self.labels[v.seat]}, round {v.round} ({v.status}): {first_words(v.shown, 40)}"
            for v in views
        ]
        if excerpts:
            lines.append(fences.wrap("replies", "views already received", "\n".join(excerpts)))
        else:
            lines.append("(none yet)")
        return "\n".join(lines)

    def _words(self, key: str) -> int:
        # A record from before a phase existed lacks its limit: the default then.
        return int(self.plan.words.get(key) or DebateSettings().words[key])

    async def proposal(self, round_no: int) -> None:
        """PROPOSAL, with the BLIND TAKE beside it: each challenger answers the question on
        its own while the advocate proposes. A blind take is of use only before the PROPOSAL
        is in, so it never holds the debate: once it is in, the blind takes get a short grace,
        and a challenger not READY by its end is not asked, one still answering then is
        cancelled (`skipped`, `late`)."""
        await self.journal.enter("PROPOSAL", round_no)
        files = files_block(self.context, self.fences)
        asked = await self.dispatch.ask(
            self.plan.advocate,
            "PROPOSAL",
            round_no,
            "proposal",
            self._words("proposal"),
            files=files,
        )
        blind = []
        for seat in self.roster.seated(self.plan.challengers) if self.plan.blind else []:
            if isinstance(asked, Contribution):  # resumed with the PROPOSAL in: too late
                await self.dispatch.not_asked(seat, "BLIND_TAKE", round_no, "the PROPOSAL")
                continue
            extra = {"files": files} if seat.role == "critic" else {}
            blind.append(
                await self.dispatch.ask(
                    seat, "BLIND_TAKE", round_no, "blind_take", self._words("blind"), **extra
                )
            )
        (proposal,) = await self.dispatch.gather([asked], progressive=False)
        if not proposal.answered:
            self.state.status = "failed"
            self.journal.save()
            raise NoUsableCliError(
                f"the advocate ({self.plan.advocate.cli}) could not write the proposal: "
                f"{proposal.detail}; fix that, then `council resume {self.state.id}`"
            )
        await self.dispatch.cut_short(
            blind, why="the PROPOSAL was in", grace_s=self.tuning.blind_grace_s
        )

    def blind_take(self, seat: str) -> str:
        """A challenger's own first answer, for its CHALLENGE prompt ("" when it gave none)."""
        mine = [c for c in self.state.contributions() if c.seat == seat and c.phase == "BLIND_TAKE"]
        return mine[0].text if mine and mine[0].answered else ""

    async def challenge_and_respond(self, round_no: int) -> None:
        await self.journal.enter("CHALLENGE", round_no)
        block = self.round_block(round_no)
        files = files_block(self.context, self.fences)
        asks = []
        for seat in self.roster.seated(self.plan.challengers):
            if seat.role == "critic":
                template, limit, extra = "challenge_critic", "challenge", {"files": files}
            else:
                template, limit, extra = "challenge_proxy", "proxy", {}
            asks.append(
                await self.dispatch.ask(
                    seat,
                    "CHALLENGE",
                    round_no,
                    template,
                    self._words(limit),
                    vote=self.plan.rounds == 2,  # with two rounds a challenge is the last word
                    round_block=block,
                    blind=self.blind_take(seat.name) if round_no == 2 else "",
                    **extra,
                )
            )
        self.roster.warm_lead_soon()  # the CHALLENGE is out: the lead's worker starts now
        challenges = await self.dispatch.gather(asks, progressive=True)
        await self.respond(round_no, challenges)

    async def respond(self, round_no: int, challenges: list[Contribution]) -> None:
        await self.journal.enter("RESPOND", round_no)
        position = self.position()
        asked = await self.dispatch.ask(
            self.plan.advocate,
            "RESPOND",
            round_no,
            "respond",
            self._words("respond"),
            files=files_block(self.context, self.fences),
            position=position.text if position else "",
            challenges=challenges,
            late=self.dispatch.take_unseen_late(),
        )
        await self.dispatch.gather([asked], progressive=False)

    def refresh_context(self, round_no: int) -> None:
        """CONTEXT REFRESH: facts learned in round `round_no`, tagged [R<n>]."""
        texts = [c.text for c in self.state.contributions() if c.round == round_no and c.answered]
        self.state.technical = list(
            refresh_technical_context(
                self.state.technical, texts, round_no, limit=20, redactor=self.redactor
            )
        )
        self.journal.save()

    async def rebuttal_and_final_summary(self, round_no: int) -> None:
        await self.journal.enter("REBUTTAL", round_no)
        block = self.round_block(round_no)
        position = self.position()
        advocate = self.plan.advocate.name
        views = [
            c
            for c in self.state.contributions()
            if c.seat != advocate and c.answered and c.phase != "BLIND_TAKE"
        ]
        asks = [
            await self.dispatch.ask(
                self.plan.advocate,
                "FINAL_SUMMARY",
                round_no,
                "final_summary",
                self._words("final_summary"),
                position=position.text if position else "",
                views=views,
                late=self.dispatch.take_unseen_late(),
            )
        ]
        for seat in self.roster.seated(self.plan.challengers):
            asks.append(
                await self.dispatch.ask(
                    seat,
                    "REBUTTAL",
                    round_no,
                    "rebuttal",
                    self._words("rebuttal"),
                    vote=True,
                    round_block=block,
                )
            )
        await self.dispatch.gather(asks, progressive=True)

    async def decide(self, round_no: int) -> None:
        """DECISION: quorum, the seats' own votes, loops, the decision prompt (anonymous, as
        every prompt), and the lead's synthesis of it."""
        await self.journal.enter("DECISION", round_no)
        await self.roster.stop_seats()  # their workers close while the lead decides
        contributions = self.state.contributions()
        labels = self.labels
        challenges = [c for c in contributions if c.phase == "CHALLENGE" and c.answered]
        distinct = self.plan.distinct
        by_call = self._groups(challenges)
        voices = distinct_voices(challenges, by_call)
        self.state.unchallenged = voices < self.plan.quorum
        if self.state.unchallenged:
            counted = "" if by_call is None else f" from {voices} distinct {distinct}(s)"
            await self.journal.warn(
                f"only {len(challenges)} challenge(s){counted} for a quorum of "
                f"{self.plan.quorum}: the DECISION is unchallenged"
            )
        voters = [s.name for s in self.plan.challengers]
        final_phase = "REBUTTAL" if self.plan.rounds >= 3 else "CHALLENGE"
        last = {c.seat: c for c in contributions if c.phase == final_phase}
        injection = injection_summary(contributions, self.plan.on_injection, voters)
        excluded = {s["seat"]: s["reason"] for s in injection["suspects"] if s["excluded"]}
        await self.warn_injection(injection)
        groups = self._seat_groups(voters, last)
        votes, reasons, tally, minority = tally_votes(voters, last, excluded, groups)
        if groups is not None:
            tally["distinct"] = distinct
        shown_votes = [
            (
                labels[seat],
                f"{vote} (not counted: {excluded[seat]})" if seat in excluded and vote else vote,
                reasons.get(seat, ""),
            )
            for seat, vote in votes.items()
        ]
        prompt = render(
            "decision",
            round=round_no,
            question=self.plan.question,
            technical=self.state.technical,
            contributions=contributions,
            labels=labels,
            loops=find_loops(contributions, self.plan.advocate.name, labels),
            votes=shown_votes,
            injection=_for_prompt(injection, labels),
            limit=DECISION_WORDS,
            fences=self.fences,
        )
        synthesized = True
        if self.plan.lead is None:
            self.journal.record.write_text("lead-decision-prompt.md", prompt)
            self.state.decision_prompt_file = "lead-decision-prompt.md"
            decision = None
        else:
            if self.state.budget_stop is None:
                decision, synthesized = await self.synthesis.decide(round_no, prompt)
            else:  # the cap is reached: no call, the debate as it stands, and why
                self.journal.record.write_text("lead-decision-prompt.md", prompt)
                self.state.decision_prompt_file = "lead-decision-prompt.md"
                decision, synthesized = (
                    raw_text_decision(
                        f"No DECISION was synthesized: {self.state.budget_stop}. The debate so far "
                        "and the votes are below; the lead's prompt is in lead-decision-prompt.md."
                    ),
                    False,
                )
            own = [c for c in self.state.every_call() if c.role == "lead"]
            await self.warn_injection(injection_summary(own, self.plan.on_injection, voters))
            decision["synthesized"] = synthesized
            decision["synthesized_by"] = f"lead ({self.plan.lead.cli})"
            decision["unchallenged"] = self.state.unchallenged
            decision |= {"votes": votes, "vote_reasons": reasons, "tally": tally}
            if excluded:
                decision["excluded_votes"] = {
                    seat: excluded[seat] for seat in votes if seat in excluded
                }
            decision["minority"] = minority
            mark_loops(decision, find_loops(contributions, self.plan.advocate.name))
        self.state.decision = decision
        self.state.status = (
            "degraded" if self.state.unchallenged or not synthesized else "completed"
        )
        self.journal.save()

    async def stop_for_budget(self, spent: BudgetSpent) -> None:
        """The cost cap is reached: said once, kept in the state for the DECISION."""
        self.state.budget_stop = str(spent)
        await self.journal.warn(str(spent))

    def _vendor(self, seat: str) -> str:
        """The vendor of the CLI `seat` sits on (a user-defined CLI is its own)."""
        planned = {s.name: s.cli for s in self.plan.seats}
        cli = self.state.seats.get(seat, {}).get("cli") or planned[seat]
        return adapter_for(cli, self.roster.config.clis).vendor

    def _groups(self, calls: list[Contribution]) -> dict[str, str] | None:
        """Each call's voice under `quorum.distinct`, by stem; None when it is off."""
        if self.plan.distinct == "off":
            return None
        return {
            c.stem: group_of(self.plan.distinct, self._vendor(c.seat), c.served_model)
            for c in calls
        }

    def _seat_groups(
        self, voters: list[str], last: dict[str, Contribution]
    ) -> dict[str, str] | None:
        """Each voter's voice under `quorum.distinct`: by the call its vote came in (the model
        that served it, for `family`); None when it is off."""
        if self.plan.distinct == "off":
            return None
        return {
            seat: group_of(
                self.plan.distinct,
                self._vendor(seat),
                last[seat].served_model if seat in last else None,
            )
            for seat in voters
        }

    async def warn_injection(self, injection: dict[str, Any]) -> None:
        """A warning per suspect seat and per instruction reported: on stderr, in the
        result's warnings and in decision.md."""
        for line in injection_warnings(injection, "vote"):
            await self.journal.warn(line)


def _for_prompt(injection: dict[str, Any], labels: dict[str, str]) -> dict[str, Any] | None:
    """The injection summary as the DECISION prompt names the seats (by label, never by
    name); None when there is nothing to say."""
    if not injection["suspects"] and not injection["reported"]:
        return None
    return {
        "suspects": [
            {
                "label": labels.get(s["seat"], s["seat"]),
                "evidence": s["evidence"],
                "excluded": s["excluded"],
            }
            for s in injection["suspects"]
        ],
        "reported": list(dict.fromkeys(r["what"] for r in injection["reported"])),
    }


__all__ = ["Lead", "run_debate"]
