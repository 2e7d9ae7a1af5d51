"""Shared fixtures. Every test is checked for orphans: a process council started (it carries
the COUNCIL_CALL_ID marker) or any child of the test process still alive after the test fails
it, so a kill path that leaks shows up wherever it happens."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import psutil
import pytest

from council.panel.calls import BLIND_GRACE_ENV
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from council.runner.confine import SUITE_ENV
from council.runner.environment import CALL_MARKER
from ordinary_user import open_project  # noqa: F401 - a fixture for every test module

# The test-only confinement switches count only under the suite (runner/confine.py): here,
# and in every council a test starts with this process's environment.
os.environ[SUITE_ENV] = "1"
# A blind take still running when the PROPOSAL is in is cancelled after 0.1 s: on a busy
# machine that is a race. Tests whose subject is not that cut wait for it (a blind take that
# started in time is answered); tests/panel/test_late_blind.py sets the real grace.
os.environ[BLIND_GRACE_ENV] = "10"

# The realcli run's closing report (which CLI versions were tested): a plugin here so that
# the pytest-xdist controller, which loads no conftest below this one, prints it.
pytest_plugins = ["fakemodel.report"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def leftover_processes(since: float) -> list[psutil.Process]:
    """Processes started since `since` by council calls, plus live children of this process."""
    found = {p.pid: p for p in psutil.Process().children(recursive=True) if _alive(p)}
    for proc in psutil.process_iter(["create_time"]):
        try:
            if proc.info["create_time"] < since - 1 or proc.pid == os.getpid():
                continue
            # Only this test process's own calls: another pytest may run on the machine.
            marker = proc.environ().get(CALL_MARKER, "")
            if marker.startswith(f"{os.getpid()}-") and _alive(proc):
                found[proc.pid] = proc
        except psutil.Error:
            continue
    return list(found.values())


@pytest.fixture(autouse=True)
def no_orphans():
    since = time.time()
    yield
    left = leftover_processes(since)
    described = []
    for proc in left:
        with contextlib.suppress(psutil.Error):
            described.append(f"{proc.pid} {' '.join(proc.cmdline()[:4])}")
            proc.kill()
    assert not left, "processes left behind: " + "; ".join(described)


@pytest.fixture
def record_dir(tmp_path: Path) -> Path:
    path = tmp_path / "record"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def room(tmp_path: Path) -> Path:
    path = tmp_path / "room"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The strict fake vendor CLIs first on PATH, HOME in a temporary directory."""
    from fakes.install import install_fakes

    installed = install_fakes(tmp_path / "bin")
    home = tmp_path / "home"
    home.mkdir()
    # The fakes log every call beside themselves: under write confinement, only allowed so.
    monkeypatch.setenv(EXTRA_WRITABLE, str(installed.state_dir))
    monkeypatch.setenv("PATH", installed.path_env(os.environ.get("PATH", "")))
    monkeypatch.setenv("HOME", str(home))
    return installed
