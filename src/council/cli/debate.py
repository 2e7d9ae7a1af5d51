"""`council debate` and `council resume` (of a debate or a review): run the protocol, print
its result."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from council.cli.app import (
    CliState,
    announce_detached,
    cli,
    collect_from_now,
    output_options,
    run_options,
)
from council.cli.options import FiniteRange, MultiValueOption
from council.errors import ExitCode, UsageError
from council.question import READ_LIMIT, checked_question

if TYPE_CHECKING:
    from council.config import Config
    from council.debate.plan import DebateFlags as DebatePlanFlags
    from council.debate.run import DebateRun


def _read_question(question: str) -> str:
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


def emit_result(
    result: dict[str, Any],
    exit_code: ExitCode,
    error: str | None,
    *,
    as_json: bool,
    output: Path | None = None,
) -> ExitCode:
    """What `debate` prints when a run ends, and `wait` and `resume` alike: the result on
    stdout (Markdown, or JSON with `as_json`) when a DECISION was reached, the error and the
    record's path on stderr."""
    import json

    from council.debate.result import render_markdown

    markdown = render_markdown(result)
    as_text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    # JSON always (a script in CI needs the status of a failed run too); the Markdown
    # DECISION only when there is one.
    if as_json or result["status"] in ("completed", "degraded"):
        click.echo(as_text if as_json else markdown, nl=False)
    if error is not None:
        click.echo(f"council: {error}", err=True)
    if dropped := [s for s in result["seats"] if s["status"] == "dropped"]:
        click.echo("dropped: " + ", ".join(f"{s['name']} ({s['cli']})" for s in dropped), err=True)
    click.echo(f"saved: {result['scratchpad']}", err=True)
    if output is not None:
        _write_output(output, as_text if output.suffix == ".json" else markdown)
    return exit_code


def check_output(output: Path | None, files: tuple[str, ...], question: str) -> None:
    """Before any CLI runs: --output must be writable, and never one of the inputs."""
    if output is None:
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
            f"--output {output} is one of the debate's own inputs and would be overwritten; "
            "write the result somewhere else"
        )


def _write_output(output: Path, text: str) -> None:
    from council.atomicio import write_output

    try:
        write_output(output.expanduser(), text)
    except OSError as exc:
        raise UsageError(f"cannot write --output {output}: {exc.strerror}") from None


def _emit_run(run: DebateRun, as_json: bool, output: Path | None) -> ExitCode:
    error = str(run.error) if run.error is not None else None
    return emit_result(run.result, run.exit_code, error, as_json=as_json, output=output)


json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print the result JSON, not Markdown."
)
output_option = click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the result here (.json -> JSON, else Markdown).",
)


@cli.command(context_settings={"ignore_unknown_options": False})
@click.argument("question", nargs=-1)
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
@click.option(
    "--max-cost",
    type=FiniteRange(min=0, min_open=True),
    metavar="USD",
    help="Stop asking new calls once the cost the CLIs report reaches this; the DECISION is "
    "then built from what exists (CLIs that report no cost are listed as unpriced).",
)
@click.option("--sim", is_flag=True, help="Seat every role on the offline simulator.")
@json_option
@output_option
@click.option(
    "--no-blind",
    is_flag=True,
    help="Skip the BLIND TAKE (each challenger's own first answer, beside the proposal).",
)
@run_options
@output_options
@click.pass_obj
def debate(
    state: CliState,
    question: tuple[str, ...],
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
    max_cost: float | None,
    sim: bool,
    as_json: bool,
    output: Path | None,
    scratchpad: str | None,
    allow_outside: bool,
    allow_secrets: bool,
    no_blind: bool,
    cold: bool,
    no_lean: bool,
    detach: bool,
) -> ExitCode:
    """Run a structured debate and print the DECISION.

    Exit codes: 0 completed, 2 bad input, 3 no usable CLI for a required seat, 4 config
    error, 5 degraded (no quorum, or no DECISION could be synthesized), 130 interrupted, 141
    the reader of stdout went away; 1 is kept for bugs.

    Example: council debate "Redis or Postgres for sessions?" --files app.py db.py --rounds 3

    In the background: council debate "..." --files app.py --detach, then council wait last
    """
    from council.debate.plan import DebateFlags
    from council.debate.run import start_debate

    if not question:
        raise UsageError(
            'the question is missing: give it first (council debate "question" --files a.py '
            'b.py), or end the file list with -- (--files a.py b.py -- "question")'
        )
    # Unquoted, as people type it (`/debate Should we cache? --files a.py`): its words
    # joined; `-` (stdin) and `@file.md` only as the whole argument.
    asked = question[0] if len(question) == 1 else " ".join(question)
    flags = DebateFlags(
        question=_read_question(asked),
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
        max_cost=max_cost,
        sim=sim,
        scratchpad=scratchpad,
        allow_outside=allow_outside,
        allow_secrets=allow_secrets,
        no_blind=no_blind,
        cold=cold,
        no_lean=no_lean,
    )
    check_output(output, files, asked)
    config = state.config()
    if detach:
        if output is not None:  # nobody is left to write it when the run ends
            raise UsageError(
                "--output with --detach: the run ends in the background; write its result "
                "then with `council wait ID > FILE` (or `council show ID --json > FILE`)"
            )
        return _detach(state, flags, config, as_json)
    collect_from_now()
    run = start_debate(flags, config, state.progress())
    return _emit_run(run, as_json, output)


def _detach(state: CliState, flags: DebatePlanFlags, config: Config, as_json: bool) -> ExitCode:
    from council.debate.run import detach_debate

    record = detach_debate(flags, config, state.progress(), council_args=state.global_args())
    return announce_detached(record, as_json)


@cli.command()
@click.argument("debate_id", metavar="ID")
@json_option
@output_option
@click.option("--scratchpad", metavar="DIR", help="Where records are (default .scratchpad).")
@output_options
@click.pass_obj
def resume(
    state: CliState, debate_id: str, as_json: bool, output: Path | None, scratchpad: str | None
) -> ExitCode:
    """Continue an interrupted or failed debate or review, reusing every reply already on
    disk.

    Example: council resume debate-20261122-143005-k3x9
    """
    from council.debate.run import resume_debate
    from council.runs.record import kind_of
    from council.runs.store import find_run, read_state

    config = state.config()
    pad = Path(scratchpad or config.scratchpad).expanduser().absolute()
    record = find_run(pad, debate_id)
    if output is not None and kind_of(record.id) == "review":
        raise UsageError(
            f"--output with the resume of a review: {record.id} writes the --output it was "
            "started with; resume it without, then `council show` it in the form you need"
        )
    # Never one of the run's own inputs, as when it started.
    plan = read_state(record).get("plan") if output is not None else None
    files = tuple(str(f) for f in (plan or {}).get("files") or ()) if isinstance(plan, dict) else ()
    check_output(output, files, "")
    collect_from_now()
    if kind_of(record.id) == "review":
        from council.cli.review import emit_review_run
        from council.review.run import resume_review

        review = resume_review(record, config, state.progress(), cwd=Path.cwd())
        form = "json" if as_json else review.record.read_json("state.json")["plan"]["format"]
        return emit_review_run(review, form)
    run = resume_debate(str(record.path), config, state.progress(), scratchpad=scratchpad)
    return _emit_run(run, as_json, output)
