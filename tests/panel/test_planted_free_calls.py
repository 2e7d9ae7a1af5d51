"""Under a cost cap (`--max-cost`, docs/spec/config.md `debate.max_cost`) a seat is unpriced
only when its CLI reported no cost: a call priced at $0.00 (a free model, or pi on a free
tier) is a known spend of nothing, so the cap can see it and the seat is not listed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from council.panel.budget import BudgetSpent, check, spend_of


def call(seat: str, cost: float | None) -> SimpleNamespace:
    return SimpleNamespace(
        seat=seat, usage={"input_tokens": 5, "output_tokens": 2, "cost_usd": cost}, skipped=False
    )


def test_a_seat_whose_calls_cost_zero_dollars_is_not_unpriced():
    spend = spend_of([call("advocate", 0.0), call("critic", 0.3), call("advocate", 0.0)])
    assert spend.unpriced_seats == []
    assert spend.spent_usd == 0.3


def test_a_free_seat_beside_an_unreported_one_lists_only_the_unreported_one():
    spend = spend_of([call("advocate", 0.0), call("proxy-codex", None), call("lead", 0)])
    assert spend.unpriced_seats == ["proxy-codex"]
    assert spend.spent_usd == 0.0


def test_free_calls_never_reach_a_cap_but_priced_ones_beside_them_do():
    check(0.01, "CHALLENGE", [call("advocate", 0.0), call("critic", 0.0)])
    with pytest.raises(BudgetSpent):
        check(0.01, "RESPOND", [call("advocate", 0.0), call("critic", 0.01)])
