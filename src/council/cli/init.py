"""`council init`: write a commented council.yaml for the CLIs found on this machine."""

from __future__ import annotations

from pathlib import Path

import click

from council.cli.app import CliState, cli
from council.cli.doctor import probe_timeout_option
from council.errors import ExitCode, UsageError


@cli.command()
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@probe_timeout_option
@click.pass_obj
def init(state: CliState, force: bool, timeout_s: float) -> ExitCode:
    """Write ./council.yaml (or the --config path) with every key at its default, the seats
    `council doctor` picks here, and an entry for each CLI it finds.

    Its first line points YAML editors at council's schema, so they check and complete keys.

    Example: council init && council config show
    """
    import anyio

    from council.config import Config
    from council.config.template import FoundCli, render_template
    from council.doctor import run_doctor

    path = state.config_path or Path("council.yaml")
    if path.exists() and not force:
        raise UsageError(f"{path} exists; use --force to overwrite it")
    # The built-in CLIs only: the file written describes this machine, whatever the user file
    # (or a broken council.yaml being replaced) says.
    report = anyio.run(run_doctor, Config(), timeout_s)
    found = [
        FoundCli(row.adapter, row.tool.version)
        for row in report.rows
        if row.tool is not None and row.adapter.display_name in report.usable_vendor_clis
    ]
    seats = report.seats
    text = render_template(seats.advocate, seats.critic, seats.lead, found)
    try:
        with path.open("w" if force else "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise UsageError(f"{path} exists; use --force to overwrite it") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    names = ", ".join(cli.adapter.display_name for cli in found) or "none"
    seated = (
        f"advocate {seats.advocate}, critic {seats.critic}, lead {seats.lead}"
        if seats.advocate
        else "no seats: no AI CLI found (council doctor says why)"
    )
    click.echo(f"wrote {path}: {seated}; CLIs: {names}")
    click.echo("check it with: council config show", err=True)
    return ExitCode.OK
