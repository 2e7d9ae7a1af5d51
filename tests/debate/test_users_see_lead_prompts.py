"""What the lead puts before the seats and into the DECISION (docs/spec/protocol.md sections 3
and 7), on a debate's state with no CLI started: the round context block every challenger
gets (the advocate's latest answered position, one line per view, never a blind take, a failed
seat's line naming no CLI), a challenger's own blind take, the context refresh's facts, and
the DECISION's quorum, votes and status, for answered, failed and skipped calls alike."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from council.config import parse_config
from council.context.fences import Fences
from council.debate.flags import DebateFlags
from council.debate.lead import Lead
from council.debate.plan import resolve_plan
from council.debate.state import DebateState
from council.panel.contribution import Contribution


def debate_plan(rounds: int = 2, quorum: int = 1, proxies=("gemini",), lead="gemini", **extra):
    return resolve_plan(
        DebateFlags(question="Redis or Postgres?", rounds=rounds, quorum=quorum,
                    proxies=proxies, lead=lead),
        parse_config(extra.get("config", {})),
        lambda n: n in ("claude", "codex", "gemini", "qwen"),
    )  # fmt: skip


def said(seat: str, phase: str, round_no: int, text: str, status: str = "ok", **more: Any):
    role = {"advocate": "advocate", "critic": "critic", "lead": "lead"}.get(seat, "proxy")
    return Contribution(
        stem=f"{seat}-r{round_no}-{phase.lower()}", seat=seat, role=role, phase=phase,
        round=round_no, status=status, text=text, cli="x", **more,
    )  # fmt: skip


class Journal:
    """What the lead's DECISION tells the record: warnings, phases, saves."""

    def __init__(self, state: DebateState, record: Any) -> None:
        self.state, self.record, self.warnings = state, record, []

    async def enter(self, phase: str, round_no: int) -> None:
        self.state.phase, self.state.round = phase, round_no

    async def warn(self, text: str) -> None:
        self.warnings.append(text)

    def save(self) -> None:
        pass


def lead_on(plan, *calls: Contribution, decision=None, synthesized=True, tmp_path=None) -> Lead:
    """A Lead over a state holding `calls`, its seats already stopped, whose lead model
    answers the DECISION with `decision`."""
    state = DebateState(id="debate-1", question=plan.question, plan=plan.to_json())
    for c in calls:
        state.store(c)
    lead = Lead.__new__(Lead)
    lead.state, lead.fences = state, Fences.new()
    lead.redactor = None

    async def stop_seats() -> None:
        pass

    lead.roster = SimpleNamespace(plan=plan, stop_seats=stop_seats, config=parse_config({}))
    written: dict[str, str] = {}
    record = SimpleNamespace(write_text=written.__setitem__, written=written)
    lead.journal = Journal(state, record)
    lead.prompts = []

    async def decide(round_no: int, prompt: str):
        lead.prompts.append(prompt)
        return dict(decision or {"recommendation": "Use Redis.", "disagreements": []}), synthesized

    lead.synthesis = SimpleNamespace(decide=decide)
    return lead


def test_the_round_block_quotes_the_latest_answered_position_and_every_view_but_blind_takes():
    plan = debate_plan(rounds=3)
    lead = lead_on(
        plan,
        said("advocate", "PROPOSAL", 1, "Use Redis with AOF."),
        said("critic", "BLIND_TAKE", 1, "BLIND: my own early view."),
        said("critic", "CHALLENGE", 2, "Redis loses writes on failover."),
        said("proxy-gemini", "CHALLENGE", 2, "claude: rate limited", status="error"),
        said("advocate", "RESPOND", 2, "Keep Redis, add replicas."),
        said("advocate", "RESPOND", 3, "gemini: crashed", status="timeout"),
    )
    block = lead.round_block(3)
    assert block.startswith("## Round 3 context\n")
    # The latest answer of the advocate that came in, not the one that failed.
    assert "### Position under debate (advocate, round 2, RESPOND)" in block
    assert "Keep Redis, add replicas." in block and "crashed" not in block
    views = block.split("### Views already received", 1)[1]
    assert "- Seat A (critic), round 2 (ok): Redis loses writes on failover." in views
    # A failed seat's line says only that it gave no answer: no CLI, no vendor.
    assert "- Seat B (proxy), round 2 (error): (no answer: error)" in views
    assert "rate limited" not in block and "claude" not in block
    assert "BLIND" not in block
    assert lead.round_block(3) == block  # built the same for every challenger


def test_the_first_round_block_has_no_views_yet():
    lead = lead_on(debate_plan(), said("advocate", "PROPOSAL", 1, "Use Redis."))
    block = lead.round_block(2)
    assert block.endswith("### Views already received\n(none yet)")
    assert "### Position under debate (advocate, round 1, PROPOSAL)" in block


@pytest.mark.parametrize(
    ("status", "text", "shown"),
    [
        ("ok", "Cache it in Redis.", "Cache it in Redis."),
        ("late", "Cache it, late.", "Cache it, late."),
        ("timeout", "partial output", ""),  # a failed blind take is no take of its own
        ("skipped", "", ""),
    ],
)
def test_a_challenger_sees_its_own_blind_take_only_when_it_gave_one(status, text, shown):
    lead = lead_on(
        debate_plan(),
        said("critic", "BLIND_TAKE", 1, text, status=status),
        said("proxy-gemini", "BLIND_TAKE", 1, "Postgres, for its durability."),
    )
    assert lead.blind_take("critic") == shown
    assert lead.blind_take("proxy-gemini") == "Postgres, for its durability."


def decided(lead: Lead, round_no: int = 2) -> dict[str, Any]:
    anyio.run(lead.decide, round_no)
    return lead.state.decision


def test_a_debate_whose_every_challenge_failed_is_unchallenged_and_degraded():
    lead = lead_on(
        debate_plan(),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: agree - ok", status="timeout", vote="agree"),
        said("proxy-gemini", "CHALLENGE", 2, "", status="skipped", reason="busy"),
    )
    decision = decided(lead)
    assert lead.state.status == "degraded" and decision["unchallenged"] is True
    assert lead.journal.warnings[0] == (
        "only 0 challenge(s) for a quorum of 1: the DECISION is unchallenged"
    )
    assert decision["votes"] == {"critic": None, "proxy-gemini": None}
    assert decision["tally"] == {"agree": 0, "revise": 0, "disagree": 0, "no_vote": 2}


def test_a_late_challenge_counts_toward_the_quorum_and_its_vote_is_tallied():
    lead = lead_on(
        debate_plan(quorum=2),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: revise - bound it", vote="revise",
             vote_reason="bound it"),
        said("proxy-gemini", "CHALLENGE", 2, "VOTE: agree - ok", status="late", vote="agree",
             vote_reason="ok"),
    )  # fmt: skip
    decision = decided(lead)
    assert (lead.state.status, decision["unchallenged"]) == ("completed", False)
    assert lead.journal.warnings == []
    assert decision["votes"] == {"critic": "revise", "proxy-gemini": "agree"}
    assert decision["vote_reasons"] == {"critic": "bound it", "proxy-gemini": "ok"}
    assert decision["synthesized"] is True and decision["synthesized_by"] == "lead (gemini)"


def test_a_quorum_one_short_is_unchallenged_and_names_the_distinct_count():
    lead = lead_on(
        debate_plan(quorum=2, proxies=("codex",), lead="gemini",
                    config={"quorum": {"distinct": "vendor"}}),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "No."),
        said("proxy-codex", "CHALLENGE", 2, "No again."),
    )  # fmt: skip
    lead.roster.plan = lead.roster.plan  # seats: critic codex, proxy codex: one vendor
    decided(lead)
    assert lead.state.status == "degraded"
    assert lead.journal.warnings[0] == (
        "only 2 challenge(s) from 1 distinct vendor(s) for a quorum of 2: "
        "the DECISION is unchallenged"
    )


@pytest.mark.parametrize(
    ("rounds", "counted"),
    [(2, {"critic": "agree"}), (3, {"critic": "disagree"}), (4, {"critic": "disagree"})],
)
def test_the_vote_is_the_last_contributions_rebuttal_from_three_rounds(rounds, counted):
    last = rounds
    lead = lead_on(
        debate_plan(rounds=rounds, proxies=()),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: agree - fine", vote="agree", vote_reason="fine"),
        *(
            [said("critic", "REBUTTAL", last, "VOTE: disagree - no", vote="disagree",
                  vote_reason="no")]
            if rounds >= 3 else []
        ),
    )  # fmt: skip
    decision = decided(lead, last)
    assert decision["votes"] == counted


def test_a_failed_decision_call_leaves_the_debate_degraded_though_challenged():
    lead = lead_on(
        debate_plan(),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "No."),
        synthesized=False,
    )
    decision = decided(lead)
    assert (lead.state.status, decision["synthesized"], decision["unchallenged"]) == (
        "degraded", False, False,
    )  # fmt: skip


def test_a_caller_lead_gets_the_decision_prompt_on_disk_and_no_decision_object():
    lead = lead_on(
        debate_plan(lead="caller"),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: disagree - it loses writes", vote="disagree",
             vote_reason="it loses writes"),
    )  # fmt: skip
    assert decided(lead) is None
    assert lead.state.decision_prompt_file == "lead-decision-prompt.md"
    prompt = lead.journal.record.written["lead-decision-prompt.md"]
    assert "Seat A (critic)" in prompt and "it loses writes" in prompt
    assert lead.prompts == [] and lead.state.status == "completed"


def test_the_decision_prompt_names_the_seats_by_label_with_their_votes():
    lead = lead_on(
        debate_plan(),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: disagree - it loses writes", vote="disagree",
             vote_reason="it loses writes"),
        said("proxy-gemini", "CHALLENGE", 2, "gone", status="error"),
    )  # fmt: skip
    decided(lead)
    (prompt,) = lead.prompts
    assert "Seat A (critic)" in prompt and "Seat B (proxy)" in prompt
    assert "proxy-gemini" not in prompt and "critic:" not in prompt.replace("(critic):", "")


def test_a_stopped_budget_asks_no_decision_and_says_why():
    lead = lead_on(
        debate_plan(),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "No."),
    )
    lead.state.budget_stop = "the cost cap of $0.50 was reached before RESPOND"
    decision = decided(lead)
    assert lead.prompts == []
    assert decision["synthesized"] is False and lead.state.status == "degraded"
    assert decision["recommendation"].startswith(
        "No DECISION was synthesized: the cost cap of $0.50 was reached before RESPOND."
    )
    assert lead.state.decision_prompt_file == "lead-decision-prompt.md"


def test_a_challenger_with_no_rebuttal_in_three_rounds_has_no_vote_whatever_it_challenged():
    lead = lead_on(
        debate_plan(rounds=3),
        said("advocate", "PROPOSAL", 1, "Use Redis."),
        said("critic", "CHALLENGE", 2, "VOTE: agree - fine", vote="agree", vote_reason="fine"),
        said("proxy-gemini", "CHALLENGE", 2, "VOTE: agree - ok", vote="agree", vote_reason="ok"),
        said("proxy-gemini", "REBUTTAL", 3, "VOTE: revise - bound", vote="revise",
             vote_reason="bound"),
    )  # fmt: skip
    decision = decided(lead, 3)
    assert decision["votes"] == {"critic": None, "proxy-gemini": "revise"}
    assert decision["tally"]["no_vote"] == 1
