"""The review's lead: runs one `council review` top to bottom. Plain Python: it calls no model
of its own; the reviewers do all the reviewing, and the merge is a rule (`merge.py`).

1. SETUP + READY: every reviewer's seat starts in parallel (`council.panel.roster`).
2. REVIEW (round 1): every reviewer reviews the same code, blind and in parallel, and answers
   with findings as JSON. The progressive wait moves on without a straggler.
3. CROSS_CHECK (round 2): every reviewer whose review was read sees the others' findings,
   anonymised (`Reviewer B`, never a CLI, vendor or model) and in an order shuffled for it
   alone (seeded: the seed is in `state.json`), and confirms or disputes each.
4. MERGE: duplicates merged, each finding's support counted, the gate applied.

A reply that is not the JSON asked for gets one repair ask (REVIEW_REPAIR,
CROSS_CHECK_REPAIR); unreadable again, the reviewer's review (or cross-check) is recorded as
failed. A straggler's late review still counts: its findings join the merge with the support
they have, though nobody cross-checked them.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from council.config import Config
from council.context import RunContext, files_block
from council.context.fences import Fences, injection_summary, injection_warnings
from council.context.guard import ProjectGuard
from council.context.roomdir import RoomDir
from council.errors import NoUsableCliError
from council.panel.asked import Asked
from council.panel.bus import Bus
from council.panel.calls import Tuning
from council.panel.contribution import Contribution
from council.panel.dispatch import Dispatch
from council.panel.journal import Journal
from council.panel.roster import Roster
from council.progress import Progress
from council.review.findings import (
    Finding,
    ReviewUnreadable,
    Verdict,
    parse_findings,
    parse_verdicts,
)
from council.review.merge import finding_key, merge, rules_text
from council.review.plan import ReviewPlan
from council.review.scope import place
from council.review.state import ReviewState
from council.runs.record import Record

# The word limits the prompts state; JSON answers are never cut to them (a cut JSON object
# is no answer), they only ask for a reply of reasonable size.
REVIEW_WORDS = 1500
CHECK_WORDS = 800
REVIEW, CROSS_CHECK = "REVIEW", "CROSS_CHECK"
REPAIR_OF = {REVIEW: "REVIEW_REPAIR", CROSS_CHECK: "CROSS_CHECK_REPAIR"}
ROUND_OF = {REVIEW: 1, CROSS_CHECK: 2}


async def run_review(lead: ReviewLead) -> None:
    """PARSE + CONTEXT are done before the record exists (bad input leaves no record)."""
    async with lead.dispatch.seated():  # SETUP + READY; SHUTDOWN on the way out, whatever happens
        await lead.blind_review()  # REVIEW: blind, in parallel
        await lead.cross_check()  # CROSS_CHECK: anonymised, shuffled, in parallel
        await lead.dispatch.wait_for_stragglers()
        await lead.settle()  # late answers read (and repaired once) while the seats sit
    await lead.merge()  # MERGE


class ReviewLead:
    def __init__(
        self,
        plan: ReviewPlan,
        context: RunContext,
        record: Record,
        state: ReviewState,
        progress: Progress,
        config: Config,
        *,
        tuning: Tuning | None = None,
        rooms: RoomDir,
        guard: ProjectGuard | None = None,
    ) -> None:
        self.plan = plan
        self.context = context
        self.state = state
        bus = Bus(record.append_transcript, first_seq=len(record.transcript()) + 1)
        self.journal = Journal(record, state, progress, bus)
        self.roster = Roster(
            plan.reviewers,
            plan,
            context,
            config,
            bus,
            self.journal,
            tuning or Tuning(),
            rooms,
            guard,
            first_template="review",
        )
        self.fences = Fences.from_json(state.fences)
        state.fences = self.fences.to_json()
        self.dispatch = Dispatch(
            self.roster, self.journal, self._prompt_values, watch=self.fences.inspect
        )
        self.files = files_block(context, self.fences, numbered=True)

    @property
    def labels(self) -> dict[str, str]:
        return self.state.labels or self.plan.labels()

    def _prompt_values(self) -> dict[str, Any]:
        """What every review prompt is rendered with."""
        return {
            "subject": self.plan.subject,
            "technical": self.state.technical,
            "diff": self.context.diff is not None,
            "files": self.files,
            "fences": self.fences,
        }

    async def blind_review(self) -> None:
        await self.journal.enter(REVIEW, 1)
        asks = [
            await self.dispatch.ask(seat, REVIEW, 1, "review", REVIEW_WORDS, whole=True)
            for seat in self.roster.seated(self.plan.reviewers)
        ]
        await self._read(await self.dispatch.gather(asks, progressive=True))

    async def cross_check(self) -> None:
        await self.journal.enter(CROSS_CHECK, 2)
        asks = []
        for seat in self.plan.reviewers:
            reviewing = self.dispatch.busy(seat)  # a straggler: its review is still out
            if seat.name not in self.state.reviews and not reviewing:  # failed, or not seated
                continue
            shown = self.state.shown.get(seat.name) or self._shuffled_for(seat.name)
            if not shown:
                await self.journal.note(f"{seat.name}: no other reviewer's finding to check")
                continue
            if not reviewing:
                self.state.shown[seat.name] = shown
            asks.append(
                await self.dispatch.ask(
                    seat,
                    CROSS_CHECK,
                    2,
                    "cross_check",
                    CHECK_WORDS,
                    whole=True,
                    once_free=self._once_reviewed(seat.name, shown),
                    findings=self._listed(shown),
                )
            )
        self.journal.save()
        await self._read(await self.dispatch.gather(asks, progressive=True))

    def _once_reviewed(
        self, seat: str, shown: list[str]
    ) -> Callable[[Contribution], Awaitable[bool]]:
        """For a reviewer whose review was still out when the cross-check began: its late
        review is read as soon as it is in, and only a reviewer whose review was read checks
        the others' findings (support is out of those). A first answer that cannot be read
        is repaired after the cross-check, with the other late answers (`settle`)."""

        async def read(late: Contribution) -> bool:
            if late.answered and late.phase == REVIEW and _unreadable(late.text):
                return False
            await self._take(late)
            self.dispatch.seen(late)
            if seat not in self.state.reviews:
                return False
            self.state.shown[seat] = shown
            self.journal.save()
            return True

        return read

    def _shuffled_for(self, checker: str) -> list[str]:
        """The keys of every other reviewer's findings, in an order of the checker's own: the
        run's seed and the checker's label seed it, so a resumed run lists them again the
        same way and no two checkers share a position bias."""
        keys = [
            finding_key(seat, number)
            for seat in (r.name for r in self.plan.reviewers)
            if seat != checker
            for number in range(1, len(self.state.reviews.get(seat, [])) + 1)
        ]
        random.Random(f"{self.state.seed}:{self.labels[checker]}").shuffle(keys)
        return keys

    def _listed(self, shown: Sequence[str]) -> list[dict[str, Any]]:
        """The findings a cross-check prompt lists: `F1`, `F2`, ... in the order shown, each
        with its raiser's label, never its seat's name."""
        listed = []
        for number, key in enumerate(shown, 1):
            seat, _, index = key.rpartition("#")
            finding = self.state.reviews[seat][int(index) - 1]
            listed.append({**finding, "id": f"F{number}", "label": self.labels[seat]})
        return listed

    async def _read(self, answers: Sequence[Contribution], *, progressive: bool = True) -> None:
        """Read each answer into the state; ask once for a repair of each unreadable one (in
        parallel), and read the repairs (`progressive`: a straggling repair is left behind,
        as any straggler is, and read when it comes)."""
        repairs: list[Asked] = []
        for answer in answers:
            problem = await self._take(answer)
            if problem is not None:
                repairs.append(await self._ask_repair(answer, problem))
        if repairs:
            for repaired in await self.dispatch.gather(repairs, progressive=progressive):
                await self._take(repaired)

    async def _take(self, answer: Contribution) -> str | None:
        """Store what `answer` says; the problem when it is an unreadable first answer (which
        earns a repair), else None."""
        base = answer.phase.removesuffix("_REPAIR")
        if base not in ROUND_OF:
            return None
        seat, progress = answer.seat, self.journal.progress
        if not answer.answered:
            self._fail(seat, base, f"{answer.status}: {answer.detail or 'no answer'}")
            return None
        try:
            count = self._understand(seat, base, answer.text)
        except ReviewUnreadable as unreadable:
            if answer.phase == base:
                progress.info(f"{base} {seat}: unreadable JSON ({unreadable}); asking once again")
                return str(unreadable)
            self._fail(seat, base, f"unreadable JSON even after one repair: {unreadable}")
            progress.info(f"{base} {seat}: unreadable JSON again; recorded as failed")
            return None
        self.state.failed.get(seat, {}).pop(base, None)
        what = "finding" if base == REVIEW else "verdict"
        progress.info(f"{base} {seat}: {count} {what}{'s' if count != 1 else ''} read")
        self.journal.save()
        return None

    def _understand(self, seat: str, base: str, text: str) -> int:
        """Parse `text` as `base` asks and keep it in the state; how many items it held."""
        if base == REVIEW:
            findings, problems = parse_findings(text)
            self.state.reviews[seat] = [f.to_json() for f in findings]
            for problem in problems:
                self.state.warn(f"{seat}: {problem}")
            return len(findings)
        shown = self.state.shown.get(seat, [])
        ids = [f"F{number}" for number in range(1, len(shown) + 1)]
        verdicts, problems = parse_verdicts(text, ids)
        for problem in problems:
            self.state.warn(f"{seat}: {problem}")
        self.state.verdicts[seat] = {
            shown[int(found[1:]) - 1]: {"verdict": v.verdict, "reason": v.reason}
            for found, v in verdicts.items()
        }
        return len(verdicts)

    def _fail(self, seat: str, base: str, why: str) -> None:
        self.state.failed.setdefault(seat, {})[base] = why
        if base == REVIEW:
            self.state.reviews.pop(seat, None)
        else:
            self.state.verdicts.pop(seat, None)
        self.journal.save()

    async def _ask_repair(self, answer: Contribution, problem: str) -> Asked:
        seat = self.roster.seat(answer.seat)
        assert seat is not None
        original = self.journal.record.file(answer.prompt_file).read_text(encoding="utf-8")
        # The task again without the isolation header (the repair prompt has its own).
        task = original[original.find("ACTION:") :]
        repair = REPAIR_OF[answer.phase]
        limit = REVIEW_WORDS if answer.phase == REVIEW else CHECK_WORDS
        return await self.dispatch.ask(
            seat,
            repair,
            answer.round,
            "review_repair",
            limit,
            stem=f"{answer.stem}-repair",
            whole=True,
            problem=problem,
            previous=answer.text,
            original=task,
        )

    async def settle(self) -> None:
        """After the stragglers: read the answers that came late (a late review's findings
        join the merge unchecked), and name what never came."""
        await self._read(self.dispatch.take_unseen_late(), progressive=False)
        for seat in self.plan.reviewers:
            asked = {REVIEW: seat.name in self.roster.ready}
            asked[CROSS_CHECK] = bool(self.state.shown.get(seat.name))
            done = {REVIEW: seat.name in self.state.reviews}
            done[CROSS_CHECK] = seat.name in self.state.verdicts
            for base in (REVIEW, CROSS_CHECK):
                failed = base in self.state.failed.get(seat.name, {})
                if asked[base] and not done[base] and not failed:
                    self._fail(seat.name, base, "no answer")

    async def merge(self) -> None:
        """MERGE: duplicates merged, support counted, the gate applied (`merge.py`)."""
        await self.journal.enter("MERGE", 2)
        order = [r.name for r in self.plan.reviewers]
        reviews = {
            seat: [Finding.from_json(f) for f in found]
            for seat, found in self.state.reviews.items()
        }
        injection = injection_summary(self.state.contributions(), self.plan.on_injection, order)
        await self._warn_injection(injection)
        excluded = {s["seat"] for s in injection["suspects"] if s["excluded"]}
        verdicts = {
            seat: {key: Verdict(**v) for key, v in said.items()}
            for seat, said in self.state.verdicts.items()
            if seat not in excluded  # a suspect's verdicts are its votes
        }
        answered = [seat for seat in order if seat in reviews]
        merged = merge(reviews, verdicts, answered, order)
        reviewed = {e.path: e.lines_total for e in self.context.files}
        findings = []
        for found in (m.to_json(self.plan.fail_on, self.plan.gate) for m in merged):
            placed, warning = place(found, reviewed, self.context.root)
            findings.append(placed)
            if warning:
                await self.journal.warn(warning)
        self.state.findings = findings
        # Only what was reviewed can block: a finding out of scope never gates.
        self.state.blocking = [f["id"] for f in findings if f["blocking"]]
        for seat in order:
            for base, why in self.state.failed.get(seat, {}).items():
                await self.journal.warn(f"{seat}'s {_phase_words(base)} failed ({why})")
        if not answered:
            self.state.status = "failed"
            self.journal.save()
            raise NoUsableCliError(
                "no reviewer's review could be read; see the record and `council doctor`"
            )
        self.state.status = "completed" if len(answered) >= 2 else "degraded"
        if self.state.status == "degraded":
            await self.journal.warn(
                f"only {len(answered)} of {len(order)} reviewers answered: nothing was "
                "cross-checked"
            )
        raised = sum(len(found) for found in reviews.values())
        gate_text = (
            f"; {len(self.state.blocking)} blocking at --fail-on {self.plan.fail_on} "
            f"({rules_text(self.plan.gate)})"
            if self.plan.fail_on
            else ""
        )
        self.journal.progress.info(
            f"merged: {len(merged)} finding(s) from {raised} raised by "
            f"{len(answered)}/{len(order)} reviewers{gate_text}"
        )
        self.journal.save()

    async def _warn_injection(self, injection: dict[str, Any]) -> None:
        """A warning per suspect reviewer and per instruction reported."""
        for line in injection_warnings(injection, "verdicts"):
            await self.journal.warn(line)


def _unreadable(text: str) -> bool:
    try:
        parse_findings(text)
    except ReviewUnreadable:
        return True
    return False


def _phase_words(base: str) -> str:
    return "review" if base == REVIEW else "cross-check"
