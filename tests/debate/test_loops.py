"""Pieces of the lead that need no debate to test: loop detection."""

from __future__ import annotations

from council.debate.decision import find_loops
from council.debate.state import Contribution


def challenge(round_no: int, text: str, seat: str = "critic") -> Contribution:
    return Contribution(
        stem=f"{seat}-r{round_no}",
        seat=seat,
        role="critic",
        phase="CHALLENGE",
        round=round_no,
        status="ok",
        text=text,
        cli="sim",
    )


def test_a_challenge_repeated_next_round_without_new_evidence_is_a_loop():
    first = "Redis loses sessions on restart unless persistence is configured carefully."
    again = "Redis loses sessions on restart unless persistence is configured, carefully."
    loops = find_loops([challenge(2, first), challenge(3, again)], "advocate")
    assert len(loops) == 1 and loops[0].startswith("critic, rounds 2-3:")


def test_a_repeated_challenge_with_new_evidence_is_not_a_loop():
    first = "Redis loses sessions on restart unless persistence is configured carefully."
    again = "Redis loses sessions on restart unless persistence is configured; see `appendfsync`."
    assert find_loops([challenge(2, first), challenge(3, again)], "advocate") == []


def test_a_different_objection_is_not_a_loop():
    first = "Redis loses sessions on restart unless persistence is configured carefully."
    other = "Postgres row locking under heavy session writes will contend badly at peak."
    assert find_loops([challenge(2, first), challenge(3, other)], "advocate") == []
