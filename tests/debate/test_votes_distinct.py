"""`quorum.distinct` (debate/votes.py): a group of seats is one voice. Its vote is its
majority, a tie going to the more cautious vote; every vote is still kept as cast."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from council.debate.votes import distinct_voices, group_of, group_vote, tally_votes


def last(vote: str | None, *, served: str | None = None, stem: str = ""):
    text = f"VOTE: {vote} - because" if vote else "no vote here"
    return SimpleNamespace(
        vote=vote, vote_reason="because", answered=True, text=text, served_model=served, stem=stem
    )


VOTERS = ["critic", "proxy-codex", "proxy-gemini"]
GROUPS = {"critic": "openai", "proxy-codex": "openai", "proxy-gemini": "google"}


def test_without_groups_every_seat_counts_as_before():
    final = {"critic": last("agree"), "proxy-codex": last("agree"), "proxy-gemini": last("revise")}
    _, _, tally, _ = tally_votes(VOTERS, final)
    assert tally == {"agree": 2, "revise": 1, "disagree": 0, "no_vote": 0}


def test_two_seats_of_one_vendor_count_one_vote_and_every_vote_is_kept_as_cast():
    final = {"critic": last("agree"), "proxy-codex": last("agree"), "proxy-gemini": last("revise")}
    votes, _, tally, minority = tally_votes(VOTERS, final, groups=GROUPS)
    assert votes == {"critic": "agree", "proxy-codex": "agree", "proxy-gemini": "revise"}
    assert {k: tally[k] for k in ("agree", "revise", "disagree", "no_vote")} == {
        "agree": 1,
        "revise": 1,
        "disagree": 0,
        "no_vote": 0,
    }
    assert tally["groups"] == [
        {"group": "openai", "seats": ["critic", "proxy-codex"], "vote": "agree"},
        {"group": "google", "seats": ["proxy-gemini"], "vote": "revise"},
    ]
    assert minority == []


def test_a_split_group_counts_as_its_more_cautious_vote_and_its_dissent_is_still_reported():
    final = {
        "critic": last("agree"),
        "proxy-codex": last("disagree"),
        "proxy-gemini": last("agree"),
    }
    _, _, tally, minority = tally_votes(VOTERS, final, groups=GROUPS)
    assert tally["groups"][0]["vote"] == "disagree"
    assert (tally["agree"], tally["disagree"]) == (1, 1)
    assert [m["seat"] for m in minority] == ["proxy-codex"]


@pytest.mark.parametrize(
    ("cast", "vote"),
    [
        (["agree", "agree", "disagree"], "agree"),  # a majority stands
        (["agree", "revise"], "revise"),
        (["revise", "disagree"], "disagree"),
        (["agree", "disagree", "revise"], "disagree"),
    ],
)
def test_a_groups_vote_is_its_majority_a_tie_going_to_the_more_cautious(cast, vote):
    assert group_vote(cast) == vote


def test_a_group_whose_seats_gave_no_vote_is_one_no_vote_and_a_voting_seat_speaks_for_it():
    final = {"critic": last(None), "proxy-codex": None, "proxy-gemini": last("agree")}
    _, _, tally, _ = tally_votes(VOTERS, final, groups=GROUPS)
    assert (tally["agree"], tally["no_vote"]) == (1, 1)
    final = {"critic": last(None), "proxy-codex": last("revise"), "proxy-gemini": last(None)}
    _, _, tally, _ = tally_votes(VOTERS, final, groups=GROUPS)
    assert (tally["revise"], tally["no_vote"]) == (1, 1)


def test_an_excluded_seat_leaves_its_group_to_the_others():
    final = {
        "critic": last("agree"),
        "proxy-codex": last("disagree"),
        "proxy-gemini": last("agree"),
    }
    excluded = {"proxy-codex": "suspect: echoed the canary"}
    _, _, tally, minority = tally_votes(VOTERS, final, excluded, groups=GROUPS)
    assert tally["groups"][0]["vote"] == "agree"
    assert (tally["agree"], tally["disagree"], tally["excluded"]) == (2, 0, 1)
    assert minority == []


def test_a_family_is_the_served_models_and_the_vendor_when_the_cli_named_none():
    assert group_of("family", "pi", "openrouter/openai/gpt-5.2") == "openai"
    assert group_of("family", "pi", "fakemodel/fake-model") == "pi"
    assert group_of("family", "alibaba", None) == "alibaba"
    assert group_of("vendor", "pi", "openai/gpt-5.2") == "pi"


def test_the_quorum_counts_one_challenge_per_group():
    calls = [last("agree", stem="critic-r2"), last("agree", stem="proxy-codex-r2")]
    assert distinct_voices(calls, None) == 2
    assert distinct_voices(calls, {"critic-r2": "openai", "proxy-codex-r2": "openai"}) == 1
