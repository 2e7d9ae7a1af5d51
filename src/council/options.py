"""One declaration per option: its flag, type, bounds or choices and help, written once, as
the field of the flags it fills (`panel/flags.py`, `debate/flags.py`, `review/flags.py`).

The command line's options (`cli/options.py`) and the MCP tools' parameters
(`mcp/arguments.py`) are both generated from these declarations, and a protocol's own check
of a value (`--rounds`' bound in `debate/plan.py`) reads the same one, so none of them can
drift from another. This module knows neither click nor pydantic.

A field is declared with `option(...)` (or `switch(...)`); `options_of(flags)` reads the
declarations back, each completed with its field's name, default and kind, the kind read from
the field's type: `bool` a switch (`--sim`; a boolean to a tool); `str | None` a text, or a
choice with `choices` (`--effort high`; a string); `int | None` and `float | None` an integer
and a number within `low` and `high` (`--rounds 3`); `tuple[str, ...]` (or `| None`) a list
(`--files a.py b.py`, `--with codex,gemini`; an array of strings), or, with `pair`, pairs
(`--model codex:gpt-5.2`; an object, one value per CLI).
"""

from __future__ import annotations

import functools
import math
import typing
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from council.errors import UsageError

Kind = Literal["switch", "text", "choice", "integer", "number", "list", "pairs"]

_KINDS: dict[Any, Kind] = {
    bool: "switch",
    str: "text",
    str | None: "text",
    int | None: "integer",
    float | None: "number",
    tuple[str, ...]: "list",
    tuple[str, ...] | None: "list",
}
_METADATA_KEY = "council.option"


@dataclass(frozen=True, kw_only=True)
class Option:
    """One option as declared. `help` is one sentence without its final stop; `{range}` in it
    stands for the bounds in words (`2 to 5`)."""

    flag: str  # the command line's: `--with`
    help: str
    metavar: str | None = None  # the command line's name for the value: `REF`, `USD`
    low: float | None = None
    high: float | None = None
    above: bool = False  # `low` itself is refused: more than `low`
    choices: tuple[str, ...] = ()
    several: bool = False  # the command line takes several values after one flag
    pair: str | None = None  # `:` or `=`: each value is `cli<pair>value`, one per CLI
    numbers: bool = False  # pairs: each value a number, within `low` and `high`
    example: tuple[str, object] | None = None  # pairs: one CLI and its value
    tool: bool = True  # also a parameter of the MCP tools
    # From the field, filled in by `options_of`:
    name: str = ""  # the field's, and the MCP parameter's
    kind: Kind = "text"
    default: Any = None

    def describe(self) -> str:
        return self.help.replace("{range}", self.range_text())

    def range_text(self) -> str:
        """The bounds in words: `2 to 5`, `0 or more`, `more than 0`."""
        low = None if self.low is None else f"{'more than ' if self.above else ''}{self.low:g}"
        if self.high is None:
            return "" if low is None else low if self.above else f"{low} or more"
        return f"at most {self.high:g}" if low is None else f"{low} to {self.high:g}"

    def within(self, value: float) -> bool:
        """Whether `value` is a finite number within the bounds (NaN passes no comparison,
        so each one here must hold, not fail)."""
        if not math.isfinite(value):
            return False
        above_low = self.low is None or (value > self.low if self.above else value >= self.low)
        return above_low and (self.high is None or value <= self.high)

    def check(self, value: float | None) -> None:
        """A value from anywhere (a flag, a preset, council.yaml) outside the bounds is a
        usage error in the flag's words."""
        if value is None or not self.within(value):
            raise UsageError(f"{self.flag} must be {self.range_text()}, not {value}")

    def collect(self, items: typing.Iterable[str] | None) -> tuple[str, ...] | None:
        """A list's values as given, each item possibly several, comma-separated (`--with
        codex,gemini`, as `["codex,gemini"]` to a tool); none given is the field's default."""
        values = tuple(p.strip() for text in items or () for p in text.split(",") if p.strip())
        return values or self.default

    def joined(self, mapping: typing.Mapping[str, object]) -> tuple[str, ...]:
        """A mapping of pairs (a tool's `{"codex": 900}`) as the command line gives them."""
        return tuple(f"{key}{self.pair}{_text(value)}" for key, value in mapping.items())

    def example_text(self) -> str:
        """The example pair as the command line writes it: `codex:gpt-5.2`."""
        key, value = self.example or ("", "")
        return f"{key}{self.pair}{_text(value)}"

    def example_json(self) -> str:
        """The example pair as a tool gets it: `{"codex": "gpt-5.2"}`."""
        import json  # only the MCP server asks, not the command line's start

        key, value = self.example or ("", "")
        return json.dumps({key: value})


def _text(value: object) -> str:
    # A float that is a whole number reads as one (`900`, not `900.0`); the flag takes both.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def option(flag: str, help: str, *, default: Any = None, **declared: Any) -> Any:
    """The field of a flags dataclass for one option: `rounds: int | None = option(...)`."""
    return field(
        default=default, metadata={_METADATA_KEY: Option(flag=flag, help=help, **declared)}
    )


def switch(flag: str, help: str, **declared: Any) -> Any:
    """The field of an on/off option, off unless given."""
    return option(flag, help, default=False, **declared)


@functools.cache
def options_of(flags: type) -> dict[str, Option]:
    """Every option `flags` declares, by field name, in field order (a base class's first)."""
    hints = typing.get_type_hints(flags)
    found: dict[str, Option] = {}
    for each in fields(flags):
        declared = each.metadata.get(_METADATA_KEY)
        if declared is None:
            continue  # a field no option fills (the debate's question)
        kind = _KINDS.get(hints[each.name])
        if kind is None:
            raise TypeError(f"{flags.__name__}.{each.name}: no option kind for {hints[each.name]}")
        if kind == "text" and declared.choices:
            kind = "choice"
        elif kind == "list" and declared.pair:
            kind = "pairs"
        found[each.name] = replace(declared, name=each.name, kind=kind, default=each.default)
    return found


__all__ = ["Kind", "Option", "option", "options_of", "switch"]
