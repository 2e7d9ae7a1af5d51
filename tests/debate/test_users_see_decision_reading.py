"""How the lead's replies and the seats' votes are read (docs/spec/protocol.md section 7,
outputs.md `decision`): what each field of the DECISION becomes, the convergence verdict, the
loops and how they are marked, each `VOTE:` line's reading, and the tally a user sees counted.
Tables of (reply -> what reaches the result), from the spec."""

from __future__ import annotations

import json

import pytest

from council.debate.decision import (
    find_loops,
    mark_loops,
    parse_convergence,
    parse_decision,
    raw_text_decision,
)
from council.debate.votes import (
    Vote,
    distinct_voices,
    group_of,
    parse_vote,
    tally_votes,
    vote_fields,
)
from council.panel.contribution import Contribution

GOOD = {
    "recommendation": "  Use Redis.  ",
    "consensus": ["Sessions are small.", "  "],
    "disagreements": [
        {"point": "persistence", "ruling": "AOF", "reason": "restarts", "loop": True},
        {"ruling": "no point: dropped"},
        "not an object",
    ],
    "tradeoffs": "one string is one trade-off",
    "blocking_concerns": {"not": "a list"},
    "next_step": {"action": "add it", "verify_command": "pytest", "done_criterion": "green"},
    "confidence": 72,
}


def test_each_field_of_the_decision_reaches_the_result_as_the_schema_says():
    decision, warnings = parse_decision(json.dumps(GOOD))
    assert decision == {
        "recommendation": "Use Redis.",
        "consensus": ["Sessions are small."],
        "disagreements": [
            {"point": "persistence", "ruling": "AOF", "reason": "restarts", "loop": True}
        ],
        "tradeoffs": ["one string is one trade-off"],
        "blocking_concerns": [],
        "next_step": {"action": "add it", "verify_command": "pytest", "done_criterion": "green"},
        "confidence": 72,
    }
    assert warnings == ["decision: `blocking_concerns` was not a list; ignored"]


@pytest.mark.parametrize(
    ("given", "kept", "warned"),
    [
        (72, 72, False),
        (0, 0, False),  # no confidence at all is still a confidence
        (100, 100, False),
        ("85", 85, False),
        (" 85 ", 85, False),
        (72.6, 73, False),
        (101, None, True),
        (-1, None, True),
        (True, None, True),  # a JSON true is no number
        (False, None, True),
        ("", None, True),
        ("high", None, True),
        (None, None, False),
    ],
)
def test_a_confidence_is_kept_when_it_is_a_number_from_0_to_100(given, kept, warned):
    decision, warnings = parse_decision(json.dumps(GOOD | {"confidence": given}))
    assert decision["confidence"] == kept
    assert bool([w for w in warnings if "confidence" in w]) is warned


def test_a_missing_next_step_is_empty_parts_and_a_missing_list_is_empty():
    decision, warnings = parse_decision('{"recommendation": "Go.", "next_step": "do it"}')
    assert decision["next_step"] == {"action": "", "verify_command": "", "done_criterion": ""}
    assert (decision["consensus"], decision["disagreements"], warnings) == ([], [], [])


def test_an_unreadable_decision_keeps_the_raw_text_and_claims_nothing():
    decision = raw_text_decision("  the lead's prose \n")
    assert (decision["recommendation"], decision["confidence"]) == ("the lead's prose", None)
    claims = ("consensus", "disagreements", "tradeoffs", "blocking_concerns")
    assert [decision[key] for key in claims] == [[], [], [], []]
    assert set(decision["next_step"].values()) == {""}


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ('{"converged": true, "open_blocking": []}', (True, [])),
        ('{"converged": false, "open_blocking": ["auth", 3]}', (False, ["auth", "3"])),
        ('{"converged": false, "open_blocking": "auth"}', (False, [])),
        ('{"converged": false}', (False, [])),
        ('{"converged": "yes", "open_blocking": []}', None),  # unreadable, never converged
        ('{"open_blocking": []}', None),
        ("converged", None),
        ("", None),
    ],
)
def test_the_convergence_verdict_is_read_only_from_a_boolean(reply, verdict):
    assert parse_convergence(reply) == verdict


def said(seat: str, phase: str, round_no: int, text: str, status: str = "ok") -> Contribution:
    return Contribution(
        stem=f"{seat}-r{round_no}-{phase.lower()}",
        seat=seat,
        role="critic" if seat == "critic" else "advocate" if seat == "advocate" else "proxy",
        phase=phase,
        round=round_no,
        status=status,
        text=text,
        cli="sim",
    )


SAME = "Redis loses sessions on restart unless persistence is configured carefully."
AGAIN = "Redis loses sessions on restart unless persistence is configured, carefully."
SEVEN = "Redis loses sessions; restart unless persistence configured: truly dangerous, honestly."
SIX = "Redis loses sessions; restart unless persistence: truly dangerous, honestly, badly."


@pytest.mark.parametrize(
    ("calls", "loops"),
    [
        # A challenge repeated in the rebuttal: a loop, named by the seat's label.
        ([said("critic", "CHALLENGE", 2, SAME), said("critic", "REBUTTAL", 3, AGAIN)],
         ["Seat A (critic), rounds 2-3: " + AGAIN]),
        # The advocate repeating itself is no disagreement.
        ([said("advocate", "CHALLENGE", 2, SAME), said("advocate", "REBUTTAL", 3, AGAIN)], []),
        # A blind take is not a disagreement raised in a round.
        ([said("critic", "BLIND_TAKE", 1, SAME), said("critic", "CHALLENGE", 2, AGAIN)], []),
        # A failed call said nothing.
        ([said("critic", "CHALLENGE", 2, SAME, "timeout"), said("critic", "REBUTTAL", 3, AGAIN)],
         []),
        # Two seats saying the same thing once each is agreement, not a loop.
        ([said("critic", "CHALLENGE", 2, SAME), said("proxy-x", "CHALLENGE", 2, AGAIN)], []),
        # Seven of its ten words said before: still the same point (the bar is 70 %).
        ([said("critic", "CHALLENGE", 2, SAME), said("critic", "REBUTTAL", 3, SEVEN)],
         ["Seat A (critic), rounds 2-3: " + SEVEN]),
        ([said("critic", "CHALLENGE", 2, SAME), said("critic", "REBUTTAL", 3, SIX)], []),
        # A new number is new evidence.
        ([said("critic", "CHALLENGE", 2, SAME),
          said("critic", "REBUTTAL", 3, AGAIN + " Lost 30 percent.")], []),
        # A new file name too.
        ([said("critic", "CHALLENGE", 2, SAME),
          said("critic", "REBUTTAL", 3, AGAIN + " See redis.conf.")], []),
    ],
)  # fmt: skip
def test_a_loop_is_the_same_seats_point_again_next_round_without_new_evidence(calls, loops):
    labels = {"critic": "Seat A (critic)", "proxy-x": "Seat B (proxy)"}
    assert find_loops(calls, "advocate", labels) == loops


def test_a_loop_names_the_seat_itself_when_no_labels_are_given():
    calls = [said("critic", "CHALLENGE", 2, SAME), said("critic", "REBUTTAL", 3, AGAIN)]
    assert find_loops(calls, "advocate") == ["critic, rounds 2-3: " + AGAIN]


def test_every_loop_is_ruled_once_whether_or_not_the_lead_marked_it():
    decision = {
        "disagreements": [{"point": "p", "ruling": "r", "reason": "x", "loop": True}],
    }
    mark_loops(decision, ["first loop", "second loop"])
    assert decision["disagreements"][1:] == [
        {
            "point": "second loop",
            "ruling": "Settled by the lead's recommendation above.",
            "reason": "Raised again in the next round without new evidence.",
            "loop": True,
        }
    ]
    unmarked = {"disagreements": [{"point": "p", "ruling": "r", "reason": "x", "loop": False}]}
    mark_loops(unmarked, ["a loop"])
    assert [d["point"] for d in unmarked["disagreements"]] == ["p", "a loop"]


@pytest.mark.parametrize(
    ("answer", "vote"),
    [
        ("VOTE: agree - ship it", Vote("agree", "ship it")),
        ("vote: DISAGREE: it loses writes.", Vote("disagree", "it loses writes.")),
        ("**VOTE:** revise — add a bound", Vote("revise", "add a bound")),
        ("> VOTE = agree; fine", Vote("agree", "fine")),
        ("* Vote: `disagree` - no", Vote("disagree", "no")),
        ("VOTE: agree", Vote("agree", "")),
        ("VOTE: agree -- ship it", Vote("agree", "ship it")),
        ("VOTE: revise. Needs a bound.", Vote("revise", "Needs a bound.")),
        # Changed its mind within the answer: the closing line counts.
        (
            "VOTE: agree - at first.\nOn reflection:\nVOTE: disagree - it loses writes",
            Vote("disagree", "it loses writes"),
        ),
        ("VOTE: disagree - no.\nVOTE: revise - bound it.\nThanks.", Vote("revise", "bound it.")),
        ("VOTE: agreed - yes", None),  # no such vote
        ("I vote: agree with the plan", None),  # not a line of its own
        ("VOTE: maybe", None),
        ("", None),
    ],
)
def test_a_vote_line_is_read_tolerant_of_form_strict_about_the_word(answer, vote):
    assert parse_vote("Some analysis first.\n" + answer) == vote
    fields = vote_fields(answer)
    assert fields == ({} if vote is None else {"vote": vote.vote, "vote_reason": vote.reason})


def voter(seat: str, vote: str | None, status: str = "ok") -> Contribution:
    c = said(seat, "CHALLENGE", 2, f"{seat} wrote this and voted.", status)
    c.vote, c.vote_reason = vote, f"{seat}'s reason" if vote else ""
    return c


def test_the_tally_counts_votes_as_cast_and_every_seat_without_one_as_no_vote():
    final = {
        "critic": voter("critic", "disagree"),
        "proxy-a": voter("proxy-a", "agree"),
        "proxy-b": voter("proxy-b", "agree", status="timeout"),  # its vote never came
        "proxy-c": voter("proxy-c", None),
        # proxy-d gave no last contribution at all
    }
    voters = ["critic", "proxy-a", "proxy-b", "proxy-c", "proxy-d"]
    votes, reasons, tally, minority = tally_votes(voters, final)
    assert votes == {
        "critic": "disagree",
        "proxy-a": "agree",
        "proxy-b": None,
        "proxy-c": None,
        "proxy-d": None,
    }
    assert reasons == {"critic": "critic's reason", "proxy-a": "proxy-a's reason"}
    assert tally == {"agree": 1, "revise": 0, "disagree": 1, "no_vote": 3}
    assert minority == [
        {"seat": "critic", "reason": "critic's reason", "excerpt": "critic wrote this and voted."}
    ]


def test_the_minority_report_quotes_the_first_80_words_of_a_dissent():
    long = voter("critic", "disagree")
    long.text = " ".join(f"w{i}" for i in range(120))
    _, _, _, minority = tally_votes(["critic"], {"critic": long})
    assert minority[0]["excerpt"].split()[:80] == [f"w{i}" for i in range(80)]
    assert "w80" not in minority[0]["excerpt"].split()


def test_an_excluded_vote_is_kept_as_cast_counted_apart_and_quoted_by_nobody():
    final = {"critic": voter("critic", "disagree"), "proxy-a": voter("proxy-a", "agree"),
             "proxy-b": voter("proxy-b", None)}  # fmt: skip
    excluded = {"critic": "forged a fence", "proxy-b": "echoed the canary"}
    votes, _, tally, minority = tally_votes(["critic", "proxy-a", "proxy-b"], final, excluded)
    assert votes["critic"] == "disagree"
    # An excluded seat that cast no vote is not "not counted": it had nothing to count.
    assert tally == {"agree": 1, "revise": 0, "disagree": 0, "no_vote": 1, "excluded": 1}
    assert minority == []


def test_the_tally_of_groups_lists_each_group_with_its_seats_in_seat_order():
    final = {"proxy-z": voter("proxy-z", "agree"), "proxy-a": voter("proxy-a", "disagree"),
             "critic": voter("critic", "agree")}  # fmt: skip
    groups = {"proxy-z": "openai", "proxy-a": "google", "critic": "openai"}
    _, _, tally, _ = tally_votes(["proxy-z", "proxy-a", "critic"], final, None, groups)
    assert tally == {
        "agree": 1,
        "revise": 0,
        "disagree": 1,
        "no_vote": 0,
        "groups": [
            {"group": "openai", "seats": ["proxy-z", "critic"], "vote": "agree"},
            {"group": "google", "seats": ["proxy-a"], "vote": "disagree"},
        ],
    }


@pytest.mark.parametrize(
    ("distinct", "served", "group"),
    [
        ("vendor", "gemini-2.5-pro", "openai"),  # the vendor of the CLI, whoever served it
        ("family", None, "openai"),  # named no model: its vendor
        ("family", "gpt-5.2", "openai"),
    ],
)
def test_a_seats_voice_is_its_vendor_or_its_served_models_family(distinct, served, group):
    assert group_of(distinct, "openai", served) == group


def test_distinct_voices_count_each_group_once_and_every_call_without_groups():
    calls = [voter("critic", "agree"), voter("proxy-a", "agree"), voter("proxy-b", "agree")]
    assert distinct_voices(calls, None) == 3
    by_stem = {calls[0].stem: "openai", calls[1].stem: "openai", calls[2].stem: "google"}
    assert distinct_voices(calls, by_stem) == 2
    assert distinct_voices([], {}) == 0


def test_a_group_whose_every_seat_is_excluded_is_no_voice_at_all():
    final = {"critic": voter("critic", "agree"), "proxy-a": voter("proxy-a", "disagree")}
    groups = {"critic": "openai", "proxy-a": "google"}
    _, _, tally, _ = tally_votes(["critic", "proxy-a"], final, {"proxy-a": "forged"}, groups)
    assert (tally["agree"], tally["disagree"], tally["no_vote"], tally["excluded"]) == (1, 0, 0, 1)
    assert tally["groups"][1] == {"group": "google", "seats": ["proxy-a"], "vote": None}
