"""The READY window (docs/spec/protocol.md section 3, "READY handshake"): a seat whose CLI
does not report READY within `debate.ready_timeout_s` is restarted once, with a warning, then
dropped with a warning naming the window; a run left with no seat fails (exit 3). Run on
`echo` (panel/echo.py), whose one seat here is a CLI that never answers its `--version`."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import psutil
import pytest

from council import protocols
from council.config import parse_config
from council.panel.run import start
from council.progress import Progress
from panel.echo import ECHO, SEAT, EchoFlags
from panel.home import user_project

WINDOW_S = 1.0


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setitem(protocols.PROTOCOLS, ECHO.kind, ECHO)
    return user_project(tmp_path, monkeypatch)


def test_a_seat_that_misses_ready_is_restarted_once_then_dropped(project):
    hang = [sys.executable, "-c", "import time; time.sleep(120)"]
    config = parse_config(
        {
            "debate": {"ready_timeout_s": WINDOW_S},
            "clis": {"sim-mute": {"adapter": "sim", "command": hang}},
        }
    )
    stream = io.StringIO()
    progress = Progress(stream, verbose=True, live=False)
    run = start(ECHO, EchoFlags(files=("app.py",), cli="sim-mute"), config, progress, cwd=project)
    assert run.exit_code == 3, run.error
    shown = re.sub(r"\[\d\d:\d\d\] ", "", stream.getvalue())
    assert f"{SEAT} missed READY; restarting it once" in shown
    assert f"{SEAT} (sim-mute) dropped: no READY within {WINDOW_S:g}s (restarted once)" in shown
    assert shown.count("missed READY") == 1  # never a second restart
    assert "ready 0/1" in shown
    state = run.state.to_json()
    assert state["seats"][SEAT]["status"] == "dropped"
    assert state["seats"][SEAT]["problem"] == f"no READY within {WINDOW_S:g}s (restarted once)"
    assert f"{SEAT} missed READY; restarting it once" in state["warnings"]
    # Neither start of the mute CLI is left running.
    assert not [p for p in psutil.Process().children(recursive=True) if mute(p)]


def mute(process: psutil.Process) -> bool:
    try:
        return "time.sleep(120)" in " ".join(process.cmdline())
    except psutil.Error:  # ended meanwhile
        return False
