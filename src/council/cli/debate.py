"""`council debate`: run a debate, print its DECISION."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from council.cli.app import (
    CliState,
    cli,
    collect_from_now,
    detach_option,
    detach_run,
    output_options,
)
from council.cli.options import flag_options
from council.cli.results import check_output, emit_run, json_option, output_option
from council.cli.typedargs import args_stdin_option
from council.debate.flags import DebateFlags
from council.errors import ExitCode, UsageError
from council.question import READ_LIMIT, checked_question


def read_question(question: str) -> str:
    """The question as given: the argument, `-` (stdin) or `@file.md`."""
    if question == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError(
                "`-` reads the question from stdin, but stdin is closed; "
                "pipe the question in, or give it as an argument or @file.md"
            )
        try:
            text = sys.stdin.read(READ_LIMIT)  # an endless stdin is read no further
        except UnicodeDecodeError:
            raise UsageError("the question on stdin is not UTF-8 text; send it as UTF-8") from None
    elif question.startswith("@"):
        path = Path(question[1:])
        try:
            with path.open(encoding="utf-8") as source:  # `@/dev/zero` ends at the limit
                text = source.read(READ_LIMIT)
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text; save the question as UTF-8") from None
        except OSError as exc:
            raise UsageError(
                f"cannot read the question from {path}: {exc.strerror or exc}"
            ) from None
    else:
        text = question
    return checked_question(text)


@cli.command(context_settings={"ignore_unknown_options": False})
@click.argument("question", nargs=-1)
@flag_options(DebateFlags)
@json_option
@output_option
@detach_option
@args_stdin_option
@output_options
@click.pass_obj
def debate(
    state: CliState,
    question: tuple[str, ...],
    as_json: bool,
    output: Path | None,
    detach: bool,
    **given: Any,
) -> ExitCode:
    """Run a structured debate and print the DECISION.

    Exit codes: 0 completed, 2 bad input, 3 no usable CLI for a required seat, 4 config
    error, 5 degraded (no quorum, or no DECISION could be synthesized), 130 interrupted, 141
    the reader of stdout went away; 1 is kept for bugs.

    Example: council debate "Redis or Postgres for sessions?" --files app.py db.py --rounds 3

    In the background: council debate "..." --files app.py --detach, then council wait last

    From a check, without asking its seats again: council debate --from check-20261128-1430-ab12
    """
    from council.debate.protocol import DEBATE
    from council.panel.run import start

    from_check = given.get("from_check")
    if not question and from_check is None:
        raise UsageError(
            'the question is missing: give it first (council debate "question" --files a.py '
            'b.py), or end the file list with -- (--files a.py b.py -- "question")'
        )
    if question and from_check is not None:
        raise UsageError(
            f"--from {from_check} debates the check's own question: drop the question, or --from"
        )
    # Unquoted, as people type it (`/debate Should we cache? --files a.py`): its words
    # joined; `-` (stdin) and `@file.md` only as the whole argument.
    asked = question[0] if len(question) == 1 else " ".join(question)
    config = state.config()
    protocol = DEBATE
    if from_check is None:
        flags = DebateFlags(question=read_question(asked), **given)
    else:
        from council.check.handoff import continued

        protocol, flags = continued(DebateFlags(question="", **given), config, Path.cwd())
    check_output(output, flags.files, asked)
    if detach:
        if output is not None:  # nobody is left to write it when the run ends
            raise UsageError(
                "--output with --detach: the run ends in the background; write its result "
                "then with `council wait ID > FILE` (or `council show ID --json > FILE`)"
            )
        return detach_run(state, protocol, flags, config, as_json)
    collect_from_now()
    run = start(protocol, flags, config, state.progress())
    return emit_run(run, "json" if as_json else "md", output)
