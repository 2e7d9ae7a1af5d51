"""The rule that groups a check's answers (docs/spec/protocol.md section 10, "Positions, by a
rule"): the stance line read as a VOTE line is, the options matched by their words, and the
agreement's exact thresholds."""

from __future__ import annotations

import pytest

from council.check.positions import agreement, group, needs_human, read_stance


@pytest.mark.parametrize(
    ("answer", "stance"),
    [
        ("I would use Redis.\nPOSITION: Redis", "Redis"),
        ("text\n**Position:** Postgres.", "Postgres"),
        ("- position\uff1a  `SQLite`  ", "SQLite"),  # a full-width colon
        ("POSITION: Redis\nOn second thought...\nPOSITION: Postgres", "Postgres"),
        ("no closing line at all", None),
        ("POSITION:   ", None),
    ],
)
def test_the_stance_is_the_last_position_line(answer, stance):
    assert read_stance(answer) == stance


def test_a_stance_names_the_option_whose_words_it_holds():
    options = ["Redis", "PostgreSQL"]
    stances = [
        ("advocate", "postgresql"),
        ("critic", "PostgreSQL, with pgbouncer"),
        ("proxy-a", "Redis or PostgreSQL"),  # names both: a position of its own
        ("proxy-b", "neither"),
    ]
    positions = group(stances, options)
    assert [(p.stance, p.seats, p.option) for p in positions] == [
        ("PostgreSQL", ("advocate", "critic"), True),
        ("Redis or PostgreSQL", ("proxy-a",), False),
        ("neither", ("proxy-b",), False),
    ]
    assert agreement(positions) == "split"  # 2 of 4 is not more than half


@pytest.mark.parametrize(
    ("stances", "expected"),
    [
        ([], "insufficient"),
        (["yes"], "insufficient"),
        (["yes", "Yes!"], "unanimous"),
        (["yes", "yes", "no"], "majority"),
        (["yes", "no"], "split"),
        (["a", "a", "b", "c"], "split"),
        (["a", "a", "a", "b"], "majority"),
    ],
)
def test_the_agreement_over_the_counted_stances(stances, expected):
    positions = group([(f"seat-{i}", s) for i, s in enumerate(stances)], [])
    assert agreement(positions) == expected


@pytest.mark.parametrize(
    ("answer", "stance"),
    [
        ("> POSITION: Redis", "Redis"),  # quoted
        ("## Position: Redis", "Redis"),  # a heading
        ("* **POSITION**: Redis", "Redis"),  # a bullet, the word in bold
        ("position: 'Redis'.", "Redis"),
        ('POSITION: "Use Redis"', "Use Redis"),
        ("POSITION:Redis", "Redis"),
        ("My POSITION: Redis", None),  # not a line of its own
        ("POSITION: " + "x" * 200, "x" * 120),  # a line, not an essay
    ],
)
def test_the_position_line_is_read_as_a_vote_line_is(answer, stance):
    assert read_stance(answer) == stance


@pytest.mark.parametrize(
    ("stance", "option"),
    [
        ("Redis", "Redis"),
        ("REDIS!", "Redis"),
        ("use redis", "Redis"),
        ("Redis Cluster", "Redis"),
        ("postgres with pgbouncer", "Postgres (with pgbouncer)"),  # equal when normalised
        ("Postgres", None),  # no option equals it or is in it
        ("Redis or Postgres (with pgbouncer)", None),  # both named
        ("Rediska", None),  # a word, not a part of one
        ("neither", None),
    ],
)
def test_a_stance_names_one_option_or_stands_on_its_own(stance, option):
    (position,) = group([("advocate", stance)], ["Redis", "Postgres (with pgbouncer)"])
    assert (position.stance, position.option) == (option or stance, option is not None)


def test_a_stance_equal_to_an_option_names_it_even_when_it_holds_another():
    (position,) = group([("advocate", "redis cluster")], ["Redis", "Redis Cluster"])
    assert (position.stance, position.option) == ("Redis Cluster", True)


def test_without_options_the_first_holders_wording_names_the_position():
    positions = group(
        [("advocate", "Use Redis."), ("critic", "use  REDIS"), ("proxy-a", "use_redis")], []
    )
    assert [(p.stance, p.seats, p.option) for p in positions] == [
        ("Use Redis.", ("advocate", "critic", "proxy-a"), False)
    ]


@pytest.mark.parametrize(
    ("agreed", "human"),
    [("unanimous", False), ("majority", True), ("split", True), ("insufficient", True)],
)
def test_only_unanimity_needs_no_human(agreed, human):
    assert needs_human(agreed) is human
