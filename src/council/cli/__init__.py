"""The `council` command line: the front end over the library.

This package parses flags, loads the config, calls the library, renders what it returns and
turns errors into exit codes, all in `main` below: the one place where a `CouncilError` becomes
a one-line message and its exit code. It imports no subprocess or async machinery at module
level, so `council --version` and `--help` start fast; each command imports what it needs
when it runs.
"""

from __future__ import annotations

import gc
import sys

import click

from council.cli import debate, doctor, schema  # noqa: F401 - each registers its commands
from council.cli.app import cli
from council.errors import CouncilError, ExitCode


def main() -> None:
    # Start-up allocates much and frees little: collecting during the imports is wasted work
    # (~30 ms of a debate's start). `collect_from_now` turns the collector back on once a
    # command has loaded what it needs; the library itself never touches the collector.
    gc.disable()
    verbose = "-v" in sys.argv[1:] or "--verbose" in sys.argv[1:]
    try:
        code = cli.main(standalone_mode=False)
    except CouncilError as exc:
        click.echo(f"council: {exc}", err=True)
        code = exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("council: interrupted", err=True)
        code = ExitCode.INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except Exception as exc:  # a bug: say so briefly, in full under -v
        if verbose:
            raise
        click.echo(
            f"council: internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)",
            err=True,
        )
        code = ExitCode.INTERNAL
    sys.exit(int(code or ExitCode.OK))


__all__ = ["cli", "main"]
