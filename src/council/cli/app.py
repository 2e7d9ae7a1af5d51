"""The `council` click group, its global options, and what every command shares.

Each command lives in a module of its own (`council.cli.debate`, `council.cli.doctor`, ...),
registers itself on `cli` and returns its exit code; `council.cli.main` exits with it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from council import __version__

if TYPE_CHECKING:
    from council.config import Config
    from council.progress import Progress

F = TypeVar("F", bound=Callable[..., object])


class CliState:
    """The global options, passed to every command as click's `obj`."""

    def __init__(self, config_path: Path | None, verbose: bool, quiet: bool) -> None:
        self.config_path = config_path
        self.verbose = verbose
        self.quiet = quiet

    def config(self) -> Config:
        from council.config import load_config

        return load_config(self.config_path)

    def progress(self) -> Progress:
        from council.progress import Progress

        return Progress(quiet=self.quiet, verbose=self.verbose)


def collect_from_now() -> None:
    """Turn the garbage collector back on once a long command has loaded its modules (see
    `council.cli.main`); the start-up heap lives as long as the process: never traverse it."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


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
    ctx.obj = CliState(config_path, verbose, quiet)


def output_options(command: F) -> F:
    """-q/-v after the command as well as before it (`council debate ... --quiet`)."""

    def quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.find_object(CliState).quiet = True

    def verbose(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.find_object(CliState).verbose = True

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
