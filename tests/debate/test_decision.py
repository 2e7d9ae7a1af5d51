"""Reading the lead model's DECISION: tolerant of fences and small JSON slips, strict about
what reaches the result."""

from __future__ import annotations

import pytest

from council.debate.decision import DecisionUnreadable, parse_convergence, parse_decision

GOOD = """{"recommendation": "Use Redis.", "consensus": ["sessions are hot"],
"disagreements": [{"point": "durability", "ruling": "AOF on", "reason": "cheap"}],
"tradeoffs": ["one more service"], "blocking_concerns": [],
"next_step": {"action": "add redis", "verify_command": "pytest", "done_criterion": "green"},
"confidence": 72, "votes": {"critic": "revise", "proxy-gemini": "agree"}}"""
# (A lead that still sends votes: they are ignored, the seats cast their own.)


def test_a_fenced_reply_with_prose_around_it_is_read():
    decision, warnings = parse_decision(f"Here you go:\n```json\n{GOOD}\n```\nThanks")
    assert decision["recommendation"] == "Use Redis." and decision["confidence"] == 72
    assert decision["disagreements"][0]["loop"] is False
    assert warnings == []


def test_trailing_commas_and_smart_quotes_are_forgiven():
    sloppy = GOOD.replace('"green"}', '"green",}').replace('"Use Redis."', "\u201cUse Redis.\u201d")
    decision, _ = parse_decision(sloppy)
    assert decision["recommendation"] == "Use Redis."


def test_an_out_of_range_confidence_is_dropped_with_a_warning_and_lead_votes_are_ignored():
    text = GOOD.replace('"confidence": 72', '"confidence": 140')
    decision, warnings = parse_decision(text)
    assert decision["confidence"] is None and "votes" not in decision
    assert any("140" in w for w in warnings)


@pytest.mark.parametrize("text", ["no json here", "[1, 2]", '{"consensus": []}'])
def test_a_reply_without_a_recommendation_object_is_unreadable(text):
    with pytest.raises(DecisionUnreadable):
        parse_decision(text)


def test_the_convergence_reply_is_read():
    assert parse_convergence('{"converged": false, "open_blocking": ["x"]}') == (False, ["x"])
    assert parse_convergence("maybe?") is None
