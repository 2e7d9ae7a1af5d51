"""How the command line names seats and tunes them (docs/spec/commands.md): a seat spec
`cli[:model][#effort]`, `--model cli:model` and `--timeout cli=seconds` (repeatable,
comma-separated), the names a second seat on the same CLI gets, the default seats when the user
names none (docs/spec/protocol.md section 1), and when a silent seat worker is presumed dead."""

from __future__ import annotations

import pytest

from council.config import parse_config
from council.errors import UsageError
from council.panel.asked import WORKER_MARGIN_S, Pending
from council.panel.seat import (
    SeatPlan,
    SeatSpec,
    check_cli_name,
    cli_pairs,
    parse_seat_spec,
    timeouts_by_cli,
    unique_seat_name,
)
from council.panel.seating import DefaultSeats, default_seats, pick_other_vendor

VENDORS = {"claude": "anthropic", "codex": "openai", "gemini": "google", "qwen": "alibaba"}


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("codex", SeatSpec("codex")),
        ("Codex:gpt-5.3-codex#high", SeatSpec("codex", "gpt-5.3-codex", "high")),
        ("gemini#low", SeatSpec("gemini", None, "low")),
        (" claude:opus ", SeatSpec("claude", "opus")),
    ],
)
def test_a_seat_spec_names_its_cli_model_and_effort(text, spec):
    assert parse_seat_spec(text) == spec


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":gpt-5.2", "bad seat spec ':gpt-5.2': expected cli[:model][#effort]"),
        ("codex#turbo", "bad effort 'turbo' in 'codex#turbo': use one of "),
    ],
)
def test_a_bad_seat_spec_is_a_usage_error_naming_it(text, message):
    with pytest.raises(UsageError) as refused:
        parse_seat_spec(text)
    assert str(refused.value).startswith(message)


def test_a_second_seat_on_a_cli_gets_the_next_free_number():
    assert unique_seat_name("proxy-sim", []) == "proxy-sim"
    assert unique_seat_name("proxy-sim", ["proxy-sim"]) == "proxy-sim-2"
    assert unique_seat_name("proxy-sim", ["proxy-sim", "proxy-sim-2"]) == "proxy-sim-3"
    assert unique_seat_name("proxy-sim", ["proxy-sim-late", "critic"]) == "proxy-sim"


def test_per_cli_pairs_are_repeatable_comma_separated_and_keyed_by_lowercase_cli():
    pairs = cli_pairs(["Codex:gpt-5.2, gemini:pro", "pi:k2", ""], ":", "--model")
    assert pairs == {"codex": "gpt-5.2", "gemini": "pro", "pi": "k2"}
    assert cli_pairs(["codex=1", "codex=2"], "=", "--timeout") == {"codex": "2"}  # last wins


@pytest.mark.parametrize(
    ("items", "sep", "flag", "message"),
    [
        (["codex"], ":", "--model", "bad --model value 'codex': expected cli:value, e.g. "
         "codex:gpt-5.2"),
        (["codex="], "=", "--timeout", "bad --timeout value 'codex=': expected cli=value, e.g. "
         "codex=900"),
        (["=600"], "=", "--timeout", "bad --timeout value '=600': expected cli=value"),
    ],
)  # fmt: skip
def test_a_pair_without_its_cli_or_value_is_refused_with_an_example(items, sep, flag, message):
    with pytest.raises(UsageError) as refused:
        cli_pairs(items, sep, flag)
    assert str(refused.value).startswith(message)


def test_timeouts_are_seconds_from_one_to_a_day():
    assert timeouts_by_cli(["codex=900,gemini=1", "sim=86400", "pi=2.5"]) == {
        "codex": 900.0,
        "gemini": 1.0,
        "sim": 86_400.0,
        "pi": 2.5,
    }
    for refused in ("codex=0.5", "codex=86401", "codex=abc", "codex=nan", "codex=inf"):
        with pytest.raises(UsageError) as error:
            timeouts_by_cli([refused])
        value = refused.split("=")[1]
        assert str(error.value) == (
            f"bad --timeout for codex: '{value}' is not a number of seconds from 1 to 86400"
        )


def test_a_cli_name_neither_registered_nor_configured_is_a_usage_error():
    config = parse_config({"clis": {"sim-b": {"adapter": "sim"}}})
    check_cli_name("sim-b", config)
    check_cli_name("codex", config)
    with pytest.raises(UsageError, match="nosuchcli"):
        check_cli_name("nosuchcli", config)


def test_a_seat_plan_without_a_timeout_takes_the_adapters():
    assert SeatPlan(name="critic", role="critic", cli="codex").soft_timeout_s is None


# -- default seats ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("usable", "seats"),
    [
        (("claude", "codex", "gemini"), DefaultSeats("claude", "codex", "codex")),
        (("codex", "gemini"), DefaultSeats("codex", "gemini", "gemini")),
        (("gemini", "qwen"), DefaultSeats("gemini", "qwen", "qwen")),
        (("qwen",), DefaultSeats("qwen", "qwen", "qwen")),
        ((), DefaultSeats(None, None, None)),
    ],
)
def test_the_default_seats_are_the_first_cli_then_the_first_of_another_vendor(usable, seats):
    assert default_seats(usable, VENDORS.__getitem__) == seats


def test_the_other_vendor_is_never_the_first_clis_vendor():
    vendors = {**VENDORS, "codex": "anthropic"}  # codex served by Anthropic here
    pick = pick_other_vendor("claude", lambda n: n in ("claude", "codex", "qwen"), vendors.get)
    assert pick == "qwen"
    assert pick_other_vendor("claude", lambda n: n in ("claude",), vendors.get) is None


def test_seats_of_a_cli_are_the_roles_it_holds_in_order():
    seats = DefaultSeats("claude", "codex", "codex")
    assert seats.seats_of("codex") == ["critic", "lead"]
    assert seats.seats_of("claude") == ["advocate"]
    assert seats.seats_of("gemini") == []


def test_a_silent_worker_is_presumed_dead_its_hard_limit_and_a_margin_after_its_ask():
    seat = SeatPlan(name="critic", role="critic", cli="codex")
    pending = Pending(seat, "critic-r2", "CHALLENGE", 2, sent_at=100.0, soft_s=60, hard_s=90)
    assert WORKER_MARGIN_S == 30.0
    assert pending.lost_at == 220.0
