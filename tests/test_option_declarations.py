"""An option is declared once, as a field of its flags (`council.options`): its kind read from
the field's type, its bounds in words and checked, its values collected as both front ends
give them; and the bounds the config file's schema writes on its own agree with it."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest

import council
from council.check.flags import CheckFlags
from council.debate.flags import ROUNDS, DebateFlags
from council.errors import UsageError
from council.options import Option, option, options_of, switch
from council.panel.flags import RunFlags
from council.review.findings import SEVERITIES
from council.review.flags import FORMATS, ReviewFlags


@dataclass(frozen=True, kw_only=True)
class DemoFlags:
    subject: str  # no option fills it
    loud: bool = switch("--loud", "Louder")
    name: str | None = option("--name", "A name")
    colour: str | None = option("--colour", "A colour", choices=("red", "blue"))
    count: int | None = option("--count", "How many, {range}", low=1, high=3)
    share: float | None = option("--share", "A share", low=0, above=True)
    items: tuple[str, ...] = option("--item", "Items", default=())
    some: tuple[str, ...] | None = option("--some", "Some")
    pairs: tuple[str, ...] = option(
        "--pair", "Pairs", default=(), pair="=", numbers=True, example=("codex", 900.0)
    )


def test_the_kind_of_each_option_is_read_from_its_fields_type():
    declared = options_of(DemoFlags)
    assert "subject" not in declared
    assert {name: o.kind for name, o in declared.items()} == {
        "loud": "switch",
        "name": "text",
        "colour": "choice",
        "count": "integer",
        "share": "number",
        "items": "list",
        "some": "list",
        "pairs": "pairs",
    }
    assert (declared["loud"].default, declared["items"].default, declared["some"].default) == (
        False,
        (),
        None,
    )
    assert declared["count"].name == "count" and declared["count"].flag == "--count"


def test_a_field_of_a_type_no_option_kind_fits_is_refused():
    @dataclass(frozen=True)
    class Odd:
        when: bytes | None = option("--when", "When")

    with pytest.raises(TypeError, match=r"Odd\.when: no option kind"):
        options_of(Odd)


@pytest.mark.parametrize(
    ("bounds", "words"),
    [
        ({"low": 2, "high": 5}, "2 to 5"),
        ({"low": 0}, "0 or more"),
        ({"low": 0, "above": True}, "more than 0"),
        ({"low": 0, "above": True, "high": 86_400}, "more than 0 to 86400"),
        ({"high": 3}, "at most 3"),
        ({}, ""),
    ],
)
def test_the_bounds_read_as_words(bounds, words):
    assert Option(flag="--n", help="N", **bounds).range_text() == words


def test_a_value_is_within_the_bounds_only_when_it_is_a_finite_number_inside_them():
    share = Option(flag="--share", help="S", low=0, above=True)
    assert share.within(0.5) and not share.within(0) and not share.within(-1)
    assert not share.within(math.nan) and not share.within(math.inf)
    assert ROUNDS.within(2) and ROUNDS.within(5) and not ROUNDS.within(6)


def test_a_value_out_of_bounds_is_a_usage_error_in_the_flags_words():
    with pytest.raises(UsageError, match=r"^--rounds must be 2 to 5, not 6$"):
        ROUNDS.check(6)
    ROUNDS.check(3)


def test_a_help_says_the_bounds_where_it_asks_for_them():
    assert options_of(DemoFlags)["count"].describe() == "How many, 1 to 3"
    assert ROUNDS.describe() == "Rounds, 2 to 5 (default 2)"


def test_a_list_takes_comma_separated_items_and_none_given_is_its_default():
    some, items = options_of(DemoFlags)["some"], options_of(DemoFlags)["items"]
    assert some.collect(["a, b", "c", ","]) == ("a", "b", "c")
    assert some.collect([]) is None and some.collect(None) is None
    assert items.collect(()) == ()


def test_pairs_from_a_mapping_read_as_the_command_line_writes_them():
    pairs = options_of(DemoFlags)["pairs"]
    assert pairs.joined({"codex": 900.0, "gemini": 1.5}) == ("codex=900", "gemini=1.5")
    assert pairs.example_text() == "codex=900"
    assert json.loads(pairs.example_json()) == {"codex": 900}


def test_the_shared_flags_are_declared_once_and_each_protocol_adds_only_its_own():
    shared = set(options_of(RunFlags))
    assert shared == {
        "files",
        "diff",
        "models",
        "effort",
        "timeouts",
        "sim",
        "scratchpad",
        "allow_outside",
        "allow_secrets",
        "cold",
        "no_lean",
    }
    for flags in (DebateFlags, ReviewFlags, CheckFlags):
        assert issubclass(flags, RunFlags)
        inherited = {name: o for name, o in options_of(flags).items() if name in shared}
        assert inherited == options_of(RunFlags)
    assert set(options_of(DebateFlags)) - shared == {
        "proxies",
        "advocate",
        "critic",
        "lead",
        "rounds",
        "preset",
        "quorum",
        "max_cost",
        "from_check",
        "no_blind",
    }
    check = options_of(CheckFlags)
    assert set(check) - shared == {"options", "proxies", "advocate", "critic"}
    for seat in ("proxies", "advocate", "critic"):  # the debate's own declaration of each
        assert check[seat] == options_of(DebateFlags)[seat]
    assert set(options_of(ReviewFlags)) - shared == {
        "reviewers",
        "fail_on",
        "gate",
        "format",
        "output",
        "seed",
    }
    review = options_of(ReviewFlags)
    assert (review["fail_on"].choices, review["format"].choices) == (SEVERITIES, FORMATS)


def test_the_config_files_schema_bounds_the_rounds_as_the_option_does():
    """council.yaml's `debate.rounds` and a preset's `rounds` are checked by the JSON schema
    before any flag is read: its bounds are the option's."""
    schema_path = Path(council.__file__).parent / "schema" / "config.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    preset = schema["properties"]["presets"]["additionalProperties"]
    for rounds in (
        schema["properties"]["debate"]["properties"]["rounds"],
        preset["properties"]["rounds"],
    ):
        assert (rounds["minimum"], rounds["maximum"]) == (ROUNDS.low, ROUNDS.high)
