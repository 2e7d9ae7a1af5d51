"""A CLI's `--version` probe (`runner/probe.py`): where it runs, what it reads back, and that a
hung one ends at its deadline with everything it started."""

from __future__ import annotations

import os
import sys
import tempfile
import time

import anyio
import psutil
import pytest

from council.runner import run_probe

pytestmark = pytest.mark.anyio
ENV = {"PATH": os.defpath, "LANG": "C.UTF-8"}
TEMP_DIR = os.path.realpath(tempfile.gettempdir())


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def test_a_probe_runs_in_the_temp_dir_never_in_the_project(tmp_path, monkeypatch):
    # A CLI's --version may read config files from its working directory: not the user's.
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    result = await run_probe(python("import os; print(os.getcwd())"), env=ENV)
    assert result.stdout.strip() == TEMP_DIR
    assert (result.exit_code, result.timed_out, result.error) == (0, False, None)


async def test_a_version_printed_on_stderr_is_read_back():
    code = "import sys; print('tool 1.2.3', file=sys.stderr); sys.exit(3)"
    result = await run_probe(python(code), env=ENV)
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", "tool 1.2.3\n")


async def test_a_probe_that_prints_without_end_is_kept_to_256_kib_on_each_stream():
    code = "import sys\nsys.stdout.write('o' * 1_000_000); sys.stderr.write('e' * 1_000_000)\n"
    result = await run_probe(python(code), env=ENV)
    assert result.exit_code == 0
    assert 0 < len(result.stdout) <= 256 * 1024 < 1_000_000
    assert 0 < len(result.stderr) <= 256 * 1024


async def test_a_command_that_cannot_start_is_an_error_not_a_timeout(tmp_path):
    result = await run_probe([str(tmp_path / "no-such-cli"), "--version"], env=ENV)
    assert result.error and "no-such-cli" in result.error
    assert result.timed_out is False
    assert result.exit_code is None


# Forks a grandchild into a session of its own whose parent then exits (so neither its process
# group nor its parent ties it to the probe, only the call marker in its environment), writes
# the grandchild's pid, and hangs.
HANG_WITH_ESCAPED_GRANDCHILD = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


async def test_a_hung_probe_times_out_and_its_escaped_grandchild_dies_with_it(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    argv = [*python(HANG_WITH_ESCAPED_GRANDCHILD), str(pid_file)]
    result = await run_probe(argv, env=ENV, timeout_s=2.0)
    assert result.timed_out is True
    assert result.error is None
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        await anyio.sleep(0.05)
    else:
        pytest.fail(f"the probe's grandchild {grandchild} outlived its probe")


async def test_a_hung_probe_that_ignores_sigterm_is_killed_after_its_grace():
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(120)\n"
    result = await run_probe(python(code), env=ENV, timeout_s=1.0)
    assert result.timed_out is True
    assert result.exit_code == -9  # SIGKILL: SIGTERM was ignored
