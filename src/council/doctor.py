"""What `council doctor` reports: which CLIs this machine has, whether they can run, and which
default seat each would take (panel/seating.py).

Probes run in parallel, each with a short timeout. The auth column is a local look for
credentials (environment variables, credential files): fast, offline, and only a hint, since
some logins live where we do not look (the macOS keychain). `--probe` settles it: one tiny
real call per installed CLI, made as a debate's seat makes it (spawned, in an empty clean room
outside the project, lean), in parallel and bounded in time; nothing is written to the project
or the scratchpad.

A version is tested when council's contract tests ran that very release (`Adapter.is_tested`):
an untested one still runs, and says so.

Which CLIs `--probe` must find answering is the protocol's to say (`RolesOf`, given by the
front end), so the doctor knows no protocol.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from council.adapters import adapter_for, default_order, known_names
from council.adapters.base import Adapter, Status, Tool
from council.adapters.failures import telling_line
from council.config import Config
from council.context.roomdir import RoomDir
from council.panel.seating import DefaultSeats, default_seats
from council.prompts import render
from council.runner import CallFiles, RetryPolicy, Timeouts, confine, run_call
from council.runner.environment import adapter_env
from council.runner.resolve import PROBE_TIMEOUT_S, Resolution, resolve_tool

PROBE_GRACE_S = 2.0
ROLES = ("advocate", "critic", "lead", "proxies")
_PROBLEM_CHARS = 300

# The CLIs a run with no flags seats, by role (among the usable CLIs given), and the model and
# effort of the first seat of each CLI.
RoleClis = dict[str, tuple[str, ...]]
SeatModels = dict[str, tuple[str | None, str | None]]
RolesOf = Callable[[Config, set[str]], tuple[RoleClis, SeatModels]]


@dataclass(frozen=True)
class CallProbe:
    """How one CLI's tiny real call ended (`--probe`). `status`: a `Status` value, or the
    doctor state (missing, unusable) of a CLI of the roles that could not be started."""

    status: str
    detail: str = ""  # one line: what went wrong
    hint: str | None = None  # the adapter's fix (its login hint for auth)
    latency_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == Status.OK.value


@dataclass(frozen=True)
class DoctorReport:
    rows: list[Resolution]
    seats: DefaultSeats
    environ: Mapping[str, str]
    # --probe only: the CLIs a debate with no flags seats, by role, and each call's outcome.
    roles: Mapping[str, tuple[str, ...]] | None = None
    probes: Mapping[str, CallProbe] = field(default_factory=dict)
    probe_timeout_s: float | None = None

    @property
    def usable_vendor_clis(self) -> list[str]:
        return [
            r.adapter.display_name
            for r in self.rows
            if r.tool is not None and r.adapter.vendor != "sim"
        ]

    @property
    def failed_roles(self) -> list[str]:
        """The CLIs of the roles whose probe did not answer, in role order."""
        names = dict.fromkeys(n for clis in (self.roles or {}).values() for n in clis)
        return [n for n in names if not (n in self.probes and self.probes[n].ok)]


async def run_doctor(
    config: Config,
    timeout_s: float = PROBE_TIMEOUT_S,
    environ: Mapping[str, str] | None = None,
    probe_timeout_s: float | None = None,
    roles_of: RolesOf | None = None,
) -> DoctorReport:
    """`probe_timeout_s`: also make one real call per installed CLI, each bounded by it, and
    one per CLI of the roles `roles_of` names (none without it)."""
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
    env = os.environ if environ is None else environ
    if probe_timeout_s is None:
        return DoctorReport(done, seats, env)
    found = {r.adapter.display_name for r in done if r.tool}
    roles, specs = roles_of(config, found) if roles_of is not None else ({}, {})
    probes = await _probe_calls(done, roles, specs, probe_timeout_s, env)
    return DoctorReport(done, seats, env, roles, probes, probe_timeout_s)


async def _probe_calls(
    rows: list[Resolution],
    roles: Mapping[str, tuple[str, ...]],
    specs: Mapping[str, tuple[str | None, str | None]],
    timeout_s: float,
    environ: Mapping[str, str],
) -> dict[str, CallProbe]:
    """One call per installed AI CLI and per CLI of the roles (the simulator only when a role
    names it), all at once, in an empty clean room outside the project."""
    probes: dict[str, CallProbe] = {}
    in_roles = {n for clis in roles.values() for n in clis}
    rooms = RoomDir(f"doctor-{uuid.uuid4().hex[:8]}")

    async def call(adapter: Adapter, tool: Tool) -> None:
        model, effort = specs.get(adapter.display_name, (None, None))
        probes[adapter.display_name] = await _probe_call(
            adapter, tool, rooms, timeout_s, environ, model, effort
        )

    try:
        async with anyio.create_task_group() as tg:
            for row in rows:
                name = row.adapter.display_name
                if row.tool is not None and (row.adapter.vendor != "sim" or name in in_roles):
                    tg.start_soon(call, row.adapter, row.tool)
                elif row.tool is None and name in in_roles:
                    state = _state(row)
                    probes[name] = CallProbe(state, _one_line(row.problem or state))
    finally:
        rooms.remove()
    return probes


async def _probe_call(
    adapter: Adapter,
    tool: Tool,
    rooms: RoomDir,
    timeout_s: float,
    environ: Mapping[str, str],
    model: str | None,
    effort: str | None,
) -> CallProbe:
    """The tiny call, as a seat makes it with no files given (spawned, lean), never retried:
    what the CLI answers first is the answer."""
    name = adapter.display_name
    room = rooms.room(name)
    room.mkdir(mode=0o700, parents=True)
    room.chmod(0o500)  # read-only, as a seat's room is
    outcome = await run_call(
        adapter,
        tool,
        render("doctor_probe"),
        room=room,
        files=CallFiles(rooms.path / name / "record", "probe"),
        timeouts=Timeouts(soft_s=timeout_s, hard_s=timeout_s, grace_s=PROBE_GRACE_S),
        policy=RetryPolicy(rate_limit_retries=0, other_retries=0),
        model=model,
        effort=effort,
        environ=environ,
        tmp_dir=rooms.tmp(name),
        lean_prompt=render("lean_system"),
    )
    ok = outcome.status is Status.OK
    return CallProbe(
        outcome.status.value,
        "" if ok else _one_line(outcome.detail),
        (adapter.login_hint or None) if outcome.status is Status.AUTH else None,
        round(outcome.latency_s, 2),
    )


def _one_line(text: str) -> str:
    """A problem as doctor shows it: one line, whatever a CLI printed (a stack trace's
    exception line, never its frames)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = lines[0].strip() if len(lines) == 1 else telling_line(text)
    return shown[:_PROBLEM_CHARS]


def _state(row: Resolution) -> str:
    if row.tool is not None:
        return "ok"
    return "unusable" if row.found else "missing"


def _version(row: Resolution) -> str | None:
    return row.version.version if row.version else None


def _version_note(row: Resolution) -> str | None:
    a = row.adapter
    if a.user_defined:
        return "a user-defined CLI: no contract test of council's has run it"
    version = _version(row)
    if a.is_tested(version) is False:
        tested = ", ".join(filter(None, (a.tested_version, *a.tested_versions)))
        return f"not tested with {version}; tested with {tested}"
    return None


def _known_broken(row: Resolution) -> list[dict]:
    variant = row.version.variant if row.version else None
    return [
        {
            "versions": e.versions,
            "breaks": e.breaks,
            "workaround": e.workaround,
            "unusable": e.unusable,
            "warning": e.warning(row.adapter.display_name, _version(row)),
        }
        for e in row.adapter.known_broken_for(_version(row), variant)
    ]


def _status(row: Resolution) -> str:
    """The table's STATE: `state`, or for a CLI that runs, whether it is known broken or
    untested."""
    if row.tool is None:
        return _state(row)
    if _known_broken(row):
        return "known-broken"
    return "untested" if row.adapter.is_tested(_version(row)) is False else "ok"


def _auth(row: Resolution, environ: Mapping[str, str]) -> dict:
    state = row.adapter.auth_state(environ, Path(environ.get("HOME", "~")).expanduser())
    return {"found": state.found, "source": state.source}


def _billing(row: Resolution, environ: Mapping[str, str]) -> dict:
    """Who pays for this CLI's calls, judged from what of `environ` reaches it."""
    adapter = row.adapter
    found = adapter.billing(
        adapter_env(adapter, environ), Path(environ.get("HOME", "~")).expanduser()
    )
    return {"mode": found.mode, "source": found.source, "text": found.text}


def _probe_json(probe: CallProbe | None) -> dict | None:
    if probe is None:
        return None
    return {
        "status": probe.status,
        "detail": probe.detail,
        "hint": probe.hint,
        "latency_s": probe.latency_s,
    }


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
                "status": _status(row),
                "path": row.tool.command[0] if row.tool else None,
                "command": list(row.tool.command) if row.tool else list(a.command()),
                "version": _version(row),
                "variant": row.version.variant if row.version else None,
                "tested_version": a.tested_version,
                "tested": a.is_tested(_version(row)),
                "version_note": _version_note(row),
                "known_broken": _known_broken(row),
                "problem": _one_line(row.problem) if row.problem else None,
                "auth": _auth(row, report.environ),
                "billing": _billing(row, report.environ),
                "default_seats": report.seats.seats_of(a.display_name),
                "sandbox": a.sandbox,
                "soft_timeout_s": a.soft_timeout(a.settings.effort),
                "probe": _probe_json(report.probes.get(a.display_name)),
            }
        )
    probe = None
    if report.probe_timeout_s is not None:
        roles = report.roles or {}
        probe = {
            "timeout_s": report.probe_timeout_s,
            "roles": {
                role: list(roles.get(role, ())) if role == "proxies" else _single(roles, role)
                for role in ROLES
            },
            "failed": report.failed_roles,
            "ok": bool(roles) and not report.failed_roles,
        }
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
        "probe": probe,
    }


def _single(roles: Mapping[str, tuple[str, ...]], role: str) -> str | None:
    found = roles.get(role, ())
    return found[0] if found else None
