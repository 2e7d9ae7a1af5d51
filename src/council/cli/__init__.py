"""The `council` command: parse flags, load config, call the library, render, map exit codes.

Kept small and free of subprocess and async imports at module level, so `council --version`
and `--help` start fast; each command imports what it needs when it runs.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from council import __version__
from council.cli.options import MultiValueOption
from council.errors import CouncilError

if TYPE_CHECKING:
    from council.config import Config
    from council.debate.run import DebateRun


class _State:
    def __init__(self, config_path: Path | None, verbose: bool, quiet: bool) -> None:
        self.config_path = config_path
        self.verbose = verbose
        self.quiet = quiet

    def config(self) -> Config:
        from council.config import load_config

        return load_config(self.config_path)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="council", message="%(prog)s %(version)s")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Config file (default: ./council.yaml, then ~/.config/council/config.yaml).",
)
@click.option("-v", "--verbose", is_flag=True, help="Show argv, timings and tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors on stderr.")
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None, verbose: bool, quiet: bool) -> None:
    """Run a structured debate between AI coding CLIs and get a decision back."""
    ctx.obj = _State(config_path, verbose, quiet)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0.5),
    default=10.0,
    show_default=True,
    help="Seconds each version probe may take.",
)
@click.pass_obj
def doctor(state: _State, as_json: bool, timeout_s: float) -> None:
    """List every known CLI: found or not, version, auth, default seat, read-only flags.

    Exit 0 when at least one AI CLI can run a debate, else 3.

    Example: council doctor --json | jq '.usable'
    """
    import json

    import anyio

    from council.doctor import render_table, report_json, run_doctor

    config = state.config()
    report = anyio.run(run_doctor, config, timeout_s)
    if as_json:
        click.echo(json.dumps(report_json(report), indent=2))
    else:
        click.echo(render_table(report))
    if report.exit_code:
        click.echo(
            "council: no usable AI CLI found; install one, or use --sim to try council offline",
            err=True,
        )
    sys.exit(report.exit_code)


def output_options(command: Callable[..., None]) -> Callable[..., None]:
    """-q/-v after the command as well as before it (`council debate ... --quiet`)."""

    def quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.find_object(_State).quiet = True

    def verbose(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.find_object(_State).verbose = True

    command = click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=quiet,
        help="Only warnings and errors on stderr.",
    )(command)
    return click.option(
        "-v",
        "--verbose",
        is_flag=True,
        expose_value=False,
        callback=verbose,
        help="Show argv, timings and stderr tails.",
    )(command)


def _read_question(question: str) -> str:
    if question == "-":
        text = sys.stdin.read()
    elif question.startswith("@"):
        path = Path(question[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise click.UsageError(
                f"cannot read the question from {path}: {exc.strerror}"
            ) from None
    else:
        text = question
    if not text.strip():
        raise click.UsageError("the question is empty: give it as an argument, `-` or @file.md")
    return text.strip()


def _emit_result(run: DebateRun, as_json: bool, output: Path | None) -> None:
    import json

    from council.debate.result import render_markdown

    markdown = render_markdown(run.result)
    as_text = json.dumps(run.result, indent=2, ensure_ascii=False) + "\n"
    if run.reached_decision:
        click.echo(as_text if as_json else markdown, nl=False)
    if output is not None:
        output.write_text(as_text if output.suffix == ".json" else markdown, encoding="utf-8")
    if run.error is not None:
        click.echo(f"council: {run.error}", err=True)
    click.echo(f"saved: {run.result['scratchpad']}", err=True)


@cli.command(context_settings={"ignore_unknown_options": False})
@click.argument("question")
@click.option(
    "--files",
    "files",
    cls=MultiValueOption,
    metavar="F [F ...]",
    help="Files given to the debate (several after one flag, repeatable, or a,b).",
)
@click.option("--diff", "diff_ref", metavar="REF", help="Add `git diff REF` and its files.")
@click.option(
    "--with",
    "proxies",
    metavar="CLI[,CLI...]",
    multiple=True,
    help="Proxy seats; `auto` = every installed CLI not already seated.",
)
@click.option("--advocate", metavar="SPEC", help="Seat spec cli[:model][#effort].")
@click.option("--critic", metavar="SPEC", help="Seat spec cli[:model][#effort].")
@click.option(
    "--lead",
    metavar="SPEC|caller",
    help="Who writes the DECISION; `caller` = the calling agent does.",
)
@click.option("--rounds", type=click.IntRange(2, 5), help="2 to 5 (default 2).")
@click.option("--preset", help="quick, balanced, deep, or one from the config.")
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
@click.option("--quorum", type=click.IntRange(0), help="Challenges needed (default 1).")
@click.option("--sim", is_flag=True, help="Seat every role on the offline simulator.")
@click.option("--json", "as_json", is_flag=True, help="Print the result JSON, not Markdown.")
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the result here (.json -> JSON, else Markdown).",
)
@click.option("--scratchpad", metavar="DIR", help="Where records go (default .scratchpad).")
@click.option("--allow-outside", is_flag=True, help="Allow files outside the project root.")
@click.option("--allow-secrets", is_flag=True, help="Allow secret-named files (redacted).")
@output_options
@click.pass_obj
def debate(
    state: _State,
    question: str,
    files: tuple[str, ...],
    diff_ref: str | None,
    proxies: tuple[str, ...],
    advocate: str | None,
    critic: str | None,
    lead: str | None,
    rounds: int | None,
    preset: str | None,
    models: tuple[str, ...],
    effort: str | None,
    timeouts: tuple[str, ...],
    quorum: int | None,
    sim: bool,
    as_json: bool,
    output: Path | None,
    scratchpad: str | None,
    allow_outside: bool,
    allow_secrets: bool,
) -> None:
    """Run a structured debate and print the DECISION.

    Exit codes: 0 completed, 2 bad input, 3 no usable CLI for a required seat, 4 config
    error, 5 degraded (no quorum, or no DECISION), 130 interrupted.

    Example: council debate "Redis or Postgres for sessions?" --files app.py db.py --rounds 3
    """
    from council.debate.plan import DebateFlags
    from council.debate.run import start_debate
    from council.progress import Progress

    flags = DebateFlags(
        question=_read_question(question),
        files=files,
        diff=diff_ref,
        proxies=tuple(p for text in proxies for p in text.split(",") if p.strip()) or None,
        advocate=advocate,
        critic=critic,
        lead=lead,
        rounds=rounds,
        preset=preset,
        models=models,
        effort=effort,
        timeouts=timeouts,
        quorum=quorum,
        sim=sim,
        scratchpad=scratchpad,
        allow_outside=allow_outside,
        allow_secrets=allow_secrets,
    )
    progress = Progress(quiet=state.quiet, verbose=state.verbose)
    run = start_debate(flags, state.config(), progress)
    _emit_result(run, as_json, output)
    sys.exit(run.exit_code)


@cli.command()
@click.argument("debate_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the result JSON, not Markdown.")
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the result here (.json -> JSON, else Markdown).",
)
@click.option("--scratchpad", metavar="DIR", help="Where records are (default .scratchpad).")
@output_options
@click.pass_obj
def resume(
    state: _State, debate_id: str, as_json: bool, output: Path | None, scratchpad: str | None
) -> None:
    """Continue an interrupted or failed debate, reusing every reply already on disk.

    Example: council resume debate-20261122-143005-k3x9
    """
    from council.debate.run import resume_debate
    from council.progress import Progress

    progress = Progress(quiet=state.quiet, verbose=state.verbose)
    run = resume_debate(debate_id, state.config(), progress, scratchpad=scratchpad)
    _emit_result(run, as_json, output)
    sys.exit(run.exit_code)


@cli.command()
def schema() -> None:
    """Print the council.result/v1 JSON Schema that every --json output follows."""
    from council.debate.result import SCHEMA_FILE

    click.echo(SCHEMA_FILE.read_text(encoding="utf-8"), nl=False)


def main() -> None:
    # Start-up allocates much and frees little: collecting during the imports is wasted work
    # (~30 ms of a debate's start). A debate turns the collector back on once it has loaded
    # (council.debate._drive); other commands are short-lived.
    gc.disable()
    verbose = "-v" in sys.argv[1:] or "--verbose" in sys.argv[1:]
    try:
        cli.main(standalone_mode=False)
    except CouncilError as exc:
        click.echo(f"council: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("council: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("council: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug: say so briefly, in full under -v
        if verbose:
            raise
        click.echo(
            f"council: internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)",
            err=True,
        )
        sys.exit(1)
    sys.exit(0)
