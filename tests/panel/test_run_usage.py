"""The run's usage total: what the CLIs reported, summed, and the seats it leaves out."""

from __future__ import annotations

from council.panel.contribution import run_usage


def usage(tokens_in: int | None, tokens_out: int | None, cost: float | None = None) -> dict:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost_usd": cost}


def test_a_total_every_seat_reported_to_is_whole():
    total = run_usage([("advocate", [usage(10, 2, 0.5)]), ("critic", [usage(5, 1), usage(7, 3)])])
    assert total == {
        "input_tokens": 22,
        "output_tokens": 6,
        "cost_usd": 0.5,
        "partial": False,
        "unreported_seats": [],
    }


def test_a_seat_whose_cli_reports_nothing_makes_the_total_partial_and_is_named():
    total = run_usage([("advocate", [usage(10, 2)]), ("proxy-pi", [None, None])])
    assert total is not None
    assert (total["input_tokens"], total["partial"], total["unreported_seats"]) == (
        10,
        True,
        ["proxy-pi"],
    )


def test_one_killed_call_of_a_reporting_seat_names_that_seat_too():
    # a timed-out call never printed its figures: the seat's sum is a floor
    total = run_usage([("critic", [usage(5, 1), None]), ("lead", [usage(3, 1)])])
    assert total is not None and total["unreported_seats"] == ["critic"]


def test_a_seat_that_reports_only_a_cost_is_unreported_for_tokens():
    total = run_usage([("a", [usage(None, None, 0.2)]), ("b", [usage(4, 4)])])
    assert total is not None
    assert (total["input_tokens"], total["cost_usd"], total["unreported_seats"]) == (4, 0.2, ["a"])


def test_a_seat_that_made_no_call_is_not_counted_as_unreported():
    total = run_usage([("advocate", [usage(1, 1)]), ("proxy-late", [])])
    assert total is not None and total["partial"] is False


def test_no_figure_from_any_call_is_null_not_zero():
    assert run_usage([("a", [None]), ("b", [None, None])]) is None
