"""Click option types council needs and click lacks, and the click options of a protocol's
flags, generated from their one declaration (`council.options`).

`MultiValueOption`: an option that takes several values after one flag, argparse's
`nargs="+"`, as in `council debate "question" --files a.py b.py --rounds 3`. It also stays
repeatable (`--files a.py --files b.py`) and splits commas (`--files a.py,b.py`); the value is
one flat tuple in the order given. The values run up to the next token that starts with `-`
(another option, `--`, or `-`), so a positional argument after the list needs `--` before it
(`--files a.py b.py -- "question"`) or to come first. `--files=a.py` takes the same run of
values as `--files a.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from council.options import Option, options_of

F = TypeVar("F", bound=Callable[..., object])


class MultiValueOption(click.Option):
    """`--flag V [V ...]`, repeatable, comma-separated values split; a tuple of strings."""

    def __init__(self, *args: Any, separator: str | None = ",", **kwargs: Any) -> None:
        kwargs.setdefault("multiple", True)
        if not kwargs["multiple"] or kwargs.get("nargs", 1) != 1 or kwargs.get("is_flag"):
            raise TypeError("MultiValueOption is a multiple option with one value per item")
        super().__init__(*args, **kwargs)
        self.separator = separator

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        # Click's parser has no nargs="+": wrap the parser-side option so that, after its
        # first value, it also takes the following tokens up to the next option-like one.
        # `_long_opt` / `_short_opt` are the parser's private tables; pinned by the tests.
        for name in self.opts:
            option = parser._long_opt.get(name) or parser._short_opt.get(name)
            if option is not None:
                break
        else:  # pragma: no cover - click registered the option under its own names
            return
        original = option.process
        flag = name

        def process(value: Any, state: Any) -> None:
            if isinstance(value, str) and value.startswith("-") and len(value) > 1:
                # `--files --rounds 3`: click would take `--rounds` as the file.
                raise click.BadOptionUsage(flag, f"Option '{flag}' requires an argument.")
            original(value, state)
            while state.rargs and not state.rargs[0].startswith("-"):
                original(state.rargs.pop(0), state)

        option.process = process

    def type_cast_value(self, ctx: click.Context, value: Any) -> Any:
        if self.separator and isinstance(value, list | tuple):
            split: list[Any] = []
            for item in value:
                if isinstance(item, str):
                    split += [p.strip() for p in item.split(self.separator) if p.strip()]
                else:
                    split.append(item)
            value = split
        return super().type_cast_value(ctx, value)


class FiniteRange(click.FloatRange):
    """A number in a range, and a real one: `nan` passes every bound (each comparison with it
    is false) and `inf` an open one, and either made `wait --timeout nan` wait forever and
    `doctor --timeout nan` crash."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number or number in (float("inf"), float("-inf")):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def flag_options(flags: type) -> Callable[[F], F]:
    """A decorator giving a command the options of every field `flags` declares, in field
    order; each reaches the command as its field's name, with the value the field takes (a
    list split at commas, none given its default), so `flags(**given)` builds the flags."""

    def decorate(command: F) -> F:
        for declared in reversed(options_of(flags).values()):
            command = click_option(declared)(command)
        return command

    return decorate


def click_option(declared: Option) -> Callable[[F], F]:
    """The click option of one declaration."""
    kwargs: dict[str, Any] = {"metavar": declared.metavar, "help": cli_help(declared)}
    bounds = {"min": declared.low, "max": declared.high, "min_open": declared.above}
    match declared.kind:
        case "switch":
            kwargs["is_flag"] = True
        case "choice":
            kwargs["type"] = click.Choice(declared.choices)
        case "integer":
            kwargs["type"] = click.IntRange(**bounds)
        case "number":
            kwargs["type"] = FiniteRange(**bounds)
        case "list":
            kwargs["callback"] = lambda _ctx, _param, value: declared.collect(value)
            if declared.several:
                kwargs["cls"] = MultiValueOption
            else:
                kwargs["multiple"] = True
        case "pairs":
            kwargs["multiple"] = True
        case _:  # text: a string, None when not given
            pass
    return click.option(declared.flag, declared.name, **kwargs)


def cli_help(declared: Option) -> str:
    """The declaration's help, with how the command line gives several values."""
    text = declared.describe()
    if declared.kind == "pairs" and declared.example:
        text += f", e.g. {declared.example_text()}"
    if declared.several:
        text += " (several after one flag, repeatable, or a,b)"
    return text + "."
