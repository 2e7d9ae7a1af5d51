"""`council doctor`: the report of `council.debate.doctor`, as a table or JSON."""

from __future__ import annotations

import click

from council.cli.app import CliState, cli
from council.errors import ExitCode

probe_timeout_option = click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0.5),
    default=10.0,
    show_default=True,
    help="Seconds each CLI's version probe may take.",
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@probe_timeout_option
@click.pass_obj
def doctor(state: CliState, as_json: bool, timeout_s: float) -> ExitCode:
    """List every known CLI: found or not, version, auth, default seat, read-only flags.

    Exit 0 when at least one AI CLI can run a debate, else 3.

    Example: council doctor --json | jq '.usable'
    """
    import json

    import anyio

    from council.debate.doctor import report_json, run_doctor

    config = state.config()
    report = report_json(anyio.run(run_doctor, config, timeout_s))
    click.echo(json.dumps(report, indent=2) if as_json else render_table(report))
    if not report["can_debate"]:
        click.echo(
            "council: no usable AI CLI found; install one, or use --sim to try council offline",
            err=True,
        )
        return ExitCode.NO_CLI
    return ExitCode.OK


def render_table(data: dict) -> str:
    header = ("CLI", "STATE", "VERSION", "AUTH", "SEAT", "READ-ONLY", "PATH / PROBLEM")
    lines = [header]
    for row in data["clis"]:
        auth = row["auth"]
        auth_text = {True: "found", False: "none found", None: "unknown"}[auth["found"]]
        version = row["version"] or "-"
        if row["variant"]:
            version += f" ({row['variant']})"
        if row["version_note"]:
            version += " *"
        seats = ",".join(row["default_seats"]) or ("--sim" if row["vendor"] == "sim" else "-")
        where = row["path"] if row["state"] == "ok" else row["problem"]
        lines.append(
            (row["name"], row["state"], version, auth_text, seats, row["sandbox"], where or "-")
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header) - 1)]
    out = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)) + "  " + row[-1]
        for row in lines
    ]
    notes = [f"* {c['name']}: {c['version_note']}" for c in data["clis"] if c["version_note"]]
    out.extend(notes)
    out.append(f"write confinement: {data['write_confinement']}")
    if data["can_debate"]:
        d = data["defaults"]
        out.append(
            f"ready: advocate={d['advocate']} critic={d['critic']} lead={d['lead']} "
            f"({len(data['usable'])} usable: {', '.join(data['usable'])})"
        )
    else:
        out.append(
            "no AI CLI can run a debate here: install one (see PATH / PROBLEM), or "
            "run the offline simulator with --sim"
        )
    return "\n".join(out)
