"""Who sits, as the record and the seats' orders show it (docs/spec/protocol.md section 3,
"READY handshake"; docs/lean.md): a READY seat is recorded with its CLI, model, effort,
version, path and who pays for its calls; a CLI on a release known broken is warned of once
however many seats it holds; every call runs lean, or none (not with --no-lean, nor when a
file was cut by the line caps); each READY seat gets one SHUTDOWN. Seats are played by the
test (tests/panel/desk.py).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from council.context.model import FileExcerpt
from council.errors import UsageError
from council.prompts import render
from panel.desk import Desk

pytestmark = pytest.mark.anyio


def excerpt(truncated: bool) -> FileExcerpt:
    return FileExcerpt(
        path="app.py",
        text="class SessionStore: ...\n",
        lines_total=900 if truncated else 1,
        lines_sent=500 if truncated else 1,
        truncated=truncated,
        redactions=0,
    )


async def test_a_ready_seat_is_recorded_with_its_cli_model_effort_version_and_path(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha",), cli="codex", version="0.98.0", model="o3", effort="high")
    async with desk.open() as d:
        pass
    seat = d.state.seats["alpha"]
    assert {k: seat[k] for k in ("role", "cli", "model", "effort", "version", "path")} == {
        "role": "reviewer",
        "cli": "codex",
        "model": "o3",
        "effort": "high",
        "version": "0.98.0",
        "path": "/usr/bin/codex",
    }
    assert (seat["status"], seat["problem"]) == ("ready", None)
    assert seat["billing"] == {
        "mode": "login",
        "source": "~/.sim/auth.json",
        "text": "its own login",
    }
    saved = d.record.read_json("state.json")["seats"]["alpha"]
    assert saved["status"] == "ready"


@pytest.mark.parametrize(
    ("version", "warned"), [("1.0.0", 1), ("0.99.0", 1), ("1.0.4", 0), ("0.98.9", 0)]
)
async def test_a_cli_on_a_known_broken_release_is_warned_of_once_for_all_its_seats(
    tmp_path: Path, version: str, warned: int
):
    # pi before 1.0.4 (from 0.99.0) connects the user's MCP servers (adapters/pi.py).
    desk = Desk(tmp_path, ("alpha", "beta"), cli="pi", version=version)
    async with desk.open() as d:
        pass
    notes = [n for n in d.notes() if n.startswith("warning: ")]
    assert len(notes) == warned
    assert len([line for line in d.lines() if "pi " + version in line]) == warned
    if warned:
        assert "upgrade pi to 1.0.4 or later" in notes[0]


@pytest.mark.parametrize(
    ("lean", "truncated", "runs_lean"),
    [(True, False, True), (True, True, False), (False, False, False), (False, True, False)],
)
async def test_every_call_runs_lean_unless_no_lean_or_a_file_was_cut(
    tmp_path: Path, lean: bool, truncated: bool, runs_lean: bool
):
    files = (excerpt(truncated=False), excerpt(truncated=truncated))
    desk = Desk(tmp_path, ("alpha", "beta"), lean=lean, files=files)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta")]
        await d.dispatch.gather(asked, progressive=False)
    prompts = [d.played[name].asks[0].payload.lean_prompt for name in ("alpha", "beta")]
    assert prompts == [render("lean_system") if runs_lean else None] * 2


async def test_each_ready_seat_gets_one_shutdown_and_a_seat_still_starting_none(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), starting=("gamma",))
    async with desk.open() as d:
        await d.roster.stop_seats()
        await d.roster.stop_seats()  # the lead's DECISION, then the way out
    shutdowns = [m for m in d.record.transcript() if m["kind"] == "shutdown"]
    assert [(m["to"], m["body"]) for m in shutdowns] == [
        ("alpha", "SHUTDOWN:alpha"),
        ("beta", "SHUTDOWN:beta"),
    ]


async def test_a_run_stopped_beside_the_seats_says_why_in_the_transcript(tmp_path: Path):
    desk = Desk(tmp_path, ())

    async def lead_cli_missing() -> None:
        raise UsageError("the lead's CLI `nosuch` is not installed")

    desk.roster.beside_ready = lead_cli_missing
    with pytest.raises(BaseExceptionGroup) as raised:
        async with desk.roster.sitting(absorb=lambda message: None):
            await anyio.sleep_forever()
    assert raised.group_contains(UsageError, depth=None)
    desk.rooms.remove()
    assert (
        "stopped (the lead's CLI `nosuch` is not installed): seats stopped, their CLIs' trees "
        "killed" in desk.notes()
    )


async def test_a_run_interrupted_says_so_in_the_transcript(tmp_path: Path):
    desk = Desk(tmp_path, ())
    with anyio.move_on_after(0):  # as Ctrl-C cancels the lead
        async with desk.roster.sitting(absorb=lambda message: None):
            await anyio.sleep_forever()
    desk.rooms.remove()
    assert "interrupted: seats stopped, their CLIs' trees killed" in desk.notes()
