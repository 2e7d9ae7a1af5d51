"""The MCP tools' parameters and `council debate`'s options come from one declaration per
option (`council.options`): for every option, the tool schema's type, bounds and choices are
the click option's, so neither can drift from the other. Read from the server as built (its
tools listed in-process) and from the click command as registered."""

from __future__ import annotations

import functools
from typing import Any

import anyio
import click
import pytest

from council.check.flags import CheckFlags
from council.cli import cli
from council.debate.flags import DebateFlags
from council.mcp.arguments import flag_values
from council.mcp.server import Settings, build_server
from council.options import Option, options_of
from council.review.flags import ReviewFlags

# What only the command line says: how to print, where to run; a review writes its --output.
FRONT_END_ONLY = {
    "debate": {"as_json", "output", "detach", "args_stdin", "quiet", "verbose", "help"},
    "review": {"as_json", "detach", "args_stdin", "quiet", "verbose", "help"},
    "check": {"as_json", "detach", "args_stdin", "quiet", "verbose", "help"},
}


@functools.cache
def tool_schemas() -> dict[str, dict[str, Any]]:
    async def listed() -> dict[str, dict[str, Any]]:
        return {
            tool.name: tool.input_schema for tool in await build_server(Settings()).list_tools()
        }

    return anyio.run(listed)


def arm(schema: dict[str, Any]) -> dict[str, Any]:
    """The non-null arm of an optional property."""
    (only,) = [a for a in schema.get("anyOf", [schema]) if a.get("type") != "null"]
    return only


def click_options(command: str) -> dict[str, click.Option]:
    return {p.name: p for p in cli.commands[command].params if isinstance(p, click.Option)}


def bounds_of_click(param: click.Option) -> dict[str, float]:
    if not isinstance(param.type, click.types._NumberRangeBase):
        return {}
    bounds = {"maximum": param.type.max}
    bounds["exclusiveMinimum" if param.type.min_open else "minimum"] = param.type.min
    return {key: value for key, value in bounds.items() if value is not None}


def bounds_of_schema(schema: dict[str, Any]) -> dict[str, float]:
    return {k: schema[k] for k in ("minimum", "exclusiveMinimum", "maximum") if k in schema}


# The tools that take a command's flags: the command, and its flags' class.
FLAG_TOOLS = {
    "debate": ("debate", DebateFlags),
    "debate_start": ("debate", DebateFlags),
    "review": ("review", ReviewFlags),
    "review_start": ("review", ReviewFlags),
    "check": ("check", CheckFlags),
}


def tool_declarations(flags: type = DebateFlags) -> list[Option]:
    return [o for o in options_of(flags).values() if o.tool]


@pytest.mark.parametrize(
    ("tool", "declared"),
    [
        pytest.param(tool, declared, id=f"{tool}-{declared.name}")
        for tool, (_, flags) in FLAG_TOOLS.items()
        for declared in tool_declarations(flags)
    ],
)
def test_each_tool_parameter_has_the_type_bounds_and_choices_of_its_click_option(tool, declared):
    schema = tool_schemas()[tool]["properties"][declared.name]
    param = click_options(FLAG_TOOLS[tool][0])[declared.name]
    value = arm(schema)
    assert param.opts == [declared.flag]
    expected_type = {
        "switch": "boolean",
        "text": "string",
        "choice": "string",
        "integer": "integer",
        "number": "number",
        "list": "array",
        "pairs": "object",
    }[declared.kind]
    assert value["type"] == expected_type
    assert param.is_flag == (declared.kind == "switch")
    assert param.multiple == (declared.kind in ("list", "pairs"))
    assert bounds_of_schema(value) == bounds_of_click(param)
    if isinstance(param.type, click.Choice):
        assert value["enum"] == list(param.type.choices)
    else:
        assert "enum" not in value
    if declared.kind == "list":
        assert value["items"] == {"type": "string"}
    # Each front end says the one help, and adds only how it takes the value.
    assert schema["description"].startswith(declared.describe())
    assert param.help.startswith(declared.describe())


def test_the_values_of_pairs_are_bounded_as_the_plan_checks_them():
    """The command line takes `codex=900` as text, which the plan reads (`timeouts_by_cli`):
    the tool's object values have the bounds that check applies."""
    from council.errors import UsageError
    from council.panel.seat import timeouts_by_cli

    timeouts = arm(tool_schemas()["debate"]["properties"]["timeouts"])["additionalProperties"]
    assert timeouts == {"type": "number", "minimum": 1, "maximum": 86_400}
    assert timeouts_by_cli(["sim=86400"]) == {"sim": 86_400}
    for refused in ("sim=0", "sim=86400.5"):
        with pytest.raises(UsageError, match="is not a number of seconds"):
            timeouts_by_cli([refused])


def test_the_tools_take_the_question_and_every_option_offered_to_tools():
    for tool, (command, flags) in FLAG_TOOLS.items():
        schema = tool_schemas()[tool]
        # A review's subject is its flags.
        required = ["question"] if command in ("debate", "check") else []
        offered = [o.name for o in tool_declarations(flags)]
        assert list(schema["properties"]) == [*required, *offered], tool
        assert schema["additionalProperties"] is False


def test_every_option_of_debate_and_review_is_declared_or_the_front_ends_own():
    for command, flags in (("debate", DebateFlags), ("review", ReviewFlags), ("check", CheckFlags)):
        own = set(click_options(command)) - FRONT_END_ONLY[command]
        assert own == set(options_of(flags)), command


def test_a_tools_arguments_become_the_flags_the_command_line_would_give():
    given = {o.name: None if o.default is None else o.default for o in tool_declarations()}
    given |= {
        "files": ["a.py", "b.py"],
        "proxies": ["gemini,qwen", " kimi "],
        "models": {"codex": "gpt-5.2"},
        "timeouts": {"codex": 900.0, "gemini": 1.5},
        "rounds": 3,
        "sim": True,
    }
    flags = DebateFlags(question="q", **flag_values(DebateFlags, given))
    assert flags.files == ("a.py", "b.py")
    assert flags.proxies == ("gemini", "qwen", "kimi")
    assert flags.models == ("codex:gpt-5.2",)
    assert flags.timeouts == ("codex=900", "gemini=1.5")
    assert (flags.rounds, flags.sim, flags.cold) == (3, True, False)
    nothing = flag_values(DebateFlags, {**given, "proxies": [], "models": None, "timeouts": None})
    assert (nothing["proxies"], nothing["models"], nothing["timeouts"]) == (None, (), ())
