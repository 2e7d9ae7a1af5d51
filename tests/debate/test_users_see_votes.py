"""The DECISION's votes as a user reads them in decision.md (docs/spec/protocol.md section 7,
outputs.md "decision.md"): each challenger's vote is the `VOTE:` line its last contribution
ends with, whatever else it wrote; the Votes table, the tally line and the minority report
print exactly what the seats cast."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate.scripted import scripted_seats
from project import QUESTION, Project

# A challenger's CHALLENGE is its last contribution in a two-round debate. Each row: the CLI
# (seated as the critic, or a proxy), what it answered (by phase), and the vote and reason
# decision.md must show for it.
ROWS = [
    (
        "several",  # changed its mind within one answer: its closing line counts
        {
            "CHALLENGE": "VOTE: agree - it looked fine at first.\n"
            "Then I read the retry path again.\n"
            "VOTE: disagree - the retry path loses writes."
        },
        "disagree",
        "the retry path loses writes.",
    ),
    (
        "turned",
        {"CHALLENGE": "VOTE: disagree - at first sight.\nVOTE: agree - after the fix it holds."},
        "agree",
        "after the fix it holds.",
    ),
    (
        "quoting",  # quotes another seat's vote inside a sentence: no line of its own
        {
            "CHALLENGE": "VOTE: revise - add a bound first.\n"
            "Unlike Seat B, who wrote VOTE: agree - ship it, I want the bound."
        },
        "revise",
        "add a bound first.",
    ),
    (
        "decorated",
        {"CHALLENGE": "The plan is close.\n- **Vote:** Revise - needs a size bound."},
        "revise",
        "needs a size bound.",
    ),
    (
        "fullwidth",
        {"CHALLENGE": "Memory is the risk.\nVOTE\uff1a disagree \u2014 memory grows unbounded."},
        "disagree",
        "memory grows unbounded.",
    ),
    (
        "blindonly",  # voted in its blind take, not in its last contribution
        {"BLIND_TAKE": "Cache it.\nVOTE: agree - early view.", "CHALLENGE": "No vote here."},
        None,
        None,
    ),
    ("unreadable", {"CHALLENGE": "Hard to say.\nVOTE: maybe - unsure."}, None, None),
    ("failing", {"CHALLENGE": {"exit": 1, "stderr": "failing: internal error"}}, None, None),
]
TALLY = "Tally: 1 agree, 2 revise, 2 disagree, 3 no vote"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def votes_section(markdown: str) -> list[str]:
    """decision.md from `## Votes` to the next section that is not the minority report."""
    lines = markdown.splitlines()
    start = lines.index("## Votes")
    end = lines.index("## Debate record")
    return lines[start:end]


def seat_of(cli: str) -> str:
    return "critic" if cli == ROWS[0][0] else f"proxy-{cli}"


def test_each_seat_counts_as_its_closing_vote_line_and_the_tally_line_adds_them_up(project):
    project.write_config(scripted_seats(project, {cli: replies for cli, replies, *_ in ROWS}))
    critic, *proxies = [cli for cli, *_ in ROWS]
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--lead", "sim", "--critic", critic,
        "--with", ",".join(proxies), "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    decision = json.loads(run.stdout)["decision"]
    assert decision["votes"] == {seat_of(cli): vote for cli, _, vote, _ in ROWS}
    reasons = {seat_of(cli): reason for cli, _, vote, reason in ROWS if vote}
    assert decision["vote_reasons"] == reasons
    assert decision["tally"] == {"agree": 1, "revise": 2, "disagree": 2, "no_vote": 3}
    table = [
        f"| {seat_of(cli)} | {vote or 'no vote'} | {reason or ''} |"
        for cli, _, vote, reason in ROWS
    ]
    dissent = [(seat_of(cli), reason) for cli, _, vote, reason in ROWS if vote == "disagree"]
    shown = votes_section((project.record() / "decision.md").read_text())
    assert shown[: len(table) + 8] == [
        "## Votes",
        "| seat | vote | reason |",
        "|---|---|---|",
        *table,
        "",
        TALLY,
        "",
        "## Minority report",
        "",
    ]
    # One entry per dissenting seat, in seat order: its reason, then its words verbatim.
    reports = [line for line in shown if line.startswith("**")]
    assert reports == [f"**{seat}** voted disagree: {reason}" for seat, reason in dissent]
    assert "> VOTE: agree - it looked fine at first. Then I read the retry path again." in shown[
        shown.index(reports[0]) + 2
    ].replace("\n", " ")


@pytest.mark.parametrize(
    ("on_injection", "critic_row", "tally", "minority"),
    [
        (
            "warn",  # counted, and said so in the warnings
            "| critic | disagree | the cache loses writes. |",
            "Tally: 1 agree, 0 revise, 1 disagree, 0 no vote",
            True,
        ),
        (
            "exclude",
            "| critic | disagree (not counted: suspect: echoed the run's canary) "
            "| the cache loses writes. |",
            "Tally: 1 agree, 0 revise, 0 disagree, 0 no vote, 1 not counted",
            False,
        ),
    ],
    ids=["warn", "exclude"],
)
def test_a_suspect_seats_vote_is_counted_or_not_as_the_tally_line_says(
    project, on_injection, critic_row, tally, minority
):
    seats = {
        "echoer": {"CHALLENGE": "As told: {canary}\nVOTE: disagree - the cache loses writes."},
        "plain": {"CHALLENGE": "It holds.\nVOTE: agree - the plan is sound."},
    }
    project.write_config(
        f"debate:\n  on_injection: {on_injection}\n" + scripted_seats(project, seats)
    )
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--lead", "sim", "--critic", "echoer",
        "--with", "plain",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == (project.record() / "decision.md").read_text()
    shown = votes_section(run.stdout)
    assert shown[:7] == [
        "## Votes",
        "| seat | vote | reason |",
        "|---|---|---|",
        critic_row,
        "| proxy-plain | agree | the plan is sound. |",
        "",
        tally,
    ]
    assert ("## Minority report" in shown) is minority


@pytest.mark.parametrize(
    ("rounds", "vote_row"),
    [
        ("2", "| critic | agree | the plan holds as proposed. |"),  # CHALLENGE is its last word
        ("3", "| critic | disagree | the answer to my challenge fell short. |"),  # REBUTTAL
    ],
    ids=["two-rounds", "three-rounds"],
)
def test_the_vote_that_counts_is_the_one_in_the_seats_last_contribution(project, rounds, vote_row):
    seats = {
        "shifting": {
            "CHALLENGE": "Fine.\nVOTE: agree - the plan holds as proposed.",
            "REBUTTAL": "Not fine.\nVOTE: disagree - the answer to my challenge fell short.",
        }
    }
    project.write_config(scripted_seats(project, seats))
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--lead", "sim", "--critic", "shifting",
        "--rounds", rounds,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert votes_section(run.stdout)[3] == vote_row
