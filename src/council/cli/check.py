"""`council check`: every seat answers once, blind and in parallel; print the positions, who
holds each, the agreement and whether a human is needed (docs/spec/commands.md "council
check")."""

from __future__ import annotations

from typing import Any

import click

from council.check.flags import CheckFlags
from council.cli.app import (
    CliState,
    cli,
    collect_from_now,
    detach_option,
    detach_run,
    output_options,
)
from council.cli.debate import read_question
from council.cli.options import flag_options
from council.cli.results import emit_run, json_option
from council.cli.typedargs import args_stdin_option
from council.errors import ExitCode, UsageError


@cli.command(context_settings={"ignore_unknown_options": False})
@click.argument("question", nargs=-1)
@flag_options(CheckFlags)
@json_option
@detach_option
@args_stdin_option
@output_options
@click.pass_obj
def check(
    state: CliState, question: tuple[str, ...], as_json: bool, detach: bool, **given: Any
) -> ExitCode:
    """A quick look: every seat answers the question once, blind and in parallel; council
    groups the answers into positions and says how far they agree.

    Exit codes: 0 unanimous or majority, 8 split, 9 insufficient (fewer than two seats gave
    a position), 2 bad input, 3 no seat answered, 4 config error, 130 interrupted.

    Example: council check "Redis or Postgres for sessions?" --options Redis,Postgres
    --files app.py

    Then, on a split: council debate --from last
    """
    from council.check.protocol import CHECK
    from council.panel.run import start

    if not question:
        raise UsageError(
            'the question is missing: give it first (council check "question" --files a.py), '
            'or end the file list with -- (--files a.py -- "question")'
        )
    asked = question[0] if len(question) == 1 else " ".join(question)
    flags = CheckFlags(question=read_question(asked), **given)
    config = state.config()
    if detach:
        return detach_run(state, CHECK, flags, config, as_json)
    collect_from_now()
    return emit_run(start(CHECK, flags, config, state.progress()), "json" if as_json else "md")
