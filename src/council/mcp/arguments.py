"""The tools' arguments: the `debate` and `review` flags as typed, validated parameters,
generated from their one declaration (`council.options`, the fields of `DebateFlags` and
`ReviewFlags`).

`takes_flag_arguments` gives a tool the parameters of every option its flags offer to tools
(their `Field` constraints from the declared bounds and choices): `debate` and `debate_start`
those of `DebateFlags` and the question (`takes_debate_arguments`), `review` and
`review_start` those of `ReviewFlags`. So two tools cannot drift apart, nor from their
command's options, and the SDK rejects a bad argument (rounds 9, an unknown effort) before a
tool runs. `refusing_unknown_arguments`
makes every tool refuse an argument it does not take (the SDK would drop it unseen). What a
schema cannot say (an unknown preset, a missing file) is council's own check in `resolve_plan`
and `gather_context`, which reports it as the CLI would."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, ConfigDict, Field, model_validator

from council.debate.flags import DebateFlags
from council.errors import CouncilError, UsageError
from council.options import Option, options_of
from council.question import checked_question

NOT_IN_A_CLI_NAME = (",", ":", "=")  # the separators of --model and --timeout values

Question = Annotated[
    str,
    Field(min_length=1, description="The question to debate (Markdown), as the user asked it."),
]
RunId = Annotated[
    str,
    Field(min_length=1, description='A run id (debate-...), a unique prefix of one, or "last".'),
]
Since = Annotated[
    int | None,
    Field(
        ge=0,
        description="Return the progress lines after the first N (default: after those this "
        "server already returned for the run).",
    ),
]
DoctorTimeout = Annotated[float, Field(ge=0.5, description="Seconds each version probe may take.")]


def annotation_of(declared: Option) -> Any:
    """The pydantic-annotated type of one option as a tool parameter: its JSON type, its
    bounds or choices, and its help as the description."""
    bounds = {
        "gt" if declared.above else "ge": declared.low,
        "le": declared.high,
    }
    bounds = {key: value for key, value in bounds.items() if value is not None}
    kind: Any
    match declared.kind:
        case "switch":
            kind = bool
        case "choice":
            kind = Literal[declared.choices]  # type: ignore[valid-type] - a runtime tuple
        case "integer":
            kind = int
        case "number":
            kind = float
        case "list":
            kind = list[str]
        case "pairs":
            value = (
                Annotated[float, Field(**bounds)]
                if declared.numbers
                else Annotated[str, Field(min_length=1)]
            )
            kind, bounds = dict[str, value], {}  # type: ignore[valid-type]
        case _:
            kind = str
    if tool_default(declared) is None:
        kind = kind | None
    return Annotated[kind, Field(**bounds, description=tool_help(declared))]


def tool_default(declared: Option) -> Any:
    """What a tool call without the argument means: the field's default, or for pairs no
    mapping (null)."""
    return None if declared.kind == "pairs" else declared.default


def tool_help(declared: Option) -> str:
    """The declaration's help, with how a tool gives pairs, and the flag where its name is not
    the parameter's."""
    text = declared.describe()
    if declared.kind == "pairs" and declared.example:
        text += f", e.g. {declared.example_json()}"
    if declared.flag != "--" + declared.name.replace("_", "-"):
        text += f" (like {declared.flag})"
    return text + "."


def tool_options(flags: Callable[..., object]) -> list[Option]:
    return [declared for declared in options_of(flags).values() if declared.tool]


def flag_values(flags: Callable[..., object], arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's validated arguments as the flags' field values: a list as the command line
    reads it, a mapping of pairs as `cli:model` / `cli=seconds` items."""
    values = {}
    for declared in tool_options(flags):
        given = arguments[declared.name]
        if declared.kind == "list":
            given = declared.collect(given)
        elif declared.kind == "pairs":
            given = declared.joined(_named(given, declared.name))
        values[declared.name] = given
    return values


Scratchpad = annotation_of(options_of(DebateFlags)["scratchpad"])


def _named(mapping: dict[str, Any] | None, what: str) -> dict[str, Any]:
    """`mapping`, once each key is a plain CLI name: the flags join key and value with `:` or
    `=` and split lists at `,`, so such a key would be read as something else."""
    for cli in mapping or {}:
        if not cli.strip() or any(c in cli for c in NOT_IN_A_CLI_NAME):
            raise UsageError(f"bad CLI name '{cli}' in {what}: expected a name such as codex")
    return mapping or {}


R = TypeVar("R")
FlagsT = TypeVar("FlagsT")


def takes_debate_arguments(
    tool: Callable[[DebateFlags, Any], Awaitable[R]],
) -> Callable[..., Awaitable[R]]:
    """`tool(flags, ctx)` as a tool taking the question and `DebateFlags`' options."""
    # The question is checked as the command line checks it.
    return takes_flag_arguments(DebateFlags, tool, {"question": (Question, checked_question)})


def takes_flag_arguments(
    flags: Callable[..., FlagsT],
    tool: Callable[[FlagsT, Any], Awaitable[R]],
    required: Mapping[str, tuple[Any, Callable[[Any], Any]]] = MappingProxyType({}),
) -> Callable[..., Awaitable[R]]:
    """`tool(flags, ctx)` as a tool function whose parameters are `required` (fields no option
    fills: each one's annotated type and its check), the options the `flags` dataclass offers
    to tools, and `ctx`.

    The SDK reads a tool's schema from its signature and finds the context parameter by its
    type hint: both are set here from the declarations and from `tool`'s own `ctx` hint."""
    hints = typing.get_type_hints(tool, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        *(
            inspect.Parameter(name, keyword, annotation=kind)
            for name, (kind, _) in required.items()
        ),
        *(
            inspect.Parameter(
                declared.name,
                keyword,
                default=tool_default(declared),
                annotation=annotation_of(declared),
            )
            for declared in tool_options(flags)
        ),
        inspect.Parameter("ctx", keyword, annotation=hints["ctx"]),
    ]

    async def call(*, ctx: Any, **arguments: Any) -> R:
        try:
            checked = {name: check(arguments.pop(name)) for name, (_, check) in required.items()}
            given = flags(**checked, **flag_values(flags, arguments))
        except CouncilError as exc:  # refused as the command line refuses it, in its words
            raise ToolError(str(exc)) from None
        return await tool(given, ctx)

    call.__name__ = tool.__name__
    call.__doc__ = tool.__doc__
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined] - read by inspect
        parameters, return_annotation=hints.get("return", inspect.Signature.empty)
    )
    call.__annotations__ = {p.name: p.annotation for p in parameters}
    if "return" in hints:
        call.__annotations__["return"] = hints["return"]
    return call


def refusing_unknown_arguments(tool: Tool) -> Tool:
    """`tool`, refusing an argument it does not take (pydantic, and so the SDK, would drop it
    unseen: a misspelt `round` would run a debate of the default rounds); its schema says so
    (`additionalProperties: false`)."""
    model = tool.fn_metadata.arg_model
    known = [field.alias or name for name, field in model.model_fields.items()]

    def known_only(_model: type[BaseModel], data: Any) -> Any:
        if isinstance(data, dict) and (unknown := sorted(set(data) - set(known))):
            names = ", ".join(repr(name) for name in unknown)
            raise ValueError(
                f"{tool.name} takes no argument {names}; it takes {', '.join(known) or 'none'}"
            )
        return data

    strict: type[BaseModel] = type(
        model.__name__,
        (model,),
        {
            "__module__": model.__module__,
            "model_config": ConfigDict(**{**model.model_config, "extra": "forbid"}),
            "known_only": model_validator(mode="before")(classmethod(known_only)),
        },
    )
    tool.fn_metadata.arg_model = strict  # type: ignore[assignment] - a subclass of the model
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool
