"""What a command prints when a run ends (`debate`, `review`, `wait`, `resume` alike), for
any protocol: the result on stdout when the run reached it (JSON always: a script in CI
needs the status of a failed run too), the protocol's notes, the error and the record's path
on stderr; and `--output`, checked before any CLI runs and written at the end."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from council.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from council.panel.protocol import RunProtocol
    from council.panel.run import Run

json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print the result JSON, not Markdown."
)
output_option = click.option(
    "--output",
    # Written, never read: `/dev/stdout` may be a pipe this user cannot open for reading.
    type=click.Path(path_type=Path, dir_okay=False, readable=False),
    help="Also write the result here, in the form its suffix names (.json, .md, a review's "
    ".sarif), else as printed.",
)


def emit(
    protocol: RunProtocol,
    result: dict[str, Any],
    exit_code: ExitCode,
    error: str | None,
    *,
    form: str,
    output: Path | None = None,
) -> ExitCode:
    from council.panel.protocol import ENDED, rendered

    reached = result["status"] in ENDED
    gone: BrokenPipeError | None = None
    if form == "json" or reached:
        try:
            click.echo(rendered(protocol, result, form), nl=False)
        except BrokenPipeError as exc:
            gone = exc  # stdout's reader left (`| head`): the rest is still said and written
    for note in protocol.notes(result):
        click.echo(note, err=True)
    if error is not None:
        click.echo(f"council: {error}", err=True)
    click.echo(f"saved: {result['scratchpad']}", err=True)
    if output is not None:
        _write_output(output, rendered(protocol, result, output_form(protocol, output, form)))
    if gone is not None:
        raise gone
    return exit_code


def emit_run(run: Run, form: str, output: Path | None = None) -> ExitCode:
    error = str(run.error) if run.error is not None else None
    return emit(run.protocol, run.result, run.exit_code, error, form=form, output=output)


def output_form(protocol: RunProtocol, output: Path, printed: str) -> str:
    """`--output`'s form by its suffix (`.json`, `.md`, `.sarif`), else the printed one's."""
    suffix = output.suffix.lower().lstrip(".")
    return suffix if suffix == "json" or suffix in protocol.forms else printed


def check_output(output: Path | None, files: tuple[str, ...], question: str) -> None:
    """Before any CLI runs: --output must be writable, and never one of the inputs."""
    if output is None:
        return
    if _written_in_place(output.expanduser()):
        if not os.access(output.expanduser(), os.W_OK):
            raise UsageError(f"--output {output}: not writable")
        return
    target = output.expanduser().resolve()
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"--output {output}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--output {output}: the folder {folder} is not writable")
    if target.is_dir():
        raise UsageError(f"--output {output} is a directory; give a file name")
    inputs = [Path(f).expanduser().resolve() for f in files]
    if question.startswith("@"):
        inputs.append(Path(question[1:]).expanduser().resolve())
    if target in inputs:
        raise UsageError(
            f"--output {output} is one of the run's own inputs and would be overwritten; "
            "write the result somewhere else"
        )


def own_descriptor(output: Path) -> bool:
    """`/dev/stdout` and its kin: this process's own descriptors, which a run detached into the
    background no longer shares with the caller."""
    name = str(output)
    return name in ("/dev/stdout", "/dev/stderr", "/dev/tty") or name.startswith(
        ("/dev/fd/", "/proc/self/fd/")
    )


def _written_in_place(path: Path) -> bool:
    """A device or FIFO (`/dev/stdout`, `/dev/null`, a named pipe): written as it is, never
    replaced, whatever folder it is in."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_output(output: Path, text: str) -> None:
    from council.atomicio import write_output

    try:
        write_output(output.expanduser(), text)
    except OSError as exc:
        raise UsageError(f"cannot write --output {output}: {exc.strerror}") from None
