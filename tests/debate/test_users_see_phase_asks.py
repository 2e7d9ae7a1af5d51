"""Which seat the lead asks for what, in which round, with what in its prompt
(docs/spec/protocol.md section 3), on a fake bus that answers every ask at once: the phases of
two to five rounds, the extra cycles the convergence check skips, the votes asked only of a
last contribution, the blind take only in the first CHALLENGE, the files only for the critic,
a resumed run with the PROPOSAL in (no blind take asked), and a PROPOSAL that fails (exit 3,
how to resume). No CLI is started."""

from __future__ import annotations

from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from council.context import RunContext
from council.debate.lead import run_debate
from council.errors import NoUsableCliError
from council.panel.contribution import Contribution
from debate.test_users_see_lead_prompts import debate_plan, lead_on, said


class Bus:
    """Answers each ask at once (`failing`: (seat, phase) -> status), keeps every ask."""

    def __init__(self, lead, failing=None) -> None:
        self.lead, self.failing, self.asked, self.skipped = lead, failing or {}, [], []
        self.late: list[Any] = []

    @asynccontextmanager
    async def seated(self):
        yield

    async def ask(self, seat, phase, round_no, template, limit, **values):
        asked = {"seat": seat.name, "phase": phase, "round": round_no, "template": template}
        self.asked.append(SimpleNamespace(**asked, limit=limit, values=values))
        status = self.failing.get((seat.name, phase), "ok")
        text = said_by(seat.name, phase, round_no)
        call = said(seat.name, phase, round_no, text, status=status)
        call.stem = f"{seat.name}-r{round_no}-{phase.lower()}"
        return ("pending", call)

    async def gather(self, asks, *, progressive):
        calls = [a if isinstance(a, Contribution) else a[1] for a in asks]
        for c in calls:
            self.lead.state.store(c)
        return calls

    async def not_asked(self, seat, phase, round_no, first):
        self.skipped.append((seat.name, phase))

    async def cut_short(self, asked, *, why, grace_s):
        await self.gather(asked, progressive=False)

    def take_unseen_late(self):
        return []

    async def wait_for_stragglers(self):
        pass

    def of(self, phase: str) -> list[Any]:
        return [a for a in self.asked if a.phase == phase]


def debate(tmp_path, rounds=2, converged=(), failing=None, calls=(), **plan):
    lead = lead_on(debate_plan(rounds=rounds, **plan), *calls)
    lead.context = RunContext(root=tmp_path, files=(), diff=None, technical=(), warnings=())
    lead.tuning = SimpleNamespace(blind_grace_s=0.1)
    lead.roster.seated = lambda seats: list(seats)
    lead.roster.warm_lead_soon = lambda: None
    lead.journal.save = lambda: None
    bus = lead.dispatch = Bus(lead, failing)
    verdicts = list(converged)
    checked = []

    async def check(round_no: int) -> bool:
        checked.append(round_no)
        return verdicts.pop(0) if verdicts else False

    lead.synthesis.converged = check
    lead.checked = checked
    return lead, bus


def said_by(seat: str, phase: str, round_no: int) -> str:
    return f"{seat} {phase} r{round_no}.\nRedis {round_no}.2 keeps 5 GB in memory."


def phases(bus: Bus) -> list[tuple[int, str, str]]:
    return [(a.round, a.phase, a.seat) for a in bus.asked]


def test_a_two_round_debate_asks_proposal_and_blind_takes_then_challenges_with_a_vote(tmp_path):
    lead, bus = debate(tmp_path)
    anyio.run(run_debate, lead)
    assert phases(bus) == [
        (1, "PROPOSAL", "advocate"),
        (1, "BLIND_TAKE", "critic"),
        (1, "BLIND_TAKE", "proxy-gemini"),
        (2, "CHALLENGE", "critic"),
        (2, "CHALLENGE", "proxy-gemini"),
        (2, "RESPOND", "advocate"),
    ]
    critic, proxy = bus.of("CHALLENGE")
    assert (critic.template, critic.limit, critic.values["vote"]) == ("challenge_critic", 300, True)
    assert (proxy.template, proxy.limit, proxy.values["vote"]) == ("challenge_proxy", 200, True)
    # Each challenger's prompt holds its own blind take; only the critic's the files.
    assert critic.values["blind"] == said_by("critic", "BLIND_TAKE", 1)
    assert proxy.values["blind"] == said_by("proxy-gemini", "BLIND_TAKE", 1)
    assert "files" in critic.values and "files" not in proxy.values
    blind_critic, blind_proxy = bus.of("BLIND_TAKE")
    assert (blind_critic.limit, "files" in blind_critic.values) == (150, True)
    assert (blind_proxy.limit, "files" in blind_proxy.values) == (150, False)
    (respond,) = bus.of("RESPOND")
    assert respond.values["position"] == said_by("advocate", "PROPOSAL", 1)
    assert [c.seat for c in respond.values["challenges"]] == ["critic", "proxy-gemini"]
    assert lead.state.decision is not None and lead.checked == []


def test_three_rounds_end_with_rebuttals_that_vote_beside_the_final_summary(tmp_path):
    lead, bus = debate(tmp_path, rounds=3)
    anyio.run(run_debate, lead)
    assert [a.values["vote"] for a in bus.of("CHALLENGE")] == [False, False]
    assert phases(bus)[-3:] == [
        (3, "FINAL_SUMMARY", "advocate"),
        (3, "REBUTTAL", "critic"),
        (3, "REBUTTAL", "proxy-gemini"),
    ]
    assert [a.values["vote"] for a in bus.of("REBUTTAL")] == [True, True]
    assert [a.limit for a in bus.of("REBUTTAL")] == [200, 200]
    (summary,) = bus.of("FINAL_SUMMARY")
    assert (summary.template, summary.limit) == ("final_summary", 200)
    assert summary.values["position"] == said_by("advocate", "RESPOND", 2)
    # The views the advocate sums up: the challenges, never a blind take.
    assert {c.phase for c in summary.values["views"]} == {"CHALLENGE"}
    # The context refresh kept a fact of round 2, tagged with it.
    assert lead.state.technical == ["- [R2] Redis 2.2 keeps 5 GB in memory."]


@pytest.mark.parametrize(
    ("rounds", "verdicts", "challenged", "checked", "early"),
    [
        (4, [False], [2, 3], [2], False),
        (4, [True], [2], [2], True),  # converged: the extra cycle is skipped
        (5, [False, False], [2, 3, 4], [2, 3], False),
        (5, [False, True], [2, 3], [2, 3], True),
        (5, [True], [2], [2], True),  # asked once: converged is converged
    ],
)
def test_extra_cycles_run_until_the_convergence_check_says_nothing_blocks(
    tmp_path, rounds, verdicts, challenged, checked, early
):
    lead, bus = debate(tmp_path, rounds=rounds, converged=verdicts)
    anyio.run(run_debate, lead)
    assert sorted({a.round for a in bus.of("CHALLENGE")}) == challenged
    assert sorted({a.round for a in bus.of("RESPOND")}) == challenged
    assert lead.checked == checked and lead.state.stopped_early is early
    rebuttal_round = challenged[-1] + 1
    assert {a.round for a in bus.of("REBUTTAL")} == {rebuttal_round}
    # Only the first CHALLENGE carries the blind take; the extra ones do not.
    later = [a.values["blind"] for a in bus.of("CHALLENGE") if a.round > 2]
    assert later == [""] * len(later)


def test_a_resumed_run_with_the_proposal_in_asks_no_blind_take(tmp_path):
    lead, bus = debate(tmp_path, calls=[said("advocate", "PROPOSAL", 1, "Use Redis.")])

    async def ask_resumed(seat, phase, round_no, template, limit, **values):
        stored = lead.state.contribution(f"{seat.name}-r{round_no}-{phase.lower()}")
        if stored is not None:
            return stored
        return await Bus.ask(bus, seat, phase, round_no, template, limit, **values)

    bus.ask = ask_resumed
    anyio.run(run_debate, lead)
    assert bus.skipped == [("critic", "BLIND_TAKE"), ("proxy-gemini", "BLIND_TAKE")]
    assert not bus.of("BLIND_TAKE") and not bus.of("PROPOSAL")
    assert [a.values["blind"] for a in bus.of("CHALLENGE")] == ["", ""]


def test_no_blind_take_is_asked_under_no_blind(tmp_path):
    lead, bus = debate(tmp_path)
    lead.roster.plan = lead.roster.plan.__class__(**{**lead.roster.plan.__dict__, "blind": False})
    anyio.run(run_debate, lead)
    assert not bus.of("BLIND_TAKE") and bus.skipped == []


def test_a_proposal_that_fails_stops_the_run_failed_saying_how_to_resume(tmp_path):
    lead, bus = debate(tmp_path, failing={("advocate", "PROPOSAL"): "timeout"})
    with pytest.raises(NoUsableCliError) as raised:
        anyio.run(run_debate, lead)
    assert str(raised.value).startswith("the advocate (claude) could not write the proposal: ")
    assert str(raised.value).endswith("; fix that, then `council resume debate-1`")
    assert lead.state.status == "failed" and not bus.of("CHALLENGE")
