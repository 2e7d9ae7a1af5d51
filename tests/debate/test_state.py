"""`state.json` as the record and every prompt read it: the seats' calls in debate order
(round, phase, then advocate, critic, proxies as configured), never in arrival order, so that
two identical runs give identical prompts and records; the lead's own calls apart."""

from __future__ import annotations

import json

from council.debate.state import DebateState
from council.panel.contribution import Contribution
from council.panel.state import reply_file

PLAN = {
    "advocate": {"name": "advocate"},
    "critic": {"name": "critic"},
    "proxies": [{"name": "proxy-b"}, {"name": "proxy-a"}],
}


def call(seat: str, role: str, phase: str, round_no: int) -> Contribution:
    return Contribution(
        stem=f"{seat}-r{round_no}-{phase.lower()}",
        seat=seat,
        role=role,
        phase=phase,
        round=round_no,
        status="ok",
        text=f"{seat} {phase}",
        cli="sim",
    )


def test_calls_are_read_in_debate_order_whatever_order_they_arrived_in(tmp_path):
    state = DebateState(id="debate-x", question="q", plan=PLAN)
    arrived = [
        call("proxy-a", "proxy", "CHALLENGE", 2),
        call("lead", "lead", "DECISION", 3),
        call("critic", "critic", "BLIND_TAKE", 1),
        call("proxy-b", "proxy", "CHALLENGE", 2),
        call("advocate", "advocate", "RESPOND", 2),
        call("advocate", "advocate", "PROPOSAL", 1),
        call("critic", "critic", "CHALLENGE", 2),
        call("advocate", "advocate", "FINAL_SUMMARY", 3),
        call("critic", "critic", "REBUTTAL", 3),
        call("replaced", "proxy", "REBUTTAL", 3),  # a seat no longer in the plan: last
    ]
    for contribution in arrived:
        state.store(contribution)
    order = [(c.seat, c.phase) for c in state.every_call()]
    assert order == [
        ("advocate", "PROPOSAL"),
        ("critic", "BLIND_TAKE"),
        ("critic", "CHALLENGE"),
        ("proxy-b", "CHALLENGE"),
        ("proxy-a", "CHALLENGE"),
        ("advocate", "RESPOND"),
        ("advocate", "FINAL_SUMMARY"),
        ("critic", "REBUTTAL"),
        ("replaced", "REBUTTAL"),
        ("lead", "DECISION"),
    ]
    assert [(c.seat, c.phase) for c in state.contributions()] == order[:-1]
    # The record keeps the arrival order, and a stored call reads back the same, its reply
    # from the file the journal writes beside `state.json`.
    assert state.order == [c.stem for c in arrived]
    for contribution in arrived:
        (tmp_path / reply_file(contribution.stem)).write_text(contribution.text)
    again = DebateState.from_json(json.loads(json.dumps(state.to_json())), tmp_path)
    assert again.every_call() == state.every_call()


def test_state_json_names_each_reply_s_file_and_holds_none_of_its_text(tmp_path):
    state = DebateState(id="debate-x", question="q", plan=PLAN)
    state.store(call("critic", "critic", "CHALLENGE", 2))
    saved = json.dumps(state.to_json())
    assert "critic CHALLENGE" not in saved
    assert json.loads(saved)["calls"]["critic-r2-challenge"]["reply_file"] == (
        "critic-r2-challenge-reply.md"
    )
    # A reply file that is gone (a damaged record) is no answer: resume asks again.
    lost = DebateState.from_json(json.loads(saved), tmp_path).every_call()[0]
    assert (lost.status, lost.text, lost.answered) == ("error", "", False)
    assert "critic-r2-challenge-reply.md: the reply is missing" in lost.detail


def test_an_older_councils_state_with_the_reply_texts_inside_loads_as_it_is():
    older = {"id": "debate-x", "question": "q", "plan": PLAN, "order": ["critic-r2-challenge"]}
    older["calls"] = {"critic-r2-challenge": {**call("critic", "critic", "CHALLENGE", 2).__dict__}}
    (loaded,) = DebateState.from_json(older).every_call()
    assert (loaded.status, loaded.text) == ("ok", "critic CHALLENGE")


def test_a_warning_is_kept_once_in_the_order_first_given():
    state = DebateState(id="debate-x", question="q", plan=PLAN)
    for text in ("the project changed during critic's call: a.py", "b", "b"):
        state.warn(text)
    state.warn("the project changed during critic's call: a.py")
    assert state.warnings == ["the project changed during critic's call: a.py", "b"]


def test_a_reviews_calls_whose_phases_are_not_the_debates_are_in_round_then_seat_order():
    state = DebateState(id="review-x", question="q", plan=PLAN)
    for contribution in (
        call("proxy-a", "proxy", "CROSS_CHECK", 2),
        call("proxy-a", "proxy", "REVIEW", 1),
        call("critic", "critic", "REVIEW", 1),
        call("critic", "critic", "CROSS_CHECK", 2),
    ):
        state.store(contribution)
    assert [(c.seat, c.phase) for c in state.contributions()] == [
        ("critic", "REVIEW"),
        ("proxy-a", "REVIEW"),
        ("critic", "CROSS_CHECK"),
        ("proxy-a", "CROSS_CHECK"),
    ]
