"""The rule that groups a check's answers (docs/spec/protocol.md section 10, "Positions, by a
rule"): the stance line read as a VOTE line is, the options matched by their words, and the
agreement's exact thresholds."""

from __future__ import annotations

import pytest

from council.check.positions import agreement, group, read_stance


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
