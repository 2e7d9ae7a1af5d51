"""The `council` command: parse flags, load config, call the library, render, map exit codes.

Kept small and free of subprocess and async imports at module level, so `council --version`
and `--help` start fast; each command imports what it needs when it runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from council import __version__
from council.errors import CouncilError


class _State:
    def __init__(self, config_path: Path | None, verbose: bool, quiet: bool) -> None:
        self.config_path = config_path
        self.verbose = verbose
        self.quiet = quiet

    def config(self):  # type: ignore[no-untyped-def]
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


def main() -> None:
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
