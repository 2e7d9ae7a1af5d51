"""Living with runs: `wait`, `status`, `list`, `show`, `cancel`, `resume`, and the hidden
command a detached run executes. A run is named by its id, any unique prefix of it, or `last`."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from council.cli.app import CliState, cli, collect_from_now, output_options
from council.cli.debate import json_option, output_option
from council.cli.options import FiniteRange
from council.cli.results import check_output, emit, emit_run
from council.errors import ExitCode, RecordWriteError, UsageError

if TYPE_CHECKING:
    from council.runs.record import Record

CURSOR = ".wait-cursor"  # how many progress lines `council wait` has printed already
_POLL_S = 0.2
_CANCEL_WAIT_S = 20.0

run_id_argument = click.argument("run_id", metavar="ID")
scratchpad_option = click.option(
    "--scratchpad", metavar="DIR", help="Where records are (default .scratchpad)."
)


def _find(state: CliState, run_id: str, scratchpad: str | None) -> Record:
    from council.runs.store import find_run

    config = state.config()
    return find_run(Path(scratchpad or config.scratchpad).expanduser().absolute(), run_id)


@cli.command()
@run_id_argument
@click.option(
    "--timeout",
    "timeout_s",
    type=FiniteRange(min=0),
    help="Give up after S seconds (exit 75, the run goes on). Default: wait to the end.",
)
@click.option(
    "--since",
    type=click.IntRange(min=0),
    help="Print progress lines after the first N (default: after those already printed).",
)
@json_option
@scratchpad_option
@click.pass_obj
def wait(
    state: CliState,
    run_id: str,
    timeout_s: float | None,
    since: int | None,
    as_json: bool,
    scratchpad: str | None,
) -> ExitCode:
    """Follow a run: print its new progress lines, then its result as `debate` would.

    Exit with the run's own code once it ends; 75 if it still runs after --timeout, so an
    IDE tool call can wait a few minutes at a time.

    Example: council wait last --timeout 100
    """
    from council.panel.protocol import load_result, reading_result
    from council.protocols import protocol_of
    from council.runs.store import (
        new_progress_lines,
        read_state,
        recorded_exit,
        seat_counts,
        settled_state,
        status_line,
        summarize,
    )

    record = _find(state, run_id, scratchpad)
    cursor_file = record.file(CURSOR)
    cursor = since if since is not None else _read_cursor(cursor_file)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        summary = summarize(record)  # before reading: lines written before it ended are in
        lines = new_progress_lines(record, cursor)
        for line in lines:
            click.echo(line, err=True)
        cursor += len(lines)
        _write_cursor(cursor_file, cursor)
        if summary.settled:
            break
        if deadline is not None and time.monotonic() >= deadline:
            counts = seat_counts(record, read_state(record))
            click.echo(f"still running: {status_line(summary, counts)}", err=True)
            click.echo(f"wait again: council wait {record.id} --since {cursor}", err=True)
            return ExitCode.STILL_RUNNING
        time.sleep(_POLL_S)
    # A run whose process died without ending it is interrupted (exit 130) in its JSON too,
    # as `show` and `status` report it: a script reads the status, not only the exit code.
    run_state = settled_state(record, read_state(record))
    error = run_state.get("error")
    code = recorded_exit(record, run_state)
    protocol = protocol_of(record)
    form = "json" if as_json else protocol.default_form(run_state.get("plan") or {})
    result = load_result(protocol, record, run_state)
    with reading_result(record, run_state):
        return emit(protocol, result, code, error, form=form)


def _read_cursor(path: Path) -> int:
    try:
        return max(0, int(path.read_text().strip() or 0))
    except (OSError, ValueError):
        return 0


def _write_cursor(path: Path, cursor: int) -> None:
    """Remember how far `wait` printed, when the record lets us: a record that is read-only
    (a CI artifact, another user's) is only read, and a later `wait` prints from the start
    (or from --since)."""
    from council.atomicio import write_private

    with contextlib.suppress(OSError):
        write_private(path, f"{cursor}\n")


@cli.command()
@run_id_argument
@json_option
@scratchpad_option
@click.pass_obj
def status(state: CliState, run_id: str, as_json: bool, scratchpad: str | None) -> ExitCode:
    """One line about a run: status, phase, seats ok/failed/waiting, elapsed time.

    Example: council status last
    """
    import json

    from council.runs.store import (
        read_state,
        seat_counts,
        settled_state,
        status_line,
        summarize,
    )

    record = _find(state, run_id, scratchpad)
    # A run whose process died before it recorded its end (cancelled while it was still
    # being set up, killed) is interrupted with exit 130, as `show` and `wait` report it.
    run_state = settled_state(record, read_state(record))
    summary = summarize(record, run_state)
    counts = seat_counts(record, run_state)
    if as_json:
        click.echo(json.dumps({**summary.to_json(), "seats": counts}, indent=2))
    else:
        click.echo(status_line(summary, counts))
    return ExitCode.OK


@cli.command(name="list")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@json_option
@scratchpad_option
@click.pass_obj
def list_runs(state: CliState, limit: int, as_json: bool, scratchpad: str | None) -> ExitCode:
    """The runs in the scratchpad, newest first: id, date, status, rounds, question.

    Example: council list --limit 5
    """
    import json

    from council.runs.store import records, summarize

    config = state.config()
    pad = Path(scratchpad or config.scratchpad).expanduser().absolute()
    summaries = []
    for record in records(pad)[:limit]:
        try:
            summaries.append(summarize(record))
        except (OSError, ValueError, UsageError) as exc:
            # A record being written or damaged: one line, and the others still listed.
            click.echo(f"council: skipped {record.id}: {exc}", err=True)
    if as_json:
        click.echo(json.dumps([s.to_json() for s in summaries], indent=2))
        return ExitCode.OK
    if not summaries:
        click.echo(f"no runs in {pad} yet; start one with `council debate`", err=True)
        return ExitCode.OK
    for s in summaries:
        date = s.started_at[:16].replace("T", " ")
        question = " ".join(s.question.split())
        question = question if len(question) <= 60 else question[:57] + "..."
        rounds = f"{s.rounds_run}/{s.rounds}"
        click.echo(f"{s.id}  {date}  {s.status:<11}  {rounds:<4}  {question}")
    return ExitCode.OK


@cli.command()
@run_id_argument
@click.option(
    "--md", "form", flag_value="md", default=True, help="The DECISION (or findings) as Markdown."
)
@click.option("--json", "form", flag_value="json", help="The result JSON.")
@click.option("--sarif", "form", flag_value="sarif", help="A review's findings as SARIF 2.1.0.")
@click.option(
    "--html",
    "form",
    flag_value="html",
    help="Write a self-contained page (a debate's decision or a review's findings, the "
    "record, a timeline of every call) into the record and print its path.",
)
@scratchpad_option
@click.pass_obj
def show(state: CliState, run_id: str, form: str, scratchpad: str | None) -> ExitCode:
    """Print a run's record: a debate's DECISION or a review's findings as Markdown, or its
    result JSON (a review also as SARIF); or write it as one HTML page with a timeline of
    every call.

    Example: council show last --json | jq .decision.recommendation

    Example: council show last --html
    """
    from council.panel.protocol import load_result, reading_result, rendered
    from council.protocols import protocol_of
    from council.runs.store import read_state, settled_state

    record = _find(state, run_id, scratchpad)
    protocol = protocol_of(record)
    run_state = settled_state(record, read_state(record))
    if form not in ("json", "html", *protocol.forms):
        raise UsageError(f"{record.id} is a {protocol.kind}: --{form} is not one of its forms")
    result = load_result(protocol, record, run_state)
    if form == "html":
        # Here, not at the top: Jinja2 and the report stay out of `council --version`.
        from council.report.page import REPORT

        with reading_result(record, run_state):
            try:
                protocol.write_report(record, result, run_state)
            except RecordWriteError as exc:
                raise UsageError(
                    f"cannot write the page {exc.path}: {exc.cause.strerror or exc.cause}; "
                    "nothing else was written: copy the record somewhere writable and run "
                    "`council show <copy> --html` there"
                ) from None
        click.echo(record.display() + REPORT)
    else:
        with reading_result(record, run_state):
            text = rendered(protocol, result, form)
        click.echo(text, nl=False)
    return ExitCode.OK


@cli.command()
@run_id_argument
@scratchpad_option
@click.pass_obj
def cancel(state: CliState, run_id: str, scratchpad: str | None) -> ExitCode:
    """Stop a running (e.g. detached) run as Ctrl-C would; it stays resumable.

    Example: council cancel last && council resume last
    """
    from council.runs.store import cancel_run

    record = _find(state, run_id, scratchpad)
    pid = cancel_run(record, _CANCEL_WAIT_S)
    if pid is not None:
        click.echo(
            f"council: {record.id} (process {pid}) is still stopping after "
            f"{_CANCEL_WAIT_S:g}s; check with: council status {record.id}",
            err=True,
        )
        return ExitCode.STILL_RUNNING
    click.echo(f"cancelled {record.id}; resume with: council resume {record.id}", err=True)
    return ExitCode.OK


@cli.command(name="run-detached", hidden=True)
@click.argument("record_path", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--lock-fd", type=int, required=True)
@click.pass_obj
def run_detached(state: CliState, record_path: Path, lock_fd: int) -> ExitCode:
    """The process `council debate --detach` (or `review --detach`) starts: runs the
    prepared record."""
    from council.panel.run import run_detached as run_prepared
    from council.protocols import protocol_of

    config = state.config()
    collect_from_now()
    # stderr is the record's progress.log: the progress lines are the log.
    protocol = protocol_of(record_path.name)
    code = run_prepared(protocol, record_path, lock_fd, config, state.progress()).exit_code
    sys.stderr.flush()
    return code


@cli.command()
@run_id_argument
@json_option
@output_option
@scratchpad_option
@output_options
@click.pass_obj
def resume(
    state: CliState, run_id: str, as_json: bool, output: Path | None, scratchpad: str | None
) -> ExitCode:
    """Continue an interrupted or failed debate or review, reusing every reply already on
    disk.

    Example: council resume debate-20261122-143005-k3x9
    """
    from council.panel.run import resume as resume_run
    from council.protocols import protocol_of
    from council.runs.store import read_state

    config = state.config()
    record = _find(state, run_id, scratchpad)
    protocol = protocol_of(record)
    if output is not None:  # never one of the run's own inputs, as when it started
        files = read_state(record)["plan"].get("files") or ()  # read_state: plan is a dict
        check_output(output, tuple(str(f) for f in files), "")
    collect_from_now()
    run = resume_run(protocol, record, config, state.progress(), cwd=Path.cwd())
    form = "json" if as_json else protocol.default_form(run.state.plan)
    return emit_run(run, form, output)
