"""The `council` click group, its global options, and what every command shares.

Each command lives in a module of its own (`council.cli.debate`, `council.cli.doctor`, ...),
registers itself on `cli` and returns its exit code. `CouncilGroup.invoke` is the one place
where a command's result or error becomes an exit code and a message.
"""

from __future__ import annotations

import errno
import gc
import itertools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from council import DISTRIBUTION, __version__
from council.cli.typedargs import splice_stdin_args, takes_args_stdin
from council.errors import CouncilError, ExitCode

if TYPE_CHECKING:
    from council.config import Config
    from council.panel.protocol import RunProtocol
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

    def global_args(self) -> tuple[str, ...]:
        """The global options again, for a council this one starts (a detached run)."""
        args: tuple[str, ...] = ()
        if self.config_path is not None:
            args += ("--config", str(self.config_path.resolve()))
        if self.verbose:
            args += ("--verbose",)
        return args

    def progress(self) -> Progress:
        from council.progress import Progress

        return Progress(quiet=self.quiet, verbose=self.verbose)


def collect_from_now() -> None:
    """Turn the garbage collector back on once a long command has loaded its modules (see
    `council.cli.main`); the start-up heap lives as long as the process: never traverse it."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


class CouncilGroup(click.Group):
    """Runs a command and turns what it returns or raises into an exit code: an `ExitCode`
    returned, a `CouncilError` (its message on one line, its code), an interrupt (130), or a
    bug (exit 1; a short message, or the traceback under -v). Usage errors stay click's
    (exit 2, with the usage line)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and name != "mcp" and not ctx.resilient_parsing:
            from council.panel.launch import stops_raise

            # SIGTERM, SIGHUP and SIGQUIT end a command as Ctrl-C does (exit 130, `council:
            # interrupted`), before a run starts too (a question read from a FIFO); a run
            # drives its own handling. `council mcp` is its host's to stop.
            ctx.with_resource(stops_raise())
        if command is not None:
            if takes_args_stdin(command) and not ctx.resilient_parsing:
                rest = splice_stdin_args(rest)
            _no_flag_as_a_value(command, rest)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> Any:
        try:
            os.getcwd()
        except FileNotFoundError:
            click.echo(
                "council: the current directory no longer exists; cd to one that does", err=True
            )
            ctx.exit(ExitCode.USAGE)
        try:
            code = super().invoke(ctx)
        except CouncilError as exc:
            _say(f"council: {exc}")
            code = exc.exit_code
        except (click.exceptions.Exit, click.ClickException):
            raise
        except (click.exceptions.Abort, KeyboardInterrupt):
            _say("council: interrupted")
            code = ExitCode.INTERRUPTED
        except BrokenPipeError:
            # The reader went away (`council ... | head -1`): nothing left to say to it.
            _silence(sys.stdout)
            code = ExitCode.BROKEN_PIPE
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                # stdout on a full disk (`> /dev/full`, a quota, `ulimit -f`): no bug, and a
                # run's result is safe in its record.
                _silence(sys.stdout)
                _say(
                    f"council: cannot write {exc.filename or 'the output'}: {exc.strerror}; "
                    "a run's result stays in its record (`council show last`)"
                )
                code = ExitCode.USAGE
            elif exc.errno in (errno.EIO, errno.ENXIO):
                # The terminal closed (its window, an ssh session): the run ended as Ctrl-C
                # ends it (SIGHUP), and there is no one left to tell.
                _silence(sys.stdout)
                _silence(sys.stderr)
                code = ExitCode.INTERRUPTED
            else:
                raise
        except Exception as exc:
            if _verbose(ctx):
                raise
            where = getattr(exc, "council_traceback", None) or _keep_traceback(exc)
            click.echo(
                f"council: internal error: {type(exc).__name__}: {exc}; this is a bug: please "
                f"report it with the traceback in {where}",
                err=True,
            )
            code = ExitCode.INTERNAL
        for stream in (sys.stdout, sys.stderr):
            # What is still buffered for a terminal that closed would fail at exit (status 120).
            try:
                stream.flush()
            except (OSError, ValueError):
                _silence(stream)
        ctx.exit(int(code or ExitCode.OK))


def _no_flag_as_a_value(command: click.Command, args: list[str]) -> None:
    """A usage error when an option that takes a value is given another option instead
    (`--diff --sim`): click would take `--sim` as the value, and the run would fail later
    for a reason that names neither (exit 3: no usable CLI)."""
    takes_value = {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag and not param.count
        for name in param.opts
    }
    for given, following in itertools.pairwise(args):
        if given == "--":
            return
        if given in takes_value and following.startswith("--") and len(following) > 2:
            raise click.UsageError(f"{given} needs a value, and was given the option {following}")


def _keep_traceback(exc: BaseException) -> str:
    """A bug outside any run: its traceback in the temporary directory."""
    import tempfile
    import traceback

    path = Path(tempfile.gettempdir()) / f"council-{os.getpid()}.err"
    try:
        path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        return "(nowhere: the temporary directory is not writable; run with -v)"
    return str(path)


def _silence(stream: Any) -> None:
    """Point `stream` at /dev/null, so the interpreter's final flush finds no broken pipe or
    closed terminal."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _say(text: str) -> None:
    """One line on stderr, unless nobody is there any more (a closed terminal)."""
    try:
        click.echo(text, err=True)
    except OSError:
        _silence(sys.stderr)


def _verbose(ctx: click.Context) -> bool:
    state = ctx.find_object(CliState)
    return bool(state and state.verbose) or any(a in ("-v", "--verbose") for a in sys.argv[1:])


@click.group(cls=CouncilGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="council", message=f"%(prog)s ({DISTRIBUTION}) %(version)s"
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    help="Config file (default: ./council.yaml, then ~/.config/council/config.yaml).",
)
@click.option("-v", "--verbose", is_flag=True, help="Show argv, timings and tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors on stderr.")
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None, verbose: bool, quiet: bool) -> None:
    """Run a structured debate between AI coding CLIs and get a decision back."""
    ctx.obj = CliState(config_path, verbose, quiet)


def detach_run(
    state: CliState, protocol: RunProtocol, flags: Any, config: Config, as_json: bool
) -> ExitCode:
    """`debate --detach` and `review --detach`: start the run in a process of its own, then
    print its id and record (as JSON with --json), and on stderr how to follow it."""
    import json

    from council.panel.run import detach

    record = detach(protocol, flags, config, state.progress(), council_args=state.global_args())
    shown = record.display()
    if as_json:
        click.echo(json.dumps({"id": record.id, "record": shown}))
    else:
        click.echo(f"{record.id} {shown}")
    click.echo(f"started in the background; follow it with: council wait {record.id}", err=True)
    return ExitCode.OK


def detach_option(command: F) -> F:
    """`--detach`, which a debate and a review share: the run goes on in the background. The
    options of the run itself are generated from its flags (`cli/options.flag_options`)."""
    return click.option(
        "--detach",
        is_flag=True,
        help="Run in the background: print the id and the record, exit at once (see `wait`).",
    )(command)


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
