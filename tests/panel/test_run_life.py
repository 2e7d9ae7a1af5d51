"""A run's life (`council.panel.run`) tested once, whatever the protocol: `echo`, a third
protocol that lives in the tests only (`panel/echo.py`), is started, resumed, interrupted,
broken by its disk, detached, waited on and shown, on the simulator, the way
`tests/adapters/test_registry.py` tests the vendor seam with an echo adapter. What is
asserted is what a user sees: exit codes, the files of the record, what is printed.

The simulator logs each call (COUNCIL_SIM_COUNT_FILE), so a test knows whether a reply was
asked for again; a call that must still be running when the test acts hangs
(COUNCIL_SIM_HANG) and the test waits for the log to show it, never for a clock.
"""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import stat
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest
from click.testing import CliRunner, Result

from council import protocols
from council.cli import cli
from council.config import Config, parse_config
from council.panel.run import Run, detach, resume, start
from council.panel.state import RunState
from council.progress import Progress
from council.protocols import protocol_of
from council.runs import detach as detach_module
from council.runs.record import Record
from panel.echo import ECHO, SEAT, EchoFlags, EchoState
from project import wait_for
from runs.disk import Disk

STEM = f"{SEAT}-r1"


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> None:
    """`echo` registered among council's protocols, for this test only."""
    monkeypatch.setitem(protocols.PROTOCOLS, ECHO.kind, ECHO)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def load(text):\n    return eval(text)\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user's council.yaml
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return root


@pytest.fixture
def count(tmp_path: Path) -> Path:
    """The simulator's call log (under write confinement it may append, not create)."""
    path = tmp_path / "sim-calls.txt"
    path.touch()
    return path


def sim_config(count: Path, **faults: str) -> Config:
    return parse_config(
        {"clis": {"sim": {"env": {"COUNCIL_SIM_COUNT_FILE": str(count), **faults}}}}
    )


def calls(count: Path) -> list[str]:
    """The phases the simulator was asked for, in order."""
    return [line.split("\t")[0] for line in count.read_text().splitlines()]


def quiet() -> Progress:
    return Progress(io.StringIO(), verbose=True, live=False)


def echo_run(project: Path, config: Config) -> Run:
    return start(ECHO, EchoFlags(files=("app.py",)), config, quiet(), cwd=project)


def resumed(record: Path, config: Config, project: Path) -> tuple[Run, str]:
    """`council resume` in a new process: its own `Record`; the run and its progress lines."""
    stream = io.StringIO()
    progress = Progress(stream, verbose=True, live=False)
    return resume(ECHO, Record(record), config, progress, cwd=project), stream.getvalue()


def council(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="council")


def files_of(record: Path) -> dict[str, bytes]:
    """Every file of a record, but its lock (which names the process that last took it)."""
    return {p.name: p.read_bytes() for p in sorted(record.iterdir()) if p.name != "lock"}


def transcript(record: Path) -> list[dict]:
    return [json.loads(line) for line in (record / "transcript.jsonl").read_text().splitlines()]


def test_an_echo_run_completes_with_its_result_its_markdown_and_its_state(project, count, echo):
    run = echo_run(project, sim_config(count))
    assert run.exit_code == 0, run.error
    record = run.record.path
    result = json.loads((record / "result.json").read_text())
    assert result == run.result
    assert result["status"] == "completed"
    assert result["id"] == record.name and record.name.startswith("echo-")
    assert '"findings"' in result["reply"] and "[SIMULATED]" in result["reply"]
    markdown = (record / "echo.md").read_text()
    assert markdown.startswith(f"# Echo {record.name}\n") and result["reply"] in markdown
    state = json.loads((record / "state.json").read_text())
    # Every key a run's state has, and the echo's own.
    assert set(state) == {f.name for f in fields(EchoState)}
    assert {f.name for f in fields(RunState)} < set(state) and "reply" in state
    assert (state["status"], state["exit_code"], state["reply"]) == (
        "completed",
        0,
        result["reply"],
    )
    assert state["plan"]["seat"]["cli"] == "sim"
    assert protocol_of(Record(record)) is ECHO
    assert calls(count) == ["REVIEW"]


def test_resume_reuses_the_stored_reply_and_an_ended_run_is_left_as_it_is(project, count, echo):
    config = sim_config(count)
    first = echo_run(project, config)
    record = first.record.path
    # As a run interrupted once its seat's reply was stored: no result yet.
    state = json.loads((record / "state.json").read_text())
    state.update(status="interrupted", reply=None, exit_code=130, finished_at=None)
    state.update(duration_s=1000.0, run_started_at=None)  # the first run's time, as saved
    (record / "state.json").write_text(json.dumps(state))
    (record / "result.json").unlink()
    (record / "echo.md").unlink()

    run, lines = resumed(record, config, project)
    assert run.exit_code == 0, run.error
    ended = json.loads((record / "state.json").read_text())
    # The run's time is both runs' together; the resuming process and its start are named.
    assert 1000.0 < ended["duration_s"] < 1000.0 + 600
    assert ended["started_at"] == state["started_at"]
    assert ended["run_started_at"] is not None and ended["finished_at"] is not None
    assert ended["pid"] == os.getpid()
    assert f"resuming {record.name} from REVIEW" in lines
    assert calls(count) == ["REVIEW"]  # the simulator was not asked again
    notes = [m["body"] for m in transcript(record) if m["kind"] == "system"]
    assert f"reused {STEM} from the record" in notes
    assert json.loads((record / "result.json").read_text())["reply"] == first.result["reply"]
    assert first.result["reply"] in (record / "echo.md").read_text()

    before = files_of(record)
    again, lines = resumed(record, config, project)
    assert again.exit_code == 0
    assert f"{record.name} already ended (completed); nothing to resume" in lines
    assert files_of(record) == before
    assert calls(count) == ["REVIEW"]


# Runs an echo in a process of its own, as `council` would, so the test can Ctrl-C it.
DRIVER = """\
import sys
from pathlib import Path
from council.config import parse_config
from council.panel.run import start
from council.progress import Progress
from panel.echo import ECHO, EchoFlags

env = {"COUNCIL_SIM_COUNT_FILE": sys.argv[1], "COUNCIL_SIM_HANG": "1"}
config = parse_config({"clis": {"sim": {"env": env}}})
run = start(ECHO, EchoFlags(files=("app.py",)), config, Progress(sys.stderr), cwd=Path.cwd())
print(run.exit_code.value, run.result["status"])
sys.exit(run.exit_code.value)
"""


def test_ctrl_c_during_the_seats_call_ends_the_run_resumable_and_resume_completes_it(
    project, count, tmp_path, echo
):
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py"), str(count)],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: calls(count) == ["REVIEW"])  # the seat's CLI is answering
        spawned = psutil.Process(run.pid).children(recursive=True)
        assert spawned
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 130, stderr
    assert stdout.split() == ["130", "interrupted"]
    for proc in spawned:  # the CLI it was running, and anything of council's
        assert not psutil.pid_exists(proc.pid) or proc.status() == psutil.STATUS_ZOMBIE, proc
    (record,) = (p for p in (project / ".scratchpad").iterdir() if p.is_dir())
    state = json.loads((record / "state.json").read_text())
    assert state["status"] == "interrupted" and state["exit_code"] == 130
    assert f"resume with: council resume {record.name}" in state["error"]
    assert STEM not in state["calls"]
    assert json.loads((record / "result.json").read_text())["status"] == "interrupted"

    again, _ = resumed(record, sim_config(count), project)
    assert again.exit_code == 0, again.error
    assert calls(count) == ["REVIEW", "REVIEW"]  # nothing was stored: asked again
    assert json.loads((record / "state.json").read_text())["status"] == "completed"
    assert "[SIMULATED]" in (record / "echo.md").read_text()


def test_a_record_write_failing_mid_run_ends_it_consistent_and_resume_completes_it(
    project, count, monkeypatch, echo
):
    disk = Disk(
        errno.ENOSPC,
        lambda path, value: path.name == "state.json" and STEM in value.get("calls", {}),
    )
    config = sim_config(count)
    with monkeypatch.context() as patch:
        disk.patch(patch)
        run = echo_run(project, config)
    assert disk.broken
    record = run.record.path
    assert run.exit_code == 130
    message = str(run.error)
    assert "\n" not in message
    assert f"{record / 'state.json'}: No space left on device" in message
    assert f"council resume {record.name}" in message
    # The record as it was before the write that failed: the reply is in neither file.
    state = json.loads((record / "state.json").read_text())
    assert state["status"] == "running" and STEM not in state["calls"]
    assert not any(m["meta"].get("stem") == STEM for m in transcript(record))
    assert not (record / "result.json").exists() and not (record / "echo.md").exists()

    # `council wait` sees a run whose process is gone: 130, and how to resume it.
    waited = council("wait", record.name)
    assert waited.exit_code == 130, waited.output
    assert f"resume with: council resume {record.name}" in waited.stderr

    # The disk is fixed.
    again, _ = resumed(record, config, project)
    assert again.exit_code == 0, again.error
    assert calls(count) == ["REVIEW", "REVIEW"]
    state = json.loads((record / "state.json").read_text())
    assert state["status"] == "completed" and STEM in state["calls"]
    assert json.loads((record / "result.json").read_text())["status"] == "completed"
    assert (record / "echo.md").is_file()


def test_wait_prints_the_echo_and_show_prints_its_forms_and_refuses_another(project, count, echo):
    run = echo_run(project, sim_config(count))
    record = run.record.path
    markdown = (record / "echo.md").read_text()

    waited = council("wait", record.name)
    assert waited.exit_code == 0, waited.output
    assert waited.stdout == markdown
    assert f"saved: {run.result['scratchpad']}" in waited.stderr

    shown = council("show", "last")
    assert (shown.exit_code, shown.stdout) == (0, markdown)
    as_json = council("show", record.name, "--json")
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout) == json.loads((record / "result.json").read_text())

    refused = council("show", record.name, "--sarif")
    assert refused.exit_code == 2
    assert record.name in refused.output and "--sarif is not one of its forms" in refused.output


# What `detach` starts instead of `<python> -m council`: council with `echo` registered, as a
# council that had it built in would be.
WRAPPER = """\
#!{python}
import sys
sys.path[:0] = {path!r}
from council.protocols import PROTOCOLS
from panel.echo import ECHO
PROTOCOLS[ECHO.kind] = ECHO
from council.__main__ import main
assert sys.argv[1:3] == ["-m", "council"], sys.argv
sys.argv[1:3] = []
main()
"""


def test_a_detached_echo_runs_in_its_own_process_and_wait_follows_it_to_its_end(
    project, count, tmp_path, monkeypatch, echo
):
    wrapper = tmp_path / "council-with-echo"
    wrapper.write_text(WRAPPER.format(python=sys.executable, path=sys.path))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(detach_module, "sys", SimpleNamespace(executable=str(wrapper)))
    # The detached council reads its config as any council does: from the project.
    (project / "council.yaml").write_text(
        f"clis:\n  sim:\n    env:\n      COUNCIL_SIM_COUNT_FILE: {count}\n"
    )
    config = parse_config({})
    record = detach(ECHO, EchoFlags(files=("app.py",)), config, quiet(), cwd=project)
    pid = json.loads(record.file("state.json").read_text())["pid"]
    assert pid != os.getpid()

    waited = council("wait", record.id)
    assert waited.exit_code == 0, waited.output
    assert waited.stdout == record.file("echo.md").read_text()
    assert "setup: echo on sim" in (record.path / "progress.log").read_text()
    assert calls(count) == ["REVIEW"]
    state = json.loads(record.file("state.json").read_text())
    assert (state["status"], state["pid"]) == ("completed", pid)
    wait_for(lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie")
