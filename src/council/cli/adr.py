"""`council adr`: a debate's DECISION kept as a numbered ADR in the project's decisions
directory, and `--recheck`, which puts a recorded decision to a new panel (docs/spec/commands.md
"council adr"; the work is `council.adr`'s)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from council.cli.app import CliState, cli, collect_from_now, output_options
from council.cli.options import flag_options
from council.debate.flags import DebateFlags
from council.errors import ExitCode, UsageError
from council.options import options_of

# The panel's options that mean something without --recheck: where the records are.
_ALWAYS = {"scratchpad"}


@cli.command()
@click.argument("run_id", metavar="[ID]", required=False)
@click.option(
    "--recheck",
    "recheck_path",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="ADR",
    help="Put this ADR's decision to a new panel and append a dated `Rechecked` section "
    "(exit 7 when the panel rules it changed).",
)
@click.option(
    "--dir",
    "directory",
    metavar="DIR",
    help="The decisions directory (default: council.yaml's adr.dir, else the one the project "
    "has, else a new decisions directory in its documentation folder).",
)
@flag_options(DebateFlags)
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@output_options
@click.pass_obj
def adr(
    state: CliState,
    run_id: str | None,
    recheck_path: Path | None,
    directory: str | None,
    as_json: bool,
    **given: Any,
) -> ExitCode:
    """Write a finished debate's DECISION as the next numbered ADR (MADR or Nygard, as the
    directory's records are), or recheck a recorded decision with a new panel.

    Exit codes: 0 written (a recheck: unchanged or refined), 2 bad input (not a finished
    debate, a file that exists), 3 no usable CLI, 4 config error, 5 the recheck was degraded
    or named no verdict, 8 the recheck ruled the decision changed, 130 interrupted.

    Example: council adr last

    Example: council adr --recheck doc/adr/0003-use-postgres-for-sessions.md --files app.py
    --with codex,gemini
    """
    flags = DebateFlags(question="", **given)
    cwd = Path.cwd()
    config = state.config()
    if recheck_path is None:
        if run_id is None:
            raise UsageError(
                "give the debate to write down (council adr last, or its id), or an ADR to "
                "recheck (council adr --recheck <ADR file>)"
            )
        _no_panel_options(flags)
        from council.adr.write import write_adr

        scratchpad = Path(flags.scratchpad or config.scratchpad).expanduser().absolute()
        written = write_adr(
            run_id, scratchpad=scratchpad, cwd=cwd, given_dir=directory or config.adr.dir
        )
        shown = written.to_json(cwd)
        if as_json:
            click.echo(json.dumps(shown))
        else:
            click.echo(shown["path"])
            click.echo(
                f"ADR {written.layout.number} ({written.layout.template}) written from "
                f"{written.record.id}",
                err=True,
            )
        return ExitCode.OK
    if run_id is not None or directory is not None:
        raise UsageError(
            f"--recheck takes the ADR file alone; drop {run_id or '--dir'} "
            "(its new panel's options: --with, --rounds, --files, ...)"
        )
    from council.adr.recheck import recheck

    collect_from_now()
    done = recheck(recheck_path, flags, config, state.progress(), cwd=cwd)
    if as_json:
        click.echo(json.dumps({"path": str(recheck_path), **done.to_json()}))
    else:
        click.echo(done.section, nl=False)
    return done.exit_code


def _no_panel_options(flags: DebateFlags) -> None:
    """The panel's options belong to --recheck: refused rather than ignored."""
    for each in fields(DebateFlags):
        if each.name in _ALWAYS or each.name == "question":
            continue
        if getattr(flags, each.name) != each.default:
            flag = options_of(DebateFlags)[each.name].flag  # as typed: --with, not --proxies
            raise UsageError(f"{flag} is an option of --recheck (its new panel); drop it")
