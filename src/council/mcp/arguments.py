"""The tools' arguments: the `debate` flags as typed, validated parameters, declared once.

`debate_flags` is the single declaration: its parameters (pydantic `Field` constraints in the
annotations) become the input schema of both `debate` and `debate_start` through
`takes_debate_arguments`, so the two tools cannot drift apart, and the SDK rejects a bad
argument (rounds 9, an unknown effort) before a tool runs. What a schema cannot say (an
unknown preset, a missing file) is council's own check in `resolve_plan` and `gather_context`,
which reports it as the CLI would."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from council.debate.plan import DebateFlags
from council.errors import CouncilError, UsageError
from council.question import checked_question

NOT_IN_A_CLI_NAME = (",", ":", "=")  # the separators of --model and --timeout values

Question = Annotated[
    str,
    Field(min_length=1, description="The question to debate (Markdown), as the user asked it."),
]
Files = Annotated[
    list[str],
    Field(description="Files the seats get, relative to the project (like --files)."),
]
Diff = Annotated[
    str | None, Field(description="Add `git diff REF` and its files, e.g. main (like --diff).")
]
Proxies = Annotated[
    list[str] | None,
    Field(
        description='Proxy seats (like --with): CLI names, e.g. ["gemini"]; "auto" = every '
        "installed CLI not already seated."
    ),
]
Seat = Annotated[
    str | None, Field(description="Seat spec cli[:model][#effort], e.g. codex:gpt-5.2#high.")
]
Lead = Annotated[
    str | None,
    Field(
        description='Who writes the DECISION: a seat spec, or "caller": then the result is the '
        "decision prompt, for you to answer (like --lead caller)."
    ),
]
Rounds = Annotated[int | None, Field(ge=2, le=5, description="Rounds, 2 to 5 (default 2).")]
Preset = Annotated[
    str | None, Field(description="quick, balanced, deep, or a preset from council.yaml.")
]
Models = Annotated[
    dict[str, Annotated[str, Field(min_length=1)]] | None,
    Field(description='Model per CLI, e.g. {"codex": "gpt-5.2"} (like --model).'),
]
Effort = Annotated[
    Literal["low", "medium", "high", "xhigh"] | None,
    Field(description="Reasoning effort where the CLI supports it."),
]
Timeouts = Annotated[
    dict[str, Annotated[float, Field(gt=0)]] | None,
    Field(description='Soft timeout in seconds per CLI, e.g. {"codex": 900} (like --timeout).'),
]
Quorum = Annotated[int | None, Field(ge=0, description="Challenges needed (default 1).")]
MaxCost = Annotated[
    float | None,
    Field(
        gt=0,
        description="Stop asking new calls once the cost the CLIs report reaches this many USD "
        "(like --max-cost); CLIs that report no cost are listed as unpriced.",
    ),
]
Sim = Annotated[
    bool, Field(description="Seat every role on the offline simulator (replies are SIMULATED).")
]
Scratchpad = Annotated[
    str | None, Field(description="Where the records are (default .scratchpad).")
]
AllowOutside = Annotated[bool, Field(description="Allow files outside the project root.")]
AllowSecrets = Annotated[bool, Field(description="Allow secret-named files (redacted).")]
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


def debate_flags(
    question: Question,
    files: Files = (),  # a tuple default: never shared, never mutated
    diff: Diff = None,
    proxies: Proxies = None,
    advocate: Seat = None,
    critic: Seat = None,
    lead: Lead = None,
    rounds: Rounds = None,
    preset: Preset = None,
    models: Models = None,
    effort: Effort = None,
    timeouts: Timeouts = None,
    quorum: Quorum = None,
    max_cost: MaxCost = None,
    sim: Sim = False,
    scratchpad: Scratchpad = None,
    allow_outside: AllowOutside = False,
    allow_secrets: AllowSecrets = False,
) -> DebateFlags:
    """The validated arguments as the `debate` command's flags (`cli/debate.py`)."""
    return DebateFlags(
        question=checked_question(question),  # as the command line checks it
        files=tuple(files),
        diff=diff,
        proxies=_proxies(proxies),
        advocate=advocate,
        critic=critic,
        lead=lead,
        rounds=rounds,
        preset=preset,
        models=tuple(f"{cli}:{model}" for cli, model in _named(models, "models").items()),
        effort=effort,
        timeouts=tuple(f"{cli}={s!r}" for cli, s in _named(timeouts, "timeouts").items()),
        quorum=quorum,
        max_cost=max_cost,
        sim=sim,
        scratchpad=scratchpad,
        allow_outside=allow_outside,
        allow_secrets=allow_secrets,
    )


def _proxies(proxies: list[str] | None) -> tuple[str, ...] | None:
    """As `--with` reads them: each item may list several (`gemini,qwen`); none is None, the
    config's default."""
    names = tuple(p for text in proxies or () for p in text.split(",") if p.strip())
    return names or None


def _named(mapping: dict[str, Any] | None, what: str) -> dict[str, Any]:
    """`mapping`, once each key is a plain CLI name: the flags join key and value with `:` or
    `=` and split lists at `,`, so such a key would be read as something else."""
    for cli in mapping or {}:
        if not cli.strip() or any(c in cli for c in NOT_IN_A_CLI_NAME):
            raise UsageError(f"bad CLI name '{cli}' in {what}: expected a name such as codex")
    return mapping or {}


R = TypeVar("R")


def takes_debate_arguments(
    tool: Callable[[DebateFlags, Any], Awaitable[R]],
) -> Callable[..., Awaitable[R]]:
    """`tool(flags, ctx)` as a tool function whose parameters are `debate_flags`' and `ctx`.

    The SDK reads a tool's schema from its signature and finds the context parameter by its
    type hint: both are set here from `debate_flags` and from `tool`'s own `ctx` hint."""
    hints = typing.get_type_hints(tool, include_extras=True)
    flag_hints = typing.get_type_hints(debate_flags, include_extras=True)
    parameters = [
        p.replace(annotation=flag_hints[p.name])
        for p in inspect.signature(debate_flags).parameters.values()
    ]
    parameters.append(
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=hints["ctx"])
    )

    async def call(*, ctx: Any, **arguments: Any) -> R:
        try:
            flags = debate_flags(**arguments)
        except CouncilError as exc:  # refused as the command line refuses it, in its words
            raise ToolError(str(exc)) from None
        return await tool(flags, ctx)

    call.__name__ = tool.__name__
    call.__doc__ = tool.__doc__
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined] - read by inspect
        parameters, return_annotation=hints.get("return", inspect.Signature.empty)
    )
    call.__annotations__ = {p.name: p.annotation for p in parameters}
    if "return" in hints:
        call.__annotations__["return"] = hints["return"]
    return call
