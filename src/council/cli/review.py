"""`council review`: cross-vendor code review for scripts and CI (docs/spec/commands.md
"council review"). Prints the findings as Markdown, JSON or SARIF; exits 6 when a finding at
or above `--fail-on` has the support `--gate` asks (by default a majority's)."""

from __future__ import annotations

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
from council.cli.results import emit_run, own_descriptor
from council.cli.typedargs import args_stdin_option
from council.errors import ExitCode, UsageError
from council.review.flags import ReviewFlags


@cli.command()
@flag_options(ReviewFlags)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="With --detach: print the id as JSON; otherwise the same as --format json.",
)
@detach_option
@args_stdin_option
@output_options
@click.pass_obj
def review(state: CliState, as_json: bool, detach: bool, **given: Any) -> ExitCode:
    """Review code with several AI CLIs: each reviews blind and in parallel, then checks the
    others' findings (anonymised); council merges them and counts each one's support.

    Exit codes: 0 no blocking finding, 2 bad input, 3 no usable CLI or no review could be
    read, 4 config error, 5 degraded (only one reviewer answered), 6 a finding at or above
    --fail-on with the support --gate asks (default: a majority of the reviewers that
    answered), 130 interrupted.

    Example: council review --diff main --with codex,gemini --fail-on high --format sarif
    --output council.sarif

    Offline: council review --files app.py --sim
    """
    from council.panel.run import start
    from council.review.protocol import REVIEW

    form = given.pop("format")
    if as_json and form not in (None, "json") and not detach:
        raise click.UsageError(f"--json and --format {form} ask for two outputs: give one")
    chosen = form or ("json" if as_json and not detach else "md")
    flags = ReviewFlags(format=chosen, **given)
    config = state.config()
    if detach:
        if flags.output is not None and own_descriptor(Path(flags.output)):
            raise UsageError(
                f"--output {flags.output} with --detach: the run ends in the background, where "
                "that is no longer yours; write a file, or use `council wait ID > FILE`"
            )
        return detach_run(state, REVIEW, flags, config, as_json)
    collect_from_now()
    return emit_run(start(REVIEW, flags, config, state.progress()), chosen)
