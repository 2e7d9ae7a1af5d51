"""What `council doctor` reports: which CLIs this machine has, whether they can run, and which
debate seat each would take.

Probes run in parallel, each with a short timeout. The auth column is a local look for
credentials (environment variables, credential files): fast, offline, and only a hint, since
some logins live where we do not look (the macOS keychain).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

from council.adapters import adapter_for, default_order, known_names
from council.config import Config
from council.debate.seating import DefaultSeats, default_seats
from council.runner import confine
from council.runner.resolve import PROBE_TIMEOUT_S, Resolution, resolve_tool


@dataclass(frozen=True)
class DoctorReport:
    rows: list[Resolution]
    seats: DefaultSeats
    environ: Mapping[str, str]

    @property
    def usable_vendor_clis(self) -> list[str]:
        return [
            r.adapter.display_name
            for r in self.rows
            if r.tool is not None and r.adapter.vendor != "sim"
        ]


async def run_doctor(
    config: Config, timeout_s: float = PROBE_TIMEOUT_S, environ: Mapping[str, str] | None = None
) -> DoctorReport:
    adapters = [adapter_for(name, config.clis) for name in known_names(config.clis)]
    rows: list[Resolution | None] = [None] * len(adapters)

    async def probe(i: int) -> None:
        rows[i] = await resolve_tool(adapters[i], timeout_s)

    async with anyio.create_task_group() as tg:
        for i in range(len(adapters)):
            tg.start_soon(probe, i)
    done = [r for r in rows if r is not None]
    usable = [
        r.adapter.display_name
        for r in done
        if r.tool is not None and r.adapter.display_name in default_order()
    ]
    vendors = {r.adapter.display_name: r.adapter.vendor for r in done}
    seats = default_seats(usable, lambda name: vendors[name])
    return DoctorReport(done, seats, os.environ if environ is None else environ)


def _state(row: Resolution) -> str:
    if row.tool is not None:
        return "ok"
    return "unusable" if row.found else "missing"


def _version_note(row: Resolution) -> str | None:
    tested = row.adapter.tested_version
    version = row.version.version if row.version else None
    if version and tested and version not in tested:
        return f"not tested with {version}; tested with {tested}"
    return None


def _auth(row: Resolution, environ: Mapping[str, str]) -> dict:
    state = row.adapter.auth_state(environ, Path(environ.get("HOME", "~")).expanduser())
    return {"found": state.found, "source": state.source}


def report_json(report: DoctorReport) -> dict:
    clis = []
    for row in report.rows:
        a = row.adapter
        clis.append(
            {
                "name": a.display_name,
                "adapter": a.settings.adapter,
                "vendor": a.vendor,
                "state": _state(row),
                "path": row.tool.command[0] if row.tool else None,
                "command": list(row.tool.command) if row.tool else list(a.command()),
                "version": row.version.version if row.version else None,
                "variant": row.version.variant if row.version else None,
                "tested_version": a.tested_version,
                "version_note": _version_note(row),
                "problem": row.problem,
                "auth": _auth(row, report.environ),
                "default_seats": report.seats.seats_of(a.display_name),
                "sandbox": a.sandbox,
                "soft_timeout_s": a.soft_timeout(a.settings.effort),
            }
        )
    return {
        "clis": clis,
        "defaults": {
            "advocate": report.seats.advocate,
            "critic": report.seats.critic,
            "lead": report.seats.lead,
        },
        "usable": report.usable_vendor_clis,
        "can_debate": bool(report.usable_vendor_clis),
        # Write confinement of every CLI call (runner/confine.py): the Landlock ABI, 0 = none.
        "landlock_abi": confine.abi(),
        "write_confinement": confine.status_line(),
    }
