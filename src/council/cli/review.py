"""`council review`: cross-vendor code review for scripts and CI (docs/spec/commands.md
"council review"). Prints the findings as Markdown, JSON or SARIF; exits 6 when a finding at
or above `--fail-on` has a majority's support."""

from __future__ import annotations

from pathlib import Path

import click

from council.cli.app import (
    CliState,
    cli,
    collect_from_now,
    detach_run,
    output_options,
    run_options,
)
from council.cli.options import MultiValueOption
from council.cli.results import emit_run
from council.errors import ExitCode

SEVERITIES = ("low", "medium", "high", "critical")
FORMATS = ("md", "json", "sarif")


@cli.command()
@click.option("--diff", "diff_ref", metavar="REF", help="Review `git diff REF` (e.g. main).")
@click.option(
    "--files",
    "files",
    cls=MultiValueOption,
    metavar="F [F ...]",
    help="Files to review (several after one flag, repeatable, or a,b).",
)
@click.option(
    "--with",
    "reviewers",
    metavar="CLI[,CLI...]",
    multiple=True,
    help="Reviewers, seat specs cli[:model][#effort]; `auto` = every installed CLI. "
    "Default: two installed CLIs of different vendors.",
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    help="Exit 6 when a finding at or above this severity has a majority's support.",
)
@click.option(
    "--format",
    "form",
    type=click.Choice(FORMATS),
    help="What stdout gets: md (default), json (council.review/v1) or sarif (SARIF 2.1.0).",
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the result here: .sarif, .json or .md by its suffix, else as --format.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="With --detach: print the id as JSON; otherwise the same as --format json.",
)
@click.option("--model", "models", metavar="CLI:MODEL[,...]", multiple=True, help="Per-CLI model.")
@click.option(
    "--effort",
    type=click.Choice(["low", "medium", "high", "xhigh"]),
    help="Reasoning effort where the CLI supports it.",
)
@click.option(
    "--timeout",
    "timeouts",
    metavar="CLI=SECONDS[,...]",
    multiple=True,
    help="Per-CLI soft timeout.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="Seed of the cross-check's shuffled orders (default: from the code under review).",
)
@click.option("--sim", is_flag=True, help="Seat every reviewer on the offline simulator.")
@run_options
@output_options
@click.pass_obj
def review(
    state: CliState,
    diff_ref: str | None,
    files: tuple[str, ...],
    reviewers: tuple[str, ...],
    fail_on: str | None,
    form: str | None,
    output: Path | None,
    as_json: bool,
    models: tuple[str, ...],
    effort: str | None,
    timeouts: tuple[str, ...],
    seed: int | None,
    sim: bool,
    scratchpad: str | None,
    allow_outside: bool,
    allow_secrets: bool,
    cold: bool,
    no_lean: bool,
    detach: bool,
) -> ExitCode:
    """Review code with several AI CLIs: each reviews blind and in parallel, then checks the
    others' findings (anonymised); council merges them and counts each one's support.

    Exit codes: 0 no blocking finding, 2 bad input, 3 no usable CLI or no review could be
    read, 4 config error, 5 degraded (only one reviewer answered), 6 a finding at or above
    --fail-on confirmed by a majority of the reviewers that answered, 130 interrupted.

    Example: council review --diff main --with codex,gemini --fail-on high --format sarif
    --output council.sarif

    Offline: council review --files app.py --sim
    """
    from council.panel.run import start
    from council.review.plan import ReviewFlags
    from council.review.protocol import REVIEW

    if as_json and form not in (None, "json") and not detach:
        raise click.UsageError(f"--json and --format {form} ask for two outputs: give one")
    chosen = form or ("json" if as_json and not detach else "md")
    flags = ReviewFlags(
        files=files,
        diff=diff_ref,
        reviewers=tuple(r for text in reviewers for r in text.split(",") if r.strip()) or None,
        fail_on=fail_on,
        format=chosen,
        output=str(output) if output is not None else None,
        models=models,
        effort=effort,
        timeouts=timeouts,
        seed=seed,
        sim=sim,
        scratchpad=scratchpad,
        allow_outside=allow_outside,
        allow_secrets=allow_secrets,
        cold=cold,
        no_lean=no_lean,
    )
    config = state.config()
    if detach:
        return detach_run(state, REVIEW, flags, config, as_json)
    collect_from_now()
    return emit_run(start(REVIEW, flags, config, state.progress()), chosen)
