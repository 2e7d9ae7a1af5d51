"""`council doctor`: the report of `council.doctor`, as a table or JSON; `--probe` checks the
roles a debate with no flags seats (`debate.doctor_roles`)."""

from __future__ import annotations

import click

from council.cli.app import CliState, cli
from council.cli.options import FiniteRange
from council.errors import ExitCode

probe_timeout_option = click.option(
    "--timeout",
    "timeout_s",
    type=FiniteRange(min=0.5),
    default=10.0,
    show_default=True,
    help="Seconds each CLI's version probe may take.",
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@probe_timeout_option
@click.option(
    "--probe",
    is_flag=True,
    help="Also make one tiny real call per installed CLI (in parallel, no files, nothing "
    "written to the project); exit 3 when a CLI of the configured roles cannot answer.",
)
@click.option(
    "--probe-timeout",
    "probe_timeout_s",
    type=FiniteRange(min=1.0),
    default=60.0,
    show_default=True,
    help="Seconds each --probe call may take, start-up included.",
)
@click.pass_obj
def doctor(
    state: CliState, as_json: bool, timeout_s: float, probe: bool, probe_timeout_s: float
) -> ExitCode:
    """List every known CLI: found or not, version (tested or not), auth, default seat,
    read-only flags; with --probe, whether each one answers a real call.

    Exit 0 when at least one AI CLI can run a debate, else 3; with --probe, also 3 when a CLI
    of the roles a debate would seat cannot answer (auth, rate limit, timeout, error).

    Example: council doctor --probe --json | jq '.probe.failed'
    """
    import json

    import anyio

    from council.debate.doctor_roles import configured_roles
    from council.doctor import report_json, run_doctor

    config = state.config()
    report = report_json(
        anyio.run(
            run_doctor,
            config,
            timeout_s,
            None,
            probe_timeout_s if probe else None,
            configured_roles,
        )
    )
    click.echo(json.dumps(report, indent=2) if as_json else render_table(report))
    if not report["can_debate"]:
        click.echo(
            "council: no usable AI CLI found; install one, or use --sim to try council offline",
            err=True,
        )
        return ExitCode.NO_CLI
    if report["probe"] is not None and report["probe"]["failed"]:
        failed = {
            c["name"]: c["probe"] for c in report["clis"] if c["name"] in report["probe"]["failed"]
        }
        said = "; ".join(f"{name}: {p['status']}" for name, p in failed.items())
        click.echo(f"council: a CLI of the configured roles cannot answer ({said})", err=True)
        return ExitCode.NO_CLI
    return ExitCode.OK


def render_table(data: dict) -> str:
    probed = data["probe"] is not None
    header = ("CLI", "STATE", "VERSION", "AUTH", "SEAT", "READ-ONLY")
    header += ("PROBE", "PATH / PROBLEM") if probed else ("PATH / PROBLEM",)
    lines = [header]
    for row in data["clis"]:
        auth = row["auth"]
        auth_text = {True: "found", False: "none found", None: "unknown"}[auth["found"]]
        # Found: whether it bills a metered key or the CLI's own login.
        auth_text = {"api_key": "api key", "login": "login"}.get(row["billing"]["mode"], auth_text)
        version = row["version"] or "-"
        if row["variant"]:
            version += f" ({row['variant']})"
        if row["version_note"]:
            version += " *"
        seats = ",".join(row["default_seats"]) or ("--sim" if row["vendor"] == "sim" else "-")
        where = row["path"] if row["state"] == "ok" else row["problem"]
        cells = (row["name"], row["status"], version, auth_text, seats, row["sandbox"])
        if probed:
            cells += (_probe_cell(row["probe"]),)
        lines.append((*cells, where or "-"))
    widths = [max(len(row[i]) for row in lines) for i in range(len(header) - 1)]
    out = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)) + "  " + row[-1]
        for row in lines
    ]
    out.extend(f"* {c['name']}: {c['version_note']}" for c in data["clis"] if c["version_note"])
    out.extend(f"! {b['warning']}" for c in data["clis"] for b in c["known_broken"])
    if probed:
        out.extend(
            f"probe {c['name']}: {c['probe']['status']}: {c['probe']['detail']}"
            for c in data["clis"]
            if c["probe"] is not None and c["probe"]["status"] != "ok"
        )
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
    if probed and data["can_debate"]:
        out.append(_probe_summary(data["probe"]))
    return "\n".join(out)


def _probe_cell(probe: dict | None) -> str:
    if probe is None:
        return "-"
    if probe["status"] == "ok" and probe["latency_s"] is not None:
        return f"ok {probe['latency_s']:.1f}s"
    return probe["status"]


def _probe_summary(probe: dict) -> str:
    roles = probe["roles"]
    seated = " ".join(
        f"{role}={roles[role]}" for role in ("advocate", "critic", "lead") if roles[role]
    )
    if roles["proxies"]:
        seated += f" proxies={','.join(roles['proxies'])}"
    if probe["failed"]:
        return f"probe: cannot answer: {', '.join(probe['failed'])} (roles: {seated})"
    return f"probe: every CLI of the roles answered ({seated})"
